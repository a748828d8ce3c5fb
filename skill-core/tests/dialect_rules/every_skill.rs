//! The rules checked on every registered skill, in every dialect.

use super::*;

#[test]
fn every_dialect_obeys_its_rules_for_every_skill() {
    let d = dispatcher();
    let skills = active_skills(&d);
    assert!(skills.len() >= 8);
    for dialect in Dialect::ALL {
        for skill in &skills {
            let rendered = dialect.render_tool(skill, &[]);
            let neutral = skill.parameters();
            let tool = format!("{dialect}:{}", skill.id);
            let def = match (dialect, rendered) {
                (Dialect::AnthropicStrict, Err(DialectError::Unfit { reason, .. })) => {
                    assert!(
                        reason.contains("recursive"),
                        "{tool}: only recursion is refused, got {reason}"
                    );
                    assert_eq!(skill.id, "doc.outline_size");
                    continue;
                }
                (_, Ok(def)) => def,
                (_, Err(err)) => panic!("{tool}: {err}"),
            };
            let name = match dialect {
                Dialect::OpenAi | Dialect::OpenAiStrict => def["function"]["name"].as_str(),
                _ => def["name"].as_str(),
            }
            .unwrap();
            assert_eq!(
                d.registration(name).map(|s| s.id),
                Some(skill.id),
                "{tool}: wire name maps back"
            );
            match dialect {
                Dialect::OpenAi => {
                    assert!(openai_name(name), "{tool}: name");
                    assert_eq!(def["type"], "function");
                    assert_eq!(
                        def["function"]["parameters"], neutral,
                        "{tool}: SPEC-19 shape, neutral schema"
                    );
                    assert_eq!(
                        def,
                        skill.to_tool_definition(),
                        "{tool}: same as SPEC-19 definition"
                    );
                }
                Dialect::OpenAiStrict | Dialect::Responses => {
                    assert!(openai_name(name), "{tool}: name");
                    let (params, strict) = if dialect == Dialect::Responses {
                        assert_eq!(def["type"], "function");
                        assert!(def.get("function").is_none(), "{tool}: flat shape");
                        (&def["parameters"], &def["strict"])
                    } else {
                        (&def["function"]["parameters"], &def["function"]["strict"])
                    };
                    match strict {
                        Value::Bool(true) => assert_openai_strict(&tool, params, &neutral),
                        Value::Bool(false) => assert!(
                            has_open_or_untyped(&neutral),
                            "{tool}: downgraded only for maps/untyped values"
                        ),
                        other => panic!("{tool}: strict must be explicit, got {other}"),
                    }
                }
                Dialect::Anthropic => {
                    assert!(openai_name(name), "{tool}: name");
                    assert_eq!(def["input_schema"], neutral);
                    assert_eq!(def["input_schema"]["type"], "object");
                }
                Dialect::AnthropicStrict => {
                    assert!(openai_name(name), "{tool}: name");
                    if def.get("strict") == Some(&json!(true)) {
                        assert_anthropic_strict(&tool, &def["input_schema"]);
                    } else {
                        assert!(
                            has_open_or_untyped(&neutral),
                            "{tool}: non-strict only for maps/untyped values"
                        );
                    }
                }
                Dialect::Gemini => {
                    assert!(gemini_name(name), "{tool}: name");
                    assert!(
                        !(def.get("parameters").is_some()
                            && def.get("parametersJsonSchema").is_some()),
                        "{tool}: one form"
                    );
                    match (def.get("parameters"), def.get("parametersJsonSchema")) {
                        (Some(p), None) => assert_gemini_parameters(&tool, p),
                        (None, Some(p)) => {
                            let recursive =
                                nodes(&neutral).iter().any(|(_, n)| n.get("$ref").is_some())
                                    && skill.id == "doc.outline_size";
                            assert!(
                                recursive || has_open_or_untyped(&neutral),
                                "{tool}: falls back only when `parameters` cannot express it"
                            );
                            assert_gemini_json_schema(&tool, p);
                        }
                        (None, None) => assert!(
                            key_set(neutral.get("properties")).is_empty(),
                            "{tool}: no parameters only without arguments"
                        ),
                        _ => unreachable!(),
                    }
                }
                Dialect::GeminiJsonSchema => {
                    assert!(gemini_name(name), "{tool}: name");
                    assert_gemini_json_schema(&tool, &def["parametersJsonSchema"]);
                }
                Dialect::Mcp => {
                    assert!(mcp_name(name), "{tool}: name");
                    assert_eq!(
                        key_set(def["inputSchema"].get("properties")),
                        key_set(neutral.get("properties")),
                        "{tool}: inputSchema has the neutral properties"
                    );
                    assert_eq!(def["inputSchema"]["required"], neutral["required"]);
                    assert_eq!(
                        def["outputSchema"]["type"], "object",
                        "{tool}: object-rooted outputSchema"
                    );
                    for schema in ["inputSchema", "outputSchema"] {
                        for (path, node) in nodes(&def[schema]) {
                            assert!(
                                !node.get("type").is_some_and(Value::is_array),
                                "{tool}: {schema}{path} has a `type` array (clients' strict \
                                 checks want one `type` per anyOf branch)"
                            );
                        }
                    }
                    assert_eq!(def["title"], skill.name);
                }
            }
        }
    }
}

#[test]
fn gemini_uses_the_openapi_form_whenever_it_can() {
    let d = dispatcher();
    let set = d
        .tools_in(Dialect::Gemini, &toolwright::ToolFilter::all())
        .unwrap();
    let form = |name: &str| {
        let def = set.iter().find(|t| t["name"] == name).unwrap();
        if def.get("parameters").is_some() {
            "parameters"
        } else {
            "parametersJsonSchema"
        }
    };
    assert_eq!(
        form("crm_search_client"),
        "parameters",
        "documented enums collapse to a string enum"
    );
    assert_eq!(form("crm_create_client"), "parameters");
    assert_eq!(
        form("doc_outline_size"),
        "parametersJsonSchema",
        "recursion"
    );
    assert_eq!(
        form("crm_contact_stats"),
        "parametersJsonSchema",
        "free-form map"
    );
    let search = set
        .iter()
        .find(|t| t["name"] == "crm_search_client")
        .unwrap();
    assert_eq!(
        search["parameters"]["properties"]["status"]["enum"],
        json!(["active", "dormant", "archived"])
    );
    assert_eq!(
        search["parameters"]["properties"]["status"]["nullable"],
        true
    );
}

#[test]
fn anthropic_strict_budget_is_enforced_per_request() {
    let d = dispatcher();
    let crm = d
        .tools_in(
            Dialect::AnthropicStrict,
            &toolwright::ToolFilter::all().domain("crm"),
        )
        .unwrap();
    let (mut optional, mut unions) = (0, 0);
    for def in crm.iter().filter(|d| d.get("strict") == Some(&json!(true))) {
        let (o, u) = assert_anthropic_strict(def["name"].as_str().unwrap(), &def["input_schema"]);
        optional += o;
        unions += u;
    }
    assert!(
        optional <= 24 && unions <= 16,
        "{optional} optional, {unions} unions"
    );

    // The same tools twice over in one request no longer fit.
    let report_and_crm: Vec<&'static SkillRegistration> = active_skills(&d)
        .into_iter()
        .filter(|s| s.domain == "crm" || s.domain == "report")
        .filter(|s| s.id != "report.summarise")
        .collect();
    let many: Vec<&'static SkillRegistration> = report_and_crm
        .iter()
        .chain(report_and_crm.iter())
        .copied()
        .collect();
    let err = Dialect::AnthropicStrict
        .render_tools(&many, &[])
        .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, DialectError::AnthropicLimits { .. }),
        "{text}"
    );
    assert!(text.contains("optional parameters (limit 24)"), "{text}");
    assert!(
        text.contains("report.wide_search (13 optional"),
        "names the biggest contributors: {text}"
    );
}

#[test]
fn recursion_gives_a_clear_error_where_it_is_not_allowed() {
    let d = dispatcher();
    let outline = d.registration("doc.outline_size").unwrap();
    let err = Dialect::AnthropicStrict
        .render_tool(outline, &[])
        .unwrap_err()
        .to_string();
    assert_eq!(err, "tool `doc.outline_size` cannot be rendered for anthropic-strict: type `Section` is recursive");
    let strict = Dialect::OpenAiStrict.render_tool(outline, &[]).unwrap();
    assert!(
        strict["function"]["parameters"]["$defs"]["Section"].is_object(),
        "OpenAI keeps recursive $defs"
    );
    let json_schema = Dialect::GeminiJsonSchema.render_tool(outline, &[]).unwrap();
    assert!(json_schema["parametersJsonSchema"]["$defs"]["Section"].is_object());
}

#[test]
fn definitions_are_cached_and_filtered() {
    let d = dispatcher();
    let filter = toolwright::ToolFilter::all()
        .domain("crm")
        .exclude_field("limit");
    let a = d.tools_in(Dialect::Mcp, &filter).unwrap();
    let b = d.tools_in(Dialect::Mcp, &filter).unwrap();
    assert!(a.ptr_eq(&b), "cached");
    let search = a.iter().find(|t| t["name"] == "crm_search_client").unwrap();
    assert!(
        search["inputSchema"]["properties"].get("limit").is_none(),
        "excluded field"
    );
    for tool in a.iter() {
        let reg = d.registration(tool["name"].as_str().unwrap()).unwrap();
        assert!(
            reg.domain == "crm" || reg.domain == "*",
            "{} (domain {}) passed the crm filter",
            reg.id,
            reg.domain
        );
    }
    assert!(
        a.iter().any(|t| t["name"] == "ui_open_form"),
        "universal skills are kept"
    );
    assert_eq!(a.json(), serde_json::to_string(a.definitions()).unwrap());
}

#[test]
fn dialect_names_parse() {
    for dialect in Dialect::ALL {
        assert_eq!(dialect.as_str().parse::<Dialect>().unwrap(), dialect);
    }
    assert_eq!(
        "OpenAI_Strict".parse::<Dialect>().unwrap(),
        Dialect::OpenAiStrict
    );
    let err = "cohere".parse::<Dialect>().unwrap_err().to_string();
    assert!(
        err.contains("unknown dialect `cohere`") && err.contains("openai-strict"),
        "{err}"
    );
}

#[test]
fn mcp_annotations_follow_the_category() {
    let d = dispatcher();
    let set = d
        .tools_in(Dialect::Mcp, &toolwright::ToolFilter::all())
        .unwrap();
    let ann = |name: &str| set.iter().find(|t| t["name"] == name).unwrap()["annotations"].clone();
    assert_eq!(ann("crm_search_client")["readOnlyHint"], true);
    assert_eq!(ann("crm_contact_stats")["readOnlyHint"], true);
    assert_eq!(ann("crm_create_client")["readOnlyHint"], false);
    assert_eq!(ann("crm_create_client")["destructiveHint"], false);
    assert_eq!(ann("crm_delete_client")["destructiveHint"], true);
    assert_eq!(
        ann("crm_delete_client")["idempotentHint"],
        true,
        "#[skill(idempotent = true)]"
    );
    assert_eq!(ann("crm_delete_client")["openWorldHint"], false);
    assert_eq!(ann("crm_search_client")["title"], "Search clients");
    let create = set
        .iter()
        .find(|t| t["name"] == "crm_create_client")
        .unwrap();
    assert_eq!(
        create["outputSchema"]["properties"]["result"]["type"], "string",
        "scalar output wrapped"
    );
    let stats = set
        .iter()
        .find(|t| t["name"] == "crm_contact_stats")
        .unwrap();
    assert!(
        stats["outputSchema"]["properties"]["summary"].is_object(),
        "object output as is"
    );
}
