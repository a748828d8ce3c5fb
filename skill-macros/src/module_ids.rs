//! A skill id declared twice in one module. Each `#[skill]` sees only its own fn, so the
//! second declaration would generate the same marker and input types again and the compiler
//! would report every clashing item and impl (a dozen errors and more). Instead the macro
//! reads the module's source file (where the compiler says the fn is) and, when an earlier
//! fn of the same module carries the same id, reports that one mistake and generates
//! nothing else for the second fn.
//!
//! When the file cannot be read or lexed (a fn made by another macro, an editor's unsaved
//! buffer), nothing is found and the clash is reported by the compiler as before.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::SystemTime;

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// A `#[skill]` fn of a source file: its name and id.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Declared {
    fn_name: String,
    id: Option<String>,
}

/// The fns of each item list of a file (the file, each inline module, each block), in
/// source order, with what the list is.
type Scopes = Vec<(Scope, Vec<Declared>)>;

/// Where an item list is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// A file or an inline `mod`.
    Module,
    /// A block (a fn body).
    Block,
}

impl Scope {
    /// `module`, `block`: for the message.
    pub fn noun(self) -> &'static str {
        match self {
            Scope::Module => "module",
            Scope::Block => "block",
        }
    }
}

/// A file as it was read: its modification time and length, its text, and its scopes once
/// they were needed (`None` inside when it does not lex).
struct ReadFile {
    modified: Option<SystemTime>,
    len: u64,
    text: Rc<str>,
    /// How often each `id = "…"` value is written in the file.
    ids: Rc<HashMap<String, u32>>,
    scopes: Option<Rc<Option<Scopes>>>,
}

thread_local! {
    /// Files already read in this compilation: a file holding many skills is read once, and
    /// split into scopes at most once, not once per skill (again when its time or length
    /// changed).
    static FILES: RefCell<HashMap<PathBuf, ReadFile>> = RefCell::new(HashMap::new());
}

/// The name of the fn declared earlier in the same module (or block) with the skill id
/// `id`, if any, and where. `fn_name` is the fn being expanded; its span tells which file
/// to read. An id written once in the file is unique without more work; only a file where
/// it appears twice is split into scopes.
pub fn earlier_declaration(id: &str, fn_name: &syn::Ident) -> Option<(String, Scope)> {
    if !proc_macro::is_available() {
        return None;
    }
    let path = fn_name.span().unwrap().local_file()?;
    let ids = ids_of(&path)?;
    if ids.get(id).copied().unwrap_or(0) < 2 {
        return None;
    }
    let scopes = scopes_of(&path)?;
    let name = fn_name.to_string();
    earlier_in(scopes.as_ref().as_ref()?, id, &name)
}

/// In the scopes holding `name` with `id`, the first fn before it with the same id.
fn earlier_in(scopes: &Scopes, id: &str, name: &str) -> Option<(String, Scope)> {
    scopes.iter().find_map(|(kind, scope)| {
        let me = scope
            .iter()
            .position(|d| d.fn_name == name && d.id.as_deref() == Some(id))?;
        scope[..me]
            .iter()
            .find(|d| d.id.as_deref() == Some(id))
            .map(|d| (d.fn_name.clone(), *kind))
    })
}

/// The `id = "…"` values of the file at `path` and how often each is written, the file
/// read again only when it changed.
fn ids_of(path: &PathBuf) -> Option<Rc<HashMap<String, u32>>> {
    let meta = std::fs::metadata(path).ok()?;
    let (modified, len) = (meta.modified().ok(), meta.len());
    let cached = FILES.with(|files| {
        files
            .borrow()
            .get(path)
            .filter(|f| f.modified == modified && f.len == len)
            .map(|f| Rc::clone(&f.ids))
    });
    if cached.is_some() {
        return cached;
    }
    let text: Rc<str> = std::fs::read_to_string(path).ok()?.into();
    let ids = Rc::new(id_values(&text));
    FILES.with(|files| {
        files.borrow_mut().insert(
            path.clone(),
            ReadFile {
                modified,
                len,
                text,
                ids: Rc::clone(&ids),
                scopes: None,
            },
        )
    });
    Some(ids)
}

/// Every `id = "value"` of `text` (a key `id`, not the end of a longer word) with how often
/// it is written: one pass over the file, so a skill whose id is written once needs no more.
fn id_values(text: &str) -> HashMap<String, u32> {
    let mut counts = HashMap::new();
    let bytes = text.as_bytes();
    for (at, _) in text.match_indices("id") {
        let word_char = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        if at > 0 && word_char(bytes[at - 1]) {
            continue;
        }
        let rest = text[at + 2..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix('"') else {
            continue;
        };
        if let Some(end) = rest.find('"') {
            *counts.entry(rest[..end].to_string()).or_insert(0) += 1;
        }
    }
    counts
}

/// The scopes of the file [`ids_of`] read last from `path`, split once.
fn scopes_of(path: &PathBuf) -> Option<Rc<Option<Scopes>>> {
    FILES.with(|files| {
        let mut files = files.borrow_mut();
        let file = files.get_mut(path)?;
        let text = Rc::clone(&file.text);
        Some(Rc::clone(
            file.scopes.get_or_insert_with(|| Rc::new(scopes_in(&text))),
        ))
    })
}

/// The `#[skill]` fns of each item list of `source`. The file is only split into tokens
/// (the compiler's lexer, inside a macro), not parsed: a `#[skill(...)]` attribute is taken
/// for the next `fn` of its list, each `{ ... }` is a list of its own (a module's after
/// `mod name`, else a block). `None` when the file does not lex.
fn scopes_in(source: &str) -> Option<Scopes> {
    let tokens: TokenStream = source.parse().ok()?;
    let mut scopes = Vec::new();
    scan(tokens, Scope::Module, &mut scopes);
    Some(scopes)
}

fn scan(tokens: TokenStream, kind: Scope, scopes: &mut Scopes) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut declared = Vec::new();
    // The id of a `#[skill]` attribute waiting for its fn.
    let mut pending: Option<Option<String>> = None;
    let mut next_group = Scope::Block;
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                if let Some(TokenTree::Group(g)) = trees.get(i + 1) {
                    if g.delimiter() == Delimiter::Bracket {
                        if let Some(id) = skill_attribute(g.stream()) {
                            pending = Some(id);
                        }
                        i += 2;
                        continue;
                    }
                }
            }
            TokenTree::Punct(p) if p.as_char() == ';' => pending = None,
            TokenTree::Ident(word) if word == "mod" => next_group = Scope::Module,
            TokenTree::Ident(word) if word == "fn" => {
                if let (Some(TokenTree::Ident(name)), Some(id)) = (trees.get(i + 1), pending.take())
                {
                    declared.push(Declared {
                        fn_name: name.to_string(),
                        id,
                    });
                }
                next_group = Scope::Block;
            }
            TokenTree::Group(g) => {
                if g.delimiter() == Delimiter::Brace {
                    pending = None;
                }
                scan(g.stream(), next_group, scopes);
                next_group = Scope::Block;
            }
            _ => {}
        }
        i += 1;
    }
    if declared.len() > 1 {
        scopes.push((kind, declared));
    }
}

/// For the inside of `#[...]`: `Some(id)` when it is `skill(...)` (any path ending in
/// `skill`), with the `id = "..."` it sets (`None` when there is none), else `None`.
fn skill_attribute(tokens: TokenStream) -> Option<Option<String>> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let (path, args) = match trees.last() {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
            (&trees[..trees.len() - 1], Some(g.stream()))
        }
        _ => (&trees[..], None),
    };
    let is_path = path.iter().all(|t| match t {
        TokenTree::Ident(_) => true,
        TokenTree::Punct(p) => p.as_char() == ':',
        _ => false,
    });
    match path.last() {
        Some(TokenTree::Ident(last)) if is_path && last == "skill" => {}
        _ => return None,
    }
    let args: Vec<TokenTree> = args.map(|a| a.into_iter().collect()).unwrap_or_default();
    let id = args.windows(3).find_map(|w| match w {
        [TokenTree::Ident(key), TokenTree::Punct(eq), TokenTree::Literal(lit)]
            if key == "id" && eq.as_char() == '=' =>
        {
            syn::parse_str::<syn::LitStr>(&lit.to_string())
                .ok()
                .map(|s| s.value())
        }
        _ => None,
    });
    Some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"
        /// a
        #[skill(id = "find_client")]
        fn find_client(name: String) -> String { name }

        /// b
        #[skill(id = "other", category = "query")]
        fn other() {}

        /// c
        #[skill_core::skill(category = "query", id = "find_client")]
        fn find_client_again(name: String) -> String { name }

        mod inner {
            #[skill(id = "find_client")]
            fn find_client_here() {}
            #[skill(id = "solo")]
            fn solo() {}
        }

        fn host() {
            #[skill(id = "local")]
            fn one() {}
            #[skill(id = "local")]
            fn two() {}
        }
    "#;

    #[test]
    fn an_id_used_earlier_in_the_same_item_list_is_found() {
        let scopes = scopes_in(SOURCE).unwrap();
        assert_eq!(
            earlier_in(&scopes, "find_client", "find_client_again"),
            Some(("find_client".to_string(), Scope::Module))
        );
        assert_eq!(
            earlier_in(&scopes, "local", "two"),
            Some(("one".to_string(), Scope::Block))
        );
    }

    #[test]
    fn the_first_declaration_and_other_modules_are_left_alone() {
        let scopes = scopes_in(SOURCE).unwrap();
        assert_eq!(earlier_in(&scopes, "find_client", "find_client"), None);
        assert_eq!(earlier_in(&scopes, "find_client", "find_client_here"), None);
        assert_eq!(earlier_in(&scopes, "other", "other"), None);
        assert_eq!(earlier_in(&scopes, "local", "one"), None);
    }

    #[test]
    fn id_values_are_counted_in_one_pass() {
        let counts = id_values(
            r#"#[skill(id = "a")] #[skill(category = "q", id="a")] #[skill( id =  "b" )]
               let valid = "a"; let id = 3; paid = "a";"#,
        );
        assert_eq!(counts.get("a"), Some(&2));
        assert_eq!(counts.get("b"), Some(&1));
        assert_eq!(counts.len(), 2);
    }

    #[test]
    fn a_file_that_does_not_lex_finds_nothing() {
        assert_eq!(scopes_in("fn broken( {"), None);
    }

    #[test]
    fn other_attributes_and_items_do_not_take_the_id() {
        let source = r#"
            #[skill(id = "x")]
            struct NotAFn;
            #[derive(Debug)]
            #[skill(id = "y")]
            /// docs
            pub async fn first() {}
            #[cfg(test)]
            fn plain() {}
            #[skill(id = "y")]
            pub(crate) fn second() {}
            #[skill(id = "x")]
            fn third() {}
        "#;
        let scopes = scopes_in(source).unwrap();
        assert_eq!(
            earlier_in(&scopes, "y", "second"),
            Some(("first".to_string(), Scope::Module))
        );
        assert_eq!(earlier_in(&scopes, "x", "third"), None);
        assert_eq!(earlier_in(&scopes, "y", "plain"), None);
    }
}
