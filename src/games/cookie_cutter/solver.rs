//! The exact search: a position is the nim-sum of its parts, each part's
//! value memoised under its canonical form.

use std::time::{Duration, Instant};

use thiserror::Error;

use super::frame::{Frame, Shape};
use super::rules::Cutter;
use crate::games::bits::{BitMap, Seen};
use crate::games::error::MAX_CELLS;

/// Why a search stopped without a value.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SolveError {
    #[error("gave up after {0:.0} s")]
    Timeout(f64),
    #[error("the search needed more than {0} positions in memory")]
    MemoFull(usize),
    #[error("board {rows}x{cols} has more than {max} squares", max = MAX_CELLS)]
    TooLarge { rows: usize, cols: usize },
}

/// The exact search for one cutter. Its memo of canonical parts carries
/// over from board to board, so solving a table reuses earlier work.
pub struct Solver {
    cutter: Cutter,
    memo: BitMap<Shape, u8>,
    /// Translated part (in the current board's stride) → value: a cache
    /// that skips the canonical form; cleared when the board changes.
    raw: BitMap<u128, u8>,
    raw_cols: usize,
    /// The most canonical parts kept before [`SolveError::MemoFull`].
    pub max_positions: usize,
    deadline: Option<(Instant, Instant)>,
    nodes: u64,
    /// Hears the memo's size now and then during a long search.
    progress: Option<Box<dyn FnMut(usize)>>,
}

impl Solver {
    pub fn new(cutter: Cutter) -> Solver {
        Solver {
            cutter,
            memo: BitMap::default(),
            raw: BitMap::default(),
            raw_cols: 0,
            max_positions: 1 << 24,
            deadline: None,
            nodes: 0,
            progress: None,
        }
    }

    /// Calls `f` with the number of positions known, every so often.
    pub fn on_progress(&mut self, f: Box<dyn FnMut(usize)>) {
        self.progress = Some(f);
    }

    pub fn cutter(&self) -> Cutter {
        self.cutter
    }

    /// How many canonical parts the memo holds.
    pub fn positions(&self) -> usize {
        self.memo.len()
    }

    /// The value of the full x×y board.
    pub fn solve(
        &mut self,
        rows: usize,
        cols: usize,
        limit: Option<Duration>,
    ) -> Result<u32, SolveError> {
        let cells: Vec<(usize, usize)> = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .collect();
        self.solve_shape(rows, cols, &cells, limit)
    }

    /// The value of the given squares of an x×y board (any shape; for an
    /// arbitrarily large cutter the board's size sets the cutter's side).
    pub fn solve_shape(
        &mut self,
        rows: usize,
        cols: usize,
        cells: &[(usize, usize)],
        limit: Option<Duration>,
    ) -> Result<u32, SolveError> {
        if rows * cols > MAX_CELLS || rows == 0 || cols == 0 {
            return Err(SolveError::TooLarge { rows, cols });
        }
        let frame = Frame::new(rows, cols, self.cutter);
        let mut pos = 0u128;
        for &(r, c) in cells {
            assert!(r < rows && c < cols, "square ({r},{c}) is off the board");
            pos |= 1u128 << (r * cols + c);
        }
        debug_assert_eq!(pos & !frame.full(), 0);
        if self.raw_cols != cols {
            self.raw.clear();
            self.raw_cols = cols;
        }
        let start = Instant::now();
        self.deadline = limit.map(|d| (start, start + d));
        let v = self.value(&frame, pos);
        self.deadline = None;
        v.map(u32::from)
    }

    /// Nim-sum of the parts of `pos`.
    fn value(&mut self, f: &Frame, pos: u128) -> Result<u8, SolveError> {
        let Some(near) = &f.near else {
            return if pos == 0 {
                Ok(0)
            } else {
                self.part_value(f, pos)
            };
        };
        let mut rest = pos;
        let mut v = 0u8;
        while rest != 0 {
            let part = f.part_of_lowest(near, rest);
            rest &= !part;
            v ^= self.part_value(f, part)?;
        }
        Ok(v)
    }

    /// Value of one part: memo lookups, else the mex over every placement.
    fn part_value(&mut self, f: &Frame, part: u128) -> Result<u8, SolveError> {
        if part.count_ones() == 1 {
            return Ok(1);
        }
        let key = f.translated(part);
        if let Some(&v) = self.raw.get(&key) {
            return Ok(v);
        }
        let shape = f.canonical(key);
        if let Some(&v) = self.memo.get(&shape) {
            self.cache_raw(key, v);
            return Ok(v);
        }
        self.tick()?;
        // Different placements often leave the same squares: try each
        // distinct remainder once.
        let mut children: Vec<u128> = f
            .windows
            .iter()
            .filter(|&&w| w & part != 0)
            .map(|&w| part & !w)
            .collect();
        children.sort_unstable();
        children.dedup();
        let mut seen = Seen::default();
        for child in children {
            seen.insert(self.value(f, child)?);
        }
        let v = seen.mex();
        if self.memo.len() >= self.max_positions {
            return Err(SolveError::MemoFull(self.max_positions));
        }
        self.memo.insert(shape, v);
        self.cache_raw(key, v);
        Ok(v)
    }

    fn cache_raw(&mut self, key: u128, v: u8) {
        if self.raw.len() >= self.max_positions {
            self.raw.clear();
        }
        self.raw.insert(key, v);
    }

    fn tick(&mut self) -> Result<(), SolveError> {
        self.nodes += 1;
        if self.nodes.is_multiple_of(4096) {
            if let Some(f) = &mut self.progress {
                f(self.memo.len());
            }
            if let Some((start, end)) = self.deadline {
                let now = Instant::now();
                if now >= end {
                    return Err(SolveError::Timeout((now - start).as_secs_f64()));
                }
            }
        }
        Ok(())
    }
}
