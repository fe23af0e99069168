//! `octal run` and `octal resume`: compute a sequence, in memory or in
//! a store that a later `resume` continues.

use super::prelude::*;

#[derive(clap::Args)]
pub struct RunArgs {
    /// The octal code, e.g. 0.6, .137 or 4.7; hexadecimal 0.1F; or grundy (= 4.0u).
    pub code: String,
    /// How many values: 1000000, 1e6, 2.5e6, 2^20 or 1_000_000.
    #[arg(long, allow_hyphen_values = true)]
    pub to: String,
    #[command(flatten)]
    pub report: Report,
    #[command(flatten)]
    pub engine: EngineOpts,
    /// Compute all N values even once a period is proven.
    #[arg(long)]
    pub keep_going: bool,
    #[command(flatten)]
    pub notation: NotationOpts,
    /// Keep the values in this store (default: runs/CODE.octal); an
    /// existing store of the same code is resumed.
    #[arg(long, value_name = "PATH", conflicts_with = "no_store")]
    pub store: Option<PathBuf>,
    /// Compute in memory only, without a store.
    #[arg(long)]
    pub no_store: bool,
    #[command(flatten)]
    pub store_opts: StoreOpts,
    #[command(flatten)]
    pub window: super::window::WindowOpts,
    /// With --window: write the values into this zstd sequence file (the
    /// format of `octal export`) as they are made; `resume` goes on with it.
    #[arg(long, value_name = "FILE", requires = "window")]
    pub export: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct ResumeArgs {
    /// The store, e.g. runs/0.6.octal.
    pub path: PathBuf,
    /// New target (default: the store's own target).
    #[arg(long, allow_hyphen_values = true)]
    pub to: Option<String>,
    #[command(flatten)]
    pub report: Report,
    /// Compute all N values even once a period is proven.
    #[arg(long)]
    pub keep_going: bool,
    #[command(flatten)]
    pub notation: NotationOpts,
    #[command(flatten)]
    pub engine: EngineOpts,
    #[command(flatten)]
    pub store_opts: StoreOpts,
    /// A windowed run: go on with another --window (no longer than the
    /// values it kept) or --prefix (a longer one is recomputed from G(0)).
    #[command(flatten)]
    pub window: super::window::WindowOpts,
}

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let RunArgs {
        code,
        to,
        report,
        engine,
        keep_going,
        notation,
        store,
        no_store,
        store_opts,
        window,
        export,
    } = args;
    let job = engine.job(parse_code(&code)?, parse_to("to", &to)?)?;
    if let Some(sizes) = window.sizes()? {
        let path =
            (!no_store).then(|| store.unwrap_or_else(|| octal::window::default_path(&job.code)));
        return super::window::run(
            &job,
            sizes,
            export,
            path,
            super::window::How::new(report, keep_going, &notation, &store_opts, &window)?,
        );
    }
    if !no_store {
        let path = store.unwrap_or_else(|| default_store(&job.code));
        if job.to == 0 {
            return Err(JobError::Empty.into());
        }
        store::check_space(&path, job.to, 2)?;
        suggest_window(job.to, report.quiet || report.json);
        let (store, _) = Store::open_or_create(&path, &job.code, job.to, store_opts.chunk_values)?;
        return print_stored_run(store, job, &store_opts, report, keep_going, &notation);
    }
    let bar = progress_bar(job.to, report.quiet || report.json);
    let mut outcome = run::run_until(&job, !keep_going, &mut |p| update(&bar, p))?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let known = outcome.summary.values as usize;
    notation.apply(&mut outcome.summary, outcome.seq.view(0, known))?;
    print_summary(&outcome.summary, report.json)?;
    Ok(ExitCode::SUCCESS)
}

pub fn resume(args: ResumeArgs) -> Result<ExitCode> {
    let ResumeArgs {
        path,
        to,
        report,
        keep_going,
        notation,
        engine,
        store_opts,
        window,
    } = args;
    if octal::window::file::detect(&path) {
        if engine.chosen() {
            return Err(input(format!(
                "{}: a windowed run goes on with the sparse engine and the mask it chose; drop --engine and --mask",
                path.display()
            )));
        }
        let to = to.map(|t| parse_to("to", &t)).transpose()?;
        let threads = engine.threads()?;
        return super::window::resume(
            &path,
            to,
            threads,
            window.sizes()?,
            super::window::How::new(report, keep_going, &notation, &store_opts, &window)?,
        );
    }
    if window.window.is_some() {
        return Err(input(format!(
            "{}: --window is for a windowed run's checkpoint, not a store",
            path.display()
        )));
    }
    if seqfile::detect(&path)? == Some(Kind::SeqFile) {
        return Err(input(format!(
            "{} is an exported sequence file; `octal import {} --store STORE` makes a store to resume",
            path.display(),
            path.display()
        )));
    }
    let store = Store::open(&path, true)?;
    let to = match to {
        Some(to) => parse_to("to", &to)?,
        None => store.checkpoint().target,
    };
    if to == 0 {
        return Err(JobError::Empty.into());
    }
    store::check_space(&path, to, store.width() as u64)?;
    let job = engine.job(store.code().clone(), to)?;
    print_stored_run(store, job, &store_opts, report, keep_going, &notation)
}

/// Says on stderr when a store of `to` values will not fit in memory (it
/// still runs, paged from disk, but slowly): a window would.
fn suggest_window(to: u64, quiet: bool) {
    let need = to.saturating_mul(2);
    match run::total_memory() {
        Some(have) if need > have && !quiet => eprintln!(
            "octal: note: {to} values take {} and this machine has {} of memory; a sparse-space game runs in a window of fixed size whatever --to (--window 2^24: 40 MiB)",
            store::human_bytes(need),
            store::human_bytes(have)
        ),
        _ => {}
    }
}
