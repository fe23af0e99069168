//! The portable parts of `runs::Runs::flag_checked`: a full group of rows
//! flagged through the row batch, and a row's checked runs compared with
//! its candidates byte by byte.

use crate::generic::rows::{store_runs, Check, CANDIDATES, GROUP};
use crate::value::Value;

/// Every run `(xs[j], g[starts[j] + k..])` into a full group of rows, on
/// the portable path: each run's 32 offsets made in a loop, and stored by
/// [`store_runs`], as the vector paths do.
///
/// # Safety
/// `xs` and `starts` have one length; each `starts[j] + k + GROUP ≤
/// g.len()`; `p` points to GROUP writable rows of ROW bytes
/// (`ROW · GROUP ≤ 65536`).
#[inline(always)]
pub(crate) unsafe fn groups<const ROW: usize, V: Value>(
    p: *mut u8,
    xs: &[u32],
    starts: &[usize],
    g: &[V],
    k: usize,
) {
    const { assert!(ROW * GROUP <= 1 << 16) };
    debug_assert_eq!(xs.len(), starts.len());
    let fill = |j: usize, o: *mut u16| {
        // SAFETY: starts[j] + k + GROUP ≤ g.len() (the caller's contract);
        // o has room for GROUP offsets (store_runs' contract).
        unsafe {
            let q = g.get_unchecked(starts[j] + k..starts[j] + k + GROUP);
            for (t, &v) in q.iter().enumerate() {
                *o.add(t) = (t * ROW + ((xs[j] ^ v.get()) as usize & (ROW - 1))) as u16;
            }
        }
    };
    // SAFETY: fill writes all 32 offsets of run j, each below GROUP · ROW,
    // inside the caller's rows.
    unsafe { store_runs(p, xs.len(), fill) };
}

/// The checked runs `(xs[i], g[starts[i]..])` of row `k` (bytes `r`,
/// every other run flagged): see `runs::Runs::flag_checked`.
#[inline]
pub(crate) fn check_row<'e, V: Value, F: Fn(usize) -> &'e [u64]>(
    (xs, starts): (&[u32], &[usize]),
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
    for (&x, &at) in xs.iter().zip(starts) {
        let v = (x ^ g[at + k].get()) & key;
        for &c in cand[..c].iter().filter(|&&c| c & key == v) {
            r[c as usize] = 1;
        }
    }
    if c == candidates {
        *lim = (*lim).min(cand[c - 1]);
    }
}
