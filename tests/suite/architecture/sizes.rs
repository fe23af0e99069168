//! Units one can hold in the head: no source file of the library, the
//! binary, the kernels or the Python bindings over [`FILE_LINES`] lines and
//! no function over [`FN_LINES`], outside `#[cfg(test)]` modules, unless
//! its doc comment says why ("long because …").

use std::path::{Path, PathBuf};

const FILE_LINES: usize = 700;
const FN_LINES: usize = 100;
/// What a doc comment says to excuse a unit's length.
const EXCUSE: &str = "long because";

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The source with comments, string and char literals blanked to spaces
/// (newlines kept, so line numbers stay), for counting braces.
fn code_only(src: &str) -> Vec<char> {
    let c: Vec<char> = src.chars().collect();
    let mut out = c.clone();
    let blank = |out: &mut Vec<char>, a: usize, b: usize| {
        for x in &mut out[a..b.min(c.len())] {
            if *x != '\n' {
                *x = ' ';
            }
        }
    };
    let mut i = 0;
    while i < c.len() {
        let rest = |k: usize| c.get(i + k).copied();
        if c[i] == '/' && rest(1) == Some('/') {
            let end = (i..c.len()).find(|&j| c[j] == '\n').unwrap_or(c.len());
            blank(&mut out, i, end);
            i = end;
        } else if c[i] == '/' && rest(1) == Some('*') {
            let end = (i + 2..c.len())
                .find(|&j| c[j - 1] == '*' && c[j] == '/' && j > i + 2)
                .map_or(c.len(), |j| j + 1);
            blank(&mut out, i, end);
            i = end;
        } else if c[i] == 'r'
            && (rest(1) == Some('#') || rest(1) == Some('"'))
            && !ident(c.get(i.wrapping_sub(1)))
        {
            let hashes = (i + 1..c.len()).take_while(|&j| c[j] == '#').count();
            if c.get(i + 1 + hashes) != Some(&'"') {
                i += 1;
                continue;
            }
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let mut j = i + 2 + hashes;
            while j < c.len() && c[j..].iter().take(close.len()).ne(close.iter()) {
                j += 1;
            }
            blank(&mut out, i, j + close.len());
            i = j + close.len();
        } else if c[i] == '"' {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if c[i] == '\'' && (rest(2) == Some('\'') || (rest(1) == Some('\\'))) {
            // A char literal ('x' or an escape), not a lifetime.
            let end = (i + 2..c.len()).find(|&j| c[j] == '\'').unwrap_or(c.len());
            blank(&mut out, i, end + 1);
            i = end + 1;
        } else {
            i += 1;
        }
    }
    out
}

fn ident(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// `(name, first line, lines)` of every function with a body outside
/// `#[cfg(test)]` modules, and whether its doc comment excuses its length.
fn functions(src: &str) -> Vec<(String, usize, usize, bool)> {
    let lines: Vec<&str> = src.lines().collect();
    let code: String = code_only(src).into_iter().collect();
    let code_lines: Vec<&str> = code.lines().collect();
    let bytes: Vec<char> = code.chars().collect();
    // The line (from 0) of each character.
    let line_at: Vec<usize> = bytes
        .iter()
        .scan(0, |line, &c| {
            let here = *line;
            *line += (c == '\n') as usize;
            Some(here)
        })
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let at_word = !ident(bytes.get(i.wrapping_sub(1)));
        let word: String = bytes[i..].iter().take_while(|c| ident(Some(c))).collect();
        if !at_word || word.is_empty() {
            i += 1;
            continue;
        }
        let line = line_at[i];
        let is_test_mod = word == "mod"
            && (0..line)
                .rev()
                .take(2)
                .any(|l| code_lines[l].contains("#[cfg(test)]"));
        if word == "fn" || is_test_mod {
            // The body: from the first `{` before any `;` to its match.
            let open = (i..bytes.len()).find(|&j| bytes[j] == '{' || bytes[j] == ';');
            let Some(open) = open.filter(|&j| bytes[j] == '{') else {
                i += word.len();
                continue;
            };
            let mut depth = 0;
            let mut close = open;
            for (j, &ch) in bytes.iter().enumerate().skip(open) {
                depth += (ch == '{') as i32 - (ch == '}') as i32;
                if depth == 0 {
                    close = j;
                    break;
                }
            }
            if word == "fn" {
                let name: String = bytes[i + 2..]
                    .iter()
                    .skip_while(|c| c.is_whitespace())
                    .take_while(|c| ident(Some(c)))
                    .collect();
                let last = line_at[close];
                let docs = lines[..line]
                    .iter()
                    .rev()
                    .skip_while(|l| l.trim_start().starts_with("#["))
                    .take_while(|l| l.trim_start().starts_with("///"));
                let excused = docs.into_iter().any(|l| l.contains(EXCUSE));
                out.push((name, line + 1, last - line + 1, excused));
                // Functions inside this one are counted in its length.
            }
            i = close + 1;
            continue;
        }
        i += word.len();
    }
    out
}

fn sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "kernels/src", "python/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    files.sort();
    files
}

#[test]
fn the_measure_counts_what_it_should() {
    let src = "/// doc\nfn a() {\n    let s = \"}\";\n    let c = '}';\n    // }\n    let r = r#\"{\"#;\n}\nfn b();\n#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n/// Is long because it must be.\nfn c<'a>(x: &'a str) -> &'a str {\n    x\n}\n";
    let f = functions(src);
    let named: Vec<(&str, usize, usize, bool)> = f
        .iter()
        .map(|(n, a, b, e)| (n.as_str(), *a, *b, *e))
        .collect();
    assert_eq!(named, vec![("a", 2, 6, false), ("c", 14, 3, true)]);
}

#[test]
fn no_file_or_function_is_too_long() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut long = Vec::new();
    let files = sources();
    assert!(files.len() > 100, "the sources were found");
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap();
        let rel = path.strip_prefix(root).unwrap().display().to_string();
        // A file's own test module does not count towards its length.
        let body = src
            .split("\n#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or(&src);
        let n = body.lines().count();
        let head: String = src.lines().take_while(|l| l.starts_with("//!")).collect();
        if n > FILE_LINES && !head.contains(EXCUSE) {
            long.push(format!("{rel}: {n} lines"));
        }
        for (name, line, n, excused) in functions(&src) {
            if n > FN_LINES && !excused {
                long.push(format!("{rel}:{line}: fn {name} has {n} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "over {FILE_LINES} lines a file or {FN_LINES} a function:\n{}",
        long.join("\n")
    );
}
