//! `octal run CODE --window W` and the resume of such a run: a windowed
//! run ([`octal::window`]), with its checkpoint file, progress bar,
//! signals, and what it says when it stops at a heap it cannot decide.

use octal::window::{self, Sizes, WindowEnding, WindowError, Windowed};

use super::prelude::*;

/// `--window` and `--prefix`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct WindowOpts {
    /// Keep only a prefix and the last W values (default 2^24: 40 MiB with
    /// the prefix), in memory that does not grow with --to: sparse-space
    /// games only. A heap the kept values cannot decide stops the run
    /// (exit 4), never a guess.
    // No hyphen values: `--window --no-store` is a bare --window.
    #[arg(long, value_name = "W", num_args = 0..=1, default_missing_value = "2^24")]
    pub window: Option<String>,
    /// With --window: how many values from G(0) on to keep (default: a
    /// quarter of the window; rare positions and the witness pairs' small
    /// parts must lie in it).
    #[arg(long, value_name = "P", requires = "window")]
    pub prefix: Option<String>,
    /// With --window: when a heap needs a longer prefix, recompute G(0..P')
    /// from scratch (P' twice the prefix) and go on, up to this many
    /// values (default: the most the window keeps, three quarters of it);
    /// a value no longer than the prefix stops the run there instead.
    #[arg(long, value_name = "P", requires = "window")]
    pub grow_prefix_to: Option<String>,
}

impl WindowOpts {
    /// The sizes asked for, if a window is.
    pub fn sizes(&self) -> Result<Option<Sizes>> {
        let Some(w) = &self.window else {
            return Ok(None);
        };
        let window = parse_to("window", w)?;
        let prefix = self
            .prefix
            .as_deref()
            .map(|p| parse_to("prefix", p))
            .transpose()?;
        Ok(Some(Sizes::new(window, prefix).map_err(input)?))
    }

    /// `--grow-prefix-to`, if given.
    pub fn grow_to(&self) -> Result<Option<u64>> {
        self.grow_prefix_to
            .as_deref()
            .map(|p| parse_to("grow-prefix-to", p))
            .transpose()
    }
}

/// Lets `w` grow its prefix up to `cap` (default: as far as its window
/// allows), saying so on stderr each time it does.
fn let_grow(w: &mut Windowed, cap: Option<u64>, bar: &Option<Bar>) {
    w.allow_growth(cap);
    let (bar, code) = (bar.clone(), w.code().to_string());
    w.on_grow(move |g| {
        let line = format!("octal: {code}: {g}; going on");
        match &bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    });
}

/// A window error as the binary reports it: bad input (exit 2) or not.
fn report(e: WindowError) -> anyhow::Error {
    if e.is_input() {
        input(e)
    } else {
        match e {
            WindowError::Store(s) => s.into(),
            WindowError::Engine(e) => JobError::from(e).into(),
            e => e.into(),
        }
    }
}

/// How a windowed run is driven and reported: the flags of `run` and
/// `resume` that it shares with a stored run.
pub struct How<'a> {
    pub report: Report,
    pub keep_going: bool,
    pub notation: &'a NotationOpts,
    pub store_opts: &'a StoreOpts,
    /// `--grow-prefix-to` (None: as far as the window allows).
    pub grow_to: Option<u64>,
}

impl<'a> How<'a> {
    /// What `run` and `resume` were told, for a windowed run.
    pub fn new(
        report: Report,
        keep_going: bool,
        notation: &'a NotationOpts,
        store_opts: &'a StoreOpts,
        window: &WindowOpts,
    ) -> Result<Self> {
        Ok(How {
            report,
            keep_going,
            notation,
            store_opts,
            grow_to: window.grow_to()?,
        })
    }
}

/// `octal run CODE --to N --window W`: a new windowed run, or the one
/// already checkpointed at the path (of the same code).
pub fn run(
    job: &Job,
    sizes: Sizes,
    export: Option<PathBuf>,
    path: Option<PathBuf>,
    how: How,
) -> Result<ExitCode> {
    if job.engine != EngineKind::Sparse {
        return Err(input(
            "--window runs the sparse engine only (drop --engine)",
        ));
    }
    if job.mask != octal::engine::MaskSpec::Auto {
        return Err(input(
            "--window chooses its own sparse-space mask (drop --mask)",
        ));
    }
    if job.to == 0 {
        return Err(JobError::Empty.into());
    }
    // Signals first: a Ctrl-C once the checkpoint file exists checkpoints.
    let stop = octal::run::stored::stop_on_signals().context("installing signal handlers")?;
    let w = window::open_or_new(
        &job.code,
        job.to,
        sizes,
        job.threads,
        path.as_deref(),
        export.as_deref(),
    )
    .map_err(report)?;
    say_if_done(&w);
    print_windowed_run(w, how, &stop)
}

/// `octal resume PATH` of a windowed run's checkpoint, with other sizes
/// if given (where that is sound: [`Windowed::resize`]).
pub fn resume(
    path: &Path,
    to: Option<u64>,
    threads: usize,
    sizes: Option<Sizes>,
    how: How,
) -> Result<ExitCode> {
    if to == Some(0) {
        return Err(JobError::Empty.into());
    }
    let stop = octal::run::stored::stop_on_signals().context("installing signal handlers")?;
    let mut w = Windowed::resume(path, to, threads).map_err(report)?;
    if let Some(sizes) = sizes {
        w.resize(sizes)
            .map_err(|e| input(format!("{}: {e}", path.display())))?;
    }
    say_if_done(&w);
    print_windowed_run(w, how, &stop)
}

/// Says when a windowed run has nothing left to do (a target below what
/// it has done is refused when it is opened).
fn say_if_done(w: &Windowed) {
    let (done, to) = (w.meta().done, w.meta().to);
    // A run whose export is still open has its finish left to do.
    if to == done && w.meta().export.is_none() {
        let path = w
            .path()
            .map_or("the run".into(), |p| p.display().to_string());
        eprintln!("octal: {path}: nothing to compute: it has done the {done} values asked for");
    }
}

/// Runs `w` to its end with progress, checkpoints and signals, then
/// prints its summary (with the notation `notation` asks for).
fn print_windowed_run(
    mut w: Windowed,
    how: How,
    stop: &std::sync::atomic::AtomicUsize,
) -> Result<ExitCode> {
    let How {
        report: r,
        keep_going,
        notation,
        store_opts,
        grow_to,
    } = how;
    let every = store_opts.every()?;
    let bar = progress_bar(w.meta().to, r.quiet || r.json);
    let_grow(&mut w, grow_to, &bar);
    if let Some(bar) = &bar {
        bar.start_at(w.meta().done);
    }
    let ending = w.run(!keep_going, every, Some(stop), &mut |p| update(&bar, p));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let ending = ending.map_err(report)?;
    let place = w
        .path()
        .map(|p| format!("; `octal resume {}` continues", p.display()))
        .unwrap_or_default();
    match ending {
        WindowEnding::Stopped(status) => {
            // What the values computed so far show, then where they stop.
            print(&w.summary(), r.json)?;
            eprintln!(
                "octal: interrupted: checkpoint saved at {} values{place}",
                w.meta().done
            );
            return Ok(ExitCode::from(status as u8));
        }
        WindowEnding::Halted(why) => {
            let mut s = w.summary();
            let unkept = apply_notation(&mut w, &mut s.summary, notation)?;
            print(&s, r.json)?;
            eprintln!("octal: stopped: {why}");
            if let Some(e) = unkept {
                eprintln!("octal: {e}");
            }
            return Ok(ExitCode::from(window::EXIT_UNDECIDED));
        }
        WindowEnding::Done => {}
    }
    let mut s = w.summary();
    let unkept = apply_notation(&mut w, &mut s.summary, notation)?;
    print(&s, r.json)?;
    match unkept {
        Some(e) => Err(input(e)),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// `--notation` of a windowed run, from the values it still holds; when
/// it no longer holds the first period's, why it cannot be written (the
/// run itself is done and saved).
fn apply_notation(
    w: &mut Windowed,
    s: &mut Summary,
    notation: &NotationOpts,
) -> Result<Option<String>> {
    if !notation.asked() {
        return Ok(None);
    }
    let end = s
        .period
        .or(s.apparent_period)
        .map_or(0, |p| p.preperiod + p.period);
    let kept = w.kept_values();
    let first: Option<Vec<u16>> = (0..end as usize)
        .map(|n| kept.get(n).map(|v| v as u16))
        .collect();
    match first {
        Some(g) => notation.apply(s, SeqRef::U16(&g)).map(|()| None),
        None => Ok(Some(format!(
            "--notation: the first period ends at G({}), but the window holds only G(0..{}) and G({}..) now; a run with --store keeps every value",
            end - 1,
            kept.prefix.len(),
            kept.lo
        ))),
    }
}

/// The summary of a windowed run: as a full run's, then the window's
/// own lines.
fn print(s: &window::WindowSummary, json: bool) -> Result<()> {
    if json {
        outln!("{}", serde_json::to_string(s)?);
        return Ok(());
    }
    print_summary(&s.summary, false)?;
    let kept = if s.kept_from == 0 {
        "nothing dropped yet".to_string()
    } else {
        format!("G(0..{}) and G({}..) kept", s.prefix, s.kept_from)
    };
    outln!(
        "window: {} values, prefix {} ({kept}; {} of values at most); periods up to {} looked for, longer ones not",
        s.window,
        s.prefix,
        store::human_bytes(s.memory_bytes),
        s.periods_searched_up_to
    );
    let powers: Vec<String> = s
        .powers_of_two
        .iter()
        .rev()
        .take(4)
        .rev()
        .map(|(n, v)| format!("G({n})={v}"))
        .collect();
    if !powers.is_empty() {
        outln!("at powers of two: … {} (all in --json)", powers.join(", "));
    }
    for g in &s.prefix_grown {
        outln!(
            "prefix grown at heap {}: {} → {} values, recomputed from scratch in {:.2} s",
            g.at,
            g.from,
            g.to,
            g.seconds
        );
    }
    if let Some(x) = &s.exported {
        outln!("values written to {}", x.display());
    }
    Ok(())
}

/// A family member in a window at `path` (resumed if it exists): its
/// summary, or why it has none (a stop at a heap the window cannot
/// decide, or a signal).
pub fn member(
    job: &Job,
    sizes: Sizes,
    path: &Path,
    stop: &std::sync::atomic::AtomicUsize,
    stop_at_proof: bool,
    bar: &Option<Bar>,
) -> Result<Summary, String> {
    let mut w = window::open_or_new(&job.code, job.to, sizes, job.threads, Some(path), None)
        .map_err(|e| e.to_string())?;
    let_grow(&mut w, None, bar);
    let every = Duration::from_secs_f64(octal::run::stored::CHECKPOINT_SECONDS);
    let ending = w
        .run(stop_at_proof, every, Some(stop), &mut |p| update(bar, p))
        .map_err(|e| report(e).to_string())?;
    match ending {
        WindowEnding::Done => Ok(w.summary().summary),
        WindowEnding::Halted(why) => Err(format!("stopped: {why}")),
        WindowEnding::Stopped(_) => Err(format!(
            "interrupted: checkpoint saved at {} values in {}",
            w.meta().done,
            path.display()
        )),
    }
}
