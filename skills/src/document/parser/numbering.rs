//! Numbering recognition: which lines are clause headings, in which style, and what the
//! clause number is.
//!
//! Each numbering style is one recogniser in [`RECOGNISERS`], tried in order on every
//! cleaned line (full-width digits and punctuation already folded to ASCII, see
//! [`fold_width`]); the first that returns a [`Heading`] wins. A new style is a new function
//! with the same signature, added to the list, and a [`Style`] saying how it nests.
//!
//! Styles nest by first appearance, as a reader does: a heading whose style is already open
//! closes everything opened after it and becomes their sibling; a style not yet open becomes
//! a child of the innermost open heading. Dotted numbers additionally nest by prefix
//! (`4.1.2` under `4.1`).

use crate::document::model::chinese_numeral;
use crate::text::is_cjk;

/// How a heading's numbering nests, and which headings are siblings of each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Style {
    /// Arabic numbers, dotted or not (`4`, `4.1.2`, `12A`, `Section 5.1`, `Clause 14`).
    Number,
    /// `ARTICLE V`, `Article 5`: articles contain sections and numbered clauses.
    Article,
    /// `PART I`, `Chapter 2`, `第一章`: containers with their own numbering.
    Part,
    /// `第一节`: a section inside a Chinese chapter.
    ChineseSection,
    /// `第一条`, `第4.1条`.
    ChineseArticle,
    /// `一、标题`.
    ChineseItem,
    /// `（一）标题`, `(一) 标题`.
    ChineseParen,
    /// US federal acquisition clauses: `52.211-12 Liquidated Damages-Construction`.
    Federal,
    /// `IV. Title`.
    Roman,
    /// `B. Title`.
    Letter,
    /// An unnumbered Markdown heading of this many `#` marks (`### Liquidation Preference`).
    Markdown(u8),
    /// `SCHEDULE 1`, `Annex A`, `Appendix II`, `Exhibit B`: a part after the main body whose
    /// paragraphs may number from 1 again, so it is a scope of its own.
    Schedule,
}

impl Style {
    /// How large a container headings of this style are: a part or chapter (3) holds
    /// sections (2), which hold articles (1), which hold numbered clauses; 0 for styles that
    /// are no container.
    pub(crate) fn container_rank(self) -> u8 {
        match self {
            Style::Part => 3,
            Style::ChineseSection => 2,
            Style::Article | Style::ChineseArticle => 1,
            _ => 0,
        }
    }

    /// Name shown as the document's `structure_type` when this style dominates.
    pub(crate) fn structure_type(self) -> &'static str {
        match self {
            Style::Number | Style::Roman | Style::Letter | Style::Schedule => "numbered",
            Style::Article | Style::Part => "article",
            Style::ChineseSection
            | Style::ChineseArticle
            | Style::ChineseItem
            | Style::ChineseParen => "chinese",
            Style::Federal => "federal",
            Style::Markdown(_) => "headings",
        }
    }
}

/// A clause heading recognised on a line.
#[derive(Debug, Clone)]
pub(crate) struct Heading {
    /// Normalised clause number (`4.1`, `14` for `第十四条`, `5` for `ARTICLE V`).
    pub(crate) id: String,
    /// Heading text, empty when the line has none.
    pub(crate) title: String,
    /// Text on the heading line that is body, not title (`4.1 The Contractor shall ...`).
    pub(crate) inline_text: String,
    /// Numbering style, which decides nesting.
    pub(crate) style: Style,
    /// Whether the heading was written with a keyword (`Sub-Clause`, `Section`), which makes
    /// a FIDIC document recognisable.
    pub(crate) fidic_keyword: bool,
    /// Whether a keyword introduced the number (`Section 1000`), which makes it a heading
    /// whatever number came before.
    pub(crate) keyword: bool,
    /// Whether the number stood alone on its line (`1.1` with the title on the next line).
    pub(crate) bare: bool,
    /// Whether the title ends in a page number or dot leader (`Definitions ..... 5`), the
    /// mark of a table of contents entry.
    pub(crate) page_tail: bool,
    /// Recognised as a numbered paragraph, which counts only in sequence (`1`, `2`, `3`).
    pub(crate) sequenced: bool,
    /// For a single `I`, `V` or `X`: the letter reading, used when the context is letters.
    pub(crate) letter_alternative: bool,
}

/// Recognises one numbering style at the start of a cleaned, width-folded line.
type Recogniser = fn(&str) -> Option<Heading>;

/// The numbering styles, in the order they are tried. Keyword and Chinese headings start
/// with letters no number heading starts with; `federal` is tried before `number` because
/// `52.211-12` also starts like a dotted number.
const RECOGNISERS: [Recogniser; 8] = [
    schedule_heading,
    keyword_heading,
    chinese_heading,
    chinese_item_heading,
    federal_heading,
    number_heading,
    roman_or_letter_heading,
    chinese_paren_heading,
];

/// Recognises a clause heading at the start of a (cleaned, width-folded) line.
pub(crate) fn parse_heading(line: &str) -> Option<Heading> {
    if line.is_empty() {
        return None;
    }
    RECOGNISERS.iter().find_map(|recognise| recognise(line))
}

/// Folds full-width digits, letters and the full stop to ASCII (`１２．３` -> `12.3`), so one
/// set of recognisers reads both. Borrowed when there is nothing to fold.
pub(crate) fn fold_width(line: &str) -> std::borrow::Cow<'_, str> {
    if !line
        .chars()
        .any(|c| matches!(c, '０'..='９' | '．' | 'Ａ'..='Ｚ' | 'ａ'..='ｚ'))
    {
        return std::borrow::Cow::Borrowed(line);
    }
    std::borrow::Cow::Owned(
        line.chars()
            .map(|c| match c {
                '０'..='９' | 'Ａ'..='Ｚ' | 'ａ'..='ｚ' => {
                    char::from_u32(c as u32 - 0xFEE0).unwrap_or(c)
                }
                '．' => '.',
                other => other,
            })
            .collect(),
    )
}

/// Value of an upper- or lower-case Roman numeral up to 399 (`IV` -> 4), if it is one.
pub(crate) fn roman_value(text: &str) -> Option<u32> {
    if text.is_empty() || text.len() > 9 {
        return None;
    }
    let value = |c: char| match c.to_ascii_uppercase() {
        'I' => Some(1),
        'V' => Some(5),
        'X' => Some(10),
        'L' => Some(50),
        'C' => Some(100),
        _ => None,
    };
    let digits: Option<Vec<u32>> = text.chars().map(value).collect();
    let digits = digits?;
    let mut total = 0;
    for (i, d) in digits.iter().enumerate() {
        if digits.get(i + 1).is_some_and(|next| next > d) {
            total -= *d as i64;
        } else {
            total += *d as i64;
        }
    }
    let total = u32::try_from(total).ok().filter(|t| *t > 0)?;
    // Only canonical numerals: `IIII` or `VX` are not numbers.
    (crate::text::roman_numeral(total) == text.to_ascii_uppercase()).then_some(total)
}

/// The keywords that introduce a numbered heading, with the style they give.
const KEYWORDS: [(&str, Style, bool); 9] = [
    ("sub-clause", Style::Number, true),
    ("subclause", Style::Number, true),
    ("clause", Style::Number, false),
    ("section", Style::Number, false),
    ("sec.", Style::Number, false),
    ("article", Style::Article, false),
    ("art.", Style::Article, false),
    ("part", Style::Part, false),
    ("chapter", Style::Part, false),
];

/// `Sub-Clause 20.1 Title`, `Clause 14 Title`, `Section 5.1`, `ARTICLE V`, `Article 5`,
/// `PART II`, `Chapter 3`.
fn keyword_heading(line: &str) -> Option<Heading> {
    let lower = line
        .get(..12.min(line.len()))
        .unwrap_or(line)
        .to_ascii_lowercase();
    let (prefix, style, fidic) = KEYWORDS
        .iter()
        .find(|(prefix, _, _)| lower.starts_with(prefix))?;
    let rest = &line[prefix.len()..];
    if !rest.starts_with([' ', '\t', '\u{a0}']) {
        return None;
    }
    let after = rest.trim_start_matches([' ', '\t', '\u{a0}']);
    let (id, tail) = if let Some((number, tail)) = take_number_with(after, MAX_LONG_NUMBER_DIGITS) {
        (number, tail)
    } else {
        let end = after
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(after.len());
        let value = roman_value(&after[..end])?;
        (value.to_string(), &after[end..])
    };
    if tail.starts_with(|c: char| c.is_alphanumeric()) {
        return None;
    }
    // "Clause 14 shall apply ...", "Section 5.1, the Buyer ..." and "Section 5.1(a) of" are
    // sentences, not headings.
    let after_number = tail.trim_start_matches([' ', '\t', '\u{a0}']);
    if after_number.starts_with(|c: char| c.is_lowercase() || matches!(c, ',' | ';' | '(' | ')')) {
        return None;
    }
    let title = trim_separators(tail);
    if title.starts_with(|c: char| c.is_lowercase()) {
        return None;
    }
    let id = match style {
        Style::Part if prefix.starts_with("chapter") => format!("Chapter {id}"),
        Style::Part => format!("Part {id}"),
        _ => id,
    };
    let mut heading = make_heading(id, tail, *style, *fidic);
    heading.keyword = true;
    Some(heading)
}

/// The words that introduce a schedule, with the spelling of its id.
const SCHEDULE_WORDS: [(&str, &str); 4] = [
    ("schedule", "Schedule"),
    ("annex", "Annex"),
    ("appendix", "Appendix"),
    ("exhibit", "Exhibit"),
];

/// `SCHEDULE 1`, `Schedule 2 – Pricing`, `Annex A: Form of Bond`, `Appendix IV`; the id is
/// `Schedule 2` whatever the case it is written in. A reference (`Schedule 1 sets out`,
/// `Schedule 1, Part B`, `Exhibit 10.1`) is no heading.
fn schedule_heading(line: &str) -> Option<Heading> {
    let head = line.get(..10.min(line.len()))?.to_ascii_lowercase();
    let (word, name) = SCHEDULE_WORDS
        .iter()
        .find(|(word, _)| head.starts_with(word))?;
    let rest = &line[word.len()..];
    if !rest.starts_with([' ', '\t', '\u{a0}']) {
        return None;
    }
    let after = rest.trim_start_matches([' ', '\t', '\u{a0}']);
    let end = after
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(after.len());
    let token = &after[..end];
    let number = (1..=3).contains(&token.len()) && token.bytes().all(|b| b.is_ascii_digit());
    let upper = !token.is_empty() && token.bytes().all(|b| b.is_ascii_uppercase());
    if !(number || (upper && (token.len() == 1 || roman_value(token).is_some()))) {
        return None;
    }
    let tail = &after[end..];
    let next = tail.trim_start_matches([' ', '\t', '\u{a0}']);
    if next.starts_with(|c: char| c.is_lowercase() || matches!(c, ',' | ';' | '(' | ')')) {
        return None;
    }
    let title = trim_separators(tail);
    if !title.is_empty() && !looks_like_title(title) {
        return None;
    }
    let mut heading = make_heading(format!("{name} {token}"), tail, Style::Schedule, false);
    heading.keyword = true;
    Some(heading)
}

/// `第一条 标题`, `第4.1条`, `第一章`, `第二节`, `第一部分`.
fn chinese_heading(line: &str) -> Option<Heading> {
    let rest = line.strip_prefix('第')?;
    let end = rest
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || is_chinese_digit(*c)))
        .map(|(i, _)| i)?;
    let inner = &rest[..end];
    let after = &rest[end..];
    let (marker, style) = [
        ("条", Style::ChineseArticle),
        ("章", Style::Part),
        ("节", Style::ChineseSection),
        ("部分", Style::Part),
    ]
    .into_iter()
    .find(|(m, _)| after.starts_with(m))?;
    let number = if let Some(n) = chinese_numeral(inner) {
        n.to_string()
    } else if !inner.is_empty() && inner.starts_with(|c: char| c.is_ascii_digit()) {
        inner.trim_end_matches('.').to_string()
    } else {
        return None;
    };
    let tail = &after[marker.len()..];
    // `第五条规定的…` is a sentence about an article, not its heading.
    if style == Style::ChineseArticle && !tail.is_empty() && !tail.starts_with(is_separator) {
        return None;
    }
    let id = match style {
        Style::ChineseArticle => number,
        _ => format!("第{number}{marker}"),
    };
    Some(make_heading(id, tail, style, false))
}

fn is_chinese_digit(c: char) -> bool {
    matches!(
        c,
        '零' | '〇'
            | '一'
            | '二'
            | '两'
            | '三'
            | '四'
            | '五'
            | '六'
            | '七'
            | '八'
            | '九'
            | '十'
            | '百'
            | '千'
    )
}

fn is_separator(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\u{3000}' | '\u{a0}' | '.' | ':' | '：' | '、' | '-' | '–' | '—'
    )
}

/// `一、词语定义及合同文件`.
fn chinese_item_heading(line: &str) -> Option<Heading> {
    let end = line.find('、')?;
    let inner = &line[..end];
    if inner.is_empty() || !inner.chars().all(is_chinese_digit) {
        return None;
    }
    chinese_numeral(inner)?;
    let tail = &line[end + '、'.len_utf8()..];
    let title = tail.trim();
    if title.is_empty() || !looks_like_title(title) {
        return None;
    }
    Some(make_heading(
        inner.to_string(),
        tail,
        Style::ChineseItem,
        false,
    ))
}

/// `（一）定义` and `(一) 定义`: a heading only when what follows is a short title; a
/// sentence after it (`（一）甲方应当……。`) is a list item and stays in the clause text.
fn chinese_paren_heading(line: &str) -> Option<Heading> {
    let rest = line.strip_prefix('（').or_else(|| line.strip_prefix('('))?;
    let end = rest.find(['）', ')'])?;
    let inner = &rest[..end];
    if inner.is_empty() || !inner.chars().all(is_chinese_digit) {
        return None;
    }
    chinese_numeral(inner)?;
    let close = rest[end..].chars().next()?;
    let tail = &rest[end + close.len_utf8()..];
    let title = tail.trim();
    if title.is_empty()
        || title.chars().count() > 30
        || title.contains(['。', '；', '，', ';', ','])
    {
        return None;
    }
    Some(make_heading(
        format!("（{inner}）"),
        tail,
        Style::ChineseParen,
        false,
    ))
}

/// `52.211-12 Liquidated Damages-Construction` (with an optional `Alternate I` after it).
fn federal_heading(line: &str) -> Option<Heading> {
    let (number, tail) = take_number(line)?;
    if !number.contains('.') || number.contains('-') {
        return None;
    }
    let rest = tail.strip_prefix('-')?;
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    if end == 0 || end > 4 {
        return None;
    }
    let tail = &rest[end..];
    if !tail.is_empty() && !tail.starts_with([' ', '\t', '.']) {
        return None;
    }
    let title = trim_separators(tail);
    if !title.is_empty() && !looks_like_title(title) {
        return None;
    }
    Some(make_heading(
        format!("{number}-{}", &rest[..end]),
        tail,
        Style::Federal,
        false,
    ))
}

/// `4.1.2 Title`, `4.1 The Contractor shall ...`, `1.1通用条款：…`, `1. Title`, `14 Title`,
/// `12A Title`, `1000 Title`, and a number alone on its line (`1.1`, `5.`).
fn number_heading(line: &str) -> Option<Heading> {
    let (number, tail) = take_number_with(line, MAX_LONG_NUMBER_DIGITS)?;
    // Five digits and more (`10000 Title`, `10000.1`): digits only, and a heading only in
    // sequence with the clauses before it (the parser checks), so an amount or a reference
    // number starting a line is not taken for one.
    if long_first_component(&number) && !number.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let dotted = number.contains('.');
    // A number alone on its line, its title on the next: PDF extractions do this. A bare
    // `14` alone is a page number, not a heading.
    if tail.trim_start_matches(['.', ' ']).is_empty() {
        if dotted || tail.starts_with('.') {
            let mut heading = make_heading(number, "", Style::Number, false);
            heading.bare = true;
            return Some(heading);
        }
        return None;
    }
    let cjk_next = tail.chars().next().is_some_and(is_cjk);
    // `4.1 The Contractor shall ...` is a clause with its text on the heading line; a plain
    // `1.` or `14` must be followed by a title, so list items (`1. The Contractor shall
    // pay.`) and sentences (`14 days after ...`) stay body text.
    let closes = !dotted && tail.starts_with(')');
    if !(tail.starts_with(['.', ' ', '\t', '、', '\u{3000}', '\u{a0}'])
        || (dotted && cjk_next)
        || closes)
    {
        return None;
    }
    let tail_trimmed = trim_separators(tail);
    if tail_trimmed.is_empty() || tail_trimmed.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    // A bare number ("14 Days after ...") is a heading only when what follows looks like a
    // title: short, capitalised or Chinese, and not a sentence.
    if !dotted && !heading_text(tail_trimmed) {
        return None;
    }
    Some(make_heading(number, tail, Style::Number, false))
}

/// `IV. Title` (Roman) and `B. Title` (letter); a lone `I`, `V` or `X` could be either and
/// is marked so the parser can decide from the headings around it.
fn roman_or_letter_heading(line: &str) -> Option<Heading> {
    let end = line.find(|c: char| !c.is_ascii_uppercase())?;
    let token = &line[..end];
    let tail = line[end..].strip_prefix('.')?;
    if !tail.starts_with([' ', '\t']) {
        return None;
    }
    let title = tail.trim();
    if title.is_empty() || !looks_like_title(title) {
        return None;
    }
    if let Some(value) = roman_value(token) {
        let mut heading = make_heading(value.to_string(), tail, Style::Roman, false);
        heading.letter_alternative = token.len() == 1;
        heading.id = if heading.letter_alternative {
            token.to_string()
        } else {
            heading.id
        };
        return Some(heading);
    }
    if token.len() != 1 {
        return None;
    }
    Some(make_heading(token.to_string(), tail, Style::Letter, false))
}

/// A numbered paragraph whose text is a sentence: `1. The Company shall ...`,
/// `1.DGT shall pay ...`, `8) Notices`, `II. As required by Party B ...`. Read only when a
/// document has too few headings, and kept only in sequence.
pub(crate) fn numbered_paragraph(line: &str) -> Option<Heading> {
    let (number, tail, style) = if line.starts_with(|c: char| c.is_ascii_digit()) {
        // Counted only in sequence from 1, so a long number is safe here.
        let (number, tail) = take_number_with(line, MAX_LONG_NUMBER_DIGITS)?;
        if number.contains('.') || !number.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        (number, tail.strip_prefix(['.', ')'])?, Style::Number)
    } else {
        let end = line.find(|c: char| !c.is_ascii_uppercase())?;
        let value = roman_value(&line[..end])?;
        (
            value.to_string(),
            line[end..].strip_prefix('.')?,
            Style::Roman,
        )
    };
    let text = tail.trim_start();
    if !text.starts_with(|c: char| c.is_uppercase() || is_cjk(c) || c == '"' || c == '“') {
        return None;
    }
    let mut heading = make_heading(number, tail, style, false);
    heading.sequenced = true;
    Some(heading)
}

/// An unnumbered Markdown heading (`### Liquidation Preference:`); its text is its id.
pub(crate) fn markdown_heading(line: &str, level: u8) -> Option<Heading> {
    let title = line
        .trim_end_matches("**")
        .trim()
        .trim_end_matches([':', '：'])
        .trim();
    if level == 0 || title.is_empty() || title.chars().count() > 80 {
        return None;
    }
    Some(Heading {
        id: title.to_string(),
        title: title.to_string(),
        inline_text: String::new(),
        style: Style::Markdown(level),
        fidic_keyword: false,
        keyword: false,
        bare: false,
        sequenced: false,
        page_tail: false,
        letter_alternative: false,
    })
}

/// The most digits the first component of a clause number may have (`123456789`): more
/// than any contract has clauses, and still a `u32`.
pub(crate) const MAX_LONG_NUMBER_DIGITS: usize = 9;

/// Splits `4.1.2 rest` into (`4.1.2`, ` rest`); a trailing dot is not part of the number.
/// Components have at most four digits; the first may carry one capital letter (`12A`).
pub(crate) fn take_number(text: &str) -> Option<(String, &str)> {
    take_number_with(text, 4)
}

/// [`take_number`] with up to `first_digits` digits in the first component (`10000.1`), for
/// the places that check long numbers further (in sequence, or after a keyword).
pub(crate) fn take_number_with(text: &str, first_digits: usize) -> Option<(String, &str)> {
    let bytes = text.as_bytes();
    let mut end = 0;
    let mut part_len = 0;
    let mut first_part = true;
    while end < bytes.len() {
        let b = bytes[end];
        if b.is_ascii_digit() {
            part_len += 1;
            if part_len > if first_part { first_digits } else { 4 } {
                return None;
            }
        } else if b == b'.' && part_len > 0 && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
            part_len = 0;
            first_part = false;
        } else if b.is_ascii_uppercase()
            && first_part
            && part_len > 0
            && !bytes.get(end + 1).is_some_and(u8::is_ascii_alphanumeric)
        {
            end += 1;
            break;
        } else {
            break;
        }
        end += 1;
    }
    if end == 0 || !bytes[0].is_ascii_digit() {
        return None;
    }
    Some((text[..end].to_string(), &text[end..]))
}

/// Whether the first component of a clause number has more than four digits (`10000`,
/// `10000.1`).
pub(crate) fn long_first_component(number: &str) -> bool {
    number.bytes().take_while(u8::is_ascii_digit).count() > 4
}

/// Removes the punctuation between a number and its title.
fn trim_separators(text: &str) -> &str {
    text.trim_start_matches([
        '.', ':', '：', ')', '、', ' ', '\t', '\u{3000}', '\u{a0}', '-', '–', '—',
    ])
    .trim()
}

/// Whether text reads like a heading: short, capitalised or Chinese, not a sentence.
pub(crate) fn looks_like_title(text: &str) -> bool {
    let first = text.chars().next().unwrap_or(' ');
    text.chars().count() <= 80
        && !text.ends_with(['.', '。', ';', '；', ',', '，'])
        && (first.is_uppercase() || is_cjk(first) || first == '"' || first == '“')
}

/// Whether the text after a plain number makes it a heading: a title, or a run-in title
/// before the body (`Definitions. As used herein ...`).
fn heading_text(text: &str) -> bool {
    looks_like_title(text) || split_run_in_title(text).is_some() || short_title(text)
}

/// A capitalised title of a few words ending in a full stop: `Definitions.`, `Governing Law.`
fn short_title(text: &str) -> bool {
    let Some(title) = text.strip_suffix('.') else {
        return false;
    };
    !title.contains(". ") && title.split_whitespace().count() <= 6 && is_english_title(title)
}

/// A heading in title case: a capital first, every word longer than three letters capitalised.
pub(crate) fn is_english_title(title: &str) -> bool {
    title.starts_with(|c: char| c.is_uppercase())
        && title.split_whitespace().count() <= 8
        && title
            .split_whitespace()
            .filter(|w| w.len() > 3)
            .all(|w| w.starts_with(|c: char| c.is_uppercase() || !c.is_alphabetic()))
}

/// Whether a heading's title ends in a page number or a dot leader: `Definitions .... 5`,
/// `Definitions   5`.
fn ends_in_page_number(title: &str) -> bool {
    let without_number = title.trim_end_matches(|c: char| c.is_ascii_digit());
    if without_number.len() == title.len() || without_number.is_empty() {
        return title.contains("....") || title.contains('…');
    }
    let gap = &without_number[without_number.trim_end().len()..];
    without_number.trim_end().ends_with(['.', '…', '·']) || gap.len() >= 2 || gap.contains('\t')
}

fn make_heading(id: String, tail: &str, style: Style, fidic_keyword: bool) -> Heading {
    let tail = trim_separators(tail).trim_end_matches("**").trim();
    let tail = tail
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(tail);
    let page_tail = ends_in_page_number(tail);
    let (title, inline_text) = if tail.is_empty() {
        (String::new(), String::new())
    } else if looks_like_title(tail) {
        (tail.to_string(), String::new())
    } else if short_title(tail) {
        (tail.trim_end_matches('.').to_string(), String::new())
    } else if let Some((title, body)) = split_run_in_title(tail) {
        (title.to_string(), body.to_string())
    } else {
        (String::new(), tail.to_string())
    };
    Heading {
        id,
        title,
        inline_text,
        style,
        fidic_keyword,
        keyword: false,
        bare: false,
        sequenced: false,
        page_tail,
        letter_alternative: false,
    }
}

/// A run-in title before the body on the same line: `Title. Body ...`, `词语涵义。正文……`,
/// `通用条款：正文……`. The title is short and capitalised (or Chinese).
fn split_run_in_title(tail: &str) -> Option<(&str, &str)> {
    let (cut, sep_len) = tail
        .char_indices()
        .take(40)
        .find(|(_, c)| matches!(c, '。' | '：' | ':'))
        .map(|(i, c)| (i, c.len_utf8()))
        .or_else(|| tail.find(". ").filter(|i| *i <= 60).map(|i| (i, 1)))?;
    let title = tail[..cut].trim();
    let body = tail[cut + sep_len..].trim();
    let first = title.chars().next()?;
    let english_title = is_english_title(title);
    let chinese_title = is_cjk(first) && title.chars().count() <= 20 && !title.contains('，');
    (!body.is_empty() && (english_title || chinese_title)).then_some((title, body))
}

#[cfg(test)]
mod tests;
