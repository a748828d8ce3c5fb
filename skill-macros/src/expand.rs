//! Generates the input struct, the typed marker, the invocation glue and the link-time
//! registration of a checked skill. Generated code only calls into
//! `<crate>::__private`, so the logic lives (and is tested) in the runtime crate.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::{Expr, Lit};

use crate::ast::{Param, Role, SkillFn};
use crate::attr::DefaultValue;
use crate::check::Config;

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

pub fn expand(skill: &SkillFn, cfg: &Config) -> TokenStream {
    let krate = &cfg.krate;
    let p = quote!(#krate::__private);
    let item = &skill.item;
    let vis = &item.vis;
    let fn_ident = &item.sig.ident;
    let is_async = item.sig.asyncness.is_some();
    let camel = camel_case(&cfg.id);
    let marker = cfg
        .marker
        .clone()
        .unwrap_or_else(|| format_ident!("{}", camel, span = fn_ident.span()));
    // A renamed marker names the input too: `marker = "CalculateZodiac"` -> `CalculateZodiacInput`.
    let input_ident = match &cfg.marker {
        Some(marker) => format_ident!("{}Input", marker, span = marker.span()),
        None => format_ident!("{}Input", camel, span = fn_ident.span()),
    };
    let id = &cfg.id;
    let output_ty = &skill.output.ty;

    let llm: Vec<&Param> = skill
        .params
        .iter()
        .filter(|p| matches!(p.role, Role::Llm))
        .collect();
    let whole_input = skill.params.iter().find(|p| matches!(p.role, Role::Input));

    // ---- the input type -------------------------------------------------------------
    let input_doc = format!("Arguments of the `{id}` skill, as the model fills them in.");
    let (input_item, prepare_body, prepared_names) = match whole_input {
        Some(param) => {
            let ty = &param.ty;
            let item = quote! {
                #[doc = #input_doc]
                #vis type #input_ident = #ty;
            };
            let body = quote! {
                #p::deserialize_args::<#input_ident>(args, #id)
            };
            (item, body, Vec::<String>::new())
        }
        None => {
            let mut fields = Vec::new();
            let mut wire_fields = Vec::new();
            let mut build = Vec::new();
            let mut defaults = Vec::new();
            let mut prepared = Vec::new();
            for param in &llm {
                let ident = &param.ident;
                let ty = &param.ty;
                let wire = param.wire_name();
                let wire_lit = lit_str(&wire);
                let docs: Vec<TokenStream> = param
                    .docs
                    .lines
                    .iter()
                    .map(|l| {
                        let l = format!(" {l}");
                        quote!(#[doc = #l])
                    })
                    .collect();
                let rename = param
                    .arg
                    .rename
                    .as_ref()
                    .map(|_| quote!(#[serde(rename = #wire_lit)]));
                let default_fn = format_ident!("__default_{}", ident);
                let default_fn_path = lit_str(&format!("{input_ident}::{default_fn}"));
                let (serde_default, default_ptr) = match &param.arg.default {
                    Some(d) => {
                        let value = match &d.value {
                            DefaultValue::Trait => {
                                quote!(<#ty as ::core::default::Default>::default())
                            }
                            DefaultValue::Expr(Expr::Lit(syn::ExprLit {
                                lit: Lit::Str(s),
                                ..
                            })) => {
                                quote_spanned!(s.span()=> <#ty as ::core::convert::From<&'static str>>::from(#s))
                            }
                            DefaultValue::Expr(expr) => quote!(#expr),
                        };
                        defaults.push(quote! {
                            #[doc(hidden)]
                            #[allow(clippy::useless_conversion)]
                            fn #default_fn() -> #ty { #value }
                        });
                        (
                            quote!(#[serde(default = #default_fn_path)]),
                            Some(quote!(#input_ident::#default_fn as fn() -> #ty)),
                        )
                    }
                    None => (quote!(), None),
                };
                let example = param.arg.example.as_ref().map(|e| match &e.value {
                    // schemars reads a bare string literal as a function path; pass the value.
                    Expr::Lit(syn::ExprLit {
                        lit: Lit::Str(s), ..
                    }) => quote!(#[schemars(example = &#s)]),
                    expr => quote!(#[schemars(example = #expr)]),
                });
                fields.push(quote! {
                    #(#docs)*
                    #rename
                    #serde_default
                    #example
                    pub #ident: #ty,
                });
                let local = format_ident!("__arg_{}", ident);
                let prepare_ptr = param.arg.prepare.as_ref().map(|prep| {
                    let path = &prep.value;
                    quote_spanned!(syn::spanned::Spanned::span(path)=> #path)
                });
                if prepare_ptr.is_some() {
                    prepared.push(wire.clone());
                }
                let optional_like =
                    param.optional || param.arg.default.is_some() || param.arg.prepare.is_some();
                if param.optional {
                    wire_fields.push(quote!(#rename #[serde(default)] #ident: #ty,));
                    match prepare_ptr {
                        Some(ptr) => build.push(quote! {
                            #ident: match wire.#ident {
                                ::core::option::Option::Some(v) => ::core::option::Option::Some(v),
                                ::core::option::Option::None => #p::prepared_optional::<_, _, _>(#id, #wire_lit, ctx, args, mode, #ptr),
                            },
                        }),
                        None => build.push(quote!(#ident: wire.#ident,)),
                    }
                } else if optional_like {
                    wire_fields.push(
                        quote!(#rename #[serde(default)] #ident: ::core::option::Option<#ty>,),
                    );
                    let def = opt(default_ptr);
                    let fill = match prepare_ptr {
                        Some(ptr) => {
                            let span = param
                                .arg
                                .prepare
                                .as_ref()
                                .map_or_else(proc_macro2::Span::call_site, |p| {
                                    syn::spanned::Spanned::span(&p.value)
                                });
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
                let _ = local;
            }
            let serde_path = lit_str(&format!("{}", quote!(#p::serde)).replace(' ', ""));
            let schemars_path = lit_str(&format!("{}", quote!(#p::schemars)).replace(' ', ""));
            let item = quote! {
                #[doc = #input_doc]
                #[derive(::core::fmt::Debug, ::core::clone::Clone, #p::serde::Serialize, #p::serde::Deserialize, #p::schemars::JsonSchema)]
                #[serde(crate = #serde_path)]
                #[schemars(crate = #schemars_path)]
                #vis struct #input_ident {
                    #(#fields)*
                }
                impl #input_ident {
                    #(#defaults)*
                }
            };
            let body = quote! {
                #[derive(#p::serde::Deserialize)]
                #[serde(crate = #serde_path)]
                struct __Wire {
                    #(#wire_fields)*
                }
                let wire: __Wire = #p::deserialize_args(args, #id)?;
                let _ = args;
                ::core::result::Result::Ok(#input_ident {
                    #(#build)*
                })
            };
            (item, body, prepared)
        }
    };

    // ---- the call of the user's fn ------------------------------------------------------
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
                injections.push(quote_spanned! {ty_span(ty)=>
                    let #local = <#ty as #p::FromSkillContext>::from_skill_context(ctx, #id)?;
                });
                call_args.push(quote!(#local));
            }
        }
    }
    let destructure = if whole_input.is_none() {
        quote!(let #input_ident { #(#field_binds),* } = input;)
    } else {
        quote!()
    };
    let await_ = if is_async { quote!(.await) } else { quote!() };
    let outcome = if skill.output.is_result {
        quote!(#p::IntoSkillOutcome::into_outcome(#fn_ident(#(#call_args),*)#await_))
    } else {
        quote!(::core::result::Result::Ok(#fn_ident(#(#call_args),*)#await_))
    };

    // ---- the registration ---------------------------------------------------------------
    let description = skill.docs.first_paragraph();
    let long_help = skill.docs.text();
    let status = match cfg.status.as_str() {
        "disabled" => quote!(#p::SkillStatus::Disabled),
        "deprecated" => quote!(#p::SkillStatus::Deprecated),
        _ => quote!(#p::SkillStatus::Active),
    };
    let params_info: Vec<TokenStream> = llm
        .iter()
        .map(|param| {
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
        })
        .collect();
    let name = &cfg.name;
    let wire_name = &cfg.wire_name;
    let domain = &cfg.domain;
    let category = &cfg.category;
    let version = &cfg.version;
    let timeout_ms = opt(cfg.timeout_ms);
    let requires_confirmation = opt(cfg.requires_confirmation);
    let idempotent = opt(cfg.idempotent);
    let open_world = opt(cfg.open_world);
    let input_type = input_ident.to_string();
    let output_type = quote!(#output_ty).to_string().replace(' ', "");
    let line = quote_spanned!(fn_ident.span()=> ::core::line!());
    let output_check = quote_spanned! {skill.output.span=>
        const _: () = #p::assert_output::<#output_ty>();
    };
    let marker_doc =
        format!("Typed handle of the `{id}` skill: implements `Skill` for calls without JSON.");

    quote! {
        #item

        #input_item

        #[doc = #marker_doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::default::Default)]
        #vis struct #marker;

        #output_check

        const _: () = {
            fn __prepare<'a>(
                ctx: &'a #krate::SkillContext,
                args: #krate::CallArgs<'a>,
                mode: #krate::PrepareMode,
            ) -> ::core::result::Result<#input_ident, #krate::SkillError> {
                let _ = (ctx, mode, &args);
                #prepare_body
            }

            impl #p::Skill for #marker {
                const ID: &'static str = #id;
                type Input = #input_ident;
                type Output = #output_ty;

                fn registration() -> &'static #p::SkillRegistration {
                    &__REGISTRATION
                }

                fn prepare_input(
                    ctx: &#krate::SkillContext,
                    llm_arguments: ::core::option::Option<&#p::Value>,
                ) -> ::core::result::Result<#input_ident, #krate::SkillError> {
                    __prepare(ctx, #krate::CallArgs::from(llm_arguments), #krate::PrepareMode::FromState)
                }

                #[allow(clippy::manual_async_fn)]
                fn run(
                    input: #input_ident,
                    ctx: &#krate::SkillContext,
                ) -> impl ::core::future::Future<Output = ::core::result::Result<#output_ty, #krate::SkillError>> + ::core::marker::Send + '_ {
                    async move {
                        let _ = ctx;
                        #(#injections)*
                        #destructure
                        #outcome
                    }
                }
            }

            fn __invoke<'a>(
                ctx: &'a #krate::SkillContext,
                args: #krate::CallArgs<'a>,
                mode: #krate::PrepareMode,
            ) -> #p::BoxFuture<'a, ::core::result::Result<::std::boxed::Box<#p::RawValue>, #p::InvokeError>> {
                ::std::boxed::Box::pin(async move {
                    let input = __prepare(ctx, args, mode).map_err(#p::InvokeError::Input)?;
                    let output = <#marker as #p::Skill>::run(input, ctx).await.map_err(#p::InvokeError::Run)?;
                    #p::to_raw(&output)
                })
            }

            fn __input_schema() -> &'static #p::Value {
                static SCHEMA: #p::OnceLock<#p::Value> = #p::OnceLock::new();
                SCHEMA.get_or_init(|| #p::input_schema_of::<#input_ident>(&[#(#prepared_names),*]))
            }

            fn __output_schema() -> &'static #p::Value {
                static SCHEMA: #p::OnceLock<#p::Value> = #p::OnceLock::new();
                SCHEMA.get_or_init(#p::output_schema_of::<#output_ty>)
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
                invoke: __invoke,
            };

            #p::inventory::submit! { #p::RegisteredSkill(&__REGISTRATION) }
        };
    }
}

fn ty_span(ty: &syn::Type) -> proc_macro2::Span {
    syn::spanned::Spanned::span(ty)
}
