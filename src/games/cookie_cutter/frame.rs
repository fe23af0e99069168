//! The fixed geometry of one board as bitboards: which squares one
//! placement covers, which squares interact, and the canonical form of a
//! part (translated to the origin, least of its 8 symmetries).

use super::rules::Cutter;
use crate::games::error::MAX_CELLS;

/// A connected part in canonical form: its bounding box and its squares,
/// row-major with stride `w`. Derived `Ord` picks the canonical symmetry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct Shape {
    pub(super) h: u8,
    pub(super) w: u8,
    pub(super) bits: u128,
}

/// The fixed geometry of one board: square `r*cols + c` is bit `r*cols+c`.
pub(super) struct Frame {
    pub(super) rows: usize,
    pub(super) cols: usize,
    /// Distinct non-empty sets of squares one placement covers.
    pub(super) windows: Vec<u128>,
    /// For each square, the squares one placement can cover together with
    /// it; `None` when every pair can be covered together.
    pub(super) near: Option<Vec<u128>>,
    /// The squares of column 0 (to find a part's leftmost column).
    pub(super) col0: u128,
}

impl Frame {
    pub(super) fn new(rows: usize, cols: usize, cutter: Cutter) -> Frame {
        let k = cutter.side(rows, cols) as isize;
        let (ri, ci) = (rows as isize, cols as isize);
        let mut windows = Vec::new();
        for a in (1 - k)..ri {
            for b in (1 - k)..ci {
                let mut m = 0u128;
                for r in a.max(0)..(a + k).min(ri) {
                    for c in b.max(0)..(b + k).min(ci) {
                        m |= 1u128 << (r * ci + c);
                    }
                }
                if m != 0 {
                    windows.push(m);
                }
            }
        }
        windows.sort_unstable();
        windows.dedup();
        let reach = k - 1;
        let near = (reach < ri.max(ci) - 1).then(|| {
            (0..rows * cols)
                .map(|i| {
                    let (r, c) = ((i / cols) as isize, (i % cols) as isize);
                    let mut m = 0u128;
                    for r2 in (r - reach).max(0)..=(r + reach).min(ri - 1) {
                        for c2 in (c - reach).max(0)..=(c + reach).min(ci - 1) {
                            m |= 1u128 << (r2 * ci + c2);
                        }
                    }
                    m
                })
                .collect()
        });
        let col0 = (0..rows).fold(0u128, |m, r| m | 1u128 << (r * cols));
        Frame {
            rows,
            cols,
            windows,
            near,
            col0,
        }
    }

    pub(super) fn full(&self) -> u128 {
        mask_below(self.rows * self.cols)
    }

    /// The part of `pos` that contains its lowest square.
    pub(super) fn part_of_lowest(&self, near: &[u128], pos: u128) -> u128 {
        let seed = pos & pos.wrapping_neg();
        let (mut part, mut frontier) = (seed, seed);
        loop {
            let mut grow = 0u128;
            let mut f = frontier;
            while f != 0 {
                grow |= near[f.trailing_zeros() as usize];
                f &= f - 1;
            }
            let new = grow & pos & !part;
            if new == 0 {
                return part;
            }
            part |= new;
            frontier = new;
        }
    }

    /// `part` moved to the top-left corner, still with stride `cols`.
    pub(super) fn translated(&self, part: u128) -> u128 {
        let top = part.trailing_zeros() as usize / self.cols;
        let mut left = self.cols;
        for c in 0..self.cols {
            if part & (self.col0 << c) != 0 {
                left = c;
                break;
            }
        }
        part >> (top * self.cols + left)
    }

    /// The least of the 8 symmetric images of a translated part.
    pub(super) fn canonical(&self, key: u128) -> Shape {
        let mut cells = [(0u8, 0u8); MAX_CELLS];
        let (mut n, mut h, mut w) = (0, 0u8, 0u8);
        let mut b = key;
        while b != 0 {
            let i = b.trailing_zeros() as usize;
            let (r, c) = ((i / self.cols) as u8, (i % self.cols) as u8);
            cells[n] = (r, c);
            n += 1;
            h = h.max(r + 1);
            w = w.max(c + 1);
            b &= b - 1;
        }
        let cells = &cells[..n];
        let image = |f: &dyn Fn(u8, u8) -> (u8, u8), nh: u8, nw: u8| Shape {
            h: nh,
            w: nw,
            bits: cells.iter().fold(0u128, |m, &(r, c)| {
                let (r2, c2) = f(r, c);
                m | 1u128 << (r2 as usize * nw as usize + c2 as usize)
            }),
        };
        let (h1, w1) = (h - 1, w - 1);
        [
            image(&|r, c| (r, c), h, w),
            image(&|r, c| (r, w1 - c), h, w),
            image(&|r, c| (h1 - r, c), h, w),
            image(&|r, c| (h1 - r, w1 - c), h, w),
            image(&|r, c| (c, r), w, h),
            image(&|r, c| (c, h1 - r), w, h),
            image(&|r, c| (w1 - c, r), w, h),
            image(&|r, c| (w1 - c, h1 - r), w, h),
        ]
        .into_iter()
        .min()
        .expect("eight images")
    }
}

fn mask_below(n: usize) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}
