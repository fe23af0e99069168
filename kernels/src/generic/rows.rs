//! The rows of a tile of heaps that `runs::Runs` flags, as every path
//! shares them: the group of rows a step takes ([`GROUP`]), how a checked
//! run's candidates are found ([`Check`], [`row_candidates`]) and how a
//! batch of runs' offsets is stored ([`store_runs`]).

use super::flag_offsets;

/// Most candidates a row is checked for (see `Runs::push_checked`): the
/// vector check compares each run with this many values a row.
pub const CANDIDATES: usize = 12;

/// How `Runs::flag_checked` takes each row's candidates and compares
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

/// Each row's candidates for a vector check (see `Runs::flag_checked`):
/// the first `check.candidates` open eligible values of each of the GROUP
/// rows of ROW bytes from `p`, by candidate then row (`u16::MAX` where a
/// row has fewer); a row that has them all has its limit in `lims`
/// lowered to the last. `zero_mask(q)` is the path's part: bit `i` set
/// where byte `q + i` is 0, for `i < 64`. Every vector check's candidate
/// loop; it takes 64 bytes (a word of the eligible set) a step and stops
/// at the last candidate. Inlined into the kernel, so `zero_mask` is the
/// kernel's own instructions (a loop made by an iterator's closure was a
/// call of its own: docs/performance.md).
///
/// # Safety
/// `p` points to GROUP rows of ROW bytes; `zero_mask` may be called on any
/// 64 bytes of them.
#[inline(always)]
// Only the vector checks take it: none on other architectures.
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)]
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
        // SAFETY: row t < GROUP from p is the caller's.
        let r = unsafe { p.add(t * ROW) };
        let el = eligible(t);
        let mut c = 0;
        'row: for w in 0..ROW / 64 {
            // SAFETY: word w < ROW / 64 of row r: 64 bytes of the rows.
            let q = unsafe { r.add(64 * w) };
            let mut open = zero_mask(q) & el.get(w).copied().unwrap_or(0);
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

/// Runs whose offsets [`flag_rows`] takes at a time: a batch's offsets
/// (64 runs × 32 rows × 2 bytes, 4 KiB) stay in the L1 cache. The batch
/// is not zeroed before each call (a 4 KiB memset a call costs more than
/// it saves: docs/performance.md): only the entries written are read.
pub(crate) const ROW_BATCH: usize = 64;

/// Fewer runs than this in a call are stored run by run
/// ([`flag_offsets`]), not through [`flag_rows`]: a call with one
/// run (a run cut short at a tile's edge, the most frequent call on two
/// threads) row by row is 32 loops of one store, slower than the run's
/// own stores (docs/performance.md).
pub(crate) const ROW_BATCH_MIN: usize = 8;

/// Stores `n` runs' offsets into a group of rows: `fill(j, o)` writes run
/// `j`'s 32 offsets (one per row, each below `GROUP · ROW`) to `o`. A call
/// of at least [`ROW_BATCH_MIN`] runs goes through a batch, row by row
/// ([`flag_rows`]); fewer are stored run by run ([`flag_offsets`]).
/// Every path's far flags of full groups end here; each path makes the
/// offsets its own way.
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
            // SAFETY: fill wrote the 32 offsets, each inside the caller's
            // rows (this function's contract).
            unsafe { flag_offsets(p, &o) };
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
        unsafe {
            flag_rows(
                p,
                std::slice::from_raw_parts(batch.as_ptr() as *const [u16; GROUP], m),
            )
        };
    }
}

/// Sets byte `p[o[t]] = 1` for every offset of `offsets` (a run's 32
/// offsets each, one per row `t` of a group), row by row: every run's
/// store into row 0, then into row 1, …. Made run by run, the stores
/// stride the whole group (16 KiB of rows of 512); row by row, 64 in a
/// row land in one row of a few hundred bytes, which the L1 cache takes
/// faster (docs/performance.md).
/// See [`store_runs`].
///
/// # Safety
/// Every `p + o[t]` must be writable.
#[inline(always)]
pub(crate) unsafe fn flag_rows(p: *mut u8, offsets: &[[u16; GROUP]]) {
    for t in 0..GROUP {
        for o in offsets {
            // SAFETY: t < GROUP, the length of o; the offset is the
            // caller's to write.
            unsafe { *p.add(*o.get_unchecked(t) as usize) = 1 };
        }
    }
}

/// Rows of `Runs::flag` filled at a time: the stores of a group stay in
/// the L1 cache (32 measured best: docs/performance.md).
pub const GROUP: usize = 32;
