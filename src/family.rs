//! Families of games run as one batch: every Cookie Cutter size k, or any
//! list of codes, each run to the same target on the available cores, and
//! summarised in one table (CSV, Markdown and one JSON line per member).
//!
//! The batch itself knows nothing about how a member is computed: the
//! caller hands it a function that runs one member and returns its
//! [`Summary`], so the same batch serves in-memory runs, stores and tests.

use std::fmt::Write as _;
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::code::Code;
use crate::run::Summary;

/// Errors in describing a family.
#[derive(Debug, Error)]
pub enum FamilyError {
    #[error("{0:?} is not a range of k (expected e.g. 1..64, 3, or 1,3,5)")]
    BadRange(String),
    #[error("a cutter size k must be at least 1 (got {0})")]
    ZeroK(String),
    #[error("{0:?}: a family's cutter sizes go up to k = {MAX_FAMILY_K} (its members' codes alone would take memory quadratic in k)")]
    TooLargeK(String),
    #[error("{path}: line {line}: {message}")]
    BadList {
        path: String,
        line: usize,
        message: String,
    },
    #[error("{path}: no codes in the list")]
    EmptyList { path: String },
    #[error("cannot read {path}: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("cannot write {path}: {error}")]
    Write { path: String, error: std::io::Error },
}

/// One game of a family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The cutter size, for Cookie Cutter families.
    pub k: Option<u64>,
    pub code: Code,
}

impl Member {
    /// The file name (without extension) of the member's store and plot:
    /// the code when it is short, else `k…-HASH` or `code-HASH` (FNV of the
    /// code), so that any member fits a file name.
    pub fn file_stem(&self) -> String {
        let code = self.code.to_string();
        if code.len() <= 128 {
            return code;
        }
        let hash = crate::stats::Checksum::of_bytes(code.as_bytes()).hex();
        match self.k {
            Some(k) => format!("k{k}-{hash}"),
            None => format!("code-{hash}"),
        }
    }

    /// A short name for progress lines.
    pub fn label(&self) -> String {
        match self.k {
            Some(k) => format!("k={k} {}", self.code),
            None => self.code.to_string(),
        }
    }
}

/// The largest cutter size in a Cookie Cutter family: the codes of
/// 1..=k take k²/2 bytes (50 MB here), and each member a store.
pub const MAX_FAMILY_K: u64 = 10_000;

/// Parses `1..64` (inclusive, as users read it), `1..=64`, `7` or
/// `1,3,5` into the sizes they name, in order, without repeats.
pub fn parse_k_range(s: &str) -> Result<Vec<u64>, FamilyError> {
    let bad = || FamilyError::BadRange(s.to_string());
    let num = |t: &str| t.trim().parse::<u64>().map_err(|_| bad());
    let mut ks = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        if let Some((a, b)) = part.split_once("..") {
            let b = b.strip_prefix('=').unwrap_or(b);
            let (a, b) = (num(a)?, num(b)?);
            if a > b {
                return Err(bad());
            }
            if b > MAX_FAMILY_K {
                return Err(FamilyError::TooLargeK(s.to_string()));
            }
            ks.extend(a..=b);
        } else {
            ks.push(num(part)?);
        }
    }
    if ks.iter().any(|&k| k > MAX_FAMILY_K) {
        return Err(FamilyError::TooLargeK(s.to_string()));
    }
    if ks.contains(&0) {
        return Err(FamilyError::ZeroK(s.to_string()));
    }
    let mut seen = std::collections::HashSet::new();
    ks.retain(|k| seen.insert(*k));
    Ok(ks)
}

/// The Cookie Cutter family: `0.33…37` with k−1 threes for each k.
pub fn cookie_cutter(ks: &[u64]) -> Vec<Member> {
    ks.iter()
        .map(|&k| Member {
            k: Some(k),
            code: Code::cookie_cutter(k as usize),
        })
        .collect()
}

/// Reads a list of codes, one a line; blank lines and `#` comments are
/// skipped.
pub fn read_code_list(path: &Path) -> Result<CodeList, FamilyError> {
    let name = path.display().to_string();
    let read = if path == Path::new("-") {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(path)
    };
    let text = read.map_err(|source| FamilyError::Read {
        path: name.clone(),
        error: source,
    })?;
    parse_code_list(&text, &name)
}

/// The members of a list of codes, each game once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeList {
    pub members: Vec<Member>,
    /// The lines left out because their code was on an earlier line, in
    /// another spelling (`0.161` and `.161`): what the user should be told.
    pub duplicates: Vec<String>,
}

/// As [`read_code_list`], from text.
pub fn parse_code_list(text: &str, name: &str) -> Result<CodeList, FamilyError> {
    let mut members: Vec<Member> = Vec::new();
    let mut first_line: Vec<usize> = Vec::new();
    let mut duplicates = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let code = line.parse::<Code>().map_err(|e| FamilyError::BadList {
            path: name.to_string(),
            line: i + 1,
            message: e.to_string(),
        })?;
        // One game once: its store and its row would collide.
        if let Some(j) = members.iter().position(|m| m.code == code) {
            duplicates.push(format!(
                "{name}: line {}: {line} is {} again (line {}); it runs once",
                i + 1,
                code,
                first_line[j]
            ));
            continue;
        }
        members.push(Member { k: None, code });
        first_line.push(i + 1);
    }
    if members.is_empty() {
        return Err(FamilyError::EmptyList {
            path: name.to_string(),
        });
    }
    Ok(CodeList {
        members,
        duplicates,
    })
}

/// One line of the family table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The member's place in the family, from 0 (its Slurm array index).
    #[serde(default)]
    pub index: usize,
    pub k: Option<u64>,
    pub code: String,
    pub values: u64,
    pub period: Option<u64>,
    pub preperiod: Option<u64>,
    pub max_value: u32,
    pub rare_positions: Option<u64>,
    pub seconds: f64,
    /// Why the member has no result, when it failed.
    pub error: Option<String>,
}

impl Row {
    pub fn from_summary(index: usize, member: &Member, s: &Summary) -> Row {
        let (period, preperiod) = s.proven_period();
        Row {
            index,
            k: member.k,
            code: s.code.clone(),
            values: s.values,
            period,
            preperiod,
            max_value: s.max_value,
            rare_positions: s.engine.rare_positions,
            seconds: s.seconds.unwrap_or(0.0),
            error: None,
        }
    }

    pub fn failed(index: usize, member: &Member, error: String) -> Row {
        Row {
            index,
            k: member.k,
            code: member.code.to_string(),
            values: 0,
            period: None,
            preperiod: None,
            max_value: 0,
            rare_positions: None,
            seconds: 0.0,
            error: Some(error),
        }
    }
}

/// Runs every member with `run_one` on a pool of `jobs` threads and
/// returns one row per member, in the members' order. A member that fails
/// gets a row with its error; the others go on.
pub fn run_family<F>(members: &[Member], jobs: usize, run_one: F) -> Vec<Row>
where
    F: Fn(usize, &Member) -> Result<Summary, String> + Sync,
{
    let work = || -> Vec<Row> {
        members
            .par_iter()
            .enumerate()
            .with_max_len(1)
            .map(|(i, m)| match run_one(i, m) {
                Ok(s) => Row::from_summary(i, m, &s),
                Err(e) => Row::failed(i, m, e),
            })
            .collect()
    };
    match rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
    {
        Ok(pool) => pool.install(work),
        Err(_) => work(),
    }
}

fn opt<T: ToString>(x: &Option<T>) -> String {
    x.as_ref().map_or(String::new(), |v| v.to_string())
}

const COLUMNS: [&str; 10] = [
    "index",
    "k",
    "code",
    "values",
    "period",
    "preperiod",
    "max_value",
    "rare_positions",
    "seconds",
    "error",
];

fn cells(r: &Row) -> [String; 10] {
    [
        r.index.to_string(),
        opt(&r.k),
        r.code.clone(),
        r.values.to_string(),
        opt(&r.period),
        opt(&r.preperiod),
        r.max_value.to_string(),
        opt(&r.rare_positions),
        format!("{:.3}", r.seconds),
        opt(&r.error),
    ]
}

/// The table as CSV, with a header line.
pub fn to_csv(rows: &[Row]) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    for r in rows {
        let line: Vec<String> = cells(r)
            .iter()
            .map(|c| {
                if c.contains([',', '"', '\n']) {
                    format!("\"{}\"", c.replace('"', "\"\""))
                } else {
                    c.clone()
                }
            })
            .collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// The table as Markdown.
pub fn to_markdown(rows: &[Row]) -> String {
    let mut out = format!("| {} |\n", COLUMNS.join(" | "));
    let _ = writeln!(out, "|{}", " --- |".repeat(COLUMNS.len()));
    for r in rows {
        let _ = writeln!(out, "| {} |", cells(r).join(" | ").replace('\n', " "));
    }
    out
}

/// One JSON object per line.
pub fn to_json_lines(rows: &[Row]) -> String {
    rows.iter()
        .map(|r| serde_json::to_string(r).expect("rows serialise") + "\n")
        .collect()
}

/// Writes `family.csv`, `family.md` and `family.jsonl` into `dir`.
pub fn write_tables(rows: &[Row], dir: &Path) -> Result<(), FamilyError> {
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        crate::store::output::write_file_io(&path, text.as_bytes()).map_err(|source| {
            FamilyError::Write {
                path: path.display().to_string(),
                error: source,
            }
        })
    };
    std::fs::create_dir_all(dir).map_err(|source| FamilyError::Write {
        path: dir.display().to_string(),
        error: source,
    })?;
    write("family.csv", to_csv(rows))?;
    write("family.md", to_markdown(rows))?;
    write("family.jsonl", to_json_lines(rows))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(parse_k_range("1..4").unwrap(), vec![1, 2, 3, 4]);
        assert_eq!(parse_k_range("1..=3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_k_range("7").unwrap(), vec![7]);
        assert_eq!(parse_k_range("1,3,3,5").unwrap(), vec![1, 3, 5]);
        assert!(parse_k_range("4..1").is_err());
        assert!(parse_k_range("a..b").is_err());
        assert!(matches!(parse_k_range("0..3"), Err(FamilyError::ZeroK(_))));
    }

    #[test]
    fn code_lists() {
        let m = parse_code_list("# games\n.77\n\n0.137 # Dawson\n", "list")
            .unwrap()
            .members;
        let codes: Vec<String> = m.iter().map(|m| m.code.to_string()).collect();
        assert_eq!(codes, ["0.77", "0.137"]);
        let e = parse_code_list(".77\n0.G\n", "list")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("list: line 2:"), "{e}");
        assert!(parse_code_list("# nothing\n", "list").is_err());
        // One game in two spellings runs once, and the list says so.
        let l = parse_code_list(".161\n0.161\n.36\n0.1610\n", "games.txt").unwrap();
        let codes: Vec<String> = l.members.iter().map(|m| m.code.to_string()).collect();
        assert_eq!(codes, ["0.161", "0.36"]);
        assert_eq!(l.duplicates.len(), 2);
        assert!(l.duplicates[0].starts_with("games.txt: line 2: 0.161 is 0.161 again (line 1)"));
        assert!(
            l.duplicates[1].contains("line 4: 0.1610"),
            "{:?}",
            l.duplicates
        );
    }

    #[test]
    fn cookie_cutter_codes() {
        let m = cookie_cutter(&[1, 2, 4]);
        let codes: Vec<String> = m.iter().map(|m| m.code.to_string()).collect();
        assert_eq!(codes, ["0.7", "0.37", "0.3337"]);
    }
}
