//! Line classification and reflow: Markdown decoration is stripped from each line, wrapped
//! prose is joined back into one line, and list items and definitions keep their own lines.

/// A line without surrounding space and Markdown heading or bold markers.
pub(crate) fn clean_line(line: &str) -> &str {
    let line = line.trim();
    let line = line.trim_start_matches('#').trim();
    let line = line.strip_prefix("**").unwrap_or(line);
    line.trim()
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
fn starts_item(line: &str) -> bool {
    let line = line.trim_start();
    if line.starts_with(['-', '•', '*', '·']) || line.starts_with('（') {
        return true;
    }
    if line.starts_with(['"', '“']) {
        let close = line[1..].find(['"', '”']).map(|i| i + 1);
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
    fn items_and_definitions_start_their_own_lines() {
        assert!(starts_item("(iv) fourth") && starts_item("a) first") && starts_item("（一）甲"));
        assert!(!starts_item("(the Employer) shall") && !starts_item("\"Cost\" is defined below"));
    }
}
