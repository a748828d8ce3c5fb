//! Parses `#[skill(...)]` and the parameter attribute `#[arg(...)]`. Each key is read once
//! into a [`SkillKey`] / [`ArgKey`]; an unknown key is reported at its own span with the
//! closest known key ("did you mean"), a repeated one at its second use, and parsing goes on
//! after a problem so every mistake shows up in one build.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Expr, Lit, LitBool, LitInt, LitStr, Path};

use crate::ctxt::Ctxt;
use crate::rules;

/// One `key = value` with the span of its key, for diagnostics.
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// Declares a key enum with its spelling in the attribute.
macro_rules! keys {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($variant,)* }

        impl $name {
            /// Every key, in the order the docs list them.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The key as written in the attribute.
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }

            fn from_ident(ident: &str) -> Option<$name> {
                match ident { $($text => Some($name::$variant),)* _ => None }
            }
        }
    };
}

keys! {
    /// The keys of `#[skill(...)]`.
    SkillKey {
        Id = "id",
        Name = "name",
        Domain = "domain",
        Category = "category",
        Status = "status",
        Version = "version",
        TimeoutMs = "timeout_ms",
        RequiresConfirmation = "requires_confirmation",
        Confirm = "confirm",
        Idempotent = "idempotent",
        OpenWorld = "open_world",
        Marker = "marker",
        Crate = "crate",
        Register = "register",
    }
}

keys! {
    /// The keys of `#[arg(...)]`.
    ArgKey {
        Default = "default",
        Prepare = "prepare",
        Rename = "rename",
        Example = "example",
        Kind = "kind",
        CaseSensitive = "case_sensitive",
    }
}

/// The parsed `#[skill(...)]`.
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
    pub confirm: Option<Spanned<LitStr>>,
    pub idempotent: Option<Spanned<LitBool>>,
    pub open_world: Option<Spanned<LitBool>>,
    pub krate: Option<Spanned<Path>>,
    pub marker: Option<Spanned<LitStr>>,
    pub register: Option<Spanned<LitBool>>,
}

fn set<T>(cx: &mut Ctxt, slot: &mut Option<Spanned<T>>, meta: &ParseNestedMeta, value: T) {
    if slot.is_some() {
        cx.error_spanned_by(
            &meta.path,
            format!("`{}` is given twice; keep one", path_text(&meta.path)),
        );
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

/// Reports an unknown key with the closest known one, then skips its value.
fn unknown_key(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta,
    attr: &str,
    known: &[&'static str],
) -> syn::Result<()> {
    let text = path_text(&meta.path);
    let about_docs = rules::closest(&text, ["description", "desc", "doc", "docs", "help"]);
    let message = match rules::closest(&text, known.iter().copied()) {
        None if about_docs.is_some() => format!(
            "unknown key `{text}` in #[{attr}]; the description is the doc comment: write `/// ...` above the {}",
            if attr == "skill" { "fn" } else { "parameter" }
        ),
        Some(close) => format!("unknown key `{text}` in #[{attr}]; did you mean `{close}`?"),
        None => format!(
            "unknown key `{text}` in #[{attr}]; expected one of: {}",
            known.join(", ")
        ),
    };
    cx.error_spanned_by(&meta.path, message);
    skip_value(meta)
}

/// Runs `each` on every `key = value` of an attribute; errors go to `cx`, parsing goes on.
fn parse_keys<F>(cx: &mut Ctxt, meta: ParseNestedMeta, mut each: F) -> syn::Result<()>
where
    F: FnMut(&mut Ctxt, &ParseNestedMeta, &str) -> syn::Result<()>,
{
    let key = meta
        .path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_default();
    if let Err(err) = each(cx, &meta, &key) {
        cx.syn_error(err);
    }
    Ok(())
}

impl SkillAttr {
    /// Parses the attribute's arguments; problems go to `cx`.
    pub fn parse(cx: &mut Ctxt, args: proc_macro2::TokenStream) -> SkillAttr {
        let mut attr = SkillAttr::default();
        let mut errors = Ctxt::default();
        let parser = syn::meta::parser(|meta| {
            parse_keys(&mut errors, meta, |cx, meta, key| {
                attr.parse_key(cx, meta, key)
            })
        });
        if let Err(err) = syn::parse::Parser::parse2(parser, args) {
            errors.syn_error(err);
        }
        cx.append(errors);
        attr
    }

    fn parse_key(&mut self, cx: &mut Ctxt, meta: &ParseNestedMeta, key: &str) -> syn::Result<()> {
        const TEXT: &str = "a string literal";
        const BOOL: &str = "`true` or `false`";
        let Some(key) = SkillKey::from_ident(key) else {
            let known: Vec<&str> = SkillKey::ALL.iter().map(|k| k.as_str()).collect();
            return unknown_key(cx, meta, "skill", &known);
        };
        let k = key.as_str();
        match key {
            SkillKey::Id => set(cx, &mut self.id, meta, parse_value(meta, k, TEXT)?),
            SkillKey::Name => set(cx, &mut self.name, meta, parse_value(meta, k, TEXT)?),
            SkillKey::Domain => set(cx, &mut self.domain, meta, parse_value(meta, k, TEXT)?),
            SkillKey::Category => set(cx, &mut self.category, meta, parse_value(meta, k, TEXT)?),
            SkillKey::Version => set(cx, &mut self.version, meta, parse_value(meta, k, TEXT)?),
            SkillKey::Status => {
                let what = "\"active\", \"disabled\" or \"deprecated\"";
                set(cx, &mut self.status, meta, parse_value(meta, k, what)?)
            }
            SkillKey::TimeoutMs => {
                let what = "an integer number of milliseconds";
                set(cx, &mut self.timeout_ms, meta, parse_value(meta, k, what)?)
            }
            SkillKey::RequiresConfirmation => set(
                cx,
                &mut self.requires_confirmation,
                meta,
                parse_value(meta, k, BOOL)?,
            ),
            SkillKey::Confirm => {
                let what = "a sentence with `{argument}` placeholders, e.g. \"Delete task {id}\"";
                set(cx, &mut self.confirm, meta, parse_value(meta, k, what)?)
            }
            SkillKey::Idempotent => {
                set(cx, &mut self.idempotent, meta, parse_value(meta, k, BOOL)?)
            }
            SkillKey::OpenWorld => set(cx, &mut self.open_world, meta, parse_value(meta, k, BOOL)?),
            SkillKey::Register => set(cx, &mut self.register, meta, parse_value(meta, k, BOOL)?),
            SkillKey::Marker => {
                let what = "a type name in a string, e.g. \"SearchClients\"";
                set(cx, &mut self.marker, meta, parse_value(meta, k, what)?)
            }
            SkillKey::Crate => {
                let lit: LitStr =
                    parse_value(meta, k, "a path in a string, e.g. \"::toolwright\"")?;
                let path: Path = lit.parse().map_err(|_| {
                    syn::Error::new_spanned(&lit, "`crate` must name a path, e.g. \"::toolwright\"")
                })?;
                set(cx, &mut self.krate, meta, path)
            }
        }
        Ok(())
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

impl ArgAttr {
    /// Merges one `#[arg(...)]` attribute into `self`.
    pub fn parse_into(&mut self, cx: &mut Ctxt, attr: &syn::Attribute) {
        self.spans.push(attr.path().segments[0].ident.span());
        let mut errors = Ctxt::default();
        let result = attr.parse_nested_meta(|meta| {
            parse_keys(&mut errors, meta, |cx, meta, key| {
                self.parse_key(cx, meta, key)
            })
        });
        if let Err(err) = result {
            errors.syn_error(err);
        }
        cx.append(errors);
    }

    fn parse_key(&mut self, cx: &mut Ctxt, meta: &ParseNestedMeta, key: &str) -> syn::Result<()> {
        let Some(key) = ArgKey::from_ident(key) else {
            let known: Vec<&str> = ArgKey::ALL.iter().map(|k| k.as_str()).collect();
            return unknown_key(cx, meta, "arg", &known);
        };
        let k = key.as_str();
        match key {
            ArgKey::Default => {
                let value = if meta.input.peek(syn::Token![=]) {
                    DefaultValue::Expr(meta.value()?.parse()?)
                } else {
                    DefaultValue::Trait
                };
                set(cx, &mut self.default, meta, value)
            }
            ArgKey::Prepare => {
                let expr: Expr = meta
                    .value()
                    .map_err(|_| {
                        meta.error("`prepare` needs a function: `prepare = path::to::fn`")
                    })?
                    .parse()?;
                let path = match expr {
                    Expr::Path(p) => p.path,
                    Expr::Lit(syn::ExprLit {
                        lit: Lit::Str(s), ..
                    }) => s.parse()?,
                    other => {
                        return Err(syn::Error::new_spanned(
                            other,
                            "`prepare` takes the path of a `fn(&SkillContext) -> Result<T, SkillError>`",
                        ))
                    }
                };
                set(cx, &mut self.prepare, meta, path)
            }
            ArgKey::Rename => set(
                cx,
                &mut self.rename,
                meta,
                parse_value(meta, k, "a string literal")?,
            ),
            ArgKey::Example => {
                let expr: Expr = meta
                    .value()
                    .map_err(|_| meta.error("`example` needs a value: `example = ...`"))?
                    .parse()?;
                set(cx, &mut self.example, meta, expr)
            }
            ArgKey::Kind => {
                let lit: LitStr = parse_value(meta, k, "a string literal")?;
                let value = lit.value();
                if !rules::KIND_NAMES.contains(&value.as_str()) {
                    let message = match rules::closest(&value, rules::KIND_NAMES) {
                        Some(close) => format!("unknown kind `{value}`; did you mean `{close}`?"),
                        None => format!(
                            "unknown kind `{value}`; expected one of: {}",
                            rules::KIND_NAMES.join(", ")
                        ),
                    };
                    cx.error_spanned_by(&lit, message);
                }
                set(cx, &mut self.kind, meta, lit)
            }
            ArgKey::CaseSensitive => set(
                cx,
                &mut self.case_sensitive,
                meta,
                parse_value(meta, k, "`true` or `false`")?,
            ),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_reads_back_as_itself() {
        for key in SkillKey::ALL {
            assert_eq!(SkillKey::from_ident(key.as_str()), Some(*key));
        }
        for key in ArgKey::ALL {
            assert_eq!(ArgKey::from_ident(key.as_str()), Some(*key));
        }
        assert_eq!(ArgKey::from_ident("defualt"), None);
    }

    #[test]
    fn unknown_keys_get_the_closest_known_one() {
        let keys: Vec<&str> = SkillKey::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(
            rules::closest("timout_ms", keys.iter().copied()),
            Some("timeout_ms")
        );
        assert_eq!(
            rules::closest("idempotnet", keys.iter().copied()),
            Some("idempotent")
        );
        assert_eq!(rules::closest("colour", keys.iter().copied()), None);
    }
}
