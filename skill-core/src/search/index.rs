//! [`ToolIndex`]: tool definitions ranked against a natural-language request.

use std::collections::HashMap;

use serde_json::Value;

use super::bm25::{top, Bm25F, Bm25FBuilder, Field, TermId};
use super::synonyms::GROUPS;
use super::text::Analyzer;
use crate::registration::SkillRegistration;

/// What of a tool is searched. Built from a skill ([`ToolDocument::from_skill`]) or from a
/// JSON definition `{"name", "description", "parameters"}` ([`ToolDocument::from_definition`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolDocument {
    /// The tool's name (an id, a wire name, `math.factorial`, `getWeather`): split into
    /// words for the search.
    pub name: String,
    /// What the tool does.
    pub description: String,
    /// A JSON Schema object: property names, descriptions and enum values are searched, at
    /// any depth (`properties`, `items`, `$defs`).
    pub parameters: Value,
    /// Labels that group tools (a skill's domain and category).
    pub labels: Vec<String>,
}

/// A JSON definition that cannot be indexed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionError {
    /// The registry is not a JSON array.
    #[error("a tool registry is a JSON array of {{\"name\", \"description\", \"parameters\"}} objects; found {found}")]
    NotAnArray {
        /// The JSON type found.
        found: &'static str,
    },
    /// A definition lacks a field or has it with the wrong type.
    #[error("tool definition {index}{name}: {problem}")]
    Invalid {
        /// Place of the definition in the array (from 0).
        index: usize,
        /// ` (`name`)` when the name could be read.
        name: String,
        /// What is wrong and what was expected.
        problem: String,
    },
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl ToolDocument {
    /// The searchable parts of a skill: id, description, parameters (names, descriptions,
    /// enum values), domain and category.
    pub fn from_skill(skill: &SkillRegistration) -> Self {
        let mut labels = vec![skill.category.to_string()];
        if skill.domain != "*" {
            labels.push(skill.domain.to_string());
        }
        let description = if skill.name.is_empty() || skill.name == skill.id {
            skill.description.to_string()
        } else {
            // One first sentence: the display name leads the summary instead of being it.
            format!("{}: {}", skill.name, skill.description)
        };
        Self {
            name: skill.id.to_string(),
            description,
            parameters: skill.parameters(),
            labels,
        }
    }

    /// A definition in the common JSON shape `{"name", "description", "parameters"}`
    /// (`description` and `parameters` may be missing); `index` is its place in a list,
    /// named in errors.
    pub fn from_definition(index: usize, definition: &Value) -> Result<Self, DefinitionError> {
        let (name, description, parameters) = definition_parts(index, definition)?;
        Ok(Self {
            name: name.to_string(),
            description: description.to_string(),
            parameters: parameters.clone(),
            labels: Vec::new(),
        })
    }
}

/// A missing `parameters`.
static NO_PARAMETERS: Value = Value::Null;

/// The name, description and parameters of a JSON definition, checked, without copying.
fn definition_parts(
    index: usize,
    definition: &Value,
) -> Result<(&str, &str, &Value), DefinitionError> {
    let invalid = |name: String, problem: String| DefinitionError::Invalid {
        index,
        name,
        problem,
    };
    let Value::Object(map) = definition else {
        return Err(invalid(
            String::new(),
            format!("expected an object, found {}", json_type(definition)),
        ));
    };
    let name = match map.get("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.as_str(),
        Some(Value::String(_)) => return Err(invalid(String::new(), "`name` is empty".into())),
        Some(other) => {
            return Err(invalid(
                String::new(),
                format!("`name` is {}, expected a string", json_type(other)),
            ))
        }
        None => return Err(invalid(String::new(), "no `name`".into())),
    };
    let description = match map.get("description") {
        None | Some(Value::Null) => "",
        Some(Value::String(d)) => d.as_str(),
        Some(other) => {
            return Err(invalid(
                format!(" (`{name}`)"),
                format!("`description` is {}, expected a string", json_type(other)),
            ))
        }
    };
    let parameters = match map.get("parameters") {
        None | Some(Value::Null) => &NO_PARAMETERS,
        Some(p @ Value::Object(_)) => p,
        Some(other) => {
            return Err(invalid(
                format!(" (`{name}`)"),
                format!(
                    "`parameters` is {}, expected a JSON Schema object",
                    json_type(other)
                ),
            ))
        }
    };
    Ok((name, description, parameters))
}

/// Calls `visit(true, name)` with every property name and `visit(false, text)` with every
/// description and enum value of a parameters schema, depth first.
fn walk_parameters(parameters: &Value, visit: &mut dyn FnMut(bool, &str)) {
    fn walk(schema: &Value, depth: usize, visit: &mut dyn FnMut(bool, &str)) {
        let Value::Object(map) = schema else { return };
        if depth > 16 {
            return;
        }
        if let Some(Value::String(d)) = map.get("description") {
            if depth > 0 {
                visit(false, d);
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            for v in values {
                match v {
                    Value::String(s) => visit(false, s),
                    Value::Number(n) => visit(false, &n.to_string()),
                    _ => {}
                }
            }
        }
        if let Some(Value::Object(props)) = map.get("properties") {
            for (key, sub) in props {
                visit(true, key);
                walk(sub, depth + 1, visit);
            }
        }
        for key in ["items", "additionalProperties"] {
            if let Some(sub) = map.get(key) {
                walk(sub, depth + 1, visit);
            }
        }
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(defs)) = map.get(key) {
                for sub in defs.values() {
                    walk(sub, depth + 1, visit);
                }
            }
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(subs)) = map.get(key) {
                for sub in subs {
                    walk(sub, depth + 1, visit);
                }
            }
        }
    }
    walk(parameters, 0, visit);
}

/// One tool as the index reads it (borrowed from a [`ToolDocument`] or a JSON definition).
struct ToolParts<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
    labels: &'a [String],
}

/// Fields of the index, in [`FIELDS`] order.
const NAME: usize = 0;
/// The first sentence of the description.
const SUMMARY: usize = 1;
const PARAMETER_NAMES: usize = 2;
const PARAMETER_TEXT: usize = 3;
const LABELS: usize = 4;
/// The description after its first sentence.
const DETAILS: usize = 5;

/// How much a match counts in each field: the name says most about what a tool does, then
/// the first sentence of its description; parameter names beat parameter descriptions,
/// which are long and repeat words shared by many tools. The rest of a description (usage
/// notes, conditions, examples) counts like a parameter description, and is normalised by
/// its own length: a long description no longer dilutes what its first sentence says.
const FIELDS: [Field; 6] = [
    Field::weighted(3.0),
    Field::weighted(2.0),
    Field::weighted(1.0),
    Field::weighted(0.5),
    Field::weighted(1.0),
    Field::weighted(0.5),
];

/// Weight of a request word's synonym relative to the word itself.
const SYNONYM_WEIGHT: f32 = 0.35;

/// Weight of a request word made only of digits: a request's numbers are mostly the values
/// of arguments (amounts, dates, ids), and a tool that happens to mention the same number in
/// an example says little about being the tool asked for.
const NUMBER_WEIGHT: f32 = 0.5;

/// Share of the best score of a family given to its other members: variants of one tool
/// (`name`, `name__2`, ...) are kept together near the top once one of them matches.
const FAMILY_SHARE: f32 = 0.9;

/// How much less each next place in a family's order gets (relative): enough to make the
/// order of the variants the one chosen from the request, not their order in the registry.
const FAMILY_STEP: f32 = 1e-4;

/// A ranked tool: its place in the index and its score (higher is better).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Place of the tool in the list the index was built from.
    pub index: usize,
    /// Relevance to the request (only comparable within one search).
    pub score: f32,
}

/// A search index over tool definitions: BM25F over names (split into words), descriptions,
/// parameter names and descriptions and labels, with English stemming and general synonyms.
/// Build once per tool set, then search any number of times (it is immutable and `Sync`).
#[derive(Debug, Clone)]
pub struct ToolIndex {
    names: Vec<String>,
    bm25: Bm25F,
    /// Per document, its family (documents whose names are equal but for a `__N` suffix).
    family: Vec<u32>,
    /// Per family with more than one member, the members.
    members: HashMap<u32, Vec<u32>>,
    /// Per request word (analysed), the terms of the index that are its synonyms.
    synonyms: HashMap<String, Vec<TermId>>,
}

/// The name without a trailing `__N`: registries keep apart different tools that share a
/// name by numbering them (`get_weather`, `get_weather__2`), and such variants form one
/// family that [`ToolIndex`] keeps together.
pub fn family_name(name: &str) -> &str {
    match name.rsplit_once("__") {
        Some((stem, n))
            if !stem.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) =>
        {
            stem
        }
        _ => name,
    }
}

impl ToolIndex {
    /// Indexes these tools, in this order ([`Hit::index`] refers to it).
    pub fn new(tools: &[ToolDocument]) -> Self {
        Self::build(tools.iter().map(|t| ToolParts {
            name: &t.name,
            description: &t.description,
            parameters: &t.parameters,
            labels: &t.labels,
        }))
    }

    /// Indexes a registry in the common JSON shape: an array of `{"name", "description",
    /// "parameters"}` objects.
    pub fn from_definitions(registry: &Value) -> Result<Self, DefinitionError> {
        let Value::Array(items) = registry else {
            return Err(DefinitionError::NotAnArray {
                found: json_type(registry),
            });
        };
        let parts = items
            .iter()
            .enumerate()
            .map(|(i, d)| {
                definition_parts(i, d).map(|(name, description, parameters)| ToolParts {
                    name,
                    description,
                    parameters,
                    labels: &[],
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self::build(parts.into_iter()))
    }

    fn build<'a>(tools: impl ExactSizeIterator<Item = ToolParts<'a>>) -> Self {
        let analyzer = Analyzer::shared();
        let mut builder = Bm25FBuilder::new(FIELDS.to_vec());
        let mut family_ids: HashMap<&str, u32> = HashMap::new();
        let mut family = Vec::with_capacity(tools.len());
        let mut members: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut names = Vec::with_capacity(tools.len());
        for (i, tool) in tools.enumerate() {
            names.push(tool.name.to_string());
            let next = family_ids.len() as u32;
            let id = *family_ids.entry(family_name(tool.name)).or_insert(next);
            family.push(id);
            members.entry(id).or_default().push(i as u32);
            analyzer.for_each_term(family_name(tool.name), |t| builder.add_term(NAME, t));
            let (summary, details) = first_sentence(tool.description);
            analyzer.for_each_term(summary, |t| builder.add_term(SUMMARY, t));
            analyzer.for_each_term(details, |t| builder.add_term(DETAILS, t));
            walk_parameters(tool.parameters, &mut |is_name, text| {
                let field = if is_name {
                    PARAMETER_NAMES
                } else {
                    PARAMETER_TEXT
                };
                analyzer.for_each_term(text, |t| builder.add_term(field, t));
            });
            for label in tool.labels {
                analyzer.for_each_term(label, |t| builder.add_term(LABELS, t));
            }
            // Variants of one tool count as one document for IDF: thirty rewordings of a
            // weather tool do not make "weather" a common word.
            builder.group(id);
            builder.end_document();
        }
        members.retain(|_, m| m.len() > 1);
        let bm25 = builder.build();
        let synonyms = synonym_table(&bm25, analyzer);
        Self {
            names,
            bm25,
            family,
            members,
            synonyms,
        }
    }

    /// Indexes these skills, in this order.
    pub fn from_skills(skills: &[&SkillRegistration]) -> Self {
        let documents: Vec<ToolDocument> =
            skills.iter().map(|s| ToolDocument::from_skill(s)).collect();
        Self::new(&documents)
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the index holds no tool.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The name of the tool at `index`.
    pub fn name(&self, index: usize) -> Option<&str> {
        self.names.get(index).map(String::as_str)
    }

    /// The tools matching `request`, best first, at most `limit`. A request that shares no
    /// word with any tool gives nothing.
    pub fn search(&self, request: &str, limit: usize) -> Vec<Hit> {
        self.search_where(request, limit, |_| true)
    }

    /// [`search`](Self::search) among the tools `keep` accepts (by index), e.g. those a
    /// [`crate::ToolFilter`] accepts.
    pub fn search_where(
        &self,
        request: &str,
        limit: usize,
        keep: impl Fn(usize) -> bool,
    ) -> Vec<Hit> {
        let scores = self.scores(request, &keep);
        top(&scores, limit, keep)
            .into_iter()
            .map(|(index, score)| Hit { index, score })
            .collect()
    }

    /// The score of every tool for `request`; tools `keep` refuses score 0 before variants
    /// are grouped, so a tool filtered out never lifts its variants.
    fn scores(&self, request: &str, keep: &impl Fn(usize) -> bool) -> Vec<f32> {
        let n = self.bm25.len();
        let mut scores = vec![0f32; n];
        if n == 0 {
            return scores;
        }
        let mut words: Vec<String> = Analyzer::shared().terms(request);
        words.sort_unstable();
        words.dedup();
        let mut named: Vec<TermId> = words.iter().filter_map(|w| self.bm25.term(w)).collect();
        named.sort_unstable();
        // Per tool, the rarity (IDF) of the request words it holds itself: how much of the
        // request it covers, whatever its length or repeats.
        let mut coverage = vec![0f32; if self.members.is_empty() { 0 } else { n }];
        let mut best = vec![0f32; n];
        let mut touched: Vec<u32> = Vec::new();
        for word in &words {
            let weight = if word.bytes().all(|b| b.is_ascii_digit()) {
                NUMBER_WEIGHT
            } else {
                1.0
            };
            let term = self.bm25.term(word);
            if let (Some(term), false) = (term, coverage.is_empty()) {
                let idf = weight * self.bm25.idf(term);
                for &(doc, _) in self.bm25.postings(term) {
                    coverage[doc as usize] += idf;
                }
            }
            let synonyms = self
                .synonyms
                .get(word.as_str())
                .map(Vec::as_slice)
                .unwrap_or_default();
            if synonyms.is_empty() {
                if let Some(term) = term {
                    self.bm25.accumulate(term, weight, &mut scores);
                }
                continue;
            }
            // A word and its synonyms count once per tool: the best of them.
            if let Some(term) = term {
                for &(doc, impact) in self.bm25.postings(term) {
                    best[doc as usize] = impact;
                    touched.push(doc);
                }
            }
            for &synonym in synonyms {
                if named.binary_search(&synonym).is_ok() {
                    continue; // the request names it itself
                }
                for &(doc, impact) in self.bm25.postings(synonym) {
                    let slot = &mut best[doc as usize];
                    if *slot == 0.0 {
                        touched.push(doc);
                    }
                    *slot = slot.max(SYNONYM_WEIGHT * impact);
                }
            }
            for doc in touched.drain(..) {
                let doc = doc as usize;
                scores[doc] += weight * best[doc];
                best[doc] = 0.0;
            }
        }
        if !self.members.is_empty() {
            for doc in 0..n {
                if !keep(doc) {
                    scores[doc] = 0.0;
                    coverage[doc] = 0.0;
                }
            }
            self.keep_families_together(&mut scores, &coverage);
        }
        scores
    }

    /// Variants of one tool (`name`, `name__2`, ...) stay together once one of them matches.
    /// Their order comes from the request: first the variant that holds more of its words
    /// (by rarity), then the better scored. The first keeps the family's best score; each
    /// next one gets at least [`FAMILY_SHARE`] of it, a little less per place
    /// ([`FAMILY_STEP`]), or its own score if that is higher. Only identical definitions
    /// tie (and keep their order in the index).
    fn keep_families_together(&self, scores: &mut [f32], coverage: &[f32]) {
        let mut family_best: HashMap<u32, f32> = HashMap::new();
        for (doc, &score) in scores.iter().enumerate() {
            let family = self.family[doc];
            if score > 0.0 && self.members.contains_key(&family) {
                let slot = family_best.entry(family).or_insert(0.0);
                *slot = slot.max(score);
            }
        }
        let mut order: Vec<(f32, u32)> = Vec::new();
        for (family, best) in family_best {
            order.clear();
            order.extend(
                self.members[&family]
                    .iter()
                    .map(|&doc| (coverage[doc as usize] + scores[doc as usize], doc)),
            );
            order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut floor = FAMILY_SHARE * best;
            for (place, &(_, doc)) in order.iter().enumerate() {
                let slot = &mut scores[doc as usize];
                if place == 0 {
                    *slot = best;
                } else {
                    *slot = slot.min(best * (1.0 - FAMILY_STEP)).max(floor);
                    floor *= 1.0 - FAMILY_STEP;
                }
            }
        }
    }
}

/// The first sentence of a description (up to a `.`, `!` or `?` followed by white space,
/// not an abbreviation such as "e.g.") and the rest.
fn first_sentence(text: &str) -> (&str, &str) {
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if !matches!(b, b'.' | b'!' | b'?') {
            continue;
        }
        let followed_by_space = bytes.get(i + 1).is_some_and(u8::is_ascii_whitespace);
        // "e.g. " / "i.e. ": a one-letter part before the stop is no sentence end.
        let abbreviation =
            b == b'.' && (i < 2 || bytes[i - 2] == b'.' || !bytes[i - 2].is_ascii_alphanumeric());
        if followed_by_space && !abbreviation {
            return text.split_at(i + 1);
        }
    }
    (text, "")
}

/// Per analysed word of the synonym groups, the other words of its groups that the index
/// holds (a request word need not be in the index to have synonyms that are).
fn synonym_table(bm25: &Bm25F, analyzer: &Analyzer) -> HashMap<String, Vec<TermId>> {
    let mut table: HashMap<String, Vec<TermId>> = HashMap::new();
    for group in GROUPS {
        let mut all: Vec<String> = analyzer.terms(group);
        all.sort();
        all.dedup();
        for word in &all {
            let entry = table.entry(word.clone()).or_default();
            entry.extend(
                all.iter()
                    .filter(|other| *other != word)
                    .filter_map(|other| bm25.term(other)),
            );
        }
    }
    for list in table.values_mut() {
        list.sort_unstable();
        list.dedup();
    }
    table.retain(|_, l| !l.is_empty());
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentences_end_at_a_stop_before_white_space() {
        assert_eq!(
            first_sentence("Get the weather. Uses the city name."),
            ("Get the weather.", " Uses the city name.")
        );
        assert_eq!(
            first_sentence("Is it open? Checks hours."),
            ("Is it open?", " Checks hours.")
        );
        // Abbreviations, decimals and dotted names end no sentence; a final stop leaves no
        // rest.
        assert_eq!(
            first_sentence("Converts, e.g. 1.5 USD, via math.round. Fast."),
            ("Converts, e.g. 1.5 USD, via math.round.", " Fast.")
        );
        assert_eq!(first_sentence("In U.S. dollars."), ("In U.S. dollars.", ""));
        assert_eq!(first_sentence("No stop at all"), ("No stop at all", ""));
        assert_eq!(first_sentence(""), ("", ""));
    }
}
