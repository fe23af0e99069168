//! The x×y table of values for one cutter, as thesis Table 5.1 gives it,
//! and its text form.

use std::time::{Duration, Instant};

use super::rules::strip_values;
use super::solver::Solver;
use crate::engine::EngineKind;
use crate::games::error::MAX_CELLS;
use crate::run::JobError;

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
