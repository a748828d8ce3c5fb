//! Transfers: change of control, restrictions on assignment, and the rights that follow a
//! holder's sale (drag-along, tag-along, pre-emption, first refusal / offer / negotiation).

use std::sync::LazyLock;

use regex::Regex;

use super::{
    actor_at, find, party_just_before, quoted, subject, Bound, Hit, Provision, Sentence, Window,
};

static CHANGE_OF_CONTROL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"change\s+(?:of|in)\s+(?:the\s+)?(?:\w+\s+)?(?:control|ownership)|changes?\s+in\s+(?:the\s+)?(?:general\s+)?(?:management|shareholding|ownership)|controlling\s+(?:interest|shareholder|stake)",
        r"|(?:is|be|being|becomes?)\s+acquired\s+by|acquisition\s+of\s+(?:all\s+or\s+)?(?:a\s+)?(?:majority|control|substantially\s+all)|(?:sale|transfer|disposal)\s+of\s+(?:all\s+or\s+)?substantially\s+all\s+(?:of\s+)?(?:its|the)\s+(?:assets|business|shares)",
        r"|(?:by\s+(?:way\s+of\s+)?|through\s+(?:a\s+)?|in\s+(?:a|the)\s+(?:event\s+of\s+(?:a\s+)?)?|or\s+|(?:as\s+a\s+(?:result|consequence)\s+of|of|upon|following|pursuant\s+to)\s+(?:a\s+|any\s+)?)(?:merger|amalgamation|consolidation|reorgani[sz]ation|de-?merger|spin-?off)",
        r"|assign\w*\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,8}to\s+(?:a|any|its)\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,2}(?:successor|acquir[eo]r)",
        r"|(?:merges?|consolidates?|amalgamates?)\s+(?:with|into)|(?:more\s+than|at\s+least|in\s+excess\s+of)\s+(?:fifty|50)\s*(?:percent|%|per\s+cent)[^.;]{0,60}(?:voting|shares|equity|ownership|interest)|ceases?\s+to\s+(?:be\s+controlled|control|hold)",
        r"|控制权[^。；]{0,6}(?:变更|变化|转移|发生变动)|实际控制人[^。；]{0,6}(?:变更|变化)|(?:被|进行)?(?:合并|分立|兼并|重组|收购)[^。；]{0,20}(?:解除|终止|同意|通知|转让)|股权结构[^。；]{0,6}(?:变更|变化)",
    ))
    .unwrap()
});

/// Words that name a change of control outright.
static STRONG_CHANGE_OF_CONTROL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"change\s+(?:of|in)\s+(?:the\s+)?control|控制权[^。；]{0,6}(?:变更|变化|转移|发生变动)|实际控制人[^。；]{0,6}(?:变更|变化)").unwrap()
});

/// What a change of control leads to: a right to end the contract, a consent, a notice, an
/// option or a deemed event.
static COC_CONSEQUENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"terminat|consent|notif|notice|assign|transfer|deemed|option|purchase|right|trigger|accelerat|treated\s+as|liquidation\s+event|解除|终止|同意|通知|批准|视为").unwrap()
});

/// Insolvency wording, where "reorganization" or "amalgamation" is not a change of owner.
static INSOLVENCY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"bankrupt|insolven|receiver|creditors|winding[- ]up|dissol|破产|清算").unwrap()
});

/// A restriction on assigning the contract or its rights.
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:shall\s+not|may\s+not|will\s+not|cannot|can\s+not|must\s+not|is\s+not\s+entitled\s+to|not\s+be\s+entitled\s+to)\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,3}(?:assign|transfer|delegate|novate|sub-?contract|sub-?let|sell,?\s+assign|pledge)",
        r"|(?:assign|assigned|assignment|transfer|transferred|delegat|novat)\w*[^.;]{0,160}without\s+(?:first\s+obtaining\s+)?(?:the\s+)?(?:prior\s+|express\s+|written\s+|prior\s+written\s+|express\s+written\s+)?(?:written\s+)?(?:consent|approval|agreement|permission)",
        r"|(?:not|non)[- ](?:assignable|transferable)|(?:no|neither)\s+(?:party|participant|shareholder|member)\s+(?:shall|may|will)\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,3}(?:assign|transfer|sell)",
        r"|(?:any\s+)?(?:purported\s+)?(?:assignment|transfer)[^.;]{0,80}(?:in\s+violation|contrary|without)[^.;]{0,60}(?:void|null|invalid|of\s+no\s+effect)",
        r"|未经[^。；]{0,20}(?:同意|书面同意|批准|许可)[^。；]{0,30}(?:转让|让与|转包|分包|转移|抵押|质押)|不得[^。；]{0,15}(?:转让|转包|让与|违法分包)|(?:转让|转包)[^。；]{0,30}(?:须|必须|应)[^。；]{0,10}(?:经|征得|取得)[^。；]{0,15}(?:同意|批准)",
    ))
    .unwrap()
});

/// The words that name a drag-along right.
const DRAG_NAMED: &str = r"drag[- ]?along|bring[- ]along|领售|拖售|强制出售|强卖权";

/// A drag-along right named, or described by its effect (the others must sell or vote
/// for the sale).
static DRAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"{DRAG_NAMED}|(?:require|compel|force|obliged?)\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:other|remaining|minority)\s+(?:shareholders|stockholders|holders|members|investors|parties)\s+to\s+(?:sell|transfer|vote|consent|join)|(?:vote|sell|transfer)\s+(?:all\s+)?(?:of\s+)?(?:their|its|his)\s+shares[^.;]{{0,80}}(?:approved\s+by|in\s+favou?r\s+of)[^.;]{{0,40}}(?:sale|acquisition|merger)"
    ))
    .unwrap()
});

/// The words that name a tag-along (co-sale) right.
/// `co-sale` starts a word: "tobacco sale" names no right.
const TAG_NAMED: &str = r"tag[- ]?along|\bco-?\s?sale|随售|共同出售|跟售";

/// A tag-along right named, or described by its effect (the others may join the sale).
static TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"{TAG_NAMED}|right\s+to\s+participate\s+(?:in|pro\s+rata)[^.;]{{0,40}}(?:sale|transfer)|sell\s+(?:[0-9A-Za-z_\x{{80}}-\x{{10FFFF}}]+\s+){{0,3}}shares\s+(?:alongside|together\s+with|on\s+the\s+same\s+terms)"
    ))
    .unwrap()
});

static DRAG_NAME: LazyLock<Regex> = LazyLock::new(|| Regex::new(DRAG_NAMED).unwrap());
static TAG_NAME: LazyLock<Regex> = LazyLock::new(|| Regex::new(TAG_NAMED).unwrap());

/// Whether a lower-cased sentence names a drag-along right: the family's own words, which
/// the scan's test (`DRAG`) starts from and the governance check of a shareholders'
/// agreement reads the right's threshold by.
pub(crate) fn names_drag_along(lower: &str) -> bool {
    DRAG_NAME.is_match(lower)
}

/// Whether a lower-cased sentence names a tag-along (co-sale) right: the family's own
/// words, which the scan's test (`TAG`) starts from and the governance check of a
/// shareholders' agreement reads the right's threshold by.
pub(crate) fn names_tag_along(lower: &str) -> bool {
    TAG_NAME.is_match(lower)
}

static PRE_EMPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"pre-?\s?emptive|pre-?\s?emption|right\s+of\s+participation|participation\s+right|right\s+to\s+(?:purchase|subscribe\s+for|participate\s+in)[^.;]{0,60}(?:new\s+(?:securities|shares|issu)|future\s+(?:issu|financ|offering)|subsequent\s+(?:issu|financ|offering))|participat\w*\s+(?:on\s+a\s+)?pro\s+rata\s+(?:basis\s+)?in\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,2}(?:issu|offering|financ)|pro\s+rata\s+(?:right|share\s+of\s+(?:new|future|any)\s+(?:securities|issu))|优先认购|优先认缴|优先增资").unwrap()
});

static FIRST_REFUSAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"right\s+of\s+first\s+(?:refusal|offer|negotiation|purchase)|first\s+right\s+(?:to|of)\s+(?:negotiat|refus|offer|purchase|buy|acquire|submit)|rofr|rofo|rofn|first\s+(?:option|opportunity)\s+to\s+(?:purchase|buy|acquire|negotiate)",
        r"|preferential\s+(?:right|option)\s+to\s+(?:purchase|buy|acquire)|(?:shall|must)\s+first\s+(?:offer|notify)|offer(?:ed)?\s+(?:[0-9A-Za-z_\x{80}-\x{10FFFF}]+\s+){0,4}first\s+to|(?:call|put)\s+option",
        r"|(?:selling|transferring|offering)\s+(?:party|shareholder|member|holder)[^.;]{0,160}(?:offer|notice|notify)[^.;]{0,120}(?:other|remaining|non-?selling)\s+(?:part(?:y|ies)|shareholders?|members?|holders?)|(?:transferor|offeror)[^.;]{0,200}(?:transferees?|offerees?)",
        r"|third\s+party\s+offer[^.;]{0,120}(?:notify|offer)[^.;]{0,60}other\s+part",
        r"|优先购买权|优先受让|优先购买|同等条件下[^。；]{0,15}(?:优先|有权购买)",
    ))
    .unwrap()
});

/// "the Contractor's control" or "'Control' means": definitions that do not yet give a right.
fn only_defines_control(s: &Sentence) -> bool {
    let lower = &s.lower;
    (lower.contains("control\" means")
        || lower.contains("control” means")
        || lower.contains("control\" shall mean")
        || lower.contains("control” shall mean"))
        && !lower.contains("change")
}

pub(super) fn scan(window: &Window<'_>, hits: &mut Vec<Hit>) {
    let s = window.this();
    let consequence = COC_CONSEQUENCE.is_match(&s.lower) && !INSOLVENCY.is_match(&s.lower);
    // "Change of control" says it all; a merger or an acquisition matters when it leads to
    // something (a right to terminate, a consent), in this sentence or its lead-in.
    let lead_in = window
        .previous()
        .filter(|p| p.text.trim_end().ends_with(':'))
        .is_some_and(|p| COC_CONSEQUENCE.is_match(&p.lower));
    let coc = find(&STRONG_CHANGE_OF_CONTROL, s).or_else(|| {
        find(&CHANGE_OF_CONTROL, s).filter(|_| (consequence || lead_in) && !only_defines_control(s))
    });
    if let Some(m) = coc {
        hits.push(Hit::new(
            Provision::ChangeOfControl,
            party_just_before(s, m.start()),
            format!(
                "Change of control (\"{}\") triggers rights",
                quoted(m.as_str())
            ),
            "a merger, acquisition or change of owner can end the contract or need consent",
            s.text.clone(),
        ));
    }
    if let Some(m) = find(&ASSIGNMENT, s) {
        let bound = match actor_at(s, m.start() + 1) {
            Bound::Unknown => subject(&s.text),
            other => other,
        };
        hits.push(Hit::new(
            Provision::AssignmentRestriction,
            bound,
            format!("Assignment or transfer restricted (\"{}\")", quoted(m.as_str())),
            "the bound party cannot sell, finance or reorganise around the contract without consent",
            s.text.clone(),
        ));
    }
    let rights: [(&Regex, Provision, &str, &str); 4] = [
        (
            &DRAG,
            Provision::DragAlong,
            "Drag-along",
            "holders who sell can force the others to sell on the same terms",
        ),
        (
            &TAG,
            Provision::TagAlong,
            "Tag-along (co-sale)",
            "a selling holder must let the others join the sale",
        ),
        (
            &PRE_EMPTION,
            Provision::PreEmption,
            "Pre-emption on new issues",
            "new shares must be offered to existing holders first",
        ),
        (
            &FIRST_REFUSAL,
            Provision::FirstRefusal,
            "First refusal / first offer",
            "a holder who wants to sell must first offer to the others",
        ),
    ];
    for (re, provision, name, reason) in rights {
        if let Some(m) = find(re, s) {
            hits.push(Hit::new(
                provision,
                Bound::Mutual,
                format!("{name} (\"{}\")", quoted(m.as_str())),
                reason,
                s.text.clone(),
            ));
        }
    }
}
