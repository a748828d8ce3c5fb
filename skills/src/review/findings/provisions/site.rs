//! Site and ground risk: physical, subsurface or unforeseen conditions placed on one party
//! (deemed inspection, sole risk, no adjustment for conditions met).

use std::sync::LazyLock;

use regex::Regex;

use super::{actor_at, find, quoted, subject, Bound, Hit, Provision, Window};

/// Site, ground or physical conditions.
static CONDITIONS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:site|ground|sub-?surface|physical|soil|geotechnical|geological|hydrological|latent|unforeseen|unknown|concealed|differing)\s+(?:site\s+)?(?:conditions?|data|obstructions?)|(?:conditions?|obstructions?)\s+(?:at|of|on)\s+the\s+site|nature\s+of\s+the\s+(?:ground|site|soil)|the\s+site\s+and\s+its\s+surroundings|underground\s+(?:utilities|services|structures)",
        r"|(?:地质|地下|现场|水文|气候|障碍物|地下管线|施工场地)(?:条件|情况|资料|状况)?",
    ))
    .unwrap()
});

/// Words that put the conditions on one party.
static ON_ONE_PARTY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"deemed\s+to\s+have\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,3}(?:inspected|examined|satisfied|visited|investigated|obtained|taken\s+into\s+account|allowed\s+for)|(?:sole|own|entire)\s+risk|at\s+(?:its|their|the\s+\w+'s)\s+(?:own\s+)?(?:risk|cost)",
        r"|(?:bear|assume)s?\s+(?:all\s+|the\s+|full\s+)?(?:risks?|responsibility)|(?:no|not)\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,5}(?:claim|adjustment|extension|compensation|increase|relief)[^.;]{0,80}(?:conditions|ground|site|obstruction)|(?:shall|will)\s+not\s+be\s+entitled|responsible\s+for\s+(?:interpreting|the\s+interpretation|all\s+risks)|no\s+responsibility\s+for\s+(?:the\s+)?(?:accuracy|sufficiency|completeness)|does\s+not\s+warrant|without\s+(?:any\s+)?(?:warranty|responsibility)",
        r"|(?:自行|自担|承担)[^。；]{0,20}(?:风险|责任|费用)|视为[^。；]{0,15}(?:已经?|充分)?(?:了解|勘察|考察|熟悉|检查|踏勘)|不(?:予|得)[^。；]{0,10}(?:调整|顺延|补偿|索赔)|(?:不对|不负责)[^。；]{0,20}(?:准确|真实|完整)",
    ))
    .unwrap()
});

pub(super) fn scan(window: &Window<'_>, hits: &mut Vec<Hit>) {
    let s = window.this();
    let Some(conditions) = find(&CONDITIONS, s) else {
        return;
    };
    let Some(burden) = find(&ON_ONE_PARTY, s) else {
        return;
    };
    let bound = match actor_at(s, burden.start()) {
        Bound::Unknown => subject(&s.text),
        other => other,
    };
    hits.push(Hit::new(
        Provision::SiteRisk,
        bound,
        format!(
            "Site or ground conditions (\"{}\") at one party's risk (\"{}\")",
            quoted(conditions.as_str()),
            quoted(burden.as_str())
        ),
        "unforeseen ground or site conditions are a large cost the bearing party cannot price",
        s.text.clone(),
    ));
}
