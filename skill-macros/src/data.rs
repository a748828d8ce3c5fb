//! `#[skill_data]`: serde's and schemars' derives for a skill's own input and output types,
//! reached through toolwright's re-exports, so a skill crate needs no `serde` or `schemars`
//! line of its own.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Item, LitStr, Path};

use crate::check::default_crate_path;

/// Expands `#[skill_data(args)] item`, or into the item and a compile error naming what is
/// wrong with the attribute or the item.
pub fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let krate = match parse_args(args) {
        Ok(krate) => krate.unwrap_or_else(default_crate_path),
        Err(err) => {
            let err = err.to_compile_error();
            return quote!(#err #input);
        }
    };
    match syn::parse2::<Item>(input.clone()) {
        Ok(Item::Struct(_) | Item::Enum(_)) => {}
        _ => {
            let err = syn::Error::new_spanned(
                &input,
                "#[skill_data] goes on a struct or an enum: `#[skill_data] pub struct Answer { ... }`",
            )
            .to_compile_error();
            return quote!(#err #input);
        }
    }
    let p = quote!(#krate::__private);
    let serde_path = LitStr::new(
        &quote!(#p::serde).to_string().replace(' ', ""),
        Span::call_site(),
    );
    let schemars_path = LitStr::new(
        &quote!(#p::schemars).to_string().replace(' ', ""),
        Span::call_site(),
    );
    quote! {
        #[derive(#p::serde::Serialize, #p::serde::Deserialize, #p::schemars::JsonSchema)]
        #[serde(crate = #serde_path)]
        #[schemars(crate = #schemars_path)]
        #input
    }
}

/// `crate = "path"`, the only key: the path of toolwright when the caller reaches it under
/// a name the macro cannot read from Cargo.toml.
fn parse_args(args: TokenStream) -> syn::Result<Option<Path>> {
    let mut krate = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("crate") {
            if krate.is_some() {
                return Err(meta.error("`crate` is given twice"));
            }
            let lit: LitStr = meta.value()?.parse()?;
            krate = Some(lit.parse::<Path>().map_err(|_| {
                syn::Error::new_spanned(&lit, "`crate` must name a path, e.g. \"::toolwright\"")
            })?);
            Ok(())
        } else {
            Err(meta.error(
                "unknown key of #[skill_data]: the only key is `crate = \"path::to::toolwright\"`",
            ))
        }
    });
    syn::parse::Parser::parse2(parser, args)?;
    Ok(krate)
}
