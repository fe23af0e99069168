//! The [`Detector`]: fed the values block by block, it finds the smallest
//! period and preperiod and says when the [`Bound`] proves them (the two
//! tiers are described in the module above).

use std::collections::HashMap;

use octal_kernels::Value;
use serde::{Deserialize, Serialize};

use crate::code::Code;
use crate::period::bound::{Bound, Period};

/// Periods up to this are tracked exhaustively.
pub const SHORT: usize = 1024;
/// Values per hashed window.
pub const WINDOW: usize = 48;
/// Hash-found candidates tracked at once.
const MAX_LIVE: usize = 32;
/// Direct-mapped tables of recent selected windows: (1 in `D` windows
/// selected, slots). With at least ~32 selected windows per period a
/// period is all but certain to be seen: the first level serves periods
/// up to ~16 000, the second up to ~250 000.
const LEVELS: [(u64, usize); 2] = [(32, 1 << 12), (512, 1 << 12)];
/// Every selected window of this sparseness is kept (periods beyond the
/// direct-mapped levels): N / 8192 entries.
const COARSE: u64 = 8192;
const HASH_BASE: u64 = 0x9E37_79B9_7F4A_7C15 | 1;
/// The most values [`Detector::feed`] takes in one step. The candidates
/// found in a step are verified together at its end, and at most
/// [`MAX_LIVE`] are tracked: one step of millions of values can find more
/// chance repeats than that, crowding out the true period (`.16`'s
/// 149,459 was missed when its 2·10^6 values were fed at once).
pub const STEP: usize = 1 << 16;

/// One hash-found candidate period that has held since it was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Candidate {
    p: u64,
    /// 1 + the last n with G(n) ≠ G(n−p); 0 if none.
    mm: u64,
    /// Values checked so far.
    checked: u64,
    /// Values seen when it was found.
    found_at: u64,
}

/// Finds and proves the period of a sequence fed to it block by block.
/// Its state is small (a few hundred KiB plus one entry per 8192 values)
/// and serialisable, so a store can save it beside the values.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Detector {
    bound: Option<Bound>,
    /// Values processed: G(0..seen).
    seen: u64,
    /// `short[p]` = 1 + the last n with G(n) ≠ G(n−p), 0 if none.
    short: Vec<u64>,
    /// Rolling hash of the last WINDOW values (as value + 1).
    hash: u64,
    /// Per level: (hash, 1 + position) slots.
    levels: Vec<Vec<(u64, u64)>>,
    coarse: HashMap<u64, u64>,
    live: Vec<Candidate>,
    proven: Option<Period>,
    /// A windowed run holds G(kept_from..) only (besides a prefix the
    /// detector does not use): periods are looked for within it.
    #[serde(default)]
    kept_from: u64,
}

/// Odd multiplier whose product with the rolling hash decides selection.
const SELECT: u64 = 0xD6E8_FEB8_6659_FD93;

/// True for 1 in `d` (a power of two) windows: the top bits of the
/// multiplied hash are zero. The top bits depend on every value in the
/// window (the low bits of a polynomial hash would not). Selection at a
/// sparser level implies selection at the finer ones.
#[inline(always)]
fn selected(h: u64, d: u64) -> bool {
    h.wrapping_mul(SELECT) >> (64 - d.trailing_zeros()) == 0
}

/// splitmix64's finaliser: spreads the rolling hash over all bits.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The last n in `[lo, hi)` with g[n] ≠ g[n−p], scanning down from the
/// top (cheap when the period fails: it usually fails at once).
fn last_mismatch<V: Value>(g: &[V], p: usize, lo: usize, hi: usize) -> Option<usize> {
    let lo = lo.max(p);
    (lo..hi).rev().find(|&n| g[n] != g[n - p])
}

impl Detector {
    pub fn new(code: &Code) -> Detector {
        Detector::with_bound(Bound::of(code))
    }

    /// A detector with an explicit bound (`None`: find periods, never
    /// prove them).
    pub fn with_bound(bound: Option<Bound>) -> Detector {
        Detector {
            bound,
            seen: 0,
            short: vec![0; SHORT + 1],
            hash: 0,
            levels: LEVELS
                .iter()
                .map(|&(_, slots)| vec![(0, 0); slots])
                .collect(),
            coarse: HashMap::new(),
            live: Vec::new(),
            proven: None,
            kept_from: 0,
        }
    }

    /// For a windowed run that no longer holds G(..lo): from now on only
    /// periods that the values from `lo` on show are looked for. A period
    /// found this way is proven by the same bound; its preperiod is the
    /// exact one when the values reach back to it, else the least that
    /// the kept values show (never less than the true one, so the proof
    /// stands). The caller keeps G(lo..) and feeds blocks that start at
    /// least [`SHORT`] values after `lo`.
    pub fn forget_before(&mut self, lo: u64) {
        self.kept_from = self.kept_from.max(lo);
        let lo = self.kept_from;
        let seen = self.seen;
        self.live.retain(|c| c.p + lo <= seen);
        self.coarse.retain(|_, pos| *pos > lo);
    }

    /// Checks a state read from a file against what feeding `code`'s
    /// values could have made: its bound, and every position within the
    /// values seen (a crafted one could index past them, or prove a
    /// period by a wrong bound).
    pub fn check(&self, code: &Code) -> Result<(), String> {
        let seen = self.seen;
        let bad = |what: &str| Err(format!("impossible period detector state ({what})"));
        if self.bound != Bound::of(code) {
            return bad("bound");
        }
        // A proven detector stops counting values, while a window that
        // keeps going slides on past them ([`Detector::forget_before`]).
        let proven = self.proven.is_some();
        if self.kept_from > seen && !proven {
            return bad("start");
        }
        if self.short.len() != SHORT + 1 || self.short.iter().any(|&m| m > seen) {
            return bad("short periods");
        }
        let levels_ok =
            self.levels.len() == LEVELS.len()
                && self.levels.iter().zip(LEVELS).all(|(l, (_, slots))| {
                    l.len() == slots && l.iter().all(|&(_, pos)| pos <= seen)
                });
        if !levels_ok || self.coarse.values().any(|&pos| pos > seen) {
            return bad("windows");
        }
        let live_ok = self.live.len() <= MAX_LIVE
            && self.live.iter().all(|c| {
                c.p as usize > SHORT
                    && (proven || c.p.checked_add(self.kept_from).is_some_and(|e| e <= seen))
                    && c.checked == seen
                    && c.mm <= seen
                    && c.found_at <= seen
            });
        if !live_ok {
            return bad("candidates");
        }
        if let Some(p) = self.proven {
            let need = self.bound.map(|b| b.needed(p.period, p.preperiod));
            if p.period == 0 || p.bound != need || need.is_none_or(|n| n > seen) {
                return bad("proven period");
            }
        }
        Ok(())
    }

    /// Where the values this detector may read begin (0: everywhere).
    pub fn kept_from(&self) -> u64 {
        self.kept_from
    }

    /// False when no period of this game can be proven.
    pub fn can_prove(&self) -> bool {
        self.bound.is_some()
    }

    /// Values processed so far.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// The proven period, once there is one.
    pub fn proven(&self) -> Option<Period> {
        self.proven
    }

    /// Processes `g[seen..]`, given that `g` holds G(0), …, G(g.len()−1)
    /// and the first `seen` were fed before. Does nothing once a period is
    /// proven.
    ///
    /// A long stretch is processed in steps of at most [`STEP`] values,
    /// as a run feeds them, so that values fed at once (a store's, to
    /// summarise or compare it) show the period that a run feeding them
    /// block by block proves.
    pub fn feed<V: Value>(&mut self, g: &[V]) {
        while self.proven.is_none() && (self.seen as usize) < g.len() {
            let b0 = self.seen as usize;
            let b1 = g.len().min(b0 + STEP);
            self.feed_short(g, b0, b1);
            self.feed_hash(g, b0, b1);
            self.feed_live(g, b1);
            self.seen = b1 as u64;
            self.check_proof(g);
        }
    }

    fn feed_short<V: Value>(&mut self, g: &[V], b0: usize, b1: usize) {
        // Periods with no mismatch in the block, none a multiple of
        // another: a multiple k·q of such a q needs no scan when q has held
        // since before b0 − (k−1)q.
        let mut clean: Vec<(usize, u64)> = Vec::new();
        for p in 1..=SHORT.min(b1.saturating_sub(1)) {
            let covered = clean
                .iter()
                .any(|&(q, mm)| p % q == 0 && mm + p as u64 <= (b0 + q) as u64);
            if covered {
                continue;
            }
            match last_mismatch(g, p, b0, b1) {
                Some(n) => self.short[p] = n as u64 + 1,
                None if clean.len() < 8 => clean.push((p, self.short[p])),
                None => {}
            }
        }
    }

    fn feed_hash<V: Value>(&mut self, g: &[V], b0: usize, b1: usize) {
        let top = HASH_BASE.wrapping_pow(WINDOW as u32);
        let mut h = self.hash;
        let mut found: Vec<(u64, usize)> = Vec::new();
        // The hot loop only rolls the hash and tests its top bits (one
        // multiply off the dependency chain); selected windows, 1 in 32,
        // go to `remember`.
        let first = b0.max(WINDOW);
        for (n, x) in g.iter().enumerate().take(first.min(b1)).skip(b0) {
            h = h.wrapping_mul(HASH_BASE).wrapping_add(x.get() as u64 + 1);
            if n + 1 == WINDOW && selected(h, LEVELS[0].0) {
                self.remember(h, n, &mut found);
            }
        }
        if first < b1 {
            let pairs = g[first..b1].iter().zip(&g[first - WINDOW..b1 - WINDOW]);
            for (k, (x, old)) in pairs.enumerate() {
                h = h
                    .wrapping_mul(HASH_BASE)
                    .wrapping_add(x.get() as u64 + 1)
                    .wrapping_sub(top.wrapping_mul(old.get() as u64 + 1));
                if selected(h, LEVELS[0].0) {
                    self.remember(h, first + k, &mut found);
                }
            }
        }
        self.hash = h;
        for (d, n) in found {
            self.consider(g, d, n, b1);
        }
    }

    /// Stores the selected window ending at `n` (hash `h`) in the levels it
    /// belongs to; a window seen before suggests a period.
    #[inline(never)]
    fn remember(&mut self, h: u64, n: usize, found: &mut Vec<(u64, usize)>) {
        let key = mix(h);
        let pos = n as u64 + 1;
        let mut hit = None;
        for (level, &(d, slots)) in self.levels.iter_mut().zip(LEVELS.iter()) {
            if !selected(h, d) {
                break;
            }
            let slot = &mut level[(key as usize) & (slots - 1)];
            if slot.0 == key && slot.1 != 0 {
                hit = hit.or(Some(slot.1));
            }
            *slot = (key, pos);
        }
        if selected(h, COARSE) {
            if let Some(old) = self.coarse.insert(key, pos) {
                hit = hit.or(Some(old));
            }
        }
        if let Some(old) = hit {
            let d = pos - old;
            if d as usize > SHORT && !found.iter().any(|&(f, _)| f == d) {
                found.push((d, n));
            }
        }
    }

    /// Verifies the candidate period `d` suggested by equal windows ending
    /// at `n`, and tracks it if the values bear it out (up to `b1`, the
    /// end of the step: a chance repeat that fails before then would only
    /// take the place of a true period among the tracked ones).
    fn consider<V: Value>(&mut self, g: &[V], d: u64, n: usize, b1: usize) {
        if self.live.len() >= MAX_LIVE || self.live.iter().any(|c| d.is_multiple_of(c.p)) {
            return;
        }
        let p = d as usize;
        // In a window, the values from `kept_from` on only.
        let floor = match self.kept_from as usize {
            0 => 0,
            lo if lo + p + WINDOW > n + 1 => return,
            lo => lo + p,
        };
        // It must hold over the window that suggested it and on to `b1`
        // (else a hash collision, or a chance repeat).
        let mm = last_mismatch(g, p, floor, b1).map_or(floor, |k| k + 1);
        if n + 1 < mm.max(p) + WINDOW {
            return;
        }
        self.live.push(Candidate {
            p: d,
            mm: mm as u64,
            checked: b1 as u64,
            found_at: n as u64 + 1,
        });
    }

    fn feed_live<V: Value>(&mut self, g: &[V], b1: usize) {
        self.live
            .retain(|c| last_mismatch(g, c.p as usize, c.checked as usize, b1).is_none());
        for c in &mut self.live {
            c.checked = b1 as u64;
        }
    }

    /// Every tracked period with its preperiod and the values it was known
    /// from.
    fn tracked(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        let n = self.seen;
        let short = (1..=SHORT.min(n.saturating_sub(1) as usize))
            .map(|p| (p as u64, self.short[p].saturating_sub(p as u64), 0));
        let live = self
            .live
            .iter()
            .map(|c| (c.p, c.mm.saturating_sub(c.p), c.found_at));
        short.chain(live)
    }

    fn check_proof<V: Value>(&mut self, g: &[V]) {
        let Some(bound) = self.bound else { return };
        let n = self.seen;
        let best = self
            .tracked()
            .filter_map(|(p, s, found)| {
                let need = bound.needed(p, s);
                (need <= n).then_some((p, s, need.max(found), need))
            })
            .min();
        if let Some((p, s, at, _)) = best {
            // Any full period after s shows a divisor period (see there).
            let from = s.max(self.kept_from) as usize;
            let p = smallest_divisor_period(g, p as usize, from) as u64;
            self.proven = Some(Period {
                period: p,
                preperiod: s,
                proven_at: at,
                bound: Some(bound.needed(p, s)),
            });
        }
    }

    /// The smallest number of values at which some tracked period would be
    /// proven if it keeps holding: a run can end its next block there so
    /// as not to compute past the proof.
    pub fn wants(&self) -> Option<u64> {
        let bound = self.bound?;
        if self.proven.is_some() {
            return None;
        }
        self.tracked()
            .map(|(p, s, _)| bound.needed(p, s))
            .filter(|&b| b > self.seen)
            .min()
    }

    /// The best candidate among the periods that hold, unproven, over the
    /// last values (for summaries of unfinished runs): of those that have
    /// held for two whole periods past their preperiod (and for at least
    /// 16 values), the one whose proof needs the fewest values, then the
    /// shortest. It holds from its `preperiod` on, over `proven_at −
    /// preperiod` values (`proven_at` is here the values seen), and its
    /// `bound` is the N that would prove it. It need not hold over half of
    /// the values: `.376`'s period 4 holds from n ≈ 2.27·10^6 on.
    /// The period to show while values come in: the proven one (true),
    /// else the apparent one (false).
    pub fn shown(&self) -> Option<(u64, bool)> {
        self.apparent().map(|p| (p.period, self.proven.is_some()))
    }

    pub fn apparent(&self) -> Option<Period> {
        if self.proven.is_some() {
            return self.proven;
        }
        let n = self.seen;
        self.tracked()
            .filter(|&(p, s, _)| n.saturating_sub(s + p) >= p.max(16))
            .map(|(p, s, _)| (self.bound.map(|b| b.needed(p, s)), p, s))
            .min_by_key(|&(b, p, _)| (b, p))
            .map(|(bound, p, s)| Period {
                period: p,
                preperiod: s,
                proven_at: n,
                bound,
            })
    }
}

/// For a proven period `p` from `s`, the smallest divisor of `p` that is
/// a period too (it has the same preperiod): checked over one full period
/// where the values reach that far. Any full period from `from ≥ s` serves:
/// if `d` holds over `[from + d, from + d + p)`, then for every `n ≥ s`,
/// `G(n + d) = G(n + d + kp) = G(n + kp) = G(n)` with `n + kp ≥ from`.
fn smallest_divisor_period<V: Value>(g: &[V], mut p: usize, from: usize) -> usize {
    'outer: loop {
        for q in prime_factors(p) {
            let d = p / q;
            let end = from + d + p;
            if end <= g.len() && (from + d..end).all(|n| g[n] == g[n - d]) {
                p = d;
                continue 'outer;
            }
        }
        return p;
    }
}

/// The distinct prime factors of `n`.
fn prime_factors(mut n: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut q = 2;
    while q * q <= n {
        if n.is_multiple_of(q) {
            out.push(q);
            while n.is_multiple_of(q) {
                n /= q;
            }
        }
        q += 1;
    }
    if n > 1 {
        out.push(n);
    }
    out
}
