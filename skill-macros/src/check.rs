//! Checks a parsed skill and resolves its attribute into plain values. Each rule is one
//! `check_*` fn; every problem is reported at the span of the token that causes it.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::Path;

use crate::ast::{Param, Role, SkillFn};
use crate::attr::{SkillAttr, Spanned};
use crate::ctxt::Ctxt;
use crate::rules;

/// `#[skill(status = "...")]`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Active,
    Disabled,
    Deprecated,
}

impl Status {
    fn from_name(name: &str) -> Option<Status> {
        let [active, disabled, deprecated] = rules::STATUS_NAMES;
        match name {
            n if n == active => Some(Status::Active),
            n if n == disabled => Some(Status::Disabled),
            n if n == deprecated => Some(Status::Deprecated),
            _ => None,
        }
    }
}

/// The attribute, checked and with defaults filled in.
pub struct Config {
    pub id: String,
    /// Where the id is written, when it is given and valid: the id's `const` is spanned
    /// there, so a second declaration of the id is reported at it.
    pub id_span: Option<Span>,
    pub wire_name: String,
    pub name: String,
    pub domain: String,
    pub category: String,
    pub status: Status,
    pub version: String,
    pub timeout_ms: Option<u64>,
    pub requires_confirmation: Option<bool>,
    /// `confirm = "..."`: the sentence a pending confirmation shows, with `{argument}`s.
    pub confirm: Option<String>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    /// Whether the skill is linked into every `Dispatcher::from_inventory()` (`register`,
    /// default `true`); when `false` a host adds it to its own dispatcher by hand.
    pub register: bool,
    pub krate: Path,
    /// Name of the marker type given by `marker = "..."` (by default the fn's name in
    /// CamelCase).
    pub marker: Option<syn::Ident>,
    /// Whether the marker's name can be used: `false` when it is the output type's (the
    /// error is reported; no type of that name is generated).
    pub marker_usable: bool,
}

/// The path of toolwright in generated code: `crate = "..."`, else [`default_crate_path`].
pub fn crate_path(attr: &SkillAttr) -> Path {
    attr.krate
        .as_ref()
        .map(|k| k.value.clone())
        .unwrap_or_else(default_crate_path)
}

/// The name the calling crate's Cargo.toml gives the `toolwright` package (a renamed
/// dependency works as it is), else `::toolwright` (toolwright's own tests and examples, or
/// a crate that cannot be read).
pub fn default_crate_path() -> Path {
    match proc_macro_crate::crate_name("toolwright") {
        Ok(proc_macro_crate::FoundCrate::Name(name)) if name != "toolwright" => {
            let ident = syn::Ident::new(&name, proc_macro2::Span::call_site());
            syn::parse_quote!(::#ident)
        }
        _ => syn::parse_quote!(::toolwright),
    }
}

pub fn check(cx: &mut Ctxt, attr: &SkillAttr, skill: &SkillFn, attr_span: Span) -> Config {
    let (id, id_span) = check_id(cx, attr, skill, attr_span);
    check_fn_docs(cx, skill);
    let status = check_status(cx, attr);
    let domain = check_non_empty(cx, &attr.domain, "domain", "*");
    let category = check_non_empty(cx, &attr.category, "category", "general");
    let name = check_non_empty(cx, &attr.name, "name", &id);
    let timeout_ms = check_timeout(cx, attr);
    check_params(cx, skill);
    let confirm = check_confirm(cx, attr, skill);
    let (marker, marker_usable) = check_marker(cx, attr, skill);
    Config {
        marker,
        marker_usable,
        wire_name: id.replace('.', "_"),
        id,
        id_span,
        name,
        domain,
        category,
        status,
        version: attr
            .version
            .as_ref()
            .map(|v| v.value.value())
            .unwrap_or_default(),
        timeout_ms,
        requires_confirmation: attr.requires_confirmation.as_ref().map(|b| b.value.value),
        confirm,
        idempotent: attr.idempotent.as_ref().map(|b| b.value.value),
        open_world: attr.open_world.as_ref().map(|b| b.value.value),
        register: attr.register.as_ref().is_none_or(|b| b.value.value),
        krate: crate_path(attr),
    }
}

/// The id is given and is a valid tool name (the runtime's own rule, `rules::id_problem`).
/// Returns the id, and its span when it is given and valid.
fn check_id(
    cx: &mut Ctxt,
    attr: &SkillAttr,
    skill: &SkillFn,
    attr_span: Span,
) -> (String, Option<Span>) {
    let fn_ident = &skill.item.sig.ident;
    match &attr.id {
        Some(lit) => {
            let id = lit.value.value();
            match rules::id_problem(&id) {
                Some(problem) => {
                    cx.error_spanned_by(&lit.value, format!("invalid skill id `{id}`: {problem}"));
                    (id, None)
                }
                None => (id, Some(lit.value.span())),
            }
        }
        None => {
            cx.syn_error(syn::Error::new(
                attr_span,
                format!("#[skill] needs an id: `#[skill(id = \"{fn_ident}\")]`"),
            ));
            (fn_ident.to_string(), None)
        }
    }
}

/// The fn has a doc comment: its first paragraph is the tool description.
fn check_fn_docs(cx: &mut Ctxt, skill: &SkillFn) {
    let fn_ident = &skill.item.sig.ident;
    if skill.docs.is_empty() {
        cx.error_spanned_by(
            fn_ident,
            format!(
                "skill `{fn_ident}` has no doc comment; add `/// What the tool does.` above the fn: its first paragraph is the tool description the model reads"
            ),
        );
    }
}

fn check_status(cx: &mut Ctxt, attr: &SkillAttr) -> Status {
    let Some(lit) = &attr.status else {
        return Status::Active;
    };
    let value = lit.value.value();
    Status::from_name(&value).unwrap_or_else(|| {
        let message = match rules::closest(&value, rules::STATUS_NAMES) {
            Some(close) => format!("unknown status `{value}`; did you mean \"{close}\"?"),
            None => format!(
                "unknown status `{value}`; expected \"active\", \"disabled\" or \"deprecated\""
            ),
        };
        cx.error_spanned_by(&lit.value, message);
        Status::Active
    })
}

fn check_non_empty(
    cx: &mut Ctxt,
    lit: &Option<Spanned<syn::LitStr>>,
    key: &str,
    default: &str,
) -> String {
    match lit {
        Some(l) if l.value.value().trim().is_empty() => {
            cx.error_spanned_by(&l.value, format!("`{key}` cannot be empty"));
            default.to_string()
        }
        Some(l) => l.value.value(),
        None => default.to_string(),
    }
}

fn check_timeout(cx: &mut Ctxt, attr: &SkillAttr) -> Option<u64> {
    let t = attr.timeout_ms.as_ref()?;
    match t.value.base10_parse::<u64>() {
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
    }
}

fn check_params(cx: &mut Ctxt, skill: &SkillFn) {
    let inputs: Vec<_> = skill
        .params
        .iter()
        .filter(|p| matches!(p.role, Role::Input))
        .collect();
    for extra in inputs.iter().skip(1) {
        cx.error_spanned_by(
            &extra.ident,
            "only one parameter can be `#[input]`: it carries the whole input",
        );
    }
    let mut seen: Vec<String> = Vec::new();
    for param in &skill.params {
        match param.role {
            Role::Llm => {
                check_model_arg(cx, param, !inputs.is_empty());
                let wire = param.wire_name();
                if seen.contains(&wire) {
                    cx.error_spanned_by(
                        &param.ident,
                        format!("two arguments are named `{wire}` on the wire"),
                    );
                }
                seen.push(wire);
            }
            Role::Inject => check_injected_arg(cx, param),
            Role::Input => check_input_arg(cx, param),
        }
    }
}

/// A model argument: documented, named validly on the wire, optional in one way only.
fn check_model_arg(cx: &mut Ctxt, param: &Param, has_whole_input: bool) {
    if has_whole_input {
        cx.error_spanned_by(
            &param.ident,
            format!(
                "`{}` is a model argument, but `#[input]` already carries the whole input; move it into the input struct or inject it",
                param.ident
            ),
        );
    }
    if param.docs.is_empty() {
        let ident = &param.ident;
        let message = match state_like_type(&param.ty) {
            Some(ty) => format!(
                "argument `{ident}` has no description; if `{ident}` is host state the model never sees, did you mean `{ident}: Inject<{ty}>`? Otherwise add a `///` doc comment above it: the model reads it to fill the argument in"
            ),
            None => format!(
                "argument `{ident}` has no description; add a `///` doc comment above it: the model reads it to fill the argument in"
            ),
        };
        cx.error_spanned_by(ident, message);
    }
    if let Some(rename) = &param.arg.rename {
        if let Some(problem) = rules::argument_name_problem(&param.wire_name()) {
            cx.error_spanned_by(&rename.value, problem);
        }
    }
    if param.optional {
        if let Some(d) = &param.arg.default {
            cx.syn_error(syn::Error::new(
                d.span,
                "`Option<T>` is already optional (missing means `None`); remove `default` or drop the `Option`",
            ));
        }
    }
}

/// The name of a type that looks like host state rather than a value the model writes:
/// a plain named type that is not one of the standard value types.
fn state_like_type(ty: &syn::Type) -> Option<String> {
    const VALUES: &[&str] = &[
        "String",
        "Vec",
        "Option",
        "HashMap",
        "BTreeMap",
        "HashSet",
        "BTreeSet",
        "Value",
        "Box",
        "Cow",
        "bool",
        "char",
        "f32",
        "f64",
        "i8",
        "i16",
        "i32",
        "i64",
        "i128",
        "isize",
        "u8",
        "u16",
        "u32",
        "u64",
        "u128",
        "usize",
        "DateTime",
        "NaiveDate",
        "Url",
    ];
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let name = last.ident.to_string();
    if VALUES.contains(&name.as_str()) || !name.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    let ty = quote::quote!(#ty).to_string().replace(' ', "");
    Some(ty)
}

/// An injected parameter carries no `#[arg]` and no doc comment (the model never sees it).
fn check_injected_arg(cx: &mut Ctxt, param: &Param) {
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

fn check_input_arg(cx: &mut Ctxt, param: &Param) {
    if let Some(span) = param.arg.spans.first() {
        cx.syn_error(syn::Error::new(
            *span,
            "`#[arg]` does not apply to an `#[input]` struct; put serde/schemars attributes on its fields",
        ));
    }
}

/// `confirm = "Delete task {id}"`: every `{name}` is a model argument of this skill.
fn check_confirm(cx: &mut Ctxt, attr: &SkillAttr, skill: &SkillFn) -> Option<String> {
    let lit = &attr.confirm.as_ref()?.value;
    let text = lit.value();
    if text.trim().is_empty() {
        cx.error_spanned_by(
            lit,
            "`confirm` cannot be empty: it is the sentence the user confirms",
        );
        return None;
    }
    let names: Vec<String> = skill
        .params
        .iter()
        .filter(|p| matches!(p.role, Role::Llm))
        .map(Param::wire_name)
        .collect();
    let whole_input = skill.params.iter().any(|p| matches!(p.role, Role::Input));
    let mut rest = text.as_str();
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            cx.error_spanned_by(lit, "`confirm` has a `{` without its `}`");
            return None;
        };
        let name = &after[..close];
        if !whole_input && !names.iter().any(|n| n == name) {
            let message = match rules::closest(name, names.iter().map(String::as_str)) {
                Some(close) => format!(
                    "`confirm` names `{{{name}}}`, which is not an argument of this skill; did you mean `{{{close}}}`?"
                ),
                None => format!(
                    "`confirm` names `{{{name}}}`, which is not an argument of this skill; arguments: {}",
                    names.join(", ")
                ),
            };
            cx.error_spanned_by(lit, message);
        }
        rest = &after[close + 1..];
    }
    Some(text)
}

/// `marker = "..."` is a type name; without it, the fn's name gives one in CamelCase, which
/// must not be the output type's. Returns the given name and whether the name is usable.
fn check_marker(cx: &mut Ctxt, attr: &SkillAttr, skill: &SkillFn) -> (Option<syn::Ident>, bool) {
    let Some(m) = attr.marker.as_ref() else {
        let fn_ident = &skill.item.sig.ident;
        let marker = crate::expand::camel_case(&fn_ident.unraw().to_string());
        if syn::parse_str::<syn::Ident>(&marker).is_err() {
            cx.error_spanned_by(
                fn_ident,
                format!("`fn {fn_ident}` gives no type name for the skill's marker; name one with `marker = \"...\"`"),
            );
        } else if output_named(&skill.output.ty, &marker) {
            // `fn word_stats() -> WordStats`: the marker would be defined over the output type.
            cx.error_spanned_by(
                &skill.output.ty,
                format!("the output type is named `{marker}`, the name of the marker `#[skill]` generates for `fn {fn_ident}`; name the fn for what it does (`fn count_words() -> WordStats`), or the marker: `#[skill(id = ..., marker = \"{marker}Skill\")]`"),
            );
            return (None, false);
        }
        return (None, true);
    };
    match syn::parse_str::<syn::Ident>(&m.value.value()) {
        Ok(ident) => (
            Some(syn::Ident::new(&ident.to_string(), m.value.span())),
            true,
        ),
        Err(_) => {
            cx.error_spanned_by(
                &m.value,
                "`marker` must be a type name, e.g. \"SearchClients\"",
            );
            (None, false)
        }
    }
}

/// Whether `ty` is the bare type name `name` (`WordStats`, `WordStats<T>`): a type of the
/// fn's own module, where the marker would be defined too (`models::WordStats` is not).
fn output_named(ty: &syn::Type, name: &str) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.leading_colon.is_none()
        && p.path.segments.len() == 1
        && p.path.segments[0].ident == name)
}
