//! Hand-written manifests for contract checks, and how problems are compared.

use chrono::NaiveDate;
use toolwright_packs::{Access, ExportedTool, ImportDecl, PackExports, PackManifest, PackProblem};

pub(crate) fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 7, 1).unwrap()
}

pub(crate) const fn manifest(
    id: &'static str,
    api_version: &'static str,
    tools: &'static [ExportedTool],
    imports: &'static [ImportDecl],
) -> PackManifest {
    PackManifest {
        id,
        name: id,
        version: "1.0.0",
        exports: PackExports {
            api_version,
            tools,
            access: Access::OPEN,
            deprecated: &[],
        },
        imports,
        type_name: id,
    }
}

pub(crate) fn kinds(problems: &[PackProblem]) -> Vec<String> {
    problems
        .iter()
        .map(|p| {
            serde_json::to_value(p).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}
