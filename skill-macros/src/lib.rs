//! Procedural macros of toolwright. Use them through `toolwright` (which re-exports them).
//!
//! `#[skill]` follows serde_derive's shape: parse the attribute and the fn into a model
//! (`ast`, `attr`), check it and collect every problem with its span (`check`,
//! `ctxt`), then generate code that calls into `toolwright::__private` (`expand`).

mod ast;
mod attr;
mod check;
mod ctxt;
mod data;
mod expand;
mod rules;

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
/// # Keys of `#[skill(...)]`
///
/// `id` (required; `[A-Za-z0-9_-]`, `.` between parts, at most 64 characters), `name`,
/// `domain` (`"*"`), `category` (`"general"`), `status` (`"active"`, `"disabled"`,
/// `"deprecated"`), `version`, `timeout_ms`, `requires_confirmation`, `confirm` (the sentence
/// a pending confirmation shows, with `{argument}` placeholders: `confirm = "Delete task
/// {task_id}"`; implies `requires_confirmation = true` unless that is set), `idempotent`,
/// `open_world`, `marker` (name of the generated marker type, by default the fn's name in
/// CamelCase), `crate` (path of `toolwright` when it is reached through another crate; a
/// dependency renamed in Cargo.toml is found without it), `register` (`true`;
/// `false` keeps the skill out of `Dispatcher::from_inventory()`, for tools a host offers in
/// one place only and adds with `DispatcherBuilder::skill(Marker::registration())`). A
/// misspelt key is reported with the closest known one.
///
/// # Ids are unique
///
/// An id declared twice in one module (or block) is one error, at the second id: each skill
/// defines a `const skill_id_<id>` beside its fn (`.` written `_`, `-` written `_hyphen_`),
/// and the compiler reports the second definition ("the name `skill_id_find_client` is
/// defined multiple times"), pointing back at the first. Everything else is named after the
/// fn, so nothing else clashes. The `const` carries the fn's `#[cfg]`s: two skills may share
/// an id under mutually exclusive `cfg`s. Ids clashing across modules are refused when the
/// registry is built, naming both source locations.
///
/// # Parameters
///
/// Each parameter is a model argument (documented with `///`; its doc comment is the
/// argument's description), an injected value, or, marked `#[input]`, the whole input in
/// one struct. Attributes of model arguments: `#[arg(default)]`, `#[arg(default = expr)]`,
/// `#[arg(prepare = path)]`, `#[arg(rename = "...")]`, `#[arg(example = expr)]`,
/// `#[arg(kind = "...")]`, `#[arg(case_sensitive = bool)]`.
///
/// A parameter is injected from the `SkillContext` (and never shown to the model) when its
/// type is toolwright's own by its path: `Inject<T>`, `Option<Inject<T>>` or `&SkillContext`,
/// written bare (as the prelude imports them), as `toolwright::Inject<T>` /
/// `toolwright::prelude::Inject<T>`, or through the path given by `crate = "..."`; or when
/// it is marked `#[inject]` (for your own `FromSkillContext` extractors). The last path
/// segment alone never decides: `models::Inject<T>`, `crate::Inject`, `self::SkillContext`
/// are your own types and therefore model arguments. Only a *bare* `Inject<..>` or
/// `&SkillContext` cannot be told apart from toolwright's by its path, so it is taken as
/// toolwright's; write your own type of that name with a path (`self::Inject<T>`).
///
/// # Sync and async fns
///
/// The fn may be `async` or not. A sync fn is called directly inside the skill's future, on
/// the thread that polls it (a Tokio worker under the dispatcher): it does not leave the
/// runtime, so blocking work (file or database I/O, heavy computation) there stalls that
/// worker and the skill's `timeout_ms` cannot interrupt it. Make such skills `async` and
/// move the blocking part to `tokio::task::spawn_blocking`.
///
/// # What is generated
///
/// Named after the fn (`fn find_client` gives `FindClient`): `FindClientInput` (the
/// arguments, `Serialize + Deserialize + JsonSchema`), the marker `FindClient: Skill`, a
/// link-time registration, and the id's `const`; each under the fn's `#[cfg]`s. The rest of the work (reading
/// arguments, invoking, caching schemas) is done by generic functions of the runtime, so
/// each skill adds little to compile times.
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
    // The body is passed through as the one token tree it is: syn reads only the signature,
    // and the body's tokens are neither parsed nor emitted again one by one.
    let (head, body) = split_body(input.clone().into());
    let parsed = match &body {
        Some(_) => syn::parse2::<syn::ItemFn>(quote!(#head {})),
        None => syn::parse2::<syn::ItemFn>(head),
    };
    let item: syn::ItemFn = match parsed {
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
    let skill = ast::SkillFn::parse(&mut cx, item, body, &check::crate_path(&attr));
    let config = check::check(&mut cx, &attr, &skill, attr_span);
    if cx.has_errors() {
        let marker_ok = config.marker_usable;
        let dummy = expand::dummy(&skill, &config, marker_ok);
        let errors = cx.into_compile_errors();
        return quote!(#dummy #errors).into();
    }
    expand::expand(&skill, &config).into()
}

/// Derives `Serialize`, `Deserialize` and `JsonSchema` for a skill's own input or output
/// type through toolwright's re-exports of serde and schemars, so the crate needs no
/// dependency on either.
///
/// ```ignore
/// /// How often words occur in a text.
/// #[skill_data]
/// #[derive(Debug)]
/// pub struct WordStats {
///     /// Number of words counted.
///     pub words: usize,
/// }
/// ```
///
/// serde's and schemars' own attributes (`#[serde(rename_all = "...")]`, `#[schemars(...)]`)
/// work on the item as with the derives. The one key, `crate = "..."`, names toolwright's
/// path when the macro cannot find it in the crate's Cargo.toml.
#[proc_macro_attribute]
pub fn skill_data(args: TokenStream, input: TokenStream) -> TokenStream {
    data::expand(args.into(), input.into()).into()
}

/// The fn's tokens before its body, and the body (`{ ... }`) when the fn ends in one.
fn split_body(
    input: proc_macro2::TokenStream,
) -> (proc_macro2::TokenStream, Option<proc_macro2::TokenTree>) {
    let mut trees: Vec<proc_macro2::TokenTree> = input.into_iter().collect();
    let body = match trees.last() {
        Some(proc_macro2::TokenTree::Group(g))
            if g.delimiter() == proc_macro2::Delimiter::Brace =>
        {
            trees.pop()
        }
        _ => None,
    };
    (trees.into_iter().collect(), body)
}
