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
/// `reach[i]` values; `values(i, m)` gives at most its first `m` values
/// (read when needed, and only as many as a comparison can look at, so
/// that a census of long sequences never holds them all); the first
/// error it returns is returned.
pub fn equivalences<E>(
    periods: &[Option<Period>],
    reach: &[u64],
    values: &dyn Fn(usize, usize) -> Result<Vec<u32>, E>,
) -> Result<Equivalences, E> {
    let n = periods.len();
    let heads = heads(periods, values)?;
    let mut eq = Equivalences {
        class_of: (0..n).collect(),
        ..Default::default()
    };
    let mut cache = Cache::default();
    let known = Known { periods, reach };
    join(&mut eq, candidates(&heads), known, &mut cache, values)?;
    for i in 0..n {
        let r = find(&mut eq.class_of, i);
        eq.class_of[i] = r;
    }
    eq.relations = relations(&eq, known, &mut cache, values)?;
    Ok(eq)
}

/// What the grouping knows of each code before reading its values: its
/// proven period and how many values it has.
#[derive(Clone, Copy)]
struct Known<'a> {
    periods: &'a [Option<Period>],
    reach: &'a [u64],
}

impl Known<'_> {
    /// How many values of `a` and of `b` a comparison of G_a(n) with
    /// G_b(n + shift) reads ([`Comparison::run`] without a limit): up to
    /// the end of what both answer for (or of a proof, when both are
    /// periodic), and of a periodic code no more than its preperiod and
    /// one period, past which [`Side::get`] reads the period. Values beyond
    /// these change nothing, and a periodic class' first code (the census
    /// took `.454` to 4.4·10^8 values) is mostly compared with members
    /// computed to a few million.
    fn needs(&self, a: usize, b: usize, shift: i64) -> (usize, usize) {
        let side = |i: usize| Side {
            values: &[],
            period: self.periods[i],
        };
        let c = Comparison {
            a: side(a),
            b: side(b),
            shift,
        };
        let known = |i: usize| match self.periods[i] {
            Some(_) => u64::MAX,
            None => self.reach[i],
        };
        let end = c.check_to().unwrap_or_else(|| {
            let b_known = (known(b) as i128 - shift as i128).clamp(0, u64::MAX as i128) as u64;
            known(a).min(b_known)
        }) as i128;
        let cap = |i: usize, to: i128| -> usize {
            let held = match self.periods[i] {
                Some(p) => (p.preperiod + p.period).min(self.reach[i]),
                None => self.reach[i],
            };
            to.clamp(0, held as i128) as usize
        };
        (cap(a, end), cap(b, end + shift as i128))
    }
}

/// Values compared before the rest are read (see [`Cache::compare`]).
const FIRST_LOOK: usize = 1 << 16;

/// The most values the cache holds before it lets go of the others (1 GiB).
const CACHE_VALUES: usize = 1 << 28;

/// Sequences read for comparisons, kept while they fit: each code's first
/// values, as many as the longest comparison of it so far asked for.
#[derive(Default)]
struct Cache {
    held: BTreeMap<usize, Vec<u32>>,
    values: usize,
}

impl Cache {
    /// Makes sure code `i`'s first `need` values are held, and still those
    /// of `keep` (when the cache lets go of the others to make room).
    fn fill<E>(
        &mut self,
        i: usize,
        need: usize,
        keep: Option<usize>,
        values: &dyn Fn(usize, usize) -> Result<Vec<u32>, E>,
    ) -> Result<(), E> {
        if self.held.get(&i).is_some_and(|v| v.len() >= need) {
            return Ok(());
        }
        if self.values + need > CACHE_VALUES {
            self.held.retain(|&k, _| Some(k) == keep);
            self.values = self.held.values().map(Vec::len).sum();
        }
        let v = values(i, need)?;
        self.values += v.len();
        if let Some(old) = self.held.insert(i, v) {
            self.values -= old.len();
        }
        Ok(())
    }

    /// Code `i`'s first `need` values (or all it has), once filled.
    fn get(&self, i: usize, need: usize) -> &[u32] {
        let v = &self.held[&i];
        &v[..need.min(v.len())]
    }

    /// G_a(n) against G_b(n + shift), each read only as far as it counts:
    /// first their first [`FIRST_LOOK`] values, where most pairs that
    /// differ do (codes of one signature group that are not one class),
    /// then the rest.
    fn compare<E>(
        &mut self,
        known: Known,
        (a, b, shift): (usize, usize, i64),
        values: &dyn Fn(usize, usize) -> Result<Vec<u32>, E>,
    ) -> Result<Outcome, E> {
        let all = known.needs(a, b, shift);
        let first = (all.0.min(FIRST_LOOK), all.1.min(FIRST_LOOK));
        let looks = if first == all {
            vec![all]
        } else {
            vec![first, all]
        };
        let mut outcome = Outcome::EqualTo { to: 0 };
        for (na, nb) in looks {
            self.fill(a, na, None, values)?;
            self.fill(b, nb, Some(a), values)?;
            outcome = Comparison {
                a: Side {
                    values: self.get(a, na),
                    period: known.periods[a],
                },
                b: Side {
                    values: self.get(b, nb),
                    period: known.periods[b],
                },
                shift,
            }
            .run(None);
            // A first difference among the first values is the first of all.
            if matches!(outcome, Outcome::Differ { .. }) {
                break;
            }
        }
        Ok(outcome)
    }
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
    known: Known,
    cache: &mut Cache,
    values: &dyn Fn(usize, usize) -> Result<Vec<u32>, E>,
) -> Result<(), E> {
    for (a, b, shift) in candidates {
        // Codes already in one class are related by the links that joined
        // them; a shifted candidate between them is such a relation again,
        // or no news (a class of 48 codes shifted from one of 48 would
        // otherwise compare all 2,304 pairs in full).
        if find(&mut eq.class_of, a) == find(&mut eq.class_of, b) {
            continue;
        }
        let outcome = cache.compare(known, (a, b, shift), values)?;
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
    }
    Ok(())
}

/// Every member against its class' first code, directly, at the shift
/// the links compose to.
fn relations<E>(
    eq: &Equivalences,
    known: Known,
    cache: &mut Cache,
    values: &dyn Fn(usize, usize) -> Result<Vec<u32>, E>,
) -> Result<Vec<Option<Relation>>, E> {
    let shifts = composed_shifts(&eq.class_of, &eq.links);
    let mut relations = vec![None; known.periods.len()];
    let mut members: BTreeMap<usize, Vec<(usize, i64)>> = BTreeMap::new();
    for (i, shift) in shifts.iter().enumerate() {
        if let Some(shift) = shift.filter(|_| eq.class_of[i] != i) {
            members.entry(eq.class_of[i]).or_default().push((i, shift));
        }
    }
    // A link that joined a member to its first code at the composed shift
    // is that comparison already (either way round at shift 0, where
    // agreement is symmetric): most members of a class are.
    let mut direct: BTreeMap<(usize, usize, i64), Outcome> = BTreeMap::new();
    for l in &eq.links {
        direct.insert((l.a, l.b, l.shift), l.outcome);
        if l.shift == 0 {
            direct.insert((l.b, l.a, 0), l.outcome);
        }
    }
    for (r, class) in members {
        let mut rest = Vec::new();
        for (i, shift) in class {
            match direct.get(&(i, r, shift)) {
                Some(&outcome) => relations[i] = Some(Relation { shift, outcome }),
                None => rest.push((i, shift)),
            }
        }
        // The first code's values once a class, as far as any member needs.
        let most = rest
            .iter()
            .map(|&(i, shift)| known.needs(i, r, shift).1)
            .max()
            .unwrap_or(0);
        cache.fill(r, most, None, values)?;
        for (i, shift) in rest {
            let outcome = cache.compare(known, (i, r, shift), values)?;
            relations[i] = Some(Relation { shift, outcome });
        }
    }
    Ok(relations)
}
