//! Tree building: the flat list of headings becomes a clause tree, nesting by number
//! prefix; text without headings becomes numbered paragraphs.

use super::lines::{body_text, clean_line};
use super::numbering::Heading;
use crate::document::model::Clause;

/// Turns the flat heading list into a tree, nesting by number prefix.
pub(crate) fn build_tree(flat: Vec<(Heading, Vec<&str>)>) -> Vec<Clause> {
    let mut roots: Vec<Clause> = Vec::new();
    // Path of indices from the roots to the clause that was added last.
    let mut path: Vec<usize> = Vec::new();
    for (heading, body) in flat {
        let clause = Clause {
            text: body_text(&heading.inline_text, &body),
            clause_id: heading.id,
            title: heading.title,
            level: 0,
            children: Vec::new(),
        };
        // Walk up the open path until a clause whose id prefixes this one.
        while let Some(parent) = node_at(&roots, &path) {
            let is_prefix = clause
                .clause_id
                .strip_prefix(parent.clause_id.as_str())
                .is_some_and(|rest| rest.starts_with('.'));
            if is_prefix {
                break;
            }
            path.pop();
        }
        match node_at_mut(&mut roots, &path) {
            Some(parent) => {
                parent.children.push(clause);
                path.push(parent.children.len() - 1);
            }
            None => {
                roots.push(clause);
                path = vec![roots.len() - 1];
            }
        }
    }
    roots
}

fn node_at<'a>(roots: &'a [Clause], path: &[usize]) -> Option<&'a Clause> {
    let (first, rest) = path.split_first()?;
    let mut node = roots.get(*first)?;
    for i in rest {
        node = node.children.get(*i)?;
    }
    Some(node)
}

fn node_at_mut<'a>(roots: &'a mut [Clause], path: &[usize]) -> Option<&'a mut Clause> {
    let (first, rest) = path.split_first()?;
    let mut node = roots.get_mut(*first)?;
    for i in rest {
        node = node.children.get_mut(*i)?;
    }
    Some(node)
}

/// Sets each clause's depth, `level` for the given clauses.
pub(crate) fn set_levels(clauses: &mut [Clause], level: u32) {
    for clause in clauses {
        clause.level = level;
        set_levels(&mut clause.children, level + 1);
    }
}

/// Text without any heading, split at blank lines into clauses `P1`, `P2`, ...
pub(crate) fn paragraphs(text: &str) -> Vec<Clause> {
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let flush = |current: &mut Vec<&str>, out: &mut Vec<Clause>| {
        if !current.is_empty() {
            out.push(Clause {
                clause_id: format!("P{}", out.len() + 1),
                text: current.join(" "),
                ..Default::default()
            });
            current.clear();
        }
    };
    for line in text.lines() {
        let line = clean_line(line);
        if line.is_empty() {
            flush(&mut current, &mut out);
        } else {
            current.push(line);
        }
    }
    flush(&mut current, &mut out);
    out
}
