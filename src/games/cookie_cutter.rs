//! Cookie Cutter (thesis chapter 5): a k×k cutter is placed anywhere it
//! covers at least one remaining square of the board (it may overhang the
//! edges and straddle holes) and removes every square it covers; whoever
//! cannot move loses.
//!
//! A 1×n strip is the octal game `0.33…37` with k−1 threes at heap n
//! (Lemma 5.1.2), so strips go through the octal engine and may be billions
//! long. Boards with two or more rows and columns are solved here by an exact
//! game-tree search over bitboards: two squares interact only when one
//! placement covers both (Chebyshev distance below k), so a position is the
//! nim-sum of its parts under that relation, and each part is memoised under
//! a canonical form (translated to the origin, least of its 8 symmetries).

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use thiserror::Error;

use super::{BitMap, GameError, Seen};
use crate::code::Code;
use crate::engine::EngineKind;
use crate::run::{self, Job, JobError};

/// Largest board the search accepts: one bit per square in a `u128`.
pub const MAX_CELLS: usize = 128;
/// Largest finite cutter accepted (its octal code has k+1 digits).
pub const MAX_K: u64 = 1 << 20;
/// Strips up to this length with an arbitrarily large cutter are run
/// through the engine as `k = n`; longer ones use Corollary 5.1.1 (value n).
pub const LARGE_STRIP_ENGINE_MAX: u64 = 4096;

/// The cutter: k×k, or arbitrarily large (thesis Definition 5.1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cutter {
    Size(usize),
    /// Larger than the board: on an x×y board it acts as a k×k cutter for
    /// any k ≥ max(x, y), since every such k removes exactly the squares of
    /// a rectangle that reaches the board's edge on both axes (a prefix or
    /// suffix of the rows times a prefix or suffix of the columns).
    Large,
}

impl Cutter {
    /// The side to use on an x×y board.
    pub fn side(self, rows: usize, cols: usize) -> usize {
        match self {
            Cutter::Size(k) => k,
            Cutter::Large => rows.max(cols).max(1),
        }
    }
}

impl FromStr for Cutter {
    type Err = GameError;

    fn from_str(s: &str) -> Result<Cutter, GameError> {
        let t = s.trim();
        if ["inf", "large", "infinite", "∞"]
            .iter()
            .any(|w| t.eq_ignore_ascii_case(w))
        {
            return Ok(Cutter::Large);
        }
        let bad = || GameError::BadCutter(s.to_string());
        let k = crate::count::parse_count(t).map_err(|_| bad())?;
        if k == 0 {
            return Err(bad());
        }
        if k > MAX_K {
            return Err(GameError::CutterTooLarge(k));
        }
        Ok(Cutter::Size(k as usize))
    }
}

impl fmt::Display for Cutter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cutter::Size(k) => write!(f, "{k}"),
            Cutter::Large => f.write_str("inf"),
        }
    }
}

/// An x×y board: `rows` = x, `cols` = y.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    pub rows: u64,
    pub cols: u64,
}

impl FromStr for Grid {
    type Err = GameError;

    fn from_str(s: &str) -> Result<Grid, GameError> {
        let bad = || GameError::BadGrid(s.to_string());
        // Rows `x` (or `×`) columns, nothing around them.
        let (r, c) = s.split_once(['x', '×']).ok_or_else(bad)?;
        let rows = crate::count::parse_count(r).map_err(|_| bad())?;
        let cols = crate::count::parse_count(c).map_err(|_| bad())?;
        if rows == 0 || cols == 0 {
            return Err(bad());
        }
        Ok(Grid { rows, cols })
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}

/// How the value of a grid is found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    /// A strip: G(heap) of this octal game (Lemma 5.1.2).
    Strip { code: Code, heap: u64 },
    /// A strip longer than [`LARGE_STRIP_ENGINE_MAX`] under an arbitrarily
    /// large cutter: Nim, value n (Corollary 5.1.1).
    Nim { heap: u64 },
    /// Two or more rows and columns: the exact search.
    Board { rows: usize, cols: usize },
}

/// Chooses the method for a grid, refusing boards the search cannot hold.
pub fn method(cutter: Cutter, grid: Grid) -> Result<Method, GameError> {
    if grid.rows == 1 || grid.cols == 1 {
        let heap = grid.rows.max(grid.cols);
        return Ok(match cutter {
            Cutter::Size(k) => Method::Strip {
                code: Code::cookie_cutter(k),
                heap,
            },
            Cutter::Large if heap <= LARGE_STRIP_ENGINE_MAX => Method::Strip {
                code: Code::cookie_cutter(heap as usize),
                heap,
            },
            Cutter::Large => Method::Nim { heap },
        });
    }
    let cells = grid.rows as u128 * grid.cols as u128;
    if cells > MAX_CELLS as u128 {
        return Err(GameError::BoardTooLarge {
            rows: grid.rows,
            cols: grid.cols,
            cells,
        });
    }
    Ok(Method::Board {
        rows: grid.rows as usize,
        cols: grid.cols as usize,
    })
}

/// G(0), …, G(n) of the strip game for this cutter, through the engine.
pub fn strip_values(
    cutter: Cutter,
    n: u64,
    engine: EngineKind,
    threads: usize,
) -> Result<Vec<u32>, JobError> {
    let code = match cutter {
        Cutter::Size(k) => Code::cookie_cutter(k),
        Cutter::Large => return Ok((0..=n as u32).collect()),
    };
    let job = Job {
        code,
        to: n + 1,
        engine,
        threads,
        mask: Default::default(),
    };
    Ok(run::run(&job, &mut |_| {})?.seq.to_u32())
}

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

/// A connected part in canonical form: its bounding box and its squares,
/// row-major with stride `w`. Derived `Ord` picks the canonical symmetry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Shape {
    h: u8,
    w: u8,
    bits: u128,
}

/// The fixed geometry of one board: square `r*cols + c` is bit `r*cols+c`.
struct Frame {
    rows: usize,
    cols: usize,
    /// Distinct non-empty sets of squares one placement covers.
    windows: Vec<u128>,
    /// For each square, the squares one placement can cover together with
    /// it; `None` when every pair can be covered together.
    near: Option<Vec<u128>>,
    /// The squares of column 0 (to find a part's leftmost column).
    col0: u128,
}

impl Frame {
    fn new(rows: usize, cols: usize, cutter: Cutter) -> Frame {
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

    fn full(&self) -> u128 {
        mask_below(self.rows * self.cols)
    }

    /// The part of `pos` that contains its lowest square.
    fn part_of_lowest(&self, near: &[u128], pos: u128) -> u128 {
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
    fn translated(&self, part: u128) -> u128 {
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
    fn canonical(&self, key: u128) -> Shape {
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

/// One cell of a table: its value if found, and the time it took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    pub value: Option<u32>,
    pub seconds: f64,
}

/// The x×y table of values for one cutter (rows x = 1..=rows, columns
/// y = 1..=cols). Strips come from the engine; boards from the search,
/// each given at most `per_cell` (cells that run out stay `None`). Cells
/// are solved smallest first, x×y is reused for y×x, and a board is not
/// tried when a board no larger on either side already ran out. `report`
/// hears of each board tried.
pub fn table(
    solver: &mut Solver,
    rows: usize,
    cols: usize,
    per_cell: Option<Duration>,
    engine: EngineKind,
    threads: usize,
    report: &mut dyn FnMut(usize, usize, &Cell, &Solver),
) -> Result<Vec<Vec<Cell>>, JobError> {
    let blank = Cell {
        value: None,
        seconds: 0.0,
    };
    let mut t = vec![vec![blank; cols]; rows];
    let strip = strip_values(solver.cutter(), rows.max(cols) as u64, engine, threads)?;
    for (x, row) in t.iter_mut().enumerate() {
        for (y, cell) in row.iter_mut().enumerate() {
            if x == 0 || y == 0 {
                cell.value = Some(strip[x.max(y) + 1]);
            }
        }
    }
    let mut boards: Vec<(usize, usize)> = (2..=rows)
        .flat_map(|x| (2..=cols).map(move |y| (x, y)))
        .filter(|&(x, y)| x * y <= MAX_CELLS)
        .collect();
    boards.sort_by_key(|&(x, y)| (x * y, x.max(y), x));
    // Boards (as short side, long side) that ran out of time or memory:
    // a board at least as large on both sides is not tried.
    let mut failed: Vec<(usize, usize)> = Vec::new();
    for (x, y) in boards {
        let (a, b) = (x.min(y), x.max(y));
        if a != x && b <= rows && a <= cols {
            t[x - 1][y - 1] = t[y - 1][x - 1];
            continue;
        }
        if failed.iter().any(|&(fa, fb)| a >= fa && b >= fb) {
            continue;
        }
        let start = Instant::now();
        let value = solver.solve(a, b, per_cell).ok();
        let cell = Cell {
            value,
            seconds: start.elapsed().as_secs_f64(),
        };
        if value.is_none() {
            failed.push((a, b));
        }
        t[x - 1][y - 1] = cell;
        report(x, y, &cell, solver);
    }
    Ok(t)
}

/// Formats a table as the data files do: a header of column numbers, then
/// one line per row, `.` for unknown cells.
pub fn format_table(t: &[Vec<Option<u32>>]) -> String {
    let cols = t.first().map_or(0, |r| r.len());
    let mut s = String::from("x\\y");
    for y in 1..=cols {
        s += &format!(" {y:>3}");
    }
    s.push('\n');
    for (x, row) in t.iter().enumerate() {
        s += &format!("{:>3}", x + 1);
        for v in row {
            match v {
                Some(v) => s += &format!(" {v:>3}"),
                None => s += "   .",
            }
        }
        s.push('\n');
    }
    s
}

/// Parses the format of [`format_table`]; `#` lines are comments.
pub fn parse_table(text: &str) -> Result<Vec<Vec<Option<u32>>>, String> {
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    let header = lines.next().ok_or("no header line")?;
    let cols = header.split_whitespace().count() - 1;
    let mut t = Vec::new();
    for (i, line) in lines.enumerate() {
        let mut words = line.split_whitespace();
        let x: usize = words
            .next()
            .and_then(|w| w.parse().ok())
            .ok_or_else(|| format!("row {}: no row number", i + 1))?;
        if x != i + 1 {
            return Err(format!("row {}: numbered {x}", i + 1));
        }
        let row: Vec<Option<u32>> = words
            .map(|w| match w {
                "." => Ok(None),
                _ => w
                    .parse()
                    .map(Some)
                    .map_err(|_| format!("row {x}: bad cell {w:?}")),
            })
            .collect::<Result<_, _>>()?;
        if row.len() != cols {
            return Err(format!("row {x}: {} cells, header has {cols}", row.len()));
        }
        t.push(row);
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_grids_and_cutters() {
        assert_eq!("3x5".parse(), Ok(Grid { rows: 3, cols: 5 }));
        assert_eq!(
            "1x2e9".parse(),
            Ok(Grid {
                rows: 1,
                cols: 2_000_000_000
            })
        );
        for bad in ["0x5", "5x0", "axb", "3", "3x", "x3", "-1x3", "3x5x2"] {
            assert!(bad.parse::<Grid>().is_err(), "{bad}");
        }
        assert_eq!("7".parse(), Ok(Cutter::Size(7)));
        assert_eq!("inf".parse(), Ok(Cutter::Large));
        for bad in ["0", "-2", "k", ""] {
            assert!(bad.parse::<Cutter>().is_err(), "{bad}");
        }
        assert!(matches!(
            "1e12".parse::<Cutter>(),
            Err(GameError::CutterTooLarge(_))
        ));
    }

    #[test]
    fn methods() {
        let g = |s: &str| s.parse::<Grid>().unwrap();
        assert_eq!(
            method(Cutter::Size(3), g("1x7")),
            Ok(Method::Strip {
                code: "0.337".parse().unwrap(),
                heap: 7
            })
        );
        assert_eq!(
            method(Cutter::Size(3), g("7x1")),
            method(Cutter::Size(3), g("1x7"))
        );
        assert_eq!(
            method(Cutter::Large, g("1x5000")),
            Ok(Method::Nim { heap: 5000 })
        );
        assert_eq!(
            method(Cutter::Size(2), g("8x16")),
            Ok(Method::Board { rows: 8, cols: 16 })
        );
        assert!(matches!(
            method(Cutter::Size(2), g("9x15")),
            Err(GameError::BoardTooLarge { cells: 135, .. })
        ));
    }

    #[test]
    fn canonical_form_ignores_symmetry_and_place() {
        // An L of three squares, drawn four ways in different places of a
        // 4x5 board, has one canonical form.
        let f = Frame::new(4, 5, Cutter::Size(2));
        let bits =
            |cells: &[(usize, usize)]| cells.iter().fold(0u128, |m, &(r, c)| m | 1 << (r * 5 + c));
        let ls = [
            bits(&[(0, 0), (1, 0), (1, 1)]),
            bits(&[(2, 3), (2, 4), (3, 3)]),
            bits(&[(1, 2), (1, 1), (0, 2)]),
            bits(&[(3, 4), (2, 4), (2, 3)]),
        ];
        let shapes: Vec<Shape> = ls.iter().map(|&l| f.canonical(f.translated(l))).collect();
        assert!(shapes.iter().all(|s| *s == shapes[0]), "{shapes:?}");
        assert_eq!(shapes[0].bits.count_ones(), 3);
        let line = f.canonical(f.translated(bits(&[(0, 1), (1, 1), (2, 1)])));
        assert_ne!(line, shapes[0]);
        assert_eq!((line.h, line.w), (1, 3));
    }

    #[test]
    fn parts_follow_the_cutter() {
        // With k=2, squares two apart cannot be covered together.
        let f = Frame::new(3, 5, Cutter::Size(2));
        let near = f.near.as_ref().unwrap();
        let pos = 1u128 | 1 << 2 | 1 << 8;
        let part = f.part_of_lowest(near, pos);
        assert_eq!(part, 1);
        // (0,2) and (1,3) are diagonal neighbours: one part.
        assert_eq!(f.part_of_lowest(near, pos & !1), 1 << 2 | 1 << 8);
        // A 3x3 cutter on a 3x3 board covers everything: no split needed.
        assert!(Frame::new(3, 3, Cutter::Size(3)).near.is_none());
    }

    #[test]
    fn table_format_round_trips() {
        let t = vec![vec![Some(1), Some(2), None], vec![Some(2), None, Some(10)]];
        assert_eq!(parse_table(&format_table(&t)), Ok(t));
        assert!(parse_table("x\\y 1 2\n1 1\n").is_err());
        assert!(parse_table("x\\y 1\n2 1\n").is_err());
    }
}
