//! The model of a `#[skill]` fn: its docs, its parameters sorted into what the model fills
//! in, what the host injects, or one whole-input struct, and its return type.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, ItemFn, Pat, PatType, Path, PathArguments,
    ReturnType, Signature, Type,
};

use crate::attr::ArgAttr;
use crate::ctxt::Ctxt;

/// Doc comment text of an item or parameter.
#[derive(Default, Clone)]
pub struct Docs {
    pub lines: Vec<String>,
}

impl Docs {
    pub fn from_attrs(attrs: &[Attribute]) -> Docs {
        let mut lines = Vec::new();
        for attr in attrs {
            if !attr.path().is_ident("doc") {
                continue;
            }
            if let syn::Meta::NameValue(nv) = &attr.meta {
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &nv.value
                {
                    let value = s.value();
                    if value.trim().is_empty() {
                        lines.push(String::new());
                    }
                    for line in value.lines() {
                        lines.push(
                            line.strip_prefix(' ')
                                .unwrap_or(line)
                                .trim_end()
                                .to_string(),
                        );
                    }
                }
            }
        }
        Docs { lines }
    }

    /// The whole text, trimmed.
    pub fn text(&self) -> String {
        self.lines.join("\n").trim().to_string()
    }

    /// The first paragraph on one line.
    pub fn first_paragraph(&self) -> String {
        self.lines
            .iter()
            .map(|l| l.trim())
            .skip_while(|l| l.is_empty())
            .take_while(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// All lines on one line (parameter descriptions).
    pub fn one_line(&self) -> String {
        self.lines
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    pub fn is_empty(&self) -> bool {
        self.text().is_empty()
    }
}

/// What a parameter is for.
pub enum Role {
    /// Filled in by the model; part of the input schema.
    Llm,
    /// Taken from the context by type; never in any schema.
    Inject,
    /// `#[input]`: the whole input in one struct.
    Input,
}

pub struct Param {
    pub ident: Ident,
    pub ty: Type,
    pub role: Role,
    pub docs: Docs,
    pub doc_span: Option<Span>,
    pub arg: ArgAttr,
    pub input_marker: Option<Span>,
    pub inject_marker: Option<Span>,
    /// Declared as `Option<T>`.
    pub optional: bool,
}

impl Param {
    /// Name on the wire.
    pub fn wire_name(&self) -> String {
        match &self.arg.rename {
            Some(r) => r.value.value(),
            None => self.ident.to_string().trim_start_matches("r#").to_string(),
        }
    }
}

pub struct Output {
    /// `T` of `Result<T, E>` or the plain return type (`()` when none).
    pub ty: Type,
    pub is_result: bool,
    pub span: Span,
}

pub struct SkillFn {
    /// The fn's signature as it will be emitted again, helper attributes removed; its
    /// block is empty when `body` holds the real one.
    pub item: ItemFn,
    /// The fn's body as written, emitted unchanged after the signature.
    pub body: Option<proc_macro2::TokenTree>,
    pub docs: Docs,
    pub params: Vec<Param>,
    pub output: Output,
}

/// The single generic argument of `Outer<T>`, if `ty` is one.
pub fn generic_arg<'a>(ty: &'a Type, outer: &str) -> Option<&'a Type> {
    let Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    if seg.ident != outer {
        return None;
    }
    match &seg.arguments {
        PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

/// Whether `ty` names toolwright's own `name` (`Inject`, `SkillContext`) by its path: bare
/// (`Inject<T>`, as the prelude imports it), or through the crate: `toolwright::Inject<T>`,
/// `::toolwright::prelude::Inject<T>`, or the path given by `crate = "..."`. Any other path
/// (`crate::Inject`, `self::Inject`, `models::Inject`) is the author's own type.
fn is_own_type(ty: &Type, name: &str, krate: &Path) -> bool {
    let path = match ty {
        Type::Path(p) if p.qself.is_none() => &p.path,
        Type::Group(g) => return is_own_type(&g.elem, name, krate),
        Type::Paren(p) => return is_own_type(&p.elem, name, krate),
        _ => return false,
    };
    let Some(last) = path.segments.last() else {
        return false;
    };
    if last.ident != name {
        return false;
    }
    let prefix: Vec<String> = path
        .segments
        .iter()
        .take(path.segments.len() - 1)
        .map(|s| s.ident.to_string())
        .collect();
    if prefix.is_empty() {
        return path.leading_colon.is_none();
    }
    let krate: Vec<String> = krate.segments.iter().map(|s| s.ident.to_string()).collect();
    let roots = [vec!["toolwright".to_string()], krate];
    roots.iter().any(|root| {
        let Some(rest) = prefix.strip_prefix(root.as_slice()) else {
            return false;
        };
        rest.len() <= 1 && rest.iter().all(|m| m == "prelude" || m == "context")
    })
}

/// Whether the type is one the framework injects: `Inject<T>`, `Option<Inject<T>>`,
/// `&SkillContext`, each named by its path to toolwright (see [`is_own_type`]).
fn is_injected_type(ty: &Type, krate: &Path) -> bool {
    if is_own_type(ty, "Inject", krate) {
        return true;
    }
    if let Some(inner) = generic_arg(ty, "Option") {
        if is_own_type(inner, "Inject", krate) {
            return true;
        }
    }
    if let Type::Reference(r) = ty {
        return is_own_type(&r.elem, "SkillContext", krate);
    }
    false
}

/// The span of the first `impl Trait` inside `ty`, if any.
pub fn contains_impl_trait(ty: &Type) -> Option<Span> {
    struct Finder(Option<Span>);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_type_impl_trait(&mut self, node: &'ast syn::TypeImplTrait) {
            self.0.get_or_insert(node.span());
        }
    }
    let mut finder = Finder(None);
    syn::visit::Visit::visit_type(&mut finder, ty);
    finder.0
}

impl SkillFn {
    /// The fn as emitted: its attributes and signature, then its body as written.
    pub fn fn_tokens(&self) -> proc_macro2::TokenStream {
        let item = &self.item;
        match &self.body {
            Some(body) => {
                let (attrs, vis, sig) = (&item.attrs, &item.vis, &item.sig);
                quote::quote!(#(#attrs)* #vis #sig #body)
            }
            None => quote::quote!(#item),
        }
    }

    /// The fn's `#[cfg(...)]` attributes, repeated on every generated item: a skill compiled
    /// out takes its types, registration and id with it (two skills may then share an id
    /// under mutually exclusive `cfg`s).
    pub fn cfg_attrs(&self) -> impl Iterator<Item = &Attribute> + Clone {
        self.item.attrs.iter().filter(|a| a.path().is_ident("cfg"))
    }

    /// Reads the fn; problems of the signature go to `cx`.
    pub fn parse(
        cx: &mut Ctxt,
        mut item: ItemFn,
        body: Option<proc_macro2::TokenTree>,
        krate: &Path,
    ) -> SkillFn {
        check_signature(cx, &item.sig);
        let docs = Docs::from_attrs(&item.attrs);
        let mut params = Vec::new();
        for input in item.sig.inputs.iter_mut() {
            match input {
                FnArg::Receiver(recv) => {
                    cx.error_spanned_by(
                        &*recv,
                        "a skill is a free fn and cannot take `self`; move the state into an `Inject<T>` parameter",
                    );
                }
                FnArg::Typed(pt) => {
                    if let Some(param) = parse_param(cx, pt, krate) {
                        params.push(param);
                    }
                }
            }
        }
        let output = parse_output(cx, &item.sig);
        SkillFn {
            item,
            body,
            docs,
            params,
            output,
        }
    }
}

/// Reports the signature qualifiers a skill cannot have: `const`, `unsafe`, `extern`,
/// variadics and generics.
fn check_signature(cx: &mut Ctxt, sig: &Signature) {
    if let Some(c) = &sig.constness {
        cx.error_spanned_by(c, "a skill cannot be a `const fn`");
    }
    if let Some(u) = &sig.unsafety {
        cx.error_spanned_by(
            u,
            "a skill cannot be `unsafe`: the model calls it with arguments it chose",
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(abi, "a skill cannot have an `extern` ABI");
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, "a skill cannot be variadic");
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &sig.generics,
            "a skill cannot be generic: its input schema must be known at compile time; use concrete types",
        );
    }
}

/// Reads one typed parameter, strips the helper attributes from it and sorts it into its
/// role; `None` (with an error in `cx`) when its pattern is not a plain name.
fn parse_param(cx: &mut Ctxt, pt: &mut PatType, krate: &Path) -> Option<Param> {
    let ident = match &*pt.pat {
        Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
        other => {
            cx.error_spanned_by(
                other,
                "skill parameters must be plain names (`name: Type`); patterns are not supported because each name becomes an argument",
            );
            return None;
        }
    };
    if let Some(span) = contains_impl_trait(&pt.ty) {
        cx.syn_error(syn::Error::new(
            span,
            "`impl Trait` parameters are not supported: the argument needs a concrete type for its JSON Schema",
        ));
    }
    let mut arg = ArgAttr::default();
    let mut input_marker = None;
    let mut inject_marker = None;
    let mut doc_span = None;
    for attr in &pt.attrs {
        let path = attr.path();
        if path.is_ident("arg") {
            arg.parse_into(cx, attr);
        } else if path.is_ident("input") {
            input_marker = Some(path.segments[0].ident.span());
        } else if path.is_ident("inject") {
            inject_marker = Some(path.segments[0].ident.span());
        } else if path.is_ident("doc") && doc_span.is_none() {
            doc_span = Some(attr.span());
        }
    }
    let docs = Docs::from_attrs(&pt.attrs);
    pt.attrs.retain(|a| {
        !(a.path().is_ident("arg")
            || a.path().is_ident("input")
            || a.path().is_ident("inject")
            || a.path().is_ident("doc"))
    });
    let ty = (*pt.ty).clone();
    let role =
        if inject_marker.is_some() || (input_marker.is_none() && is_injected_type(&ty, krate)) {
            Role::Inject
        } else if input_marker.is_some() {
            Role::Input
        } else {
            Role::Llm
        };
    let optional = generic_arg(&ty, "Option").is_some();
    Some(Param {
        ident,
        ty,
        role,
        docs,
        doc_span,
        arg,
        input_marker,
        inject_marker,
        optional,
    })
}

/// The skill's output: `T` of `Result<T, E>` or the plain return type, `()` when none;
/// an `impl Trait` return is reported.
fn parse_output(cx: &mut Ctxt, sig: &Signature) -> Output {
    match &sig.output {
        ReturnType::Default => Output {
            ty: syn::parse_quote!(()),
            is_result: false,
            span: sig.ident.span(),
        },
        ReturnType::Type(_, ty) => {
            if let Some(span) = contains_impl_trait(ty) {
                cx.syn_error(syn::Error::new(
                    span,
                    "a skill must return a named type (`T` or `Result<T, E>`) so its output schema is known; `impl Trait` is not supported",
                ));
            }
            match generic_arg(ty, "Result") {
                Some(ok) => Output {
                    ty: ok.clone(),
                    is_result: true,
                    span: ty.span(),
                },
                None => Output {
                    ty: (**ty).clone(),
                    is_result: false,
                    span: ty.span(),
                },
            }
        }
    }
}
