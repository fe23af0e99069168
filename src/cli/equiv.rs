//! `octal equiv CODE`: which codes share CODE's class in the shipped
//! three-digit census (or a census' `census.jsonl`), each with its shift
//! against the class' first code, and the class' status. It answers
//! "which codes are Kayles?" without reading the whole table.

use octal::census::shifted_equation;
use serde_json::Value;

use super::prelude::*;

#[derive(clap::Args)]
pub struct EquivArgs {
    /// An octal code, in any spelling: .137, 0.137, 0.1370.
    pub code: String,
    /// A census' census.jsonl to read instead of the shipped one
    /// (data/census/digits-3-2^25: every code of up to 3 digits).
    #[arg(long, value_name = "FILE")]
    pub census: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// The shipped census' rows, built into the binary.
const SHIPPED: &str = include_str!("../../data/census/digits-3-2^25/census.jsonl");

/// The most a census.jsonl read here may hold.
const CENSUS_BYTES: u64 = 64 << 20;

/// One member of a class as a census row gives it: G_code(n) =
/// G_first(n + shift) (`shift` None when the census did not record it),
/// for every n or for n below `below`.
struct Member {
    code: String,
    shift: Option<i64>,
    every_n: bool,
    below: Option<u64>,
}

pub fn equiv(args: EquivArgs) -> Result<ExitCode> {
    let code = parse_code(&args.code)?.to_string();
    let (text, source) = match &args.census {
        None => (
            SHIPPED.to_string(),
            "the shipped census of codes of up to 3 digits (data/census/digits-3-2^25)".to_string(),
        ),
        Some(path) => {
            let len = std::fs::metadata(path)
                .with_context(|| format!("cannot read {}", path.display()))?
                .len();
            if len > CENSUS_BYTES {
                return Err(input(format!(
                    "{}: {len} bytes: not a census.jsonl",
                    path.display()
                )));
            }
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            (text, path.display().to_string())
        }
    };
    let mut rows = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let row: Value = serde_json::from_str(line)
            .map_err(|e| input(format!("{source}: line {}: not JSON ({e})", i + 1)))?;
        // The first line of a census of this version is its provenance.
        if row.get("code").is_some() {
            rows.push(row);
        }
    }
    let found = rows.iter().find_map(|r| {
        let members = members(r);
        members
            .iter()
            .any(|m| m.code == code)
            .then_some((r, members))
    });
    let Some((row, members)) = found else {
        anyhow::bail!(
            "{code} is not in {source}; `octal compare {code} OTHER --shift auto` compares it with any code"
        );
    };
    let first = row["code"].as_str().unwrap_or("?");
    let status = status(row);
    if args.json {
        let list: Vec<Value> = members
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
        let v = serde_json::json!({
            "code": code,
            "class": first,
            "status": row["status"],
            "period": row["period"],
            "preperiod": row["preperiod"],
            "reach": row["reach"],
            "members": list,
            "census": source,
        });
        outln!("{v}");
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{code} is in the class of {first} ({status}), {} code(s), in {source}:",
        members.len()
    );
    for m in &members {
        let mark = if m.code == code { "* " } else { "  " };
        let how = match m.shift {
            _ if m.code == first => format!("G_{first}(n): the class' first code"),
            None => format!(
                "{} = {first} shifted, by a chain the census did not record",
                m.code
            ),
            Some(s) => {
                let extent = match (m.every_n, m.below) {
                    (true, _) => "for every n".to_string(),
                    (false, Some(b)) => format!("for n < {b}"),
                    (false, None) => "as far as the census computed both".to_string(),
                };
                format!("{} {extent}", shifted_equation(&m.code, first, s))
            }
        };
        outln!("{mark}{how}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The class' status in words: `periodic: period 34, preperiod 54 (last
/// exception 53)`, `open at 33554432 values`, `stopped at …: why`.
fn status(row: &Value) -> String {
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

/// The members of a class row, its first code first: from `relations`
/// (a census of this version), else from the words of `members` (`(=)`,
/// `(G(n) = G_X(n+1))`, `(G(n+1) = G_X(n))`, `(by a chain)`).
fn members(row: &Value) -> Vec<Member> {
    let first = row["code"].as_str().unwrap_or("").to_string();
    let periodic = row["status"] == "periodic";
    let mut out = vec![Member {
        code: first.clone(),
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
