//! The typed entries the literature tables hold ([`Entry`], [`Source`],
//! [`Relation`]) and the census class they are judged against
//! ([`ClassClaim`]): the leaf the reader and the judge both use.

use thiserror::Error;

use crate::code::{Code, CodeError};

/// Why a literature table does not parse. Each names the file and line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LiteratureError {
    #[error("{file} line {line}: {why}")]
    Csv {
        file: &'static str,
        line: usize,
        why: String,
    },
    #[error("{file} line {line}: {source}")]
    Code {
        file: &'static str,
        line: usize,
        source: CodeError,
    },
    #[error("{file} line {line}: unknown source {id:?} (not in sources.csv)")]
    UnknownSource {
        file: &'static str,
        line: usize,
        id: String,
    },
    #[error(
        "census member {0:?}: expected a code, optionally followed by its relation in parentheses"
    )]
    Member(String),
}

/// A published source: an OEIS entry, a repository file, a web page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Stable id used by the tables (`oeis-A071436`, `czajka-unsolved`).
    pub id: String,
    /// A short name for table cells ("OEIS A071436").
    pub short: String,
    /// The full citation.
    pub citation: String,
    /// Where it is: a URL, or `github:owner/repo/path`.
    pub location: String,
    /// Which version was read (a commit, an OEIS revision).
    pub version: String,
    /// When it was read.
    pub read: String,
    /// What it covers.
    pub covers: String,
}

impl Source {
    /// The short citation for a table cell: the short name.
    pub fn short_citation(&self) -> &str {
        &self.short
    }

    /// The full citation with its location, version and date read.
    pub fn full_citation(&self) -> String {
        format!(
            "{}, {} ({}; read {})",
            self.citation, self.location, self.version, self.read
        )
    }
}

/// What an entry claims about its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// Periodic with this period; the preperiod of the code itself (the
    /// source's last exception + 1 where it states a last exception, plus
    /// the entry's offset), when the source states one.
    Periodic { period: u64, preperiod: Option<u64> },
    /// Listed as not solved.
    Unsolved,
}

/// One published statement about one code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub code: Code,
    /// The code as the source writes it.
    pub as_published: String,
    /// Index into [`Literature::sources`].
    pub source: usize,
    pub claim: Claim,
    /// The source's own numbers, in its convention ("preperiod 326640",
    /// "last exception 326637 of a(n), values a(n-1)").
    pub stated: String,
    /// Where in the source, or a quote.
    pub note: String,
}

/// A published equality or difference between two codes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    pub a: Code,
    pub b: Code,
    /// True when the source says the two are the same game.
    pub equal: bool,
    /// The first heap where they differ, when the source gives it.
    pub first_difference: Option<u64>,
    pub source: usize,
    pub note: String,
}

/// The embedded tables.
#[derive(Debug, Clone)]
pub struct Literature {
    pub sources: Vec<Source>,
    pub entries: Vec<Entry>,
    pub relations: Vec<Relation>,
}

/// One member of a census class: its code and its shift against the
/// class's first code, G_member(n) = G_first(n + shift); `None` when the
/// census related it only through others ("by a chain").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub code: Code,
    pub shift: Option<i64>,
}

impl Member {
    /// Reads a member as the census writes it: `0.137`, `0.42 (=)`,
    /// `0.07 (G(n) = G_0.4(n+1))` (shift 1), `0.01 (G(n+1) = G_0.1(n))`
    /// (shift −1) or `0.137 (by a chain)` (shift unknown). A bare code is
    /// the class's first code (shift 0).
    pub fn parse_census(s: &str) -> Result<Member, LiteratureError> {
        let bad = || LiteratureError::Member(s.to_string());
        let (code, rel) = match s.split_once(' ') {
            Some((c, r)) => (c, Some(r.trim())),
            None => (s, None),
        };
        let code: Code = code.parse().map_err(|_| bad())?;
        let shift = match rel {
            None | Some("(=)") => Some(0),
            Some("(by a chain)") => None,
            Some(r) => {
                let r = r
                    .strip_prefix('(')
                    .and_then(|r| r.strip_suffix(')'))
                    .ok_or_else(bad)?;
                let (lhs, rhs) = r.split_once(" = ").ok_or_else(bad)?;
                // G(n+a) = G_first(n+b) means G(n) = G_first(n + b − a).
                let plus = |t: &str| -> Option<i64> {
                    let inner = t.rsplit_once('(')?.1.strip_suffix(')')?;
                    match inner.strip_prefix('n') {
                        Some("") => Some(0),
                        Some(k) => k.strip_prefix('+')?.parse().ok(),
                        None => None,
                    }
                };
                Some(plus(rhs).ok_or_else(bad)? - plus(lhs).ok_or_else(bad)?)
            }
        };
        Ok(Member { code, shift })
    }
}

/// What the census found for a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Proven periodic: the first code's period and preperiod.
    Periodic { period: u64, preperiod: u64 },
    /// Not proven (open or stopped) after `reach` values.
    Open { reach: u64 },
}

/// A census class as the judge needs it: its members (the first is the
/// representative, shift 0) and the outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassClaim {
    pub members: Vec<Member>,
    pub outcome: Outcome,
}

impl ClassClaim {
    /// Reads a row of a census' `census.jsonl` (fields `code` and
    /// `relations`, or `members` in older rows; `status`, `period`,
    /// `preperiod`, `reach`).
    pub fn from_census_row(row: &serde_json::Value) -> Result<ClassClaim, LiteratureError> {
        let members = match row["relations"].as_array() {
            // The census' own data: its first code, then each member with
            // the shift composed and checked against it.
            Some(relations) => {
                let parse = |c: &serde_json::Value| {
                    let text = c.as_str().unwrap_or_default();
                    text.parse::<Code>()
                        .map_err(|_| LiteratureError::Member(text.to_string()))
                };
                let mut members = vec![Member {
                    code: parse(&row["code"])?,
                    shift: Some(0),
                }];
                for r in relations {
                    members.push(Member {
                        code: parse(&r["code"])?,
                        shift: r["shift"].as_i64(),
                    });
                }
                members
            }
            // Rows of censuses before the relations were recorded.
            None => row["members"]
                .as_array()
                .ok_or_else(|| LiteratureError::Member(format!("no members in {row}")))?
                .iter()
                .map(|m| Member::parse_census(m.as_str().unwrap_or_default()))
                .collect::<Result<Vec<_>, _>>()?,
        };
        let outcome = match (row["status"].as_str(), row["period"].as_u64()) {
            (Some("periodic"), Some(period)) => Outcome::Periodic {
                period,
                preperiod: row["preperiod"].as_u64().unwrap_or(0),
            },
            _ => Outcome::Open {
                reach: row["reach"].as_u64().unwrap_or(0),
            },
        };
        Ok(ClassClaim { members, outcome })
    }
}
