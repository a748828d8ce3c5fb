//! A skill id declared twice in one module. Each `#[skill]` sees only its own fn, so the
//! second declaration would generate the same marker and input types again and the compiler
//! would report every clashing item and impl (a dozen errors and more). Instead the macro
//! reads the module's source file (where the compiler says the fn is) and, when an earlier
//! fn of the same module carries the same id, reports that one mistake and generates
//! nothing else for the second fn.
//!
//! When the file cannot be read or parsed (a fn made by another macro, an editor's unsaved
//! buffer), nothing is found and the clash is reported by the compiler as before.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::SystemTime;

use syn::visit::Visit;

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

/// A file as it was read: its modification time and length, and its scopes.
type ReadFile = (Option<SystemTime>, u64, Rc<Scopes>);

thread_local! {
    /// Files already read in this compilation: a file holding many skills is parsed once,
    /// not once per skill (read again when its time or length changed).
    static FILES: RefCell<HashMap<PathBuf, ReadFile>> = RefCell::new(HashMap::new());
}

/// The name of the fn declared earlier in the same module (or block) with the skill id
/// `id`, if any, and where. `fn_name` is the fn being expanded; its span tells which file
/// to read.
pub fn earlier_declaration(id: &str, fn_name: &syn::Ident) -> Option<(String, Scope)> {
    if !proc_macro::is_available() {
        return None;
    }
    let path = fn_name.span().unwrap().local_file()?;
    let scopes = scopes_of(path)?;
    let name = fn_name.to_string();
    earlier_in(&scopes, id, &name)
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

fn scopes_of(path: PathBuf) -> Option<Rc<Scopes>> {
    let meta = std::fs::metadata(&path).ok()?;
    let (modified, len) = (meta.modified().ok(), meta.len());
    let cached = FILES.with(|files| {
        files
            .borrow()
            .get(&path)
            .filter(|(m, l, _)| *m == modified && *l == len)
            .map(|(_, _, scopes)| Rc::clone(scopes))
    });
    if cached.is_some() {
        return cached;
    }
    let source = std::fs::read_to_string(&path).ok()?;
    let scopes = Rc::new(scopes_in(&source)?);
    FILES.with(|files| {
        files
            .borrow_mut()
            .insert(path, (modified, len, Rc::clone(&scopes)))
    });
    Some(scopes)
}

/// The `#[skill]` fns of each item list of `source`.
fn scopes_in(source: &str) -> Option<Scopes> {
    let file = syn::parse_file(source).ok()?;
    let mut collector = Collector::default();
    collector.scope(Scope::Module, &file.items);
    collector.visit_file(&file);
    Some(collector.scopes)
}

#[derive(Default)]
struct Collector {
    scopes: Scopes,
}

impl Collector {
    fn scope<'a>(&mut self, kind: Scope, items: impl IntoIterator<Item = &'a syn::Item>) {
        let declared: Vec<Declared> = items
            .into_iter()
            .filter_map(|item| match item {
                syn::Item::Fn(f) => skill_id(&f.attrs).map(|id| Declared {
                    fn_name: f.sig.ident.to_string(),
                    id,
                }),
                _ => None,
            })
            .collect();
        if declared.len() > 1 {
            self.scopes.push((kind, declared));
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_mod(&mut self, module: &'ast syn::ItemMod) {
        if let Some((_, items)) = &module.content {
            self.scope(Scope::Module, items);
        }
        syn::visit::visit_item_mod(self, module);
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        self.scope(
            Scope::Block,
            block.stmts.iter().filter_map(|stmt| match stmt {
                syn::Stmt::Item(item) => Some(item),
                _ => None,
            }),
        );
        syn::visit::visit_block(self, block);
    }
}

/// `Some(id)` for a fn with a `#[skill(...)]` attribute (`Some(None)` when its id cannot be
/// read), `None` for any other fn.
fn skill_id(attrs: &[syn::Attribute]) -> Option<Option<String>> {
    let attr = attrs
        .iter()
        .find(|a| a.path().segments.last().is_some_and(|s| s.ident == "skill"))?;
    let syn::Meta::List(list) = &attr.meta else {
        return Some(None);
    };
    let tokens: Vec<proc_macro2::TokenTree> = list.tokens.clone().into_iter().collect();
    let id = tokens.windows(3).find_map(|w| match w {
        [proc_macro2::TokenTree::Ident(key), proc_macro2::TokenTree::Punct(eq), proc_macro2::TokenTree::Literal(lit)]
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
    fn an_unparsable_file_finds_nothing() {
        assert_eq!(scopes_in("fn broken( {"), None);
    }
}
