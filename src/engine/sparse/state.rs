//! What the engine knows of the values so far: their largest, the
//! histogram by class, the mask and the rare list; and the choice made at
//! each doubling of how to go on: sparse space under the best mask, when
//! few enough positions are rare for it to be faster on this CPU
//! ([`AUTO_RARE_FRACTION`], or [`AUTO_RARE_FRACTION_IN_REGISTERS`] where
//! the diagonal method holds its set in registers; `MaskSpec::Sparse`
//! whenever at most one in [`MAX_RARE_FRACTION`] is), else heap by
//! heap (`Sparse::full_value`: the diagonal method for games with
//! splits).
//!
//! Invariant: `State` describes exactly `g[..built]`; whatever changes
//! values below `built` (a roll-back) rebuilds it.

use octal_kernels::Value;

use super::moves::Moves;
use crate::engine::mask::{Histogram, Mask, MaskSpec};
use crate::engine::tuning::{
    AUTO_RARE_FRACTION, AUTO_RARE_FRACTION_IN_REGISTERS, FIRST_CHOICE, MAX_RARE_FRACTION,
};
use octal_kernels::diagonal::sets_in_registers;

/// Everything derived from `g[..built]`; rebuilt from any prefix.
#[derive(Default)]
pub(super) struct State {
    pub(super) built: usize,
    pub(super) max: u32,
    pub(super) hist: Histogram,
    /// The mask the engine computes with (None: heap by heap).
    pub(super) mask: Option<Mask>,
    pub(super) rare: Vec<usize>,
    /// `rare_x[j] = G(rare[j])`.
    pub(super) rare_x: Vec<u32>,
    /// The game's sparse space as the summaries report it, whatever the
    /// engine computes with: with `MaskSpec::Auto` the best mask that
    /// leaves at most one position in [`MAX_RARE_FRACTION`] rare, even
    /// where the engine finds the diagonal method faster.
    pub(super) space: Option<Mask>,
    /// The rare positions under `space` when it is not `mask` (else
    /// `rare` holds them).
    pub(super) space_rare: Vec<usize>,
    pub(super) next_choice: usize,
}

impl State {
    /// Records G(n) = v in the statistics (not the rare list).
    #[inline]
    pub(super) fn note(&mut self, n: usize, v: u32, i0: usize) {
        self.max = self.max.max(v);
        if n >= 1 {
            self.hist.push(n, v, i0);
        }
    }

    /// Records G(n) = v, stored by the caller, as the next value.
    #[inline]
    pub(super) fn note_new(&mut self, n: usize, v: u32, i0: usize) {
        self.note(n, v, i0);
        if let Some(m) = self.mask {
            if n >= 1 && m.is_rare(n, v, i0) {
                self.rare.push(n);
                self.rare_x.push(v);
            }
        }
        if let Some(m) = self.space.filter(|&m| Some(m) != self.mask) {
            if n >= 1 && m.is_rare(n, v, i0) {
                self.space_rare.push(n);
            }
        }
        self.built = n + 1;
    }

    /// Picks the mask for the values `g` (by `spec`, for a game with
    /// `moves`) and rebuilds the rare list.
    pub(super) fn choose<V: Value>(&mut self, g: &[V], moves: &Moves, spec: MaskSpec) {
        let n = g.len();
        let st = self;
        st.next_choice = (n + 1).next_power_of_two().max(FIRST_CHOICE);
        let best = || {
            st.hist
                .best(moves.allow_pp)
                .filter(|&(_, rare)| rare as usize * MAX_RARE_FRACTION <= n)
        };
        let (mask, space) = if moves.splits.is_empty() {
            (None, None)
        } else {
            match spec {
                MaskSpec::Off => (None, None),
                MaskSpec::Fixed(m) => (Some(m), Some(m)),
                MaskSpec::Auto | MaskSpec::Sparse if n < FIRST_CHOICE => (None, None),
                MaskSpec::Sparse => {
                    let m = best().map(|(m, _)| m);
                    (m, m)
                }
                MaskSpec::Auto => {
                    let fraction = if sets_in_registers() {
                        AUTO_RARE_FRACTION_IN_REGISTERS
                    } else {
                        AUTO_RARE_FRACTION
                    };
                    let found = best();
                    let pays = found.filter(|&(_, rare)| rare as usize * fraction <= n);
                    (pays.map(|(m, _)| m), found.map(|(m, _)| m))
                }
            }
        };
        st.set(g, moves, mask, space);
    }

    /// Computes with `mask` from now on (None: heap by heap), reporting
    /// `space`, and rebuilds the rare lists that serve them.
    pub(super) fn set<V: Value>(
        &mut self,
        g: &[V],
        moves: &Moves,
        mask: Option<Mask>,
        space: Option<Mask>,
    ) {
        let n = g.len();
        let i0 = moves.i0;
        let st = self;
        let before = (st.mask, st.space);
        if mask != st.mask {
            st.mask = mask;
            st.rare.clear();
            st.rare_x.clear();
            if let Some(m) = mask {
                st.rare
                    .extend((1..n).filter(|&r| m.is_rare(r, g[r].get(), i0)));
                st.rare_x.extend(st.rare.iter().map(|&r| g[r].get()));
            }
        }
        // `space_rare` serves a space the engine does not compute with; a
        // change of either can make it needed, or stale.
        if (mask, space) != before {
            st.space = space;
            st.space_rare.clear();
            if let Some(m) = space.filter(|&m| Some(m) != mask) {
                st.space_rare
                    .extend((1..n).filter(|&r| m.is_rare(r, g[r].get(), i0)));
            }
        }
    }

    /// The rare positions n ≥ 1 under the sparse space reported.
    pub(super) fn space_rare(&self) -> &[usize] {
        if self.space == self.mask {
            &self.rare
        } else {
            &self.space_rare
        }
    }

    /// Forgets G(k..built) (a windowed run's roll-back and halt, which
    /// cannot rebuild from every value): `g` still holds them. Only the
    /// largest value is not taken back, and a bound above it is still a
    /// bound.
    pub(super) fn unwind<V: Value>(&mut self, g: &[V], k: usize, i0: usize) {
        let st = self;
        for n in (k..st.built).rev() {
            if n >= 1 {
                st.hist.pop(n, g[n].get(), i0);
            }
            if st.rare.last() == Some(&n) {
                st.rare.pop();
                st.rare_x.pop();
            }
            if st.space_rare.last() == Some(&n) {
                st.space_rare.pop();
            }
        }
        st.built = st.built.min(k);
    }
}
