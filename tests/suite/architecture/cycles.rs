//! Module cycles in the library (src/, without the binary's main.rs and
//! cli/): each reference `crate::a::…`, `super::…`, `self::…` or a path
//! through a child module, in code and in `use` trees, is an edge between
//! the two sibling modules it crosses (top-level modules of src/, or the
//! children of one folder, where the folder's own mod.rs is the node
//! `self`). A child's use of its parent's items is an edge child → `self`;
//! `mod child;` declarations are not edges, `#[cfg(test)]` items are not
//! scanned, and a re-export (`pub use`) is followed to where the item is
//! defined. The binary is left out: its `prelude` re-exports its siblings
//! by glob, a cycle by construction.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Path,
    Punct(char),
}

/// The tokens of Rust source, without comments, strings and chars.
fn lex(src: &str) -> Vec<Tok> {
    let b: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if (c == 'r' || c == 'b')
            && matches!(next, Some('#') | Some('"'))
            && (c == 'r' || b.get(i + 1) == Some(&'"'))
            && !(i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_'))
        {
            // Raw (or byte) strings: r"…", r#"…"#, b"…".
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c == 'b' {
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (1..=hashes).all(|k| b.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{…}') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < b.len() && b[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if b.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(b[start..i].iter().collect()));
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_' || b[i] == '.') {
                if b[i] == '.' && !b.get(i + 1).is_some_and(|d| d.is_ascii_digit()) {
                    break;
                }
                i += 1;
            }
        } else if c == ':' && next == Some(':') {
            out.push(Tok::Path);
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(Tok::Punct(c));
            }
            i += 1;
        }
    }
    out
}

type ModPath = Vec<String>;

/// What one file says: the paths it refers to (absolute, resolved from
/// where they appear), and the `pub use` re-exports of each module.
#[derive(Default)]
struct Scan {
    /// (the module the reference is in, the path it names).
    refs: Vec<(ModPath, ModPath)>,
    /// (module, name) → the path it re-exports.
    reexports: BTreeMap<(ModPath, String), ModPath>,
    /// Inline modules (not `#[cfg(test)]`).
    inline: Vec<ModPath>,
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

/// The absolute path `segs` names from module `here`, if it is a path
/// into this crate: from `crate`, `self`, `super` or a child module.
fn absolute(
    here: &[String],
    segs: &[String],
    modules: &dyn Fn(&[String]) -> bool,
) -> Option<ModPath> {
    let first = segs.first()?;
    let mut abs = match first.as_str() {
        "crate" => Vec::new(),
        "self" => here.to_vec(),
        "super" => here[..here.len().saturating_sub(1)].to_vec(),
        name => {
            let mut child = here.to_vec();
            child.push(name.to_string());
            if !modules(&child) {
                return None;
            }
            here.to_vec()
        }
    };
    let skip = usize::from(matches!(first.as_str(), "crate" | "self" | "super"));
    for s in &segs[skip..] {
        match s.as_str() {
            "super" => {
                abs.pop();
            }
            "self" => {}
            s => abs.push(s.to_string()),
        }
    }
    Some(abs)
}

/// Parses a use tree at `t[*i]` under `prefix`, adding each leaf path
/// (with the name it is bound to) to `leaves`.
fn use_tree(t: &[Tok], i: &mut usize, prefix: ModPath, leaves: &mut Vec<(ModPath, String)>) {
    let mut path = prefix;
    loop {
        match t.get(*i) {
            Some(Tok::Ident(s)) if s == "as" => {
                *i += 1;
                let alias = ident(t.get(*i)).unwrap_or("_").to_string();
                *i += 1;
                leaves.push((path, alias));
                return;
            }
            Some(Tok::Ident(s)) => {
                path.push(s.clone());
                *i += 1;
            }
            Some(Tok::Path) => *i += 1,
            Some(Tok::Punct('*')) => {
                *i += 1;
                leaves.push((path, "*".into()));
                return;
            }
            Some(Tok::Punct('{')) => {
                *i += 1;
                loop {
                    match t.get(*i) {
                        Some(Tok::Punct('}')) | None => {
                            *i += 1;
                            return;
                        }
                        Some(Tok::Punct(',')) => *i += 1,
                        _ => use_tree(t, i, path.clone(), leaves),
                    }
                }
            }
            _ => {
                let name = path.last().cloned().unwrap_or_default();
                leaves.push((path, name));
                return;
            }
        }
    }
}

/// Skips the item starting at `t[i]`: to its `;`, or past its braces.
fn skip_item(t: &[Tok], mut i: usize) -> usize {
    let mut depth = 0;
    while i < t.len() {
        match t[i] {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            Tok::Punct(';') if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// Scans one file of module `module`.
fn scan(src: &str, module: &[String], children: &dyn Fn(&[String]) -> bool) -> Scan {
    let t = lex(src);
    let mut out = Scan::default();
    // The module at each open brace depth.
    let mut stack: Vec<(ModPath, usize)> = vec![(module.to_vec(), 0)];
    let mut depth = 0;
    let mut i = 0;
    while i < t.len() {
        let here = stack.last().expect("the file's module").0.clone();
        let cfg_test = t[i] == Tok::Punct('#')
            && t.get(i + 1) == Some(&Tok::Punct('['))
            && ident(t.get(i + 2)) == Some("cfg")
            && ident(t.get(i + 4)) == Some("test");
        if cfg_test {
            i = skip_item(&t, i + 7);
            continue;
        }
        match &t[i] {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                if stack.len() > 1 && stack.last().unwrap().1 == depth {
                    stack.pop();
                }
            }
            Tok::Ident(k) if k == "mod" => {
                if let Some(name) = ident(t.get(i + 1)) {
                    if t.get(i + 2) == Some(&Tok::Punct('{')) {
                        let mut p = here.clone();
                        p.push(name.to_string());
                        out.inline.push(p.clone());
                        stack.push((p, depth));
                        depth += 1;
                        i += 3;
                        continue;
                    }
                    i += 2;
                    continue;
                }
            }
            Tok::Ident(k) if k == "use" => {
                let public = i > 0 && ident(t.get(i - 1)) == Some("pub")
                    || matches!(t.get(i.wrapping_sub(1)), Some(Tok::Punct(')')));
                let mut j = i + 1;
                let mut leaves = Vec::new();
                use_tree(&t, &mut j, Vec::new(), &mut leaves);
                for (path, name) in leaves {
                    let Some(abs) = absolute(&here, &path, children) else {
                        continue;
                    };
                    if public && name != "*" {
                        out.reexports.insert((here.clone(), name), abs.clone());
                    }
                    out.refs.push((here.clone(), abs));
                }
                i = j;
                continue;
            }
            Tok::Ident(first)
                if t.get(i + 1) == Some(&Tok::Path)
                    && !matches!(
                        t.get(i.wrapping_sub(1)),
                        Some(Tok::Path) | Some(Tok::Punct('.'))
                    ) =>
            {
                let mut segs = vec![first.clone()];
                let mut j = i + 1;
                while t.get(j) == Some(&Tok::Path) {
                    let Some(s) = ident(t.get(j + 1)) else { break };
                    segs.push(s.to_string());
                    j += 2;
                }
                if let Some(abs) = absolute(&here, &segs, children) {
                    out.refs.push((here.clone(), abs));
                    i = j;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The library's modules and what refers to what.
struct Crate {
    modules: BTreeSet<ModPath>,
    refs: Vec<(ModPath, ModPath)>,
    reexports: BTreeMap<(ModPath, String), ModPath>,
}

fn module_of(rel: &Path) -> ModPath {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().expect("a file");
    let stem = file.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src/ reads") {
        let p = e.expect("an entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn library() -> Crate {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.retain(|f| {
        let rel = f.strip_prefix(&src).unwrap();
        rel != Path::new("main.rs") && !rel.starts_with("cli")
    });
    let mut modules: BTreeSet<ModPath> = files
        .iter()
        .map(|f| module_of(f.strip_prefix(&src).unwrap()))
        .collect();
    let mut scans = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("a source file reads");
        let m = module_of(f.strip_prefix(&src).unwrap());
        // Inline modules first, so that paths through them resolve.
        let first = scan(&text, &m, &|p| modules.contains(p));
        scans.push((text, m, first.inline));
    }
    for (_, _, inline) in &scans {
        modules.extend(inline.iter().cloned());
    }
    let mut refs = Vec::new();
    let mut reexports = BTreeMap::new();
    for (text, m, _) in &scans {
        let s = scan(text, m, &|p| modules.contains(p));
        refs.extend(s.refs);
        reexports.extend(s.reexports);
    }
    Crate {
        modules,
        refs,
        reexports,
    }
}

/// The module a path's item lives in, re-exports followed.
fn resolve(c: &Crate, path: &[String]) -> ModPath {
    let mut path = path.to_vec();
    for _ in 0..16 {
        let mut k = path.len();
        while k > 0 && !c.modules.contains(&path[..k]) {
            k -= 1;
        }
        let module = path[..k].to_vec();
        let Some(item) = path.get(k) else {
            return module;
        };
        match c.reexports.get(&(module.clone(), item.clone())) {
            Some(to) if to.as_slice() != path.as_slice() => {
                let mut next = to.clone();
                next.extend(path[k + 1..].iter().cloned());
                path = next;
            }
            _ => return module,
        }
    }
    path
}

/// Edges between siblings, by the folder (module) they are children of;
/// `self` stands for the folder's own file.
type Graph = BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>>;

fn edge(g: &mut Graph, from: &[String], to: &[String]) {
    let k = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    let node = |p: &[String]| p.get(k).cloned().unwrap_or_else(|| "self".into());
    let (a, b) = (node(from), node(to));
    if a != b {
        g.entry(from[..k].to_vec())
            .or_default()
            .entry(a)
            .or_default()
            .insert(b);
    }
}

fn graph(c: &Crate) -> Graph {
    let mut g = Graph::new();
    for (from, path) in &c.refs {
        edge(&mut g, from, &resolve(c, path));
    }
    g
}

/// The strongly connected components of more than one node (Tarjan),
/// each sorted, in a sorted list.
pub fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, (usize, usize)>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, (n, n));
        t.stack.push(v);
        t.on.insert(v);
        let g = t.g;
        for w in g.get(v).into_iter().flatten() {
            if !t.index.contains_key(w.as_str()) {
                visit(t, w);
                let low = t.index[w.as_str()].1.min(t.index[v].1);
                t.index.get_mut(v).unwrap().1 = low;
            } else if t.on.contains(w.as_str()) {
                let low = t.index[w.as_str()].0.min(t.index[v].1);
                t.index.get_mut(v).unwrap().1 = low;
            }
        }
        if t.index[v].0 == t.index[v].1 {
            let mut scc = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                scc.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                t.out.push(scc);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out.sort();
    t.out
}

/// One cycle through the component `scc`, as `a → b → … → a`.
fn a_cycle(g: &BTreeMap<String, BTreeSet<String>>, scc: &[String]) -> String {
    let start = &scc[0];
    // Breadth-first from `start` back to it, within the component.
    let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.as_str()]);
    while let Some(v) = queue.pop_front() {
        for w in g.get(v).into_iter().flatten() {
            if !scc.contains(w) {
                continue;
            }
            if w == start {
                let mut path = vec![start.as_str(), v];
                let mut at = v;
                while at != start {
                    at = prev[at];
                    path.push(at);
                }
                path.reverse();
                path.pop();
                path.push(start);
                return path.join(" → ");
            }
            if !prev.contains_key(w.as_str()) {
                prev.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    scc.join(", ")
}

fn graph_of(edges: &[(&str, &str)]) -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in edges {
        g.entry(a.to_string()).or_default().insert(b.to_string());
    }
    g
}

/// The cycle finder finds a cycle where there is one, and only there.
#[test]
fn the_cycle_finder_finds_a_cycle_in_a_small_graph() {
    let acyclic = graph_of(&[("a", "b"), ("b", "c"), ("a", "c")]);
    assert!(cycles(&acyclic).is_empty());
    let cyclic = graph_of(&[
        ("a", "b"),
        ("b", "c"),
        ("c", "a"),
        ("c", "d"),
        ("d", "e"),
        ("e", "d"),
    ]);
    let found = cycles(&cyclic);
    assert_eq!(found, vec![vec!["a", "b", "c"], vec!["d", "e"]]);
    assert_eq!(a_cycle(&cyclic, &found[0]), "a → b → c → a");
    // And the scan sees edges where the source has them.
    let m = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
    let modules: BTreeSet<ModPath> = [m("x"), m("x::y"), m("z")].into_iter().collect();
    let s = scan(
        "//! crate::z in a comment\nuse super::Thing;\nfn f() { let _ = \"crate::z\"; crate::z::go(); y::run(); }\n#[cfg(test)]\nmod tests { use crate::z; }\n",
        &m("x"),
        &|p| modules.contains(p),
    );
    let to: Vec<ModPath> = s.refs.into_iter().map(|(_, p)| p).collect();
    assert_eq!(to, vec![m("Thing"), m("z::go"), m("x::y::run")]);
}

/// No module of the library depends, through others, on itself.
#[test]
fn the_library_has_no_module_cycle() {
    let c = library();
    assert!(
        c.modules.contains(&vec!["store".to_string()]),
        "src/ scanned"
    );
    let mut found = Vec::new();
    for (folder, g) in graph(&c) {
        let folder = folder.join("/");
        for scc in cycles(&g) {
            found.push(format!(
                "src/{folder}: {{{}}}, e.g. {}",
                scc.join(", "),
                a_cycle(&g, &scc)
            ));
        }
    }
    assert!(found.is_empty(), "module cycles:\n{}", found.join("\n"));
}
