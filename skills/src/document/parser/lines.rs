//! Line classification and reflow: Markdown decoration is stripped from each line, wrapped
//! prose is joined back into one line, and list items and definitions keep their own lines.

/// A line without surrounding space and Markdown heading or bold markers.
pub(crate) fn clean_line(line: &str) -> &str {
    let line = line.trim();
    let line = line.trim_start_matches('#').trim();
    let line = line.strip_prefix("**").unwrap_or(line);
    line.trim()
}

/// The pieces of a raw line: PDF extractions join paragraphs into one line with runs of
/// three or more spaces between them (`... as follows:   1 Definitions   1.1 ...`), so such
/// runs separate lines as a line break would.
pub(crate) fn segments(line: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(line);
    std::iter::from_fn(move || {
        let current = rest?;
        match current.find("   ") {
            Some(i) => {
                let after = current[i..].trim_start_matches(' ');
                rest = Some(after);
                Some(&current[..i])
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
    .filter(|s| !s.trim().is_empty())
}

/// Splits a line before numbers that start a paragraph run into the previous one, as PDF
/// extractions write them: `... as follows: 1. Services ...`, `... herein. 2. Duties ...`.
/// The pieces count as headings only in sequence, which the parser checks.
pub(crate) fn run_in_numbers(line: &str) -> Vec<&str> {
    let bytes = line.as_bytes();
    let mut cuts = vec![0];
    let mut i = 1;
    while i + 4 < bytes.len() {
        // A sentence end, a space, 1-3 digits, a full stop, a space, a capital letter.
        if matches!(bytes[i - 1], b'.' | b':' | b';' | b'"' | b')') && bytes[i] == b' ' {
            let digits = bytes[i + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let at = i + 1 + digits;
            if (1..=3).contains(&digits)
                && bytes.get(at) == Some(&b'.')
                && bytes.get(at + 1) == Some(&b' ')
                && bytes.get(at + 2).is_some_and(u8::is_ascii_uppercase)
            {
                cuts.push(i + 1);
                i = at + 2;
                continue;
            }
        }
        i += 1;
    }
    cuts.push(line.len());
    cuts.windows(2).map(|w| line[w[0]..w[1]].trim()).collect()
}

/// Whether a cleaned line is page furniture by its form: `Page 3`, `Page 3 of 40`, `- 3 -`,
/// `3`, `ii`, `第 3 页`, `3/40`.
pub(crate) fn is_page_number(line: &str) -> bool {
    // The longest form, `- Page 1234 of 5678 -` or `第 1234 页 共 5678 页`, is well under this;
    // most lines are longer and are answered without copying them.
    if line.len() > MAX_PAGE_NUMBER_LINE {
        return false;
    }
    let lower = line.to_ascii_lowercase();
    let core = lower
        .trim_matches(|c: char| c == '-' || c == '–' || c == '—' || c == '[' || c == ']')
        .trim();
    let core = core.strip_prefix("page").map_or(core, str::trim);
    let core = core
        .strip_prefix('第')
        .and_then(|c| c.strip_suffix('页'))
        .map_or(core, str::trim);
    if core.is_empty() {
        return false;
    }
    let number = |s: &str| {
        let s = s.trim();
        (!s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit()))
            || (!s.is_empty() && s.len() <= 5 && s.bytes().all(|b| b"ivxlc".contains(&b)))
    };
    if number(core) {
        return true;
    }
    for sep in [" of ", "/", " 共 "] {
        if let Some((a, b)) = core.split_once(sep) {
            return number(a) && number(b.trim_end_matches('页'));
        }
    }
    false
}

/// The key under which repeated header and footer lines are counted: the line itself, or,
/// when it names a page, the line with its digits blanked, so `Agreement - Page 3` and
/// `Agreement - Page 4` count as one. Other lines that differ only in figures (`Milestone 1:
/// 10%`, `Milestone 2: 20%`) are contract text, not furniture.
pub(crate) fn furniture_key(line: &str) -> Option<String> {
    let len = line.chars().count();
    if !(4..=160).contains(&len) || starts_item(line) || reads_as_prose(line) {
        return None;
    }
    if !line.to_ascii_lowercase().contains("page") {
        return Some(line.to_string());
    }
    Some(
        line.chars()
            .map(|c| if c.is_ascii_digit() { '#' } else { c })
            .collect(),
    )
}

/// Whether a line reads as running text rather than a page header or footer: it continues a
/// sentence (starts with a lower-case letter), states an obligation (`shall`, `must`), or is a
/// long sentence of its own. Such lines repeat in contracts (boilerplate sentences in every
/// clause) and are never furniture.
fn reads_as_prose(line: &str) -> bool {
    let trimmed = line.trim();
    let continues = trimmed.chars().next().is_some_and(char::is_lowercase);
    let obliges = trimmed
        .split_whitespace()
        .any(|w| matches!(w, "shall" | "must" | "agrees" | "agree"));
    let sentence = trimmed.ends_with(['.', ';', ',']) && trimmed.split_whitespace().count() >= 8;
    continues || obliges || sentence
}

/// Longest line (bytes) that can be a page number.
const MAX_PAGE_NUMBER_LINE: usize = 48;

/// Whether a cleaned line announces a table of contents.
pub(crate) fn is_contents_title(line: &str) -> bool {
    // `T A B L E   O F   C O N T E N T S` and `**Table of Contents:**` fit; longer lines
    // are prose and are answered without copying them.
    if line.len() > 64 {
        return false;
    }
    let folded: String = line
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '\u{3000}' && *c != ':' && *c != '*')
        .collect::<String>()
        .to_lowercase();
    matches!(
        folded.as_str(),
        "tableofcontents" | "contents" | "index" | "目录" | "目次"
    )
}

/// The text of a clause: the body on its heading line, then its body lines, reflowed.
pub(crate) fn body_text(inline: &str, body: &[&str]) -> String {
    let mut out = String::new();
    let mut blank = false;
    for line in std::iter::once(inline).chain(body.iter().copied()) {
        if line.is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if !out.is_empty() {
            out.push(if blank || starts_item(line) {
                '\n'
            } else {
                ' '
            });
        }
        blank = false;
        out.push_str(line.trim_end_matches("**"));
    }
    out
}

/// Whether a body line starts an item of its own — `(a)`, `(iv)`, `a)`, `1)`, `-`, `•`,
/// `（一）`, or a definition (`"Term" means`, `“术语”是指`) — so it keeps its own line instead of
/// being joined to the previous one like wrapped prose.
pub(crate) fn starts_item(line: &str) -> bool {
    let line = line.trim_start();
    if line.starts_with(['-', '•', '*', '·']) || line.starts_with('（') {
        return true;
    }
    if let Some(open) = line.chars().next().filter(|c| matches!(c, '"' | '“')) {
        let skip = open.len_utf8();
        let close = line[skip..].find(['"', '”']).map(|i| i + skip);
        return close.is_some_and(|i| {
            let after = line[i..].trim_start_matches(['"', '”']).trim_start();
            [
                "means",
                "shall mean",
                "has the meaning",
                "是指",
                "系指",
                "指",
            ]
            .iter()
            .any(|w| after.starts_with(w))
        });
    }
    let marker = line.strip_prefix('(').unwrap_or(line);
    let Some(end) = marker.find(')') else {
        return false;
    };
    let label = &marker[..end];
    !label.is_empty()
        && label.len() <= 4
        && (label.chars().all(|c| c.is_ascii_digit())
            || label.chars().all(|c| c.is_ascii_lowercase())
            || label.chars().all(|c| c.is_ascii_uppercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_furniture_forms() {
        for line in [
            "Page 3",
            "Page 3 of 40",
            "- 3 -",
            "12",
            "ii",
            "第 3 页",
            "3/40",
            "[7]",
        ] {
            assert!(is_page_number(line), "{line}");
        }
        for line in ["Page Limits", "12 months", "3.1", "Pages 3 to 5 are blank."] {
            assert!(!is_page_number(line), "{line}");
        }
    }

    #[test]
    fn numbers_run_into_the_previous_sentence_are_cut() {
        assert_eq!(
            run_in_numbers("as follows: 1. Services The firm serves. 2. Duties Some 3.5 kg."),
            [
                "as follows:",
                "1. Services The firm serves.",
                "2. Duties Some 3.5 kg."
            ]
        );
    }

    #[test]
    fn runs_of_spaces_split_joined_paragraphs() {
        let parts: Vec<&str> = segments("as follows:   1 Definitions     1.1 \"Batch\"").collect();
        assert_eq!(parts, ["as follows:", "1 Definitions", "1.1 \"Batch\""]);
        assert!(is_contents_title("TABLE OF CONTENTS") && is_contents_title("目  录"));
    }

    #[test]
    fn items_and_definitions_start_their_own_lines() {
        assert!(starts_item("(iv) fourth") && starts_item("a) first") && starts_item("（一）甲"));
        assert!(!starts_item("(the Employer) shall") && !starts_item("\"Cost\" is defined below"));
    }
}
