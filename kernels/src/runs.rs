//! Far flags and checked runs: the rare pairs of a whole tile of heaps.
//!
//! A split of a heap of size `m` into `a + (m − a)` has value
//! `G(a) ⊕ G(m − a)`. For a rare heap `r` and the heaps `m` of a tile, the
//! partners `m − i − r` are consecutive, so the values `G(r) ⊕ G(…)` of a
//! whole tile form a run of the sequence XOR-ed with one constant. [`Runs`]
//! lists such runs and flags them into per-heap byte rows (or, for the
//! runs it *checks*, compares them with each row's few candidates).
//!
//! The vector paths take full groups of [`GROUP`] rows of u16 values on the
//! row widths the caller dispatches on; everything else takes the portable
//! loop, which is also the `scalar` path.

use std::any::TypeId;
use std::ops::Range;

#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{avx2, avx512};
use crate::isa::{self, Isa};
use crate::Value;

/// Runs of values to flag into the same rows (the far pairs of the sparse
/// engine, a tile of heaps at a time): run `(x, first..end, at)` sets
/// `flags[k * row + (x ⊕ g[at + k − first])] = 1` for every row `k` of
/// `first..end`. Each of the rows of `row` bytes records which option
/// values one heap has; a byte per value (rather than a bit) makes this a
/// plain store with no read-modify-write, which is what keeps it fast.
/// Runs over every row are kept apart from the others (the few cut short
/// by the end of the known values or by an equal split), which
/// [`Runs::flag`] clips to each group of rows.
#[derive(Debug, Default, Clone)]
pub struct Runs {
    len: usize,
    xs: Vec<u32>,
    starts: Vec<usize>,
    spans: Vec<Span>,
    /// Full runs that are checked, not flagged: see [`Runs::push_checked`].
    check_xs: Vec<u32>,
    check_starts: Vec<usize>,
}

/// Most candidates a row is checked for (see [`Runs::push_checked`]): the
/// vector check compares each run with this many values a row.
pub const CANDIDATES: usize = 12;

/// A run over some of the rows: see [`Runs`].
#[derive(Debug, Clone, Copy)]
struct Span {
    x: u32,
    first: usize,
    end: usize,
    at: usize,
}

/// Whether [`Runs::flag_checked`] checks whole groups of rows of `row`
/// bytes with vector compares on the current path, `low_bytes` saying
/// whether they would compare low bytes ([`Check::low_bytes`]): where they
/// do not pay, a checked run costs more than a flagged one, so callers
/// should not make them.
pub fn checks_pay<V: Value>(row: usize, low_bytes: bool) -> bool {
    checks_pay_on::<V>(isa::current(), row, low_bytes)
}

/// [`checks_pay`] on the path `isa`. Tuned per path (measured on an AMD
/// EPYC, Zen 4, `0.6`, alternating builds):
/// - AVX-512's check (32 rows a vector, 12 compares a run) costs less than
///   the flags it saves, on whole values and on low bytes;
/// - AVX2's pays on low bytes only, where the group's 32 rows fit one
///   vector of bytes (to 2·10^6, one thread: faster in 4 rounds of 4, by
///   0.4–3.5%; two threads level or faster). On whole values, two vectors
///   of 16 rows, it costs as much as the flags (to 10^6, one thread
///   1.54/1.42/1.44 s without against 1.66/1.47/1.47 s with);
/// - the portable check walks each row's bytes, which costs more;
/// - NEON's (8 rows a vector) is exact but untimed on an aarch64 machine,
///   so it is off there until it has been.
pub fn checks_pay_on<V: Value>(isa: Isa, row: usize, low_bytes: bool) -> bool {
    TypeId::of::<V>() == TypeId::of::<u16>()
        && matches!(row, 256 | 512 | 1024)
        && (isa == Isa::Avx512 || (isa == Isa::Avx2 && low_bytes))
}

/// Each row's candidates for a vector check (see [`Runs::flag_checked`]):
/// the first `check.candidates` open eligible values of each of the GROUP
/// rows of ROW bytes from `p`, by candidate then row (`u16::MAX` where a
/// row has fewer); a row that has them all has its limit in `lims`
/// lowered to the last. `zero_mask(q)` is the path's part: bit `i` set
/// where byte `q + i` is 0, for `i < 64`. Every vector check's candidate
/// loop; it takes 64 bytes (a word of the eligible set) a step and stops
/// at the last candidate. Inlined into the kernel, so `zero_mask` is the
/// kernel's own instructions (a loop made by an iterator's closure was a
/// call of its own, 2% of the samples of `.16` on AVX-512).
///
/// # Safety
/// `p` points to GROUP rows of ROW bytes; `zero_mask` may be called on any
/// 64 bytes of them.
#[inline(always)]
#[allow(dead_code)] // no vector check on other architectures
pub(crate) unsafe fn row_candidates<'e, const ROW: usize>(
    p: *const u8,
    check: &Check<impl Fn(usize) -> &'e [u64]>,
    lims: &mut [u32],
    zero_mask: impl Fn(*const u8) -> u64,
) -> [[u16; GROUP]; CANDIDATES] {
    let (eligible, candidates) = (&check.eligible, check.candidates);
    debug_assert!(lims.len() == GROUP && (1..=CANDIDATES).contains(&candidates));
    let mut cand = [[u16::MAX; GROUP]; CANDIDATES];
    for (t, lim) in lims.iter_mut().enumerate() {
        let r = p.add(t * ROW);
        let el = eligible(t);
        let mut c = 0;
        'row: for w in 0..ROW / 64 {
            let mut open = zero_mask(r.add(64 * w)) & el.get(w).copied().unwrap_or(0);
            while open != 0 {
                cand[c][t] = (64 * w + open.trailing_zeros() as usize) as u16;
                c += 1;
                if c == candidates {
                    *lim = (*lim).min(cand[c - 1][t] as u32);
                    break 'row;
                }
                open &= open - 1;
            }
        }
    }
    cand
}

/// Whether `isa` has vector far flags and checks ([`vector_groups`],
/// [`vector_check_group`]): every path but the portable one.
fn vector_path(isa: Isa) -> bool {
    matches!(isa, Isa::Avx512 | Isa::Avx2 | Isa::Neon)
}

/// How [`Runs::flag_checked`] takes each row's candidates and compares
/// the checked runs with them.
#[derive(Debug, Clone, Copy)]
pub struct Check<F> {
    /// Row `k`'s eligible values: a bitset, bit `v % 64` of word `v / 64`.
    pub eligible: F,
    /// Candidates a row, 1 to [`CANDIDATES`].
    pub candidates: usize,
    /// Compare values with candidates on their low 8 bits only (twice as
    /// fast). Exact when no value a checked run reaches in a row differs
    /// from one of the row's eligible values above bit 7 only: rows of at
    /// most 256 values, or eligible sets that a parity of bits including
    /// bit 8 defines (rows of 512) with run values all eligible.
    pub low_bytes: bool,
}

/// A [`Check`] and the limits it lowers.
struct RowChecks<'a, F> {
    check: &'a Check<F>,
    lims: &'a mut [u32],
}

/// No checked runs: nothing to check.
const NO_CHECK: Check<fn(usize) -> &'static [u64]> = Check {
    eligible: |_| &[],
    candidates: CANDIDATES,
    low_bytes: false,
};

impl Runs {
    /// Empties the list, for rows `0..len`.
    pub fn reset(&mut self, len: usize) {
        self.len = len;
        self.xs.clear();
        self.starts.clear();
        self.spans.clear();
        self.check_xs.clear();
        self.check_starts.clear();
    }

    /// Adds the run `x ⊕ g[at..]` over rows `rows` (within `0..len`; an
    /// empty range adds nothing).
    pub fn push(&mut self, x: u32, rows: Range<usize>, at: usize) {
        assert!(rows.end <= self.len, "Runs::push: rows past the end");
        if rows.start >= rows.end {
            return;
        }
        if rows.start == 0 && rows.end == self.len {
            self.xs.push(x);
            self.starts.push(at);
        } else {
            self.spans.push(Span {
                x,
                first: rows.start,
                end: rows.end,
                at,
            });
        }
    }

    /// Adds the run `x ⊕ g[at..]` over every row as one that is *checked*
    /// rather than flagged: [`Runs::flag_checked`] flags of its values only
    /// those among each row's candidates, the least values that every
    /// flagged run leaves open and that the row's eligible set holds. So a
    /// caller that needs only the least open eligible value of each row
    /// (the rare-class mex of the sparse engine) gets it exact at a few
    /// compares a pair instead of a store, as long as it lies at or below
    /// the row's limit (see there).
    pub fn push_checked(&mut self, x: u32, at: usize) {
        if self.len > 0 {
            self.check_xs.push(x);
            self.check_starts.push(at);
        }
    }

    /// The values of the checked runs in row `k`: for a caller whose row
    /// needs them past its limit.
    pub fn checked_values<'a, V: Value>(
        &'a self,
        k: usize,
        g: &'a [V],
    ) -> impl Iterator<Item = u32> + 'a {
        assert!(k < self.len, "Runs::checked_values: row past the end");
        (self.check_xs.iter().zip(&self.check_starts)).map(move |(&x, &at)| x ^ g[at + k].get())
    }

    /// Flags the runs' rows `rows` (within `0..len`) into `flags`, whose
    /// first row is row `rows.start` (rows of `row` bytes, a power of two
    /// above every `x ⊕ g[…]`): a list made once serves every tile of its
    /// rows. The list must have no checked runs.
    pub fn flag<V: Value>(&self, flags: &mut [u8], row: usize, g: &[V], rows: Range<usize>) {
        self.flag_on(isa::current(), flags, row, g, rows);
    }

    /// [`Runs::flag`] on the path `isa` (which the host must have).
    pub fn flag_on<V: Value>(
        &self,
        isa: Isa,
        flags: &mut [u8],
        row: usize,
        g: &[V],
        rows: Range<usize>,
    ) {
        assert!(self.check_xs.is_empty(), "Runs::flag: checked runs");
        self.flag_checked_on(isa, flags, row, g, rows, &NO_CHECK, &mut []);
    }

    /// [`Runs::flag`] with the checked runs too ([`Runs::push_checked`]).
    /// Once every other run has flagged row `k`, its candidates are the
    /// first `check.candidates` values `v` in increasing order whose byte
    /// is 0 and whose bit is set in `(check.eligible)(k)`. A candidate that
    /// some checked run reaches in row `k` is flagged (reaches: equal, or
    /// equal in the low byte with `check.low_bytes`); nothing else of
    /// theirs. When the row has all its candidates, `lims[k − rows.start]`
    /// is lowered to the last of them: every eligible value that a checked
    /// run reaches in the row and that is at most the row's limit is
    /// flagged (values with no candidate beyond them are: the row had
    /// fewer, or they come before the last). Without checked runs, `lims`
    /// and `check` are not used.
    pub fn flag_checked<'e, V: Value, F: Fn(usize) -> &'e [u64]>(
        &self,
        flags: &mut [u8],
        row: usize,
        g: &[V],
        rows: Range<usize>,
        check: &Check<F>,
        lims: &mut [u32],
    ) {
        self.flag_checked_on(isa::current(), flags, row, g, rows, check, lims);
    }

    /// [`Runs::flag_checked`] on the path `isa` (which the host must have).
    #[allow(clippy::too_many_arguments)]
    pub fn flag_checked_on<'e, V: Value, F: Fn(usize) -> &'e [u64]>(
        &self,
        isa: Isa,
        flags: &mut [u8],
        row: usize,
        g: &[V],
        rows: Range<usize>,
        check: &Check<F>,
        lims: &mut [u32],
    ) {
        isa::assert_on_host(isa);
        let len = self.len;
        assert!(
            rows.start <= rows.end && rows.end <= len,
            "Runs::flag: rows past the end"
        );
        assert!(
            flags.len() >= rows.len() * row,
            "Runs::flag: flags too short"
        );
        assert!(row.is_power_of_two(), "Runs::flag: row not a power of two");
        // Every path takes x ⊕ g within the row; the vector ones read x as
        // 16 bits. A run's x at or past the row is a caller's bug.
        let xs = self.xs.iter().chain(&self.check_xs);
        assert!(
            xs.chain(self.spans.iter().map(|s| &s.x))
                .all(|&x| (x as usize) < row),
            "Runs::flag: a run's x is not below the row"
        );
        for &start in self.starts.iter().chain(&self.check_starts) {
            assert!(start + len <= g.len(), "Runs::flag: run past the values");
        }
        for s in &self.spans {
            let end = s.at + (s.end - s.first);
            assert!(end <= g.len(), "Runs::flag: run past the values");
        }
        let checks = (!self.check_xs.is_empty()).then(|| {
            assert!(lims.len() >= rows.len(), "Runs::flag: lims too short");
            assert!(
                (1..=CANDIDATES).contains(&check.candidates),
                "Runs::flag: candidates out of range"
            );
            RowChecks { check, lims }
        });
        let base = flags.as_mut_ptr();
        // SAFETY (all arms): every row flagged is one of `rows`, inside
        // flags, and every run has its values in g (checked above).
        unsafe {
            match row {
                512 => self.flag_groups::<512, V>(isa, base, row, g, rows, checks),
                256 => self.flag_groups::<256, V>(isa, base, row, g, rows, checks),
                1024 => self.flag_groups::<1024, V>(isa, base, row, g, rows, checks),
                // `.16`'s rows (to 3·10^7, one thread, AMD EPYC Zen 5: avx2
                // 2.89 → 2.68 s, avx512 2.97 → 2.80 s).
                64 => self.flag_groups::<64, V>(isa, base, row, g, rows, checks),
                _ => self.flag_groups::<0, V>(isa, base, row, g, rows, checks),
            }
        }
    }

    /// Reference twin of [`Runs::flag`].
    pub fn flag_reference<V: Value>(
        &self,
        flags: &mut [u8],
        row: usize,
        g: &[V],
        rows: Range<usize>,
    ) {
        self.flag_checked_reference(flags, row, g, rows, &NO_CHECK, &mut []);
    }

    /// Reference twin of [`Runs::flag_checked`].
    pub fn flag_checked_reference<'e, V: Value, F: Fn(usize) -> &'e [u64]>(
        &self,
        flags: &mut [u8],
        row: usize,
        g: &[V],
        rows: Range<usize>,
        check: &Check<F>,
        lims: &mut [u32],
    ) {
        let full = (self.xs.iter().zip(&self.starts)).map(|(&x, &at)| (x, 0, self.len, at));
        let spans = self.spans.iter().map(|s| (s.x, s.first, s.end, s.at));
        for (x, first, end, at) in full.chain(spans) {
            for k in first.max(rows.start)..end.min(rows.end) {
                let v = x ^ g[at + k - first].get();
                flags[(k - rows.start) * row + v as usize] = 1;
            }
        }
        if !self.check_xs.is_empty() {
            for (j, k) in rows.clone().enumerate() {
                let r = &mut flags[j * row..(j + 1) * row];
                self.check_row(r, k, g, check, &mut lims[j]);
            }
        }
    }

    /// The checked runs of row `k` (bytes `r`, every other run flagged):
    /// see [`Runs::flag_checked`].
    fn check_row<'e, V: Value, F: Fn(usize) -> &'e [u64]>(
        &self,
        r: &mut [u8],
        k: usize,
        g: &[V],
        check: &Check<F>,
        lim: &mut u32,
    ) {
        let (eligible, candidates) = ((check.eligible)(k), check.candidates);
        let key = if check.low_bytes { 0xff } else { u32::MAX };
        let is_eligible = |v: usize| eligible.get(v / 64).is_some_and(|w| w >> (v % 64) & 1 == 1);
        let mut cand = [0u32; CANDIDATES];
        let mut c = 0;
        for v in (0..r.len()).filter(|&v| r[v] == 0 && is_eligible(v)) {
            if c == candidates {
                break;
            }
            cand[c] = v as u32;
            c += 1;
        }
        for (&x, &at) in self.check_xs.iter().zip(&self.check_starts) {
            let v = (x ^ g[at + k].get()) & key;
            for &c in cand[..c].iter().filter(|&&c| c & key == v) {
                r[c as usize] = 1;
            }
        }
        if c == candidates {
            *lim = (*lim).min(cand[c - 1]);
        }
    }

    /// The rows a group at a time, every run flagging into the group
    /// before the next: the stores of a group land in [`GROUP`] rows (16
    /// KiB of rows of 512, which stay in the L1 cache with the runs'
    /// values), where run by run over all rows each store strides a whole
    /// row. `ROW` is `row` when the caller dispatched on it (every store
    /// of a full run is then the group's base plus a constant), or 0.
    ///
    /// # Safety
    /// `base` must point to `rows.len()` writable rows of `row` bytes (a
    /// power of two), `rows` must lie within `0..len`, `g` must hold the
    /// values of every run, and the host must have `isa`.
    #[inline(always)]
    unsafe fn flag_groups<'e, const ROW: usize, V: Value>(
        &self,
        isa: Isa,
        base: *mut u8,
        row: usize,
        g: &[V],
        rows: Range<usize>,
        mut checks: Option<RowChecks<impl Fn(usize) -> &'e [u64]>>,
    ) {
        let row = if ROW == 0 { row } else { ROW };
        let mask = row - 1;
        // Whole groups of u16 values on a dispatched width go to the path's
        // vector code; the rest to the portable loop below.
        let vectors = ROW != 0 && TypeId::of::<V>() == TypeId::of::<u16>() && vector_path(isa);
        let g16 = g.as_ptr() as *const u16;
        // The stores of one run into one group: `q[t]` into row t from p.
        let group = move |p: *mut u8, x: u32, q: &[V]| {
            debug_assert!((x as usize) < row, "Runs::flag: x out of range");
            if vectors && q.len() == GROUP {
                // SAFETY: V is u16 (`vectors`), the host has isa, q has
                // GROUP values and each row t < GROUP from p is the caller's.
                unsafe { vector_groups::<ROW>(isa, p, &[x], &[0], q.as_ptr() as *const u16) };
                return;
            }
            // Values ≥ row would be a caller bug; masking keeps each store
            // in bounds (the tests pin the result to the reference twin).
            let store = move |t: usize, v: V| {
                // SAFETY: row t from p is one of the caller's rows (q has a
                // value for each), and the index is below row.
                unsafe { *p.add(t * row + (((x ^ v.get()) as usize) & mask)) = 1 }
            };
            if q.len() == GROUP {
                // Unrolled: each store is p plus a constant when ROW is one.
                for t in 0..GROUP {
                    // SAFETY: t < GROUP = q.len().
                    store(t, unsafe { *q.get_unchecked(t) });
                }
            } else {
                for (t, &v) in q.iter().enumerate() {
                    store(t, v);
                }
            }
        };
        for k in rows.clone().step_by(GROUP) {
            let end = rows.end.min(k + GROUP);
            // SAFETY: row k is one of `rows`, row k − rows.start of flags.
            let p = unsafe { base.add((k - rows.start) * row) };
            let vector = vectors && end - k == GROUP;
            if vector {
                // The full runs in one call (a call per run cost a fifth
                // of the stores' time on AVX-512).
                // SAFETY: V is u16 and the host has isa (`vectors`); each
                // run has the values k..end (start + len <= g.len(),
                // checked by the caller), and the GROUP rows from p are the
                // caller's.
                unsafe { vector_groups::<ROW>(isa, p, &self.xs, &self.starts, g16.add(k)) };
            } else if ROW != 0 && end - k == GROUP && self.xs.len() >= ROW_BATCH_MIN {
                // SAFETY: xs and starts have one length (push); each run
                // has the values k..end = k + GROUP (start + len <= g.len(),
                // checked by the caller), and the GROUP rows from p are the
                // caller's.
                unsafe { portable_groups::<ROW, V>(p, &self.xs, &self.starts, g, k) };
            } else {
                for (&x, &start) in self.xs.iter().zip(&self.starts) {
                    // SAFETY: start + len <= g.len() (checked by the caller).
                    group(p, x, unsafe { g.get_unchecked(start + k..start + end) });
                }
            }
            // A run cut short takes the unrolled path in every group it
            // covers (the band's runs cover most of theirs).
            for s in &self.spans {
                let (a, b) = (s.first.max(k), s.end.min(end));
                if a < b {
                    // SAFETY: row a is one of `rows` (below b), at or after k.
                    let p = unsafe { p.add((a - k) * row) };
                    group(p, s.x, &g[s.at + (a - s.first)..s.at + (b - s.first)]);
                }
            }
            // Every flagged run is in the group's rows: the checked ones
            // can take their candidates.
            if let Some(c) = &mut checks {
                let lims = &mut c.lims[k - rows.start..end - rows.start];
                let check = c.check;
                if vector {
                    let shifted = Check {
                        eligible: |t| (check.eligible)(k + t),
                        candidates: check.candidates,
                        low_bytes: check.low_bytes,
                    };
                    // SAFETY: as for the groups above; lims has a limit
                    // for each of the GROUP rows.
                    unsafe {
                        vector_check_group::<ROW>(
                            isa,
                            p,
                            &self.check_xs,
                            &self.check_starts,
                            g16.add(k),
                            &shifted,
                            lims,
                        )
                    };
                    continue;
                }
                for (t, lim) in lims.iter_mut().enumerate() {
                    // SAFETY: row k + t is one of `rows`, t rows from p.
                    let r = unsafe { std::slice::from_raw_parts_mut(p.add(t * row), row) };
                    self.check_row(r, k + t, g, check, lim);
                }
            }
        }
    }
}

/// Every run `(xs[j], g[starts[j] + k..])` into a full group of rows, on
/// the portable path: each run's 32 offsets made in a loop, and stored by
/// [`store_runs`], as the vector paths do.
///
/// # Safety
/// `xs` and `starts` have one length; each `starts[j] + k + GROUP ≤
/// g.len()`; `p` points to GROUP writable rows of ROW bytes
/// (`ROW · GROUP ≤ 65536`).
#[inline(always)]
unsafe fn portable_groups<const ROW: usize, V: Value>(
    p: *mut u8,
    xs: &[u32],
    starts: &[usize],
    g: &[V],
    k: usize,
) {
    const { assert!(ROW * GROUP <= 1 << 16) };
    debug_assert_eq!(xs.len(), starts.len());
    store_runs(p, xs.len(), |j, o| {
        // SAFETY: starts[j] + k + GROUP ≤ g.len() (the caller's contract).
        let q = g.get_unchecked(starts[j] + k..starts[j] + k + GROUP);
        for (t, &v) in q.iter().enumerate() {
            *o.add(t) = (t * ROW + ((xs[j] ^ v.get()) as usize & (ROW - 1))) as u16;
        }
    });
}

/// Every run `(xs[j], g + starts[j])` into a full group of rows on the
/// vector path `isa`: byte `t · ROW + ((xs[j] ⊕ q[t]) mod ROW)` from `p`
/// set to 1, for each `t < GROUP`, where `q = g + starts[j]`.
///
/// # Safety
/// The host has `isa`, a vector path; each `g + starts[j]` points to GROUP
/// values, and `p` to GROUP writable rows of ROW bytes.
#[inline(always)]
unsafe fn vector_groups<const ROW: usize>(
    isa: Isa,
    p: *mut u8,
    xs: &[u32],
    starts: &[usize],
    g: *const u16,
) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => avx512::runs::groups::<ROW>(p, xs, starts, g),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => avx2::runs::groups::<ROW>(p, xs, starts, g),
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => crate::arch::aarch64::neon::runs::groups::<ROW>(p, xs, starts, g),
        _ => unreachable!("no vector groups on the {isa} path"),
    }
}

/// The checked runs of a full group of rows on the vector path `isa` (see
/// [`Runs::flag_checked`]).
///
/// # Safety
/// As for [`vector_groups`], for every checked run; `lims` has GROUP
/// limits; `vector_path(isa)`.
#[inline(always)]
unsafe fn vector_check_group<'e, const ROW: usize>(
    isa: Isa,
    p: *mut u8,
    xs: &[u32],
    starts: &[usize],
    g: *const u16,
    check: &Check<impl Fn(usize) -> &'e [u64]>,
    lims: &mut [u32],
) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if check.low_bytes && !isa::features().avx512_vbmi => {
            // The low bytes need VBMI's byte permutes: AVX2 on chips
            // without them (Skylake-SP, Cascade Lake). The avx512
            // features include the avx2 ones (isa::Features::avx512).
            avx2::runs::check_group::<ROW>(p, xs, starts, g, check, lims)
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => avx512::runs::check_group::<ROW>(p, xs, starts, g, check, lims),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => avx2::runs::check_group::<ROW>(p, xs, starts, g, check, lims),
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => {
            crate::arch::aarch64::neon::runs::check_group::<ROW>(p, xs, starts, g, check, lims)
        }
        _ => unreachable!("no vector checks on the {isa} path"),
    }
}

/// Runs whose offsets [`flag_rows`] takes at a time: a batch's offsets
/// (64 runs × 32 rows × 2 bytes, 4 KiB) stay in the L1 cache. The batch
/// is not zeroed before each call (a 4 KiB memset a call cost `0.6` 4% on
/// AVX2): only the entries written are read.
pub(crate) const ROW_BATCH: usize = 64;

/// Fewer runs than this in a call are stored run by run
/// (`crate::arch::flag_offsets`), not through [`flag_rows`]: a call with one
/// run (a run cut short at a tile's edge, the most frequent call on two
/// threads) row by row is 32 loops of one store, and through the batch
/// it cost `0.6` 2–3% on two threads (AMD EPYC Zen 5, `OCTAL_ISA=avx2`,
/// to 10^7).
pub(crate) const ROW_BATCH_MIN: usize = 8;

/// Stores `n` runs' offsets into a group of rows: `fill(j, o)` writes run
/// `j`'s 32 offsets (one per row, each below `GROUP · ROW`) to `o`. A call
/// of at least [`ROW_BATCH_MIN`] runs goes through a batch, row by row
/// ([`flag_rows`]); fewer are stored run by run
/// (`crate::arch::flag_offsets`). Every path's far flags of full groups
/// end here; each path makes the offsets its own way.
///
/// # Safety
/// `fill` must write all 32 offsets, and every `p + o[t]` must be
/// writable.
#[inline(always)]
pub(crate) unsafe fn store_runs(p: *mut u8, n: usize, mut fill: impl FnMut(usize, *mut u16)) {
    if n < ROW_BATCH_MIN {
        for j in 0..n {
            let mut o = [0u64; GROUP / 4];
            fill(j, o.as_mut_ptr() as *mut u16);
            crate::arch::flag_offsets(p, &o);
        }
        return;
    }
    // Not zeroed (see `ROW_BATCH`).
    let mut batch = [std::mem::MaybeUninit::<[u16; GROUP]>::uninit(); ROW_BATCH];
    for j0 in (0..n).step_by(ROW_BATCH) {
        let m = ROW_BATCH.min(n - j0);
        for (j, o) in batch[..m].iter_mut().enumerate() {
            fill(j0 + j, o.as_mut_ptr() as *mut u16);
        }
        // SAFETY: the loop above wrote the first m entries (fill's
        // contract), each an offset inside the caller's rows.
        flag_rows(
            p,
            std::slice::from_raw_parts(batch.as_ptr() as *const [u16; GROUP], m),
        );
    }
}

/// Sets byte `p[o[t]] = 1` for every offset of `offsets` (a run's 32
/// offsets each, one per row `t` of a group), row by row: every run's
/// store into row 0, then into row 1, …. Made run by run, the stores
/// stride the whole group (16 KiB of rows of 512); row by row, 64 in a
/// row land in one row of a few hundred bytes, which the L1 cache takes
/// faster (AMD EPYC Zen 5: 5.4 against 4.0 G flags a second on rows of
/// 512, measured apart from the engine; at 32 runs a batch, no gain).
/// See [`store_runs`].
///
/// # Safety
/// Every `p + o[t]` must be writable.
#[inline(always)]
pub(crate) unsafe fn flag_rows(p: *mut u8, offsets: &[[u16; GROUP]]) {
    for t in 0..GROUP {
        for o in offsets {
            *p.add(*o.get_unchecked(t) as usize) = 1;
        }
    }
}

/// Rows of [`Runs::flag`] filled at a time. Measured on 0.6 (rows of 512,
/// 1,583 runs a tile): groups of 16 and 32 rows 8% and 16% faster than run
/// by run, 64 slower again.
pub const GROUP: usize = 32;
#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn runs_match_scalar(
            g in proptest::collection::vec(any::<u16>(), 1..300),
            // A few runs (calls below `ROW_BATCH_MIN`) as often as many
            // (past two batches of full runs, `ROW_BATCH`, and a part).
            runs in prop_oneof![
                proptest::collection::vec(
                    (any::<u32>(), any::<usize>(), any::<usize>(), any::<usize>(), any::<bool>()),
                    0..20,
                ),
                proptest::collection::vec(
                    (any::<u32>(), any::<usize>(), any::<usize>(), any::<usize>(), any::<bool>()),
                    20..300,
                ),
            ],
            len_pick in any::<usize>(),
            row_pick in 0usize..5,
            (cut, cut2) in (any::<usize>(), any::<usize>()),
        ) {
            // The widths the kernel dispatches on, and one it does not.
            let row = [64, 128, 256, 512, 1024][row_pick];
            let g: Vec<u16> = g.iter().map(|&v| v % row as u16).collect();
            let len = len_pick % (g.len() + 1);
            let mut list = Runs::default();
            list.reset(len);
            for (x, a, b, at, full) in runs {
                let (a, b) = (a % (len + 1), b % (len + 1));
                let (first, end) = if full { (0, len) } else { (a.min(b), a.max(b)) };
                let at = at % (g.len() - (end - first) + 1);
                list.push(x % row as u32, first..end, at);
            }
            // All the rows, or a window of them (as a tile is flagged).
            let (a0, a1) = (cut % (len + 1), cut2 % (len + 1));
            for rows in [0..len, a0.min(a1)..a0.max(a1)] {
                let mut b = vec![0u8; rows.len() * row];
                list.flag_reference(&mut b, row, &g, rows.clone());
                for isa in isa::available() {
                    let mut a = vec![0u8; rows.len() * row];
                    list.flag_on(isa, &mut a, row, &g, rows.clone());
                    prop_assert_eq!(&a, &b, "{}", isa);
                }
            }
        }

        #[test]
        fn checked_runs_match_scalar_and_keep_the_least_open_value(
            g in proptest::collection::vec(any::<u16>(), 1..400),
            runs in proptest::collection::vec(
                (any::<u32>(), any::<usize>(), any::<usize>(), any::<usize>(), 0u8..3),
                0..60,
            ),
            len_pick in any::<usize>(),
            row_pick in 0usize..4,
            spread in 0usize..3,
            classes in (any::<u64>(), any::<u64>(), any::<bool>()),
            candidates in 1usize..=CANDIDATES,
            low_bytes in any::<bool>(),
            (cut, cut2) in (any::<usize>(), any::<usize>()),
        ) {
            let row = [64, 256, 512, 1024][row_pick];
            // Values packed low (many pairs reach the candidates) or spread.
            let top = [16, 64, row][spread] as u16;
            let g: Vec<u16> = g.iter().map(|&v| v % top).collect();
            let len = len_pick % (g.len() + 1);
            // Two eligible sets, for even and odd rows (the two classes of
            // the sparse engine), or one for every row.
            let words = row / 64;
            let class = |seed: u64| -> Vec<u64> {
                (0..words as u64).map(|w| seed.rotate_left(w as u32 * 7) | 1).collect()
            };
            let (even, odd) = (class(classes.0), class(classes.1));
            let check = Check {
                eligible: |k: usize| -> &[u64] {
                    if classes.2 && k % 2 == 1 { &odd } else { &even }
                },
                candidates,
                low_bytes,
            };
            let mut list = Runs::default();
            let mut all = Runs::default();
            list.reset(len);
            all.reset(len);
            for (x, a, b, at, kind) in runs {
                let x = x % top as u32;
                let (a, b) = (a % (len + 1), b % (len + 1));
                let (first, end) = if kind > 0 { (0, len) } else { (a.min(b), a.max(b)) };
                let at = at % (g.len() - (end - first) + 1);
                if kind == 2 {
                    list.push_checked(x, at);
                } else {
                    list.push(x, first..end, at);
                }
                all.push(x, first..end, at);
            }
            let (a0, a1) = (cut % (len + 1), cut2 % (len + 1));
            for rows in [0..len, a0.min(a1)..a0.max(a1)] {
                let mut b = vec![0u8; rows.len() * row];
                let mut full = b.clone();
                let mut lims_b = vec![u32::MAX; rows.len()];
                list.flag_checked_reference(&mut b, row, &g, rows.clone(), &check, &mut lims_b);
                // Every path the host has, against the twin.
                let (mut a, mut lims_a) = (b.clone(), lims_b.clone());
                for isa in isa::available() {
                    a.fill(0);
                    lims_a.fill(u32::MAX);
                    list.flag_checked_on(isa, &mut a, row, &g, rows.clone(), &check, &mut lims_a);
                    prop_assert_eq!(&a, &b, "{}", isa);
                    prop_assert_eq!(&lims_a, &lims_b, "{}", isa);
                }
                if low_bytes && row > 256 {
                    // Random runs break the condition that makes low bytes
                    // exact: only the twins are compared.
                    continue;
                }
                // Against every run flagged: nothing more is flagged, and
                // the least open eligible value is the same where it is at
                // most the row's limit.
                all.flag(&mut full, row, &g, rows.clone());
                for (j, k) in rows.clone().enumerate() {
                    let (r, f) = (&a[j * row..(j + 1) * row], &full[j * row..(j + 1) * row]);
                    prop_assert!(r.iter().zip(f).all(|(&x, &y)| x <= y));
                    let el = (check.eligible)(k);
                    let least = |r: &[u8]| (0..row).find(|&v| r[v] == 0 && el[v / 64] >> (v % 64) & 1 == 1);
                    let (got, want) = (least(r), least(f));
                    if got.is_none_or(|v| v as u32 <= lims_a[j]) {
                        prop_assert_eq!(got, want);
                    }
                }
            }
        }

        #[test]
        fn a_run_flags_one_value_a_row(
            run in proptest::collection::vec(0u16..512, 0..100),
            x in 0u32..512,
            first_pick in any::<usize>(),
        ) {
            let row = 512;
            let first = first_pick % (run.len() + 1);
            let mut list = Runs::default();
            list.reset(run.len());
            list.push(x, first..run.len(), 0);
            let mut a = vec![0u8; run.len() * row];
            list.flag_reference(&mut a, row, &run, 0..run.len());
            for k in 0..run.len() {
                let set: Vec<usize> = (0..row).filter(|&j| a[k * row + j] != 0).collect();
                let want = if k < first { vec![] } else { vec![(x ^ run[k - first] as u32) as usize] };
                prop_assert_eq!(set, want);
            }
        }
    }
}
