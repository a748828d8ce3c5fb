//! The input struct of a skill: `{Camel}Input` with the arguments the model fills in, its
//! `#[serde(default = ...)]` fns, its schema attributes, and `Serialize`/`Deserialize` as
//! one call each into the runtime's generic fns.

use proc_macro2::{Delimiter, Group, Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Expr, Ident, Lit};

use super::*;

/// `{Camel}Input`: the arguments the model fills in (or an alias of the `#[input]` struct),
/// with `#[serde(default = ...)]` fns for declared defaults.
pub(super) fn input_item(skill: &SkillFn, cfg: &Config, names: &Names) -> TokenStream {
    let p = private(cfg);
    let vis = &skill.item.vis;
    let input_ident = &names.input;
    let input_doc = format!(
        "Arguments of the `{}` skill, as the model fills them in.",
        cfg.id
    );
    let cfgs = skill.cfg_attrs();
    if let Some(param) = skill.params.iter().find(|p| matches!(p.role, Role::Input)) {
        let ty = &param.ty;
        if is_bare(ty, input_ident) {
            // `fn rename(#[input] input: RenameInput)`: the struct has the name already.
            return TokenStream::new();
        }
        return quote! {
            #(#cfgs)*
            #[doc = #input_doc]
            #vis type #input_ident = #ty;
        };
    }
    let mut fields = Vec::new();
    let mut defaults = Vec::new();
    let mut wire = WireFields::default();
    let mut bounds = Vec::new();
    for param in model_args(skill) {
        let ident = &param.ident;
        let ty = &param.ty;
        let item_cfgs = cfgs.clone();
        bounds.push(quote_spanned!(ty.span()=> #(#item_cfgs)* const _: () = #p::assert_model_argument::<#ty>();));
        let docs = param.docs.lines.iter().map(|l| {
            let l = format!(" {l}");
            quote!(#[doc = #l])
        });
        let rename = rename_attr(param);
        wire.push(param);
        let serde_default = param.arg.default.as_ref().map(|d| {
            let (attr, default_fn) = default_item(&p, input_ident, param, &d.value);
            defaults.push(default_fn);
            attr
        });
        let example = example_attr(param);
        fields.push(quote! {
            #(#docs)*
            #rename
            #serde_default
            #example
            pub #ident: #ty,
        });
    }
    let serde_path = lit_str(&quote!(#p::serde).to_string().replace(' ', ""));
    let schemars_path = lit_str(&quote!(#p::schemars).to_string().replace(' ', ""));
    let defaults = (!defaults.is_empty()).then(|| {
        let cfgs = cfgs.clone();
        quote!(#(#cfgs)* impl #input_ident { #(#defaults)* })
    });
    // Up to `MAX_INPUT_FIELDS` arguments, `Serialize` and `Deserialize` are one call each into
    // generic fns of the runtime (the same behaviour as serde's derives, at a fraction of the
    // compile time); beyond that, serde's derives.
    let (serde_derives, serde_impls) = if wire.members.len() <= MAX_INPUT_FIELDS {
        (
            TokenStream::new(),
            input_serde_impls(&p, input_ident, cfgs.clone(), &wire),
        )
    } else {
        (
            quote!(#p::serde::Serialize, #p::serde::Deserialize,),
            TokenStream::new(),
        )
    };

    quote! {
        #(#bounds)*
        #(#cfgs)*
        #[doc = #input_doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, #serde_derives #p::schemars::JsonSchema)]
        #[serde(crate = #serde_path)]
        #[schemars(crate = #schemars_path)]
        #vis struct #input_ident {
            #(#fields)*
        }
        #defaults
        #serde_impls
    }
}

/// Per field of the input struct: its name, wire name and declared default, for the
/// written-out serde impls.
#[derive(Default)]
struct WireFields<'a> {
    members: Vec<TokenStream>,
    field_idents: Vec<&'a Ident>,
    field_spans: Vec<Span>,
    wire_names: Vec<String>,
    default_ptrs: Vec<TokenStream>,
}

impl<'a> WireFields<'a> {
    /// Adds `param` as the next field, spanned at its type.
    fn push(&mut self, param: &'a Param) {
        let ident = &param.ident;
        let ty = &param.ty;
        // Spanned at the argument's type: a type that cannot be read or written is reported
        // there.
        self.members.push(quote_spanned!(ty.span()=> &self.#ident));
        self.field_idents.push(ident);
        self.field_spans.push(ty.span());
        self.wire_names.push(param.wire_name());
        self.default_ptrs.push(match &param.arg.default {
            Some(_) => {
                let default_fn = format_ident!("__default_{}", ident);
                quote_spanned!(ty.span()=> ::core::option::Option::Some(Self::#default_fn as fn() -> _))
            }
            None => quote_spanned!(ty.span()=> ::core::option::Option::None),
        });
    }
}

/// A declared default as the field's `#[serde(default = ...)]` attribute and the hidden fn
/// it names, whose errors point at the default as written.
fn default_item(
    p: &TokenStream,
    input_ident: &Ident,
    param: &Param,
    value: &DefaultValue,
) -> (TokenStream, TokenStream) {
    let ty = &param.ty;
    let default_fn = format_ident!("__default_{}", param.ident);
    let default_fn_path = lit_str(&format!("{input_ident}::{default_fn}"));
    let value = match value {
        DefaultValue::Trait => quote!(<#ty as ::core::default::Default>::default()),
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
    let default_fn_item = quote! {
        #[doc(hidden)]
        fn #default_fn() -> #ty { #value }
    };
    (
        quote!(#[serde(default = #default_fn_path)]),
        default_fn_item,
    )
}

/// The field's `#[schemars(example = ...)]` attribute, if it declares an example.
fn example_attr(param: &Param) -> Option<TokenStream> {
    param.arg.example.as_ref().map(|e| match &e.value {
        // schemars reads a bare string literal as a function path; pass the value.
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => quote!(#[schemars(example = &#s)]),
        expr => quote!(#[schemars(example = #expr)]),
    })
}

/// `Serialize` and `Deserialize` of the input struct as one call each into the runtime's
/// generic fns, in place of serde's derives.
fn input_serde_impls<'a>(
    p: &TokenStream,
    input_ident: &Ident,
    cfgs: impl Iterator<Item = &'a syn::Attribute> + Clone,
    wire: &WireFields<'_>,
) -> TokenStream {
    let WireFields {
        members,
        field_idents,
        field_spans,
        wire_names,
        default_ptrs,
    } = wire;
    let name = input_ident.to_string();
    let locals: Vec<Ident> = (0..members.len())
        .map(|i| format_ident!("__f{}", i))
        .collect();
    let tuple_span = field_spans.first().copied().unwrap_or_else(Span::call_site);
    let mut ser_tuple = Group::new(Delimiter::Parenthesis, quote!(#(#members,)*));
    ser_tuple.set_span(tuple_span);
    let mut de_tuple = Group::new(Delimiter::Parenthesis, quote!(#(#default_ptrs,)*));
    de_tuple.set_span(tuple_span);
    let (ser_cfgs, de_cfgs) = (cfgs.clone(), cfgs.clone());
    quote! {
        #(#ser_cfgs)*
        impl #p::serde::Serialize for #input_ident {
            fn serialize<__S: #p::serde::Serializer>(&self, __s: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                #p::serialize_input(__s, #name, &[#(#wire_names),*], #ser_tuple)
            }
        }
        #(#de_cfgs)*
        impl<'de> #p::serde::Deserialize<'de> for #input_ident {
            fn deserialize<__D: #p::serde::Deserializer<'de>>(__d: __D) -> ::core::result::Result<Self, __D::Error> {
                let (#(#locals,)*) = #p::deserialize_input(__d, #name, &[#(#wire_names),*], #de_tuple)?;
                ::core::result::Result::Ok(Self { #(#field_idents: #locals),* })
            }
        }
    }
}

/// The field's `#[serde(rename = ...)]` attribute, if it is renamed on the wire.
pub(super) fn rename_attr(param: &Param) -> Option<TokenStream> {
    param.arg.rename.as_ref().map(|_| {
        let wire = lit_str(&param.wire_name());
        quote!(#[serde(rename = #wire)])
    })
}
