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
//! `docs/atlas.md` describes the site.//!
//! [`error`] and [`values`] (each class' first values and rare positions)
//! are the leaves the others read.

pub mod census;
mod class;
pub mod error;
pub mod html;
mod index;
pub mod site;
pub mod svg;
pub mod values;

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

pub use census::{Census, Row};
pub use error::AtlasError;
pub use values::{class, shown, Class, RareSource};

/// The style sheet and the script every page loads.
pub const CSS: &str = include_str!("assets/atlas.css");
pub const JS: &str = include_str!("assets/atlas.js");

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
