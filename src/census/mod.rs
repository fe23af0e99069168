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

use crate::code::Code;
use crate::compare::{Comparison, Outcome, Side};
use crate::engine::RareClass;
use crate::period::Period;

mod table;
pub use table::{Marks, Provenance, Table};

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
