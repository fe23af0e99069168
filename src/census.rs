//! The census: every octal code of up to a few digits, each game computed
//! once, classified (periodic with its proof, open with its reach, or
//! stopped by a cap) and grouped with the codes whose sequences agree with
//! it, exactly or shifted by one heap. The field's status tables are kept
//! by hand and contain mistakes their readers found; this rebuilds them
//! from nothing, with a proof for every periodic entry.
//!
//! This module holds what needs no store or thread: which codes a census
//! runs ([`codes`]), how their sequences are found equal ([`equivalences`])
//! and the tables ([`Table`]). `octal census` runs the codes as a family.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::certificate::CheckRow;
use crate::code::Code;
use crate::compare::{Comparison, Outcome, Side};
use crate::engine::RareClass;
use crate::literature::{self, Standing};
use crate::period::Period;

/// One game of a census and every spelling of it that the census covers
/// (trailing zeros name the same game: `0.60` is `0.6`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub code: Code,
    pub spellings: Vec<String>,
}

/// Why a census cannot be made as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CensusError {
    #[error("--digits {0}: give 1 to 4 (8^4 = 4,096 codes a prefix)")]
    Digits(usize),
    #[error("--prefix {0}: give digits before the point, 0 and/or 4 (e.g. 0,4)")]
    Prefix(String),
}

/// Parses `--prefix`: `0`, `4` or `0,4`.
pub fn parse_prefixes(s: &str) -> Result<Vec<u8>, CensusError> {
    let mut out = Vec::new();
    for p in s.split(',').map(str::trim) {
        match p {
            "0" | "4" => out.push(p.as_bytes()[0] - b'0'),
            _ => return Err(CensusError::Prefix(s.to_string())),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Every code `P.d1…dk` for each prefix P and 1 ≤ k ≤ `digits`, each game
/// once, in the order of its shortest spelling.
pub fn codes(digits: usize, prefixes: &[u8]) -> Result<Vec<Entry>, CensusError> {
    if !(1..=4).contains(&digits) {
        return Err(CensusError::Digits(digits));
    }
    let mut by_game: BTreeMap<String, usize> = BTreeMap::new();
    let mut entries: Vec<Entry> = Vec::new();
    for &p in prefixes {
        for k in 1..=digits {
            for i in 0..8usize.pow(k as u32) {
                let ds: String = (0..k)
                    .rev()
                    .map(|j| char::from(b'0' + ((i >> (3 * j)) & 7) as u8))
                    .collect();
                let spelling = format!("{p}.{ds}");
                let code: Code = spelling.parse().expect("octal digits parse");
                let key = code.to_string();
                match by_game.get(&key) {
                    Some(&e) => entries[e].spellings.push(spelling),
                    None => {
                        by_game.insert(key, entries.len());
                        entries.push(Entry {
                            code,
                            spellings: vec![spelling],
                        });
                    }
                }
            }
        }
    }
    Ok(entries)
}

/// How one code of a census ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Status {
    /// Proven periodic.
    Periodic {
        period: u64,
        preperiod: u64,
        proven_at: u64,
    },
    /// Computed to its target without a proof.
    Open,
    /// Stopped before its target: by the time cap or the memory cap.
    Stopped { why: String },
}

/// What a census keeps of one code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodeResult {
    pub code: String,
    pub spellings: Vec<String>,
    #[serde(flatten)]
    pub status: Status,
    /// Values computed: G(0) … G(reach − 1).
    pub reach: u64,
    /// The target it was run to.
    pub target: u64,
    pub max_value: u32,
    /// A number in results; the tables' rows write it in hex (`0x1ee`),
    /// and both read back.
    #[serde(deserialize_with = "hex_or_number", default)]
    pub rare_mask: Option<u32>,
    pub rare_positions: Option<u64>,
    pub last_rare_at: Option<u64>,
    /// Which positions are rare (see [`RareClass`]); null without sparse
    /// space or when the code was stopped.
    #[serde(default)]
    pub rare_class: Option<RareClass>,
    /// The rare positions n ≥ 1 below the reach with their values,
    /// `[[n, G(n)], …]`, as a run's summary gives them (at most
    /// [`crate::run::RARE_LIST_MAX`]).
    #[serde(default)]
    pub rare_list: Option<Vec<(u64, u32)>>,
    /// Whether `rare_list` holds them all.
    #[serde(default)]
    pub rare_list_complete: Option<bool>,
    /// The values' checksum (FNV-1a-64, as `octal run` gives it) of
    /// G(0) … G(reach − 1).
    #[serde(default)]
    pub checksum: Option<String>,
    /// The nim-sequence notation of a proven period (up to the end of its
    /// first period, when short: see [`crate::period::notation`]).
    #[serde(default)]
    pub period_notation: Option<String>,
    /// G(2^j) for every 2^j below the reach.
    pub at_powers_of_two: Vec<u32>,
    pub seconds: f64,
}

/// A mask as a number (`494`) or in hex (`"0x1ee"`), or null.
fn hex_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Mask {
        Number(u32),
        Text(String),
    }
    match Option::<Mask>::deserialize(d)? {
        None => Ok(None),
        Some(Mask::Number(n)) => Ok(Some(n)),
        Some(Mask::Text(t)) => u32::from_str_radix(t.trim_start_matches("0x"), 16)
            .map(Some)
            .map_err(|_| serde::de::Error::custom(format!("not a mask: {t:?}"))),
    }
}

impl CodeResult {
    /// The proven period, for [`Side`]s.
    pub fn period(&self) -> Option<Period> {
        match self.status {
            Status::Periodic {
                period,
                preperiod,
                proven_at,
            } => Some(Period {
                period,
                preperiod,
                proven_at,
                bound: None,
            }),
            _ => None,
        }
    }
}

/// What a census keeps of one code in `results/CODE.json`: its result,
/// the facts of the values it was made from (the store's code, how many
/// values, their checksum), and a checksum of both, so that a re-run can
/// tell a result it may use from a damaged one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    pub format: String,
    pub version: u32,
    pub result: CodeResult,
    pub values: ValuesFacts,
    /// FNV of the JSON of the fields above.
    pub fnv: String,
}

/// The values a result was made from: G(0) … G(count − 1) of `code`,
/// whose value checksum is `checksum`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValuesFacts {
    pub code: String,
    pub count: u64,
    pub checksum: String,
}

/// Why a kept result cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeptError {
    #[error("not a census result ({0})")]
    Parse(String),
    #[error("written by another version of octal ({0})")]
    Version(String),
    #[error("its checksum does not match its contents")]
    Checksum,
    #[error("it holds the result of {found}, not {wanted}")]
    WrongCode { found: String, wanted: String },
}

const KEPT_FORMAT: &str = "octal-census-result";
/// 3: results carry the rare positions, the values' checksum and the
/// period notation (a result of version 2 is made again from its store).
const KEPT_VERSION: u32 = 3;

impl Kept {
    pub fn new(result: CodeResult, values: ValuesFacts) -> Kept {
        let mut kept = Kept {
            format: KEPT_FORMAT.into(),
            version: KEPT_VERSION,
            result,
            values,
            fnv: String::new(),
        };
        kept.fnv = kept.digest();
        kept
    }

    fn digest(&self) -> String {
        crate::stats::Checksum::of_json(&(&self.format, self.version, &self.result, &self.values))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a result serialises") + "\n"
    }

    /// Reads a kept result of `code`, checking its format and checksum.
    pub fn parse(bytes: &[u8], code: &str) -> Result<Kept, KeptError> {
        let kept: Kept = match serde_json::from_slice(bytes) {
            Ok(k) => k,
            Err(e) => {
                // A result written before results carried checksums.
                if serde_json::from_slice::<CodeResult>(bytes).is_ok() {
                    return Err(KeptError::Version("no checksum".into()));
                }
                return Err(KeptError::Parse(e.to_string()));
            }
        };
        if kept.format != KEPT_FORMAT || kept.version != KEPT_VERSION {
            return Err(KeptError::Version(format!(
                "format {:?} version {}",
                kept.format, kept.version
            )));
        }
        if kept.digest() != kept.fnv {
            return Err(KeptError::Checksum);
        }
        for found in [&kept.result.code, &kept.values.code] {
            if found != code {
                return Err(KeptError::WrongCode {
                    found: found.clone(),
                    wanted: code.into(),
                });
            }
        }
        Ok(kept)
    }
}

/// Values compared before two sequences are compared in full: codes that
/// agree on fewer are taken to differ without a closer look.
pub const SIGNATURE: usize = 32;

/// Two codes found related: G_a(n) = G_b(n + shift) for every n compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    pub a: usize,
    pub b: usize,
    pub shift: i64,
    /// [`Outcome::EqualForever`] (proven) or [`Outcome::EqualTo`] (agree
    /// as far as both are known); for a near miss, [`Outcome::Differ`].
    #[serde(skip)]
    pub outcome: Outcome,
}

/// The classes of codes whose sequences agree, exactly or shifted by one,
/// and the near misses: pairs that agree on the first [`SIGNATURE`] values
/// and then differ (where they first do).
#[derive(Debug, Clone, Default)]
pub struct Equivalences {
    /// For each code, its class (the index of the class's first code).
    pub class_of: Vec<usize>,
    pub links: Vec<Link>,
    pub near_misses: Vec<Link>,
    /// For each code, how its sequence is its class' first code's (None
    /// for that code itself).
    pub relations: Vec<Option<Relation>>,
}

/// How a code's sequence is its class' first code's: G_code(n) =
/// G_first(n + shift) for every n ≥ max(0, −shift) that `outcome` covers.
/// The shift is composed along the links that joined them (each 0 or 1,
/// in either direction), then the two sequences are compared directly at
/// that shift, so `outcome` is what was checked, not what a chain implies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relation {
    pub shift: i64,
    pub outcome: Outcome,
}

/// `G_a(n) = G_b(n+k)` for G_a(n) = G_b(n + shift), written with the
/// shift on the side that makes it non-negative (`G_b(n) = G_a(n+k)`
/// for a negative one), as a census row and `octal compare` state it.
pub fn shifted_equation(a: &str, b: &str, shift: i64) -> String {
    match shift {
        0 => format!("G_{a}(n) = G_{b}(n)"),
        k if k > 0 => format!("G_{a}(n) = G_{b}(n+{k})"),
        k => format!("G_{b}(n) = G_{a}(n+{})", k.unsigned_abs()),
    }
}

/// The shift of every code against its class' first code, composed along
/// `links`: G_i(n) = G_first(n + shift[i]).
fn composed_shifts(class_of: &[usize], links: &[Link]) -> Vec<Option<i64>> {
    let mut shift: Vec<Option<i64>> = (0..class_of.len())
        .map(|i| (class_of[i] == i).then_some(0))
        .collect();
    // A link joins two codes of one class: G_a(n) = G_b(n + s). Passes
    // until nothing changes (a class is a tree of links, so at most its
    // depth in passes).
    let mut changed = true;
    while changed {
        changed = false;
        for l in links {
            match (shift[l.a], shift[l.b]) {
                (None, Some(b)) => {
                    shift[l.a] = Some(b + l.shift);
                    changed = true;
                }
                (Some(a), None) => {
                    shift[l.b] = Some(a - l.shift);
                    changed = true;
                }
                _ => {}
            }
        }
    }
    shift
}

/// Finds which of the sequences agree: G_a(n) = G_b(n) or G_a(n) =
/// G_b(n + 1). Code i has the proven period `periods[i]`, if any, and
/// `values(i, m)` gives at most its first `m` values (read when needed, so
/// that a census of long sequences never holds them all); the first error
/// it returns is returned.
pub fn equivalences<E>(
    periods: &[Option<Period>],
    values: &dyn Fn(usize, usize) -> Result<Vec<u32>, E>,
) -> Result<Equivalences, E> {
    let n = periods.len();
    // The first values, read off the period past a short proof.
    let heads: Vec<Vec<u32>> = (0..n)
        .map(|i| {
            let v = values(i, SIGNATURE + 1)?;
            let side = Side {
                values: &v,
                period: periods[i],
            };
            Ok((0..=SIGNATURE as u64).map_while(|m| side.get(m)).collect())
        })
        .collect::<Result<_, E>>()?;
    let mut eq = Equivalences {
        class_of: (0..n).collect(),
        ..Default::default()
    };
    // Candidates: codes whose first values agree (shift 0), or whose values
    // from heap 1 on agree with another's from 0 (shift 1).
    let mut first: BTreeMap<&[u32], Vec<usize>> = BTreeMap::new();
    for (i, h) in heads.iter().enumerate() {
        if h.len() > SIGNATURE {
            first.entry(&h[..SIGNATURE]).or_default().push(i);
        }
    }
    let mut candidates: Vec<(usize, usize, i64)> = Vec::new();
    for group in first.values() {
        for (x, &a) in group.iter().enumerate() {
            for &b in &group[x + 1..] {
                candidates.push((a, b, 0));
            }
        }
    }
    for (a, h) in heads.iter().enumerate() {
        if h.len() > SIGNATURE {
            for &b in first.get(&h[1..=SIGNATURE]).into_iter().flatten() {
                if b != a {
                    // G_b(n) = G_a(n + 1).
                    candidates.push((b, a, 1));
                }
            }
        }
    }
    let find = |class_of: &mut Vec<usize>, mut i: usize| {
        while class_of[i] != i {
            class_of[i] = class_of[class_of[i]];
            i = class_of[i];
        }
        i
    };
    let mut cache: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
    for (a, b, shift) in candidates {
        if shift == 0 && find(&mut eq.class_of, a) == find(&mut eq.class_of, b) {
            continue;
        }
        for i in [a, b] {
            if let std::collections::btree_map::Entry::Vacant(slot) = cache.entry(i) {
                slot.insert(values(i, usize::MAX)?);
            }
        }
        let c = Comparison {
            a: Side {
                values: &cache[&a],
                period: periods[a],
            },
            b: Side {
                values: &cache[&b],
                period: periods[b],
            },
            shift,
        };
        let outcome = c.run(None);
        let link = Link {
            a,
            b,
            shift,
            outcome,
        };
        match outcome {
            Outcome::Differ { .. } => eq.near_misses.push(link),
            _ => {
                let (ra, rb) = (find(&mut eq.class_of, a), find(&mut eq.class_of, b));
                let (lo, hi) = (ra.min(rb), ra.max(rb));
                eq.class_of[hi] = lo;
                eq.links.push(link);
            }
        }
        // Keep only the sequences still to be compared in memory.
        if cache.len() > 64 {
            cache.clear();
        }
    }
    for i in 0..n {
        let r = find(&mut eq.class_of, i);
        eq.class_of[i] = r;
    }
    // Every member against its class' first code, directly, at the shift
    // the links compose to (the first code's values read once a class).
    let shifts = composed_shifts(&eq.class_of, &eq.links);
    eq.relations = vec![None; n];
    let mut members: BTreeMap<usize, Vec<(usize, i64)>> = BTreeMap::new();
    for (i, shift) in shifts.iter().enumerate() {
        if let Some(shift) = shift.filter(|_| eq.class_of[i] != i) {
            members.entry(eq.class_of[i]).or_default().push((i, shift));
        }
    }
    for (r, class) in members {
        let rv = values(r, usize::MAX)?;
        for (i, shift) in class {
            let mine = values(i, usize::MAX)?;
            let outcome = Comparison {
                a: Side {
                    values: &mine,
                    period: periods[i],
                },
                b: Side {
                    values: &rv,
                    period: periods[r],
                },
                shift,
            }
            .run(None);
            eq.relations[i] = Some(Relation { shift, outcome });
        }
    }
    Ok(eq)
}

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
fn status_cells(status: &Status) -> [String; 5] {
    match status {
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
            "open".into(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ],
        Status::Stopped { why } => [
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
        let below = match rel.outcome {
            Outcome::EqualForever { .. } => None,
            Outcome::EqualTo { to } => Some(own_n(to)),
            Outcome::Differ { at, .. } => Some(own_n(at)),
        };
        let extent = match (rel.outcome, below) {
            (Outcome::Differ { at, .. }, _) => {
                format!("for n < {} only: differ at n = {at}", own_n(at))
            }
            (_, None) => "for every n".into(),
            (_, Some(b)) => format!("for n < {b}"),
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
            "# {}\ncode,members,status,period,preperiod,proven_at,reach,target,max_value,rare_mask,rare_positions,last_rare_at,seconds,why,last_exception,period_notation,checksum,literature,checked\n",
            self.provenance.line()
        );
        for row in self.rows() {
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
                "{},\"{}\",{},{},{},{},{},{},{},{},{},{},{:.3},\"{}\",{},\"{}\",{},\"{}\",\"{}\"\n",
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
            let [status, period, pre, last, at] = status_cells(&r.status);
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
            "# Equivalences\n\n{}\n\nCodes whose sequences agree, exactly or shifted: G_code(n) = G_first(n+k) against the class' first code, the shift composed along the links below and then checked directly.\n\n## Classes\n\n",
            self.provenance.line()
        );
        let mut classes = String::new();
        for class in self.classes().iter().filter(|c| c.len() > 1) {
            let r = &self.results[class[0]];
            classes += &format!(
                "- `{}` ({}, reach {}):\n",
                r.code,
                status_cells(&r.status)[0],
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
            let how = match l.outcome {
                Outcome::EqualForever { checked_to } => {
                    format!("for every n: both proven periodic, checked up to {checked_to}")
                }
                Outcome::EqualTo { to } => format!("agree to {to} (not proven beyond)"),
                Outcome::Differ { .. } => unreachable!("links agree"),
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
        let mut by: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (code, m) in &marks {
            if !m.literature.is_empty() {
                let label = literature::headline(&m.literature).label();
                by.entry(label).or_default().push(code);
            }
        }
        if !by.is_empty() {
            let parts: Vec<String> = by
                .iter()
                .map(|(label, codes)| match *label {
                    "new" | "disagrees" => {
                        format!("{} {label} ({})", codes.len(), codes.join(", "))
                    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_listed_once_with_their_spellings() {
        let e = codes(2, &[0]).unwrap();
        // 8 one-digit and 64 two-digit spellings; those ending in 0 (other
        // than the one-digit 0.0) are shorter codes.
        assert_eq!(e.iter().map(|x| x.spellings.len()).sum::<usize>(), 72);
        assert_eq!(e.len(), 8 + 56);
        let six = e.iter().find(|x| x.code.to_string() == "0.6").unwrap();
        assert_eq!(six.spellings, ["0.6", "0.60"]);
        assert_eq!(codes(1, &[0, 4]).unwrap().len(), 16);
        assert!(codes(5, &[0]).is_err());
        assert_eq!(parse_prefixes("4,0").unwrap(), [0, 4]);
        assert!(parse_prefixes("3").is_err());
    }

    #[test]
    fn kept_results_are_checked() {
        let result = CodeResult {
            code: "0.6".into(),
            spellings: vec!["0.6".into(), "0.60".into()],
            status: Status::Open,
            reach: 4096,
            target: 4096,
            max_value: 126,
            rare_mask: None,
            rare_positions: None,
            last_rare_at: None,
            rare_class: None,
            rare_list: None,
            rare_list_complete: None,
            checksum: None,
            period_notation: None,
            at_powers_of_two: vec![0, 1],
            seconds: 0.125,
        };
        let facts = ValuesFacts {
            code: "0.6".into(),
            count: 4096,
            checksum: "7c52818c8397ef69".into(),
        };
        let kept = Kept::new(result.clone(), facts);
        let json = kept.to_json();
        assert_eq!(Kept::parse(json.as_bytes(), "0.6").unwrap(), kept);
        // A changed fact, another code, an old result, not JSON.
        let edited = json.replace("\"max_value\":126", "\"max_value\":127");
        assert_eq!(
            Kept::parse(edited.as_bytes(), "0.6"),
            Err(KeptError::Checksum)
        );
        assert!(matches!(
            Kept::parse(json.as_bytes(), "0.16"),
            Err(KeptError::WrongCode { .. })
        ));
        let old = serde_json::to_vec(&result).unwrap();
        assert!(matches!(
            Kept::parse(&old, "0.6"),
            Err(KeptError::Version(_))
        ));
        assert!(matches!(Kept::parse(b"", "0.6"), Err(KeptError::Parse(_))));
    }

    fn reference(code: &str, n: usize) -> Vec<u32> {
        crate::compute(
            &mut crate::engine::Reference::new(&code.parse().unwrap()),
            n,
        )
    }

    #[test]
    fn shifted_equal_and_nearly_equal_sequences_are_told_apart() {
        // .36 and .161 first differ at heap 519 (T. Czajka's list of solved
        // games, against Flammenkamp's table, which equates them); .07 is
        // .4 from heap 1 on (Dawson's Kayles); .6 and .61 differ only at a
        // heap of 2, where both have value 1.
        let codes = [".36", ".161", ".07", ".4", ".6", ".61", ".2"];
        let seqs: Vec<Vec<u32>> = codes.iter().map(|c| reference(c, 1500)).collect();
        let values = |i: usize, most: usize| Ok::<_, ()>(seqs[i][..most.min(1500)].to_vec());
        let eq = equivalences(&[None; 7], &values).unwrap();
        let differ = |a: usize, b: usize| {
            eq.near_misses.iter().find_map(|l| match l.outcome {
                Outcome::Differ { at, .. } if (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a) => {
                    Some(at)
                }
                _ => None,
            })
        };
        assert_eq!(differ(0, 1), Some(519));
        assert_ne!(eq.class_of[0], eq.class_of[1]);
        let shifted = eq
            .links
            .iter()
            .find(|l| (l.a, l.b) == (2, 3))
            .expect(".07 ~ .4");
        assert_eq!(shifted.shift, 1);
        assert_eq!(shifted.outcome, Outcome::EqualTo { to: 1499 });
        assert_eq!(eq.class_of[2], eq.class_of[3]);
        assert_eq!(eq.class_of[4], eq.class_of[5]);
        // Nothing else here agrees with .2.
        assert!((0..6).all(|i| eq.class_of[i] != eq.class_of[6]));
    }
}
