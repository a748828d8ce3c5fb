//! Checks a crate's `cargo test` can run over the skills linked into it, and the contract
//! every [`RunStore`](crate::runs::RunStore) engine keeps.

use serde_json::Value;

mod run_store;
pub use run_store::check_run_store;

use crate::dispatch::{validate_skill_id, Dispatcher};
use crate::registration::SkillRegistration;
use crate::tools::ToolFilter;

/// Something wrong with one registered skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryProblem {
    /// The skill.
    pub skill_id: String,
    /// What is wrong, in one sentence.
    pub problem: String,
}

impl std::fmt::Display for RegistryProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.skill_id, self.problem)
    }
}

/// Checks every skill of `dispatcher`: valid id, a description, every parameter described
/// and present in the schema, schemas that are JSON objects, a definition in SPEC-19 shape.
pub fn validate_registry(dispatcher: &Dispatcher) -> Vec<RegistryProblem> {
    let mut problems = Vec::new();
    for skill in dispatcher.list_skills() {
        check_skill(skill, &mut problems);
    }
    let all = dispatcher.tools(&ToolFilter::all());
    let active = dispatcher
        .list_skills()
        .iter()
        .filter(|s| s.is_active())
        .count();
    if all.len() != active {
        problems.push(RegistryProblem {
            skill_id: "*".into(),
            problem: format!(
                "{} active skills but {} tool definitions",
                active,
                all.len()
            ),
        });
    }
    problems
}

fn check_skill(skill: &SkillRegistration, problems: &mut Vec<RegistryProblem>) {
    let mut report = |problem: String| {
        problems.push(RegistryProblem {
            skill_id: skill.id.to_string(),
            problem,
        })
    };
    if let Err(reason) = validate_skill_id(skill.id) {
        report(format!("invalid id: {reason}"));
    }
    if skill.description.trim().is_empty() {
        report("no description".into());
    }
    let schema = (skill.input_schema)();
    let properties = schema.get("properties").and_then(Value::as_object);
    for param in skill.params {
        if param.description.trim().is_empty() {
            report(format!("parameter `{}` has no description", param.name));
        }
        if !properties.is_some_and(|p| p.contains_key(param.name)) {
            report(format!(
                "parameter `{}` is missing from the input schema",
                param.name
            ));
        }
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for param in skill.params {
        if param.required != required.contains(&param.name) && !skill.params.is_empty() {
            report(format!(
                "parameter `{}` is {} but the schema says otherwise",
                param.name,
                if param.required {
                    "required"
                } else {
                    "optional"
                }
            ));
        }
    }
    let def = skill.to_tool_definition();
    let params = &def["function"]["parameters"];
    if def["type"] != "function"
        || def["function"]["name"] != skill.wire_name
        || params["type"] != "object"
        || !params["properties"].is_object()
        || !params["required"].is_array()
    {
        report("tool definition is not in the OpenAI function shape".into());
    }
    if !(skill.output_schema)().is_object() {
        report("output schema is not a JSON object".into());
    }
}

/// Builds the dispatcher from every linked skill and panics with a readable list of
/// problems if the registry is not valid. Call it from a `#[test]` in any crate.
#[track_caller]
pub fn assert_registry_valid() -> Dispatcher {
    let dispatcher = match Dispatcher::from_inventory() {
        Ok(d) => d,
        Err(err) => panic!("skill registry is not valid: {err}"),
    };
    let problems = validate_registry(&dispatcher);
    if !problems.is_empty() {
        let list: Vec<String> = problems.iter().map(|p| format!("  - {p}")).collect();
        panic!(
            "skill registry has {} problem(s):\n{}",
            problems.len(),
            list.join("\n")
        );
    }
    dispatcher
}
