//! What the engine knows of the values so far: their largest, the
//! histogram by class, the mask and the rare list; and the choice made at
//! each doubling of how to go on: sparse space under the best mask, when
//! at most one position in [`MAX_RARE_FRACTION`] is rare, else heap by
//! heap (`Sparse::full_value`: the diagonal method for games with
//! splits).
//!
//! Invariant: `State` describes exactly `g[..built]`; whatever changes
//! values below `built` (a roll-back) rebuilds it.

use octal_kernels::Value;

use super::moves::Moves;
use crate::engine::mask::{Histogram, Mask, MaskSpec};
use crate::engine::tuning::{FIRST_CHOICE, MAX_RARE_FRACTION};

/// Everything derived from `g[..built]`; rebuilt from any prefix.
#[derive(Default)]
pub(super) struct State {
    pub(super) built: usize,
    pub(super) max: u32,
    pub(super) hist: Histogram,
    pub(super) mask: Option<Mask>,
    pub(super) rare: Vec<usize>,
    /// `rare_x[j] = G(rare[j])`.
    pub(super) rare_x: Vec<u32>,
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
        self.built = n + 1;
    }

    /// Picks the mask for the values `g` (by `spec`, for a game with
    /// `moves`) and rebuilds the rare list.
    pub(super) fn choose<V: Value>(&mut self, g: &[V], moves: &Moves, spec: MaskSpec) {
        let n = g.len();
        let st = self;
        st.next_choice = (n + 1).next_power_of_two().max(FIRST_CHOICE);
        let mask = if moves.splits.is_empty() {
            None
        } else {
            match spec {
                MaskSpec::Off => None,
                MaskSpec::Fixed(m) => Some(m),
                MaskSpec::Auto if n < FIRST_CHOICE => None,
                MaskSpec::Auto => st
                    .hist
                    .best(moves.allow_pp)
                    .filter(|&(_, rare)| rare as usize * MAX_RARE_FRACTION <= n)
                    .map(|(m, _)| m),
            }
        };
        if mask != st.mask {
            st.mask = mask;
            st.rare.clear();
            st.rare_x.clear();
            if let Some(m) = mask {
                let i0 = moves.i0;
                st.rare
                    .extend((1..n).filter(|&r| m.is_rare(r, g[r].get(), i0)));
                st.rare_x.extend(st.rare.iter().map(|&r| g[r].get()));
            }
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
        }
        st.built = st.built.min(k);
    }
}
