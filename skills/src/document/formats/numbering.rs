//! Word's automatic numbering (`word/numbering.xml`, ECMA-376 Part 1 §17.9): the list
//! definitions, the counters Word keeps while it lays out a document, and the labels
//! (`4.1`, `(b)`, `第一条`) a reader sees in front of numbered paragraphs.
//!
//! What Word does and the standard does not say: counters live per abstract definition and
//! are shared by every `num` that uses it; the first paragraph of a `num` with a
//! `startOverride` restarts the overridden levels at its own level and deeper (a list nested
//! in an item, written as a `num` overriding every level, leaves its parent's count alone:
//! pandoc writes nested lists so). A parent level never used shows its start value.

use std::collections::{HashMap, HashSet};

use quick_xml::events::Event;
use quick_xml::Reader;

use super::docx::{attr, local, next_event};

/// Levels a list has (`ilvl` 0..=8).
pub(super) const LEVELS: usize = 9;

/// One level of a list definition.
#[derive(Debug, Clone, Default)]
pub(super) struct Level {
    start: Option<i64>,
    format: Option<String>,
    text: Option<String>,
    restart: Option<i64>,
    legal: bool,
    /// The paragraph style tied to this level (`w:pStyle`).
    pub(super) style: Option<String>,
    /// `w:suff` is `nothing`: the label runs straight into the text.
    pub(super) no_suffix: bool,
}

#[derive(Debug, Default)]
struct AbstractNum {
    levels: HashMap<usize, Level>,
    num_style_link: Option<String>,
}

#[derive(Debug, Default, Clone)]
struct Override {
    start: Option<i64>,
    level: Option<Level>,
}

#[derive(Debug, Default)]
struct Num {
    abstract_id: String,
    overrides: HashMap<usize, Override>,
}

/// The list definitions of a document and the counters of the paragraphs numbered so far.
#[derive(Debug, Default)]
pub(super) struct Numbering {
    abstracts: HashMap<String, AbstractNum>,
    nums: HashMap<String, Num>,
    counters: HashMap<String, [Option<i64>; LEVELS]>,
    used: HashSet<String>,
}

/// A label computed for a paragraph.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Label {
    /// What the reader sees (`4.1.`, `(b)`), possibly empty.
    pub(super) text: String,
    /// Whether a space separates it from the text (`w:suff` is not `nothing`).
    pub(super) spaced: bool,
    /// How deep the paragraph is indented when it is nested in an open item of its list and
    /// its label cannot be told from that item's by the text alone (`1.` under `1.`): only
    /// the indentation says it is an item of its parent, not the next one of the outer list.
    /// 0 otherwise.
    pub(super) indent: usize,
}

impl Numbering {
    /// Reads `numbering.xml`.
    pub(super) fn parse(xml: &str) -> Result<Self, String> {
        let mut numbering = Numbering::default();
        let mut reader = Reader::from_str(xml);
        let mut abstract_id: Option<String> = None;
        let mut num_id: Option<String> = None;
        let mut override_level: Option<usize> = None;
        let mut level: Option<(usize, Level)> = None;
        let mut in_fallback = 0usize;
        loop {
            let event = next_event(&mut reader).map_err(|e| format!("numbering.xml is {e}"))?;
            let (start, empty) = match &event {
                Event::Start(e) => (Some(e.clone()), false),
                Event::Empty(e) => (Some(e.clone()), true),
                Event::End(e) => {
                    match local(e.name().as_ref()) {
                        b"abstractNum" => abstract_id = None,
                        b"num" => num_id = None,
                        b"lvlOverride" => override_level = None,
                        b"lvl" => {
                            if let Some((ilvl, lvl)) = level.take() {
                                numbering.store_level(
                                    abstract_id.as_deref(),
                                    num_id.as_deref(),
                                    override_level,
                                    ilvl,
                                    lvl,
                                );
                            }
                        }
                        b"Fallback" => in_fallback = in_fallback.saturating_sub(1),
                        _ => {}
                    }
                    continue;
                }
                Event::Eof => break,
                _ => continue,
            };
            let Some(e) = start else { continue };
            let name = e.name();
            let val = attr(&e, b"val");
            match local(name.as_ref()) {
                b"abstractNum" => {
                    let id = attr(&e, b"abstractNumId").unwrap_or_default();
                    numbering.abstracts.entry(id.clone()).or_default();
                    abstract_id = (!empty).then_some(id);
                }
                b"num" if abstract_id.is_none() => {
                    let id = attr(&e, b"numId").unwrap_or_default();
                    numbering.nums.entry(id.clone()).or_default();
                    num_id = (!empty).then_some(id);
                }
                b"abstractNumId" => {
                    if let (Some(id), Some(v)) = (&num_id, val) {
                        if let Some(num) = numbering.nums.get_mut(id) {
                            num.abstract_id = v;
                        }
                    }
                }
                b"lvlOverride" => {
                    if !empty {
                        override_level = attr(&e, b"ilvl").and_then(|v| v.parse().ok());
                    }
                }
                b"startOverride" => {
                    if let (Some(id), Some(l)) = (&num_id, override_level) {
                        if let Some(num) = numbering.nums.get_mut(id) {
                            num.overrides.entry(l).or_default().start =
                                val.and_then(|v| v.parse().ok());
                        }
                    }
                }
                b"lvl" => {
                    let ilvl = attr(&e, b"ilvl")
                        .and_then(|v| v.parse::<usize>().ok())
                        .unwrap_or(0);
                    if ilvl < LEVELS && !empty {
                        level = Some((ilvl, Level::default()));
                    }
                }
                b"Fallback" if !empty => in_fallback += 1,
                b"numStyleLink" => {
                    if let (Some(id), Some(v)) = (&abstract_id, val) {
                        if let Some(a) = numbering.abstracts.get_mut(id) {
                            a.num_style_link = Some(v);
                        }
                    }
                }
                tag => {
                    if let Some((_, lvl)) = level.as_mut() {
                        match tag {
                            b"start" => lvl.start = val.and_then(|v| v.parse().ok()),
                            // Word 2010 writes `custom` in mc:Choice and a plain format in
                            // mc:Fallback; the plain one is kept.
                            b"numFmt" if val.as_deref() != Some("custom") || in_fallback > 0 => {
                                lvl.format = val
                            }
                            b"lvlText" => lvl.text = val,
                            b"lvlRestart" => lvl.restart = val.and_then(|v| v.parse().ok()),
                            b"isLgl" => lvl.legal = on(val.as_deref()),
                            b"pStyle" => lvl.style = val,
                            b"suff" => lvl.no_suffix = val.as_deref() == Some("nothing"),
                            _ => {}
                        }
                    }
                }
            }
        }
        Ok(numbering)
    }

    fn store_level(
        &mut self,
        abstract_id: Option<&str>,
        num_id: Option<&str>,
        override_level: Option<usize>,
        ilvl: usize,
        lvl: Level,
    ) {
        if let Some(id) = abstract_id {
            if let Some(a) = self.abstracts.get_mut(id) {
                a.levels.insert(ilvl, lvl);
            }
        } else if let (Some(id), Some(l)) = (num_id, override_level) {
            if let Some(num) = self.nums.get_mut(id) {
                num.overrides.entry(l).or_default().level = Some(lvl);
            }
        }
    }

    /// The abstract definition a `num` draws its levels from, following `numStyleLink`
    /// through the styles (`style_num` gives a style's `numId`).
    fn abstract_of(
        &self,
        num_id: &str,
        style_num: &dyn Fn(&str) -> Option<String>,
    ) -> Option<&str> {
        let mut id = self.nums.get(num_id)?.abstract_id.as_str();
        for _ in 0..8 {
            let Some(link) = self
                .abstracts
                .get(id)
                .and_then(|a| a.num_style_link.as_deref())
            else {
                break;
            };
            let Some(linked) = style_num(link).and_then(|n| self.nums.get(&n)) else {
                break;
            };
            id = linked.abstract_id.as_str();
        }
        self.abstracts.contains_key(id).then_some(id)
    }

    /// The level `ilvl` of a `num`, its overrides applied.
    fn level(&self, num: &Num, abstract_id: &str, ilvl: usize) -> Level {
        let mut level = num
            .overrides
            .get(&ilvl)
            .and_then(|o| o.level.clone())
            .or_else(|| {
                self.abstracts
                    .get(abstract_id)
                    .and_then(|a| a.levels.get(&ilvl).cloned())
            })
            .unwrap_or_default();
        if let Some(start) = num.overrides.get(&ilvl).and_then(|o| o.start) {
            level.start = Some(start);
        }
        level
    }

    /// The level of a list tied to a paragraph style (`w:lvl/w:pStyle`), for paragraphs whose
    /// numbering gives no `ilvl`.
    pub(super) fn level_of_style(
        &self,
        num_id: &str,
        style: &str,
        style_num: &dyn Fn(&str) -> Option<String>,
    ) -> Option<usize> {
        let abstract_id = self.abstract_of(num_id, style_num)?;
        let a = self.abstracts.get(abstract_id)?;
        a.levels
            .iter()
            .filter(|(_, l)| l.style.as_deref() == Some(style))
            .map(|(i, _)| *i)
            .min()
    }

    /// Counts a paragraph numbered with `num_id` at `ilvl` and returns its label; `None`
    /// when the numbering is not defined (`numId` 0 or unknown).
    pub(super) fn next_label(
        &mut self,
        num_id: &str,
        ilvl: usize,
        style_num: &dyn Fn(&str) -> Option<String>,
    ) -> Option<Label> {
        if num_id == "0" || ilvl >= LEVELS {
            return None;
        }
        let abstract_id = self.abstract_of(num_id, style_num)?.to_string();
        let num = self.nums.get(num_id)?;
        let levels: Vec<Level> = (0..LEVELS)
            .map(|i| self.level(num, &abstract_id, i))
            .collect();
        let first_use = !self.used.contains(num_id);
        let restarts: Vec<usize> = num
            .overrides
            .iter()
            .filter(|(i, o)| o.start.is_some() && **i >= ilvl)
            .map(|(i, _)| *i)
            .collect();
        let counters = self.counters.entry(abstract_id).or_insert([None; LEVELS]);
        if first_use {
            for i in restarts {
                if i < LEVELS {
                    counters[i] = None;
                }
            }
        }
        let start = |i: usize| levels[i].start.unwrap_or(0);
        counters[ilvl] = Some(counters[ilvl].map_or(start(ilvl), |c| c.saturating_add(1)));
        for (deeper, level) in levels.iter().enumerate().skip(ilvl + 1) {
            let restart = match level.restart {
                None => true,
                Some(0) => false,
                Some(r) => (ilvl as i64) < r,
            };
            if restart {
                counters[deeper] = None;
            }
        }
        let current = &levels[ilvl];
        let nested = (0..ilvl).any(|parent| {
            counters[parent].is_some() && same_look(&levels[parent], current, parent, ilvl)
        });
        let text = match current.format.as_deref() {
            Some("none") => String::new(),
            Some("bullet") => bullet(current.text.as_deref().unwrap_or("•")),
            _ => {
                let template = current.text.as_deref().unwrap_or_default();
                let mut out = String::new();
                let mut chars = template.chars().peekable();
                while let Some(c) = chars.next() {
                    let digit = chars.peek().and_then(|d| d.to_digit(10));
                    match (c, digit) {
                        ('%', Some(d)) if (1..=LEVELS as u32).contains(&d) => {
                            chars.next();
                            let i = d as usize - 1;
                            let value = counters[i].unwrap_or_else(|| start(i));
                            let format = if current.legal {
                                "decimal"
                            } else {
                                levels[i].format.as_deref().unwrap_or("decimal")
                            };
                            out.push_str(&format_number(value, format));
                        }
                        _ => out.push(c),
                    }
                }
                out
            }
        };
        self.used.insert(num_id.to_string());
        Some(Label {
            text,
            spaced: !current.no_suffix,
            indent: if nested { ilvl } else { 0 },
        })
    }
}

/// Whether the labels of two levels look alike: the same template around their own number
/// in the same format (`%1.` and `%2.`, both decimal), and the inner one shows no number of
/// an outer level (`%1.%2` tells itself apart).
fn same_look(outer: &Level, inner: &Level, outer_ilvl: usize, inner_ilvl: usize) -> bool {
    let shape = |level: &Level, ilvl: usize| -> Option<String> {
        let template = level.text.as_deref()?;
        let own = format!("%{}", ilvl + 1);
        if !template.contains(&own) {
            return None;
        }
        let rest = template.replace(&own, "");
        if rest.contains('%') {
            return None;
        }
        let format = if level.legal {
            "decimal"
        } else {
            level.format.as_deref().unwrap_or("decimal")
        };
        if matches!(format, "none" | "bullet") {
            return None;
        }
        Some(format!("{}|{format}", template.replace(&own, "%")))
    };
    match (shape(outer, outer_ilvl), shape(inner, inner_ilvl)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// `w:val` of an on/off property: absent, `1`, `true` and `on` mean on.
pub(super) fn on(val: Option<&str>) -> bool {
    !matches!(val, Some("0" | "false" | "off"))
}

/// A bullet's glyph; symbol-font glyphs (private use code points) become `•`.
fn bullet(text: &str) -> String {
    text.chars()
        .map(|c| {
            if ('\u{E000}'..='\u{F8FF}').contains(&c) {
                '•'
            } else {
                c
            }
        })
        .collect()
}

/// Highest counter written as letters (`zzz…` of 30 letters); higher values are written as
/// decimals.
const MAX_LETTER_COUNT: i64 = 26 * 30;

/// A counter value in one of Word's number formats (`w:numFmt`); formats not known here
/// fall back to decimal.
pub(super) fn format_number(n: i64, format: &str) -> String {
    match format {
        "decimalZero" if (0..10).contains(&n) => format!("0{n}"),
        // Word repeats the letter once per 26 (`aa`, `bbb`): bounded so a corrupt start value
        // cannot ask for a string of billions of letters.
        "lowerLetter" if (1..=MAX_LETTER_COUNT).contains(&n) => letters(n, b'a'),
        "upperLetter" if (1..=MAX_LETTER_COUNT).contains(&n) => letters(n, b'A'),
        "lowerRoman" if (1..4000).contains(&n) => {
            crate::text::roman_numeral(n as u32).to_lowercase()
        }
        "upperRoman" if (1..4000).contains(&n) => crate::text::roman_numeral(n as u32),
        "ordinal" if n >= 0 => format!("{n}{}", ordinal_suffix(n)),
        "chineseCounting"
        | "chineseCountingThousand"
        | "taiwaneseCounting"
        | "taiwaneseCountingThousand"
        | "japaneseCounting"
        | "ideographDigital"
            if (0..100_000).contains(&n) =>
        {
            chinese(n, &CHINESE_DIGITS, ["十", "百", "千", "万"])
        }
        "chineseLegalSimplified" if (0..100_000).contains(&n) => {
            chinese(n, &LEGAL_DIGITS, ["拾", "佰", "仟", "万"])
        }
        "ideographTraditional" if n > 0 => cycle(n, "甲乙丙丁戊己庚辛壬癸"),
        "ideographZodiac" if n > 0 => cycle(n, "子丑寅卯辰巳午未申酉戌亥"),
        "decimalFullWidth" | "decimalFullWidth2" => n
            .to_string()
            .chars()
            .map(|c| match c.to_digit(10) {
                Some(d) => char::from_u32(0xFF10 + d).unwrap_or(c),
                None => c,
            })
            .collect(),
        "decimalEnclosedCircle" | "decimalEnclosedCircleChinese" if (1..=20).contains(&n) => {
            char::from_u32(0x2460 + n as u32 - 1).map_or_else(|| n.to_string(), String::from)
        }
        "decimalEnclosedFullstop" if (1..=20).contains(&n) => {
            char::from_u32(0x2488 + n as u32 - 1).map_or_else(|| n.to_string(), String::from)
        }
        "decimalEnclosedParen" if (1..=20).contains(&n) => {
            char::from_u32(0x2474 + n as u32 - 1).map_or_else(|| n.to_string(), String::from)
        }
        "none" => String::new(),
        _ => n.to_string(),
    }
}

const CHINESE_DIGITS: [&str; 10] = ["〇", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
const LEGAL_DIGITS: [&str; 10] = ["零", "壹", "贰", "叁", "肆", "伍", "陆", "柒", "捌", "玖"];

/// `a`..`z`, then `aa`, `bb`, ... as Word counts letters.
fn letters(n: i64, base: u8) -> String {
    let letter = (base + ((n - 1) % 26) as u8) as char;
    std::iter::repeat_n(letter, ((n - 1) / 26 + 1) as usize).collect()
}

fn ordinal_suffix(n: i64) -> &'static str {
    match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    }
}

fn cycle(n: i64, symbols: &str) -> String {
    let symbols: Vec<char> = symbols.chars().collect();
    symbols[((n - 1) % symbols.len() as i64) as usize].to_string()
}

/// Chinese counting: 一, 十, 十一, 二十一, 一百零一, 一千零一十.
fn chinese(n: i64, digits: &[&str; 10], units: [&str; 4]) -> String {
    if n == 0 {
        return digits[0].to_string();
    }
    let parts = [
        (n / 10_000 % 10, units[3]),
        (n / 1000 % 10, units[2]),
        (n / 100 % 10, units[1]),
        (n / 10 % 10, units[0]),
        (n % 10, ""),
    ];
    let mut out = String::new();
    let mut zero_pending = false;
    for (digit, unit) in parts {
        if digit == 0 {
            zero_pending = !out.is_empty();
            continue;
        }
        if zero_pending {
            out.push('零');
            zero_pending = false;
        }
        // 十一 not 一十一 at the start; 一百一十 keeps its 一.
        if !(digit == 1 && unit == units[0] && out.is_empty()) {
            out.push_str(digits[digit as usize]);
        }
        out.push_str(unit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_letter_counters_are_written_as_decimals() {
        assert_eq!(format_number(27, "lowerLetter"), "aa");
        assert_eq!(format_number(780, "upperLetter"), "Z".repeat(30));
        assert_eq!(
            format_number(9_000_000_000_000_000, "lowerLetter"),
            "9000000000000000"
        );
    }

    #[test]
    fn number_formats() {
        let f = format_number;
        assert_eq!(
            [
                f(1, "decimal"),
                f(4, "lowerLetter"),
                f(28, "lowerLetter"),
                f(3, "upperLetter")
            ],
            ["1", "d", "bb", "C"]
        );
        assert_eq!(
            [f(4, "lowerRoman"), f(1994, "upperRoman")],
            ["iv", "MCMXCIV"]
        );
        assert_eq!(
            [
                f(1, "chineseCounting"),
                f(10, "chineseCounting"),
                f(11, "chineseCounting")
            ],
            ["一", "十", "十一"]
        );
        assert_eq!(
            [
                f(21, "chineseCounting"),
                f(101, "chineseCountingThousand"),
                f(110, "taiwaneseCountingThousand")
            ],
            ["二十一", "一百零一", "一百一十"]
        );
        assert_eq!(
            [
                f(3, "decimalZero"),
                f(12, "decimalZero"),
                f(2, "ordinal"),
                f(12, "ordinal")
            ],
            ["03", "12", "2nd", "12th"]
        );
        assert_eq!(
            [
                f(3, "decimalEnclosedCircle"),
                f(2, "ideographTraditional"),
                f(12, "decimalFullWidth")
            ],
            ["③", "乙", "１２"]
        );
        assert_eq!([f(5, "none"), f(5, "somethingNew")], ["", "5"]);
    }

    const XML: &str = r#"<w:numbering xmlns:w="w">
      <w:abstractNum w:abstractNumId="0">
        <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>
        <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2"/></w:lvl>
        <w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="(%3)"/><w:lvlRestart w:val="0"/></w:lvl>
      </w:abstractNum>
      <w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
      <w:num w:numId="2"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="5"/></w:lvlOverride></w:num>
    </w:numbering>"#;

    #[test]
    fn counters_restart_and_override() {
        let mut n = Numbering::parse(XML).unwrap();
        let none = |_: &str| None;
        let mut next = |num: &str, l: usize| n.next_label(num, l, &none).unwrap().text;
        assert_eq!(next("1", 0), "1.");
        assert_eq!(next("1", 1), "1.1");
        assert_eq!(next("1", 2), "(a)");
        assert_eq!(next("1", 1), "1.2");
        assert_eq!(next("1", 2), "(b)", "lvlRestart 0: never restarts");
        assert_eq!(next("1", 0), "2.");
        assert_eq!(next("1", 1), "2.1");
        assert_eq!(next("2", 0), "5.", "startOverride restarts on first use");
        assert_eq!(
            next("1", 0),
            "6.",
            "counters are shared by the abstract definition"
        );
        assert_eq!(next("2", 0), "7.");
        assert!(n.next_label("0", 0, &none).is_none());
        assert!(n.next_label("9", 0, &none).is_none());
    }

    /// A nested list written as a `num` of its own that restarts every level (as pandoc
    /// writes them), over a definition whose levels all read `%n.` in decimals.
    const NESTED: &str = r#"<w:numbering xmlns:w="w">
      <w:abstractNum w:abstractNumId="7">
        <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>
        <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%2."/></w:lvl>
        <w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="(%3)"/></w:lvl>
      </w:abstractNum>
      <w:num w:numId="1"><w:abstractNumId w:val="7"/></w:num>
      <w:num w:numId="2"><w:abstractNumId w:val="7"/>
        <w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride>
        <w:lvlOverride w:ilvl="1"><w:startOverride w:val="1"/></w:lvlOverride></w:num>
      <w:num w:numId="3"><w:abstractNumId w:val="7"/>
        <w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride>
        <w:lvlOverride w:ilvl="1"><w:startOverride w:val="1"/></w:lvlOverride></w:num>
    </w:numbering>"#;

    #[test]
    fn a_nested_list_leaves_its_parents_count_and_is_indented() {
        let mut n = Numbering::parse(NESTED).unwrap();
        let none = |_: &str| None;
        let mut next = |num: &str, l: usize| {
            let label = n.next_label(num, l, &none).unwrap();
            (label.text, label.indent)
        };
        assert_eq!(next("1", 0), ("1.".into(), 0));
        assert_eq!(
            next("2", 1),
            ("1.".into(), 1),
            "looks like its parent: indented"
        );
        assert_eq!(next("2", 1), ("2.".into(), 1));
        assert_eq!(
            next("2", 2),
            ("(a)".into(), 0),
            "a label of its own: not indented"
        );
        assert_eq!(next("1", 0), ("2.".into(), 0), "the parent's count goes on");
        assert_eq!(
            next("3", 1),
            ("1.".into(), 1),
            "the next nested list restarts"
        );
        assert_eq!(next("1", 0), ("3.".into(), 0));
    }

    #[test]
    fn labels_that_show_their_parent_are_not_indented() {
        let mut n = Numbering::parse(XML).unwrap();
        let none = |_: &str| None;
        n.next_label("1", 0, &none).unwrap();
        assert_eq!(n.next_label("1", 1, &none).unwrap().indent, 0, "1.1");
        let mut fresh = Numbering::parse(NESTED).unwrap();
        assert_eq!(
            fresh.next_label("2", 1, &none).unwrap().indent,
            0,
            "no open parent item: a list used from its second level is not nested"
        );
    }
}
