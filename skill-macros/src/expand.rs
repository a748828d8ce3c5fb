//! Generates the items of a checked skill, one fn each: the input struct
//! ([`input_item`]), the wire struct when arguments are prepared ([`prepare_body`]), the
//! marker and its `Skill` impl ([`marker_item`], [`skill_impl`]) and the link-time
//! registration ([`registration`]), each named after the fn, and the id's `const`
//! ([`id_const`]). Generated code stays small: everything a generic fn can
//! do is a call into `<crate>::__private` (invocation, argument reading, schema caching), so
//! each skill costs the compiler little more than its input struct.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Lit};

use crate::ast::{Param, Role, SkillFn};
use crate::attr::DefaultValue;
use crate::check::{Config, Status};

mod input;
use input::{input_item, rename_attr};

/// Most model arguments whose input struct gets the runtime's generic serde impls (as
/// `toolwright::__private::InputFields` is implemented for tuples up to this length).
const MAX_INPUT_FIELDS: usize = 12;

/// `search_reference_doc` -> `SearchReferenceDoc` (a fn's name; also `.` and `-` separate
/// words).
pub fn camel_case(name: &str) -> String {
    name.split(['.', '_', '-'])
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
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
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

/// The names of the generated marker and input types: the fn's name in CamelCase (or
/// `marker = "..."`), never the id, so that two skills of one id are one error (their ids'
/// `const`s) and not a clash of every generated type and impl.
pub struct Names {
    pub marker: Ident,
    pub input: Ident,
}

impl Names {
    /// `None` when the fn's name gives no valid type name (reported by the checks).
    pub fn of(skill: &SkillFn, cfg: &Config) -> Option<Names> {
        let fn_ident = &skill.item.sig.ident;
        let (marker, span) = match &cfg.marker {
            Some(marker) => (marker.to_string(), marker.span()),
            None => (
                camel_case(&syn::ext::IdentExt::unraw(fn_ident).to_string()),
                fn_ident.span(),
            ),
        };
        let marker = syn::parse_str::<Ident>(&marker).ok()?;
        Some(Names {
            marker: Ident::new(&marker.to_string(), span),
            // A renamed marker names the input too: `marker = "CalculateZodiac"` ->
            // `CalculateZodiacInput`.
            input: format_ident!("{}Input", marker, span = span),
        })
    }
}

/// Every generated item of a checked skill.
pub fn expand(skill: &SkillFn, cfg: &Config) -> TokenStream {
    let item = skill.fn_tokens();
    let id_const = id_const(skill, cfg);
    let Some(names) = Names::of(skill, cfg) else {
        return quote!(#item #id_const);
    };
    let input_item = input_item(skill, cfg, &names);
    let marker_item = marker_item(skill, cfg, &names);
    let skill_impl = skill_impl(skill, cfg, &names);
    let registration = registration(skill, cfg, &names);
    let cfgs = skill.cfg_attrs();
    quote! {
        #item
        #input_item
        #marker_item
        #(#cfgs)*
        const _: () = {
            #skill_impl
            #registration
        };
        #id_const
    }
}

/// The name of the id's `const`: `skill_id_` and the id, with `.` written `_` (as on the
/// wire) and `-` written `_hyphen_`. Ids that go on the wire under one name share it too.
pub fn id_const_name(id: &str) -> String {
    format!("skill_id_{}", id.replace('.', "_").replace('-', "_hyphen_"))
}

/// `const skill_id_<id>: () = ();` beside the fn, in its module or block and under its
/// `cfg`s, spanned at the id. A second skill of the same id there defines it again, which
/// the compiler reports as one error ("the name `skill_id_find_client` is defined multiple
/// times") at the second id, pointing back at the first. The macro sees only its own fn;
/// the compiler's name resolution is what compares the two, so no source file is read and
/// skills compiled out by `cfg` take part in nothing. Empty when the id is missing or
/// invalid (already reported).
pub fn id_const(skill: &SkillFn, cfg: &Config) -> TokenStream {
    let Some(span) = cfg.id_span else {
        return TokenStream::new();
    };
    let name = Ident::new(&id_const_name(&cfg.id), span);
    let cfgs = skill.cfg_attrs();
    quote_spanned! {span=>
        #(#cfgs)*
        #[allow(dead_code, non_upper_case_globals)]
        const #name: () = ();
    }
}

/// What is emitted next to the errors of a skill that failed its checks: the fn, and the
/// marker and input types in a minimal form, so code that names them does not add errors
/// of its own to the one mistake.
pub fn dummy(skill: &SkillFn, cfg: &Config, marker_ok: bool) -> TokenStream {
    let item = &skill.item;
    let fn_tokens = skill.fn_tokens();
    // A method (it takes `self`) sits in an impl, where no type can be declared.
    let in_impl = item
        .sig
        .inputs
        .iter()
        .any(|arg| matches!(arg, syn::FnArg::Receiver(_)));
    let id_const = id_const(skill, cfg);
    let names = match Names::of(skill, cfg) {
        _ if in_impl => return fn_tokens,
        Some(names) if marker_ok => names,
        _ => return quote!(#fn_tokens #id_const),
    };
    let cfgs = skill.cfg_attrs();
    let vis = &item.vis;
    let (marker, input) = (&names.marker, &names.input);
    let input_item = match skill.params.iter().find(|p| matches!(p.role, Role::Input)) {
        Some(param) if is_bare(&param.ty, input) => TokenStream::new(),
        Some(param) if crate::ast::contains_impl_trait(&param.ty).is_none() => {
            let ty = &param.ty;
            quote!(#(#cfgs)* #vis type #input = #ty;)
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
            let cfgs = cfgs.clone();
            quote! {
                #(#cfgs)*
                #[allow(dead_code)]
                #vis struct #input { #(#fields)* }
            }
        }
    };
    let cfgs = skill.cfg_attrs();
    quote! {
        #fn_tokens
        #(#cfgs)*
        #[allow(dead_code)]
        #vis struct #marker;
        #input_item
        #id_const
    }
}

/// Whether `ty` is written as the bare name `name`.
fn is_bare(ty: &syn::Type, name: &Ident) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.get_ident() == Some(name))
}

fn private(cfg: &Config) -> TokenStream {
    let krate = &cfg.krate;
    quote!(#krate::__private)
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

/// Reads the input from the call's arguments. Without preparers the input struct is read
/// straight from the arguments (serde fills in defaults); with them a private wire struct
/// in which every argument that may be missing is an `Option` is read first, and each gap
/// is filled by `__private` helpers in the order model value, prepared value, default.
fn prepare_body(skill: &SkillFn, cfg: &Config, names: &Names) -> TokenStream {
    let p = private(cfg);
    let id = &cfg.id;
    let input_ident = &names.input;
    let whole_input = skill.params.iter().any(|p| matches!(p.role, Role::Input));
    let prepared = model_args(skill).any(|p| p.arg.prepare.is_some());
    // A whole-struct input and a derived input of more than `MAX_INPUT_FIELDS` arguments let
    // unknown keys through; the checked read refuses them as the other inputs do.
    if whole_input || (!prepared && model_args(skill).count() > MAX_INPUT_FIELDS) {
        return quote!(#p::deserialize_args_checked::<#input_ident>(args, #id, __input_schema()));
    }
    if !prepared {
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
                        ::core::option::Option::Some(v) => ::core::option::Option::Some(v),
                        ::core::option::Option::None => #p::prepared_optional::<_, _, _>(#id, #wire_lit, ctx, args, mode, #ptr),
                    },
                }),
                None => build.push(quote!(#ident: wire.#ident,)),
            }
        } else if prepare.is_some() || default_ptr.is_some() {
            wire_fields
                .push(quote!(#rename #[serde(default)] #ident: ::core::option::Option<#ty>,));
            let def = opt(default_ptr);
            let fill = match prepare {
                Some((ptr, span)) => {
                    quote_spanned!(span=> #p::prepared_or_default::<#ty, _, _>(#id, #wire_lit, ctx, args, mode, #ptr, #def)?)
                }
                None => quote!(#p::default_or_missing::<#ty>(#id, #wire_lit, #def)?),
            };
            build.push(quote! {
                #ident: match wire.#ident {
                    ::core::option::Option::Some(v) => v,
                    ::core::option::Option::None => #fill,
                },
            });
        } else {
            wire_fields.push(quote!(#rename #ident: #ty,));
            build.push(quote!(#ident: wire.#ident,));
        }
    }
    let serde_path = lit_str(&quote!(#p::serde).to_string().replace(' ', ""));
    quote! {
        #[derive(#p::serde::Deserialize)]
        #[serde(crate = #serde_path, deny_unknown_fields)]
        struct __Wire {
            #(#wire_fields)*
        }
        let wire: __Wire = #p::deserialize_args(args, #id)?;
        ::core::result::Result::Ok(#input_ident {
            #(#build)*
        })
    }
}

/// The marker type: the skill's typed handle.
fn marker_item(skill: &SkillFn, cfg: &Config, names: &Names) -> TokenStream {
    let vis = &skill.item.vis;
    let marker = &names.marker;
    let marker_doc = format!(
        "Typed handle of the `{}` skill: implements `Skill` for calls without JSON.",
        cfg.id
    );
    let cfgs = skill.cfg_attrs();
    quote! {
        #(#cfgs)*
        #[doc = #marker_doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::default::Default)]
        #vis struct #marker;
    }
}

/// `impl Skill for {Camel}`: reads the input, takes the injected values, calls the fn.
fn skill_impl(skill: &SkillFn, cfg: &Config, names: &Names) -> TokenStream {
    let krate = &cfg.krate;
    let p = private(cfg);
    let id = &cfg.id;
    let (marker, input_ident) = (&names.marker, &names.input);
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
        quote!(::core::result::Result::Ok(#fn_ident(#(#call_args),*)#await_))
    };
    let output_check = quote_spanned! {skill.output.span=>
        const _: () = #p::assert_output::<#output_ty>();
    };
    let prepare_body = prepare_body(skill, cfg, names);
    let uses_ctx = skill.params.iter().any(|p| matches!(p.role, Role::Inject));
    let ctx_unused = (!uses_ctx).then(|| quote!(let _ = ctx;));
    quote! {
        #output_check

        impl #p::Skill for #marker {
            const ID: &'static str = #id;
            type Input = #input_ident;
            type Output = #output_ty;

            fn registration() -> &'static #p::SkillRegistration {
                &__REGISTRATION
            }

            fn prepare_args(
                ctx: &#krate::SkillContext,
                args: #p::CallArgs<'_>,
                mode: #p::PrepareMode,
            ) -> ::core::result::Result<#input_ident, #krate::SkillError> {
                let _ = (ctx, mode);
                #prepare_body
            }

            #[allow(clippy::manual_async_fn)]
            fn run(
                input: #input_ident,
                ctx: &#krate::SkillContext,
            ) -> impl ::core::future::Future<Output = ::core::result::Result<#output_ty, #krate::SkillError>> + ::core::marker::Send + '_ {
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
    let submit = if cfg.register {
        quote!(#p::inventory::submit! { #p::RegisteredSkill(&__REGISTRATION) })
    } else {
        quote!()
    };
    let (marker, input_ident) = (&names.marker, &names.input);
    let fn_ident = &skill.item.sig.ident;
    let output_ty = &skill.output.ty;
    let prepared_names: Vec<String> = model_args(skill)
        .filter(|p| p.arg.prepare.is_some())
        .map(Param::wire_name)
        .collect();
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
        fn __input_schema() -> &'static #p::Value {
            static SCHEMA: #p::OnceLock<#p::Value> = #p::OnceLock::new();
            #p::cached_input_schema(&SCHEMA, #p::root_schema_of::<#input_ident>, &[#(#prepared_names),*])
        }

        fn __output_schema() -> &'static #p::Value {
            static SCHEMA: #p::OnceLock<#p::Value> = #p::OnceLock::new();
            #p::cached_output_schema::<#output_ty>(&SCHEMA)
        }

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
            input_schema: __input_schema,
            output_schema: __output_schema,
            input_type: #input_type,
            output_type: #output_type,
            source: #p::SourceLocation {
                file: ::core::file!(),
                line: #line,
                module_path: ::core::module_path!(),
            },
            invoke: #p::invoke::<#marker>,
        };

        #submit
    }
}

#[cfg(test)]
mod tests;
