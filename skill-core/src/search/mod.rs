//! Tool search: rank tools by relevance to a natural-language request, so a model or client
//! receives the few definitions a request needs instead of all of them.
//!
//! | item | job |
//! |---|---|
//! | [`ToolSearch`] | a dispatcher's skills, indexed once, searched under a [`ToolFilter`] |
//! | [`ToolIndex`] | any list of tools (skills or JSON definitions `{name, description, parameters}`) |
//! | [`bm25`] | BM25F ranking over weighted fields, domain-free |
//! | [`Analyzer`] | text and identifiers to search terms (split, stemmed, stop words out) |
//! | [`tool`] | `search_tools`, the tool hosts offer to find tools: one definition |
//! | [`NativeToolSearch`] | a provider's own search over deferred definitions, per request |
//!
//! Ranking is BM25F over six fields (name split into words, the description's first
//! sentence, the rest of the description, parameter names, parameter descriptions and enum
//! values, domain and category), English stemming (Snowball), a small table of general
//! synonyms (a request word's synonyms count at a reduced weight, once), numbers of the
//! request at half weight, and variants of one tool (`name`, `name__2`) kept together, in
//! the order of how much of the request each holds.

pub mod bm25;
mod index;
mod synonyms;
mod text;
pub mod tool;

use std::sync::Arc;

/// The providers' own tool search, for requests that defer definitions to it
/// ([`crate::Dialect::deferred_request_tools`]).
pub use crate::dialect::NativeToolSearch;
pub use index::{family_name, DefinitionError, Hit, ToolDocument, ToolIndex};
pub use text::Analyzer;

use crate::registration::SkillRegistration;
use crate::tools::ToolFilter;
use crate::Dispatcher;

/// A skill found by [`ToolSearch::search`].
#[derive(Debug, Clone, Copy)]
pub struct SkillHit {
    /// The skill.
    pub skill: &'static SkillRegistration,
    /// Relevance to the request (only comparable within one search).
    pub score: f32,
}

/// The skills of a dispatcher, indexed once for search. Cheap to clone (shared); build one
/// per dispatcher and keep it: the skill set of a dispatcher never changes, and filters are
/// applied when searching, so one index serves every [`ToolFilter`].
#[derive(Debug, Clone)]
pub struct ToolSearch(Arc<Indexed>);

#[derive(Debug)]
struct Indexed {
    skills: Vec<&'static SkillRegistration>,
    index: ToolIndex,
}

impl ToolSearch {
    /// Indexes every skill of `dispatcher` (active or not; searches offer only what a filter
    /// accepts).
    pub fn new(dispatcher: &Dispatcher) -> Self {
        let skills = dispatcher.list_skills().to_vec();
        let index = ToolIndex::from_skills(&skills);
        Self(Arc::new(Indexed { skills, index }))
    }

    /// The active skills that `filter` accepts, ranked by relevance to `request`, best first,
    /// at most `limit`.
    pub fn search(&self, request: &str, filter: &ToolFilter, limit: usize) -> Vec<SkillHit> {
        let skills = &self.0.skills;
        self.0
            .index
            .search_where(request, limit, |i| filter.accepts(skills[i]))
            .into_iter()
            .map(|hit| SkillHit {
                skill: skills[hit.index],
                score: hit.score,
            })
            .collect()
    }

    /// The active skills `keep` accepts, ranked by relevance to `request`, best first, at
    /// most `limit`: for hosts whose served set is no [`ToolFilter`] (a pack's set, a
    /// rendered list).
    pub fn search_where(
        &self,
        request: &str,
        limit: usize,
        keep: impl Fn(&'static SkillRegistration) -> bool,
    ) -> Vec<SkillHit> {
        let skills = &self.0.skills;
        self.0
            .index
            .search_where(request, limit, |i| skills[i].is_active() && keep(skills[i]))
            .into_iter()
            .map(|hit| SkillHit {
                skill: skills[hit.index],
                score: hit.score,
            })
            .collect()
    }

    /// The index behind the search (tool `i` is the dispatcher's `i`-th skill by id).
    pub fn index(&self) -> &ToolIndex {
        &self.0.index
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn registry() -> serde_json::Value {
        json!([
            {"name": "get_current_weather", "description": "Get the current weather in a given location.",
             "parameters": {"type": "object", "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}}},
            {"name": "math.factorial", "description": "Calculate the factorial of a given number.",
             "parameters": {"type": "object", "properties": {"number": {"type": "integer"}}}},
            {"name": "RentalCars_3_GetCarsAvailable", "description": "Discover cars available for rent in a city.",
             "parameters": {"type": "object", "properties": {"pickup_city": {"type": "string"}}}},
            {"name": "Movies_1_BuyMovieTickets", "description": "Purchase tickets for a showing.",
             "parameters": {"type": "object", "properties": {"movie_name": {"type": "string"}}}},
            {"name": "send_email", "description": "Send a message to a recipient.",
             "parameters": {"type": "object", "properties": {
                "to": {"type": "string", "description": "Address of the recipient."},
                "attachments": {"type": "array", "items": {"type": "object", "properties": {
                    "filename": {"type": "string", "description": "Name of an attached spreadsheet."}}}}}}},
            {"name": "get_current_weather__2", "description": "Current conditions for a place.",
             "parameters": {"type": "object", "properties": {"place": {"type": "string"}}}},
            {"name": "no_parameters"}
        ])
    }

    fn top_names(index: &ToolIndex, request: &str, n: usize) -> Vec<String> {
        index
            .search(request, n)
            .into_iter()
            .map(|h| index.name(h.index).unwrap().to_string())
            .collect()
    }

    #[test]
    fn names_descriptions_and_parameters_are_searched() {
        let index = ToolIndex::from_definitions(&registry()).unwrap();
        assert_eq!(index.len(), 7);
        assert_eq!(
            top_names(&index, "what is 5 factorial", 1),
            ["math.factorial"]
        );
        // Name split from camel case, stemmed: "cars" / "rent" / "available".
        assert_eq!(
            top_names(&index, "is there a car I can rent in Boston?", 1),
            ["RentalCars_3_GetCarsAvailable"]
        );
        // An enum value and a nested parameter description are searched too.
        assert_eq!(
            top_names(&index, "in Fahrenheit please", 1),
            ["get_current_weather"]
        );
        assert_eq!(
            top_names(&index, "attach the spreadsheet", 1),
            ["send_email"]
        );
    }

    #[test]
    fn synonyms_match_at_a_lower_weight() {
        let index = ToolIndex::from_definitions(&registry()).unwrap();
        // "buy" is not in the registry; its synonym "purchase" is.
        assert_eq!(
            top_names(&index, "buy two tickets", 1),
            ["Movies_1_BuyMovieTickets"]
        );
        let direct = index.search("purchase", 1)[0].score;
        let synonym = index.search("acquire order", 1);
        assert!(synonym.is_empty() || synonym[0].score < direct);
    }

    #[test]
    fn variants_of_one_tool_stay_together() {
        let index = ToolIndex::from_definitions(&registry()).unwrap();
        let names = top_names(&index, "weather in Paris in celsius", 2);
        assert_eq!(names, ["get_current_weather", "get_current_weather__2"]);
    }

    fn variant(name: &str, description: &str) -> ToolDocument {
        ToolDocument {
            name: name.into(),
            description: description.into(),
            parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}}),
            labels: Vec::new(),
        }
    }

    #[test]
    fn variants_are_ordered_by_the_request_not_the_registry() {
        let plain = variant(
            "get_weather",
            "Weather for a city, in celsius or fahrenheit.",
        );
        let metric = variant(
            "get_weather__2",
            "Weather report for a city in metric units.",
        );
        let other = variant("get_news", "News for a city.");
        for docs in [
            vec![plain.clone(), metric.clone(), other.clone()],
            vec![other.clone(), metric.clone(), plain.clone()],
        ] {
            let index = ToolIndex::new(&docs);
            assert_eq!(
                top_names(&index, "city weather in metric units", 3),
                ["get_weather__2", "get_weather", "get_news"]
            );
            assert_eq!(
                top_names(&index, "weather in fahrenheit", 2),
                ["get_weather", "get_weather__2"]
            );
        }
        // A variant that holds more of the request's words comes first, even when another
        // scores higher on its own by repeating the words they share.
        let docs = |names: [&str; 2]| {
            let mut docs = vec![
                variant(names[0], "Hotel rooms."),
                variant(
                    names[1],
                    "Hotel rooms near a landmark, a beach or a park, for one night or more.",
                ),
            ];
            for place in ["Shops", "Parks", "Cafes", "Gyms", "Banks", "Pubs", "Zoos"] {
                docs.push(variant(
                    &place.to_lowercase(),
                    &format!("{place} to visit."),
                ));
            }
            docs
        };
        let request = "hotel rooms near the station";
        let apart = ToolIndex::new(&docs(["alpha", "beta"]));
        assert_eq!(top_names(&apart, request, 2), ["alpha", "beta"]);
        let family = ToolIndex::new(&docs(["hotel__2", "hotel"]));
        assert_eq!(top_names(&family, request, 2), ["hotel", "hotel__2"]);
    }

    #[test]
    fn identical_variants_tie_below_the_first() {
        let docs = [
            variant("lookup", "Look up a city."),
            variant("lookup__2", "Look up a city."),
            variant("lookup__3", "Look up a street."),
        ];
        let index = ToolIndex::new(&docs);
        let hits = index.search("look up the city", 3);
        assert_eq!(hits.len(), 3);
        assert!(hits[0].score > hits[1].score);
        assert_eq!(index.name(hits[2].index), Some("lookup__3"));
    }

    #[test]
    fn numbers_in_a_request_count_half() {
        let docs = [
            variant("alpha", "Released in 2023."),
            variant("beta", "Released forecast."),
        ];
        let index = ToolIndex::new(&docs);
        let number = index.search("2023", 1)[0].score;
        let word = index.search("forecast", 1)[0].score;
        assert!((number - 0.5 * word).abs() < 1e-4, "{number} vs {word}");
        assert_eq!(top_names(&index, "forecast 2023", 1), ["beta"]);
    }

    #[test]
    fn the_first_sentence_of_a_description_says_most() {
        // The booking tool says "hotel" in its first sentence, then goes on at length; the
        // restaurant tool is short and mentions hotels only in passing.
        let docs = [
            variant(
                "find_restaurant",
                "Find a restaurant. Hotel guests get a table.",
            ),
            variant(
                "book_room",
                "Book a hotel room. Rooms can be changed later. Guests may ask for late \
                 check-out, breakfast, parking, airport transfer, extra beds and a quiet floor.",
            ),
        ];
        let index = ToolIndex::new(&docs);
        assert_eq!(
            top_names(&index, "hotel", 2),
            ["book_room", "find_restaurant"]
        );
        // Words after the first sentence still count.
        assert_eq!(top_names(&index, "guests table", 1), ["find_restaurant"]);
        assert_eq!(top_names(&index, "parking", 5), ["book_room"]);
    }

    #[test]
    fn unrelated_or_empty_requests_find_nothing() {
        let index = ToolIndex::from_definitions(&registry()).unwrap();
        assert!(index.search("", 10).is_empty());
        assert!(index.search("zzz qqq", 10).is_empty());
        assert!(index.search("factorial", 0).is_empty());
        let empty = ToolIndex::new(&[]);
        assert!(empty.is_empty());
        assert!(empty.search("anything", 10).is_empty());
    }

    #[test]
    fn filters_restrict_the_ranking() {
        let index = ToolIndex::from_definitions(&registry()).unwrap();
        let hits = index.search_where("current weather", 10, |i| i != 0);
        assert!(hits.iter().all(|h| h.index != 0));
        assert_eq!(index.name(hits[0].index), Some("get_current_weather__2"));
    }

    #[test]
    fn bad_registries_are_refused_with_the_place() {
        let err = ToolIndex::from_definitions(&json!({"name": "x"})).unwrap_err();
        assert!(err.to_string().contains("JSON array"), "{err}");
        let err =
            ToolIndex::from_definitions(&json!([{"name": "a"}, {"description": "d"}])).unwrap_err();
        assert!(
            err.to_string().contains("tool definition 1") && err.to_string().contains("no `name`"),
            "{err}"
        );
        let err =
            ToolIndex::from_definitions(&json!([{"name": "a", "parameters": "x"}])).unwrap_err();
        assert!(
            err.to_string().contains("(`a`)") && err.to_string().contains("JSON Schema object"),
            "{err}"
        );
        let err = ToolIndex::from_definitions(&json!([{"name": 3}])).unwrap_err();
        assert!(err.to_string().contains("`name` is a number"), "{err}");
        let err = ToolIndex::from_definitions(&json!([7])).unwrap_err();
        assert!(
            err.to_string()
                .contains("expected an object, found a number"),
            "{err}"
        );
    }

    #[test]
    fn family_names_drop_only_a_numeric_suffix() {
        let docs: Vec<ToolDocument> = ["a__2", "a", "a__x", "__3", "b__"]
            .iter()
            .map(|n| ToolDocument {
                name: n.to_string(),
                description: "same words".into(),
                ..ToolDocument::default()
            })
            .collect();
        let index = ToolIndex::new(&docs);
        assert_eq!(index.search("same", 10).len(), 5);
    }

    #[test]
    fn a_filtered_out_tool_does_not_lift_its_variants() {
        let doc = |name: &str, description: &str| ToolDocument {
            name: name.to_string(),
            description: description.into(),
            ..ToolDocument::default()
        };
        let docs = [
            doc(
                "convert",
                "Convert an amount between currencies at today's rate.",
            ),
            doc("convert__2", "Units of length."),
            doc("exchange_rate", "The rate between two currencies."),
        ];
        let index = ToolIndex::new(&docs);
        // Unfiltered, the variant rides on its family's best score, above the rate tool.
        let all: Vec<usize> = index
            .search("currencies today", 3)
            .iter()
            .map(|h| h.index)
            .collect();
        assert_eq!(all[..2], [0, 1]);
        // With the matching variant filtered out, the other keeps only its own score: none.
        let kept: Vec<usize> = index
            .search_where("currencies today", 3, |i| i != 0)
            .iter()
            .map(|h| h.index)
            .collect();
        assert_eq!(kept, [2]);
    }
}
