//! Reading the seed tables in `data/sequences/`, shared by the integration
//! tests. The format is described in docs/test-data.md.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The last heap size before the period starts, as a table's header states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastIrregular {
    /// `last-irregular: none`: periodic from n = 0.
    None,
    At(usize),
}

/// A value the source gets wrong: the file keeps the source's value, the
/// engines must give `computed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Erratum {
    pub n: usize,
    pub source: u32,
    pub computed: u32,
}

/// One table: G(from), G(from+1), … of the game `code`, as the source gives them.
#[derive(Debug, Clone)]
pub struct Table {
    pub path: PathBuf,
    pub code: String,
    pub from: usize,
    pub values: Vec<u32>,
    pub period: Option<usize>,
    pub last_irregular: Option<LastIrregular>,
    pub errata: Vec<Erratum>,
    /// Subtraction games only: moves the source says can be added freely.
    pub extras: Vec<usize>,
}

impl Table {
    /// The values the engines must produce: the source's, with errata applied.
    pub fn expected(&self) -> Vec<u32> {
        let mut v = self.values.clone();
        for e in &self.errata {
            v[e.n - self.from] = e.computed;
        }
        v
    }

    /// One past the last heap size listed.
    pub fn end(&self) -> usize {
        self.from + self.values.len()
    }
}

fn field<'a>(what: &str, rest: &'a str, key: &str) -> Result<&'a str, String> {
    rest.split_whitespace()
        .find_map(|w| w.strip_prefix(key))
        .ok_or_else(|| format!("{what}: missing {key}"))
}

fn num<T: std::str::FromStr>(what: &str, s: &str) -> Result<T, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("{what}: {s:?} is not a number"))
}

/// Parses one table; every problem is an error naming the line.
pub fn parse(path: &Path, text: &str) -> Result<Table, String> {
    let name = path.display().to_string();
    let mut t = Table {
        path: path.to_path_buf(),
        code: String::new(),
        from: usize::MAX,
        values: Vec::new(),
        period: None,
        last_irregular: None,
        errata: Vec::new(),
        extras: Vec::new(),
    };
    let mut source = false;
    for (i, line) in text.lines().enumerate() {
        let what = format!("{name}:{}", i + 1);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            let Some((key, value)) = comment.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match key.trim() {
                "source" => source = !value.is_empty(),
                "code" => t.code = value.to_string(),
                "from" => t.from = num(&what, value)?,
                "period" => t.period = Some(num(&what, value)?),
                "last-irregular" if value == "none" => t.last_irregular = Some(LastIrregular::None),
                "last-irregular" => t.last_irregular = Some(LastIrregular::At(num(&what, value)?)),
                "erratum" => t.errata.push(Erratum {
                    n: num(&what, field(&what, value, "n=")?)?,
                    source: num(&what, field(&what, value, "source=")?)?,
                    computed: num(&what, field(&what, value, "computed=")?)?,
                }),
                "extras" => {
                    for w in value.split_whitespace() {
                        t.extras.push(num(&what, w)?);
                    }
                }
                _ => {} // free text
            }
            continue;
        }
        if t.code.is_empty() || t.from == usize::MAX {
            return Err(format!("{what}: values before the code: and from: headers"));
        }
        for w in line.split_whitespace() {
            t.values.push(num(&what, w)?);
        }
    }
    if !source {
        return Err(format!("{name}: no source: header"));
    }
    if t.values.is_empty() {
        return Err(format!("{name}: no values"));
    }
    if t.period == Some(0) {
        return Err(format!("{name}: period 0"));
    }
    for e in &t.errata {
        if e.n < t.from || e.n >= t.end() {
            return Err(format!("{name}: erratum at n={} outside the table", e.n));
        }
        if t.values[e.n - t.from] != e.source {
            return Err(format!(
                "{name}: erratum at n={} says the source has {}, the file has {}",
                e.n,
                e.source,
                t.values[e.n - t.from]
            ));
        }
    }
    Ok(t)
}

/// The directory of seed tables.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sequences")
}

/// Every `*.txt` table in `data/sequences/`, sorted by name; panics on any
/// unreadable or malformed file.
pub fn all() -> Vec<Table> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("data/sequences exists")
        .map(|e| e.expect("readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            parse(p, &text).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

/// The table in `data/sequences/<name>.txt`.
pub fn load(name: &str) -> Table {
    let p = dir().join(format!("{name}.txt"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    parse(&p, &text).unwrap_or_else(|e| panic!("{e}"))
}

pub mod child;
pub mod faults;
pub mod pdf;
pub mod shifted;
pub mod skip;

/// The `octal` binary of this build.
pub fn octal() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_octal"))
}

/// The same, for assert_cmd's assertions.
pub fn octal_assert() -> assert_cmd::Command {
    assert_cmd::Command::new(env!("CARGO_BIN_EXE_octal"))
}

/// Runs `octal ARGS` in a fresh temporary directory (so that a store it
/// makes goes nowhere), for its output.
pub fn run_in_temp(args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().expect("a temporary directory");
    octal()
        .args(args)
        .current_dir(dir.path())
        .output()
        .expect("the octal binary runs")
}

/// FNV-1a-64 over the values as little-endian u32, as GUIDE.md defines
/// the checksum, written out here independently of the library.
pub fn fnv1a64(values: &[u32]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in values {
        for b in v.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}
