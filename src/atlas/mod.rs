//! The atlas: a census made into a static web site that a researcher can
//! browse and check, from `file://`, with no server and nothing loaded
//! from the network. The field reads hand-kept web tables (a page per
//! game: values, rare values, period) that carry no proofs; the atlas
//! gives the same for every class of a census, from its rows, with the
//! first values recomputed by the engine, the certificates to download
//! and how each claim was checked.
//!
//! [`census`] reads the census directory into typed rows, [`site`] owns
//! the output directory, [`index`] and [`class`] write the pages, [`svg`]
//! the plots; the style sheet and the script are the files in `assets/`.
//! `docs/atlas.md` describes the site.

pub mod census;
mod class;
pub mod html;
mod index;
pub mod site;
pub mod svg;

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use crate::census::Status;
use crate::engine::{mask, EngineKind, Mask};
use crate::store::StoreError;
pub use census::{Census, Row};

/// The style sheet and the script every page loads.
pub const CSS: &str = include_str!("assets/atlas.css");
pub const JS: &str = include_str!("assets/atlas.js");

/// Why an atlas cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum AtlasError {
    /// A census, a row, a certificate or the site directory that cannot
    /// be used as given.
    #[error("{}: {why}", path.display())]
    Input { path: PathBuf, why: String },
    #[error("{} line {line}: {why}", path.display())]
    Row {
        path: PathBuf,
        line: usize,
        why: String,
    },
    /// A row that the values of its game contradict.
    #[error("census row {code}: {why}")]
    Disagrees { code: String, why: String },
    #[error(transparent)]
    Store(StoreError),
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl AtlasError {
    /// Whether the error is in what the user gave (exit 2).
    pub fn is_input(&self) -> bool {
        match self {
            AtlasError::Input { .. } | AtlasError::Row { .. } | AtlasError::Disagrees { .. } => {
                true
            }
            AtlasError::Store(e) => {
                e.is_input() || matches!(e, StoreError::Output { .. } | StoreError::InUse(_))
            }
            AtlasError::Io { .. } => false,
        }
    }
}

/// How an atlas is made.
#[derive(Debug, Clone)]
pub struct Options {
    /// The most values computed, plotted and tabulated per class.
    pub plot: u64,
    /// Threads computing the classes.
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            plot: 1 << 16,
            threads: 1,
        }
    }
}

/// What was made.
#[derive(Debug, Clone)]
pub struct Built {
    pub classes: usize,
    pub files: usize,
    pub index_bytes: u64,
    pub site_bytes: u64,
    pub seconds: f64,
}

/// Where a class' rare positions come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RareSource {
    /// The row's `rare_list`: every one up to the reach.
    Listed,
    /// Derived from the first values with the row's mask: those below
    /// the plotted range; `complete` when they are all the census counts.
    Derived { mask: Mask, complete: bool },
    /// None to show: the row has no sparse-space mask.
    NoMask,
}

/// One class, ready to be written: its row, its first values and its
/// rare positions.
pub struct Class<'a> {
    pub row: &'a Row,
    pub values: Vec<u32>,
    /// Rare positions (heap, value), those the plot and table show.
    pub rare: Vec<(u64, u32)>,
    pub source: RareSource,
}

/// How many values a class' page shows: a period's preperiod and two
/// periods (at least 100, all read off a proven period), else the reach;
/// never more than `most`.
pub fn shown(row: &Row, most: u64) -> u64 {
    let r = &row.result;
    let n = match r.status {
        Status::Periodic {
            period, preperiod, ..
        } => preperiod.saturating_add(period.saturating_mul(2)).max(100),
        _ => r.reach,
    };
    n.min(most)
}

/// Computes a class' first values and checks the row against them: its
/// G(2^j), its largest value where the values cover it, its rare list.
pub fn class<'a>(row: &'a Row, most: u64) -> Result<Class<'a>, AtlasError> {
    let code = row.code();
    let r = &row.result;
    let n = shown(row, most) as usize;
    let mut engine = EngineKind::Sparse.build(&code, 1);
    let values = crate::compute(engine.as_mut(), n);
    let disagrees = |why: String| AtlasError::Disagrees {
        code: r.code.clone(),
        why,
    };
    for (j, &want) in r.at_powers_of_two.iter().enumerate() {
        let at = 1usize << j;
        if let Some(&got) = values.get(at) {
            if got != want {
                return Err(disagrees(format!(
                    "it gives G({at}) = {want}, the engine {got}"
                )));
            }
        }
    }
    let covers_max = match r.status {
        Status::Periodic {
            period, preperiod, ..
        } => (n as u64) >= preperiod + period,
        _ => n as u64 >= r.reach,
    };
    let max = values.iter().copied().max().unwrap_or(0);
    if covers_max && max != r.max_value {
        return Err(disagrees(format!(
            "its largest value is {}, the engine's {max} in the first {n}",
            r.max_value
        )));
    }
    let (rare, source) = match (&row.result.rare_list, row.mask()) {
        (Some(list), _) => {
            if let Some(&(at, g)) = list
                .iter()
                .find(|&&(at, g)| values.get(at as usize).is_some_and(|&v| v != g))
            {
                return Err(disagrees(format!(
                    "its rare list gives G({at}) = {g}, the engine {}",
                    values[at as usize]
                )));
            }
            (list.clone(), RareSource::Listed)
        }
        (None, Some((bits, pp))) => derive_rare(row, &values, bits, pp)
            .map(|(m, rare, complete)| (rare, RareSource::Derived { mask: m, complete }))
            .ok_or_else(|| {
                disagrees(format!(
                    "its mask 0x{bits:x} does not give the rare positions it counts"
                ))
            })?,
        (None, None) => (Vec::new(), RareSource::NoMask),
    };
    Ok(Class {
        row,
        values,
        rare,
        source,
    })
}

/// A mask, the rare positions (heap, value) it gives and whether they
/// are all the census counts.
type Reading = (Mask, Vec<(u64, u32)>, bool);

/// The rare positions n ≥ 1 among `values` under the row's mask (the
/// engine's definition, [`Mask::is_rare`]), with whether they are all the
/// row counts. A row whose position parity is not said is read both
/// ways; the reading that fits its count and last rare position is taken
/// (the fewer rare positions if both fit, as the engine's choice of mask
/// makes them). `None` when no reading fits.
fn derive_rare(row: &Row, values: &[u32], bits: u32, pp: Option<bool>) -> Option<Reading> {
    let code = row.code();
    let (i0, allow_pp) = mask::split_parity(&code.rules().take_split);
    let readings: Vec<bool> = match pp {
        Some(p) => vec![p],
        None if allow_pp => vec![false, true],
        None => vec![false],
    };
    let (count, last) = (row.result.rare_positions, row.result.last_rare_at);
    let n = values.len() as u64;
    let mut best: Option<Reading> = None;
    for pp in readings {
        let m = Mask { bits, pp };
        let rare: Vec<(u64, u32)> = values
            .iter()
            .enumerate()
            .skip(1)
            .filter(|&(i, &v)| m.is_rare(i, v, i0))
            .map(|(i, &v)| (i as u64, v))
            .collect();
        let k = rare.len() as u64;
        // All of them are below the plotted range when the last is.
        let all_here = last.is_some_and(|l| l < n) || n >= row.result.reach;
        let fits = count.is_none_or(|c| if all_here { k == c } else { k <= c })
            && last.is_none_or(|l| rare.last().is_none_or(|r| r.0 <= l))
            && (!all_here || last.is_none() || rare.last().map(|r| r.0) == last);
        if fits && best.as_ref().is_none_or(|b| rare.len() < b.1.len()) {
            best = Some((m, rare, all_here));
        }
    }
    best
}

/// Writes the atlas of the census in `census` into `site`.
pub fn build(census: &Path, site: &Path, opts: &Options) -> Result<Built, AtlasError> {
    let started = Instant::now();
    let c = census::read(census)?;
    let out = site::Site::open(site, census, c.inputs())?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads.max(1))
        .build()
        .ok();
    let work = || {
        c.rows
            .par_iter()
            .with_max_len(1)
            .map(|row| {
                let k = class(row, opts.plot)?;
                Ok((class::page(&k, &c), index::Entry::of(&k, &c)))
            })
            .collect::<Result<Vec<_>, AtlasError>>()
    };
    let pages = match &pool {
        Some(pool) => pool.install(work)?,
        None => work()?,
    };
    let mut files: Vec<(String, Vec<u8>)> = vec![
        ("atlas.css".into(), CSS.as_bytes().to_vec()),
        ("atlas.js".into(), JS.as_bytes().to_vec()),
    ];
    let entries: Vec<index::Entry> = pages.iter().map(|p| p.1.clone()).collect();
    files.push(("index.html".into(), index::page(&entries, &c).into_bytes()));
    for ((page, _), row) in pages.into_iter().zip(&c.rows) {
        files.push((class::path(&row.result.code), page.into_bytes()));
    }
    for (code, path) in &c.certificates {
        let bytes = std::fs::read(path).map_err(|e| AtlasError::Io {
            path: path.clone(),
            error: e,
        })?;
        files.push((class::certificate_path(code), bytes));
    }
    let names: Vec<String> = files.iter().map(|f| f.0.clone()).collect();
    out.begin(&names)?;
    for (name, bytes) in &files {
        out.write(name, bytes)?;
    }
    out.finish(&names)?;
    let size = |name: &str| files.iter().find(|f| f.0 == name).map_or(0, |f| f.1.len());
    Ok(Built {
        classes: c.rows.len(),
        files: files.len() + 1,
        index_bytes: size("index.html") as u64,
        site_bytes: files.iter().map(|f| f.1.len() as u64).sum(),
        seconds: started.elapsed().as_secs_f64(),
    })
}
