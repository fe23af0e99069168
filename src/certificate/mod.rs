//! Certificates: a proven period written down so that anyone can check it
//! without trusting the engine that found it.
//!
//! A certificate (`CODE.cert.json`) states the claim (the code, its period
//! p, preperiod s, the t of the bound and N, the last heap the proof rests
//! on), the SHA-256 of G(0..=N), and what made it. The theorem
//! (docs/periodicity.md, after Guy and Smith): if G(n + p) = G(n) for every
//! s ≤ n ≤ N − p, and N + 1 ≥ p + max(s, A, s₁ + L, 2·s₁ + p + T − 1)
//! (A = 1 + the largest take-all i, L the largest leave-one i, T = t the
//! largest split i, s₁ = max(s, 1); absent moves drop their term), then
//! G(n + p) = G(n) for every n ≥ s. So the proof needs exactly the values
//! G(0), …, G(N) for the least such N, and no others; [`Certificate::make`]
//! takes N from the project's [`Bound`], [`Certificate::plan`] derives it
//! again in the independent checker ([`naive::Moves::last_heap`]) and
//! refuses a claim where the two differ.
//!
//! [`Plan::check`] recomputes G(0..=N) with [`naive`], which shares no code
//! with the engines, and checks the hash, the period over the whole
//! stretch, that s is least and that p is least. docs/certificates.md
//! describes the format and `scripts/check-certificate.py` checks the same
//! things in Python.

pub mod naive;

use std::time::Instant;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::code::Code;
use crate::period::{Bound, Period};
use crate::seq::SeqRef;

/// Where a census keeps its certificates (one `CODE.cert.json` a periodic
/// class), inside its directory.
pub const CENSUS_DIR: &str = "certificates";
/// The census' record of how each certificate was checked, inside
/// [`CENSUS_DIR`], one [`CheckRow`] a line.
pub const CHECKS: &str = "checks.jsonl";

/// How the certificate of one periodic class of a census was checked:
/// `method` is `independent` (recomputed by the naive checker up to `n`)
/// or `engine-only` (the check's cost was beyond the budget, or it was
/// not asked for; `reason` says which).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckRow {
    pub code: String,
    pub n: Option<u64>,
    pub method: String,
    pub seconds: f64,
    pub ok: bool,
    pub reason: Option<String>,
}

impl CheckRow {
    /// The census tables' cell: `independent to N`, `engine only (N)` or
    /// `FAILED: why`.
    pub fn cell(&self) -> String {
        let n = self.n.map_or(String::from("?"), |n| n.to_string());
        match (self.ok, self.method.as_str()) {
            (true, "independent") => format!("independent to {n}"),
            (true, _) => format!("engine only (N = {n})"),
            (false, _) => format!(
                "FAILED: {}",
                self.reason.as_deref().unwrap_or("no reason recorded")
            ),
        }
    }
}

/// The check rows a census directory holds (none when it has no
/// `certificates/checks.jsonl`).
pub fn read_checks(dir: &std::path::Path) -> Result<Vec<CheckRow>, Unreadable> {
    let path = dir.join(CENSUS_DIR).join(CHECKS);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Unreadable::Json(format!("{}: {e}", path.display()))),
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| Unreadable::Json(format!("{} line {}: {e}", path.display(), i + 1)))
        })
        .collect()
}

/// The `format` of a certificate file.
pub const FORMAT: &str = "octal-certificate";
/// The certificate format version this octal writes and reads.
pub const VERSION: u32 = 1;

/// Split pairs a second the independent checker marks, for its estimate:
/// below the one measurement, so that a shared machine is allowed for
/// (docs/certificates.md, "Cost and budget").
pub const PAIRS_PER_SECOND: f64 = 1.0e9;
/// Heaps a second besides the pairs (the mex, clearing the marks).
pub const HEAPS_PER_SECOND: f64 = 2.0e6;
/// The most values a check holds in memory (4 bytes each: 1 GiB).
pub const MAX_VALUES: u64 = 1 << 28;
/// Seconds a check may be estimated to take unless told otherwise.
pub const DEFAULT_BUDGET_SECONDS: f64 = 600.0;

/// A certificate of a proven period, as written to `CODE.cert.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Certificate {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    pub claim: Claim,
    pub values: Values,
    pub made_by: MadeBy,
}

/// What is claimed: G(n + p) = G(n) for every n ≥ `preperiod`, with `period`
/// and `preperiod` least, proven by G(0..=n).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The code as given (`.137`).
    pub code: String,
    /// Its canonical spelling (`0.137`).
    pub canonical: String,
    /// p.
    pub period: u64,
    /// s, the first heap of the periodic part (the last irregular heap is
    /// s − 1).
    pub preperiod: u64,
    /// t of the bound: the largest number of tokens a split removes
    /// (0 for a `4.` code without other splits); `null` without splits.
    pub t: Option<u64>,
    /// N: the last heap the proof needs; the values are G(0..=N).
    pub n: u64,
}

/// The values the proof rests on, G(0..=N), as a digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Values {
    /// SHA-256 of G(0), …, G(N) as little-endian unsigned integers of
    /// `width` bytes, in lower-case hex.
    pub sha256: String,
    /// 2 (u16), or 4 (u32) when some value exceeds 65535.
    pub width: u8,
}

/// What made the certificate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MadeBy {
    /// The octal version.
    pub octal: String,
    /// The git commit it was built from.
    pub commit: String,
    /// The engine that computed the values (`sparse`, `reference`).
    pub engine: String,
    /// The instruction set its kernels ran on.
    pub isa: String,
    /// When, in UTC: `2026-11-28T10:20:00Z`.
    pub date: String,
}

/// Why a certificate cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MakeError {
    #[error("{0}: no proof of periodicity is known for this kind of game, so no certificate")]
    NoBound(String),
    #[error("{code}: the proof of period {p} (preperiod {s}) needs G(0..={last}), and only {held} values are held")]
    TooFew {
        code: String,
        p: u64,
        s: u64,
        last: u64,
        held: u64,
    },
    #[error("{0}")]
    NoProof(String),
}

/// Why a file is not a certificate this octal can check (exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unreadable {
    #[error("bad JSON: {0}")]
    Json(String),
    #[error("unknown format {0:?}: not an octal certificate")]
    Format(String),
    #[error("unknown version {0}: this octal reads certificate version {VERSION}")]
    Version(u64),
    #[error("not a certificate: {0}")]
    Fields(String),
}

/// Why a certificate is wrong (exit 1): each a one-line reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Wrong {
    #[error("claim inconsistent: {0}")]
    Claim(String),
    #[error("value width mismatch: G(0..={n}) needs {found}-byte values, the certificate says {claimed}")]
    Width { n: u64, found: u8, claimed: u8 },
    #[error(
        "hash mismatch: G(0..={n}) recomputed has SHA-256 {found}, the certificate says {claimed}"
    )]
    Hash {
        n: u64,
        found: String,
        claimed: String,
    },
    #[error("period fails: G({n}) = {a} but G({}) = {b} (p = {p})", n + p)]
    NotPeriodic { n: u64, p: u64, a: u32, b: u32 },
    #[error("i not least: G({n}) = G({}) = {a}, so the period holds from {n} on, before the claimed preperiod {s}", n + p)]
    PreperiodNotLeast { n: u64, p: u64, a: u32, s: u64 },
    #[error("p not least: {d} divides {p} and is a period from {s} on over G(0..={n})")]
    PeriodNotLeast { d: u64, p: u64, s: u64, n: u64 },
}

/// A check whose estimated cost is beyond the budget (exit 2).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code}: checking G(0..={n}) takes about {} ({pairs:.2e} pair operations), beyond the budget of {}; --max-minutes raises it", human_seconds(*.seconds), human_seconds(*.budget))]
pub struct TooCostly {
    pub code: String,
    pub n: u64,
    pub pairs: f64,
    pub seconds: f64,
    pub budget: f64,
}

/// Seconds in words: `0.2 s`, `3.1 min`, `2.5 h`, `3.2 days`.
pub fn human_seconds(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.1} s")
    } else if s < 7200.0 {
        format!("{:.1} min", s / 60.0)
    } else if s < 172_800.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{:.1} days", s / 86_400.0)
    }
}

/// SHA-256 of `values` as little-endian integers of `width` bytes (2 or 4).
pub fn sha256_of(values: impl Iterator<Item = u32>, width: u8) -> String {
    let mut h = Sha256::new();
    let mut buf = Vec::with_capacity(1 << 16);
    for v in values {
        if width == 2 {
            buf.extend_from_slice(&(v as u16).to_le_bytes());
        } else {
            buf.extend_from_slice(&v.to_le_bytes());
        }
        if buf.len() >= 1 << 16 {
            h.update(&buf);
            buf.clear();
        }
    }
    h.update(&buf);
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The width that holds every value: 2, or 4 when one exceeds 65535.
pub fn width_of(values: impl Iterator<Item = u32>) -> u8 {
    if values.max().unwrap_or(0) > u16::MAX as u32 {
        4
    } else {
        2
    }
}

impl Certificate {
    /// The certificate of `period` for `code` (as the user spelled it,
    /// `given`), from values `g` that hold at least G(0..=N): N comes from
    /// the project's [`Bound`], and the period is checked on the values
    /// ([`Period::check_proof`]) before anything is written.
    pub fn make(
        given: &str,
        code: &Code,
        period: &Period,
        g: SeqRef<'_>,
        engine: &str,
    ) -> Result<Certificate, MakeError> {
        let (p, s) = (period.period, period.preperiod);
        let bound = Bound::of(code).ok_or_else(|| MakeError::NoBound(code.to_string()))?;
        let need = bound.needed(p, s);
        let held = g.len() as u64;
        if held < need || need == 0 {
            return Err(MakeError::TooFew {
                code: code.to_string(),
                p,
                s,
                last: need.saturating_sub(1),
                held,
            });
        }
        let proof = Period {
            bound: Some(need),
            proven_at: need,
            ..*period
        };
        proof
            .check_proof(code, held, |n| g.get(n as usize))
            .map_err(|e| MakeError::NoProof(format!("{code}: {e}")))?;
        let last = need - 1;
        let all = || (0..need as usize).map(|n| g.get(n));
        let width = width_of(all());
        Ok(Certificate {
            format: FORMAT.into(),
            version: VERSION,
            claim: Claim {
                code: given.to_string(),
                canonical: code.to_string(),
                period: p,
                preperiod: s,
                t: code.rules().take_split.iter().max().map(|&t| t as u64),
                n: last,
            },
            values: Values {
                sha256: sha256_of(all(), width),
                width,
            },
            made_by: MadeBy {
                octal: crate::about::VERSION.into(),
                commit: crate::about::COMMIT.into(),
                engine: engine.into(),
                isa: octal_kernels::isa::current().name().into(),
                date: crate::about::utc_now(),
            },
        })
    }

    /// The certificate as the pretty JSON of a `.cert.json` file.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a certificate serialises") + "\n"
    }

    /// Reads a certificate: JSON of [`FORMAT`] and [`VERSION`] with every
    /// field.
    pub fn read(bytes: &[u8]) -> Result<Certificate, Unreadable> {
        let v: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| Unreadable::Json(e.to_string()))?;
        let format = v.get("format").and_then(|f| f.as_str());
        if format != Some(FORMAT) {
            return Err(Unreadable::Format(
                format.map_or_else(|| "none".to_string(), str::to_string),
            ));
        }
        match v.get("version").and_then(|f| f.as_u64()) {
            Some(n) if n == VERSION as u64 => {}
            Some(n) => return Err(Unreadable::Version(n)),
            None => return Err(Unreadable::Fields("no version number".into())),
        }
        serde_json::from_value(v).map_err(|e| Unreadable::Fields(e.to_string()))
    }

    /// Checks the claim against itself with the independent checker's own
    /// reading of the code and its own bound, and says what checking the
    /// values will cost.
    pub fn plan(&self) -> Result<Plan, Wrong> {
        let c = &self.claim;
        let moves = naive::parse(&c.code).map_err(|e| Wrong::Claim(e.to_string()))?;
        if moves.canonical() != c.canonical {
            return Err(Wrong::Claim(format!(
                "code {} is {} canonically, the claim says {}",
                c.code,
                moves.canonical(),
                c.canonical
            )));
        }
        if c.period == 0 {
            return Err(Wrong::Claim("period 0".into()));
        }
        if moves.t() != c.t {
            let show = |t: Option<u64>| t.map_or("none".to_string(), |t| t.to_string());
            return Err(Wrong::Claim(format!(
                "t = {}, but the largest split of {} removes {}",
                show(c.t),
                c.code,
                show(moves.t())
            )));
        }
        let last = moves.last_heap(c.period, c.preperiod).ok_or_else(|| {
            Wrong::Claim(format!(
                "the bound of p = {}, i = {} overflows",
                c.period, c.preperiod
            ))
        })?;
        if last != c.n {
            return Err(Wrong::Claim(format!(
                "N = {}, but the bound of p = {}, i = {}, t = {} needs N = {last}",
                c.n,
                c.period,
                c.preperiod,
                c.t.map_or("none".to_string(), |t| t.to_string())
            )));
        }
        if ![2, 4].contains(&self.values.width) {
            return Err(Wrong::Claim(format!(
                "value width {}: 2 or 4 bytes",
                self.values.width
            )));
        }
        let pairs = moves.pair_operations(last);
        let seconds = pairs as f64 / PAIRS_PER_SECOND + (last as f64 + 1.0) / HEAPS_PER_SECOND;
        Ok(Plan {
            moves,
            last,
            pairs,
            seconds,
        })
    }
}

/// A certificate's check, before it runs: its cost.
#[derive(Debug, Clone)]
pub struct Plan {
    moves: naive::Moves,
    /// N.
    pub last: u64,
    /// Pair operations of the recomputation.
    pub pairs: u128,
    /// Estimated seconds ([`PAIRS_PER_SECOND`], [`HEAPS_PER_SECOND`]).
    pub seconds: f64,
}

/// A certificate that passed its check.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub seconds: f64,
}

impl Plan {
    /// The cost in one line: N, pair operations and the estimate.
    pub fn cost_line(&self, code: &str) -> String {
        format!(
            "{code}: N = {}, {} pair operations, about {}",
            self.last,
            self.pairs,
            human_seconds(self.seconds)
        )
    }

    /// Refuses a check estimated beyond `budget` seconds, or holding more
    /// than [`MAX_VALUES`] values.
    pub fn within(&self, code: &str, budget: f64) -> Result<(), TooCostly> {
        if self.seconds > budget || self.last >= MAX_VALUES {
            return Err(TooCostly {
                code: code.to_string(),
                n: self.last,
                pairs: self.pairs as f64,
                seconds: self.seconds,
                budget,
            });
        }
        Ok(())
    }

    /// Recomputes G(0..=N) independently ([`naive::values`]) and checks
    /// the hash, G(n + p) = G(n) for s ≤ n ≤ N − p, that s is least
    /// (G(s − 1) ≠ G(s − 1 + p)) and that no proper divisor of p is a
    /// period from s on over the same values.
    pub fn check(
        &self,
        cert: &Certificate,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Checked, Wrong> {
        let start = Instant::now();
        let c = &cert.claim;
        let (p, s, last) = (c.period, c.preperiod, self.last);
        let g = naive::values(&self.moves, last as usize, progress);
        let width = width_of(g.iter().copied());
        if width != cert.values.width {
            return Err(Wrong::Width {
                n: last,
                found: width,
                claimed: cert.values.width,
            });
        }
        let found = sha256_of(g.iter().copied(), width);
        if found != cert.values.sha256 {
            return Err(Wrong::Hash {
                n: last,
                found,
                claimed: cert.values.sha256.clone(),
            });
        }
        let at = |n: u64| g[n as usize];
        if let Some(n) = (s..(last + 1).saturating_sub(p)).find(|&n| at(n + p) != at(n)) {
            return Err(Wrong::NotPeriodic {
                n,
                p,
                a: at(n),
                b: at(n + p),
            });
        }
        if s > 0 && at(s - 1) == at(s - 1 + p) {
            return Err(Wrong::PreperiodNotLeast {
                n: s - 1,
                p,
                a: at(s - 1),
                s,
            });
        }
        for d in (1..p).filter(|d| p % d == 0) {
            if (s..last + 1 - d).all(|n| at(n + d) == at(n)) {
                return Err(Wrong::PeriodNotLeast { d, p, s, n: last });
            }
        }
        Ok(Checked {
            seconds: start.elapsed().as_secs_f64(),
        })
    }
}
