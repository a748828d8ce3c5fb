//! Reading the planner's final answer, leniently: what can be kept is kept and each fix is
//! said as a warning (a risk placed in no clause becomes a risk of the whole agreement,
//! common field names a model writes are read as the ones asked for, an answer wrapped in
//! one more object is unwrapped); what cannot be read is refused with every problem named,
//! for the planner to mend in its repair turn.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value};
use toolwright::agent::extract_json;

use super::outline::ClauseOutline;
use crate::review::agent::{react_risks, Language, ModelRisk};
use crate::review::types::{CrossClauseFinding, Risk, RiskLevel, DOCUMENT_ANCHOR};

/// The planner's final answer, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Synthesis {
    /// For a person.
    pub summary: String,
    /// The risks, each placed in a clause of the contract (or in
    /// [`DOCUMENT_ANCHOR`], the agreement as a whole), de-duplicated.
    pub risks: Vec<Risk>,
    /// Findings that span clauses.
    pub cross_clause: Vec<CrossClauseFinding>,
    /// The planner's reasons for clauses it did not review, by clause.
    pub not_reviewed: BTreeMap<String, String>,
    /// What the reader mended to keep the answer (an alias read, a risk placed in no
    /// clause kept for the whole agreement), one sentence each.
    pub warnings: Vec<String>,
}

/// Why the planner's final answer could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SynthesisError {
    /// The answer holds no JSON at all.
    #[error("no JSON object in the answer")]
    NoJson,
    /// The answer starts a JSON object that does not parse.
    #[error("the answer's JSON object does not parse: {0}")]
    Malformed(String),
    /// The answer's JSON is a list, a string or a number, not an object.
    #[error("the answer's JSON is {0}, not an object with `summary`, `risks` and `cross_clause`")]
    NotAnObject(&'static str),
    /// The answer is an object, with problems the planner must mend (each named).
    #[error("{}", .0.join("; "))]
    Problems(Vec<String>),
}

/// Names under which a model writes the clause of a risk.
const CLAUSE_KEYS: [&str; 6] = [
    "clause_id",
    "clause",
    "clause_number",
    "clause_no",
    "clause_ref",
    "section",
];
/// Names under which a model writes the clauses of a finding.
const CLAUSE_LIST_KEYS: [&str; 5] = [
    "clause_ids",
    "clauses",
    "clause_refs",
    "clause_numbers",
    "clause_id",
];
const SUMMARY_KEYS: [&str; 3] = ["summary", "executive_summary", "overview"];
const RISK_KEYS: [&str; 2] = ["risks", "findings"];
const CROSS_KEYS: [&str; 3] = [
    "cross_clause",
    "cross_clause_findings",
    "cross_clause_risks",
];
const NOT_REVIEWED_KEYS: [&str; 2] = ["not_reviewed", "skipped"];

/// Reads the planner's final answer: a JSON object with `summary` (text), `risks` (SPEC-20
/// risk objects, each with the `clause_id` it is in; one without is a risk of the whole
/// agreement), `cross_clause` (each with `clause_ids`, two or more, `risk_level` and
/// `description`) and optionally `not_reviewed` (`clause_ids` and `reason`). Every clause
/// named must be in the outline; every problem found is listed in the error, for the
/// planner to mend. Common aliases (`clauses` for `clause_ids`, `findings` for `risks`, ...)
/// are read, each named in [`Synthesis::warnings`].
pub fn read_synthesis(text: &str, outline: &ClauseOutline) -> Result<Synthesis, SynthesisError> {
    let mut warnings = Vec::new();
    let object = answer_object(text.trim(), &mut warnings)?;
    let mut reader = Reader {
        object,
        outline,
        problems: Vec::new(),
        warnings,
    };
    let summary = reader.summary();
    let risks = reader.risks();
    let cross_clause = reader.cross_clause();
    let not_reviewed = reader.not_reviewed();
    if reader.problems.is_empty() {
        Ok(Synthesis {
            summary,
            risks,
            cross_clause,
            not_reviewed,
            warnings: reader.warnings,
        })
    } else {
        Err(SynthesisError::Problems(reader.problems))
    }
}

/// The answer's JSON object: the one the text holds, unwrapped when the model put the
/// answer in one more object (`{"synthesis": {...}}`).
fn answer_object(
    text: &str,
    warnings: &mut Vec<String>,
) -> Result<Map<String, Value>, SynthesisError> {
    let object = match extract_json(text) {
        Some(Value::Object(object)) => object,
        found => return Err(not_read(text, found.as_ref())),
    };
    let expected = |o: &Map<String, Value>| {
        [&SUMMARY_KEYS[..], &RISK_KEYS, &CROSS_KEYS]
            .concat()
            .iter()
            .any(|k| o.contains_key(*k))
    };
    if object.len() == 1 && !expected(&object) {
        if let Some((key, Value::Object(inner))) = object.iter().next() {
            if expected(inner) {
                warnings.push(format!(
                    "the planner's answer was inside `{key}`; read from there"
                ));
                return Ok(inner.clone());
            }
        }
    }
    Ok(object)
}

/// Why no object was read from `text`, where `extract_json` found `found`: an object that
/// starts but does not parse is named with the parser's error, not by what else was found.
fn not_read(text: &str, found: Option<&Value>) -> SynthesisError {
    if let Some(start) = text.find('{') {
        let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        if let Some(Err(err)) = values.next() {
            return SynthesisError::Malformed(err.to_string());
        }
    }
    match found {
        None => SynthesisError::NoJson,
        Some(Value::Array(_)) => SynthesisError::NotAnObject("a list"),
        Some(Value::String(_)) => SynthesisError::NotAnObject("a string"),
        Some(Value::Number(_)) => SynthesisError::NotAnObject("a number"),
        Some(Value::Bool(_)) => SynthesisError::NotAnObject("a boolean"),
        Some(Value::Null | Value::Object(_)) => SynthesisError::NotAnObject("null"),
    }
}

/// A clause id as a model writes it: text, or a number (`4.1`).
fn clause_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The clause ids of a list field: a list of ids, or one text of ids separated by commas.
fn clause_list(value: &Value) -> Option<Vec<String>> {
    match value {
        Value::Array(items) => Some(items.iter().filter_map(clause_text).collect()),
        Value::String(s) => Some(
            s.split([',', ';'])
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect(),
        ),
        _ => None,
    }
}

/// Takes the first of `keys` present in `map`, and the name it was found under.
fn take_any(map: &mut Map<String, Value>, keys: &[&'static str]) -> Option<(&'static str, Value)> {
    let key = keys.iter().find(|k| map.contains_key(**k))?;
    map.remove(*key).map(|v| (*key, v))
}

/// The answer object as it is read: what could not be read, what was mended.
struct Reader<'a> {
    object: Map<String, Value>,
    outline: &'a ClauseOutline,
    problems: Vec<String>,
    warnings: Vec<String>,
}

impl Reader<'_> {
    /// The field under the first of `keys`, noting when it was read under an alias.
    fn field(&mut self, keys: &[&'static str]) -> Option<Value> {
        let (key, value) = take_any(&mut self.object, keys)?;
        if key != keys[0] {
            self.warnings
                .push(format!("read the answer's `{key}` as `{}`", keys[0]));
        }
        Some(value)
    }

    fn summary(&mut self) -> String {
        match self.field(&SUMMARY_KEYS) {
            Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
            _ => {
                self.problems.push(
                    "`summary` is missing or empty: write a few sentences for a person".into(),
                );
                String::new()
            }
        }
    }

    fn risks(&mut self) -> Vec<Risk> {
        let items = match self.field(&RISK_KEYS) {
            Some(Value::Array(items)) => items,
            Some(_) => {
                self.problems.push("`risks` is not a list".into());
                return Vec::new();
            }
            None => {
                self.problems
                    .push("`risks` is missing (give [] when there is none)".into());
                return Vec::new();
            }
        };
        let mut risks: Vec<Risk> = Vec::new();
        let mut seen: HashSet<(String, String, String)> = HashSet::new();
        for (i, item) in items.into_iter().enumerate() {
            let Some((clause_id, risk)) = self.risk(i, item) else {
                continue;
            };
            let key = (
                clause_id.clone(),
                risk.finding.kind.name().to_ascii_lowercase(),
                risk.finding
                    .description
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .to_lowercase(),
            );
            if seen.insert(key) {
                risks.extend(react_risks(
                    std::iter::once(&risk),
                    &clause_id,
                    Language::En,
                ));
            }
        }
        risks.sort_by_key(|r| std::cmp::Reverse(r.finding.level));
        let mut per_clause: HashMap<String, usize> = HashMap::new();
        for risk in &mut risks {
            let n = per_clause.entry(risk.clause_id.clone()).or_default();
            *n += 1;
            risk.id = format!("S-{}-{n}", risk.clause_id);
        }
        risks
    }

    /// `risks[i]`: the clause it is in (the whole agreement when it names none) and the
    /// risk; `None` with the problem noted when it cannot be kept.
    fn risk(&mut self, i: usize, item: Value) -> Option<(String, ModelRisk)> {
        let Value::Object(mut map) = item else {
            self.problems.push(format!("`risks[{i}]` is not an object"));
            return None;
        };
        let named = take_any(&mut map, &CLAUSE_KEYS);
        let raw = named.as_ref().and_then(|(_, v)| clause_text(v));
        let clause_id = match (named.as_ref().map(|(k, _)| *k), raw.as_deref()) {
            (_, Some(DOCUMENT_ANCHOR)) => DOCUMENT_ANCHOR.to_string(),
            (key, Some(raw)) if !raw.is_empty() => {
                let Some(id) = self.outline.resolve(raw) else {
                    self.problems.push(format!(
                        "`risks[{i}].{}` is `{raw}`, which is not a clause of the contract",
                        key.unwrap_or("clause_id")
                    ));
                    return None;
                };
                if let Some(key) = key.filter(|k| *k != CLAUSE_KEYS[0]) {
                    self.warnings
                        .push(format!("read `risks[{i}].{key}` as `clause_id`"));
                }
                id
            }
            _ => {
                self.warnings.push(format!(
                    "`risks[{i}]` names no clause: kept as a risk of the whole agreement"
                ));
                DOCUMENT_ANCHOR.to_string()
            }
        };
        let risk = ModelRisk::from_object(map);
        if risk.finding.description.trim().is_empty() {
            self.problems
                .push(format!("`risks[{i}]` has no `description`"));
            return None;
        }
        Some((clause_id, risk))
    }

    fn cross_clause(&mut self) -> Vec<CrossClauseFinding> {
        let items = match self.field(&CROSS_KEYS) {
            Some(Value::Array(items)) => items,
            Some(_) => {
                self.problems.push("`cross_clause` is not a list".into());
                return Vec::new();
            }
            None => {
                self.problems
                    .push("`cross_clause` is missing (give [] when there is none)".into());
                return Vec::new();
            }
        };
        let mut found = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            let Value::Object(mut map) = item else {
                self.problems
                    .push(format!("`cross_clause[{i}]` is not an object"));
                continue;
            };
            match self.cross_finding(i, &mut map) {
                Ok(finding) => found.push(finding),
                Err(why) => self.problems.push(format!("`cross_clause[{i}]` {why}")),
            }
        }
        found
    }

    /// `cross_clause[i]`, checked: two or more clauses of the contract and a description.
    fn cross_finding(
        &mut self,
        i: usize,
        map: &mut Map<String, Value>,
    ) -> Result<CrossClauseFinding, String> {
        let (key, ids) = take_any(map, &CLAUSE_LIST_KEYS)
            .and_then(|(key, value)| clause_list(&value).map(|ids| (key, ids)))
            .ok_or("has no `clause_ids` list")?;
        let mut clause_ids: Vec<String> = Vec::new();
        for raw in &ids {
            let id = self
                .outline
                .resolve(raw)
                .ok_or_else(|| format!("names `{raw}`, which is not a clause of the contract"))?;
            if !clause_ids.contains(&id) {
                clause_ids.push(id);
            }
        }
        if clause_ids.len() < 2 {
            return Err(
                "names fewer than two clauses; a finding of one clause goes in `risks`".into(),
            );
        }
        let description = map
            .get("description")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .ok_or("has no `description`")?
            .to_string();
        if key != CLAUSE_LIST_KEYS[0] {
            self.warnings
                .push(format!("read `cross_clause[{i}].{key}` as `clause_ids`"));
        }
        let level = map
            .get("risk_level")
            .and_then(Value::as_str)
            .map_or(RiskLevel::Medium, RiskLevel::from_model_answer);
        Ok(CrossClauseFinding {
            clause_ids,
            risk_level: level,
            risk_type: map
                .get("risk_type")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .trim()
                .to_string(),
            description,
        })
    }

    /// The planner's reasons for clauses it left out, by clause (unknown clauses ignored:
    /// the field is informative).
    fn not_reviewed(&mut self) -> BTreeMap<String, String> {
        let mut not_reviewed = BTreeMap::new();
        let Some(Value::Array(items)) = self.field(&NOT_REVIEWED_KEYS) else {
            return not_reviewed;
        };
        for item in items {
            let Value::Object(mut map) = item else {
                continue;
            };
            let reason = map
                .get("reason")
                .and_then(Value::as_str)
                .map(str::trim)
                .unwrap_or_default()
                .to_string();
            let ids = take_any(&mut map, &CLAUSE_LIST_KEYS)
                .and_then(|(_, value)| clause_list(&value))
                .unwrap_or_default();
            for id in ids.iter().filter_map(|raw| self.outline.resolve(raw)) {
                not_reviewed.insert(id, reason.clone());
            }
        }
        not_reviewed
    }
}
