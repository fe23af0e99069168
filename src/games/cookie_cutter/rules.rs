//! What is played: the cutter and the grid as the user gives them, and how
//! a grid's value is found ([`method`]): a strip through the octal engine
//! (Lemma 5.1.2), a long strip under an arbitrarily large cutter as Nim, a
//! board by the search.

use std::fmt;
use std::str::FromStr;

use crate::code::Code;
use crate::engine::EngineKind;
use crate::games::error::{GameError, MAX_CELLS, MAX_K};
use crate::run::{self, Job, JobError};

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
