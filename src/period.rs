//! Periodicity: finding the period of a Grundy sequence while it is being
//! computed, and proving it with the Guy–Smith bound.
//!
//! A run can stop as soon as the values computed so far prove that the
//! sequence is periodic forever; this module decides when that is. The
//! [`Bound`] says how many values a period `p` with preperiod `s` needs
//! (derived in `docs/periodicity.md`); the [`Detector`] is fed the values
//! block by block and finds, in time near linear in their number, the
//! smallest period `p` and for it the smallest preperiod `s` with
//! G(n+p) = G(n) for every computed n ≥ s.
//!
//! The detector has two tiers:
//! * every period `p ≤ SHORT` is tracked exactly (the last `n` with
//!   G(n) ≠ G(n−p)), which costs a backward scan per block that almost
//!   always stops at the first value;
//! * longer periods are found by hashing windows of `WINDOW` values. A
//!   window is *selected* when its hash has its low bits zero (so the same
//!   windows are selected wherever they recur, whatever the period), and
//!   selected windows are remembered in tables of growing sparseness. A
//!   selected window seen before at distance `d` makes `d` a candidate,
//!   which is verified exactly against the values, then tracked like a
//!   short period until it fails (dropped) or is proven.

use std::collections::HashMap;

use octal_kernels::Value;
use serde::{Deserialize, Serialize};

use crate::code::{Code, Rules};

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

/// How many values a period needs before it is proven, for one game.
///
/// With G(n+p) = G(n) checked for all s ≤ n and n+p < N, the sequence is
/// periodic forever once N ≥ [`needed`](Bound::needed)(p, s); see
/// `docs/periodicity.md` for the proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bound {
    /// 1 + the largest `i` removable as a whole heap (0 if none).
    take_all: u64,
    /// The largest `i` of a move leaving one heap.
    leave_one: Option<u64>,
    /// The largest `i` of a move leaving two heaps (0 for `4.`).
    split: Option<u64>,
}

impl Bound {
    /// The bound for a game, or `None` when no proof of periodicity is
    /// known for its kind of moves.
    pub fn of(code: &Code) -> Option<Bound> {
        // Destructured in full so that a new kind of move (unequal splits,
        // three-heap splits) fails to compile here until someone derives
        // its bound or returns None for it.
        let rules = code.rules();
        // The Guy–Smith argument maps a split a+b of n to a+(b−p) of n−p;
        // with unequal splits the image may be an equal split, which is
        // not a move, so no bound follows. Three-heap splits are not
        // derived here (docs/periodicity.md): no proof is claimed.
        if !rules.is_octal() {
            return None;
        }
        let Rules {
            take_all,
            take_leave_one,
            take_split,
            take_split3: _,
            unequal_splits: _,
        } = rules;
        let max = |v: &[usize]| v.iter().max().map(|&i| i as u64);
        Some(Bound {
            take_all: max(&take_all).map_or(0, |i| i + 1),
            leave_one: max(&take_leave_one),
            split: max(&take_split),
        })
    }

    /// The number of values N (G(0..N) known) that proves period `p` with
    /// preperiod `s`, if the values verify it:
    /// `N = p + max(s, a+1, max(s,1)+l, 2·max(s,1)+p+t−1)` over the
    /// largest `a` of a whole-heap removal, `l` of a one-heap move and `t`
    /// of a split (terms without such a move left out).
    pub fn needed(&self, p: u64, s: u64) -> u64 {
        let s1 = s.max(1);
        let mut n0 = s.max(self.take_all);
        if let Some(l) = self.leave_one {
            n0 = n0.max(s1.saturating_add(l));
        }
        if let Some(t) = self.split {
            n0 = n0.max(
                s1.saturating_mul(2)
                    .saturating_add(p)
                    .saturating_add(t)
                    .saturating_sub(1),
            );
        }
        p.saturating_add(n0)
    }
}

/// A proven (or apparent) period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Period {
    /// The smallest period p.
    pub period: u64,
    /// The smallest s with G(n+p) = G(n) for every computed n ≥ s.
    pub preperiod: u64,
    /// How many values the detector had seen when it declared the proof
    /// (for an apparent period: how many it has seen).
    pub proven_at: u64,
    /// How many values the proof needs ([`Bound::needed`]); `None` when no
    /// proof is possible for this game.
    pub bound: Option<u64>,
}

impl Period {
    /// Checks a proof recorded in a file against the values it rests on
    /// (`g(n)` = G(n) for n < `len`), so that a damaged or forged record is
    /// never taken for a proof: p ≥ 1, the bound is the one the game's
    /// rules give for (p, s) and the values reach it, G(n) = G(n − p) for
    /// every n from s + p up to it, and s is least (G(s − 1) ≠ G(s − 1 + p)).
    /// The error says what fails.
    pub fn check_proof(&self, code: &Code, len: u64, g: impl Fn(u64) -> u32) -> Result<(), String> {
        let (p, s) = (self.period, self.preperiod);
        let bad = |why: String| Err(format!("the recorded period {p} (preperiod {s}) {why}"));
        if p == 0 {
            return bad("is no period".into());
        }
        let Some(need) = Bound::of(code).map(|b| b.needed(p, s)) else {
            return bad("cannot be proven for this game".into());
        };
        if self.bound != Some(need) || self.proven_at < need {
            return bad(format!(
                "is not proven by its bound: the proof needs {need} values"
            ));
        }
        if need > len {
            return bad(format!("needs {need} values, and the file holds {len}"));
        }
        if let Some(n) = (s + p..need).find(|&n| g(n) != g(n - p)) {
            return bad(format!("does not hold: G({n}) ≠ G({})", n - p));
        }
        if s > 0 && g(s - 1) == g(s - 1 + p) {
            return bad(format!("is not least: G({}) = G({})", s - 1, s - 1 + p));
        }
        Ok(())
    }

    /// The last irregular value's index, `s − 1` (None when `s = 0`).
    pub fn last_irregular(&self) -> Option<u64> {
        self.preperiod.checked_sub(1)
    }

    /// The heap below `s + p` whose value G(n) equals, for any `n`: `n`
    /// itself before the end of the first period, else the same place in
    /// the first period (a proven period answers for any heap).
    pub fn first_index(&self, n: u64) -> u64 {
        let (s, p) = (self.preperiod, self.period);
        if n < s + p || p == 0 {
            n
        } else {
            s + (n - s) % p
        }
    }

    /// What a program says when it answers heaps from `known` on off this
    /// period rather than by computing them.
    pub fn read_off_note(&self, known: u64) -> String {
        format!(
            "values from n = {known} on are read off the proven period {} (preperiod {}, proven at {})",
            self.period, self.preperiod, self.proven_at
        )
    }
}

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
fn mix(mut z: u64) -> u64 {
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

/// How [`notation`] marks the period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notation {
    /// Plain text: a combining dot above (U+0307) over the period's first
    /// and last values, `0.1̇10112212̇`.
    Text,
    /// LaTeX, as papers print it: `0.\dot{1}10112212\dot{2}`.
    Latex,
}

/// The sequence up to the end of its first period, in the nim-sequence
/// notation of the lecture notes on impartial games: G(0), a point, then
/// G(1), G(2), …, with a dot over the first and the last value of the
/// period (one dot when the period is 1; G(0) is dotted when the
/// preperiod is 0). Guiles (`0.15`, preperiod 1, period 10) is
/// `0.1̇10112212̇2`, in LaTeX `0.\dot{1}10112212\dot{2}`. Values 0 to 9 are
/// one digit each; a value of 10 or more is written in parentheses, `(12)`,
/// and a dot over it sits on its first digit. `None` when the text would
/// be longer than `max_len` characters (the dots do not count).
pub fn notation<V: Value>(
    g: &[V],
    period: &Period,
    max_len: usize,
    style: Notation,
) -> Option<String> {
    let (s, p) = (period.preperiod as usize, period.period as usize);
    if p == 0 || s + p > g.len() || s + p > max_len {
        return None;
    }
    let mut out = String::new();
    let mut len = 0;
    for (n, v) in g[..s + p].iter().enumerate() {
        let digits = v.get().to_string();
        let (open, close) = if digits.len() > 1 {
            ("(", ")")
        } else {
            ("", "")
        };
        let (first, rest) = digits.split_at(1);
        out.push_str(open);
        if n == s || n + 1 == s + p {
            match style {
                Notation::Text => {
                    out.push_str(first);
                    out.push('\u{307}');
                }
                Notation::Latex => {
                    out.push_str("\\dot{");
                    out.push_str(first);
                    out.push('}');
                }
            }
        } else {
            out.push_str(first);
        }
        out.push_str(rest);
        out.push_str(close);
        len += digits.len() + open.len() + close.len();
        if n == 0 {
            out.push('.');
            len += 1;
        }
        if len > max_len {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_proof_is_checked_against_the_values() {
        // Kayles (0.77): period 12 from n = 71, as data/sequences gives
        // it; the values from the reference engine.
        let code: Code = "0.77".parse().unwrap();
        let g = crate::compute(&mut crate::engine::Reference::new(&code), 2000);
        let need = Bound::of(&code).unwrap().needed(12, 71);
        let true_one = Period {
            period: 12,
            preperiod: 71,
            proven_at: need,
            bound: Some(need),
        };
        let at = |n: u64| g[n as usize];
        assert_eq!(true_one.check_proof(&code, 2000, at), Ok(()));
        // Too few values for the bound.
        assert!(true_one.check_proof(&code, need - 1, at).is_err());
        let forged = [
            Period {
                period: 0,
                ..true_one
            },
            Period {
                period: 1,
                ..true_one
            },
            Period {
                preperiod: 70,
                ..true_one
            },
            Period {
                preperiod: 72,
                ..true_one
            },
            Period {
                bound: Some(need - 1),
                ..true_one
            },
            Period {
                proven_at: need - 1,
                ..true_one
            },
        ];
        for p in forged {
            assert!(p.check_proof(&code, 2000, at).is_err(), "{p:?} passed");
        }
    }

    fn detect(values: &[u32], bound: Option<Bound>, step: usize) -> Detector {
        let mut d = Detector::with_bound(bound);
        let mut n = 0;
        while n < values.len() {
            n = (n + step).min(values.len());
            d.feed(&values[..n]);
        }
        d
    }

    /// A pseudo-random sequence: `pre` irregular values, then a random
    /// block of length `p` repeated.
    fn synthetic(pre: usize, p: usize, len: usize, seed: u64) -> Vec<u32> {
        let mut x = seed;
        let mut next = || {
            x = mix(x.wrapping_add(0x9E37_79B9_7F4A_7C15));
            (x % 7) as u32
        };
        let mut v: Vec<u32> = (0..pre + p).map(|_| next()).collect();
        while v.len() < len {
            v.push(v[v.len() - p]);
        }
        // Make sure the value just before the periodic part is irregular.
        if pre > 0 {
            v[pre - 1] = v[pre - 1 + p] + 1;
        }
        v
    }

    #[test]
    fn a_detector_that_forgets_old_values_finds_and_proves_the_same_periods() {
        // As a windowed run feeds it: blocks, and after each everything
        // but the last `keep` values forgotten (a poison value where they
        // were, which a read would trip over).
        let bound = Bound::of(&".16".parse().unwrap());
        for (pre, p, keep) in [
            (5000, 37, 8192),
            (40_000, 3001, 20_000),
            (70_000, 12_345, 40_000),
        ] {
            let values = synthetic(pre, p, 400_000, p as u64);
            let want = detect(&values, bound, 1000).proven().expect("a proof");
            let mut d = Detector::with_bound(bound);
            let mut g = values.clone();
            let mut n = 0;
            while n < g.len() && d.proven().is_none() {
                n = (n + 1000).min(g.len());
                d.feed(&g[..n]);
                let lo = n.saturating_sub(keep);
                g[d.kept_from() as usize..lo].fill(u32::MAX);
                d.forget_before(lo as u64);
            }
            let got = d.proven().expect("a proof in the window");
            assert_eq!(
                (got.period, got.preperiod),
                (want.period, want.preperiod),
                "p {p}"
            );
        }
        // A period longer than the window is not looked for.
        let values = synthetic(1000, 30_000, 200_000, 7);
        let mut d = Detector::with_bound(bound);
        let mut n = 0;
        while n < values.len() {
            n += 1000;
            d.feed(&values[..n]);
            d.forget_before(n.saturating_sub(20_000) as u64);
        }
        assert_eq!(d.proven(), None);
    }

    #[test]
    fn bound_for_kayles_and_subtraction() {
        // .77: take-all up to 2, one-heap up to 2, split up to 2.
        let b = Bound::of(&".77".parse().unwrap()).unwrap();
        assert_eq!(b.needed(12, 71), 2 * 71 + 2 * 12 + 2 - 1);
        assert_eq!(b.needed(4, 0), 2 + 8 + 2 - 1);
        // 0.333: no split; p + max(s, 4, max(s,1) + 3).
        let b = Bound::of(&"0.333".parse().unwrap()).unwrap();
        assert_eq!(b.needed(4, 0), 4 + 4);
        assert_eq!(b.needed(4, 10), 4 + 13);
        // 0.0: no moves at all; one value proves G = 0.
        let b = Bound::of(&"0.0".parse().unwrap()).unwrap();
        assert_eq!(b.needed(1, 0), 1);
        // 4.0: split without removal, i = 0.
        let b = Bound::of(&"4.0".parse().unwrap()).unwrap();
        assert_eq!(b.needed(3, 5), 3 + 10 + 3 - 1);
    }

    #[test]
    fn finds_short_and_long_synthetic_periods() {
        // A split bound: random values cannot satisfy it by chance (a
        // subtraction-game bound needs only a few clean values, which is
        // sound for games but not for arbitrary sequences).
        let none = Bound {
            take_all: 0,
            leave_one: None,
            split: Some(3),
        };
        for &(pre, p, step) in &[
            (0, 1, 7),
            (5, 3, 1),
            (100, 1000, 333),
            (3000, 1025, 4096),
            (70_000, 20_000, 9999),
            (1_000, 300_000, 1 << 16),
            (123_457, 1_500_000, 1 << 20),
        ] {
            let len = (2 * pre + 2 * p) * 51 / 50 + 10_000;
            let v = synthetic(pre, p, len, pre as u64 ^ p as u64);
            let d = detect(&v, Some(none), step);
            let got = d
                .proven()
                .unwrap_or_else(|| panic!("no period for {pre} {p}"));
            assert_eq!((got.period, got.preperiod), (p as u64, pre as u64));
            let need = none.needed(p as u64, pre as u64);
            assert_eq!(got.bound, Some(need));
            // Found in time: proven no later than 1% past the bound (or
            // the end of the block that crossed it).
            assert!(
                got.proven_at <= need + need / 100 + WINDOW as u64 + 64,
                "{pre} {p}: proven at {} but bound {need}",
                got.proven_at
            );
        }
    }

    #[test]
    fn unprovable_games_still_show_apparent_periods() {
        let v = synthetic(50, 7, 500, 3);
        let d = detect(&v, None, 64);
        assert!(d.proven().is_none() && !d.can_prove());
        let a = d.apparent().unwrap();
        assert_eq!((a.period, a.preperiod, a.bound), (7, 50, None));
    }

    #[test]
    fn an_apparent_period_may_hold_over_less_than_half_the_values() {
        // 7,000 irregular values, then period 4 over the last 3,000 (as
        // `.376` at 3·10^6, whose period 4 holds over the last ~730,000).
        let v = synthetic(7000, 4, 10_000, 5);
        let bound = Bound::of(&"0.4".parse().unwrap());
        let d = detect(&v, bound, 500);
        assert!(d.proven().is_none());
        let a = d.apparent().expect("period 4 holds over 3,000 values");
        assert_eq!((a.period, a.preperiod, a.proven_at), (4, 7000, 10_000));
        assert!(a.bound.unwrap() > 10_000, "{a:?}");
        // Irregular values to the end: no candidate.
        let v = synthetic(10_000, 4, 10_000, 6);
        assert_eq!(detect(&v, bound, 500).apparent(), None);
    }

    #[test]
    fn state_survives_serialisation() {
        let v = synthetic(2000, 5000, 20_000, 9);
        let b = Bound::of(&"0.4".parse().unwrap());
        let mut d = Detector::with_bound(b);
        d.feed(&v[..8000]);
        let text = serde_json::to_string(&d).unwrap();
        let mut e: Detector = serde_json::from_str(&text).unwrap();
        e.feed(&v);
        d.feed(&v);
        assert_eq!(e.proven(), d.proven());
        assert_eq!(e.proven().unwrap().period, 5000);
    }

    #[test]
    fn notation_dots_the_period_as_the_lecture_notes_do() {
        let p = |s, p| Period {
            period: p,
            preperiod: s,
            proven_at: 0,
            bound: None,
        };
        let text = |g: &[u32], s, q| notation(g, &p(s, q), 80, Notation::Text).unwrap();
        // Guiles, as the lecture notes print it: 0.\dot{1}10112212\dot{2}.
        let g: Vec<u32> = vec![0, 1, 1, 0, 1, 1, 2, 2, 1, 2, 2, 1, 1];
        assert_eq!(
            notation(&g, &p(1, 10), 80, Notation::Latex).unwrap(),
            "0.\\dot{1}10112212\\dot{2}"
        );
        assert_eq!(text(&g, 1, 10), "0.1\u{307}101122122\u{307}");
        // Preperiod 0: G(0) opens the period and is dotted.
        assert_eq!(text(&g, 0, 2), "0\u{307}.1\u{307}");
        // A period of one value has one dot.
        let g: Vec<u32> = vec![0, 1, 2, 2, 2];
        assert_eq!(text(&g, 2, 1), "0.12\u{307}");
        // Values of 10 and more in parentheses, dotted on the first digit.
        let g: Vec<u32> = vec![0, 12, 3, 12, 3];
        assert_eq!(text(&g, 1, 2), "0.(1\u{307}2)3\u{307}");
        assert_eq!(
            notation(&g, &p(1, 2), 80, Notation::Latex).unwrap(),
            "0.(\\dot{1}2)\\dot{3}"
        );
        // Too long for the limit (7 characters without the dots).
        assert_eq!(notation(&g, &p(1, 2), 6, Notation::Text), None);
        assert!(notation(&g, &p(1, 2), 7, Notation::Text).is_some());
    }
}
