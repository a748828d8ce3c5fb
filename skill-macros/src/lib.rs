//! Procedural macros of skillkit. Use them through `skill_core` (which re-exports them).
//!
//! `#[skill]` follows serde_derive's shape: parse the attribute and the fn into a model
//! ([`ast`], [`attr`]), check it and collect every problem with its span ([`check`],
//! [`ctxt`]), then generate code that calls into `skill_core::__private` ([`expand`]).

mod ast;
mod attr;
mod check;
mod ctxt;
mod expand;

use proc_macro::TokenStream;
use quote::quote;

/// Turns a documented fn into a self-describing skill.
///
/// ```ignore
/// /// Search the reference documents for passages relevant to a clause.
/// #[skill(id = "search_reference_doc", domain = "*", category = "retrieval")]
/// pub async fn search_reference_doc(
///     /// Clause number to search for, for example "4.1".
///     clause_id: String,
///     /// How many passages to return.
///     #[arg(default = 5)]
///     top_k: u32,
///     docs: Inject<ReferenceDocs>,
/// ) -> Result<SearchHits, SkillError> { /* ... */ }
/// ```
///
/// Keys: `id` (required), `name`, `domain` (`"*"`), `category` (`"general"`), `status`
/// (`"active"`, `"disabled"`, `"deprecated"`), `version`, `timeout_ms`,
/// `requires_confirmation`, `idempotent`, `open_world`, `marker` (name of the generated
/// marker type, by default the id in CamelCase), `crate` (path of `skill_core`).
/// Parameter attributes: `#[arg(default)]`, `#[arg(default = expr)]`,
/// `#[arg(prepare = path)]`, `#[arg(rename = "...")]`, `#[arg(example = expr)]`,
/// `#[arg(kind = "...")]`, `#[arg(case_sensitive = bool)]`, `#[input]`, `#[inject]`.
#[proc_macro_attribute]
pub fn skill(args: TokenStream, input: TokenStream) -> TokenStream {
    let args = proc_macro2::TokenStream::from(args);
    let attr_span = if args.is_empty() {
        proc_macro2::Span::call_site()
    } else {
        syn::spanned::Spanned::span(&args)
    };
    let mut cx = ctxt::Ctxt::default();
    let attr = attr::SkillAttr::parse(&mut cx, args);
    let item: syn::ItemFn = match syn::parse(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let item = proc_macro2::TokenStream::from(input);
            let err = syn::Error::new_spanned(
                &item,
                "#[skill] goes on a fn: `#[skill(id = \"...\")] async fn name(...) -> Result<T, SkillError>`",
            )
            .to_compile_error();
            return quote!(#err #item).into();
        }
    };
    let skill = ast::SkillFn::parse(&mut cx, item);
    let config = check::check(&mut cx, &attr, &skill, attr_span);
    if cx.has_errors() {
        let item = &skill.item;
        let errors = cx.into_compile_errors();
        return quote!(#item #errors).into();
    }
    expand::expand(&skill, &config).into()
}
