//! The text of a generated `SKILL.md`: YAML front matter, the instructions, the tool table
//! and the file list.

use std::fmt::Write as _;
use std::sync::Arc;

use rmcp::model::SkillFrontmatter;
use serde_json::Value;

use super::SkillSpec;

/// A served tool as the skill's table shows it.
#[derive(Debug, Clone, Copy)]
pub(super) struct ToolLine {
    /// The MCP tool name.
    pub(super) name: &'static str,
    /// What `tools/list` says it does.
    pub(super) description: &'static str,
    /// Whether a call waits for the user's consent.
    pub(super) writes: bool,
}

/// The `SKILL.md` bytes and the front matter they start with.
pub(super) fn skill_md(spec: &SkillSpec, tools: &[ToolLine]) -> (Arc<[u8]>, SkillFrontmatter) {
    let front = super::frontmatter(spec, tools);
    let mut text = String::from("---\n");
    // The entry's front matter, serialised; every scalar is a JSON string, which YAML reads
    // as a double-quoted scalar with the same value, so the YAML and the entry agree.
    // `name` and `description` first, as people write them.
    let mut head = serde_json::Map::new();
    head.insert("name".into(), front.name.clone().into());
    yaml_block(&mut text, &head, 0);
    head.clear();
    head.insert("description".into(), front.description.clone().into());
    yaml_block(&mut text, &head, 0);
    yaml_block(&mut text, &front.extra, 0);
    text.push_str("---\n\n");
    let _ = writeln!(text, "# {}\n", spec.name);
    let _ = writeln!(text, "{}\n", spec.description.trim());
    if !spec.instructions.trim().is_empty() {
        let _ = writeln!(text, "{}\n", spec.instructions.trim());
    }
    if !tools.is_empty() {
        text.push_str("## Tools\n\n");
        text.push_str(
            "Call these tools of this MCP server by name (`tools/call`); their arguments are in `tools/list`.\n\n",
        );
        text.push_str("| Tool | What it does |\n|---|---|\n");
        for tool in tools {
            let consent = if tool.writes {
                " Changes data: runs only after the user consents."
            } else {
                ""
            };
            let _ = writeln!(
                text,
                "| `{}` | {}{consent} |",
                tool.name,
                table_cell(tool.description)
            );
        }
        text.push('\n');
    }
    if !spec.files.is_empty() {
        text.push_str("## Files\n\n");
        for file in &spec.files {
            let _ = writeln!(
                text,
                "- [{}]({}): {}",
                file.path,
                file.path,
                file.description.trim()
            );
        }
        text.push('\n');
    }
    let text = format!("{}\n", text.trim_end());
    (Arc::from(text.into_bytes()), front)
}

/// A YAML block mapping of `fields`, scalars written as JSON strings.
fn yaml_block(out: &mut String, fields: &serde_json::Map<String, Value>, indent: usize) {
    for (key, value) in fields {
        let pad = "  ".repeat(indent);
        let key = yaml_key(key);
        match value {
            Value::Object(inner) => {
                let _ = writeln!(out, "{pad}{key}:");
                yaml_block(out, inner, indent + 1);
            }
            Value::String(_) => {
                let _ = writeln!(out, "{pad}{key}: {value}");
            }
            other => {
                let _ = writeln!(out, "{pad}{key}: {}", Value::String(other.to_string()));
            }
        }
    }
}

/// A mapping key: plain when it is a simple word, else a double-quoted string.
fn yaml_key(key: &str) -> String {
    let plain = key.starts_with(|c: char| c.is_ascii_alphabetic())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'));
    if plain {
        key.to_string()
    } else {
        Value::String(key.to_string()).to_string()
    }
}

/// One line of a Markdown table cell: pipes escaped, line breaks folded.
fn table_cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::SkillFile;

    #[test]
    fn the_skill_md_starts_with_its_front_matter_and_lists_tools_and_files() {
        let spec = SkillSpec::new("demo-review", "Review a demo: \"quoted\", with: colons")
            .instructions("Call `check_clause` first.")
            .metadata("domain", "demo")
            .file(SkillFile::new(
                "playbook.json",
                "application/json",
                "Levels",
                "{}",
            ));
        let tools = [ToolLine {
            name: "check_clause",
            description: "Check a clause | number",
            writes: false,
        }];
        let (bytes, front) = skill_md(&spec, &tools);
        let text = std::str::from_utf8(&bytes).unwrap();
        assert!(text.starts_with("---\nname: \"demo-review\"\n"), "{text}");
        assert!(
            text.contains("description: \"Review a demo: \\\"quoted\\\", with: colons\"\n"),
            "{text}"
        );
        assert!(
            text.contains("metadata:\n  domain: \"demo\"\n  tools: \"check_clause\"\n---\n"),
            "{text}"
        );
        assert!(
            text.contains("| `check_clause` | Check a clause \\| number |"),
            "{text}"
        );
        assert!(
            text.contains("- [playbook.json](playbook.json): Levels"),
            "{text}"
        );
        assert_eq!(front.name, "demo-review");
        assert_eq!(front.extra["metadata"]["tools"], "check_clause");
    }
}
