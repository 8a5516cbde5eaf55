//! The crate's layering, checked from its source: reads every `rust/**/*.rs` file, collects the
//! references one module makes to another (`use crate::x`, `crate::x::…` anywhere in the code,
//! `super::x` to a sibling file), and fails when
//!
//! * a top-level module references one in a *higher* layer of [`LAYERS`], or one in its own
//!   layer (modules of one layer are independent of each other),
//! * a module missing from [`LAYERS`] appears (every new top-level module picks its layer here),
//! * the references between the top-level modules, or between the files of one folder (e.g.
//!   `bindings/*.rs`), form a cycle.
//!
//! Test code (`#[cfg(test)]` items, `tests.rs` and `*_tests.rs` files) is left out: a unit test
//! may build an index with `crate::build` to exercise a lower layer.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, lowest first; a module may only reference modules of lower layers.
/// Keep in step with the `//!` doc of `rust/lib.rs`.
const LAYERS: &[&[&str]] = &[
    &["alloc", "error", "pool"],
    &["text"],
    &["analysis"],
    &["index"],
    &["build", "search"],
    &["snapshot", "update"],
    &["bindings"],
];

/// A parsed source file: its module path from the crate root (`["search", "prune", "parallel"]`)
/// and its non-test code.
struct Source {
    module: Vec<String>,
    /// Whether the file is a folder's `mod.rs` (its `super` is one level higher).
    is_mod: bool,
    code: String,
}

fn rust_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("rust")
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            // This folder holds the crate's integration tests, not modules of the crate.
            if path != rust_dir().join("tests") {
                collect(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `code` without comments, string literals and `#[cfg(test)]` items.
fn strip(code: &str) -> String {
    let mut out = String::new();
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            // Skip the next item: to its end `;` on the same line, or to its closing brace.
            let mut depth = 0i32;
            let mut opened = false;
            for item in lines.by_ref() {
                let item = item.split("//").next().unwrap_or("");
                depth += item.matches('{').count() as i32 - item.matches('}').count() as i32;
                opened |= item.contains('{');
                if (!opened && item.trim_end().ends_with(';')) || (opened && depth <= 0) {
                    break;
                }
            }
            continue;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        let mut kept = String::new();
        let mut in_string = false;
        let mut prev = ' ';
        for c in line.chars() {
            if c == '"' && prev != '\\' {
                in_string = !in_string;
            } else if !in_string {
                if c == '/' && prev == '/' {
                    kept.pop();
                    break;
                }
                kept.push(c);
            }
            prev = c;
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

fn sources() -> Vec<Source> {
    let root = rust_dir();
    let mut paths = Vec::new();
    collect(&root, &mut paths);
    paths.sort();
    let mut sources = Vec::new();
    for path in paths {
        let rel = path.strip_prefix(&root).unwrap().with_extension("");
        let mut module: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let is_mod = module.last().is_some_and(|m| m == "mod");
        if is_mod || module == ["lib"] {
            module.pop();
        }
        if module
            .last()
            .is_some_and(|m| m == "tests" || m.ends_with("_tests"))
        {
            continue;
        }
        let code = strip(&fs::read_to_string(&path).unwrap());
        sources.push(Source {
            module,
            is_mod,
            code,
        });
    }
    sources
}

/// The identifiers that follow each occurrence of `prefix` in `code` (`crate::index::Index`
/// gives `index` for the prefix `crate::`; a `use crate::{a, b}` group gives `a` and `b`).
fn names_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The references between top-level modules, and between the files of each folder
/// (keyed by the folder's path, e.g. `"bindings"`).
fn graphs(sources: &[Source]) -> (Graph, BTreeMap<String, Graph>) {
    let top: BTreeSet<String> = sources
        .iter()
        .filter_map(|s| s.module.first().cloned())
        .collect();
    let mut modules = Graph::new();
    for name in &top {
        modules.insert(name.clone(), BTreeSet::new());
    }
    let mut folders: BTreeMap<String, Graph> = BTreeMap::new();
    for source in sources {
        let Some(own) = source.module.first() else {
            continue; // lib.rs: the crate root declares every module.
        };
        for target in names_after(&source.code, "crate::") {
            if top.contains(&target) && &target != own {
                modules.get_mut(own).unwrap().insert(target);
            }
        }
        // Sibling edges: from `a/b/c.rs`, `super::d` names `a/b/d.rs` when that file exists;
        // `crate::a::b::d` names it too.
        let parent: Vec<String> = source.module[..source.module.len() - 1].to_vec();
        if source.is_mod && source.module.len() < 2 {
            continue;
        }
        let Some(me) = source.module.last() else {
            continue;
        };
        let siblings: BTreeSet<String> = sources
            .iter()
            .filter(|s| s.module.len() == parent.len() + 1 && s.module.starts_with(&parent))
            .map(|s| s.module.last().unwrap().clone())
            .collect();
        let mut targets = names_after(&source.code, "super::");
        let crate_prefix = format!("crate::{}::", parent.join("::"));
        if !parent.is_empty() {
            targets.extend(names_after(&source.code, &crate_prefix));
        }
        let folder = folders.entry(parent.join("/")).or_default();
        let edges = folder.entry(me.clone()).or_default();
        for target in targets {
            if siblings.contains(&target) && &target != me {
                edges.insert(target);
            }
        }
    }
    (modules, folders)
}

/// A cycle of `graph`, if it has one.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &Graph,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_owned(), 1);
        stack.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = stack.iter().position(|n| n == next).unwrap();
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(cycle) = visit(next, graph, state, stack) {
                        return Some(cycle);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if !state.contains_key(node) {
            if let Some(cycle) = visit(node, graph, &mut state, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

#[test]
fn every_module_has_a_layer() {
    let (modules, _) = graphs(&sources());
    let missing: Vec<&String> = modules.keys().filter(|m| layer_of(m).is_none()).collect();
    assert!(
        missing.is_empty(),
        "add these modules to LAYERS in rust/tests/layers.rs: {missing:?}"
    );
}

#[test]
fn layers_only_reference_lower_layers() {
    let (modules, _) = graphs(&sources());
    let mut wrong = Vec::new();
    for (module, targets) in &modules {
        let Some(own) = layer_of(module) else {
            continue;
        };
        for target in targets {
            if layer_of(target).is_some_and(|t| t >= own) {
                wrong.push(format!("{module} -> {target}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "references to the same or a higher layer: {wrong:?}"
    );
}

#[test]
fn top_level_modules_have_no_cycle() {
    let (modules, _) = graphs(&sources());
    assert!(modules.len() > 5, "found only {:?}", modules.keys());
    // `cargo test --test layers -- --nocapture` shows the graph.
    println!("{modules:#?}");
    if let Some(cycle) = find_cycle(&modules) {
        panic!("module cycle: {}", cycle.join(" -> "));
    }
}

#[test]
fn files_of_a_folder_have_no_cycle() {
    let (_, folders) = graphs(&sources());
    assert!(folders.contains_key("bindings"), "{:?}", folders.keys());
    println!("{folders:#?}");
    for (folder, graph) in &folders {
        if let Some(cycle) = find_cycle(graph) {
            panic!("cycle in rust/{folder}/: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn the_reader_sees_references() {
    let code = strip(
        "use crate::{a, b::C};\nfn f() { crate::c::g(); } // crate::d\nlet s = \"crate::e\";\n\
         #[cfg(test)]\nmod tests {\n    use crate::f;\n}\nuse super::g;\n",
    );
    assert_eq!(names_after(&code, "crate::"), ["a", "b", "c"]);
    assert_eq!(names_after(&code, "super::"), ["g"]);
    let mut graph = Graph::new();
    graph.insert("a".into(), ["b".into()].into());
    graph.insert("b".into(), ["c".into()].into());
    assert_eq!(find_cycle(&graph), None);
    graph.insert("c".into(), ["a".into()].into());
    assert_eq!(find_cycle(&graph).unwrap(), ["a", "b", "c", "a"]);
}
