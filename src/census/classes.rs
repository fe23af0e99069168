//! Grouping a census into classes: which sequences agree, exactly or
//! shifted by one heap ([`equivalences`]), checked pair by pair with
//! [`crate::compare`], and how each member relates to its class' first code.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::code::Code;
use crate::compare::{Comparison, Outcome, Side};
use crate::period::Period;

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

/// Written as `octal compare` writes it (census rows state shifts alike).
pub use crate::compare::shifted_equation;

/// The largest j at which codes `a` and `b` differ, when they differ only
/// in taking all of a heap (bit 1 of digit j); None when they differ in
/// any other move, or not at all.
///
/// Taking all of j beans applies to a heap of exactly j, so a heap n that
/// is no such j has the same moves in both games, and its value is the
/// same once the smaller heaps' are. Hence two such sequences that agree
/// on every n ≤ j agree for every n: a proof that needs no period.
pub fn take_all_difference(a: &Code, b: &Code) -> Option<usize> {
    if a.unequal_splits() != b.unequal_splits() {
        return None;
    }
    let (da, db) = (a.digits(), b.digits());
    let digit = |d: &[u8], j: usize| d.get(j).copied().unwrap_or(0);
    let mut last = None;
    for j in 0..da.len().max(db.len()) {
        match digit(da, j) ^ digit(db, j) {
            0 => {}
            1 if j >= 1 => last = Some(j),
            _ => return None,
        }
    }
    last
}

/// When codes `a` and `b`, found to agree (`outcome`) at `shift`, agree
/// for every n by [`take_all_difference`]: no shift, and they agree
/// beyond the largest j at which they differ. That j.
fn by_take_all(shift: i64, outcome: Outcome, a: &str, b: &str) -> Option<usize> {
    let Outcome::EqualTo { to } = outcome else {
        return None;
    };
    let (Ok(a), Ok(b)) = (a.parse::<Code>(), b.parse::<Code>()) else {
        return None;
    };
    (shift == 0)
        .then(|| take_all_difference(&a, &b))
        .flatten()
        .filter(|&j| (j as u64) < to)
}

impl Relation {
    /// When this relation of `member` to its class' first code `first`
    /// holds for every n by [`take_all_difference`]: the j it turns on.
    pub fn by_take_all(&self, member: &str, first: &str) -> Option<usize> {
        by_take_all(self.shift, self.outcome, member, first)
    }
}

impl Link {
    /// When this link between codes `a` and `b` holds for every n by
    /// [`take_all_difference`]: the j it turns on.
    pub fn by_take_all(&self, a: &str, b: &str) -> Option<usize> {
        by_take_all(self.shift, self.outcome, a, b)
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
    let heads = heads(periods, values)?;
    let mut eq = Equivalences {
        class_of: (0..n).collect(),
        ..Default::default()
    };
    join(&mut eq, candidates(&heads), periods, values)?;
    for i in 0..n {
        let r = find(&mut eq.class_of, i);
        eq.class_of[i] = r;
    }
    eq.relations = relations(&eq, periods, values)?;
    Ok(eq)
}

/// The first values of every code, read off the period past a short proof.
fn heads<E>(
    periods: &[Option<Period>],
    values: &dyn Fn(usize, usize) -> Result<Vec<u32>, E>,
) -> Result<Vec<Vec<u32>>, E> {
    (0..periods.len())
        .map(|i| {
            let v = values(i, SIGNATURE + 1)?;
            let side = Side {
                values: &v,
                period: periods[i],
            };
            Ok((0..=SIGNATURE as u64).map_while(|m| side.get(m)).collect())
        })
        .collect()
}

/// Candidates (a, b, shift): codes whose first values agree (shift 0), or
/// whose values from heap 1 on agree with another's from 0 (shift 1).
fn candidates(heads: &[Vec<u32>]) -> Vec<(usize, usize, i64)> {
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
    candidates
}

/// The class of `i` (its root), halving the path on the way.
fn find(class_of: &mut [usize], mut i: usize) -> usize {
    while class_of[i] != i {
        class_of[i] = class_of[class_of[i]];
        i = class_of[i];
    }
    i
}

/// Compares each candidate pair in full: a link joins their classes, a
/// near miss is kept as one.
fn join<E>(
    eq: &mut Equivalences,
    candidates: Vec<(usize, usize, i64)>,
    periods: &[Option<Period>],
    values: &dyn Fn(usize, usize) -> Result<Vec<u32>, E>,
) -> Result<(), E> {
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
    Ok(())
}

/// Every member against its class' first code, directly, at the shift
/// the links compose to (the first code's values read once a class).
fn relations<E>(
    eq: &Equivalences,
    periods: &[Option<Period>],
    values: &dyn Fn(usize, usize) -> Result<Vec<u32>, E>,
) -> Result<Vec<Option<Relation>>, E> {
    let shifts = composed_shifts(&eq.class_of, &eq.links);
    let mut relations = vec![None; periods.len()];
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
            relations[i] = Some(Relation { shift, outcome });
        }
    }
    Ok(relations)
}
