//! The one clause lookup of a document: every question "which clause is this id, what is
//! around it, what text does it hold" is answered here, by one rule.
//!
//! An id resolves exactly first (a heading used as an id may not survive normalising), then
//! after [`normalize_clause_id`] (`Sub-Clause 4.1`, `Clause 4.`, `第4.1条` -> `4.1`). Ids
//! are unique (the parser gives a repeated number a scoped id, see [`super::scope`]), so
//! every clause can be named. A number read on behalf of a clause ([`Index::clause_from`])
//! names the clause of that number in the clause's own scope (its schedule, exhibit or
//! part) first, then the document's. [`ClauseIndex`] holds the tables, built once per
//! document in O(n); [`Index`] is a document seen through them, and every skill and rule
//! reads clauses through it. The tree's own `find_clause`, `parent_of` and
//! `clause_full_text` build an index and ask it, so they give the same answers.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::OnceLock;

use toolwright::SkillError;

use super::model::{normalize_clause_id, Clause, DocumentStructure};
use super::scope::{is_repeat, ScopeTracker};
use crate::text::TermIndex;

/// How much of the agreement an analysis reads around the clause it is asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The clause with its sub-clauses.
    Clause,
    /// The top-level clause (article) that contains it, with all its sub-clauses: a list
    /// of conditions, its waiver and long-stop sub-clauses belong together.
    Article,
    /// The whole agreement.
    Agreement,
}

/// The text an analysis reads, from [`Index::scope_of`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope<'a> {
    /// The clause read (the article for [`Reach::Article`]), or `*` for the agreement.
    pub clause_id: String,
    /// Its text with every sub-clause, in document order, one clause a line.
    pub text: String,
    /// The clauses read, depth first.
    pub clauses: Vec<&'a Clause>,
}

/// The lookup tables of one document: clause paths by id and by number within each scope,
/// and, built on first use, ids in sorted order and the document's defined terms.
#[derive(Debug, Default)]
pub struct ClauseIndex {
    /// Path (child positions from the roots) of the first clause with each id.
    paths: HashMap<String, Box<[u32]>>,
    /// Every distinct id with the document-order position of its first clause, sorted by
    /// id, so the clauses under a number (`4` and `4.*`) are one range.
    sorted: OnceLock<Vec<(String, u32)>>,
    /// The scope of each top-level clause (and so of everything under it).
    root_scopes: Vec<u32>,
    /// Per scope after the main body (scope 1 at 0), the path of the first clause of each
    /// number in it (`2.1` for `Schedule 2 para 2.1`). The main body needs no table: its
    /// clauses come first, so the first clause of a number there has the number as its id.
    scoped: Vec<HashMap<String, Box<[u32]>>>,
    /// The defined terms, to find those a clause uses in one pass.
    terms: OnceLock<TermIndex>,
}

impl ClauseIndex {
    /// Indexes every clause of `doc` (the first clause wins when ids repeat), by id and
    /// by number within its scope.
    pub fn build(doc: &DocumentStructure) -> Self {
        let mut builder = Builder {
            index: Self::default(),
            tracker: ScopeTracker::default(),
            path: Vec::new(),
            scope: 0,
        };
        for (i, root) in doc.clauses.iter().enumerate() {
            let scope = builder.tracker.enter_root(&root.clause_id);
            builder.index.root_scopes.push(scope);
            builder.scope = scope as usize;
            if builder.index.scoped.len() < builder.scope {
                builder
                    .index
                    .scoped
                    .resize_with(builder.scope, HashMap::new);
            }
            builder.add(i, root, None);
        }
        builder.index
    }

    /// The scope of the clause at `path`.
    fn scope_at(&self, path: &[u32]) -> Option<u32> {
        let root = *path.first()? as usize;
        self.root_scopes.get(root).copied()
    }

    /// The path of the clause numbered `number` in scope `scope`, the number taken as
    /// written (ids the parser gives, as references carry them).
    fn exact_in_scope(&self, scope: u32, number: &str) -> Option<&[u32]> {
        match scope.checked_sub(1) {
            Some(s) => self.scoped.get(s as usize)?.get(number).map(|p| &**p),
            // The main body: its first clause of a number has the number as its id.
            None => {
                let path = self.paths.get(number)?;
                (self.scope_at(path) == Some(scope)).then_some(&**path)
            }
        }
    }

    /// The path of the clause numbered `clause_id` in the scope of the clause `from`:
    /// exact first, then normalised.
    fn resolve_in_scope(&self, from: &str, clause_id: &str) -> Option<&[u32]> {
        let (_, from) = self.resolve_key(from)?;
        let scope = self.scope_at(from)?;
        self.exact_in_scope(scope, clause_id)
            .or_else(|| self.exact_in_scope(scope, &normalize_clause_id(clause_id)))
    }

    /// Every distinct id of `doc` (the document these tables were built from) with the
    /// document-order position of its first clause, sorted by id; built on first use.
    fn sorted(&self, doc: &DocumentStructure) -> &[(String, u32)] {
        self.sorted.get_or_init(|| {
            let mut seen = HashSet::new();
            let mut sorted: Vec<(String, u32)> = doc
                .iter_clauses()
                .zip(0..)
                .filter(|(clause, _)| seen.insert(clause.clause_id.as_str()))
                .map(|(clause, n)| (clause.clause_id.clone(), n))
                .collect();
            sorted.sort_unstable();
            sorted
        })
    }

    /// The id as stored of the clause `clause_id` names: exact first, then normalised.
    fn resolve_key(&self, clause_id: &str) -> Option<(&str, &[u32])> {
        if let Some((id, path)) = self.paths.get_key_value(clause_id) {
            return Some((id.as_str(), path));
        }
        self.paths
            .get_key_value(normalize_clause_id(clause_id).as_str())
            .map(|(id, path)| (id.as_str(), &**path))
    }

    /// The clause of `doc` (the document these tables were built from) that `clause_id`
    /// names; [`Index::clause`] is this with the document attached.
    pub fn clause_in<'d>(&self, doc: &'d DocumentStructure, clause_id: &str) -> Option<&'d Clause> {
        let (_, path) = self.resolve_key(clause_id)?;
        at(doc, path)
    }

    /// The clause of `doc` that contains the one `clause_id` names; [`Index::parent`].
    pub fn parent_in<'d>(&self, doc: &'d DocumentStructure, clause_id: &str) -> Option<&'d Clause> {
        let (_, path) = self.resolve_key(clause_id)?;
        let (_, parent) = path.split_last()?;
        at(doc, parent)
    }
}

/// The state of one [`ClauseIndex::build`]: a depth-first walk in document order.
struct Builder<'a> {
    index: ClauseIndex,
    tracker: ScopeTracker<'a>,
    /// Child positions from the roots to the clause being added.
    path: Vec<u32>,
    /// The scope of the top-level clause being walked.
    scope: usize,
}

impl<'a> Builder<'a> {
    /// Adds `clause`, the `i`-th child of the clause at `self.path` (numbered `parent` in
    /// its scope), and its sub-clauses.
    fn add(&mut self, i: usize, clause: &'a Clause, parent: Option<&str>) {
        self.path.push(i as u32);
        if !self.index.paths.contains_key(&clause.clause_id) {
            let path = self.path.clone().into_boxed_slice();
            self.index.paths.insert(clause.clause_id.clone(), path);
        }
        let number = self.tracker.number(&clause.clause_id, parent);
        if let Some(table) = self
            .scope
            .checked_sub(1)
            .and_then(|s| self.index.scoped.get_mut(s))
        {
            if !table.contains_key(number) {
                table.insert(number.to_string(), self.path.clone().into_boxed_slice());
            }
        }
        for (j, child) in clause.children.iter().enumerate() {
            self.add(j, child, Some(number));
        }
        self.path.pop();
    }
}

/// The clause at `path` (child positions from the roots).
fn at<'d>(doc: &'d DocumentStructure, path: &[u32]) -> Option<&'d Clause> {
    let (first, rest) = path.split_first()?;
    let mut node = doc.clauses.get(*first as usize)?;
    for i in rest {
        node = node.children.get(*i as usize)?;
    }
    Some(node)
}

/// A document with its [`ClauseIndex`]: the only way the library finds a clause.
#[derive(Debug, Clone, Copy)]
pub struct Index<'a> {
    /// The document.
    pub structure: &'a DocumentStructure,
    tables: &'a ClauseIndex,
}

impl<'a> Index<'a> {
    /// `structure` seen through `tables` (which must have been built from it).
    pub fn new(structure: &'a DocumentStructure, tables: &'a ClauseIndex) -> Self {
        Self { structure, tables }
    }

    /// The id, as the document writes it, of the clause `clause_id` names: the id as given
    /// if a clause has it, else the normalised id (`Sub-Clause 4.1` -> `4.1`).
    pub fn resolve(&self, clause_id: &str) -> Option<&'a str> {
        self.clause(clause_id).map(|c| c.clause_id.as_str())
    }

    /// The clause `clause_id` names (see [`Index::resolve`]).
    pub fn clause(&self, clause_id: &str) -> Option<&'a Clause> {
        self.tables.clause_in(self.structure, clause_id)
    }

    /// The clause `clause_id` names when it is read inside the clause `from` (a reference
    /// in its text, a question asked on its behalf): the clause of that number in `from`'s
    /// own scope (its schedule, exhibit or part) when there is one, else as
    /// [`Index::clause`]. So "2.1" read in Schedule 2 names Schedule 2's paragraph 2.1, and
    /// read in the main body the body's clause 2.1.
    pub fn clause_from(&self, from: &str, clause_id: &str) -> Option<&'a Clause> {
        self.clause_in_scope_of(from, clause_id)
            .or_else(|| self.clause(clause_id))
    }

    /// The clause numbered `clause_id` in the scope of the clause `from` only (see
    /// [`Index::clause_from`]); `None` when that scope has no such number. For callers that
    /// try several readings of a reference in the scope before any in the document.
    pub fn clause_in_scope_of(&self, from: &str, clause_id: &str) -> Option<&'a Clause> {
        let path = self.tables.resolve_in_scope(from, clause_id)?;
        at(self.structure, path)
    }

    /// The clause one of `ids` names when read inside the clause `from`: each id in
    /// `from`'s scope, then each in the document, taken as written (no normalising: the
    /// readings of a reference, [`FoundReference::candidates`](super::FoundReference),
    /// are normalised already, and a document's references are resolved this way once
    /// each when it is parsed).
    pub(crate) fn first_of_from(&self, from: &str, ids: &[String]) -> Option<&'a Clause> {
        let tables = self.tables;
        let scope = tables
            .paths
            .get(from)
            .and_then(|path| tables.scope_at(path));
        let path = scope
            .and_then(|scope| ids.iter().find_map(|id| tables.exact_in_scope(scope, id)))
            .or_else(|| {
                ids.iter()
                    .find_map(|id| tables.paths.get(id.as_str()).map(|p| &**p))
            })?;
        at(self.structure, path)
    }

    /// The clause, or a `not_found` error naming it and a few clauses that exist.
    pub fn clause_or_not_found(&self, clause_id: &str) -> Result<&'a Clause, SkillError> {
        self.clause(clause_id)
            .ok_or_else(|| clause_not_found(None, clause_id, std::iter::once(self.structure)))
    }

    /// The clause that contains the one `clause_id` names; `None` for a top-level clause.
    pub fn parent(&self, clause_id: &str) -> Option<&'a Clause> {
        self.tables.parent_in(self.structure, clause_id)
    }

    /// The sub-clauses of the clause `clause_id` names, in order.
    pub fn children(&self, clause_id: &str) -> &'a [Clause] {
        self.clause(clause_id)
            .map_or(&[], |clause| clause.children.as_slice())
    }

    /// The clause's siblings (its parent's children, or the top-level clauses) and its
    /// position among them.
    pub fn siblings(&self, clause_id: &str) -> Option<(&'a [Clause], usize)> {
        let (_, path) = self.tables.resolve_key(clause_id)?;
        let (last, parent) = path.split_last()?;
        let siblings = if parent.is_empty() {
            self.structure.clauses.as_slice()
        } else {
            at(self.structure, parent)?.children.as_slice()
        };
        Some((siblings, *last as usize))
    }

    /// The top-level clause that contains the one `clause_id` names (itself at the top).
    pub fn article(&self, clause_id: &str) -> Option<&'a Clause> {
        let (_, path) = self.tables.resolve_key(clause_id)?;
        at(self.structure, &path[..1.min(path.len())])
    }

    /// Text of the clause and of all its sub-clauses, in order, one per line.
    pub fn full_text(&self, clause_id: &str) -> Option<String> {
        self.clause(clause_id).map(Clause::full_text)
    }

    /// The text an analysis of `clause_id` reads, as far as `reach` says: the clause, its
    /// article, or the whole agreement (for `*` or `all` whatever the reach). `None` when
    /// no clause has the id.
    pub fn scope_of(&self, clause_id: &str, reach: impl Into<Reach>) -> Option<Scope<'a>> {
        let wanted = clause_id.trim();
        let reach = if wanted == "*" || wanted.eq_ignore_ascii_case("all") {
            Reach::Agreement
        } else {
            reach.into()
        };
        let (clause_id, roots): (String, Vec<&'a Clause>) = match reach {
            Reach::Agreement => ("*".into(), self.structure.clauses.iter().collect()),
            Reach::Article => {
                let article = self.article(wanted)?;
                (article.clause_id.clone(), vec![article])
            }
            Reach::Clause => {
                let clause = self.clause(wanted)?;
                (clause.clause_id.clone(), vec![clause])
            }
        };
        let mut clauses = Vec::new();
        let mut text = String::new();
        for root in roots {
            let mut stack = vec![root];
            while let Some(clause) = stack.pop() {
                clauses.push(clause);
                push_line(&mut text, &clause.text);
                stack.extend(clause.children.iter().rev());
            }
        }
        Some(Scope {
            clause_id,
            text,
            clauses,
        })
    }

    /// The distinct ids equal to `clause_id` or starting with `{clause_id}.`, in the
    /// document order of their first clause; a later occurrence of a number (`4.1 #2`) is
    /// another clause's, not one under `clause_id`.
    pub fn family(&self, clause_id: &str) -> Vec<&'a str> {
        let sorted = self.tables.sorted(self.structure);
        let prefix = format!("{clause_id}.");
        let mut found: Vec<(u32, &str)> = Vec::new();
        let start = sorted.partition_point(|(id, _)| id.as_str() < clause_id);
        if let Some((id, n)) = sorted.get(start).filter(|(id, _)| id == clause_id) {
            found.push((*n, id.as_str()));
        }
        let start = sorted.partition_point(|(id, _)| id.as_str() < prefix.as_str());
        found.extend(
            sorted[start..]
                .iter()
                .take_while(|(id, _)| id.starts_with(&prefix))
                .filter(|(id, _)| !is_repeat(id))
                .map(|(id, n)| (*n, id.as_str())),
        );
        found.sort_unstable();
        // Hand out the document's own strings, which live as long as the document.
        found
            .into_iter()
            .filter_map(|(_, id)| self.resolve(id))
            .collect()
    }

    /// The document's defined terms that `text` uses, as whole words, in term order.
    pub fn defined_terms_in(&self, text: &str) -> BTreeSet<&'a str> {
        let terms = self
            .tables
            .terms
            .get_or_init(|| TermIndex::new(self.structure.definitions.keys()));
        terms
            .found_in(text)
            .into_iter()
            .filter_map(|term| {
                self.structure
                    .definitions
                    .get_key_value(term)
                    .map(|(k, _)| k.as_str())
            })
            .collect()
    }
}

fn push_line(out: &mut String, line: &str) {
    if line.is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(line);
}

/// The `not_found` error for a clause id that none of `docs` has, naming the skill that
/// asked (when one did) and up to eight clause ids that exist.
pub(crate) fn clause_not_found<'a>(
    skill: Option<&str>,
    clause_id: &str,
    docs: impl Iterator<Item = &'a DocumentStructure>,
) -> SkillError {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut ids: Vec<&str> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for doc in docs {
        names.push(&doc.document_id);
        for clause in doc.iter_clauses() {
            if seen.insert(clause.clause_id.as_str()) {
                ids.push(clause.clause_id.as_str());
            }
        }
    }
    let total = ids.len();
    ids.truncate(8);
    let known = if ids.is_empty() {
        "the review has no parsed clauses".to_string()
    } else {
        format!("existing clauses include {}", ids.join(", "))
    };
    let (message, details) = match (skill, names.as_slice()) {
        (Some(skill), _) => (
            format!("`{skill}`: clause `{clause_id}` was not found; {known}"),
            serde_json::json!({ "skill_id": skill, "clause_id": clause_id, "known_clause_count": total }),
        ),
        (None, [document_id]) => (
            format!("clause `{clause_id}` does not exist in document `{document_id}`; {known}"),
            serde_json::json!({ "clause_id": clause_id, "document_id": document_id }),
        ),
        (None, _) => (
            format!("clause `{clause_id}` was not found; {known}"),
            serde_json::json!({ "clause_id": clause_id, "known_clause_count": total }),
        ),
    };
    SkillError::not_found(message).with_details(details)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::parse_text;

    fn indexed(text: &str, test: impl FnOnce(Index<'_>)) {
        let doc = parse_text("a", text);
        let tables = ClauseIndex::build(&doc);
        test(Index::new(&doc, &tables));
    }

    #[test]
    fn resolves_exact_then_normalised() {
        indexed(
            "4 Contractor\n4.1 Duty\nDo it.\n4.1.1 Detail\nMore.",
            |doc| {
                assert_eq!(doc.resolve("Sub-Clause 4.1"), Some("4.1"));
                assert_eq!(
                    doc.resolve("Clause 4.1."),
                    Some("4.1"),
                    "a full stop after the id"
                );
                assert_eq!(doc.resolve("第4.1条"), Some("4.1"));
                assert_eq!(doc.clause("4.1").unwrap().title, "Duty");
                assert_eq!(doc.parent("4.1.1").unwrap().clause_id, "4.1");
                assert_eq!(doc.parent("Sub-Clause 4.1.1.").unwrap().clause_id, "4.1");
                assert!(doc.parent("4").is_none());
                assert_eq!(doc.children("4").len(), 1);
                assert_eq!(doc.article("4.1.1").unwrap().clause_id, "4");
                assert_eq!(doc.full_text("4.1").unwrap(), "Do it.\nMore.");
                assert_eq!(doc.clause_or_not_found("9").unwrap_err().code, "not_found");
            },
        );
    }

    #[test]
    fn answers_match_the_tree_walks() {
        let text = "4 Contractor\nIntro.\n4.1 Duty\nDo it.\n4.1.1 Detail\nMore.\n4.10 Late\nLater.\n40 Other\nText.\n40.1 Sub\nText.\n4.2 Again\nRepeated number.\n5 Last\nEnd.";
        indexed(text, |doc| {
            let tree = doc.structure;
            let mut asked: Vec<String> = tree.iter_clauses().map(|c| c.clause_id.clone()).collect();
            asked.extend(["Sub-Clause 4.1".into(), "Clause 40.".into(), "9".into()]);
            for id in &asked {
                let walked = tree
                    .iter_clauses()
                    .find(|c| c.clause_id == *id || c.clause_id == normalize_clause_id(id));
                assert_eq!(doc.clause(id), walked, "{id}");
                let mut family: Vec<&str> = Vec::new();
                for c in tree.iter_clauses() {
                    let in_family =
                        c.clause_id == *id || c.clause_id.starts_with(&format!("{id}."));
                    if in_family && !family.contains(&c.clause_id.as_str()) {
                        family.push(&c.clause_id);
                    }
                }
                assert_eq!(doc.family(id), family, "{id}");
            }
            assert_eq!(doc.family("4"), ["4", "4.1", "4.1.1", "4.10", "4.2"]);
            let (siblings, i) = doc.siblings("4.10").unwrap();
            assert_eq!(siblings[i].clause_id, "4.10");
            assert_eq!(siblings[i - 1].clause_id, "4.1");
        });
    }

    #[test]
    fn scopes_reach_the_clause_the_article_or_the_agreement() {
        indexed(
            "3 Conditions\n3.1 Conditions Precedent\nCompletion is conditional on the following.\n3.2 Waiver\nThe Buyer may waive them.\n4 Completion\nCompletion takes place in London.",
            |doc| {
                let article = doc.scope_of("3.1", Reach::Article).unwrap();
                assert_eq!(article.clause_id, "3");
                assert_eq!(
                    article.text,
                    "Completion is conditional on the following.\nThe Buyer may waive them."
                );
                assert_eq!(article.clauses.len(), 3);
                let clause = doc.scope_of("Clause 3.2", Reach::Clause).unwrap();
                assert_eq!(clause.clause_id, "3.2");
                assert_eq!(clause.text, "The Buyer may waive them.");
                let all = doc.scope_of("*", Reach::Clause).unwrap();
                assert_eq!(all.clause_id, "*");
                assert!(all.text.ends_with("Completion takes place in London."));
                assert!(doc.scope_of("9", Reach::Article).is_none());
            },
        );
    }

    #[test]
    fn defined_terms_are_found_once_per_text() {
        indexed("1 Definitions\n\"Works\" means the works.\n\"Site\" means the land.\n2 Duty\nThe Works on the Site.", |doc| {
            let found: Vec<&str> = doc.defined_terms_in("the Works and the Worksite").into_iter().collect();
            assert_eq!(found, ["Works"]);
        });
    }
}
