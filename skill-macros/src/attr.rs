//! Parses `#[skill(...)]` and the parameter attributes `#[arg(...)]`, `#[input]`, `#[inject]`.
//! Unknown and repeated keys are reported at their own span; parsing goes on after a problem.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Expr, Lit, LitBool, LitInt, LitStr, Path};

use crate::ctxt::Ctxt;

/// One `key = value` with the span of its key, for diagnostics.
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// The keys of `#[skill(...)]`.
#[derive(Default)]
pub struct SkillAttr {
    pub id: Option<Spanned<LitStr>>,
    pub name: Option<Spanned<LitStr>>,
    pub domain: Option<Spanned<LitStr>>,
    pub category: Option<Spanned<LitStr>>,
    pub status: Option<Spanned<LitStr>>,
    pub version: Option<Spanned<LitStr>>,
    pub timeout_ms: Option<Spanned<LitInt>>,
    pub requires_confirmation: Option<Spanned<LitBool>>,
    pub idempotent: Option<Spanned<LitBool>>,
    pub open_world: Option<Spanned<LitBool>>,
    pub krate: Option<Spanned<Path>>,
    pub marker: Option<Spanned<LitStr>>,
}

const SKILL_KEYS: &str = "id, name, domain, category, status, version, timeout_ms, requires_confirmation, idempotent, open_world, marker, crate";

fn set<T>(
    cx: &mut Ctxt,
    slot: &mut Option<Spanned<T>>,
    meta: &ParseNestedMeta,
    key: &str,
    value: T,
) {
    if slot.is_some() {
        cx.error_spanned_by(&meta.path, format!("`{key}` is given twice; keep one"));
    } else {
        *slot = Some(Spanned {
            value,
            span: meta.path.segments[0].ident.span(),
        });
    }
}

fn parse_value<T: syn::parse::Parse>(
    meta: &ParseNestedMeta,
    key: &str,
    what: &str,
) -> syn::Result<T> {
    let stream = meta
        .value()
        .map_err(|_| meta.error(format!("`{key}` needs a value: `{key} = {what}`")))?;
    let expr: Expr = stream.parse()?;
    syn::parse2::<T>(quote::quote!(#expr))
        .map_err(|_| syn::Error::new_spanned(&expr, format!("`{key}` takes {what}")))
}

impl SkillAttr {
    /// Parses the attribute's arguments; problems go to `cx`.
    pub fn parse(cx: &mut Ctxt, args: proc_macro2::TokenStream) -> SkillAttr {
        let mut attr = SkillAttr::default();
        let parser = syn::meta::parser(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            let result: syn::Result<()> = (|| {
                match key.as_str() {
                    "id" => set(
                        cx,
                        &mut attr.id,
                        &meta,
                        "id",
                        parse_value(&meta, "id", "a string literal")?,
                    ),
                    "name" => set(
                        cx,
                        &mut attr.name,
                        &meta,
                        "name",
                        parse_value(&meta, "name", "a string literal")?,
                    ),
                    "domain" => set(
                        cx,
                        &mut attr.domain,
                        &meta,
                        "domain",
                        parse_value(&meta, "domain", "a string literal")?,
                    ),
                    "category" => set(
                        cx,
                        &mut attr.category,
                        &meta,
                        "category",
                        parse_value(&meta, "category", "a string literal")?,
                    ),
                    "status" => set(
                        cx,
                        &mut attr.status,
                        &meta,
                        "status",
                        parse_value(
                            &meta,
                            "status",
                            "\"active\", \"disabled\" or \"deprecated\"",
                        )?,
                    ),
                    "version" => set(
                        cx,
                        &mut attr.version,
                        &meta,
                        "version",
                        parse_value(&meta, "version", "a string literal")?,
                    ),
                    "timeout_ms" => set(
                        cx,
                        &mut attr.timeout_ms,
                        &meta,
                        "timeout_ms",
                        parse_value(&meta, "timeout_ms", "an integer number of milliseconds")?,
                    ),
                    "requires_confirmation" => set(
                        cx,
                        &mut attr.requires_confirmation,
                        &meta,
                        "requires_confirmation",
                        parse_value(&meta, "requires_confirmation", "`true` or `false`")?,
                    ),
                    "idempotent" => set(
                        cx,
                        &mut attr.idempotent,
                        &meta,
                        "idempotent",
                        parse_value(&meta, "idempotent", "`true` or `false`")?,
                    ),
                    "open_world" => set(
                        cx,
                        &mut attr.open_world,
                        &meta,
                        "open_world",
                        parse_value(&meta, "open_world", "`true` or `false`")?,
                    ),
                    "marker" => set(
                        cx,
                        &mut attr.marker,
                        &meta,
                        "marker",
                        parse_value(
                            &meta,
                            "marker",
                            "a type name in a string, e.g. \"SearchClients\"",
                        )?,
                    ),
                    "crate" => {
                        let lit: LitStr = parse_value(
                            &meta,
                            "crate",
                            "a path in a string, e.g. \"::skill_core\"",
                        )?;
                        let path: Path = lit.parse().map_err(|_| {
                            syn::Error::new_spanned(
                                &lit,
                                "`crate` must name a path, e.g. \"::skill_core\"",
                            )
                        })?;
                        set(cx, &mut attr.krate, &meta, "crate", path)
                    }
                    _ => {
                        cx.error_spanned_by(
                            &meta.path,
                            format!(
                                "unknown key `{}` in #[skill]; expected one of: {SKILL_KEYS}",
                                path_text(&meta.path)
                            ),
                        );
                        skip_value(&meta)?;
                    }
                }
                Ok(())
            })();
            if let Err(err) = result {
                cx.syn_error(err);
            }
            Ok(())
        });
        if let Err(err) = syn::parse::Parser::parse2(parser, args) {
            cx.syn_error(err);
        }
        attr
    }
}

fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

fn path_text(path: &Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// `#[arg(default)]` or `#[arg(default = expr)]`.
pub enum DefaultValue {
    Trait,
    Expr(Expr),
}

/// The keys of `#[arg(...)]` on one parameter.
#[derive(Default)]
pub struct ArgAttr {
    pub default: Option<Spanned<DefaultValue>>,
    pub prepare: Option<Spanned<Path>>,
    pub rename: Option<Spanned<LitStr>>,
    pub example: Option<Spanned<Expr>>,
    pub kind: Option<Spanned<LitStr>>,
    pub case_sensitive: Option<Spanned<LitBool>>,
    /// Spans of `#[arg]` attributes (for "not allowed here" errors).
    pub spans: Vec<Span>,
}

const ARG_KEYS: &str = "default, prepare, rename, example, kind, case_sensitive";

/// Value kinds accepted by `#[arg(kind = "...")]`.
pub const KINDS: &[&str] = &[
    "string",
    "boolean",
    "integer",
    "number",
    "json_object",
    "json_array",
    "timestamp",
    "uri",
    "enum_token",
    "attachment_reference",
];

impl ArgAttr {
    /// Merges one `#[arg(...)]` attribute into `self`.
    pub fn parse_into(&mut self, cx: &mut Ctxt, attr: &syn::Attribute) {
        self.spans.push(attr.path().segments[0].ident.span());
        let result = attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
            let result: syn::Result<()> = (|| {
                match key.as_str() {
                    "default" => {
                        let value = if meta.input.peek(syn::Token![=]) {
                            DefaultValue::Expr(meta.value()?.parse()?)
                        } else {
                            DefaultValue::Trait
                        };
                        set(cx, &mut self.default, &meta, "default", value)
                    }
                    "prepare" => {
                        let expr: Expr = meta
                            .value()
                            .map_err(|_| meta.error("`prepare` needs a function: `prepare = path::to::fn`"))?
                            .parse()?;
                        let path = match expr {
                            Expr::Path(p) => p.path,
                            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => s.parse()?,
                            other => return Err(syn::Error::new_spanned(other, "`prepare` takes the path of a `fn(&SkillContext) -> Result<T, SkillError>`")),
                        };
                        set(cx, &mut self.prepare, &meta, "prepare", path)
                    }
                    "rename" => set(cx, &mut self.rename, &meta, "rename", parse_value(&meta, "rename", "a string literal")?),
                    "example" => {
                        let expr: Expr = meta.value().map_err(|_| meta.error("`example` needs a value: `example = ...`"))?.parse()?;
                        set(cx, &mut self.example, &meta, "example", expr)
                    }
                    "kind" => {
                        let lit: LitStr = parse_value(&meta, "kind", "a string literal")?;
                        if !KINDS.contains(&lit.value().as_str()) {
                            cx.error_spanned_by(&lit, format!("unknown kind `{}`; expected one of: {}", lit.value(), KINDS.join(", ")));
                        }
                        set(cx, &mut self.kind, &meta, "kind", lit)
                    }
                    "case_sensitive" => set(cx, &mut self.case_sensitive, &meta, "case_sensitive", parse_value(&meta, "case_sensitive", "`true` or `false`")?),
                    _ => {
                        cx.error_spanned_by(&meta.path, format!("unknown key `{}` in #[arg]; expected one of: {ARG_KEYS}", path_text(&meta.path)));
                        skip_value(&meta)?;
                    }
                }
                Ok(())
            })();
            if let Err(err) = result {
                cx.syn_error(err);
            }
            Ok(())
        });
        if let Err(err) = result {
            cx.syn_error(err);
        }
    }
}
