//! `check_manifests`: what the compiler cannot see, all reported in one run.

use chrono::NaiveDate;
use toolwright::prelude::*;
use toolwright_packs::{
    check_manifests, Access, Deprecation, ExportedTool, ImportDecl, Pack, PackExports,
    PackManifest, PackProblem, RateLimit, ToolRateLimit,
};

use crate::jungastro::Jungastro;
use crate::manifests::{kinds, manifest, today};
use crate::zodiac::{GetChartSnapshot, Zodiac};

/// Alpha's first tool.
#[skill(id = "alpha.one")]
fn alpha_one() -> u8 {
    1
}

/// Alpha's second tool.
#[skill(id = "alpha.two")]
fn alpha_two() -> u8 {
    2
}

/// Beta's tool.
#[skill(id = "beta.one")]
fn beta_one() -> u8 {
    1
}

#[test]
fn assert_manifests_valid_panics_with_every_problem() {
    static ORPHAN: PackManifest = manifest(
        "beta",
        "1.0.0",
        &[],
        &[
            ImportDecl {
                from: "gamma",
                tools: &["gamma.x"],
                min_version: "1.0",
            },
            ImportDecl {
                from: "delta",
                tools: &["delta.x"],
                min_version: "1.0",
            },
        ],
    );
    let panic =
        std::panic::catch_unwind(|| toolwright_packs::assert_manifests_valid(&[&ORPHAN], today()))
            .unwrap_err();
    let text = panic.downcast_ref::<String>().unwrap();
    assert_eq!(
        text,
        "2 pack contract problem(s):\n  - pack `beta` imports from `gamma`, but no pack `gamma` exists\n  - pack `beta` imports from `delta`, but no pack `delta` exists"
    );
}

#[test]
fn the_manifest_carries_exports_access_and_schemas_from_the_skills() {
    let m = Zodiac::manifest();
    assert_eq!(Zodiac::ID, "zodiac");
    assert_eq!(m.exports.api_version, "1.0.0");
    let ids: Vec<&str> = m.exports.tools.iter().map(|t| t.id).collect();
    assert_eq!(
        ids,
        ["zodiac.calculate_zodiac", "zodiac.get_chart_snapshot"]
    );
    assert!(m
        .exports
        .access
        .needs_subscription("zodiac.calculate_zodiac"));
    assert!(!m
        .exports
        .access
        .needs_subscription("zodiac.get_chart_snapshot"));
    assert_eq!(
        m.exports.access.rate_limit("zodiac.calculate_zodiac"),
        RateLimit::parse("50/day").unwrap()
    );
    assert_eq!(
        m.exports.access.rate_limit("zodiac.get_chart_snapshot"),
        RateLimit::Unlimited
    );

    let json = serde_json::to_value(m).unwrap();
    let calc = &json["exports"]["tools"][0];
    assert_eq!(calc["name"], "zodiac.calculate_zodiac");
    assert_eq!(
        calc["input_schema"]["required"],
        serde_json::json!(["birth_date"])
    );
    assert_eq!(
        calc["input_schema"]["properties"]["birth_date"]["format"],
        "date"
    );
    let out = &calc["output_schema"]["properties"];
    assert!(
        out.get("sun_sign").is_some()
            && out.get("moon_sign").is_some()
            && out.get("chart").is_some()
    );
    assert_eq!(json["imports"], serde_json::json!([]));

    let j = serde_json::to_value(Jungastro::manifest()).unwrap();
    assert_eq!(
        j["imports"],
        serde_json::json!([{ "from": "zodiac", "tools": ["zodiac.calculate_zodiac", "zodiac.get_chart_snapshot"], "min_version": "1.0" }])
    );
}

/// When the provider stops exporting a tool, the consumer fails the check.
#[test]
fn a_provider_dropping_an_export_breaks_the_consumer_in_ci() {
    static ZODIAC_V2: PackManifest = PackManifest {
        exports: PackExports {
            api_version: "1.1.0",
            tools: &[ExportedTool::of::<GetChartSnapshot>()],
            access: Access {
                requires_subscription: true,
                free_tools: &["zodiac.get_chart_snapshot"],
                rate_limits: &[],
                rate_limit: RateLimit::Unlimited,
            },
            ..PackExports::NONE
        },
        ..manifest("zodiac", "1.1.0", &[], &[])
    };
    let problems = check_manifests(&[&ZODIAC_V2, Jungastro::manifest()], today());
    assert_eq!(
        problems,
        [PackProblem::ToolNotExported {
            consumer: "jungastro".into(),
            provider: "zodiac".into(),
            tool: "zodiac.calculate_zodiac".into(),
            exported: "zodiac.get_chart_snapshot".into(),
        }]
    );
    assert_eq!(
        problems[0].to_string(),
        "pack `jungastro` imports `zodiac.calculate_zodiac`, which is not in `zodiac.exports.tools` (exported: zodiac.get_chart_snapshot)"
    );
}

#[test]
fn a_missing_provider_is_reported() {
    static CONSUMER: PackManifest = manifest(
        "beta",
        "1.0.0",
        &[],
        &[ImportDecl {
            from: "gamma",
            tools: &["gamma.x"],
            min_version: "1.0",
        }],
    );
    let problems = check_manifests(&[&CONSUMER], today());
    assert_eq!(
        problems,
        [PackProblem::ProviderMissing {
            consumer: "beta".into(),
            provider: "gamma".into()
        }]
    );
}

#[test]
fn versions_follow_semver_compatibility() {
    static ALPHA: PackManifest = manifest("alpha", "1.2.0", &[ExportedTool::of::<AlphaOne>()], &[]);
    static ALPHA_2: PackManifest =
        manifest("alpha", "2.0.0", &[ExportedTool::of::<AlphaOne>()], &[]);
    static NEEDS_1_0: PackManifest = manifest(
        "beta",
        "1.0.0",
        &[],
        &[ImportDecl {
            from: "alpha",
            tools: &["alpha.one"],
            min_version: "1.0",
        }],
    );
    static NEEDS_1_3: PackManifest = manifest(
        "beta",
        "1.0.0",
        &[],
        &[ImportDecl {
            from: "alpha",
            tools: &["alpha.one"],
            min_version: "1.3",
        }],
    );
    static NEEDS_JUNK: PackManifest = manifest(
        "beta",
        "1.0.0",
        &[],
        &[ImportDecl {
            from: "alpha",
            tools: &["alpha.one"],
            min_version: "one",
        }],
    );

    assert!(check_manifests(&[&ALPHA, &NEEDS_1_0], today()).is_empty());
    let above = check_manifests(&[&ALPHA, &NEEDS_1_3], today());
    assert_eq!(
        above,
        [PackProblem::VersionMismatch {
            consumer: "beta".into(),
            provider: "alpha".into(),
            required: "^1.3.0".into(),
            actual: "1.2.0".into(),
        }]
    );
    // A major bump is a breaking change even though 2.0 > 1.0.
    assert_eq!(
        kinds(&check_manifests(&[&ALPHA_2, &NEEDS_1_0], today())),
        ["version_mismatch"]
    );
    let junk = check_manifests(&[&ALPHA, &NEEDS_JUNK], today());
    assert_eq!(kinds(&junk), ["invalid_version"]);
    assert!(
        junk[0].to_string().contains("min_version of `alpha`"),
        "{}",
        junk[0]
    );
}

#[test]
fn cycles_are_reported_with_their_path() {
    static A: PackManifest = manifest(
        "alpha",
        "1.0.0",
        &[ExportedTool::of::<AlphaOne>()],
        &[ImportDecl {
            from: "beta",
            tools: &["beta.one"],
            min_version: "1",
        }],
    );
    static B: PackManifest = manifest(
        "beta",
        "1.0.0",
        &[ExportedTool::of::<BetaOne>()],
        &[ImportDecl {
            from: "gamma",
            tools: &[],
            min_version: "1",
        }],
    );
    static C: PackManifest = manifest(
        "gamma",
        "1.0.0",
        &[],
        &[ImportDecl {
            from: "alpha",
            tools: &["alpha.one"],
            min_version: "1",
        }],
    );
    let problems = check_manifests(&[&C, &B, &A], today());
    assert_eq!(
        problems,
        [PackProblem::DependencyCycle {
            path: vec![
                "alpha".into(),
                "beta".into(),
                "gamma".into(),
                "alpha".into()
            ]
        }]
    );
    assert_eq!(
        problems[0].to_string(),
        "packs import each other in a cycle: alpha -> beta -> gamma -> alpha"
    );

    static SELF: PackManifest = manifest(
        "alpha",
        "1.0.0",
        &[ExportedTool::of::<AlphaOne>()],
        &[ImportDecl {
            from: "alpha",
            tools: &["alpha.one"],
            min_version: "1",
        }],
    );
    assert_eq!(kinds(&check_manifests(&[&SELF], today())), ["self_import"]);
}

#[test]
fn deprecations_need_thirty_days_and_removed_tools_must_not_be_imported() {
    static SHORT: PackManifest = PackManifest {
        exports: PackExports {
            api_version: "1.0.0",
            tools: &[
                ExportedTool::of::<AlphaOne>(),
                ExportedTool::of::<AlphaTwo>(),
            ],
            access: Access::OPEN,
            deprecated: &[Deprecation {
                tool: "alpha.one",
                since: "2026-05-10",
                removal_date: "2026-06-01",
                replacement: Some("alpha.two"),
            }],
        },
        ..manifest("alpha", "1.0.0", &[], &[])
    };
    static CONSUMER: PackManifest = manifest(
        "beta",
        "1.0.0",
        &[],
        &[ImportDecl {
            from: "alpha",
            tools: &["alpha.one"],
            min_version: "1.0",
        }],
    );
    let problems = check_manifests(&[&SHORT, &CONSUMER], today());
    assert_eq!(
        kinds(&problems),
        ["deprecation_window", "import_after_removal"]
    );
    assert_eq!(
        problems[0].to_string(),
        "pack `alpha`: deprecation of `alpha.one` gives callers 22 days (announced 2026-05-10, removed 2026-06-01); at least 30 days are required"
    );
    assert_eq!(
        problems[1].to_string(),
        "pack `beta` still imports `alpha.one` from `alpha`, removed on 2026-06-01; use `alpha.two` instead"
    );
    // Before the removal date the import is fine.
    let before = check_manifests(
        &[&SHORT, &CONSUMER],
        NaiveDate::from_ymd_opt(2026, 5, 31).unwrap(),
    );
    assert_eq!(kinds(&before), ["deprecation_window"]);
}

#[test]
fn every_problem_of_every_pack_is_reported_in_one_run() {
    static ALPHA: PackManifest = PackManifest {
        version: "one",
        exports: PackExports {
            api_version: "1.0.0",
            tools: &[ExportedTool::of::<AlphaOne>()],
            access: Access {
                requires_subscription: true,
                free_tools: &["alpha.two"],
                rate_limits: &[ToolRateLimit {
                    tool: "alpha.one",
                    text: "5/week",
                    limit: RateLimit::Unlimited,
                }],
                rate_limit: RateLimit::Unlimited,
            },
            deprecated: &[Deprecation {
                tool: "alpha.one",
                since: "June",
                removal_date: "2027-01-01",
                replacement: None,
            }],
        },
        ..manifest("alpha", "1.0.0", &[], &[])
    };
    static BETA: PackManifest = manifest(
        "beta",
        "1.0.0",
        &[],
        &[
            ImportDecl {
                from: "alpha",
                tools: &["alpha.two"],
                min_version: "1.0",
            },
            ImportDecl {
                from: "zeta",
                tools: &["zeta.x"],
                min_version: "1.0",
            },
        ],
    );
    static DUP: PackManifest = manifest("beta", "1.0.0", &[], &[]);
    static BAD_ID: PackManifest = manifest("bad id", "1.0.0", &[], &[]);
    let problems = check_manifests(&[&ALPHA, &BETA, &DUP, &BAD_ID], today());
    let mut found = kinds(&problems);
    found.sort();
    assert_eq!(
        found,
        [
            "access_rule_not_exported",
            "deprecation_window",
            "duplicate_pack",
            "invalid_pack_id",
            "invalid_rate_limit",
            "invalid_version",
            "provider_missing",
            "tool_not_exported",
        ],
        "{problems:#?}"
    );
    for p in &problems {
        assert!(!p.pack().is_empty());
    }
}
