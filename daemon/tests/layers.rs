//! No import cycles between the modules of `daemon/` and `engine/`: the test
//! that keeps the layering of the docs' "Architecture: the layers" page true.
//!
//! How it reads the code (no compiler, so it runs in a second): every source
//! file of each crate is parsed with `syn`; a file is one node of the graph
//! (`api/mod.rs` is the module `api`, `api/keys.rs` the module `api::keys`).
//! Each path the file names that starts with `crate::`, `super::`, `self::`,
//! one of its own submodules, or a name it imported with `use` (in `use`
//! items, types, expressions, patterns, and inside macro calls such as
//! `html! { … }`) is resolved to the deepest module it goes through, following
//! `pub use` re-exports (so `crate::Error` counts as a use of `error.rs`,
//! not of `lib.rs`). That gives an edge from the file to that module's file.
//!
//! A parent naming its own submodules is not an edge: declaring and wiring
//! its children is what a `mod.rs` is for (the "owns" relation, kept apart
//! from "uses" as `cargo modules` does). Items under `#[cfg(test)]` are left
//! out: a test may reach whatever it tests with, the layering is the built
//! library's. Every other edge counts. Any strongly connected set of two or
//! more files is a cycle and fails the test, which prints the cycle and the
//! path that makes each step.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module's path inside its crate (`[]` is the crate root).
type ModPath = Vec<String>;

/// One crate's modules, imports and uses.
#[derive(Default)]
struct Crate {
    /// Every module that is a file, to the file.
    files: BTreeMap<ModPath, PathBuf>,
    /// Every module, file or inline (`mod tests { … }`), to the module whose
    /// file holds it.
    modules: BTreeMap<ModPath, ModPath>,
    /// Names brought into each module by `use` (any visibility): name to the
    /// absolute path it stands for.
    imports: BTreeMap<ModPath, BTreeMap<String, ModPath>>,
    /// The paths each module names, as written, with the text for the report.
    uses: Vec<(ModPath, Vec<String>, String)>,
}

/// The source files of the crate under `src`: `lib.rs` and every module file
/// below it (a `main.rs` or `bin/` is not part of the library's graph).
fn module_files(src: &Path) -> Vec<(ModPath, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "bin") {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).expect("below src");
            let mut parts: ModPath = rel
                .iter()
                .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
                .collect();
            match parts.last().map(String::as_str) {
                Some("lib") if parts.len() == 1 => {
                    parts.pop();
                }
                Some("main") if parts.len() == 1 => continue,
                Some("mod") => {
                    parts.pop();
                }
                _ => {}
            }
            out.push((parts, path));
        }
    }
    out
}

/// Walks one file: records inline modules, imports and every path named.
struct FileVisitor<'a> {
    krate: &'a mut Crate,
    /// The file's module.
    file: ModPath,
    /// The module being read (the file's, or an inline one inside it).
    current: ModPath,
}

impl FileVisitor<'_> {
    fn use_tree(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(&p.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                let mut path = prefix.clone();
                if name != "self" {
                    path.push(name.clone());
                }
                let alias = if name == "self" {
                    prefix.last().cloned().unwrap_or_default()
                } else {
                    name
                };
                self.import(alias, path);
            }
            syn::UseTree::Rename(r) => {
                let mut path = prefix.clone();
                if r.ident != "self" {
                    path.push(r.ident.to_string());
                }
                self.import(r.rename.to_string(), path);
            }
            syn::UseTree::Glob(_) => self.record(prefix.clone(), "*"),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(t, prefix);
                }
            }
        }
    }

    fn import(&mut self, alias: String, path: Vec<String>) {
        self.record(path.clone(), "");
        self.krate
            .imports
            .entry(self.current.clone())
            .or_default()
            .insert(alias, path);
    }

    fn record(&mut self, path: Vec<String>, suffix: &str) {
        if path.is_empty() {
            return;
        }
        let text = format!("{}{}", path.join("::"), suffix);
        self.krate.uses.push((self.current.clone(), path, text));
    }

    /// Paths inside a macro call's tokens (`crate::a::b`, `super::x`, …).
    fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
        let mut path: Vec<String> = Vec::new();
        let mut colons = 0;
        let flush = |path: &mut Vec<String>, this: &mut Self| {
            if path.len() > 1 {
                this.record(std::mem::take(path), "");
            }
            path.clear();
        };
        for tree in tokens {
            match tree {
                proc_macro2::TokenTree::Ident(i) => {
                    if path.is_empty() || colons == 2 {
                        path.push(i.to_string());
                    } else {
                        flush(&mut path, self);
                        path.push(i.to_string());
                    }
                    colons = 0;
                }
                proc_macro2::TokenTree::Punct(p) if p.as_char() == ':' && !path.is_empty() => {
                    colons += 1;
                }
                proc_macro2::TokenTree::Group(g) => {
                    flush(&mut path, self);
                    colons = 0;
                    self.tokens(g.stream());
                }
                _ => {
                    flush(&mut path, self);
                    colons = 0;
                }
            }
        }
        flush(&mut path, self);
    }
}

/// Whether `attrs` hold `#[cfg(test)]`.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
    })
}

/// The attributes of an item (the kinds a `#[cfg(test)]` goes on).
fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        _ => &[],
    }
}

impl<'ast> Visit<'ast> for FileVisitor<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        // Test code may reach anything it tests with; the layering is the
        // built library's.
        if !is_test_only(item_attrs(item)) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let mut inner = self.current.clone();
        inner.push(m.ident.to_string());
        if let Some((_, items)) = &m.content {
            self.krate.modules.insert(inner.clone(), self.file.clone());
            let outer = std::mem::replace(&mut self.current, inner);
            for item in items {
                self.visit_item(item);
            }
            self.current = outer;
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut prefix = Vec::new();
        if u.leading_colon.is_some() {
            return; // `::name` is an external crate.
        }
        self.use_tree(&u.tree, &mut prefix);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() && p.segments.len() > 1 {
            let path = p.segments.iter().map(|s| s.ident.to_string()).collect();
            self.record(path, "");
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.visit_path(&m.path);
        self.tokens(m.tokens.clone());
    }
}

impl Crate {
    fn read(src: &Path) -> Crate {
        let mut krate = Crate::default();
        let files = module_files(src);
        for (module, path) in &files {
            krate.files.insert(module.clone(), path.clone());
            krate.modules.insert(module.clone(), module.clone());
        }
        for (module, path) in files {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            let file = syn::parse_file(&text)
                .unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()));
            let mut visitor = FileVisitor {
                krate: &mut krate,
                file: module.clone(),
                current: module,
            };
            visitor.visit_file(&file);
        }
        krate
    }

    /// The absolute path `path`, named in `module`, stands for; `None` for a
    /// path outside the crate (another crate, a local item, a generic).
    fn absolute(&self, module: &ModPath, path: &[String]) -> Option<ModPath> {
        self.absolute_within(module, path, 0)
    }

    /// [`Crate::absolute`], `depth` imports deep: a chain of imports ends
    /// after a few steps, so a longer one is a `use` loop and names nothing.
    fn absolute_within(&self, module: &ModPath, path: &[String], depth: usize) -> Option<ModPath> {
        if depth > 16 {
            return None;
        }
        let first = path.first()?;
        let (mut base, rest) = match first.as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "self" => (module.clone(), &path[1..]),
            "super" => {
                let mut base = module.clone();
                let mut rest = path;
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
                (base, rest)
            }
            name => {
                let mut child = module.clone();
                child.push(name.to_string());
                if self.modules.contains_key(&child) {
                    (module.clone(), path)
                } else {
                    let target = self.imports.get(module)?.get(name)?;
                    if target.first() == Some(first) && target.len() == 1 {
                        return None; // `use serde;`-style: another crate.
                    }
                    let mut full = self.absolute_within(module, target, depth + 1)?;
                    full.extend_from_slice(&path[1..]);
                    return Some(full);
                }
            }
        };
        base.extend_from_slice(rest);
        Some(base)
    }

    /// The file module an absolute path goes into: the deepest module it
    /// names, following re-exports (`pub use`) of the modules on the way.
    fn target(&self, path: &[String]) -> ModPath {
        let mut path = path.to_vec();
        // Re-exports chain a few times at most; the bound keeps a `use`
        // loop from spinning.
        for _ in 0..16 {
            let mut module: ModPath = Vec::new();
            let mut redirected = None;
            for (i, seg) in path.iter().enumerate() {
                let mut next = module.clone();
                next.push(seg.clone());
                if self.modules.contains_key(&next) {
                    module = next;
                    continue;
                }
                if let Some(target) = self.imports.get(&module).and_then(|m| m.get(seg)) {
                    if let Some(mut full) = self.absolute(&module, target) {
                        full.extend_from_slice(&path[i + 1..]);
                        if full != path {
                            redirected = Some(full);
                        }
                    }
                }
                break;
            }
            match redirected {
                Some(p) => path = p,
                None => return self.modules.get(&module).cloned().unwrap_or(module),
            }
        }
        Vec::new()
    }

    /// Edges between file modules, each with one path that makes it.
    fn edges(&self) -> BTreeMap<(ModPath, ModPath), String> {
        let mut edges = BTreeMap::new();
        for (module, path, text) in &self.uses {
            let Some(abs) = self.absolute(module, path) else {
                continue;
            };
            let from = self.modules.get(module).cloned().unwrap_or_default();
            let to = self.target(&abs);
            // A module naming itself or its own descendants is not a use.
            if to.starts_with(&from) {
                continue;
            }
            edges.entry((from, to)).or_insert_with(|| text.clone());
        }
        edges
    }
}

fn name(module: &ModPath) -> String {
    if module.is_empty() {
        "crate".to_string()
    } else {
        module.join("::")
    }
}

/// Every strongly connected set of two or more modules (Tarjan's algorithm,
/// iterative so a deep graph cannot overflow the stack).
fn cycles(nodes: &[ModPath], edges: &BTreeMap<(ModPath, ModPath), String>) -> Vec<Vec<ModPath>> {
    let index_of: BTreeMap<&ModPath, usize> =
        nodes.iter().enumerate().map(|(i, n)| (n, i)).collect();
    let mut succ = vec![Vec::new(); nodes.len()];
    for (from, to) in edges.keys() {
        if let (Some(&a), Some(&b)) = (index_of.get(from), index_of.get(to)) {
            succ[a].push(b);
        }
    }
    let n = nodes.len();
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut out, mut next) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some(&w) = succ[v].get(*i) {
                *i += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut set = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    set.push(nodes[w].clone());
                    if w == v {
                        break;
                    }
                }
                if set.len() > 1 {
                    set.sort();
                    out.push(set);
                }
            }
        }
    }
    out
}

/// The cycles of one crate, described for the failure message.
fn crate_cycles(src: &Path) -> Vec<String> {
    let krate = Crate::read(src);
    let edges = krate.edges();
    let nodes: Vec<ModPath> = krate.files.keys().cloned().collect();
    cycles(&nodes, &edges)
        .into_iter()
        .map(|set| {
            let members: BTreeSet<&ModPath> = set.iter().collect();
            let mut lines = vec![format!(
                "cycle among {}:",
                set.iter().map(name).collect::<Vec<_>>().join(", ")
            )];
            for ((from, to), text) in &edges {
                if members.contains(from) && members.contains(to) {
                    lines.push(format!("  {} -> {} (names `{text}`)", name(from), name(to)));
                }
            }
            lines.join("\n")
        })
        .collect()
}

/// Runs `f` on a thread with room for `syn`'s recursive descent through
/// the biggest files (an unoptimized build needs more than a test
/// thread's default stack).
fn with_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(f)
        .expect("spawning the reader thread")
        .join()
        .expect("the reader thread panicked")
}

#[test]
fn daemon_and_engine_have_no_import_cycles() {
    with_big_stack(no_import_cycles);
}

fn no_import_cycles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for krate in ["daemon", "engine"] {
        for cycle in crate_cycles(&root.join(krate).join("src")) {
            found.push(format!("{krate}: {cycle}"));
        }
    }
    assert!(
        found.is_empty(),
        "module import cycles (a lower layer must not name an upper one; see docs/src/architecture.md):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checker_finds_a_cycle_and_follows_re_exports() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).expect("mkdir");
    std::fs::write(
        src.join("lib.rs"),
        "pub mod a; pub mod b; pub mod c; pub use c::Thing;",
    )
    .expect("write");
    std::fs::write(src.join("a/mod.rs"), "pub mod x; use x::Y; pub struct A;").expect("write");
    std::fs::write(src.join("a/x.rs"), "pub struct Y(super::A);").expect("write");
    std::fs::write(src.join("b.rs"), "pub fn f() -> crate::Thing { todo!() }").expect("write");
    std::fs::write(
        src.join("c.rs"),
        "pub struct Thing; fn g() { let _ = format!(\"{:?}\", crate::a::A); }\n\
         #[cfg(test)] mod tests { fn t() { crate::b::f(); } }",
    )
    .expect("write");
    // A parent using its child and the child using its parent: no cycle;
    // nor test code using what uses it (`c`'s tests call `b`, `b` names `c`).
    assert!(crate_cycles(src).is_empty(), "{:?}", crate_cycles(src));
    // `crate::Thing` is `c.rs` (through the re-export): c -> a, a -> c.
    std::fs::write(
        src.join("a/mod.rs"),
        "pub mod x; pub struct A(crate::Thing);",
    )
    .expect("write");
    let found = crate_cycles(src);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("cycle among a, c:"), "{}", found[0]);
}
