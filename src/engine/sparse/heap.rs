//! Finishing one heap. In sparse space: its near flags (the non-split
//! options and the rare pairs its block's far flags leave out), `mo`,
//! and the witness scan that decides G(n) ([`Sparse::sparse_value`]);
//! without it, the diagonal method or the mex ([`Sparse::full_value`]).

use octal_kernels::mex::first_unflagged;
use octal_kernels::Value;

use super::checks::Deferred;
use super::engine::Sparse;
use super::moves::Marks;
use super::pairs::Parts;
use super::window::Halt;
use super::witness::{
    flag_fixed_rounds, least_member, least_of, members, open_values, strike_witnessed, witness_set,
    Scan, Strike,
};
use crate::engine::api::{fit, Overflow};
use crate::engine::mask::Mask;

/// What every heap of a block shares when it is finished: rows of `row`
/// values, the mask, where the block's new rare heaps start in the rare
/// list (`rare[..new_start]` had their far pairs flagged with the block)
/// and whether the tiles flagged the first round of each witness scan.
#[derive(Clone, Copy)]
pub(super) struct BlockShape {
    pub(super) row: usize,
    pub(super) mask: Mask,
    pub(super) new_start: usize,
    pub(super) middle: bool,
}

/// A heap's far flags: a bit row, exact up to `lim`.
#[derive(Clone, Copy)]
pub(super) struct FarRow<'a> {
    pub(super) bits: &'a [u64],
    pub(super) lim: u32,
}

impl Sparse {
    /// Flags in `row` the options of heap `n = g.len()` that are not
    /// flagged with its block: the non-split options, and the pairs of
    /// rare heaps with partners in the block (`rare[..new_start]`, whose
    /// other pairs were flagged with the block) or rare heaps in it.
    #[inline]
    pub(super) fn flag_near<V: Value>(
        &mut self,
        g: Parts<V>,
        new_start: usize,
        row: &mut impl Marks,
    ) {
        let n = g.len();
        let n0 = g.pre.len();
        self.moves.flag_simple(n, |i| g.get(i), row);
        let rare = &self.state.rare;
        let xs = &self.state.rare_x;
        // Those with a partner in the block are a prefix of the sorted
        // list (r ≤ n − n0 − i), so each split keeps a cursor.
        for (&i, k) in self.moves.splits.iter().zip(&mut self.scratch.cursors) {
            if n >= n0 + i {
                while *k < new_start && rare[*k] + n0 + i <= n {
                    *k += 1;
                }
                row.gather(&xs[..*k], &rare[..*k], g.post, n - i - n0);
            }
        }
        // Rare heaps of this block, with any partner.
        for &r in &rare[new_start..] {
            let x = g.get(r);
            for &i in &self.moves.splits {
                if n > i + r && self.moves.halves.allows(r, n - i - r) {
                    row.mark(x ^ g.get(n - i - r));
                }
            }
        }
    }

    /// G(n) for `n = g.len()`, given the flags of the far rare pairs
    /// (`far`, a bit row for the values below `shape.row`, exact up to its
    /// limit; with `shape.middle`, also the first round of the witness
    /// scan). With a
    /// `budget` of pairs, a witness scan still open after it is added to
    /// the [`Deferred`] checks and G(n) is taken to be `mo` until the check
    /// says otherwise.
    pub(super) fn sparse_value<V: Value>(
        &mut self,
        g: Parts<V>,
        far: FarRow,
        shape: BlockShape,
        budget: Option<(usize, &mut Deferred)>,
    ) -> u32 {
        let BlockShape {
            row: row_len,
            mask,
            middle,
            ..
        } = shape;
        let n = g.len();
        let mut row8 = std::mem::take(&mut self.scratch.row8);
        let mut open = std::mem::take(&mut self.scratch.open);
        let small = row_len <= 64;
        let q = mask.q(n, self.moves.i0) as usize;
        let mo = self.open_and_mo(g, far, shape, q, (&mut row8, &mut open));
        let row = &mut row8[..];
        // Values of class q below mo that nothing flagged yet each need a
        // witness among all split pairs: the least without one is G(n),
        // else G(n) = mo.
        let mut set = std::mem::take(&mut self.scratch.set);
        witness_set(&mut set, &open, &self.scratch.class[q], mo);
        // A large set loses most of its values in the first round of the
        // scan (the pairs nearest the middle), so it has that round flagged
        // rather than struck (see [`flag_fixed_rounds`]). The tiles may
        // have flagged that round already (`middle`): they do for the
        // blocks after one in which most heaps voted for it, by a large set
        // here or, with the round flagged, a set it left not small (so a
        // game whose sets are small goes back to scanning it). With a
        // budget of 0 the helper is the idle one: the fixed rounds are left
        // to the check it takes, which flags them the same way.
        let scan = Scan {
            g,
            n,
            splits: &self.moves.splits[..],
            halves: self.moves.halves,
            kept: self.kept,
        };
        let mut from = self.far.vote(middle, small, members(&set));
        let defer_all = budget.as_ref().is_some_and(|b| b.0 == 0);
        if !small && !defer_all {
            from = flag_fixed_rounds(scan, from, row, &mut set, &mut open);
        }
        self.scratch.row8 = row8;
        self.scratch.open = open;
        let limit = budget.as_ref().map(|b| b.0);
        let out = match strike_witnessed(scan, &mut set, from, limit) {
            Strike::Empty => mo as u32,
            Strike::Exhausted => least_member(&set).expect("values left"),
            Strike::Unkept => {
                // Not decided: the block stops here (see `Halt`).
                self.halt.get_or_insert(Halt {
                    at: n,
                    values: members(&set),
                });
                mo as u32
            }
            Strike::Paused(round) => {
                budget.expect("paused by a budget").1.push(n, round, &set);
                mo as u32
            }
        };
        self.scratch.set = set;
        out
    }

    /// The first half of [`Sparse::sparse_value`]: flags the near options
    /// of heap `n = g.len()` into `row8` (or a register, for rows of up to
    /// 64 values), puts the values that neither they nor `far` flag into
    /// `open`, and returns `mo`, the least of them of the class other than
    /// `q` (or the row's end).
    #[inline]
    fn open_and_mo<V: Value>(
        &mut self,
        g: Parts<V>,
        far: FarRow,
        shape: BlockShape,
        q: usize,
        (row8, open): (&mut Vec<u8>, &mut Vec<u64>),
    ) -> usize {
        let FarRow { bits: far, lim } = far;
        let BlockShape {
            row: row_len,
            new_start,
            ..
        } = shape;
        let n = g.len();
        open.resize(far.len(), 0);
        // Rows of up to 64 values are flagged in a register; wider ones a
        // byte per value. Either way `open` gets the values not flagged.
        let small = row_len <= 64;
        let mut bits = 0u64;
        if small {
            self.flag_near(g, new_start, &mut bits);
        } else {
            row8.clear();
            row8.resize(row_len, 0);
            self.flag_near(g, new_start, &mut &mut row8[..]);
        }
        // mo: the least open value of the other class (or the row's end).
        open_values(small.then_some(bits), row8, far, open, row_len);
        let mut mo = least_of(open, &self.scratch.class[q ^ 1], row_len);
        if mo > lim as usize {
            // The far runs checked rather than flagged were checked only
            // for the values up to the limit: flag their values here
            // (rare; see [`far_runs`]).
            self.far.fallbacks += 1;
            let k = n - g.pre.len();
            let values = self.far.block_runs.checked_values(k, g.pre);
            if small {
                values.for_each(|v| bits.mark(v));
            } else {
                values.for_each(|v| (&mut row8[..]).mark(v));
            }
            open_values(small.then_some(bits), row8, far, open, row_len);
            mo = least_of(open, &self.scratch.class[q ^ 1], row_len);
        }
        mo
    }

    /// G(n) for `n = g.len()` without sparse space: by the diagonal method
    /// when the game has splits, else the mex of the other options.
    pub(super) fn full_value<V: Value>(&mut self, g: &[V]) -> u32 {
        let n = g.len();
        let bound = self.bound();
        if let Some(d) = &mut self.diagonals {
            return d.value(g, bound);
        }
        let mut row = std::mem::take(&mut self.scratch.row8);
        row.clear();
        row.resize(bound, 0);
        self.moves.flag_simple(n, |i| g[i].get(), &mut &mut row[..]);
        let v = first_unflagged(&row) as u32;
        self.scratch.row8 = row;
        v
    }

    /// Stores G(n) = v, or reports that it does not fit `V`.
    #[inline]
    pub(super) fn push<V: Value>(&mut self, g: &mut [V], n: usize, v: u32) -> Result<(), Overflow> {
        g[n] = fit(v, n)?;
        self.note_new(n, v);
        Ok(())
    }

    /// Records G(n) = v, stored by the caller, as the next value.
    #[inline]
    pub(super) fn note_new(&mut self, n: usize, v: u32) {
        self.state.note_new(n, v, self.moves.i0);
    }
}
