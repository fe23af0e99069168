//! Looking a code up in a census' rows: the class it belongs to, every
//! member's shift against the class' first code, and the class' status.
//! `octal equiv` and Python's `octal.equiv`/`octal.census` both read the
//! rows here, so the two answer alike.

use std::path::Path;

use serde_json::Value;

use super::classes::shifted_equation;

/// The shipped census' rows (every code of up to 3 digits, to 2^25).
pub const SHIPPED: &str = include_str!("../../data/census/digits-3-2^25/census.jsonl");

/// How the shipped census is named in answers.
pub const SHIPPED_SOURCE: &str =
    "the shipped census of codes of up to 3 digits (data/census/digits-3-2^25)";

/// The shipped census of every code of up to 4 digits, to 2^22: it
/// answers for the codes the three-digit one does not hold.
pub const SHIPPED_FOUR: &str = include_str!("../../data/census/digits-4-2^22/census.jsonl");

/// How the shipped four-digit census is named in answers.
pub const SHIPPED_FOUR_SOURCE: &str =
    "the shipped census of codes of up to 4 digits (data/census/digits-4-2^22)";

/// The most a census.jsonl read here may hold.
pub const CENSUS_BYTES: u64 = 64 << 20;

/// Why a census cannot be read or a code is not in it.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    #[error("cannot read {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("{0}: {1} bytes: not a census.jsonl")]
    TooBig(String, u64),
    #[error("{source_name}: line {line}: not JSON ({error})")]
    NotJson {
        source_name: String,
        line: usize,
        error: serde_json::Error,
    },
    #[error("{code} is not in {source_name}; `octal compare {code} OTHER --shift auto` compares it with any code")]
    NotFound { code: String, source_name: String },
}

impl LookupError {
    /// Whether the user's input is at fault (not a failing disk).
    pub fn is_input(&self) -> bool {
        !matches!(self, LookupError::Io { .. })
    }
}

/// A census' rows: the shipped one (`None`), or a census.jsonl or the
/// directory holding one.
#[derive(Debug, Clone)]
pub struct Census {
    /// What the census is, for answers: a path or the shipped one.
    pub source: String,
    /// One JSON object per code (class rows), provenance left out.
    pub rows: Vec<Value>,
}

impl Census {
    /// The census that answers for `code`: the one at `path`, else the
    /// shipped three-digit census (which went further) when it holds
    /// `code`, else the shipped four-digit one.
    pub fn read_for(path: Option<&Path>, code: &str) -> Result<Census, LookupError> {
        if path.is_some() {
            return Census::read(path);
        }
        let three = Census::parse(SHIPPED, SHIPPED_SOURCE)?;
        if three.class_of(code).is_ok() {
            return Ok(three);
        }
        Census::parse(SHIPPED_FOUR, SHIPPED_FOUR_SOURCE)
    }

    /// Reads the census at `path` (a directory means its census.jsonl), or
    /// the shipped three-digit one.
    pub fn read(path: Option<&Path>) -> Result<Census, LookupError> {
        let Some(path) = path else {
            return Census::parse(SHIPPED, SHIPPED_SOURCE);
        };
        let file = if path.is_dir() {
            path.join("census.jsonl")
        } else {
            path.to_owned()
        };
        let name = file.display().to_string();
        let io = |error| LookupError::Io {
            path: name.clone(),
            error,
        };
        let len = std::fs::metadata(&file).map_err(io)?.len();
        if len > CENSUS_BYTES {
            return Err(LookupError::TooBig(name, len));
        }
        let text = std::fs::read_to_string(&file).map_err(io)?;
        Census::parse(&text, &name)
    }

    /// The rows of census.jsonl text named `source`.
    pub fn parse(text: &str, source: &str) -> Result<Census, LookupError> {
        let mut rows = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let row: Value = serde_json::from_str(line).map_err(|error| LookupError::NotJson {
                source_name: source.to_string(),
                line: i + 1,
                error,
            })?;
            // The first line of a census of this version is its provenance.
            if row.get("code").is_some() {
                rows.push(row);
            }
        }
        Ok(Census {
            source: source.to_string(),
            rows,
        })
    }

    /// The class of `code` (canonical spelling) in this census.
    pub fn class_of(&self, code: &str) -> Result<Class<'_>, LookupError> {
        self.rows
            .iter()
            .find_map(|row| {
                let members = members(row);
                members
                    .iter()
                    .any(|m| m.code == code)
                    .then_some(Class { row, members })
            })
            .ok_or_else(|| LookupError::NotFound {
                code: code.to_string(),
                source_name: self.source.clone(),
            })
    }
}

/// One member of a class as a census row gives it: G_code(n) =
/// G_first(n + shift) (`shift` None when the census did not record it),
/// for every n or for n below `below`.
#[derive(Debug, Clone)]
pub struct Member {
    pub code: String,
    pub shift: Option<i64>,
    pub every_n: bool,
    pub below: Option<u64>,
}

/// A class found: its row and its members, its first code first.
#[derive(Debug, Clone)]
pub struct Class<'a> {
    pub row: &'a Value,
    pub members: Vec<Member>,
}

impl Class<'_> {
    /// The class' first code.
    pub fn first(&self) -> &str {
        self.row["code"].as_str().unwrap_or("?")
    }

    /// The answer to "which codes are `code`?" as `octal equiv --json`
    /// prints it.
    pub fn to_json(&self, code: &str, source: &str) -> Value {
        let first = self.first();
        let list: Vec<Value> = self
            .members
            .iter()
            .map(|m| {
                serde_json::json!({
                    "code": m.code,
                    "shift": m.shift,
                    "equation": m.shift.map(|s| shifted_equation(&m.code, first, s)),
                    "for_every_n": m.every_n,
                    "checked_below": m.below,
                })
            })
            .collect();
        let row = self.row;
        serde_json::json!({
            "code": code,
            "class": first,
            "status": row["status"],
            "period": row["period"],
            "preperiod": row["preperiod"],
            "reach": row["reach"],
            "members": list,
            "census": source,
        })
    }

    /// The class' status in words: `periodic: period 34, preperiod 54
    /// (last exception 53)`, `open at 33554432 values`, `stopped at …: why`.
    pub fn status(&self) -> String {
        let row = self.row;
        let int = |k: &str| row[k].as_u64();
        match row["status"].as_str() {
            Some("periodic") => {
                let pre = int("preperiod").unwrap_or(0);
                let last = pre
                    .checked_sub(1)
                    .map_or("none".to_string(), |e| e.to_string());
                format!(
                    "periodic: period {}, preperiod {pre} (last exception {last}), proven at {}",
                    int("period").unwrap_or(0),
                    int("proven_at").unwrap_or(0)
                )
            }
            Some("open") => format!("open at {} values", int("reach").unwrap_or(0)),
            _ => format!(
                "stopped at {} values: {}",
                int("reach").unwrap_or(0),
                row["why"].as_str().unwrap_or("?")
            ),
        }
    }
}

/// The members of a class row, its first code first: from `relations`
/// (a census of this version), else from the words of `members` (`(=)`,
/// `(G(n) = G_X(n+1))`, `(G(n+1) = G_X(n))`, `(by a chain)`).
pub fn members(row: &Value) -> Vec<Member> {
    let first = row["code"].as_str().unwrap_or("").to_string();
    let periodic = row["status"] == "periodic";
    let mut out = vec![Member {
        code: first,
        shift: Some(0),
        every_n: true,
        below: None,
    }];
    if let Some(rels) = row.get("relations").and_then(Value::as_array) {
        out.extend(rels.iter().map(|r| Member {
            code: r["code"].as_str().unwrap_or("").to_string(),
            shift: r["shift"].as_i64(),
            every_n: r["for_every_n"].as_bool().unwrap_or(false),
            below: r["checked_below"].as_u64(),
        }));
        return out;
    }
    for m in row["members"].as_array().into_iter().flatten().skip(1) {
        let m = m.as_str().unwrap_or("");
        let (code, how) = m.split_once(' ').unwrap_or((m, ""));
        let shift = if how == "(=)" {
            Some(0)
        } else if how.starts_with("(G(n) = G_") {
            Some(1)
        } else if how.starts_with("(G(n+1) = G_") {
            Some(-1)
        } else {
            None
        };
        out.push(Member {
            code: code.to_string(),
            shift,
            // Links between two proven periods were proven for every n.
            every_n: periodic,
            below: None,
        });
    }
    out
}
