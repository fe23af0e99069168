//! Reading the literature tables (`data/literature/*.csv`, embedded at
//! build time) into a [`Literature`]: a small RFC 4180 reader, then one
//! parser a table, each error naming its file and line.

use std::collections::BTreeMap;

use crate::code::Code;
use crate::literature::claims::{Claim, Entry, Literature, LiteratureError, Relation, Source};

const SOURCES: &str = include_str!("../../data/literature/sources.csv");
const STATUS: &str = include_str!("../../data/literature/status.csv");
const RELATIONS: &str = include_str!("../../data/literature/relations.csv");

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
pub(crate) fn csv_rows(
    file: &'static str,
    text: &str,
) -> Result<Vec<Vec<String>>, LiteratureError> {
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
pub(crate) fn table(
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
        let sources = parse_sources(sources)?;
        let entries = parse_status(status, &sources)?;
        let relations = parse_relations(relations, &sources)?;
        Ok(Literature {
            sources,
            entries,
            relations,
        })
    }
}

/// `sources.csv`: one [`Source`] a row.
fn parse_sources(text: &str) -> Result<Vec<Source>, LiteratureError> {
    let rows = table(
        "sources.csv",
        text,
        &[
            "id", "short", "citation", "location", "version", "read", "covers",
        ],
    )?;
    Ok(rows
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
        .collect())
}

/// The index of the source `id` names.
fn find(
    sources: &[Source],
    file: &'static str,
    line: usize,
    id: &str,
) -> Result<usize, LiteratureError> {
    sources
        .iter()
        .position(|s| s.id == id)
        .ok_or_else(|| LiteratureError::UnknownSource {
            file,
            line,
            id: id.to_string(),
        })
}

fn code(file: &'static str, line: usize, s: &str) -> Result<Code, LiteratureError> {
    s.parse::<Code>()
        .map_err(|source| LiteratureError::Code { file, line, source })
}

/// A whole number, or `None` for an empty field.
fn number(
    file: &'static str,
    line: usize,
    field: &str,
    s: &str,
) -> Result<Option<u64>, LiteratureError> {
    if s.is_empty() {
        return Ok(None);
    }
    s.parse::<u64>()
        .map(Some)
        .map_err(|_| csv_error(file, line, format!("{field} {s:?} is not a whole number")))
}

/// `status.csv`: one [`Entry`] a row.
fn parse_status(text: &str, sources: &[Source]) -> Result<Vec<Entry>, LiteratureError> {
    let f = "status.csv";
    let mut entries = Vec::new();
    for (line, r) in table(
        f,
        text,
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
        let (claim, stated) = status_claim(f, line, &r)?;
        entries.push(Entry {
            code: code(f, line, &r["code"])?,
            as_published: r["as_published"].clone(),
            source: find(sources, f, line, &r["source"])?,
            claim,
            stated,
            note: r["note"].clone(),
        });
    }
    Ok(entries)
}

/// A `status.csv` row's claim, and the claim as stated.
fn status_claim(f: &'static str, line: usize, r: &Row) -> Result<(Claim, String), LiteratureError> {
    let offset = number(f, line, "offset", &r["offset"])?.unwrap_or(0);
    let pre = number(f, line, "preperiod", &r["preperiod"])?;
    let last = number(f, line, "last_exception", &r["last_exception"])?;
    let periodic = one_of(f, line, "status", &r["status"], ["unsolved", "periodic"])? == 1;
    if !periodic {
        return Ok((Claim::Unsolved, "listed as unsolved".to_string()));
    }
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
    Ok((Claim::Periodic { period, preperiod }, stated))
}

/// `relations.csv`: one [`Relation`] a row.
fn parse_relations(text: &str, sources: &[Source]) -> Result<Vec<Relation>, LiteratureError> {
    let f = "relations.csv";
    let mut rels = Vec::new();
    for (line, r) in table(
        f,
        text,
        &["a", "b", "relation", "first_difference", "source", "note"],
    )? {
        let equal = one_of(f, line, "relation", &r["relation"], ["differ", "equal"])? == 1;
        rels.push(Relation {
            a: code(f, line, &r["a"])?,
            b: code(f, line, &r["b"])?,
            equal,
            first_difference: number(f, line, "first_difference", &r["first_difference"])?,
            source: find(sources, f, line, &r["source"])?,
            note: r["note"].clone(),
        });
    }
    Ok(rels)
}
