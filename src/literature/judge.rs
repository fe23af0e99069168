//! How a census class stands against the literature: [`Standing`] for one
//! entry, [`Literature::judge`] for every entry about any of its members,
//! with a member's shift found from the values when the census gives none.

use std::fmt;

use crate::code::Code;
use crate::literature::claims::{
    Claim, ClassClaim, Entry, Literature, LiteratureError, Outcome, Relation, Source,
};

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
    /// Listed as unsolved by the source, proven periodic here, and no
    /// other source states a period for the class.
    New { source: Source, code: String },
    /// Listed as unsolved by the source, but another source states a
    /// period for the class (and the census proves one): the list is out
    /// of date, and the result is not new.
    Superseded { source: Source, code: String },
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
            Standing::Superseded { .. } => "superseded",
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
            | Standing::Known { source, .. }
            | Standing::Superseded { source, .. } => Some(source),
            Standing::Unlisted => None,
        }
    }

    /// How telling the standing is: a disagreement first, then a new
    /// result, an agreement, a known result, an out-of-date listing, an
    /// open game.
    fn rank(&self) -> u8 {
        match self {
            Standing::Disagrees { .. } => 0,
            Standing::New { .. } => 1,
            Standing::Agrees { .. } => 2,
            Standing::Known { .. } => 3,
            Standing::Superseded { .. } => 4,
            Standing::Open { .. } => 5,
            Standing::Unlisted => 6,
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
            Standing::Superseded { source, code } => write!(
                f,
                "superseded: listed as unsolved by {} ({code}), solved by another source",
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
/// out-of-date listing, an open game, or unlisted.
pub fn headline(standings: &[Standing]) -> &Standing {
    standings
        .iter()
        .min_by_key(|s| s.rank())
        .unwrap_or(&Standing::Unlisted)
}

/// A class's standings as one table cell: every disagreement (once per
/// source and heap), then the new, agreeing, known and open standings,
/// each naming its sources once (an out-of-date listing after them);
/// "unlisted" when there are none.
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
                    "superseded" => "superseded: listed as unsolved by",
                    _ => "open: listed as unsolved by",
                };
                let tail = match s.label() {
                    "new" => ", proven here",
                    "known" => ", not proven here",
                    "open" => ", open here too",
                    "superseded" => ", solved by another source",
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

impl Literature {
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
        // A listing as unsolved is new only against a literature that
        // states no period for the class anywhere.
        let solved = out.iter().any(|s| {
            matches!(
                s,
                Standing::Agrees { .. } | Standing::Disagrees { .. } | Standing::Known { .. }
            )
        });
        if solved {
            for s in &mut out {
                if let Standing::New { source, code } = s {
                    *s = Standing::Superseded {
                        source: source.clone(),
                        code: std::mem::take(code),
                    };
                }
            }
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
