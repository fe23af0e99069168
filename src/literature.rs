//! What the literature says about short octal games, and how a result of
//! this project stands against it.
//!
//! A census proves games periodic; a reader wants to know which of those
//! results were known, which are new and which contradict a published
//! claim. `data/literature/` holds the published status of short octal
//! games, each entry with its source (see its README); this module embeds
//! those tables, parses them into typed entries and judges a census class
//! against every entry about any of its codes.
//!
//! Codes are matched through [`Code`], so `.137`, `0.137` and `0.1370` are
//! one game. A class holds several codes, related to its first one by
//! G_member(n) = G_first(n + shift); an entry about a member judges the
//! class with the preperiod moved by that shift (the period is the same for
//! every member). A member whose shift is unknown (the census says "by a
//! chain") has it found from the values when a value source is given, and
//! is otherwise judged on its period alone.

use std::collections::BTreeMap;
use std::fmt;

use thiserror::Error;

use crate::code::{Code, CodeError};

const SOURCES: &str = include_str!("../data/literature/sources.csv");
const STATUS: &str = include_str!("../data/literature/status.csv");
const RELATIONS: &str = include_str!("../data/literature/relations.csv");

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

/// G(n) of a code, when the caller can give it (`None`: not available).
pub type Values<'a> = &'a dyn Fn(&Code, u64) -> Option<u32>;

/// How a class stands against one entry of the literature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// The source states the same period and, where it gives one, the
    /// same preperiod. `period_only` when only the period could be
    /// compared (no preperiod stated, or the member's shift unknown).
    Agrees {
        source: Source,
        code: String,
        period_only: bool,
    },
    /// Listed as unsolved by the source, proven periodic here.
    New { source: Source, code: String },
    /// The source's claim fails at heap `first_heap`.
    Disagrees {
        source: Source,
        code: String,
        first_heap: u64,
        evidence: String,
    },
    /// Listed as unsolved by the source, and open here too.
    Open { source: Source, code: String },
    /// Solved by the source, not (yet) proven here.
    Known {
        source: Source,
        code: String,
        reach: u64,
    },
    /// No entry names any code of the class.
    Unlisted,
}

impl Standing {
    /// A one-word label for filtering.
    pub fn label(&self) -> &'static str {
        match self {
            Standing::Agrees { .. } => "agrees",
            Standing::New { .. } => "new",
            Standing::Disagrees { .. } => "disagrees",
            Standing::Open { .. } => "open",
            Standing::Known { .. } => "known",
            Standing::Unlisted => "unlisted",
        }
    }

    /// The source judged against, if any.
    pub fn source(&self) -> Option<&Source> {
        match self {
            Standing::Agrees { source, .. }
            | Standing::New { source, .. }
            | Standing::Disagrees { source, .. }
            | Standing::Open { source, .. }
            | Standing::Known { source, .. } => Some(source),
            Standing::Unlisted => None,
        }
    }

    /// How telling the standing is: a disagreement first, then a new
    /// result, an agreement, a known result, an open game.
    fn rank(&self) -> u8 {
        match self {
            Standing::Disagrees { .. } => 0,
            Standing::New { .. } => 1,
            Standing::Agrees { .. } => 2,
            Standing::Known { .. } => 3,
            Standing::Open { .. } => 4,
            Standing::Unlisted => 5,
        }
    }
}

impl fmt::Display for Standing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Standing::Agrees {
                source,
                code,
                period_only,
            } => {
                let only = if *period_only { "; period only" } else { "" };
                write!(f, "agrees with {} ({code}{only})", source.short)
            }
            Standing::New { source, code } => write!(
                f,
                "new: listed as unsolved by {} ({code}), proven here",
                source.short
            ),
            Standing::Disagrees {
                source,
                code,
                first_heap,
                evidence,
            } => write!(
                f,
                "disagrees with {} ({code}) at n = {first_heap}: {evidence}",
                source.short
            ),
            Standing::Open { source, code } => write!(
                f,
                "open: listed as unsolved by {} ({code}), open here too",
                source.short
            ),
            Standing::Known {
                source,
                code,
                reach,
            } => write!(
                f,
                "known: solved by {} ({code}), not proven here (reach {reach})",
                source.short
            ),
            Standing::Unlisted => f.write_str("unlisted"),
        }
    }
}

/// The most telling of a class's standings (for a single table cell):
/// a disagreement, else a new result, an agreement, a known result, an
/// open game, or unlisted.
pub fn headline(standings: &[Standing]) -> &Standing {
    standings
        .iter()
        .min_by_key(|s| s.rank())
        .unwrap_or(&Standing::Unlisted)
}

/// A class's standings as one table cell: every disagreement (once per
/// source and heap), then the new, agreeing, known and open standings,
/// each naming its sources once; "unlisted" when there are none.
pub fn cell(standings: &[Standing]) -> String {
    let mut sorted: Vec<&Standing> = standings.iter().collect();
    sorted.sort_by_key(|s| s.rank());
    let mut parts: Vec<String> = Vec::new();
    let mut seen: Vec<(&'static str, String)> = Vec::new();
    for s in sorted {
        let Some(src) = s.source() else { continue };
        let key = match s {
            Standing::Disagrees { first_heap, .. } => format!("{} {first_heap}", src.id),
            _ => src.short.clone(),
        };
        if seen.contains(&(s.label(), key.clone())) {
            continue;
        }
        seen.push((s.label(), key));
        match s {
            Standing::Disagrees {
                first_heap,
                evidence,
                ..
            } => parts.push(format!(
                "disagrees with {} at n = {first_heap}: {evidence}",
                src.short
            )),
            _ => {
                let lead = match s.label() {
                    "agrees" => "agrees with",
                    "new" => "new: listed as unsolved by",
                    "known" => "known: solved by",
                    _ => "open: listed as unsolved by",
                };
                let tail = match s.label() {
                    "new" => ", proven here",
                    "known" => ", not proven here",
                    "open" => ", open here too",
                    _ => "",
                };
                // Several sources with one label share one phrase.
                match parts.last_mut() {
                    Some(last) if last.starts_with(lead) && last.ends_with(tail) => {
                        let stem = last.len() - tail.len();
                        last.insert_str(stem, &format!(", {}", src.short));
                    }
                    _ => parts.push(format!("{lead} {}{tail}", src.short)),
                }
            }
        }
    }
    if parts.is_empty() {
        "unlisted".into()
    } else {
        parts.join("; ")
    }
}

fn csv_error(file: &'static str, line: usize, why: impl Into<String>) -> LiteratureError {
    LiteratureError::Csv {
        file,
        line,
        why: why.into(),
    }
}

/// Which of `options` a field holds (its index).
fn one_of<const N: usize>(
    file: &'static str,
    line: usize,
    field: &str,
    value: &str,
    options: [&str; N],
) -> Result<usize, LiteratureError> {
    options.iter().position(|o| *o == value).ok_or_else(|| {
        csv_error(
            file,
            line,
            format!("{field} {value:?} is not one of {}", options.join(", ")),
        )
    })
}

/// Splits CSV text (RFC 4180: quoted fields, doubled quotes) into rows.
fn csv_rows(file: &'static str, text: &str) -> Result<Vec<Vec<String>>, LiteratureError> {
    let mut rows = Vec::new();
    let (mut row, mut field) = (Vec::new(), String::new());
    let (mut quoted, mut line) = (false, 1);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
                line += 1;
            }
            (_, c) => {
                if c == '\n' {
                    line += 1;
                }
                field.push(c);
            }
        }
    }
    if quoted {
        return Err(csv_error(file, line, "unterminated quoted field"));
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    Ok(rows)
}

/// A table row by its header's names.
type Row = BTreeMap<String, String>;

/// The rows of a table as maps from its header's names, with line numbers;
/// every row must have the header's width.
fn table(
    file: &'static str,
    text: &str,
    expect: &[&str],
) -> Result<Vec<(usize, Row)>, LiteratureError> {
    let rows = csv_rows(file, text)?;
    let header = rows.first().ok_or(csv_error(file, 1, "empty file"))?;
    if header != expect {
        return Err(csv_error(
            file,
            1,
            format!("header is {header:?}, expected {expect:?}"),
        ));
    }
    rows[1..]
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if r.len() != header.len() {
                return Err(csv_error(
                    file,
                    i + 2,
                    format!("{} fields, expected {}", r.len(), header.len()),
                ));
            }
            Ok((
                i + 2,
                header.iter().cloned().zip(r.iter().cloned()).collect(),
            ))
        })
        .collect()
}

impl Literature {
    /// The tables embedded at build time from `data/literature/`. They are
    /// checked by the tests, so this cannot fail in a released build.
    pub fn embedded() -> Literature {
        Literature::parse(SOURCES, STATUS, RELATIONS)
            .expect("the embedded literature tables parse (checked by the tests)")
    }

    /// Parses the three tables (`sources.csv`, `status.csv`,
    /// `relations.csv`).
    pub fn parse(
        sources: &str,
        status: &str,
        relations: &str,
    ) -> Result<Literature, LiteratureError> {
        let src_rows = table(
            "sources.csv",
            sources,
            &[
                "id", "short", "citation", "location", "version", "read", "covers",
            ],
        )?;
        let sources: Vec<Source> = src_rows
            .into_iter()
            .map(|(_, r)| Source {
                id: r["id"].clone(),
                short: r["short"].clone(),
                citation: r["citation"].clone(),
                location: r["location"].clone(),
                version: r["version"].clone(),
                read: r["read"].clone(),
                covers: r["covers"].clone(),
            })
            .collect();
        let find = |file: &'static str, line: usize, id: &str| {
            sources
                .iter()
                .position(|s| s.id == id)
                .ok_or_else(|| LiteratureError::UnknownSource {
                    file,
                    line,
                    id: id.to_string(),
                })
        };
        let code = |file: &'static str, line: usize, s: &str| {
            s.parse::<Code>()
                .map_err(|source| LiteratureError::Code { file, line, source })
        };
        let number = |file: &'static str, line: usize, field: &str, s: &str| {
            if s.is_empty() {
                return Ok(None);
            }
            s.parse::<u64>()
                .map(Some)
                .map_err(|_| csv_error(file, line, format!("{field} {s:?} is not a whole number")))
        };
        let f = "status.csv";
        let mut entries = Vec::new();
        for (line, r) in table(
            f,
            status,
            &[
                "code",
                "as_published",
                "source",
                "status",
                "period",
                "preperiod",
                "last_exception",
                "offset",
                "values",
                "note",
            ],
        )? {
            let offset = number(f, line, "offset", &r["offset"])?.unwrap_or(0);
            let pre = number(f, line, "preperiod", &r["preperiod"])?;
            let last = number(f, line, "last_exception", &r["last_exception"])?;
            let periodic = one_of(f, line, "status", &r["status"], ["unsolved", "periodic"])? == 1;
            let (claim, stated) = match periodic {
                false => (Claim::Unsolved, "listed as unsolved".to_string()),
                true => {
                    let period = number(f, line, "period", &r["period"])?
                        .filter(|&p| p > 0)
                        .ok_or_else(|| csv_error(f, line, "a periodic entry needs a period ≥ 1"))?;
                    let mut stated = format!("period {period}");
                    if let Some(i) = pre {
                        stated += &format!(", preperiod {i}");
                    }
                    if let Some(l) = last {
                        stated += &format!(", last exception {l}");
                    }
                    if offset > 0 {
                        stated += &format!(" of a(n), values a(n-{offset})");
                    }
                    let preperiod = match (pre, last) {
                        (Some(_), Some(_)) => {
                            return Err(csv_error(
                                f,
                                line,
                                "give a preperiod or a last exception, not both",
                            ))
                        }
                        (Some(i), None) => Some(i + offset),
                        (None, Some(l)) => Some(l + 1 + offset),
                        (None, None) => None,
                    };
                    (Claim::Periodic { period, preperiod }, stated)
                }
            };
            entries.push(Entry {
                code: code(f, line, &r["code"])?,
                as_published: r["as_published"].clone(),
                source: find(f, line, &r["source"])?,
                claim,
                stated,
                note: r["note"].clone(),
            });
        }
        let f = "relations.csv";
        let mut rels = Vec::new();
        for (line, r) in table(
            f,
            relations,
            &["a", "b", "relation", "first_difference", "source", "note"],
        )? {
            let equal = one_of(f, line, "relation", &r["relation"], ["differ", "equal"])? == 1;
            rels.push(Relation {
                a: code(f, line, &r["a"])?,
                b: code(f, line, &r["b"])?,
                equal,
                first_difference: number(f, line, "first_difference", &r["first_difference"])?,
                source: find(f, line, &r["source"])?,
                note: r["note"].clone(),
            });
        }
        Ok(Literature {
            sources,
            entries,
            relations: rels,
        })
    }

    /// The entries about `code` (any spelling).
    pub fn entries_for<'a>(&'a self, code: &Code) -> impl Iterator<Item = &'a Entry> + 'a {
        let code = code.clone();
        self.entries.iter().filter(move |e| e.code == code)
    }

    /// How a class stands against every entry about any of its members,
    /// in the order of the entries; `[Unlisted]` when none names it.
    /// `values`, when given, finds the shift of a member related "by a
    /// chain" and supplies the values quoted as evidence of a
    /// disagreement.
    pub fn judge(&self, class: &ClassClaim, values: Option<Values>) -> Vec<Standing> {
        let mut out = Vec::new();
        let first = class.members.first();
        for e in &self.entries {
            let Some(m) = class.members.iter().find(|m| m.code == e.code) else {
                continue;
            };
            let source = self.sources[e.source].clone();
            let code = e.as_published.clone();
            let standing = match (e.claim, class.outcome) {
                (Claim::Unsolved, Outcome::Periodic { .. }) => Standing::New { source, code },
                (Claim::Unsolved, Outcome::Open { .. }) => Standing::Open { source, code },
                (Claim::Periodic { .. }, Outcome::Open { reach }) => Standing::Known {
                    source,
                    code,
                    reach,
                },
                (
                    Claim::Periodic {
                        period: q,
                        preperiod: claimed,
                    },
                    Outcome::Periodic { period, preperiod },
                ) => {
                    let shift = m.shift.or_else(|| {
                        let (first, values) = (first?, values?);
                        find_shift(&first.code, &m.code, period, preperiod, values)
                    });
                    let own =
                        shift.map(|s| member_preperiod(preperiod, s, &m.code, period, values));
                    match compare(&m.code, (q, claimed), (period, own), values) {
                        None => Standing::Agrees {
                            source,
                            code,
                            period_only: claimed.is_none() || own.is_none(),
                        },
                        Some((first_heap, evidence)) => Standing::Disagrees {
                            source,
                            code,
                            first_heap,
                            evidence,
                        },
                    }
                }
            };
            out.push(standing);
        }
        if out.is_empty() {
            out.push(Standing::Unlisted);
        }
        out
    }

    /// Checks each published relation against a census' classes: an
    /// equality holds when both codes are in one class, a difference when
    /// they are in different classes. Relations naming a code outside the
    /// classes are left out.
    pub fn check_relations<'a>(&'a self, classes: &[ClassClaim]) -> Vec<(&'a Relation, bool)> {
        let class_of = |c: &Code| {
            classes
                .iter()
                .position(|k| k.members.iter().any(|m| &m.code == c))
        };
        self.relations
            .iter()
            .filter_map(|r| {
                let (a, b) = (class_of(&r.a)?, class_of(&r.b)?);
                Some((r, (a == b) == r.equal))
            })
            .collect()
    }

    /// Judges every class of a census (the rows of its `census.jsonl`).
    pub fn judge_census(
        &self,
        rows: &[serde_json::Value],
        values: Option<Values>,
    ) -> Result<Vec<Vec<Standing>>, LiteratureError> {
        rows.iter()
            .map(|r| Ok(self.judge(&ClassClaim::from_census_row(r)?, values)))
            .collect()
    }
}

/// The shift s with G_member(n) = G_first(n + s), tried from 0 outwards
/// over the first values (enough to cover the preperiod and two periods,
/// at most 4096).
fn find_shift(first: &Code, member: &Code, p: u64, pre: u64, values: Values) -> Option<i64> {
    let k = (pre + 2 * p + 64).min(4096) as i64;
    [0i64, 1, -1, 2, -2, 3, -3, 4, -4].into_iter().find(|&s| {
        (0..k).filter(|&n| n + s >= 0).all(|n| {
            match (values(member, n as u64), values(first, (n + s) as u64)) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            }
        })
    })
}

/// The preperiod of a member with G_member(n) = G_first(n + s), where the
/// first code has preperiod `pre`: pre − s, not below 0. When s < 0 and
/// pre = 0 the member's own first values decide (given values); without
/// them pre − s is an upper bound and is returned as is.
fn member_preperiod(pre: u64, s: i64, code: &Code, p: u64, values: Option<Values>) -> u64 {
    let i = (pre as i64 - s).max(0) as u64;
    match values {
        Some(v) if s < 0 && pre == 0 => (0..i)
            .rev()
            .find(|&n| v(code, n) != v(code, n + p))
            .map_or(0, |n| n + 1),
        _ => i,
    }
}

/// Compares a claim (period q, preperiod if stated) with the census' own
/// (period p, the member's preperiod if its shift is known). `None` when
/// they agree; else the first heap where the claim fails and the evidence.
fn compare(
    code: &Code,
    (q, claimed): (u64, Option<u64>),
    (p, own): (u64, Option<u64>),
    values: Option<Values>,
) -> Option<(u64, String)> {
    let g = |n: u64| values.and_then(|v| v(code, n));
    let pair = |n: u64, m: u64| match (g(n), g(m)) {
        (Some(a), Some(b)) => format!("G({n}) = {a}, G({m}) = {b}"),
        _ => String::new(),
    };
    if q != p {
        // The claim G(n + q) = G(n) fails somewhere past both preperiods
        // unless q is a multiple of p (then q is a period, not the least).
        let from = own.unwrap_or(0).max(claimed.unwrap_or(0));
        if q % p == 0 {
            return Some((
                from,
                format!("period {q} stated; the least period here is {p}, which divides it"),
            ));
        }
        let n = (from..from + p)
            .find(|&n| matches!((g(n), g(n + q)), (Some(a), Some(b)) if a != b))
            .unwrap_or(from);
        let v = pair(n, n + q);
        return Some((
            n,
            format!(
                "period {q} stated; here the least period is {p}{}",
                with(&v)
            ),
        ));
    }
    let (Some(c), Some(i)) = (claimed, own) else {
        return None;
    };
    if c == i {
        return None;
    }
    if c < i {
        // The claim says periodic from c, but G(i − 1) ≠ G(i − 1 + p).
        let n = i - 1;
        let v = pair(n, n + p);
        Some((
            n,
            format!(
                "last exception {} stated (preperiod {c}); here the last exception is {n} \
                 (preperiod {i}): G({n}) ≠ G({}){}",
                c as i64 - 1,
                n + p,
                with(&v)
            ),
        ))
    } else {
        // The claim says G(c − 1) is an exception; here it repeats.
        let n = c - 1;
        let v = pair(n, n + p);
        Some((
            n,
            format!(
                "last exception {n} stated (preperiod {c}); here the preperiod is {i}, \
                 so G({n}) = G({}){}",
                n + p,
                with(&v)
            ),
        ))
    }
}

fn with(v: &str) -> String {
    if v.is_empty() {
        String::new()
    } else {
        format!(" ({v})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn census_members_parse_with_their_shifts() {
        let m = |s: &str| Member::parse_census(s).unwrap();
        assert_eq!(m("0.137").shift, Some(0));
        assert_eq!(m("0.42 (=)").shift, Some(0));
        assert_eq!(m("0.07 (G(n) = G_0.4(n+1))").shift, Some(1));
        assert_eq!(m("0.01 (G(n+1) = G_0.1(n))").shift, Some(-1));
        assert_eq!(m("0.137 (by a chain)").shift, None);
        assert!(Member::parse_census("0.1 (G(x) = y)").is_err());
        assert!(Member::parse_census("banana").is_err());
    }

    #[test]
    fn csv_reads_quotes_and_rejects_ragged_rows() {
        let rows = csv_rows("t", "a,b\n\"x, \"\"y\"\"\",2\n").unwrap();
        assert_eq!(rows[1], vec!["x, \"y\"".to_string(), "2".to_string()]);
        assert!(table("t", "a,b\n1\n", &["a", "b"]).is_err());
        assert!(csv_rows("t", "a,\"b\n").is_err());
    }
}
