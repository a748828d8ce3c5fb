//! `load_review_criteria`: the review criteria that apply to a clause.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use toolwright::prelude::*;

use crate::document::normalize_clause_id;
use crate::index::lookup_for;
use crate::review::RiskLevel;
use crate::state::{ReviewCriterion, ReviewState};

/// A criterion that applies to the clause, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ApplicableCriterion {
    /// Identifier (`C-014`).
    pub criterion_id: String,
    /// Short topic.
    pub topic: String,
    /// The requirement in words.
    pub requirement: String,
    /// `high`, `medium` or `low`.
    pub risk_level: String,
    /// `clause` (written for this clause or its parent), `keyword` (a keyword occurs in the
    /// clause) or `all_clauses`.
    pub applies_because: String,
    /// The criterion's keywords found in the clause text.
    pub matched_keywords: Vec<String>,
}

/// The criteria for one clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClauseCriteria {
    /// The clause.
    pub clause_id: String,
    /// Criteria that apply, most serious first.
    pub criteria: Vec<ApplicableCriterion>,
    /// Criteria loaded in total (file plus inline).
    pub total_loaded: usize,
    /// Where they came from: `inline`, the file name, or both.
    pub source: String,
    /// One line the model can read directly.
    pub summary: String,
}

/// Load the review criteria (from the criteria file named in the review, JSON or CSV, and
/// inline criteria) that apply to a clause: written for it, for its parent clause, for all
/// clauses, or triggered by a keyword in its text.
///
/// Use it to know what the reviewing party requires of a clause before judging it.
#[skill(id = "load_review_criteria", domain = "*", category = "retrieval")]
pub fn load_review_criteria(
    /// Clause number to load criteria for, for example "17.6"; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    review: Inject<ReviewState>,
) -> Result<ClauseCriteria, SkillError> {
    let lookup = lookup_for(&review.0);
    let doc = lookup.primary_or_not_found()?;
    let clause = doc.clause_or_not_found(&clause_id)?;
    let text = doc.full_text(&clause.clause_id).unwrap_or_default();
    let all = all_criteria(&review)?;
    let mut criteria = applicable_criteria(&all, &clause.clause_id, &text);
    criteria.sort_by_key(|c| Reverse(RiskLevel::parse_lenient(&c.risk_level)));
    let mut sources = Vec::new();
    if let Some(file) = &review.criteria_file {
        sources.push(file.clone());
    }
    if !review.criteria.is_empty() {
        sources.push("inline".to_string());
    }
    let summary = if criteria.is_empty() {
        format!(
            "No review criterion applies to clause {} ({} loaded)",
            clause.clause_id,
            all.len()
        )
    } else {
        let topics: Vec<String> = criteria
            .iter()
            .map(|c| format!("{} [{}]", c.criterion_id, c.risk_level))
            .collect();
        format!(
            "{} criterion(s) apply to clause {}: {}",
            criteria.len(),
            clause.clause_id,
            topics.join(", ")
        )
    };
    Ok(ClauseCriteria {
        clause_id: clause.clause_id.clone(),
        criteria,
        total_loaded: all.len(),
        source: sources.join(" + "),
        summary,
    })
}

/// The criteria of a review: those in its criteria file (cached per path and modification
/// time) followed by the inline ones.
pub(crate) fn all_criteria(state: &ReviewState) -> Result<Vec<ReviewCriterion>, SkillError> {
    let mut out = Vec::new();
    if let Some(path) = state
        .criteria_file
        .as_deref()
        .filter(|p| !p.trim().is_empty())
    {
        out.extend(load_criteria_file(Path::new(path))?.iter().cloned());
    }
    out.extend(state.criteria.iter().cloned());
    Ok(out)
}

/// The criteria of `all` that apply to a clause with this id and text.
pub(crate) fn applicable_criteria(
    all: &[ReviewCriterion],
    clause_id: &str,
    text: &str,
) -> Vec<ApplicableCriterion> {
    let lower = text.to_lowercase();
    let mut out = Vec::new();
    for criterion in all {
        let matched: Vec<String> = criterion
            .keywords
            .iter()
            .filter(|k| !k.trim().is_empty() && lower.contains(&k.to_lowercase()))
            .cloned()
            .collect();
        let target = normalize_clause_id(&criterion.clause_id);
        let because = if target.is_empty() || target == "*" {
            if criterion.keywords.is_empty() {
                "all_clauses"
            } else if !matched.is_empty() {
                "keyword"
            } else {
                continue;
            }
        } else if clause_id == target || clause_id.starts_with(&format!("{target}.")) {
            "clause"
        } else {
            continue;
        };
        out.push(ApplicableCriterion {
            criterion_id: criterion.criterion_id.clone(),
            topic: criterion.topic.clone(),
            requirement: criterion.requirement.clone(),
            risk_level: RiskLevel::parse_lenient(&criterion.risk_level)
                .unwrap_or(RiskLevel::Medium)
                .to_string(),
            applies_because: because.to_string(),
            matched_keywords: matched,
        });
    }
    out
}

type CriteriaCache =
    Mutex<HashMap<std::path::PathBuf, (Option<SystemTime>, Arc<Vec<ReviewCriterion>>)>>;

/// Reads a criteria file (`.json`: an array of criteria or `{"criteria": [...]}`; `.csv`: a
/// header row with `criterion_id, clause_id, topic, requirement, risk_level, keywords`,
/// keywords separated by `;`). Cached until the file changes.
pub(crate) fn load_criteria_file(path: &Path) -> Result<Arc<Vec<ReviewCriterion>>, SkillError> {
    static CACHE: OnceLock<CriteriaCache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    if let Some((stamp, criteria)) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(path) {
        if *stamp == modified && modified.is_some() {
            return Ok(Arc::clone(criteria));
        }
    }
    let text = std::fs::read_to_string(path).map_err(|err| {
        SkillError::not_found(format!(
            "cannot read the criteria file `{}`: {err}",
            path.display()
        ))
    })?;
    let is_csv = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let criteria = Arc::new(if is_csv {
        parse_csv(&text, path)?
    } else {
        parse_json(&text, path)?
    });
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(path.to_path_buf(), (modified, Arc::clone(&criteria)));
    Ok(criteria)
}

fn invalid(path: &Path, message: String) -> SkillError {
    SkillError::new(
        "invalid_criteria",
        format!("criteria file `{}`: {message}", path.display()),
    )
}

fn parse_json(text: &str, path: &Path) -> Result<Vec<ReviewCriterion>, SkillError> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Shape {
        List(Vec<ReviewCriterion>),
        Wrapped { criteria: Vec<ReviewCriterion> },
    }
    match serde_json::from_str::<Shape>(text) {
        Ok(Shape::List(list)) | Ok(Shape::Wrapped { criteria: list }) => Ok(list),
        Err(err) => Err(invalid(
            path,
            format!("expected a JSON array of {{criterion_id, clause_id, requirement, risk_level, keywords}} or {{\"criteria\": [...]}}: {err}"),
        )),
    }
}

fn parse_csv(text: &str, path: &Path) -> Result<Vec<ReviewCriterion>, SkillError> {
    let mut rows = csv_rows(text)
        .into_iter()
        .enumerate()
        .filter(|(_, r)| r.iter().any(|c| !c.trim().is_empty()));
    let Some((_, header)) = rows.next() else {
        return Ok(Vec::new());
    };
    let column = |names: &[&str]| {
        header
            .iter()
            .position(|h| names.contains(&h.trim().to_lowercase().as_str()))
    };
    let id_col = column(&["criterion_id", "id"]);
    let requirement_col = column(&["requirement", "description"]);
    let (Some(id_col), Some(requirement_col)) = (id_col, requirement_col) else {
        return Err(invalid(
            path,
            "the header must name at least `criterion_id` and `requirement` columns".into(),
        ));
    };
    let clause_col = column(&["clause_id", "clause"]);
    let topic_col = column(&["topic"]);
    let level_col = column(&["risk_level", "severity"]);
    let keywords_col = column(&["keywords"]);
    let mut out = Vec::new();
    for (line, row) in rows {
        let cell = |col: Option<usize>| {
            col.and_then(|c| row.get(c))
                .map(|s| s.trim().to_string())
                .unwrap_or_default()
        };
        let criterion_id = cell(Some(id_col));
        if criterion_id.is_empty() {
            return Err(invalid(
                path,
                format!("row {} has no criterion_id", line + 1),
            ));
        }
        out.push(ReviewCriterion {
            criterion_id,
            clause_id: cell(clause_col),
            topic: cell(topic_col),
            requirement: cell(Some(requirement_col)),
            risk_level: cell(level_col),
            keywords: cell(keywords_col)
                .split([';', '|'])
                .map(str::trim)
                .filter(|k| !k.is_empty())
                .map(str::to_string)
                .collect(),
        });
    }
    Ok(out)
}

/// Splits CSV text into rows of cells (RFC 4180 quoting, `""` for a quote).
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            ('"', false) if cell.is_empty() => quoted = true,
            (',', false) => row.push(std::mem::take(&mut cell)),
            ('\r', false) => {}
            ('\n', false) => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (c, _) => cell.push(c),
        }
    }
    if !cell.is_empty() || !row.is_empty() {
        row.push(cell);
        rows.push(row);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_with_quotes() {
        let rows = csv_rows("a,b\n\"x, y\",\"say \"\"hi\"\"\"\n");
        assert_eq!(rows, [vec!["a", "b"], vec!["x, y", "say \"hi\""]]);
    }

    #[test]
    fn csv_needs_id_and_requirement() {
        let err = parse_csv("topic,level\nx,high\n", Path::new("c.csv")).unwrap_err();
        assert_eq!(err.code, "invalid_criteria");
        assert!(
            err.message.contains("c.csv") && err.message.contains("criterion_id"),
            "{}",
            err.message
        );
    }

    #[test]
    fn applicability_rules() {
        let c = |id: &str, clause: &str, keywords: &[&str]| ReviewCriterion {
            criterion_id: id.into(),
            clause_id: clause.into(),
            topic: String::new(),
            requirement: "r".into(),
            risk_level: "HIGH".into(),
            keywords: keywords.iter().map(|s| s.to_string()).collect(),
        };
        let all = [
            c("A", "4", &[]),
            c("B", "*", &["fit for purpose"]),
            c("C", "", &[]),
            c("D", "5", &[]),
            c("E", "*", &["bond"]),
        ];
        let found = applicable_criteria(&all, "4.1", "Works shall be Fit for Purpose.");
        let ids: Vec<(&str, &str)> = found
            .iter()
            .map(|c| (c.criterion_id.as_str(), c.applies_because.as_str()))
            .collect();
        assert_eq!(
            ids,
            [("A", "clause"), ("B", "keyword"), ("C", "all_clauses")]
        );
        assert_eq!(found[0].risk_level, "high");
    }
}
