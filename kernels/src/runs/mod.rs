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
//! loop, which is also the `scalar` path. The loop over the groups is in
//! `groups`; what each level runs is `crate::platform`'s choice.

mod groups;
#[cfg(test)]
mod tests;

use std::ops::Range;

use crate::platform::{self, isa};
use crate::portable;
use crate::value::Value;
use groups::{Lists, Span};
use isa::{Isa, Level};

pub use crate::generic::rows::{Check, CANDIDATES, GROUP};
pub use groups::Checked;

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

/// Whether [`Runs::flag_checked`] checks whole groups of rows of `row`
/// bytes with vector compares on the current path, `low_bytes` saying
/// whether they would compare low bytes ([`Check::low_bytes`]): where they
/// do not pay, a checked run costs more than a flagged one, so callers
/// should not make them.
pub fn checks_pay<V: Value>(row: usize, low_bytes: bool) -> bool {
    platform::checks_pay::<V>(isa::level(), row, low_bytes)
}

/// [`checks_pay`] on the path `isa` (tuned per path: see
/// `crate::platform`).
pub fn checks_pay_on<V: Value>(isa: Isa, row: usize, low_bytes: bool) -> bool {
    platform::checks_pay::<V>(isa.level(), row, low_bytes)
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
        self.flag_flagged(isa::level(), flags, row, g, rows);
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
        self.flag_flagged(isa::on_host_level(isa), flags, row, g, rows);
    }

    /// [`Runs::flag`] at `level`: a list with no checked runs.
    #[inline]
    fn flag_flagged<V: Value>(
        &self,
        level: Level,
        flags: &mut [u8],
        row: usize,
        g: &[V],
        rows: Range<usize>,
    ) {
        assert!(self.check_xs.is_empty(), "Runs::flag: checked runs");
        let none = Checked {
            check: &NO_CHECK,
            lims: &mut [],
        };
        self.flag_at(level, flags, row, g, rows, none);
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
        let checked = Checked { check, lims };
        self.flag_at(isa::level(), flags, row, g, rows, checked);
    }

    /// [`Runs::flag_checked`] on the path `isa` (which the host must
    /// have), the check and its limits in one [`Checked`].
    pub fn flag_checked_on<'e, V: Value, F: Fn(usize) -> &'e [u64]>(
        &self,
        isa: Isa,
        flags: &mut [u8],
        row: usize,
        g: &[V],
        rows: Range<usize>,
        checked: Checked<'_, F>,
    ) {
        self.flag_at(isa::on_host_level(isa), flags, row, g, rows, checked);
    }

    /// [`Runs::flag_checked`] at `level`: the inputs checked, then the
    /// groups' loop on the row width (the common widths as constants).
    fn flag_at<'e, V: Value, F: Fn(usize) -> &'e [u64]>(
        &self,
        level: Level,
        flags: &mut [u8],
        row: usize,
        g: &[V],
        rows: Range<usize>,
        checked: Checked<'_, F>,
    ) {
        self.assert_fits(flags, row, g, &rows);
        let checks = (!self.check_xs.is_empty()).then(|| {
            assert!(
                checked.lims.len() >= rows.len(),
                "Runs::flag: lims too short"
            );
            assert!(
                (1..=CANDIDATES).contains(&checked.check.candidates),
                "Runs::flag: candidates out of range"
            );
            checked
        });
        let lists = Lists {
            full: (&self.xs, &self.starts),
            spans: &self.spans,
            checked: (&self.check_xs, &self.check_starts),
        };
        let base = flags.as_mut_ptr();
        // SAFETY: in all arms, every row flagged is one of `rows`, inside
        // flags, and every run has its values in g (assert_fits); the
        // host has level (isa::level or isa::on_host_level).
        unsafe {
            match row {
                512 => groups::flag::<512, V>(level, &lists, base, row, g, rows, checks),
                256 => groups::flag::<256, V>(level, &lists, base, row, g, rows, checks),
                1024 => groups::flag::<1024, V>(level, &lists, base, row, g, rows, checks),
                // `.16`'s rows (docs/performance.md).
                64 => groups::flag::<64, V>(level, &lists, base, row, g, rows, checks),
                _ => groups::flag::<0, V>(level, &lists, base, row, g, rows, checks),
            }
        }
    }

    /// Panics unless `rows` of `row` bytes fit in `flags` and every run's
    /// x is below the row and its values are in `g`.
    fn assert_fits<V: Value>(&self, flags: &[u8], row: usize, g: &[V], rows: &Range<usize>) {
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
            let checked = (&self.check_xs[..], &self.check_starts[..]);
            for (j, k) in rows.clone().enumerate() {
                let r = &mut flags[j * row..(j + 1) * row];
                portable::runs::check_row(checked, r, k, g, check, &mut lims[j]);
            }
        }
    }
}
