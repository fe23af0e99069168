//! The census' tables: one row per class (Markdown, CSV and JSON lines,
//! each after its provenance), the equivalences in words, and what the
//! tables add to a class beyond its run ([`Marks`]: the literature's
//! standing and the certificate's check). Kept apart from the census
//! itself, which decides what the rows say.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::census::classes::{shifted_equation, Equivalences, SIGNATURE};
use crate::census::result::{CodeResult, Status};
use crate::certificate::CheckRow;
use crate::compare::Outcome;
use crate::literature::{self, Standing};

/// Where a census' tables came from, stated at the head of each: the
/// octal version, the commit of its source, the date (UTC) and the
/// command with every option, defaults included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    pub octal: String,
    pub commit: String,
    pub date: String,
    pub command: String,
}

impl Provenance {
    /// The header in words: `octal 0.1.0 (commit abc1234), 2026-11-28:
    /// octal census --digits 3 …`.
    pub fn line(&self) -> String {
        format!(
            "octal {} (commit {}), {}: {}",
            self.octal, self.commit, self.date, self.command
        )
    }
}

/// What the tables say of a class beyond its run: where the literature
/// stands on it and how its certificate was checked.
#[derive(Debug, Clone, Default)]
pub struct Marks {
    pub literature: Vec<Standing>,
    pub checked: Option<CheckRow>,
}

impl Marks {
    /// The literature as one JSON object: the most telling label, the
    /// cell text, and every standing with its source.
    fn literature_json(&self) -> serde_json::Value {
        if self.literature.is_empty() {
            return serde_json::Value::Null;
        }
        let standings: Vec<serde_json::Value> = self
            .literature
            .iter()
            .map(|st| {
                serde_json::json!({
                    "label": st.label(),
                    "source": st.source().map(|s| s.short.clone()),
                    "citation": st.source().map(|s| s.full_citation()),
                    "text": st.to_string(),
                })
            })
            .collect();
        serde_json::json!({
            "label": literature::headline(&self.literature).label(),
            "text": literature::cell(&self.literature),
            "standings": standings,
        })
    }

    /// The short cell of the Markdown table: the label and its sources.
    fn literature_cell(&self) -> String {
        if self.literature.is_empty() {
            return String::new();
        }
        let head = literature::headline(&self.literature);
        let mut sources: Vec<&str> = self
            .literature
            .iter()
            .filter(|s| s.label() == head.label())
            .filter_map(|s| s.source().map(|s| s.short.as_str()))
            .collect();
        sources.dedup();
        match sources.is_empty() {
            true => head.label().into(),
            false => format!("{}: {}", head.label(), sources.join(", ")),
        }
    }
}

/// The census' tables: one row per class, its first code's facts, and
/// `marks`, by the class' first code.
pub struct Table<'a> {
    pub results: &'a [CodeResult],
    pub eq: &'a Equivalences,
    pub provenance: &'a Provenance,
    pub marks: &'a BTreeMap<String, Marks>,
}

/// A class' status in the table's cells: status, period, preperiod,
/// last exception (preperiod − 1, `none` for a purely periodic one) and
/// where the period was proven; empty cells where not periodic.
fn status_cells(result: &CodeResult) -> [String; 5] {
    match &result.status {
        Status::Periodic {
            period,
            preperiod,
            proven_at,
        } => [
            "periodic".into(),
            period.to_string(),
            preperiod.to_string(),
            preperiod
                .checked_sub(1)
                .map_or("none".into(), |e| e.to_string()),
            proven_at.to_string(),
        ],
        Status::Open => [
            result
                .apparent()
                .map_or_else(|| "open".into(), |a| format!("open ({a})")),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ],
        Status::Stopped { why, .. } => [
            format!("stopped: {why}"),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ],
    }
}

/// `0x1ee`, as the command line prints a mask; empty without one.
fn hex_mask(mask: Option<u32>) -> String {
    mask.map_or(String::new(), |m| format!("0x{m:x}"))
}

/// `none` for an empty section.
fn or_none(text: String) -> String {
    if text.is_empty() {
        "none\n".into()
    } else {
        text
    }
}

/// How a census proves that two codes agree for every n, said once at
/// the top of `equivalences.md`.
const HOW_CLASSES_ARISE: &str = "## How agreement is proven\n\n\
- Spellings of one game (trailing zeros: `0.60` is `0.6`) are one row, run once.\n\
- Two proven periodic games agree for every n when they agree from the later preperiod on over the sum of their periods.\n\
- Two codes that differ only in taking all of a heap (bit 1 of digit j) agree for every n once they agree on every n ≤ j: \
taking all of j beans applies to a heap of exactly j, so every other heap has the same moves in both games. \
No period is needed; such members of open classes say so.\n\
- Any other agreement is checked as far as both games were computed: `for n < N`.\n";

impl Table<'_> {
    /// The classes, each as its codes (the first is the representative).
    pub fn classes(&self) -> Vec<Vec<usize>> {
        let mut by: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, &c) in self.eq.class_of.iter().enumerate() {
            by.entry(c).or_default().push(i);
        }
        by.into_values().collect()
    }

    /// How code `i` relates to its class' first code: the equation (with
    /// the composed shift) and how far it was checked, `for every n` or
    /// `for n < N` (N in the equation's own n). None for the first code.
    fn relation(&self, i: usize) -> Option<(String, String, Option<u64>)> {
        let rel = self.eq.relations.get(i).copied().flatten()?;
        let r = self.eq.class_of[i];
        let (code, first) = (&self.results[i].code, &self.results[r].code);
        let equation = shifted_equation(code, first, rel.shift);
        // A negative shift is written from the first code's side, whose n
        // is the member's n − |shift|.
        let own_n = |to: u64| to.saturating_sub(rel.shift.min(0).unsigned_abs());
        // Codes that differ only in taking all of a heap of j are equal
        // for every n once they agree beyond the largest such j.
        let take_all = rel.by_take_all(code, first);
        let below = match rel.outcome {
            Outcome::EqualForever { .. } => None,
            _ if take_all.is_some() => None,
            Outcome::EqualTo { to } => Some(own_n(to)),
            Outcome::Differ { at, .. } => Some(own_n(at)),
        };
        let extent = match (rel.outcome, below, take_all) {
            (Outcome::Differ { at, .. }, _, _) => {
                format!("for n < {} only: differ at n = {at}", own_n(at))
            }
            (_, None, Some(j)) => {
                format!("for every n: they differ only in taking all of a heap of at most {j}")
            }
            (_, None, None) => "for every n".into(),
            (_, Some(b), _) => format!("for n < {b}"),
        };
        Some((equation, extent, below))
    }

    /// `code (G_code(n) = G_first(n+k) for every n)`, or the code alone
    /// for the class' first.
    fn member(&self, i: usize) -> String {
        let code = &self.results[i].code;
        match self.relation(i) {
            Some((equation, extent, _)) => format!("{code} ({equation} {extent})"),
            None => code.clone(),
        }
    }

    /// One row per class: its first code's result, with `rare_mask` in
    /// hex, `last_exception`, `members` in words and `relations` as data.
    pub fn rows(&self) -> Vec<serde_json::Value> {
        self.classes()
            .iter()
            .map(|class| {
                let r = class[0];
                let res = &self.results[r];
                let mut row = serde_json::to_value(res).expect("a result serialises");
                let members: Vec<String> = class.iter().map(|&i| self.member(i)).collect();
                let relations: Vec<serde_json::Value> = class[1..]
                    .iter()
                    .filter_map(|&i| {
                        let (equation, _, below) = self.relation(i)?;
                        let rel = self.eq.relations[i]?;
                        Some(serde_json::json!({
                            "code": self.results[i].code,
                            "shift": rel.shift,
                            "equation": equation,
                            "for_every_n": below.is_none(),
                            "checked_below": below,
                            "reach": self.results[i].reach,
                        }))
                    })
                    .collect();
                let spellings: Vec<&String> = class
                    .iter()
                    .flat_map(|&i| &self.results[i].spellings)
                    .collect();
                row["members"] = members.into();
                row["relations"] = relations.into();
                row["spellings"] = serde_json::to_value(spellings).expect("strings");
                row["rare_mask"] = res.rare_mask.map(|m| format!("0x{m:x}")).into();
                row["last_exception"] = match res.status {
                    Status::Periodic { preperiod, .. } => preperiod.checked_sub(1).into(),
                    _ => serde_json::Value::Null,
                };
                let marks = self.marks.get(&res.code).cloned().unwrap_or_default();
                row["literature"] = marks.literature_json();
                row["checked"] = serde_json::to_value(&marks.checked).expect("a check serialises");
                row
            })
            .collect()
    }

    /// The classes as CSV, after one `#` line of provenance:
    /// representative, members, status and facts.
    pub fn csv(&self) -> String {
        let mut out = format!(
            "# {}\ncode,members,status,period,preperiod,proven_at,reach,target,max_value,rare_mask,rare_positions,last_rare_at,seconds,why,last_exception,period_notation,checksum,literature,checked,apparent\n",
            self.provenance.line()
        );
        for (row, class) in self.rows().into_iter().zip(self.classes()) {
            let f = |k: &str| match &row[k] {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            let members = row["members"]
                .as_array()
                .map(|m| {
                    m.iter()
                        .filter_map(|x| x.as_str())
                        .collect::<Vec<_>>()
                        .join("; ")
                })
                .unwrap_or_default();
            out +=
                &format!(
                "{},\"{}\",{},{},{},{},{},{},{},{},{},{},{:.3},\"{}\",{},\"{}\",{},\"{}\",\"{}\",\"{}\"\n",
                f("code"),
                members,
                f("status"),
                f("period"),
                f("preperiod"),
                f("proven_at"),
                f("reach"),
                f("target"),
                f("max_value"),
                f("rare_mask"),
                f("rare_positions"),
                f("last_rare_at"),
                row["seconds"].as_f64().unwrap_or(0.0),
                f("why"),
                f("last_exception"),
                f("period_notation"),
                f("checksum"),
                row["literature"]["text"].as_str().unwrap_or("").replace('"', "'"),
                self.marks
                    .get(&f("code"))
                    .and_then(|m| m.checked.as_ref())
                    .map_or(String::new(), CheckRow::cell),
                self.results[class[0]].apparent().unwrap_or_default(),
            );
        }
        out
    }

    /// The classes as JSON lines, after a first line
    /// `{"census": {provenance}}`.
    pub fn json_lines(&self) -> String {
        let head = serde_json::json!({ "census": self.provenance });
        format!("{head}\n{}", self.rows_json_lines())
    }

    /// The class rows alone, one JSON object a line.
    pub fn rows_json_lines(&self) -> String {
        self.rows().iter().map(|r| format!("{r}\n")).collect()
    }

    /// The classes as a Markdown table, then each class' members with how
    /// they relate to it, its period's notation, checksum and rare
    /// positions.
    pub fn markdown(&self) -> String {
        let mut out = String::from(
            "| code | codes | status | period | preperiod | last exception | proven at | reach | max | rare mask | rare | last rare | checksum | literature | checked |\n\
             | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | --- | --- |\n",
        );
        let mut details = String::new();
        for class in self.classes() {
            let r = &self.results[class[0]];
            let [status, period, pre, last, at] = status_cells(r);
            let marks = self.marks.get(&r.code).cloned().unwrap_or_default();
            out += &format!(
                "| `{}` | {} | {status} | {period} | {pre} | {last} | {at} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.code,
                class.len(),
                r.reach,
                r.max_value,
                hex_mask(r.rare_mask),
                r.rare_positions.map_or(String::new(), |x| x.to_string()),
                r.last_rare_at.map_or(String::new(), |x| x.to_string()),
                r.checksum.as_deref().unwrap_or(""),
                marks.literature_cell(),
                marks.checked.as_ref().map_or(String::new(), CheckRow::cell),
            );
            details += &format!("\n### `{}`\n\n", r.code);
            if !marks.literature.is_empty() {
                details += &format!("- literature: {}\n", literature::cell(&marks.literature));
            }
            if let Some(c) = &marks.checked {
                details += &format!(
                    "- certificate: certificates/{}.cert.json, checked {}\n",
                    r.code,
                    c.cell()
                );
            }
            let others: Vec<String> = class[1..].iter().map(|&i| self.member(i)).collect();
            details += &format!(
                "- same game as: {}\n",
                if others.is_empty() {
                    "none".into()
                } else {
                    others.join(", ")
                }
            );
            if let Some(n) = &r.period_notation {
                details += &format!("- nim-sequence: {n}\n");
            }
            if let Some(sum) = &r.checksum {
                details += &format!("- checksum of G(0..{}): {sum}\n", r.reach);
            }
            if let (Some(c), Some(list)) = (&r.rare_class, &r.rare_list) {
                let shown: Vec<String> = list
                    .iter()
                    .rev()
                    .take(5)
                    .rev()
                    .map(|(n, g)| format!("G({n})={g}"))
                    .collect();
                details += &format!(
                    "- rare ({}): {} position(s), the last {}\n",
                    c.rule,
                    list.len(),
                    shown.join(", ")
                );
            }
        }
        out + "\n## Classes\n" + &details
    }

    /// The classes of more than one code, each member with its composed
    /// shift and how far the agreement was checked (against where its
    /// class reached), the links that found them, then the near misses.
    pub fn equivalences_markdown(&self) -> String {
        let mut out = format!(
            "# Equivalences\n\n{}\n\nCodes whose sequences agree, exactly or shifted: G_code(n) = G_first(n+k) against the class' first code, the shift composed along the links below and then checked directly.\n\n{HOW_CLASSES_ARISE}\n## Classes\n\n",
            self.provenance.line()
        );
        let mut classes = String::new();
        for class in self.classes().iter().filter(|c| c.len() > 1) {
            let r = &self.results[class[0]];
            classes += &format!(
                "- `{}` ({}, reach {}):\n",
                r.code,
                status_cells(r)[0],
                r.reach
            );
            for &i in &class[1..] {
                let Some((equation, extent, below)) = self.relation(i) else {
                    continue;
                };
                let mine = self.results[i].reach;
                let short = if below.is_some() && mine < r.reach {
                    format!(" (computed to {mine}; the class reached {})", r.reach)
                } else {
                    String::new()
                };
                classes += &format!("  - `{equation}` {extent}{short}\n");
            }
        }
        out += &or_none(classes);
        out += "\n## Links\n\nThe pairs compared when the classes were formed (shift 0 or 1).\n\n";
        let mut links = String::new();
        for l in &self.eq.links {
            let (a, b) = (&self.results[l.a].code, &self.results[l.b].code);
            let what = shifted_equation(a, b, l.shift);
            let how = match (l.outcome, l.by_take_all(a, b)) {
                (Outcome::EqualForever { checked_to }, _) => {
                    format!("for every n: both proven periodic, checked up to {checked_to}")
                }
                (Outcome::EqualTo { .. }, Some(j)) => {
                    format!("for every n: they differ only in taking all of a heap of at most {j}")
                }
                (Outcome::EqualTo { to }, None) => format!("agree to {to} (not proven beyond)"),
                (Outcome::Differ { .. }, _) => unreachable!("links agree"),
            };
            links += &format!("- `{what}`: {how}\n");
        }
        out += &or_none(links);
        out += &format!(
            "\n## Near misses\n\nPairs that agree on the first {SIGNATURE} values and then differ.\n\n"
        );
        let mut near = String::new();
        for l in &self.eq.near_misses {
            if let Outcome::Differ { at, a: x, b: y } = l.outcome {
                let (a, b) = (&self.results[l.a].code, &self.results[l.b].code);
                let rhs = if l.shift == 0 {
                    format!("G_{b}({at}) = {y}")
                } else {
                    format!("G_{b}({}) = {y}", at as i64 + l.shift)
                };
                near += &format!("- `{a}` and `{b}` (shift {}): first differ at n = {at}: G_{a}({at}) = {x}, {rhs}\n", l.shift);
            }
        }
        out + &or_none(near)
    }

    /// What the census found, in a few lines.
    pub fn summary(&self) -> String {
        let classes = self.classes();
        let reps: Vec<&CodeResult> = classes.iter().map(|c| &self.results[c[0]]).collect();
        let periodic: Vec<&&CodeResult> = reps
            .iter()
            .filter(|r| matches!(r.status, Status::Periodic { .. }))
            .collect();
        let open = reps.iter().filter(|r| r.status == Status::Open).count();
        let stopped = reps.len() - periodic.len() - open;
        let longest = |key: fn(&Status) -> u64| {
            periodic
                .iter()
                .max_by_key(|r| key(&r.status))
                .map(|r| (r.code.clone(), key(&r.status)))
        };
        let period = longest(|s| match s {
            Status::Periodic { period, .. } => *period,
            _ => 0,
        });
        let preperiod = longest(|s| match s {
            Status::Periodic { preperiod, .. } => *preperiod,
            _ => 0,
        });
        let mut out = format!(
            "{} codes, {} games, {} classes: {} proven periodic, {} open, {} stopped\n",
            self.results
                .iter()
                .map(|r| r.spellings.len())
                .sum::<usize>(),
            self.results.len(),
            reps.len(),
            periodic.len(),
            open,
            stopped
        );
        if let Some((code, p)) = period {
            out += &format!("longest period: {p} ({code})\n");
        }
        if let Some((code, p)) = preperiod {
            out += &format!("longest preperiod: {p} ({code})\n");
        }
        let reach: Vec<u64> = reps
            .iter()
            .filter(|r| r.status == Status::Open)
            .map(|r| r.reach)
            .collect();
        if let (Some(lo), Some(hi)) = (reach.iter().min(), reach.iter().max()) {
            out += &format!("open codes reach {lo} to {hi} values\n");
        }
        let arithmetic: Vec<&str> = reps
            .iter()
            .filter(|r| r.arithmetic_period.is_some())
            .map(|r| r.code.as_str())
            .collect();
        if !arithmetic.is_empty() {
            let more = arithmetic.len().saturating_sub(10);
            out += &format!(
                "apparent arithmetic period (not proven): {} classes ({}{})\n",
                arithmetic.len(),
                arithmetic[..arithmetic.len() - more].join(", "),
                if more > 0 {
                    format!(", and {more} more")
                } else {
                    String::new()
                }
            );
        }
        out + &self.marks_summary(&reps)
    }

    /// The literature's and the certificates' lines of the summary: how
    /// many classes each label has (naming the new and the disagreeing
    /// ones), and how the certificates were checked.
    fn marks_summary(&self, reps: &[&CodeResult]) -> String {
        let mut out = String::new();
        let marks: Vec<(&str, &Marks)> = reps
            .iter()
            .filter_map(|r| Some((r.code.as_str(), self.marks.get(&r.code)?)))
            .collect();
        // By label: the classes and the sources their standing is against.
        let mut by: BTreeMap<&str, (Vec<&str>, Vec<&str>)> = BTreeMap::new();
        for (code, m) in &marks {
            if !m.literature.is_empty() {
                let head = literature::headline(&m.literature);
                let (codes, sources) = by.entry(head.label()).or_default();
                codes.push(code);
                if let Some(src) = head.source().map(|s| s.short.as_str()) {
                    if !sources.contains(&src) {
                        sources.push(src);
                    }
                }
            }
        }
        if !by.is_empty() {
            // A new result or a disagreement names its codes and the
            // sources it is new against or disagrees with.
            let parts: Vec<String> = by
                .iter()
                .map(|(label, (codes, sources))| match *label {
                    "new" => format!(
                        "{} new against {} ({})",
                        codes.len(),
                        sources.join(", "),
                        codes.join(", ")
                    ),
                    "disagrees" => format!(
                        "{} disagrees with {} ({})",
                        codes.len(),
                        sources.join(", "),
                        codes.join(", ")
                    ),
                    _ => format!("{} {label}", codes.len()),
                })
                .collect();
            out += &format!("literature: {}\n", parts.join(", "));
        }
        let checks: Vec<&CheckRow> = marks
            .iter()
            .filter_map(|(_, m)| m.checked.as_ref())
            .collect();
        if !checks.is_empty() {
            let count = |f: &dyn Fn(&CheckRow) -> bool| checks.iter().filter(|c| f(c)).count();
            let failed: Vec<&str> = checks
                .iter()
                .filter(|c| !c.ok)
                .map(|c| c.code.as_str())
                .collect();
            out += &format!(
                "certificates: {} checked independently, {} by the engine only, {} failed{}\n",
                count(&|c| c.ok && c.method == "independent"),
                count(&|c| c.ok && c.method != "independent"),
                failed.len(),
                if failed.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", failed.join(", "))
                }
            );
        }
        out
    }
}
