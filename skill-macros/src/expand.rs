//! Generates the items of a checked skill, one fn each: the input struct
//! ([`input_item`]), the wire struct when arguments are prepared ([`prepare_body`]), the
//! marker and its `Skill` impl ([`marker_item`], [`skill_impl`]) and the link-time
//! registration ([`registration`]). Generated code stays small: everything a generic fn can
//! do is a call into `<crate>::__private` (invocation, argument reading, schema caching), so
//! each skill costs the compiler little more than its input struct.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Lit};

use crate::ast::{Param, Role, SkillFn};
use crate::attr::DefaultValue;
use crate::check::{Config, Status};

/// `search_reference_doc` / `crm.search-client` -> `SearchReferenceDoc` / `CrmSearchClient`.
pub fn camel_case(id: &str) -> String {
    id.split(['.', '_', '-'])
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

fn lit_str(s: &str) -> syn::LitStr {
    syn::LitStr::new(s, proc_macro2::Span::call_site())
}

fn opt<T: quote::ToTokens>(value: Option<T>) -> TokenStream {
    match value {
        Some(v) => quote!(__sk::Some(#v)),
        None => quote!(__sk::None),
    }
}

/// A literal example as JSON text, when it is one.
fn example_json(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Str(s) => serde_json_string(&s.value()),
            Lit::Int(i) => Some(i.base10_digits().to_string()),
            Lit::Float(f) => Some(f.base10_digits().to_string()),
            Lit::Bool(b) => Some(b.value.to_string()),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            example_json(&u.expr).map(|s| format!("-{s}"))
        }
        _ => None,
    }
}

fn serde_json_string(s: &str) -> Option<String> {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    Some(out)
}

/// The names of the generated marker and input types.
pub struct Names {
    pub marker: Ident,
    pub input: Ident,
    /// `__skill_{fn}`: the module the marker and input are declared in.
    pub module: Ident,
}

impl Names {
    /// `None` when the id gives no valid type name (the id error is reported already).
    pub fn of(skill: &SkillFn, cfg: &Config) -> Option<Names> {
        let fn_span = skill.item.sig.ident.span();
        let (marker, span) = match &cfg.marker {
            Some(marker) => (marker.to_string(), marker.span()),
            None => (camel_case(&cfg.id), fn_span),
        };
        let marker = syn::parse_str::<Ident>(&marker).ok()?;
        Some(Names {
            marker: Ident::new(&marker.to_string(), span),
            // A renamed marker names the input too: `marker = "CalculateZodiac"` ->
            // `CalculateZodiacInput`.
            input: format_ident!("{}Input", marker, span = span),
            module: format_ident!("__skill_{}", skill.item.sig.ident.unraw()),
        })
    }
}

/// Every generated item of a checked skill.
///
/// The generated types (input struct and marker) live in a module of their own, named after
/// the fn (unique in its module, since the fn's own name is), and reach the fn's module
/// through a glob re-export (the input struct, the marker's value) and one explicit item: a
/// type alias of the marker. Two skills with one id in one module (or a type of the author's
/// that takes the marker's name) then collide in exactly one place, that alias, and the one
/// error names the marker at both `#[skill]` attributes. Everything else (checks, defaults,
/// the `Skill` impl, the registration) sits in a `const _` block next to the fn, naming the
/// types by their module path, so it sees what the fn sees, also inside a fn body.
pub fn expand(skill: &SkillFn, cfg: &Config) -> TokenStream {
    let item = &skill.item;
    let Some(names) = Names::of(skill, cfg) else {
        return quote!(#item);
    };
    let krate = &cfg.krate;
    // `crate = "super::..."` is written for the fn's module; the types' module is one deeper.
    let mut inner_krate = krate.clone();
    Reroot.visit_path_mut(&mut inner_krate);
    let checks = type_checks(skill, cfg);
    let (input_item, defaults) = input_item(skill, cfg, &names);
    let marker_item = marker_item(skill, cfg, &names);
    let skill_impl = skill_impl(skill, cfg, &names);
    let registration = registration(skill, cfg, &names);
    let vis = &item.vis;
    let module = &names.module;
    // The re-export is spanned at the attribute (or at `marker = "..."`), which names the id.
    let marker_span = match &cfg.marker {
        Some(_) => names.marker.span(),
        None => Span::call_site(),
    };
    let marker = Ident::new(&names.marker.to_string(), marker_span);
    let marker_doc = marker_doc(cfg);
    quote! {
        #item
        // Before the types: an argument type that cannot be one is reported here first.
        const _: () = {
            use #krate::__private as __sk;
            #checks
        };
        mod #module {
            #[allow(unused_imports)]
            use super::*;
            use #inner_krate::__private as __sk;
            #input_item
            #marker_item
        }
        const _: () = {
            use #krate::__private as __sk;
            #defaults
            #skill_impl
            #registration
        };
        #[doc = #marker_doc]
        #[allow(dead_code)]
        #vis type #marker = #module::#marker;
        #[allow(unused_imports)]
        #vis use #module::*;
    }
}

/// Moves paths written relative to the fn's module (`super::Type`) one level up, for the
/// types and examples copied into the skill's module (one deeper); `self::` reaches the same
/// names through that module's `use super::*`.
struct Reroot;

impl VisitMut for Reroot {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if path.leading_colon.is_none() && path.segments.first().is_some_and(|s| s.ident == "super")
        {
            let span = path.segments[0].ident.span();
            path.segments
                .insert(0, syn::PathSegment::from(Ident::new("super", span)));
        }
        visit_mut::visit_path_mut(self, path);
    }
}

/// `ty` as written from inside the skill's module.
fn inner_type(ty: &syn::Type) -> syn::Type {
    let mut ty = ty.clone();
    Reroot.visit_type_mut(&mut ty);
    ty
}

/// The fn's visibility as written one module deeper, for the generated items: private
/// becomes `pub(super)`, `super` paths move up one level, `pub` and `pub(crate)` stay.
/// (A `pub` item there would make a private argument or return type a leak.)
fn inner_vis(vis: &syn::Visibility) -> TokenStream {
    match vis {
        syn::Visibility::Public(_) => quote!(pub),
        syn::Visibility::Inherited => quote!(pub(super)),
        syn::Visibility::Restricted(r) => {
            let first = r.path.segments.first().map(|s| s.ident.to_string());
            let path = &r.path;
            match first.as_deref() {
                Some("crate") if r.path.leading_colon.is_none() => quote!(#vis),
                Some("self") => {
                    let rest = r.path.segments.iter().skip(1);
                    quote!(pub(in super #(::#rest)*))
                }
                _ => quote!(pub(in super::#path)),
            }
        }
    }
}

/// What is emitted next to the errors of a skill that failed its checks: the fn, and the
/// marker and input types in a minimal form, so code that names them does not add errors
/// of its own to the one mistake.
pub fn dummy(skill: &SkillFn, cfg: &Config, marker_ok: bool) -> TokenStream {
    let item = &skill.item;
    // A method (it takes `self`) sits in an impl, where no type can be declared.
    let in_impl = item
        .sig
        .inputs
        .iter()
        .any(|arg| matches!(arg, syn::FnArg::Receiver(_)));
    let names = match Names::of(skill, cfg) {
        _ if in_impl => return quote!(#item),
        Some(names) if marker_ok => names,
        _ => return quote!(#item),
    };
    let vis = &item.vis;
    let (marker, input) = (&names.marker, &names.input);
    let input_item = match skill.params.iter().find(|p| matches!(p.role, Role::Input)) {
        Some(param) if crate::ast::contains_impl_trait(&param.ty).is_none() => {
            let ty = &param.ty;
            quote!(#vis type #input = #ty;)
        }
        _ => {
            let fields = skill
                .params
                .iter()
                .filter(|p| matches!(p.role, Role::Llm))
                .filter(|p| crate::ast::contains_impl_trait(&p.ty).is_none())
                .map(|p| {
                    let (ident, ty) = (&p.ident, &p.ty);
                    quote!(pub #ident: #ty,)
                });
            quote! {
                #[allow(dead_code)]
                #vis struct #input { #(#fields)* }
            }
        }
    };
    quote! {
        #item
        #[allow(dead_code)]
        #vis struct #marker;
        #input_item
    }
}

/// `__sk`: the skill's module imports `<crate>::__private` under this name once, so each
/// use in the generated code is one token instead of a path.
fn private(_cfg: &Config) -> TokenStream {
    quote!(__sk)
}

fn model_args(skill: &SkillFn) -> impl Iterator<Item = &Param> {
    skill.params.iter().filter(|p| matches!(p.role, Role::Llm))
}

/// Gives every token of `tokens` the span `span`, so errors about them point there.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                TokenTree::Group(group)
            }
            mut tt => {
                tt.set_span(span);
                tt
            }
        })
        .collect()
}

/// One `const` checking, at each argument's type, that it can be a model argument, and at
/// the return type that it can be sent back: the first error about such a type is at the
/// type and names everything it needs, before the derives report the rest.
fn type_checks(skill: &SkillFn, cfg: &Config) -> TokenStream {
    let p = private(cfg);
    let whole_input = skill.params.iter().any(|p| matches!(p.role, Role::Input));
    let args = model_args(skill).filter(|_| !whole_input).map(|param| {
        let ty = &param.ty;
        quote_spanned!(ty.span()=> #p::assert_model_argument::<#ty>();)
    });
    let output_ty = &skill.output.ty;
    let output = quote_spanned!(skill.output.span=> #p::assert_output::<#output_ty>(););
    quote! {
        const _: () = { #(#args)* #output };
    }
}

/// `{Camel}Input`: the arguments the model fills in (or an alias of the `#[input]` struct),
/// with `#[serde(default = ...)]` fns for declared defaults.
/// Returns the items declared in the skill's module and the `impl` of default fns, which
/// stays in the fn's module (where the defaults' expressions were written).
fn input_item(skill: &SkillFn, cfg: &Config, names: &Names) -> (TokenStream, TokenStream) {
    let p = private(cfg);
    let vis = inner_vis(&skill.item.vis);
    let input_ident = &names.input;
    let input_doc = format!(
        "Arguments of the `{}` skill, as the model fills them in.",
        cfg.id
    );
    if let Some(param) = skill.params.iter().find(|p| matches!(p.role, Role::Input)) {
        let ty = inner_type(&param.ty);
        let item = quote! {
            #[doc = #input_doc]
            #vis type #input_ident = #ty;
        };
        return (item, TokenStream::new());
    }
    let mut fields = Vec::new();
    let mut defaults = Vec::new();
    let mut serialize = Vec::new();
    for param in model_args(skill) {
        let ident = &param.ident;
        let ty = &param.ty;
        let wire = lit_str(&param.wire_name());
        // Spanned at the type: an argument that cannot be serialized is reported there.
        serialize.push(quote_spanned!(ty.span()=> __st.serialize_field(#wire, &self.#ident)?;));
        let docs = param.docs.lines.iter().map(|l| {
            let l = format!(" {l}");
            quote!(#[doc = #l])
        });
        let rename = rename_attr(param);
        let serde_default = param.arg.default.as_ref().map(|d| {
            let default_fn = format_ident!("__default_{}", ident);
            let default_fn_path = lit_str(&format!("{input_ident}::{default_fn}"));
            let value = match &d.value {
                DefaultValue::Trait => quote!(<#ty as #p::Default>::default()),
                // Spanned on the expression, so a default of the wrong type is reported at the
                // default, not at the parameter's type.
                DefaultValue::Expr(Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                })) => {
                    let ty = respan(quote!(#ty), s.span());
                    quote_spanned!(s.span()=> <#ty as #p::FromDefaultText>::from_default_text(#s))
                }
                DefaultValue::Expr(expr) => {
                    let ty = respan(quote!(#ty), expr.span());
                    quote_spanned!(expr.span()=> { let __default: #ty = #expr; __default })
                }
            };
            defaults.push(quote! {
                #[doc(hidden)]
                fn #default_fn() -> #ty { #value }
            });
            quote!(#[serde(default = #default_fn_path)])
        });
        let example = param.arg.example.as_ref().map(|e| {
            let mut value = e.value.clone();
            Reroot.visit_expr_mut(&mut value);
            value
        });
        let example = example.as_ref().map(|value| match value {
            // schemars reads a bare string literal as a function path; pass the value.
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => quote!(#[schemars(example = &#s)]),
            expr => quote!(#[schemars(example = #expr)]),
        });
        let field_ty = inner_type(ty);
        fields.push(quote! {
            #(#docs)*
            #rename
            #serde_default
            #example
            #vis #ident: #field_ty,
        });
    }
    let module = &names.module;
    let defaults = match defaults.is_empty() {
        true => TokenStream::new(),
        false => quote!(impl #module::#input_ident { #(#defaults)* }),
    };
    let name = input_ident.to_string();
    let len = serialize.len();
    // `Serialize` is written out here rather than derived: the same calls serde_derive
    // would generate, without running a second derive over the struct.
    let item = quote! {
        #[doc = #input_doc]
        #[derive(#p::Debug, #p::Clone, #p::serde::Deserialize, #p::schemars::JsonSchema)]
        #[serde(crate = "__sk::serde")]
        #[schemars(crate = "__sk::schemars")]
        #vis struct #input_ident {
            #(#fields)*
        }
        impl #p::serde::Serialize for #input_ident {
            fn serialize<__S: #p::serde::Serializer>(&self, __s: __S) -> #p::Result<__S::Ok, __S::Error> {
                use #p::serde::ser::SerializeStruct as _;
                let mut __st = __s.serialize_struct(#name, #len)?;
                #(#serialize)*
                __st.end()
            }
        }
    };
    (item, defaults)
}

fn rename_attr(param: &Param) -> Option<TokenStream> {
    param.arg.rename.as_ref().map(|_| {
        let wire = lit_str(&param.wire_name());
        quote!(#[serde(rename = #wire)])
    })
}

/// Reads the input from the call's arguments. Without preparers the input struct is read
/// straight from the arguments (serde fills in defaults); with them a private wire struct
/// in which every argument that may be missing is an `Option` is read first, and each gap
/// is filled by `__private` helpers in the order model value, prepared value, default.
fn prepare_body(skill: &SkillFn, cfg: &Config, names: &Names) -> TokenStream {
    let p = private(cfg);
    let id = &cfg.id;
    let input_name = &names.input;
    let module = &names.module;
    let input_ident = quote!(#module::#input_name);
    let whole_input = skill.params.iter().any(|p| matches!(p.role, Role::Input));
    let prepared = model_args(skill).any(|p| p.arg.prepare.is_some());
    if whole_input || !prepared {
        return quote!(#p::deserialize_args::<#input_ident>(args, #id));
    }
    let mut wire_fields = Vec::new();
    let mut build = Vec::new();
    for param in model_args(skill) {
        let ident = &param.ident;
        let ty = &param.ty;
        let wire_lit = lit_str(&param.wire_name());
        let rename = rename_attr(param);
        let prepare = param.arg.prepare.as_ref().map(|prep| {
            let path = &prep.value;
            (quote_spanned!(path.span()=> #path), path.span())
        });
        let default_ptr = param.arg.default.as_ref().map(|_| {
            let default_fn = format_ident!("__default_{}", ident);
            quote!(#input_ident::#default_fn as fn() -> #ty)
        });
        if param.optional {
            wire_fields.push(quote!(#rename #[serde(default)] #ident: #ty,));
            match prepare {
                Some((ptr, _)) => build.push(quote! {
                    #ident: match wire.#ident {
                        #p::Some(v) => #p::Some(v),
                        #p::None => #p::prepared_optional::<_, _, _>(#id, #wire_lit, ctx, args, mode, #ptr),
                    },
                }),
                None => build.push(quote!(#ident: wire.#ident,)),
            }
        } else if prepare.is_some() || default_ptr.is_some() {
            wire_fields.push(quote!(#rename #[serde(default)] #ident: #p::Option<#ty>,));
            let def = opt(default_ptr);
            let fill = match prepare {
                Some((ptr, span)) => {
                    quote_spanned!(span=> #p::prepared_or_default::<#ty, _, _>(#id, #wire_lit, ctx, args, mode, #ptr, #def)?)
                }
                None => quote!(#p::default_or_missing::<#ty>(#id, #wire_lit, #def)?),
            };
            build.push(quote! {
                #ident: match wire.#ident {
                    #p::Some(v) => v,
                    #p::None => #fill,
                },
            });
        } else {
            wire_fields.push(quote!(#rename #ident: #ty,));
            build.push(quote!(#ident: wire.#ident,));
        }
    }
    quote! {
        #[derive(#p::serde::Deserialize)]
        #[serde(crate = "__sk::serde")]
        struct __Wire {
            #(#wire_fields)*
        }
        let wire: __Wire = #p::deserialize_args(args, #id)?;
        #p::Ok(#input_ident {
            #(#build)*
        })
    }
}

fn marker_doc(cfg: &Config) -> String {
    format!(
        "Typed handle of the `{}` skill: implements `Skill` for calls without JSON.",
        cfg.id
    )
}

/// The marker type: the skill's typed handle.
fn marker_item(skill: &SkillFn, cfg: &Config, names: &Names) -> TokenStream {
    let p = private(cfg);
    let vis = inner_vis(&skill.item.vis);
    let marker = &names.marker;
    let marker_doc = marker_doc(cfg);
    quote! {
        #[doc = #marker_doc]
        #[derive(#p::Debug, #p::Clone, #p::Copy, #p::Default)]
        #vis struct #marker;
    }
}

/// `impl Skill for {Camel}`: reads the input, takes the injected values, calls the fn.
fn skill_impl(skill: &SkillFn, cfg: &Config, names: &Names) -> TokenStream {
    let p = private(cfg);
    let id = &cfg.id;
    let module = &names.module;
    let (marker_name, input_name) = (&names.marker, &names.input);
    let (marker, input_ident) = (quote!(#module::#marker_name), quote!(#module::#input_name));
    let fn_ident = &skill.item.sig.ident;
    let output_ty = &skill.output.ty;
    let mut injections = Vec::new();
    let mut call_args = Vec::new();
    let mut field_binds = Vec::new();
    for param in &skill.params {
        let ident = &param.ident;
        let local = format_ident!("__arg_{}", ident);
        match param.role {
            Role::Llm => {
                field_binds.push(quote!(#ident: #local));
                call_args.push(quote!(#local));
            }
            Role::Input => call_args.push(quote!(input)),
            Role::Inject => {
                let ty = &param.ty;
                injections.push(quote_spanned! {ty.span()=>
                    let #local = <#ty as #p::FromSkillContext>::from_skill_context(ctx, #id)?;
                });
                call_args.push(quote!(#local));
            }
        }
    }
    let whole_input = skill.params.iter().any(|p| matches!(p.role, Role::Input));
    let destructure =
        (!whole_input).then(|| quote!(let #input_ident { #(#field_binds),* } = input;));
    // A sync fn runs right here, on the thread polling the call's future.
    let await_ = skill.item.sig.asyncness.map(|_| quote!(.await));
    let outcome = if skill.output.is_result {
        quote!(#p::IntoSkillOutcome::into_outcome(#fn_ident(#(#call_args),*)#await_))
    } else {
        quote!(#p::Ok(#fn_ident(#(#call_args),*)#await_))
    };
    let prepare_body = prepare_body(skill, cfg, names);
    let uses_ctx = skill.params.iter().any(|p| matches!(p.role, Role::Inject));
    let ctx_unused = (!uses_ctx).then(|| quote!(let _ = ctx;));
    quote! {
        impl #p::Skill for #marker {
            const ID: &'static str = #id;
            type Input = #input_ident;
            type Output = #output_ty;

            fn registration() -> &'static #p::SkillRegistration {
                &__REGISTRATION
            }

            fn prepare_args(
                ctx: &#p::SkillContext,
                args: #p::CallArgs<'_>,
                mode: #p::PrepareMode,
            ) -> #p::Result<#input_ident, #p::SkillError> {
                let _ = (ctx, mode);
                #prepare_body
            }

            #[allow(clippy::manual_async_fn)]
            fn run(
                input: #input_ident,
                ctx: &#p::SkillContext,
            ) -> impl #p::Future<Output = #p::Result<#output_ty, #p::SkillError>> + #p::Send + '_ {
                async move {
                    #ctx_unused
                    #(#injections)*
                    #destructure
                    #outcome
                }
            }
        }
    }
}

/// The `static SkillRegistration` and its `inventory::submit!`.
fn registration(skill: &SkillFn, cfg: &Config, names: &Names) -> TokenStream {
    let p = private(cfg);
    let module = &names.module;
    let (marker_name, input_ident) = (&names.marker, &names.input);
    let marker = quote!(#module::#marker_name);
    let fn_ident = &skill.item.sig.ident;
    let output_ty = &skill.output.ty;
    let description = skill.docs.first_paragraph();
    let long_help = skill.docs.text();
    let status = match cfg.status {
        Status::Active => quote!(#p::SkillStatus::Active),
        Status::Disabled => quote!(#p::SkillStatus::Disabled),
        Status::Deprecated => quote!(#p::SkillStatus::Deprecated),
    };
    let params_info = model_args(skill).map(|param| {
        let name = param.wire_name();
        let rust_name = param.ident.to_string();
        let ty = &param.ty;
        let rust_type = quote!(#ty).to_string().replace(' ', "");
        let description = param.docs.one_line();
        let has_default = param.arg.default.is_some();
        let prepared = param.arg.prepare.is_some();
        let optional = param.optional;
        let required = !(optional || has_default || prepared);
        let example = opt(param
            .arg
            .example
            .as_ref()
            .and_then(|e| example_json(&e.value)));
        let kind = opt(param.arg.kind.as_ref().map(|k| k.value.value()));
        let case_sensitive = opt(param.arg.case_sensitive.as_ref().map(|c| c.value.value));
        quote! {
            #p::ParamInfo {
                name: #name,
                rust_name: #rust_name,
                rust_type: #rust_type,
                description: #description,
                required: #required,
                optional: #optional,
                has_default: #has_default,
                prepared: #prepared,
                example: #example,
                kind: #kind,
                case_sensitive: #case_sensitive,
            }
        }
    });
    let (id, name, wire_name) = (&cfg.id, &cfg.name, &cfg.wire_name);
    let (domain, category, version) = (&cfg.domain, &cfg.category, &cfg.version);
    let timeout_ms = opt(cfg.timeout_ms);
    // A confirmation sentence implies that calls wait for confirmation, unless said otherwise.
    let requires_confirmation = opt(cfg
        .requires_confirmation
        .or(cfg.confirm.as_ref().map(|_| true)));
    let confirm_summary = opt(cfg.confirm.as_deref());
    let idempotent = opt(cfg.idempotent);
    let open_world = opt(cfg.open_world);
    let input_type = input_ident.to_string();
    let output_type = quote!(#output_ty).to_string().replace(' ', "");
    let line = quote_spanned!(fn_ident.span()=> ::core::line!());
    quote! {
        static __REGISTRATION: #p::SkillRegistration = #p::SkillRegistration {
            id: #id,
            wire_name: #wire_name,
            name: #name,
            description: #description,
            long_help: #long_help,
            domain: #domain,
            category: #category,
            status: #status,
            version: #version,
            timeout_ms: #timeout_ms,
            requires_confirmation: #requires_confirmation,
            confirm_summary: #confirm_summary,
            idempotent: #idempotent,
            open_world: #open_world,
            params: &[#(#params_info),*],
            input_schema: #p::input_schema::<#marker>,
            output_schema: #p::output_schema::<#marker>,
            input_type: #input_type,
            output_type: #output_type,
            source: #p::SourceLocation {
                file: ::core::file!(),
                line: #line,
                module_path: ::core::module_path!(),
            },
            invoke: #p::invoke::<#marker>,
        };

        #p::inventory::submit! { #p::RegisteredSkill(&__REGISTRATION) }
    }
}
