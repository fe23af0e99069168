//! Pair scans over a Grundy sequence: the inner loops of every engine.
//!
//! A split of a heap of size `m` into `a + (m − a)` has value
//! `G(a) ⊕ G(m − a)`, so the engines keep XOR-ing a run of the sequence
//! against a *reversed* run of it. [`Runs`] marks the values
//! `x ⊕ run[k]` in per-heap flag rows (the rare-pair enumeration of the
//! sparse engine); [`or_pair_xors`] collects the values of a whole diagonal
//! (the diagonal method); `witness.rs` strikes values out of a set.
//!
//! Each kernel has a scalar twin (`*_scalar`) that the SIMD path must match;
//! the tests below pin them equal on random inputs.

use std::any::TypeId;
use std::ops::Range;

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
/// bytes with vector compares: without, a checked run costs more than a
/// flagged one, so callers should not make them.
pub fn checks_pay<V: Value>(row: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        TypeId::of::<V>() == TypeId::of::<u16>()
            && matches!(row, 256 | 512 | 1024)
            && avx512::group_available()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = row;
        false
    }
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
        assert!(self.check_xs.is_empty(), "Runs::flag: checked runs");
        self.flag_checked(flags, row, g, rows, &NO_CHECK, &mut []);
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
                512 => self.flag_groups::<512, V>(base, row, g, rows, checks),
                256 => self.flag_groups::<256, V>(base, row, g, rows, checks),
                1024 => self.flag_groups::<1024, V>(base, row, g, rows, checks),
                _ => self.flag_groups::<0, V>(base, row, g, rows, checks),
            }
        }
    }

    /// Scalar twin of [`Runs::flag`].
    pub fn flag_scalar<V: Value>(&self, flags: &mut [u8], row: usize, g: &[V], rows: Range<usize>) {
        self.flag_checked_scalar(flags, row, g, rows, &NO_CHECK, &mut []);
    }

    /// Scalar twin of [`Runs::flag_checked`].
    pub fn flag_checked_scalar<'e, V: Value, F: Fn(usize) -> &'e [u64]>(
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
    /// power of two), `rows` must lie within `0..len`, and `g` must hold
    /// the values of every run.
    #[inline(always)]
    unsafe fn flag_groups<'e, const ROW: usize, V: Value>(
        &self,
        base: *mut u8,
        row: usize,
        g: &[V],
        rows: Range<usize>,
        mut checks: Option<RowChecks<impl Fn(usize) -> &'e [u64]>>,
    ) {
        let row = if ROW == 0 { row } else { ROW };
        let mask = row - 1;
        #[cfg(target_arch = "x86_64")]
        let wide = TypeId::of::<V>() == TypeId::of::<u16>() && avx512::group_available();
        #[cfg(target_arch = "x86_64")]
        let narrow = wide && avx512::available();
        // The stores of one run into one group: `q[t]` into row t from p.
        let group = |p: *mut u8, x: u32, q: &[V]| {
            debug_assert!((x as usize) < row, "Runs::flag: x out of range");
            // Values ≥ row would be a caller bug; masking keeps each store
            // in bounds (the tests pin the result to the scalar twin).
            let store = |t: usize, v: V| {
                // SAFETY: row t from p is one of the caller's rows (q has a
                // value for each), and the index is below row.
                unsafe { *p.add(t * row + (((x ^ v.get()) as usize) & mask)) = 1 }
            };
            #[cfg(target_arch = "x86_64")]
            if ROW != 0 && wide && q.len() == GROUP {
                // SAFETY: V is u16 and AVX-512 BW is present (`wide`); q
                // has GROUP values, each row t < GROUP is the caller's.
                unsafe { avx512::group::<ROW>(p, x, q.as_ptr() as *const u16) };
                return;
            }
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
            #[cfg(target_arch = "x86_64")]
            let vector = ROW != 0 && wide && end - k == GROUP;
            #[cfg(not(target_arch = "x86_64"))]
            let vector = false;
            if vector {
                // The full runs in one call (a call per run cost a fifth
                // of the stores' time).
                // SAFETY: V is u16 and AVX-512 BW is present (`wide`); each
                // run has the values k..end (start + len <= g.len(),
                // checked by the caller), and the GROUP rows from p are the
                // caller's.
                #[cfg(target_arch = "x86_64")]
                unsafe {
                    let g = (g.as_ptr() as *const u16).add(k);
                    avx512::groups::<ROW>(p, &self.xs, &self.starts, g);
                }
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
                #[cfg(target_arch = "x86_64")]
                if vector && (!check.low_bytes || narrow) {
                    // SAFETY: as for the groups above; lims has a limit
                    // for each of the GROUP rows; with low bytes, VBMI is
                    // present (`narrow`).
                    unsafe {
                        let g = (g.as_ptr() as *const u16).add(k);
                        let shifted = Check {
                            eligible: |t| (check.eligible)(k + t),
                            candidates: check.candidates,
                            low_bytes: check.low_bytes,
                        };
                        avx512::check_group::<ROW>(
                            p,
                            &self.check_xs,
                            &self.check_starts,
                            g,
                            &shifted,
                            lims,
                        );
                    }
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

/// Sets byte `p[o] = 1` for every 16-bit offset `o` packed four to a word
/// in `offsets` (as a vector store leaves them): taken out four at a time
/// through a general register, where extracting lane by lane costs two
/// uops an offset, one of them on the shuffle port (measured on the far
/// flags of 0.6: 0.92 of the time), and reloading each from memory more.
///
/// # Safety
/// Every `p + o` must be writable.
#[inline(always)]
unsafe fn flag_offsets(p: *mut u8, offsets: &[u64]) {
    for &w in offsets {
        *p.add((w & 0xffff) as usize) = 1;
        *p.add((w >> 16 & 0xffff) as usize) = 1;
        *p.add((w >> 32 & 0xffff) as usize) = 1;
        *p.add((w >> 48) as usize) = 1;
    }
}

/// Rows of [`Runs::flag`] filled at a time. Measured on 0.6 (rows of 512,
/// 1,583 runs a tile): groups of 16 and 32 rows 8% and 16% faster than run
/// by run, 64 slower again.
const GROUP: usize = 32;

/// For every `k < lo.len()`: `row[lo[k] ⊕ hi[hi.len() − 1 − k]] = 1`.
///
/// The split values of one heap, flagged in its row (`row.len()` a power
/// of two above every XOR). `lo` and `hi` have the same length.
#[inline]
pub fn flag_pairs<V: Value>(row: &mut [u8], lo: &[V], hi: &[V]) {
    let or = flag_pairs_or(row, lo, hi);
    debug_assert!((or as usize) < row.len(), "flag_pairs: XOR out of range");
}

/// [`flag_pairs`], returning the OR of every XOR (so a caller can check
/// cheaply that all of them were below `row.len()`: above, they were
/// wrapped into the row, never written outside it).
fn flag_pairs_or<V: Value>(row: &mut [u8], lo: &[V], hi: &[V]) -> u32 {
    assert_eq!(lo.len(), hi.len(), "flag_pairs: runs of different lengths");
    assert!(
        row.len().is_power_of_two(),
        "flag_pairs: row not a power of two"
    );
    #[cfg(target_arch = "x86_64")]
    {
        if lo.len() >= 32
            && row.len() <= 1 << 16
            && TypeId::of::<V>() == TypeId::of::<u16>()
            && std::arch::is_x86_feature_detected!("avx2")
        {
            // SAFETY: V is u16 (checked above); AVX2 is present.
            return unsafe {
                let lo = std::slice::from_raw_parts(lo.as_ptr() as *const u16, lo.len());
                let hi = std::slice::from_raw_parts(hi.as_ptr() as *const u16, hi.len());
                avx2::flag_pairs_u16(row, lo, hi) as u32
            };
        }
    }
    let mask = row.len() - 1;
    let base = row.as_mut_ptr();
    let mut or = 0;
    for (a, b) in lo.iter().zip(hi.iter().rev()) {
        let x = a.get() ^ b.get();
        or |= x;
        // SAFETY: masked below row.len().
        unsafe { *base.add(x as usize & mask) = 1 };
    }
    or
}

/// Scalar twin of [`flag_pairs`].
pub fn flag_pairs_scalar<V: Value>(row: &mut [u8], lo: &[V], hi: &[V]) {
    for (a, b) in lo.iter().zip(hi.iter().rev()) {
        row[(a.get() ^ b.get()) as usize] = 1;
    }
}

/// For every `j < xs.len()`: `row[xs[j] ⊕ g[top − rs[j]]] = 1`.
///
/// The pairs of one heap with a list of (rare) heaps `rs` whose values are
/// `xs`: the partner of `rs[j]` is `top − rs[j]`. Every `rs[j]` must be in
/// `1..=top`, `top ≤ g.len()`, and every XOR below `row.len()`, a power of
/// two. The row is indexed through that mask, without a bounds check, and
/// the partner with one compare: the gain over the twin.
#[inline]
pub fn flag_xor_gather<V: Value>(row: &mut [u8], xs: &[u32], rs: &[usize], g: &[V], top: usize) {
    assert_eq!(
        xs.len(),
        rs.len(),
        "flag_xor_gather: lists of different lengths"
    );
    assert!(
        row.len().is_power_of_two(),
        "flag_xor_gather: row not a power of two"
    );
    let mask = row.len() - 1;
    let g = &g[..top];
    for (&x, &r) in xs.iter().zip(rs) {
        // Heaps outside 1..=top index past g (wrapping) and panic.
        let v = g[top.wrapping_sub(r)].get();
        let j = ((x ^ v) as usize) & mask;
        debug_assert_eq!(j, (x ^ v) as usize);
        row[j] = 1;
    }
}

/// [`flag_xor_gather`] for a row of at most 64 values, kept in a register:
/// returns the bits `xs[j] ⊕ g[top − rs[j]]` (each below 64) set.
#[inline]
pub fn xor_gather_bits<V: Value>(xs: &[u32], rs: &[usize], g: &[V], top: usize) -> u64 {
    assert_eq!(
        xs.len(),
        rs.len(),
        "xor_gather_bits: lists of different lengths"
    );
    let g = &g[..top];
    // Two accumulators, so that consecutive ORs do not wait for each other.
    let (mut a, mut b) = (0u64, 0u64);
    let mut pairs = xs.chunks_exact(2).zip(rs.chunks_exact(2));
    for (x, r) in &mut pairs {
        // Heaps outside 1..=top index past g (wrapping) and panic.
        a |= 1 << ((x[0] ^ g[top.wrapping_sub(r[0])].get()) & 63);
        b |= 1 << ((x[1] ^ g[top.wrapping_sub(r[1])].get()) & 63);
    }
    if xs.len() % 2 == 1 {
        let j = xs.len() - 1;
        a |= 1 << ((xs[j] ^ g[top.wrapping_sub(rs[j])].get()) & 63);
    }
    a | b
}

/// Scalar twin of [`flag_xor_gather`].
pub fn flag_xor_gather_scalar<V: Value>(
    row: &mut [u8],
    xs: &[u32],
    rs: &[usize],
    g: &[V],
    top: usize,
) {
    for (&x, &r) in xs.iter().zip(rs) {
        row[(x ^ g[top - r].get()) as usize] = 1;
    }
}

/// Largest set (in values) whose bitset the AVX-512 path of
/// [`or_pair_xors`] keeps in (up to 32) registers; beyond, byte rows. At
/// 16384 values the tables spill, and are still about 2× faster than
/// byte rows (measured on the 10^5 values of 0.333337).
pub const REGISTER_SET_MAX: usize = 16384;

/// For every `k < lo.len()`: sets bit `lo[k] ⊕ hi[hi.len() − 1 − k]` of
/// `bits` (bit `v` is bit `v % 64` of `bits[v / 64]`).
///
/// The values of all the splits along one diagonal, as a set: `lo` and
/// `hi` have the same length, `bits.len()` is a power of two and every XOR
/// must be below `64 · bits.len()` (else this panics; `bits` is then left
/// with wrapped values, never written out of bounds). `bytes` is scratch.
///
/// With AVX-512 and a set of at most [`REGISTER_SET_MAX`] values, the set
/// itself sits in registers as lookup tables: each batch of 32 XORs is
/// looked up there and only values not yet in the set are written (to a
/// list applied and reloaded every chunk). After the first few thousand
/// pairs almost every value is known, so this costs a few vector
/// instructions per 32 pairs instead of a store per pair. Otherwise every
/// pair is a byte store in a row (no read-modify-write), packed at the end.
pub fn or_pair_xors<V: Value>(bits: &mut [u64], lo: &[V], hi: &[V], bytes: &mut Vec<u8>) {
    assert_eq!(
        lo.len(),
        hi.len(),
        "or_pair_xors: runs of different lengths"
    );
    assert!(
        bits.len().is_power_of_two(),
        "or_pair_xors: bits not a power of two"
    );
    let bound = 64 * bits.len();
    #[cfg(target_arch = "x86_64")]
    {
        if lo.len() >= 256
            && bound <= REGISTER_SET_MAX
            && TypeId::of::<V>() == TypeId::of::<u16>()
            && avx512::available()
        {
            // SAFETY: V is u16 (checked above); the features are present.
            let or = unsafe {
                let lo = std::slice::from_raw_parts(lo.as_ptr() as *const u16, lo.len());
                let hi = std::slice::from_raw_parts(hi.as_ptr() as *const u16, hi.len());
                avx512::or_pair_xors(bits, lo, hi)
            };
            assert!((or as usize) < bound, "or_pair_xors: XOR {or} out of range");
            return;
        }
    }
    if lo.len() < bound / 4 {
        // Short runs: fewer bit updates than a row would cost to clear.
        or_pair_xors_scalar(bits, lo, hi);
        return;
    }
    bytes.clear();
    bytes.resize(bound, 0);
    let or = flag_pairs_or(bytes, lo, hi);
    assert!((or as usize) < bound, "or_pair_xors: XOR {or} out of range");
    for (w, row) in bits.iter_mut().zip(bytes.chunks_exact(64)) {
        let mut m = 0u64;
        for (j, &b) in row.iter().enumerate() {
            m |= ((b != 0) as u64) << j;
        }
        *w |= m;
    }
}

/// Scalar twin of [`or_pair_xors`].
pub fn or_pair_xors_scalar<V: Value>(bits: &mut [u64], lo: &[V], hi: &[V]) {
    assert_eq!(
        lo.len(),
        hi.len(),
        "or_pair_xors: runs of different lengths"
    );
    for (a, b) in lo.iter().zip(hi.iter().rev()) {
        let v = (a.get() ^ b.get()) as usize;
        bits[v / 64] |= 1 << (v % 64);
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// Pairs per chunk at most, between two reloads of the tables.
    const CHUNK: usize = 2048;
    /// Pairs in the first chunk (where most values are new).
    const FIRST_CHUNK: usize = 128;
    /// A chunk with fewer new values than one per this many pairs makes
    /// the next one take the branchy loop.
    const QUIET: usize = 256;
    /// Pairs per batch: two vectors of 32 XORs, looked up as 64 bytes.
    const BATCH: usize = 64;

    pub fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("avx512vbmi2")
            && std::arch::is_x86_feature_detected!("avx512bitalg")
            && std::arch::is_x86_feature_detected!("popcnt")
    }

    /// Whether [`group`] may run.
    pub fn group_available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
    }

    /// One run into a group of rows (see `Runs::flag_groups`): byte
    /// `t · ROW + ((x ⊕ q[t]) mod ROW)` from `p` set to 1, for each
    /// `t < GROUP`. The 32 offsets are made at once in a vector (they fit
    /// in 16 bits: `GROUP · ROW ≤ 32768`) and stored by
    /// [`super::flag_offsets`], leaving about a shift and a store per flag
    /// where the scalar loop loads, XORs, masks and stores.
    ///
    /// # Safety
    /// `q` must point to GROUP values and `p` to GROUP rows of ROW bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn group<const ROW: usize>(p: *mut u8, x: u32, q: *const u16) {
        const { assert!(super::GROUP == 32 && ROW * super::GROUP <= 1 << 16) };
        let v = _mm512_loadu_si512(q as *const _);
        let off = _mm512_loadu_si512(ROW_OFFSETS.as_ptr() as *const _);
        let shift = ROW.trailing_zeros();
        // ((x ⊕ v) & (ROW − 1)) + t · ROW, with t · ROW = (t << shift).
        let idx = _mm512_ternarylogic_epi32::<0xf8>(
            _mm512_sllv_epi16(off, _mm512_set1_epi16(shift as i16)),
            _mm512_xor_si512(v, _mm512_set1_epi16(x as u16 as i16)),
            _mm512_set1_epi16((ROW - 1) as i16),
        );
        let mut offsets = [0u64; 8];
        _mm512_storeu_si512(offsets.as_mut_ptr() as *mut _, idx);
        super::flag_offsets(p, &offsets);
    }

    /// [`group`] for every run `(xs[j], g + starts[j])`.
    ///
    /// # Safety
    /// As for [`group`], for every run; `xs` and `starts` of one length.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn groups<const ROW: usize>(
        p: *mut u8,
        xs: &[u32],
        starts: &[usize],
        g: *const u16,
    ) {
        for (&x, &start) in xs.iter().zip(starts) {
            group::<ROW>(p, x, g.add(start));
        }
    }

    /// The checked runs of a group of rows (see `Runs::flag_checked`):
    /// each row's candidates are found 64 bytes at a time, then each run's
    /// 32 values are compared with the k-th candidate of every row at
    /// once, [`super::CANDIDATES`] compares a run (unused ones never
    /// match), and the candidates reached are flagged at the end.
    ///
    /// # Safety
    /// As for [`group`], for every run; `lims` has GROUP limits; with
    /// `check.low_bytes`, AVX-512 VBMI must be present.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn check_group<'e, const ROW: usize>(
        p: *mut u8,
        xs: &[u32],
        starts: &[usize],
        g: *const u16,
        check: &super::Check<impl Fn(usize) -> &'e [u64]>,
        lims: &mut [u32],
    ) {
        let (eligible, candidates) = (&check.eligible, check.candidates);
        const K: usize = super::CANDIDATES;
        debug_assert!(lims.len() == super::GROUP && (1..=K).contains(&candidates));
        let mut cand = [[u16::MAX; super::GROUP]; K];
        for (t, lim) in lims.iter_mut().enumerate() {
            let r = p.add(t * ROW);
            let el = eligible(t);
            let mut c = 0;
            'row: for w in 0..ROW / 64 {
                let bytes = _mm512_loadu_si512(r.add(64 * w) as *const _);
                let mut open =
                    _mm512_testn_epi8_mask(bytes, bytes) & el.get(w).copied().unwrap_or(0);
                while open != 0 {
                    if c == candidates {
                        break 'row;
                    }
                    cand[c][t] = (64 * w) as u16 + open.trailing_zeros() as u16;
                    c += 1;
                    open &= open - 1;
                }
            }
            if c == candidates {
                *lim = (*lim).min(cand[c - 1][t] as u32);
            }
        }
        let hits = if check.low_bytes {
            narrow_hits(&cand, xs, starts, g)
        } else {
            wide_hits(&cand, xs, starts, g)
        };
        for (j, mut h) in hits.into_iter().enumerate() {
            while h != 0 {
                let t = h.trailing_zeros() as usize;
                *p.add(t * ROW + cand[j][t] as usize) = 1;
                h &= h - 1;
            }
        }
    }

    /// Which rows each checked run reaches the j-th candidate of (bit t
    /// for row t), runs `(xs[i], g + starts[i])`, candidates `cand[j][t]`
    /// (u16::MAX where the row has none): 32 rows a vector. Lane t of
    /// `near[j]` is the least `value ⊕ candidate` over the runs, 0 where
    /// one reaches it. (Two vector operations a compare and no mask
    /// registers: compares into masks, OR-ed through general registers,
    /// took 2.5× as long in a microbenchmark.)
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn wide_hits(
        cand: &[[u16; super::GROUP]; super::CANDIDATES],
        xs: &[u32],
        starts: &[usize],
        g: *const u16,
    ) -> [u32; super::CANDIDATES] {
        let cv: [__m512i; super::CANDIDATES] =
            std::array::from_fn(|j| _mm512_loadu_si512(cand[j].as_ptr() as *const _));
        let mut near = [_mm512_set1_epi16(-1); super::CANDIDATES];
        for (&x, &start) in xs.iter().zip(starts) {
            let v = _mm512_xor_si512(
                _mm512_loadu_si512(g.add(start) as *const _),
                _mm512_set1_epi16(x as u16 as i16),
            );
            for j in 0..super::CANDIDATES {
                near[j] = _mm512_min_epu16(near[j], _mm512_xor_si512(v, cv[j]));
            }
        }
        let unused = _mm512_set1_epi16(-1);
        std::array::from_fn(|j| {
            _mm512_testn_epi16_mask(near[j], near[j]) & _mm512_cmpneq_epi16_mask(cv[j], unused)
        })
    }

    /// [`wide_hits`] on the low bytes of the values only (see
    /// `Runs::flag_checked`): two runs a vector, 64 byte lanes, half the
    /// operations.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn narrow_hits(
        cand: &[[u16; super::GROUP]; super::CANDIDATES],
        xs: &[u32],
        starts: &[usize],
        g: *const u16,
    ) -> [u32; super::CANDIDATES] {
        let lows = _mm512_loadu_si512(LOW_BYTES.as_ptr() as *const _);
        // Each row's candidate in byte t and byte 32 + t.
        let cv: [__m512i; super::CANDIDATES] = std::array::from_fn(|j| {
            let c = _mm512_loadu_si512(cand[j].as_ptr() as *const _);
            _mm512_permutex2var_epi8(c, lows, c)
        });
        let mut near = [_mm512_set1_epi8(-1); super::CANDIDATES];
        let mut step = |(xa, sa): (u32, usize), (xb, sb): (u32, usize)| {
            let v = _mm512_permutex2var_epi8(
                _mm512_loadu_si512(g.add(sa) as *const _),
                lows,
                _mm512_loadu_si512(g.add(sb) as *const _),
            );
            let x = _mm512_mask_set1_epi8(_mm512_set1_epi8(xa as i8), !0u64 << 32, xb as i8);
            let v = _mm512_xor_si512(v, x);
            for j in 0..super::CANDIDATES {
                near[j] = _mm512_min_epu8(near[j], _mm512_xor_si512(v, cv[j]));
            }
        };
        let mut runs = xs.iter().copied().zip(starts.iter().copied());
        while let Some(a) = runs.next() {
            // An odd last run goes with itself.
            step(a, runs.next().unwrap_or(a));
        }
        let unused = _mm512_set1_epi16(-1);
        std::array::from_fn(|j| {
            let m = _mm512_testn_epi8_mask(near[j], near[j]);
            let c = _mm512_loadu_si512(cand[j].as_ptr() as *const _);
            (m as u32 | (m >> 32) as u32) & _mm512_cmpneq_epi16_mask(c, unused)
        })
    }

    /// Lane t ↦ t (shifted to t · ROW by [`group`]).
    const ROW_OFFSETS: [u16; 32] = {
        let mut r = [0u16; 32];
        let mut j = 0;
        while j < 32 {
            r[j] = j as u16;
            j += 1;
        }
        r
    };

    /// See [`super::or_pair_xors`]; returns the OR of every XOR. Needs
    /// `64 · bits.len() ≤ REGISTER_SET_MAX`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512bitalg,popcnt")]
    pub unsafe fn or_pair_xors(bits: &mut [u64], lo: &[u16], hi: &[u16]) -> u16 {
        // The set as bytes (bit v is bit v % 8 of byte v / 8: the same bits
        // as the u64 words on a little-endian machine), padded to whole
        // tables of 1024 values.
        let bound = 64 * bits.len();
        if bound >= 1024 {
            let bytes = std::slice::from_raw_parts_mut(bits.as_mut_ptr() as *mut u8, bound / 8);
            match bound / 1024 {
                1 => run::<1>(bytes, lo, hi),
                2 => run::<2>(bytes, lo, hi),
                4 => run::<4>(bytes, lo, hi),
                8 => run::<8>(bytes, lo, hi),
                16 => run::<16>(bytes, lo, hi),
                _ => unreachable!("bound checked by the caller"),
            }
        } else {
            let mut bytes = [0u8; 128];
            for (j, w) in bits.iter().enumerate() {
                bytes[8 * j..8 * j + 8].copy_from_slice(&w.to_le_bytes());
            }
            let or = run::<1>(&mut bytes, lo, hi);
            for (j, w) in bits.iter_mut().enumerate() {
                *w = u64::from_le_bytes(bytes[8 * j..8 * j + 8].try_into().unwrap());
            }
            or
        }
    }

    /// Looks up the XORs of pairs `k0..k1` (whole batches) in the tables
    /// `t`; appends those not found to `news`, returns how many.
    ///
    /// Each batch: 2 × 32 XORs (u16 lanes), packed into 64 byte lanes:
    /// the byte of the set holding each value (`vpermi2b` from each pair
    /// of table registers, 128 bytes = 1024 values, then picked by the
    /// value's high bits), and the value's bit in that byte
    /// (`vpshufbitqmb`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512bitalg,popcnt")]
    unsafe fn step<const P: usize, const BRANCHY: bool>(
        lo: &[u16],
        hi: &[u16],
        k0: usize,
        k1: usize,
        t: &[__m512i; 32],
        or: &mut __m512i,
        news: &mut [u16; CHUNK + BATCH],
    ) -> usize {
        let n = lo.len();
        debug_assert!(k1 <= n && k1 - k0 <= CHUNK && (k1 - k0).is_multiple_of(BATCH));
        // Byte j of the result is byte `rev[j]` of the source: the 32
        // u16 lanes in reverse order.
        let rev = _mm512_loadu_si512(REV_WORDS.as_ptr() as *const _);
        // Low (even) bytes of two vectors of u16 lanes, then high ones.
        let lows = _mm512_loadu_si512(LOW_BYTES.as_ptr() as *const _);
        let highs = _mm512_add_epi8(lows, _mm512_set1_epi8(1));
        // Bit b of byte lane j is bit 8 (j % 8) + b of its qword.
        let lane = _mm512_loadu_si512(LANE_BITS.as_ptr() as *const _);
        let seven = _mm512_set1_epi8(7);
        let mut acc = *or;
        let mut fill = 0usize;
        let mut k = k0;
        while k < k1 {
            let a0 = _mm512_loadu_si512(lo.as_ptr().add(k) as *const _);
            let a1 = _mm512_loadu_si512(lo.as_ptr().add(k + 32) as *const _);
            let b0 = _mm512_loadu_si512(hi.as_ptr().add(n - k - 32) as *const _);
            let b1 = _mm512_loadu_si512(hi.as_ptr().add(n - k - 64) as *const _);
            let x0 = _mm512_xor_si512(a0, _mm512_permutexvar_epi8(rev, b0));
            let x1 = _mm512_xor_si512(a1, _mm512_permutexvar_epi8(rev, b1));
            // acc | x0 | x1.
            acc = _mm512_ternarylogic_epi32::<0xfe>(acc, x0, x1);
            let y0 = _mm512_srli_epi16::<3>(x0);
            let y1 = _mm512_srli_epi16::<3>(x1);
            // Byte of the set within a table (low 7 bits), and bit 10 of
            // the value (bit 7) for the first choice between tables.
            let idx = _mm512_permutex2var_epi8(y0, lows, y1);
            // (value & 7) | lane bits.
            let bit = _mm512_ternarylogic_epi32::<0xea>(
                _mm512_permutex2var_epi8(x0, lows, x1),
                seven,
                lane,
            );
            let mut r = [_mm512_setzero_si512(); 16];
            for p in 0..P {
                r[p] = _mm512_permutex2var_epi8(t[2 * p], idx, t[2 * p + 1]);
            }
            if P > 1 {
                let m = _mm512_movepi8_mask(idx);
                for p in 0..P / 2 {
                    r[p] = _mm512_mask_blend_epi8(m, r[2 * p], r[2 * p + 1]);
                }
            }
            if P > 2 {
                // Bits 11, 12, … of the value.
                let high = _mm512_permutex2var_epi8(y0, highs, y1);
                let mut q = P / 2;
                let mut b = 1;
                while q > 1 {
                    let m = _mm512_test_epi8_mask(high, _mm512_set1_epi8(b));
                    for p in 0..q / 2 {
                        r[p] = _mm512_mask_blend_epi8(m, r[2 * p], r[2 * p + 1]);
                    }
                    q /= 2;
                    b *= 2;
                }
            }
            let miss = !_mm512_bitshuffle_epi64_mask(r[0], bit);
            // At most 64 values from `fill ≤ k − k0 ≤ CHUNK − 64`: inside.
            if !BRANCHY || miss != 0 {
                let m0 = miss as u32;
                let m1 = (miss >> 32) as u32;
                _mm512_storeu_si512(
                    news.as_mut_ptr().add(fill) as *mut _,
                    _mm512_maskz_compress_epi16(m0, x0),
                );
                fill += m0.count_ones() as usize;
                _mm512_storeu_si512(
                    news.as_mut_ptr().add(fill) as *mut _,
                    _mm512_maskz_compress_epi16(m1, x1),
                );
                fill += m1.count_ones() as usize;
            }
            k += BATCH;
        }
        *or = acc;
        fill
    }

    const REV_WORDS: [u8; 64] = {
        let mut r = [0u8; 64];
        let mut j = 0;
        while j < 64 {
            r[j] = (2 * (31 - j / 2) + j % 2) as u8;
            j += 1;
        }
        r
    };
    const LOW_BYTES: [u8; 64] = {
        let mut r = [0u8; 64];
        let mut j = 0;
        while j < 64 {
            r[j] = (2 * j) as u8;
            j += 1;
        }
        r
    };
    const LANE_BITS: [u8; 64] = {
        let mut r = [0u8; 64];
        let mut j = 0;
        while j < 64 {
            r[j] = (8 * (j % 8)) as u8;
            j += 1;
        }
        r
    };

    /// The set of `P · 1024` values in `2P` registers of 64 bytes each
    /// (`P ≤ 16`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512bitalg,popcnt")]
    unsafe fn run<const P: usize>(bytes: &mut [u8], lo: &[u16], hi: &[u16]) -> u16 {
        assert_eq!(bytes.len(), 128 * P);
        let n = lo.len();
        let bmask = 128 * P - 1;
        let base = bytes.as_mut_ptr();
        let mut news = [0u16; CHUNK + BATCH];
        let mut t = [_mm512_setzero_si512(); 32];
        let mut or = _mm512_setzero_si512();
        let mut k = 0;
        let mut chunk = FIRST_CHUNK;
        let mut quiet = false;
        let whole = n - n % BATCH;
        while k < whole {
            for (j, tj) in t.iter_mut().enumerate().take(2 * P) {
                *tj = _mm512_loadu_si512(base.add(64 * j) as *const _);
            }
            let end = (k + chunk).min(whole);
            // Few new values lately: a branch (rarely taken) is cheaper
            // than compressing every batch.
            let fill = if quiet {
                step::<P, true>(lo, hi, k, end, &t, &mut or, &mut news)
            } else {
                step::<P, false>(lo, hi, k, end, &t, &mut or, &mut news)
            };
            let len = end - k;
            k = end;
            for &v in &news[..fill] {
                *base.add((v as usize >> 3) & bmask) |= 1 << (v & 7);
            }
            if fill * 8 < len {
                chunk = (chunk * 2).min(CHUNK);
            }
            quiet = fill * QUIET < len;
        }
        let mut or = {
            let mut x = [0u16; 32];
            _mm512_storeu_si512(x.as_mut_ptr() as *mut _, or);
            x.iter().fold(0, |a, &b| a | b)
        };
        for j in whole..n {
            let v = lo[j] ^ hi[n - 1 - j];
            or |= v;
            *base.add((v as usize >> 3) & bmask) |= 1 << (v & 7);
        }
        or
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// Reverses the 16 `u16` lanes of `x`.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn rev16(x: __m256i) -> __m256i {
        let m = _mm256_setr_epi8(
            14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, //
            14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1,
        );
        _mm256_permute4x64_epi64(_mm256_shuffle_epi8(x, m), 0x4e)
    }

    /// `row[lo[k] ⊕ hi[n − 1 − k]] = 1` (indices wrapped into the row, a
    /// power of two ≤ 65536); returns the OR of the XORs. 32 XORs at a
    /// time into a buffer, then 32 plain byte stores.
    #[target_feature(enable = "avx2")]
    pub unsafe fn flag_pairs_u16(row: &mut [u8], lo: &[u16], hi: &[u16]) -> u16 {
        let n = lo.len();
        let mask = (row.len() - 1) as u16;
        let m = _mm256_set1_epi16(mask as i16);
        let base = row.as_mut_ptr();
        let mut buf = [0u16; 32];
        let mut or = _mm256_setzero_si256();
        let mut k = 0;
        while k + 32 <= n {
            let a0 = _mm256_loadu_si256(lo.as_ptr().add(k) as *const __m256i);
            let a1 = _mm256_loadu_si256(lo.as_ptr().add(k + 16) as *const __m256i);
            let b0 = _mm256_loadu_si256(hi.as_ptr().add(n - k - 16) as *const __m256i);
            let b1 = _mm256_loadu_si256(hi.as_ptr().add(n - k - 32) as *const __m256i);
            let x0 = _mm256_xor_si256(a0, rev16(b0));
            let x1 = _mm256_xor_si256(a1, rev16(b1));
            or = _mm256_or_si256(or, _mm256_or_si256(x0, x1));
            let mut offsets = [0u64; 8];
            _mm256_storeu_si256(
                offsets.as_mut_ptr() as *mut __m256i,
                _mm256_and_si256(x0, m),
            );
            _mm256_storeu_si256(
                offsets.as_mut_ptr().add(4) as *mut __m256i,
                _mm256_and_si256(x1, m),
            );
            super::flag_offsets(base, &offsets);
            k += 32;
        }
        _mm256_storeu_si256(buf.as_mut_ptr() as *mut __m256i, or);
        let mut or = buf[..16].iter().fold(0, |a, &b| a | b);
        for j in k..n {
            let x = lo[j] ^ hi[n - 1 - j];
            or |= x;
            *base.add((x & mask) as usize) = 1;
        }
        or
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn runs_match_scalar(
            g in proptest::collection::vec(any::<u16>(), 1..300),
            runs in proptest::collection::vec(
                (any::<u32>(), any::<usize>(), any::<usize>(), any::<usize>(), any::<bool>()),
                0..40,
            ),
            len_pick in any::<usize>(),
            row_pick in 0usize..4,
            (cut, cut2) in (any::<usize>(), any::<usize>()),
        ) {
            // The widths the kernel dispatches on, and one it does not.
            let row = [64, 256, 512, 1024][row_pick];
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
                let mut a = vec![0u8; rows.len() * row];
                let mut b = a.clone();
                list.flag(&mut a, row, &g, rows.clone());
                list.flag_scalar(&mut b, row, &g, rows);
                prop_assert_eq!(a, b);
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
                let mut a = vec![0u8; rows.len() * row];
                let mut b = a.clone();
                let mut full = a.clone();
                let mut lims_a = vec![u32::MAX; rows.len()];
                let mut lims_b = lims_a.clone();
                list.flag_checked(&mut a, row, &g, rows.clone(), &check, &mut lims_a);
                list.flag_checked_scalar(&mut b, row, &g, rows.clone(), &check, &mut lims_b);
                prop_assert_eq!(&a, &b);
                prop_assert_eq!(&lims_a, &lims_b);
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
            list.flag(&mut a, row, &run, 0..run.len());
            for k in 0..run.len() {
                let set: Vec<usize> = (0..row).filter(|&j| a[k * row + j] != 0).collect();
                let want = if k < first { vec![] } else { vec![(x ^ run[k - first] as u32) as usize] };
                prop_assert_eq!(set, want);
            }
        }
    }

    proptest! {
        #[test]
        fn xor_gather_bits_matches_flag_xor_gather(
            g in proptest::collection::vec(0u16..64, 1..200),
            picks in proptest::collection::vec((0u32..64, any::<usize>()), 0..100),
            top_pick in any::<usize>(),
        ) {
            let top = 1 + top_pick % g.len();
            let (xs, rs): (Vec<u32>, Vec<usize>) =
                picks.into_iter().map(|(x, r)| (x, 1 + r % top)).unzip();
            let mut row = vec![0u8; 64];
            flag_xor_gather_scalar(&mut row, &xs, &rs, &g, top);
            let want = (0..64).filter(|&v| row[v] != 0).fold(0u64, |b, v| b | 1 << v);
            prop_assert_eq!(xor_gather_bits(&xs, &rs, &g, top), want);
        }
    }

    proptest! {
        #[test]
        fn flag_pairs_matches_scalar(
            pairs in proptest::collection::vec((0u16..64, 0u16..64), 0..200),
        ) {
            let (lo, hi): (Vec<u16>, Vec<u16>) = pairs.into_iter().unzip();
            let mut a = vec![0u8; 64];
            let mut b = a.clone();
            flag_pairs(&mut a, &lo, &hi);
            flag_pairs_scalar(&mut b, &lo, &hi);
            prop_assert_eq!(&a, &b);
            let want: std::collections::BTreeSet<usize> = (0..lo.len())
                .map(|k| (lo[k] ^ hi[hi.len() - 1 - k]) as usize)
                .collect();
            let got: std::collections::BTreeSet<usize> = (0..64).filter(|&j| a[j] != 0).collect();
            prop_assert_eq!(got, want);
        }
    }

    proptest! {
        #[test]
        fn flag_xor_gather_matches_scalar(
            g in proptest::collection::vec(0u16..64, 1..200),
            picks in proptest::collection::vec((0u32..64, any::<usize>()), 0..100),
            top_pick in any::<usize>(),
        ) {
            let top = top_pick % (g.len() + 1);
            let mut xs = Vec::new();
            let mut rs = Vec::new();
            if top >= 1 {
                for &(x, r) in &picks {
                    xs.push(x);
                    rs.push(1 + r % top);
                }
            }
            let mut a = vec![0u8; 64];
            let mut b = a.clone();
            flag_xor_gather(&mut a, &xs, &rs, &g, top);
            flag_xor_gather_scalar(&mut b, &xs, &rs, &g, top);
            prop_assert_eq!(&a, &b);
            let want: std::collections::BTreeSet<usize> = xs
                .iter()
                .zip(&rs)
                .map(|(&x, &r)| (x ^ g[top - r] as u32) as usize)
                .collect();
            let got: std::collections::BTreeSet<usize> = (0..64).filter(|&j| a[j] != 0).collect();
            prop_assert_eq!(got, want);
        }
    }

    /// `len` values below `bound`: mostly a few common ones, with rare
    /// others scattered to the end (as in a Grundy sequence, where new
    /// XORs keep turning up late in a diagonal).
    fn skewed(seed: u64, len: usize, bound: u32, common: u32) -> Vec<u16> {
        let mut s = seed | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let v = if s.is_multiple_of(16) {
                    s >> 8
                } else {
                    (s >> 8) % common as u64
                };
                (v % bound as u64) as u16
            })
            .collect()
    }

    fn check_or_pair_xors(bound: usize, lo: &[u16], hi: &[u16], init: u64) {
        let words = bound / 64;
        let start: Vec<u64> = (0..words as u64)
            .map(|j| init.rotate_left(j as u32) & init.rotate_right(3 * j as u32))
            .collect();
        let mut want = start.clone();
        or_pair_xors_scalar(&mut want, lo, hi);
        let mut got = start.clone();
        let mut bytes = Vec::new();
        or_pair_xors(&mut got, lo, hi, &mut bytes);
        assert_eq!(got, want, "bound {bound}, {} pairs", lo.len());
        let lo32: Vec<u32> = lo.iter().map(|&x| x as u32).collect();
        let hi32: Vec<u32> = hi.iter().map(|&x| x as u32).collect();
        let mut got = start;
        or_pair_xors(&mut got, &lo32, &hi32, &mut bytes);
        assert_eq!(got, want, "u32, bound {bound}, {} pairs", lo.len());
    }

    proptest! {
        #[test]
        fn or_pair_xors_matches_scalar(
            log in 6u32..=15,
            len in 0usize..5000,
            seed in any::<u64>(),
            common in 1u32..300,
            init in any::<u64>(),
        ) {
            let bound = 1usize << log;
            let g = skewed(seed, 2 * len, bound as u32, common);
            check_or_pair_xors(bound, &g[..len], &g[len..], init);
            // The same run with an unrelated tail: lengths not a multiple of 32.
            let cut = len - len % 7;
            check_or_pair_xors(bound, &g[..cut], &g[len..len + cut], 0);
        }
    }

    #[test]
    fn or_pair_xors_long_diagonals() {
        // Long enough for every chunk size, every table count.
        for log in [6, 9, 10, 11, 12, 13, 14] {
            let bound = 1usize << log;
            for len in [100_000, 65_537] {
                let g = skewed(log as u64 * 977 + len as u64, 2 * len, bound as u32, 700);
                check_or_pair_xors(bound, &g[..len], &g[len..], 0);
            }
        }
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn or_pair_xors_refuses_values_above_the_bound() {
        let g = skewed(5, 4000, 2048, 100);
        let mut bits = vec![0u64; 16];
        or_pair_xors(&mut bits, &g[..2000], &g[2000..], &mut Vec::new());
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn or_pair_xors_refuses_values_above_the_bound_bytes() {
        let g = skewed(5, 40_000, 1 << 15, 100);
        let mut bits = vec![0u64; 256];
        or_pair_xors(&mut bits, &g[..20_000], &g[20_000..], &mut Vec::new());
    }
}
