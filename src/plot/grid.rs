//! The one parallel pass over the values: their largest, and their counts
//! per (pixel column, row) cell, so plotting 10^9 values hands the drawing
//! library at most a few hundred thousand rectangles.

use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::plot::values::Values;

/// Values are read in chunks of this many.
const CHUNK: usize = 1 << 16;

/// The largest of G(range), in one parallel pass.
pub fn max_value(values: &dyn Values, range: Range<u64>) -> io::Result<u32> {
    let chunks: Vec<Range<u64>> = chunked(range, CHUNK as u64).collect();
    chunks
        .into_par_iter()
        .map_init(Vec::new, |buf, r| {
            buf.resize((r.end - r.start) as usize, 0);
            values.read(r.start, buf)?;
            Ok(buf.iter().copied().max().unwrap_or(0))
        })
        .try_reduce(|| 0, |a, b| Ok(a.max(b)))
}

fn chunked(range: Range<u64>, size: u64) -> impl Iterator<Item = Range<u64>> {
    (range.start..range.end)
        .step_by(size as usize)
        .map(move |s| s..(s + size).min(range.end))
}

/// Counts of values per (column, row) cell: `counts[c][r]` is how many n in
/// `bounds[c]..bounds[c + 1]` have a value in row r (row 0 is value 0, row
/// `rows − 1` is `top`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    pub bounds: Vec<u64>,
    pub rows: usize,
    pub top: u32,
    pub counts: Vec<Vec<u32>>,
}

impl Grid {
    /// The row value `v` falls in.
    #[inline]
    pub fn row(&self, v: u32) -> usize {
        row_of(v, self.top, self.rows)
    }
}

#[inline]
pub(crate) fn row_of(v: u32, top: u32, rows: usize) -> usize {
    if top == 0 {
        return 0;
    }
    let r = (v as f64 * (rows - 1) as f64 / top as f64 + 0.5) as usize;
    r.min(rows - 1)
}

/// Aggregates the values into a grid in one parallel pass over the columns
/// `bounds[c]..bounds[c+1]` (non-decreasing). `progress` is told how many
/// values are done so far.
pub fn aggregate(
    values: &dyn Values,
    bounds: Vec<u64>,
    rows: usize,
    top: u32,
    progress: &(dyn Fn(u64) + Sync),
) -> io::Result<Grid> {
    assert!(rows > 0 && bounds.windows(2).all(|w| w[0] <= w[1]));
    let done = AtomicU64::new(0);
    // Values up to 2^16 find their row in a table; larger ones compute it.
    let table: Vec<u32> = (0..=top.min(1 << 16))
        .map(|v| row_of(v, top, rows) as u32)
        .collect();
    let counts = bounds
        .par_windows(2)
        .map_init(Vec::new, |buf, w| {
            let mut col = vec![0u32; rows];
            for r in chunked(w[0]..w[1], CHUNK as u64) {
                buf.resize((r.end - r.start) as usize, 0);
                values.read(r.start, buf)?;
                for &v in buf.iter() {
                    let row = match table.get(v as usize) {
                        Some(&r) => r as usize,
                        None => row_of(v, top, rows),
                    };
                    col[row] += 1;
                }
                let d = done.fetch_add(r.end - r.start, Ordering::Relaxed) + (r.end - r.start);
                progress(d);
            }
            Ok(col)
        })
        .collect::<io::Result<Vec<_>>>()?;
    Ok(Grid {
        bounds,
        rows,
        top,
        counts,
    })
}
