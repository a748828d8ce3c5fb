//! Numbering scopes and scoped ids: every clause of a document can be named, and a number
//! read inside a part of the agreement names that part's clause first.
//!
//! A *scope* is a part of the agreement with a numbering of its own. The parser marks the
//! named ones as top-level clauses: a schedule, exhibit, annex or appendix (`Schedule 2`,
//! `Exhibit A`), a part or chapter (`Part 2`, `Chapter 4`, `第2章`, `第2部分`), each with
//! everything under it. A part no heading names (particular conditions after the general
//! ones, an exhibit whose heading was not read as one) shows as numbering that starts over:
//! a top-level clause whose number its scope has already used for a clause of its structure
//! (a top-level clause, or a sub-clause numbered under its parent's number, `1.1` under
//! `1`; not an item of a list, `2` under `1`) starts a new, unnamed scope. Everything before
//! the first part is the main body, scope 0.
//!
//! Ids: the first clause with an id keeps it, so ids of documents without repeats never
//! change. A later clause with the same id gets a scoped id: `{part} para {number}` when it
//! sits in a named part and the first clause of that id in another scope (`Part 2 para 1.1`,
//! the form a schedule's paragraphs already have, which
//! [`normalize_clause_id`](super::normalize_clause_id) reads from `Part 2, clause 1.1`);
//! otherwise the id with its occurrence (`4.1 #2`, the second clause numbered 4.1). When a
//! part's own name repeats (`Exhibit A #2`), its paragraphs take the new name
//! (`Exhibit A #2 para 1`).

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use super::model::Clause;

/// Words that name a part of the agreement, as the parser spells them.
const PART_WORDS: [&str; 6] = [
    "Schedule", "Annex", "Appendix", "Exhibit", "Part", "Chapter",
];

/// Separator of a part's name and a number inside it.
const PARA: &str = " para ";

/// Marker of an occurrence after the first (`4.1 #2`).
const OCCURRENCE: &str = " #";

/// The id without its occurrence mark: `4.1 #2` -> `4.1`.
fn without_occurrence(id: &str) -> &str {
    match id.rsplit_once(OCCURRENCE) {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => id,
    }
}

/// The number a clause has in its scope, from its id alone: `Schedule 2 para 2.1` and
/// `2.1 #2` are `2.1`. A reference in a clause to this number is to the clause itself.
pub(crate) fn own_number(id: &str) -> &str {
    let id = without_occurrence(id);
    match id.rsplit_once(PARA) {
        Some((part, number)) if is_part(part) => number,
        _ => id,
    }
}

/// Whether the id is that of a later occurrence of a number (`4.1 #2`).
pub(crate) fn is_repeat(id: &str) -> bool {
    without_occurrence(id).len() != id.len()
}

/// Whether a top-level clause's id names a part of the agreement (`Schedule 2`, `Part II`,
/// `Exhibit A #2`, `第2章`), which makes it a named scope.
pub(crate) fn is_part(id: &str) -> bool {
    let id = without_occurrence(id);
    if let Some(rest) = id.strip_prefix('第') {
        return rest.ends_with('章') || rest.ends_with("部分");
    }
    let Some((word, token)) = id.split_once(' ') else {
        return false;
    };
    PART_WORDS.contains(&word)
        && (1..=4).contains(&token.len())
        && token.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Follows the scopes of a document's clauses in document order: told each top-level
/// clause and each clause under it, it says which scope they are in and what number they
/// have there. One pass, constant work per clause, no copies of the ids.
#[derive(Debug, Default)]
pub(crate) struct ScopeTracker<'a> {
    scope: u32,
    /// The named part's id, when the current scope is one.
    part: Option<&'a str>,
    /// Numbers of the current scope's structure (top-level clauses and sub-clauses
    /// numbered under their parent's number), to see numbering start over.
    numbers: HashSet<&'a str>,
}

impl<'a> ScopeTracker<'a> {
    /// Enters a top-level clause: a part starts a new named scope, a number the current
    /// scope has already used a new unnamed one. Returns the clause's scope.
    pub(crate) fn enter_root(&mut self, root_id: &'a str) -> u32 {
        if is_part(root_id) {
            self.start(Some(root_id));
        } else if self.numbers.contains(without_occurrence(root_id)) {
            self.start(None);
        }
        self.scope
    }

    fn start(&mut self, part: Option<&'a str>) {
        self.scope += 1;
        self.part = part;
        self.numbers.clear();
    }

    /// The current scope.
    pub(crate) fn scope(&self) -> u32 {
        self.scope
    }

    /// The current scope's part name, when it is a named part.
    pub(crate) fn part(&self) -> Option<&'a str> {
        self.part
    }

    /// Records a clause of the current scope, under the clause numbered `parent` there
    /// (`None` at the top), and returns its number: the id without the part's name and
    /// without its occurrence (`Schedule 2 para 2.1` -> `2.1`).
    pub(crate) fn number(&mut self, id: &'a str, parent: Option<&str>) -> &'a str {
        let id = without_occurrence(id);
        let number = self
            .part
            .and_then(|part| id.strip_prefix(part)?.strip_prefix(PARA))
            .unwrap_or(id);
        let structural = parent.is_none_or(|parent| {
            number
                .strip_prefix(parent)
                .is_some_and(|rest| rest.starts_with('.'))
        });
        if structural {
            self.numbers.insert(number);
        }
        number
    }
}

/// Gives every clause whose id an earlier clause already has a scoped id (see the module
/// documentation). Linear in the number of clauses; only new ids are allocated.
pub(crate) fn make_ids_unique(clauses: &mut [Clause]) {
    let new_ids = {
        let mut namer = Namer::default();
        namer.read(clauses);
        if namer.repeats == 0 {
            return;
        }
        namer.name_all(clauses)
    };
    fn assign(clauses: &mut [Clause], ids: &mut impl Iterator<Item = Option<String>>) {
        for clause in clauses {
            if let Some(Some(id)) = ids.next() {
                clause.clause_id = id;
            }
            assign(&mut clause.children, ids);
        }
    }
    assign(clauses, &mut new_ids.into_iter());
}

/// The ids of a document as written, and those given to repeated ones.
#[derive(Debug, Default)]
struct Namer<'a> {
    /// Every id written in the document: a new id is none of them.
    written: HashSet<&'a str>,
    /// How many clauses repeat an earlier clause's id.
    repeats: usize,
    /// Ids whose first clause has been seen, with that clause's scope.
    first: HashMap<&'a str, u32>,
    /// Every id given: a new id is none of them either.
    given: HashSet<String>,
    /// The next occurrence number to try for a base id.
    next: HashMap<String, u32>,
}

impl<'a> Namer<'a> {
    /// Notes every id written and counts the repeats.
    fn read(&mut self, clauses: &'a [Clause]) {
        for clause in clauses {
            if !self.written.insert(&clause.clause_id) {
                self.repeats += 1;
            }
            self.read(&clause.children);
        }
    }

    /// The new id of every clause, depth first in document order (`None`: keeps its id).
    fn name_all(&mut self, clauses: &'a [Clause]) -> Vec<Option<String>> {
        let mut out = Vec::with_capacity(self.written.len() + self.repeats);
        let mut tracker = ScopeTracker::default();
        for root in clauses {
            let scope = tracker.enter_root(&root.clause_id);
            let number = tracker.number(&root.clause_id, None);
            let part = tracker.part();
            // A part takes its new name first (a repeated `Exhibit A` is `Exhibit A #2`),
            // and its paragraphs are named after it.
            let renamed = self.name(&root.clause_id, None, scope, part);
            let rename = part.zip(renamed.clone());
            out.push(renamed);
            for child in &root.children {
                self.walk(child, &mut tracker, rename.as_ref(), number, &mut out);
            }
        }
        out
    }

    fn walk(
        &mut self,
        clause: &'a Clause,
        tracker: &mut ScopeTracker<'a>,
        rename: Option<&(&'a str, String)>,
        parent: &str,
        out: &mut Vec<Option<String>>,
    ) {
        let id = clause.clause_id.as_str();
        let number = tracker.number(id, Some(parent));
        // A paragraph of a renamed part is named after the part's new name.
        let base = rename.and_then(|(old, new)| {
            let number = id.strip_prefix(old)?.strip_prefix(PARA)?;
            Some(format!("{new}{PARA}{number}"))
        });
        let part = match rename {
            Some((_, new)) => Some(new.as_str()),
            None => tracker.part(),
        };
        out.push(self.name(id, base, tracker.scope(), part));
        for child in &clause.children {
            self.walk(child, tracker, rename, number, out);
        }
    }

    fn is_free(&self, id: &str) -> bool {
        !self.written.contains(id) && !self.given.contains(id)
    }

    /// The new id of a clause written `id` (or `renamed` with its part), in scope `scope`
    /// of part `part` (by its new name), or `None` when it keeps its id: the first clause
    /// of an id keeps it; a repeat gets its part's name (when the first was in another
    /// scope) or its occurrence.
    fn name(
        &mut self,
        id: &'a str,
        renamed: Option<String>,
        scope: u32,
        part: Option<&str>,
    ) -> Option<String> {
        if let Some(renamed) = renamed {
            // Renamed with its part: keep that unless it is taken.
            if self.is_free(&renamed) {
                self.given.insert(renamed.clone());
                return Some(renamed);
            }
            return Some(self.occurrence(&renamed));
        }
        let first_scope = match self.first.entry(id) {
            Entry::Vacant(first) => {
                first.insert(scope);
                return None;
            }
            Entry::Occupied(first) => *first.get(),
        };
        if let Some(part) = part.filter(|part| first_scope != scope && !id.starts_with(part)) {
            let scoped = format!("{part}{PARA}{id}");
            if self.is_free(&scoped) {
                self.given.insert(scoped.clone());
                return Some(scoped);
            }
        }
        Some(self.occurrence(id))
    }

    /// `{base} #k` for the smallest k from 2 that is free.
    fn occurrence(&mut self, base: &str) -> String {
        let mut k = self.next.get(base).copied().unwrap_or(2);
        let id = loop {
            let id = format!("{base}{OCCURRENCE}{k}");
            k += 1;
            if self.is_free(&id) {
                break id;
            }
        };
        self.next.insert(base.to_string(), k);
        self.given.insert(id.clone());
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clause(id: &str, children: Vec<Clause>) -> Clause {
        Clause {
            clause_id: id.into(),
            children,
            ..Default::default()
        }
    }

    fn ids(clauses: &[Clause]) -> Vec<String> {
        fn walk(clauses: &[Clause], out: &mut Vec<String>) {
            for c in clauses {
                out.push(c.clause_id.clone());
                walk(&c.children, out);
            }
        }
        let mut out = Vec::new();
        walk(clauses, &mut out);
        out
    }

    #[test]
    fn parts_are_recognised_by_their_names() {
        for part in [
            "Schedule 2",
            "Exhibit A",
            "Annex IV",
            "Part 3",
            "Exhibit A #2",
            "第2章",
        ] {
            assert!(is_part(part), "{part}");
        }
        for other in [
            "2",
            "Schedule 2 para 1",
            "Parts 2",
            "Part of it",
            "第2条",
            "4.1 #2",
        ] {
            assert!(!is_part(other), "{other}");
        }
        assert_eq!(without_occurrence("4.1 #2"), "4.1");
        assert_eq!(without_occurrence("Item #x"), "Item #x");
    }

    #[test]
    fn first_clause_keeps_its_id_and_repeats_are_scoped() {
        let mut tree = vec![
            clause("1", vec![clause("1.1", vec![])]),
            clause("2", vec![]),
            clause("Part 2", vec![clause("1", vec![clause("1.1", vec![])])]),
            // A number used twice inside the same part is counted, not named after it.
            clause("Part 3", vec![clause("3", vec![]), clause("3", vec![])]),
        ];
        make_ids_unique(&mut tree);
        assert_eq!(
            ids(&tree),
            [
                "1",
                "1.1",
                "2",
                "Part 2",
                "Part 2 para 1",
                "Part 2 para 1.1",
                "Part 3",
                "3",
                "3 #2"
            ]
        );
    }

    #[test]
    fn a_repeated_part_renames_its_paragraphs() {
        let mut tree = vec![
            clause("1", vec![]),
            clause("Exhibit A", vec![clause("Exhibit A para 1", vec![])]),
            clause("Exhibit A", vec![clause("Exhibit A para 1", vec![])]),
        ];
        make_ids_unique(&mut tree);
        assert_eq!(
            ids(&tree),
            [
                "1",
                "Exhibit A",
                "Exhibit A para 1",
                "Exhibit A #2",
                "Exhibit A #2 para 1"
            ]
        );
    }

    #[test]
    fn numbering_that_starts_over_is_a_scope_and_new_ids_avoid_written_ones() {
        let mut tree = vec![
            clause("1", vec![]),
            clause("2", vec![]),
            clause("1", vec![]),
            // Written in the document: the repeat of `1` must not take it.
            clause("1 #2", vec![]),
        ];
        make_ids_unique(&mut tree);
        assert_eq!(ids(&tree), ["1", "2", "1 #3", "1 #2"]);
        let mut tracker = ScopeTracker::default();
        let scopes: Vec<u32> = ["1", "2", "1 #3", "2"]
            .iter()
            .map(|id| {
                let scope = tracker.enter_root(id);
                tracker.number(id, None);
                scope
            })
            .collect();
        assert_eq!(scopes, [0, 0, 1, 1]);
    }

    #[test]
    fn an_item_of_a_list_does_not_start_the_numbering_over() {
        let mut tracker = ScopeTracker::default();
        tracker.enter_root("1");
        tracker.number("1", None);
        // A list under clause 1 numbered 1, 2; then a sub-clause numbered under it.
        tracker.number("1 #2", Some("1"));
        tracker.number("2", Some("1"));
        tracker.number("1.1", Some("1"));
        assert_eq!(tracker.enter_root("2 #2"), 0, "2 was only a list item");
        tracker.number("2 #2", None);
        assert_eq!(tracker.enter_root("1.1 #2"), 1, "1.1 was a sub-clause");
    }
}
