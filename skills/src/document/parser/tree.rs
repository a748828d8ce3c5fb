//! Tree building: the flat list of headings becomes a clause tree, nesting by numbering
//! style and number prefix; text without headings becomes numbered paragraphs.

use super::lines::{body_text, clean_line};
use super::numbering::{Heading, Style};
use crate::document::model::Clause;

/// An open heading on the way from the roots to the clause added last.
struct Open {
    style: Style,
    id: String,
    /// Index among its parent's children (or among the roots).
    index: usize,
}

/// Whether an open heading contains the next one. Numbers contain numbers they prefix
/// (`4.1` contains `4.1.2`, not `4.2`); another style contains a heading of a style that is
/// not open yet (an article contains sections, a section its lettered items); a heading of a
/// style already open is that heading's sibling, so everything opened since is closed. A
/// schedule is always at the top: it closes the main body and any schedule before it. A
/// container heading (article, section, part or chapter) is never inside a numbered clause
/// or a smaller container: numbers are what containers hold, so `第三条` after `2.3` starts
/// a new article instead of nesting under the sub-clause, and `第二节` after `第三条` a new
/// section.
fn contains(open: &[Open], depth: usize, heading: &Heading) -> bool {
    let parent = &open[depth];
    if heading.style == Style::Schedule {
        return false;
    }
    let rank = heading.style.container_rank();
    if rank > 0
        && (parent.style == Style::Number || (1..rank).contains(&parent.style.container_rank()))
    {
        return false;
    }
    if parent.style == Style::Number && heading.style == Style::Number {
        return heading
            .id
            .strip_prefix(parent.id.as_str())
            .is_some_and(|rest| rest.starts_with('.'));
    }
    if parent.style == heading.style {
        return false;
    }
    !open[..depth].iter().any(|o| o.style == heading.style)
}

/// Turns the flat heading list into a tree. Linear: each heading is pushed on and popped off
/// the open path at most once, and the path is as deep as the numbering.
///
/// A schedule (`Schedule 1`) is a top-level clause whose paragraphs are its children, with
/// ids qualified by it (`Schedule 1 para 2`): its numbering may restart at 1, and a plain `2`
/// must keep naming clause 2 of the main body, not the schedule's paragraph 2.
pub(crate) fn build_tree(flat: Vec<(Heading, Vec<&str>)>) -> Vec<Clause> {
    let mut roots: Vec<Clause> = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    for (heading, body) in flat {
        while let Some(depth) = open.len().checked_sub(1) {
            if contains(&open, depth, &heading) {
                break;
            }
            open.pop();
        }
        // Chinese parenthesised headings restart under every parent: `3（一）`.
        let id = match (heading.style, open.last()) {
            (Style::ChineseParen, Some(parent)) => format!("{}{}", parent.id, heading.id),
            _ => heading.id.clone(),
        };
        let clause_id = match open.first() {
            Some(schedule) if schedule.style == Style::Schedule => {
                format!("{} para {id}", schedule.id)
            }
            _ => id.clone(),
        };
        let clause = Clause {
            text: body_text(&heading.inline_text, &body),
            clause_id,
            title: heading.title,
            level: 0,
            children: Vec::new(),
        };
        let siblings = children_at(&mut roots, &open);
        siblings.push(clause);
        open.push(Open {
            style: heading.style,
            id,
            index: siblings.len() - 1,
        });
    }
    roots
}

/// The children list of the innermost open clause (the roots when none is open).
fn children_at<'a>(roots: &'a mut Vec<Clause>, open: &[Open]) -> &'a mut Vec<Clause> {
    let mut list = roots;
    for o in open {
        list = &mut list[o.index].children;
    }
    list
}

/// Sets each clause's depth, `level` for the given clauses.
pub(crate) fn set_levels(clauses: &mut [Clause], level: u32) {
    for clause in clauses {
        clause.level = level;
        set_levels(&mut clause.children, level + 1);
    }
}

/// Text without any heading, split at blank lines into clauses `P1`, `P2`, ...
pub(crate) fn paragraphs<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<Clause> {
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
    for line in lines {
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
