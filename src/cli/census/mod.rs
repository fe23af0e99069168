//! `octal census`: every octal code of up to D digits, run as one
//! resumable batch, classified and grouped into classes of equal
//! sequences (see the library's `census` module).
//!
//! `args` holds the flags, `files` the census directory, `code` one code's
//! run, `tables` the tables written at the end, `slurm` the cluster way;
//! this file runs the batch in its three rounds.

mod args;
mod code;
mod files;
mod slurm;
mod tables;

use std::sync::atomic::{AtomicUsize, Ordering};

use octal::census::{self, CodeResult, Status};
use rayon::prelude::*;

pub use args::CensusArgs;
use args::{further, kind, which};
use code::{members_to_check, run_code, MEMBER_CAP_FACTOR};
use files::{hold, inspect, result_path, store_path};
use slurm::{collect, prepare_slurm};
use tables::{equivalences, tables};

use crate::cli::prelude::*;

pub fn census(args: CensusArgs) -> Result<ExitCode> {
    let entries = octal::census::codes(
        args.digits,
        &census::parse_prefixes(&args.prefix).map_err(input)?,
        args.hex,
    )
    .map_err(input)?;
    if args.list {
        for e in &entries {
            outln!("{}", e.code);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let to = parse_to("to", &args.to)?;
    run::check_in_memory(to)?;
    if let Some(dir) = &args.slurm {
        return prepare_slurm(&args, &entries, to, dir);
    }
    if let Some(dir) = &args.collect {
        return collect(&args, &entries, to, dir);
    }
    if !args.member_budget.is_none_or(|f| f >= 0.0 && f.is_finite()) {
        return Err(input("--member-budget must be a number of 0 or more"));
    }
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("runs").join(format!("census-{}", kind(&args))));
    let further = further(&args, &entries, to)?;
    // A kept result may have gone as far as the furthest target.
    let most = further.iter().map(|&(_, n)| n).fold(to, u64::max);
    let (_lock, batch) = Batch::new(&args, &entries, &dir, most)?;
    let probe = parse_to("probe", &args.probe)?.min(to);
    let stores: Vec<PathBuf> = entries.iter().map(|e| store_path(&dir, &e.code)).collect();
    let targets = Targets { to, further };
    let results = match batch.rounds(probe, &targets, args.member_budget, &stores)? {
        Ok(results) => results,
        Err(code) => return Ok(code),
    };
    tables(&args, &dir, to, &results, &stores)?;
    Ok(ExitCode::SUCCESS)
}

/// Makes the census directory's folders, takes its lock and sweeps what a
/// killed census left; the lock is held while it lives.
fn prepare_dir(dir: &Path, entries: &[census::Entry]) -> Result<octal::store::output::PathLock> {
    octal::slurm::check_subdirs(dir).map_err(crate::cli::family::slurm_error)?;
    for sub in ["stores", "results"] {
        std::fs::create_dir_all(dir.join(sub))
            .with_context(|| format!("cannot write {}", dir.join(sub).display()))?;
    }
    let lock = hold(dir)?;
    for e in entries {
        octal::store::output::sweep(&store_path(dir, &e.code));
        octal::store::output::sweep(&result_path(dir, &e.code));
    }
    Ok(lock)
}

fn progress_bar(codes: usize) -> ProgressBar {
    let bar = ProgressBar::new(codes as u64);
    bar.set_style(
        ProgressStyle::with_template("census [{elapsed_precise}] {bar:30} {pos}/{len} codes {msg}")
            .expect("valid template"),
    );
    bar
}

/// How far each class goes: `to`, or further for the classes of the
/// `further` codes (index into the census' entries, values).
struct Targets {
    to: u64,
    further: Vec<(usize, u64)>,
}

impl Targets {
    /// The target of the class whose first code is `first`.
    fn of_class(&self, first: usize, class_of: &[usize]) -> u64 {
        self.further
            .iter()
            .filter(|&&(j, _)| class_of[j] == first)
            .map(|&(_, n)| n)
            .fold(self.to, u64::max)
    }
}

/// The codes of a census and what runs them.
struct Batch<'a> {
    entries: &'a [census::Entry],
    /// Each code's time cap.
    cap: Duration,
    dir: &'a Path,
    stop: std::sync::Arc<AtomicUsize>,
    /// What the directory held of each code, checked.
    kept: Vec<Option<CodeResult>>,
    pool: Option<rayon::ThreadPool>,
    bar: Option<ProgressBar>,
}

impl<'a> Batch<'a> {
    /// The batch of `entries` in the census directory `dir` (made, locked
    /// and swept; the lock is held while it lives), with what `dir`
    /// already holds of each code checked against `to`, the furthest
    /// target.
    fn new(
        args: &CensusArgs,
        entries: &'a [census::Entry],
        dir: &'a Path,
        to: u64,
    ) -> Result<(octal::store::output::PathLock, Batch<'a>)> {
        let cap = Duration::try_from_secs_f64(args.member_seconds)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| input("--member-seconds must be a positive number of seconds"))?;
        let jobs = threads(args.jobs)?;
        // At worst every code runs into its cap twice (probe and extension).
        let worst = 2.0 * entries.len() as f64 * cap.as_secs_f64() / jobs as f64;
        if worst > 4.0 * 3600.0 && !args.quiet {
            eprintln!(
                "octal: {} games at up to {} s each on {jobs} jobs: at most {:.0} h here (most end far sooner); \
                 on a cluster, `octal census {} --to N --slurm DIR`",
                entries.len(),
                cap.as_secs_f64(),
                worst / 3600.0,
                which(args),
            );
        }
        // One census at a time in a directory; what a killed one left goes.
        let lock = prepare_dir(dir, entries)?;
        let stop = octal::run::stored::stop_on_signals().context("installing signal handlers")?;
        let show = !(args.quiet || args.json) && std::io::stderr().is_terminal();
        // What the directory holds, checked before anything runs: a result
        // is used only with the values it was made from.
        let kept = entries
            .iter()
            .map(|e| inspect(e, dir, to))
            .collect::<Result<_>>()?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .ok();
        let batch = Batch {
            entries,
            cap,
            dir,
            stop,
            kept,
            pool,
            bar: show.then(|| progress_bar(entries.len())),
        };
        Ok((lock, batch))
    }

    /// Runs each code `i` of `which` to its own target, within `cap`.
    fn run_all(&self, which: &[(usize, u64)], cap: Duration) -> Vec<Result<CodeResult>> {
        let entries = self.entries;
        let work = || {
            which
                .par_iter()
                .with_max_len(1)
                .map(|&(i, target)| {
                    let r = run_code(
                        &entries[i],
                        target,
                        cap,
                        self.dir,
                        &self.stop,
                        self.kept[i].as_ref(),
                    );
                    if let Some(bar) = &self.bar {
                        bar.inc(1);
                        bar.set_message(entries[i].code.to_string());
                    }
                    r
                })
                .collect()
        };
        match &self.pool {
            Some(pool) => pool.install(work),
            None => work(),
        }
    }

    /// The exit code of a signal that stopped the batch, said on stderr.
    fn interrupted(&self) -> Option<ExitCode> {
        match self.stop.load(Ordering::SeqCst) {
            0 => None,
            status => {
                eprintln!("octal: interrupted; run the same command again to go on");
                Some(ExitCode::from(status as u8))
            }
        }
    }

    fn grow_bar(&self, by: usize) {
        if let Some(bar) = &self.bar {
            bar.set_length(bar.length().unwrap_or(0) + by as u64);
        }
    }

    /// Every code briefly (to `probe`); then one code of each class that
    /// is still open (to its target); then the members worth taking on
    /// to their class' reach. `Err` holds the exit code when a signal
    /// stopped it.
    fn rounds(
        &self,
        probe: u64,
        targets: &Targets,
        member_budget: Option<f64>,
        stores: &[PathBuf],
    ) -> Result<std::result::Result<Vec<CodeResult>, ExitCode>> {
        let n = self.entries.len();
        let (mut results, eq) = match self.probe(probe, stores)? {
            Ok(probed) => probed,
            Err(code) => return Ok(Err(code)),
        };
        let extend: Vec<(usize, u64)> = (0..n)
            .filter(|&i| eq.class_of[i] == i)
            .filter(|&i| !matches!(results[i].status, Status::Periodic { .. }))
            .map(|i| (i, targets.of_class(i, &eq.class_of)))
            .filter(|&(i, target)| results[i].reach < target)
            .collect();
        // Classes run further get a member's cap.
        let (further, usual): (Vec<_>, Vec<_>) =
            extend.into_iter().partition(|&(_, t)| t > targets.to);
        if let Some(code) = self.again(&usual, self.cap, &mut results)? {
            return Ok(Err(code));
        }
        if let Some(code) = self.again(&further, self.cap * MEMBER_CAP_FACTOR, &mut results)? {
            return Ok(Err(code));
        }
        let members = members_to_check(&results, &eq, member_budget);
        if let Some(code) = self.again(&members, self.cap * MEMBER_CAP_FACTOR, &mut results)? {
            return Ok(Err(code));
        }
        self.finish();
        Ok(Ok(results))
    }

    /// Clears the progress bar.
    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// Every code to `probe`, and the classes of their sequences (read
    /// from `stores`). `Err` holds the exit code when a signal stopped it.
    fn probe(
        &self,
        probe: u64,
        stores: &[PathBuf],
    ) -> Result<std::result::Result<(Vec<CodeResult>, census::Equivalences), ExitCode>> {
        let all: Vec<(usize, u64)> = (0..self.entries.len()).map(|i| (i, probe)).collect();
        let first = self.run_all(&all, self.cap);
        if let Some(code) = self.interrupted() {
            return Ok(Err(code));
        }
        let results: Vec<CodeResult> = first.into_iter().collect::<Result<_>>()?;
        let eq = equivalences(&results, stores)?;
        Ok(Ok((results, eq)))
    }

    /// Runs the codes of `which` again, each to its target, in `results`;
    /// the exit code when a signal stopped them.
    fn again(
        &self,
        which: &[(usize, u64)],
        cap: Duration,
        results: &mut [CodeResult],
    ) -> Result<Option<ExitCode>> {
        self.grow_bar(which.len());
        let done = self.run_all(which, cap);
        if let Some(code) = self.interrupted() {
            return Ok(Some(code));
        }
        for (&(i, _), r) in which.iter().zip(done) {
            results[i] = r?;
        }
        Ok(None)
    }
}
