//! Checks a parsed skill and resolves its attribute into plain values. Every problem is
//! reported at the span of the token that causes it.

use proc_macro2::Span;
use quote::quote;
use syn::Path;

use crate::ast::{Role, SkillFn};
use crate::attr::{DefaultValue, SkillAttr};
use crate::ctxt::Ctxt;

/// The attribute, checked and with defaults filled in.
pub struct Config {
    pub id: String,
    pub wire_name: String,
    pub name: String,
    pub domain: String,
    pub category: String,
    pub status: String,
    pub version: String,
    pub timeout_ms: Option<u64>,
    pub requires_confirmation: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub krate: Path,
    /// Name of the marker type (defaults to the id in CamelCase).
    pub marker: Option<syn::Ident>,
}

/// Why an id is not a valid tool name, if it is not (mirrors the runtime check).
pub fn id_problem(id: &str) -> Option<String> {
    if id.is_empty() {
        return Some("the id is empty".into());
    }
    if let Some(bad) = id
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Some(format!(
            "`{bad}` is not allowed in a tool name; use letters, digits, `_`, `-`, and `.` between parts (`crm.search_client`)"
        ));
    }
    if id.starts_with('.') || id.ends_with('.') || id.contains("..") {
        return Some("`.` separates non-empty parts, as in `crm.search_client`".into());
    }
    if id.len() > 64 {
        return Some(format!(
            "the id is {} characters long, and its wire name `{}` too; providers accept at most 64",
            id.len(),
            id.replace('.', "_")
        ));
    }
    None
}

fn property_name_problem(name: &str) -> Option<String> {
    if name.is_empty() || name.len() > 64 {
        return Some("argument names must be 1 to 64 characters".into());
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .map(|bad| {
            format!("`{bad}` is not allowed in an argument name; providers accept `[A-Za-z0-9_.-]`")
        })
}

pub fn check(cx: &mut Ctxt, attr: &SkillAttr, skill: &SkillFn, attr_span: Span) -> Config {
    let fn_ident = &skill.item.sig.ident;

    // The id.
    let id = match &attr.id {
        Some(lit) => {
            let id = lit.value.value();
            if let Some(problem) = id_problem(&id) {
                cx.error_spanned_by(&lit.value, format!("invalid skill id `{id}`: {problem}"));
            }
            id
        }
        None => {
            cx.syn_error(syn::Error::new(
                attr_span,
                format!("#[skill] needs an id: `#[skill(id = \"{fn_ident}\")]`"),
            ));
            fn_ident.to_string()
        }
    };

    // Texts the model reads.
    if skill.docs.is_empty() {
        cx.error_spanned_by(
            fn_ident,
            format!(
                "skill `{fn_ident}` has no doc comment; add `/// What the tool does.` above the fn: its first paragraph is the tool description the model reads"
            ),
        );
    }

    let status = match &attr.status {
        Some(lit) => {
            let value = lit.value.value();
            if !matches!(value.as_str(), "active" | "disabled" | "deprecated") {
                cx.error_spanned_by(&lit.value, format!("unknown status `{value}`; expected \"active\", \"disabled\" or \"deprecated\""));
            }
            value
        }
        None => "active".into(),
    };
    let non_empty = |cx: &mut Ctxt,
                     lit: &Option<crate::attr::Spanned<syn::LitStr>>,
                     key: &str,
                     default: &str|
     -> String {
        match lit {
            Some(l) if l.value.value().trim().is_empty() => {
                cx.error_spanned_by(&l.value, format!("`{key}` cannot be empty"));
                default.to_string()
            }
            Some(l) => l.value.value(),
            None => default.to_string(),
        }
    };
    let domain = non_empty(cx, &attr.domain, "domain", "*");
    let category = non_empty(cx, &attr.category, "category", "general");
    let name = non_empty(cx, &attr.name, "name", &id);
    let version = attr
        .version
        .as_ref()
        .map(|v| v.value.value())
        .unwrap_or_default();
    let timeout_ms = attr
        .timeout_ms
        .as_ref()
        .and_then(|t| match t.value.base10_parse::<u64>() {
            Ok(0) => {
                cx.error_spanned_by(&t.value, "`timeout_ms` must be greater than 0");
                None
            }
            Ok(ms) => Some(ms),
            Err(_) => {
                cx.error_spanned_by(
                    &t.value,
                    "`timeout_ms` must be a whole number of milliseconds",
                );
                None
            }
        });

    // Parameters.
    let inputs: Vec<_> = skill
        .params
        .iter()
        .filter(|p| matches!(p.role, Role::Input))
        .collect();
    if inputs.len() > 1 {
        for extra in &inputs[1..] {
            cx.error_spanned_by(
                &extra.ident,
                "only one parameter can be `#[input]`: it carries the whole input",
            );
        }
    }
    let mut seen: Vec<String> = Vec::new();
    for param in &skill.params {
        match param.role {
            Role::Llm => {
                if !inputs.is_empty() {
                    cx.error_spanned_by(
                        &param.ident,
                        format!(
                            "`{}` is a model argument, but `#[input]` already carries the whole input; move it into the input struct or inject it",
                            param.ident
                        ),
                    );
                }
                if param.docs.is_empty() {
                    cx.error_spanned_by(
                        &param.ident,
                        format!(
                            "argument `{}` has no description; add a `///` doc comment above it: the model reads it to fill the argument in",
                            param.ident
                        ),
                    );
                }
                let wire = param.wire_name();
                if let Some(rename) = &param.arg.rename {
                    if let Some(problem) = property_name_problem(&wire) {
                        cx.error_spanned_by(&rename.value, problem);
                    }
                }
                if seen.contains(&wire) {
                    cx.error_spanned_by(
                        &param.ident,
                        format!("two arguments are named `{wire}` on the wire"),
                    );
                }
                seen.push(wire);
                if param.optional {
                    if let Some(d) = &param.arg.default {
                        cx.syn_error(syn::Error::new(
                            d.span,
                            "`Option<T>` is already optional (missing means `None`); remove `default` or drop the `Option`",
                        ));
                    }
                }
                if let Some(d) = &param.arg.default {
                    if let DefaultValue::Expr(expr) = &d.value {
                        let _ = quote!(#expr);
                    }
                }
            }
            Role::Inject => {
                if let Some(span) = param.arg.spans.first() {
                    cx.syn_error(syn::Error::new(
                        *span,
                        format!(
                            "`{}` is injected from the SkillContext and never seen by the model; `#[arg]` does not apply to it",
                            param.ident
                        ),
                    ));
                }
                if let Some(span) = param.doc_span {
                    cx.syn_error(syn::Error::new(
                        span,
                        format!(
                            "`{}` is injected from the SkillContext and never shown to the model, so this doc comment would be lost; use a `//` comment",
                            param.ident
                        ),
                    ));
                }
                if let (Some(_), Some(input)) = (param.inject_marker, param.input_marker) {
                    cx.syn_error(syn::Error::new(
                        input,
                        "a parameter is either `#[input]` or `#[inject]`, not both",
                    ));
                }
            }
            Role::Input => {
                if let Some(span) = param.arg.spans.first() {
                    cx.syn_error(syn::Error::new(
                        *span,
                        "`#[arg]` does not apply to an `#[input]` struct; put serde/schemars attributes on its fields",
                    ));
                }
            }
        }
    }

    let krate = attr
        .krate
        .as_ref()
        .map(|k| k.value.clone())
        .unwrap_or_else(|| syn::parse_quote!(::skill_core));
    let marker =
        attr.marker
            .as_ref()
            .and_then(|m| match syn::parse_str::<syn::Ident>(&m.value.value()) {
                Ok(ident) => Some(syn::Ident::new(&ident.to_string(), m.value.span())),
                Err(_) => {
                    cx.error_spanned_by(
                        &m.value,
                        "`marker` must be a type name, e.g. \"SearchClients\"",
                    );
                    None
                }
            });
    Config {
        marker,
        wire_name: id.replace('.', "_"),
        id,
        name,
        domain,
        category,
        status,
        version,
        timeout_ms,
        requires_confirmation: attr.requires_confirmation.as_ref().map(|b| b.value.value),
        idempotent: attr.idempotent.as_ref().map(|b| b.value.value),
        open_world: attr.open_world.as_ref().map(|b| b.value.value),
        krate,
    }
}
