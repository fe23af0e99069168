//! The kernels' modules depend one way: public kernels on `platform`,
//! `platform` on the paths (`portable`, `arch`), the paths on `generic`.
//! This test reads every source file under `kernels/src`, takes each path
//! that names another module of the crate (`crate::a::b`, `super::x`,
//! `self::x`, or a child module's name), and fails on any cycle between
//! modules. A child that uses its parent's items (`super::f`) depends on
//! the parent; a parent that only declares `mod child` does not depend on
//! the child, but one that uses the child's items does, so a path calling
//! back into the kernel that dispatched to it shows as a cycle.
//!
//! Test modules (`mod tests`, inline or in a file) are left out: they may
//! reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's path below the crate root (`[]` for the root itself).
type Module = Vec<String>;

/// Every module of the crate under `src` and its source, from the file
/// tree (`a.rs` and `a/mod.rs` are `a`, `a/b.rs` is `a::b`).
fn modules(src: &Path) -> BTreeMap<Module, String> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<Module, String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("read kernels/src")
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                let mut p = prefix.to_vec();
                p.push(name);
                walk(&path, &p, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let mut m = prefix.to_vec();
                if !matches!(name.as_str(), "mod" | "lib") {
                    m.push(name);
                }
                out.insert(
                    m,
                    std::fs::read_to_string(&path).expect("read a source file"),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(src, &[], &mut out);
    out.retain(|m, _| !m.iter().any(|s| s == "tests"));
    out
}

/// The source without comments, string literals and inline test modules
/// (a `#[cfg(test)]` item runs to the end of the file by convention).
fn code(source: &str) -> String {
    let source = match source.find("#[cfg(test)]\nmod tests {") {
        Some(i) => &source[..i],
        None => source,
    };
    let mut out = String::new();
    for line in source.lines() {
        let mut line = line;
        if let Some(i) = line.find("//") {
            line = &line[..i];
        }
        // Drop string literals (no path in a message is a dependency).
        let mut in_str = false;
        let mut escaped = false;
        for c in line.chars() {
            match (in_str, c) {
                (true, _) if escaped => escaped = false,
                (true, '\\') => escaped = true,
                (_, '"') => in_str = !in_str,
                (false, c) => out.push(c),
                (true, _) => {}
            }
        }
        out.push('\n');
    }
    out
}

/// The paths that start at `start` in `text`: `a::b::c` or `a::{b, c::d}`,
/// braces expanded, as lists of segments.
fn paths_at(text: &str) -> Vec<Vec<String>> {
    fn ident(s: &str) -> usize {
        s.char_indices()
            .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
            .map_or(s.len(), |(i, _)| i)
    }
    fn parse(s: &str, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
        let mut segs = prefix.to_vec();
        let mut i = 0;
        loop {
            let rest = &s[i..];
            let rest_trim = rest.trim_start();
            i += rest.len() - rest_trim.len();
            let n = ident(rest_trim);
            if n > 0 {
                segs.push(rest_trim[..n].to_string());
                i += n;
            } else if rest_trim.starts_with('{') {
                i += 1;
                loop {
                    i += parse(&s[i..], &segs, out);
                    let r = s[i..].trim_start();
                    i += s[i..].len() - r.len();
                    if r.starts_with(',') {
                        i += 1;
                    } else {
                        if r.starts_with('}') {
                            i += 1;
                        }
                        return i;
                    }
                }
            }
            if s[i..].starts_with("::") {
                i += 2;
            } else {
                if segs.len() > prefix.len() {
                    out.push(segs);
                }
                return i;
            }
        }
    }
    let mut out = Vec::new();
    parse(text, &[], &mut out);
    out
}

/// Every path in `source` (outside comments, strings and tests), braces
/// expanded, a trailing `self` dropped.
fn all_paths(source: &str) -> Vec<Vec<String>> {
    let text = code(source);
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let n = text[i..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(text.len() - i);
        if !boundary || n == 0 || !text[i + n..].starts_with("::") {
            i += n.max(1);
            continue;
        }
        for mut path in paths_at(&text[i..]) {
            if path.len() > 1 && path.last().is_some_and(|s| s == "self") {
                path.pop();
            }
            out.push(path);
        }
        // Past the whole path: its inner segments are not paths of their
        // own (a child's name in `crate::a::b` is no path from here).
        let end = text[i..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(text.len() - i);
        i += end.max(1);
    }
    out
}

/// The modules `module` depends on: each path in `source` resolved to the
/// longest module it names, other than `module` itself. A module brought
/// in by `use` (`use crate::a::{self, b}`) is followed through its name.
fn edges(module: &Module, source: &str, known: &BTreeSet<Module>) -> BTreeSet<Module> {
    let paths = all_paths(source);
    let mut aliases: BTreeMap<String, Module> = BTreeMap::new();
    for path in &paths {
        if let Some(target) = resolve(module, path, known, &BTreeMap::new()) {
            if target.last() == path.last() && known.contains(&target) && !target.is_empty() {
                aliases.insert(path.last().unwrap().clone(), target);
            }
        }
    }
    paths
        .iter()
        .filter_map(|path| resolve(module, path, known, &aliases))
        .filter(|target| target != module)
        .collect()
}

/// The module a path starting in `module` names (the longest known
/// prefix), if it names one: `crate::…`, `super::…`, `self::…`, a child
/// module's name or a module's name brought in by `use` (`aliases`).
fn resolve(
    module: &Module,
    path: &[String],
    known: &BTreeSet<Module>,
    aliases: &BTreeMap<String, Module>,
) -> Option<Module> {
    let mut base: Module;
    let mut rest = path;
    match path[0].as_str() {
        "crate" => {
            base = Vec::new();
            rest = &path[1..];
        }
        "self" | "super" => {
            base = module.clone();
            while let Some(s) = rest.first() {
                match s.as_str() {
                    "self" => {}
                    "super" => {
                        base.pop()?;
                    }
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        first => {
            let mut child = module.clone();
            child.push(first.to_string());
            if known.contains(&child) {
                base = module.clone();
            } else {
                base = aliases.get(first)?.clone();
                rest = &path[1..];
            }
        }
    }
    let mut found = base.clone();
    for s in rest {
        base.push(s.clone());
        if known.contains(&base) {
            found = base.clone();
        } else {
            break;
        }
    }
    Some(found)
}

/// The cycles of a graph: its strongly connected components of more than
/// one node (Tarjan's algorithm), each sorted.
fn cycles<N: Ord + Clone>(graph: &BTreeMap<N, BTreeSet<N>>) -> Vec<Vec<N>> {
    struct State<N> {
        index: BTreeMap<N, usize>,
        low: BTreeMap<N, usize>,
        stack: Vec<N>,
        on_stack: BTreeSet<N>,
        out: Vec<Vec<N>>,
    }
    fn visit<N: Ord + Clone>(n: &N, g: &BTreeMap<N, BTreeSet<N>>, s: &mut State<N>) {
        let i = s.index.len();
        s.index.insert(n.clone(), i);
        s.low.insert(n.clone(), i);
        s.stack.push(n.clone());
        s.on_stack.insert(n.clone());
        for m in g.get(n).into_iter().flatten() {
            if !s.index.contains_key(m) {
                visit(m, g, s);
                let l = s.low[n].min(s.low[m]);
                s.low.insert(n.clone(), l);
            } else if s.on_stack.contains(m) {
                let l = s.low[n].min(s.index[m]);
                s.low.insert(n.clone(), l);
            }
        }
        if s.low[n] == s.index[n] {
            let mut comp = Vec::new();
            loop {
                let m = s.stack.pop().expect("on the stack");
                s.on_stack.remove(&m);
                let done = &m == n;
                comp.push(m);
                if done {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for n in graph.keys() {
        if !s.index.contains_key(n) {
            visit(n, graph, &mut s);
        }
    }
    s.out
}

/// The dependency graph of a crate given as (module, source) pairs.
fn graph(sources: &BTreeMap<Module, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    let known: BTreeSet<Module> = sources.keys().cloned().collect();
    sources
        .iter()
        .map(|(m, s)| (m.clone(), edges(m, s, &known)))
        .collect()
}

/// The graph between the crate root's children: each module stands for
/// itself and everything below it.
fn top_level(g: &BTreeMap<Module, BTreeSet<Module>>) -> BTreeMap<Module, BTreeSet<Module>> {
    let top = |m: &Module| m.iter().take(1).cloned().collect::<Module>();
    let mut out: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, targets) in g {
        let from = top(m);
        let entry = out.entry(from.clone()).or_default();
        entry.extend(targets.iter().map(top).filter(|t| t != &from));
    }
    out
}

fn names(cycles: &[Vec<Module>]) -> Vec<String> {
    let name = |m: &Module| {
        if m.is_empty() {
            "crate".to_string()
        } else {
            m.join("::")
        }
    };
    cycles
        .iter()
        .map(|c| c.iter().map(name).collect::<Vec<_>>().join(" <-> "))
        .collect()
}

#[test]
fn the_kernels_have_no_module_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let sources = modules(&src);
    assert!(sources.len() > 20, "kernels/src not found whole");
    let g = graph(&sources);
    let full = cycles(&g);
    assert!(full.is_empty(), "module cycles: {:?}", names(&full));
    let top = cycles(&top_level(&g));
    assert!(
        top.is_empty(),
        "cycles between top modules: {:?}",
        names(&top)
    );
    // The layering the crate's doc states, a sample edge a layer down: a
    // check that the scan sees the paths at all.
    let m = |s: &str| s.split("::").map(String::from).collect::<Module>();
    assert!(g[&m("witness")].contains(&m("platform")));
    assert!(g[&m("platform")].contains(&m("portable::witness")));
    assert!(g[&m("arch::x86_64::avx2::runs")].contains(&m("generic::rows")));
}

/// The finder on small graphs and sources: it must see a cycle where
/// there is one, or the test above proves nothing.
#[test]
fn the_cycle_finder_finds_cycles() {
    let g: BTreeMap<u32, BTreeSet<u32>> = [
        (1, BTreeSet::from([2])),
        (2, BTreeSet::from([3])),
        (3, BTreeSet::from([1])),
        (4, BTreeSet::from([1])),
    ]
    .into_iter()
    .collect();
    assert_eq!(cycles(&g), vec![vec![1, 2, 3]]);
    let dag: BTreeMap<u32, BTreeSet<u32>> = [(1, BTreeSet::from([2, 3])), (2, BTreeSet::from([3]))]
        .into_iter()
        .collect();
    assert!(cycles(&dag).is_empty());

    let m = |s: &str| {
        s.split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect::<Module>()
    };
    let crate_of = |files: &[(&str, &str)]| -> BTreeMap<Module, String> {
        files.iter().map(|(p, s)| (m(p), s.to_string())).collect()
    };
    // An arch module calling back into the kernel that dispatches to it.
    let back = crate_of(&[
        ("", "mod arch; mod mex;"),
        (
            "mex",
            "use crate::arch::x86::{avx2, sse};\nfn f() { avx2::g() }",
        ),
        ("arch", "mod x86;"),
        ("arch::x86", "mod avx2; mod sse;"),
        ("arch::x86::avx2", "fn g() { crate::mex::tail() }"),
        ("arch::x86::sse", ""),
    ]);
    assert_eq!(
        names(&cycles(&graph(&back))),
        ["arch::x86::avx2 <-> mex"],
        "{:?}",
        graph(&back)
    );
    // A child using its parent's items, and the parent the child's.
    let parent = crate_of(&[
        ("", "mod a;"),
        ("a", "mod b;\nuse b::Thing;"),
        ("a::b", "use super::helper;"),
    ]);
    assert_eq!(names(&cycles(&graph(&parent))), ["a <-> a::b"]);
    // Declaring a child is no edge; comments, strings and tests are not
    // read.
    let fine = crate_of(&[
        ("", "mod a;"),
        ("a", "mod b; // b::Thing\nfn f() { panic!(\"b::x\") }\n#[cfg(test)]\nmod tests {\n use b::T;\n}"),
        ("a::b", "use super::helper;"),
    ]);
    assert!(cycles(&graph(&fine)).is_empty(), "{:?}", graph(&fine));
    // Two top modules that reach each other's children.
    let top = crate_of(&[
        ("", "mod x; mod y;"),
        ("x", "mod p;"),
        ("x::p", "use crate::y::q::f;"),
        ("y", "mod q; use crate::x::g;"),
        ("y::q", ""),
    ]);
    assert!(cycles(&graph(&top)).is_empty());
    assert_eq!(names(&cycles(&top_level(&graph(&top)))), ["x <-> y"]);
}
