//! What the engine knows of the values so far (their largest, the
//! histogram, the mask, the rare list), and the choice made at each
//! doubling of how to go on: sparse space under the best mask, when at
//! most one position in [`MAX_RARE_FRACTION`] is rare, else heap by heap
//! ([`Sparse::full_value`]: the diagonal method for games with splits).
//!
//! Invariant: `state` describes exactly `g[..state.built]`; whatever
//! changes values below `built` (a roll-back) rebuilds it.

use super::*;

/// The mask is first chosen at this many values, then at each doubling.
pub(super) const FIRST_CHOICE: usize = 1024;
/// Sparse space is used when at most this fraction (1/x) of positions is rare.
pub(super) const MAX_RARE_FRACTION: usize = 5;

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

impl Sparse {
    /// Makes the state describe `g` (all known values).
    pub(super) fn rebuild<V: Value>(&mut self, g: &[V]) {
        self.state = State::default();
        self.ahead = None;
        if let Some(d) = &mut self.diagonals {
            d.clear();
        }
        for (n, v) in g.iter().enumerate() {
            self.note(n, v.get());
        }
        self.state.built = g.len();
        self.choose(g);
    }

    /// Records G(n) = v in the statistics (not the rare list).
    #[inline]
    pub(super) fn note(&mut self, n: usize, v: u32) {
        self.state.max = self.state.max.max(v);
        if n >= 1 {
            self.state.hist.push(n, v, self.i0);
        }
    }

    /// Picks the mask for the values `g` and rebuilds the rare list.
    pub(super) fn choose<V: Value>(&mut self, g: &[V]) {
        let n = g.len();
        let st = &mut self.state;
        st.next_choice = (n + 1).next_power_of_two().max(FIRST_CHOICE);
        let mask = if self.splits.is_empty() {
            None
        } else {
            match self.spec {
                MaskSpec::Off => None,
                MaskSpec::Fixed(m) => Some(m),
                MaskSpec::Auto if n < FIRST_CHOICE => None,
                MaskSpec::Auto => st
                    .hist
                    .best(self.allow_pp)
                    .filter(|&(_, rare)| rare as usize * MAX_RARE_FRACTION <= n)
                    .map(|(m, _)| m),
            }
        };
        if mask != st.mask {
            st.mask = mask;
            st.rare.clear();
            st.rare_x.clear();
            if let Some(m) = mask {
                let i0 = self.i0;
                st.rare
                    .extend((1..n).filter(|&r| m.is_rare(r, g[r].get(), i0)));
                st.rare_x.extend(st.rare.iter().map(|&r| g[r].get()));
            }
        }
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
        self.note(n, v);
        if let Some(m) = self.state.mask {
            if n >= 1 && m.is_rare(n, v, self.i0) {
                self.state.rare.push(n);
                self.state.rare_x.push(v);
            }
        }
        self.state.built = n + 1;
    }

    /// Forgets G(k..built) (a windowed run's roll-back and halt, which
    /// cannot rebuild from every value): `g` still holds them. Only the
    /// largest value is not taken back, and a bound above it is still a
    /// bound.
    pub(super) fn unwind<V: Value>(&mut self, g: &[V], k: usize) {
        let st = &mut self.state;
        for n in (k..st.built).rev() {
            if n >= 1 {
                st.hist.pop(n, g[n].get(), self.i0);
            }
            if st.rare.last() == Some(&n) {
                st.rare.pop();
                st.rare_x.pop();
            }
        }
        st.built = st.built.min(k);
        self.ahead = None;
    }

    /// G(n) for `n = g.len()` without sparse space: by the diagonal method
    /// when the game has splits, else the mex of the other options.
    pub(super) fn full_value<V: Value>(&mut self, g: &[V]) -> u32 {
        let n = g.len();
        let bound = self.bound();
        if let Some(d) = &mut self.diagonals {
            return d.value(g, bound);
        }
        let mut row = std::mem::take(&mut self.row8);
        row.clear();
        row.resize(bound, 0);
        self.flag_simple(n, |i| g[i].get(), &mut &mut row[..]);
        let v = first_unflagged(&row) as u32;
        self.row8 = row;
        v
    }
}
