//! The loop of `Runs::flag_checked`: the rows a group at a time, each
//! group's runs sent to the level's vector code, the portable row batch
//! or the unrolled stores, then its checked runs compared.

use std::any::TypeId;
use std::ops::Range;

use crate::generic::rows::{Check, GROUP, ROW_BATCH_MIN};
use crate::platform::isa::Level;
use crate::platform::{self};
use crate::portable;
use crate::value::Value;

/// A run over some of the rows: see `Runs`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Span {
    pub(super) x: u32,
    pub(super) first: usize,
    pub(super) end: usize,
    pub(super) at: usize,
}

/// The lists of a `Runs`, as the loop reads them.
pub(super) struct Lists<'a> {
    /// Full runs that are flagged: `(xs[j], g[starts[j]..])`.
    pub(super) full: (&'a [u32], &'a [usize]),
    /// Runs over some of the rows.
    pub(super) spans: &'a [Span],
    /// Full runs that are checked, not flagged.
    pub(super) checked: (&'a [u32], &'a [usize]),
}

/// A [`Check`] and the limits it lowers.
pub struct Checked<'a, F> {
    /// How each row's candidates are taken and compared.
    pub check: &'a Check<F>,
    /// Each row's limit, lowered to its last candidate when it has them
    /// all (see `Runs::flag_checked`).
    pub lims: &'a mut [u32],
}

/// The rows a group at a time, every run flagging into the group before
/// the next: the stores of a group land in [`GROUP`] rows (16 KiB of rows
/// of 512, which stay in the L1 cache with the runs' values), where run
/// by run over all rows each store strides a whole row. `ROW` is `row`
/// when the caller dispatched on it (every store of a full run is then the
/// group's base plus a constant), or 0.
///
/// # Safety
/// `base` must point to `rows.len()` writable rows of `row` bytes (a power
/// of two above every run's x), `rows` must lie within the runs' rows, `g`
/// must hold the values of every run, and the host must have `level`.
#[inline(always)]
pub(super) unsafe fn flag<'e, const ROW: usize, V: Value>(
    level: Level,
    lists: &Lists<'_>,
    base: *mut u8,
    row: usize,
    g: &[V],
    rows: Range<usize>,
    mut checks: Option<Checked<impl Fn(usize) -> &'e [u64]>>,
) {
    let row = if ROW == 0 { row } else { ROW };
    let mask = row - 1;
    let (xs, starts) = lists.full;
    // Whole groups of u16 values on a dispatched width go to the level's
    // vector code; the rest to the portable loop below.
    let vectors =
        ROW != 0 && TypeId::of::<V>() == TypeId::of::<u16>() && platform::vector_runs(level);
    let g16 = g.as_ptr() as *const u16;
    // The stores of one run into one group: `q[t]` into row t from p.
    let group = move |p: *mut u8, x: u32, q: &[V]| {
        debug_assert!((x as usize) < row, "Runs::flag: x out of range");
        if vectors && q.len() == GROUP {
            // SAFETY: V is u16 (`vectors`), the host has level, q has
            // GROUP values and each row t < GROUP from p is the caller's.
            unsafe { platform::run_groups::<ROW>(level, p, &[x], &[0], q.as_ptr() as *const u16) };
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
            // The full runs in one call (a call per run costs a fifth of
            // the stores' time: docs/performance.md).
            // SAFETY: V is u16 and the host has level (`vectors`); each
            // run has the values k..end (start + len <= g.len(), the
            // caller's contract), and the GROUP rows from p are the
            // caller's.
            unsafe { platform::run_groups::<ROW>(level, p, xs, starts, g16.add(k)) };
        } else if ROW != 0 && end - k == GROUP && xs.len() >= ROW_BATCH_MIN {
            // SAFETY: xs and starts have one length (push); each run
            // has the values k..end = k + GROUP (start + len <= g.len(),
            // the caller's contract), and the GROUP rows from p are the
            // caller's.
            unsafe { portable::runs::groups::<ROW, V>(p, xs, starts, g, k) };
        } else {
            for (&x, &start) in xs.iter().zip(starts) {
                // SAFETY: start + len <= g.len() (the caller's contract).
                group(p, x, unsafe { g.get_unchecked(start + k..start + end) });
            }
        }
        // A run cut short takes the unrolled path in every group it
        // covers (the band's runs cover most of theirs).
        for s in lists.spans {
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
            let at = Group { p, row, k, vector };
            // SAFETY: as for the groups above (the caller's contract).
            unsafe { check_rows::<ROW, V>(level, lists.checked, at, g, c.check, lims) };
        }
    }
}

/// Where a group of rows is: rows `k..` (of `row` bytes) from `p`, a full
/// group at a vector level when `vector`.
#[derive(Clone, Copy)]
struct Group {
    p: *mut u8,
    row: usize,
    k: usize,
    vector: bool,
}

/// The checked runs `(xs, starts)` of the group of rows `at` (`lims` has a
/// limit for each): the level's vector check on a full group, else each
/// row compared byte by byte.
///
/// # Safety
/// As for [`flag`], for the group's rows.
#[inline(always)]
unsafe fn check_rows<'e, const ROW: usize, V: Value>(
    level: Level,
    (xs, starts): (&[u32], &[usize]),
    at: Group,
    g: &[V],
    check: &Check<impl Fn(usize) -> &'e [u64]>,
    lims: &mut [u32],
) {
    let Group { p, row, k, vector } = at;
    if vector {
        let shifted = Check {
            eligible: |t| (check.eligible)(k + t),
            candidates: check.candidates,
            low_bytes: check.low_bytes,
        };
        let g16 = g.as_ptr() as *const u16;
        // SAFETY: a full group of u16 values at a vector level, as for
        // the groups of `flag`; lims has a limit for each of the GROUP
        // rows.
        unsafe { platform::check_group::<ROW>(level, p, (xs, starts), g16.add(k), &shifted, lims) };
        return;
    }
    for (t, lim) in lims.iter_mut().enumerate() {
        // SAFETY: row k + t is one of the caller's rows, t rows from p.
        let r = unsafe { std::slice::from_raw_parts_mut(p.add(t * row), row) };
        portable::runs::check_row((xs, starts), r, k + t, g, check, lim);
    }
}
