//! `octal census`: every octal code of up to D digits, run as one
//! resumable batch, classified and grouped into classes of equal
//! sequences (see the library's `census` module).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use octal::literature::{ClassClaim, Literature, Member, Outcome};

use octal::census::{self, CodeResult, Kept, Status, Table, ValuesFacts};
use octal::engine::MaskSpec;
use rayon::prelude::*;

use super::prelude::*;

#[derive(clap::Args)]
pub struct CensusArgs {
    /// Digits after the point: every code with 1 to D of them.
    #[arg(long, default_value_t = 2)]
    pub digits: usize,
    /// The digit before the point: 0, 4 or 0,4 (4 also splits a heap
    /// without taking a token).
    #[arg(long, default_value = "0,4")]
    pub prefix: String,
    /// Values per class: 2^25, 1e6, …
    #[arg(long, allow_hyphen_values = true, default_value = "2^20")]
    pub to: String,
    /// Values every code is run to first; the codes are then grouped by
    /// their sequences, and only one code of each open class goes on to
    /// --to (the others are listed as agreeing to here).
    #[arg(long, allow_hyphen_values = true, default_value = "2^16")]
    pub probe: String,
    /// Where the stores, the results and the tables go (default:
    /// runs/census-DIGITS).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Codes run at once (default: all cores), each on one thread.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Seconds a code may run before it is stopped (and listed as stopped,
    /// with what it reached; a later run goes on from there).
    #[arg(long, default_value_t = 60.0, value_name = "SECS")]
    pub member_seconds: f64,
    /// Members of open or stopped classes go on toward their class' reach
    /// (so that their agreement is checked that far, not only to the
    /// probe) within this many times the seconds the rest of the census
    /// took, the cheapest first: 1 at most about doubles a census, 0 checks
    /// them to the probe only. The tables say how far each was checked.
    #[arg(long, default_value_t = 1.0, value_name = "FACTOR")]
    pub member_budget: f64,
    /// Every periodic class gets a certificate in DIR/certificates/;
    /// its independent check (docs/certificates.md) runs when estimated
    /// to take at most this many minutes, else the class is marked as
    /// checked by the engine only. 0: certificates only.
    #[arg(long, default_value_t = octal::certificate::DEFAULT_BUDGET_SECONDS / 60.0, value_name = "M")]
    pub check_minutes: f64,
    /// Print the classes as JSON lines instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the census' games, one code a line, and stop.
    #[arg(long)]
    pub list: bool,
    /// Do not run: write a Slurm job array into DIR, one task a game (run
    /// to --to, or to its period), then `sbatch DIR/family.sbatch`.
    #[arg(long, value_name = "DIR", conflicts_with = "collect")]
    pub slurm: Option<PathBuf>,
    /// With --slurm: each task's time limit, in digits as Slurm writes
    /// it: M, M:S, H:M:S, D-H, D-H:M or D-H:M:S.
    #[arg(long, default_value = "0-01:00:00", value_parser = slurm_time)]
    pub time: String,
    /// Make the census' tables from a Slurm job array prepared with
    /// --slurm DIR (its finished tasks; unfinished games are listed as
    /// stopped).
    #[arg(long, value_name = "DIR")]
    pub collect: Option<PathBuf>,
}

/// What the time cap sets a code's stop flag to (signals set 130 or 143).
const CAPPED: usize = 1;

pub fn census(args: CensusArgs) -> Result<ExitCode> {
    let entries = octal::census::codes(
        args.digits,
        &census::parse_prefixes(&args.prefix).map_err(input)?,
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
             on a cluster, `octal census --digits {} --prefix {} --to N --slurm DIR`",
            entries.len(),
            cap.as_secs_f64(),
            worst / 3600.0,
            args.digits,
            args.prefix
        );
    }
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("runs").join(format!("census-{}", args.digits)));
    octal::slurm::check_subdirs(&dir).map_err(super::family::slurm_error)?;
    for sub in ["stores", "results"] {
        std::fs::create_dir_all(dir.join(sub))
            .with_context(|| format!("cannot write {}", dir.join(sub).display()))?;
    }
    // One census at a time in a directory; what a killed one left goes.
    let _lock = hold(&dir)?;
    for e in &entries {
        octal::store::output::sweep(&store_path(&dir, &e.code));
        octal::store::output::sweep(&result_path(&dir, &e.code));
    }
    let stop = octal::run::stored::stop_on_signals().context("installing signal handlers")?;
    let show = !(args.quiet || args.json) && std::io::stderr().is_terminal();
    let bar = show.then(|| {
        let bar = ProgressBar::new(entries.len() as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "census [{elapsed_precise}] {bar:30} {pos}/{len} codes {msg}",
            )
            .expect("valid template"),
        );
        bar
    });
    let probe = parse_to("probe", &args.probe)?.min(to);
    // What the directory holds, checked before anything runs: a result is
    // used only with the values it was made from.
    let kept: Vec<Option<CodeResult>> = entries
        .iter()
        .map(|e| inspect(e, &dir, to))
        .collect::<Result<_>>()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .ok();
    if !(args.member_budget >= 0.0 && args.member_budget.is_finite()) {
        return Err(input("--member-budget must be a number of 0 or more"));
    }
    // Each code with its own target.
    let run_all = |which: &[(usize, u64)]| -> Vec<Result<CodeResult>> {
        let work = || {
            which
                .par_iter()
                .with_max_len(1)
                .map(|&(i, target)| {
                    let r = run_code(&entries[i], target, cap, &dir, &stop, kept[i].as_ref());
                    if let Some(bar) = &bar {
                        bar.inc(1);
                        bar.set_message(entries[i].code.to_string());
                    }
                    r
                })
                .collect()
        };
        match &pool {
            Some(pool) => pool.install(work),
            None => work(),
        }
    };
    let interrupted = || match stop.load(Ordering::SeqCst) {
        0 => None,
        status => {
            eprintln!("octal: interrupted; run the same command again to go on");
            Some(ExitCode::from(status as u8))
        }
    };
    let stores: Vec<PathBuf> = entries.iter().map(|e| store_path(&dir, &e.code)).collect();
    // Every code briefly; then one code of each class that is still open.
    let all: Vec<(usize, u64)> = (0..entries.len()).map(|i| (i, probe)).collect();
    let first = run_all(&all);
    if let Some(code) = interrupted() {
        return Ok(code);
    }
    let mut results: Vec<CodeResult> = first.into_iter().collect::<Result<_>>()?;
    let eq = equivalences(&results, &stores)?;
    let extend: Vec<(usize, u64)> = (0..entries.len())
        .filter(|&i| eq.class_of[i] == i && results[i].reach < to)
        .filter(|&i| !matches!(results[i].status, Status::Periodic { .. }))
        .map(|i| (i, to))
        .collect();
    if let Some(bar) = &bar {
        bar.set_length((entries.len() + extend.len()) as u64);
    }
    let second = run_all(&extend);
    if let Some(code) = interrupted() {
        return Ok(code);
    }
    for (&(i, _), r) in extend.iter().zip(second) {
        results[i] = r?;
    }
    let members = members_to_check(&results, &eq.class_of, args.member_budget);
    if let Some(bar) = &bar {
        bar.set_length((entries.len() + extend.len() + members.len()) as u64);
    }
    let third = run_all(&members);
    if let Some(code) = interrupted() {
        return Ok(code);
    }
    for (&(i, _), r) in members.iter().zip(third) {
        results[i] = r?;
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    tables(&args, &dir, to, &results, &stores)?;
    Ok(ExitCode::SUCCESS)
}

/// The members of open or stopped classes to take on to their class'
/// reach, each with that reach: the cheapest first (a member costs about
/// what its class' first code took for the values it lacks), while their
/// estimated seconds stay within `factor` times all the results' seconds.
fn members_to_check(results: &[CodeResult], class_of: &[usize], factor: f64) -> Vec<(usize, u64)> {
    let budget = factor * results.iter().map(|r| r.seconds).sum::<f64>();
    let mut wanted: Vec<(f64, usize, u64)> = (0..results.len())
        .filter_map(|i| {
            let first = &results[class_of[i]];
            let lacking = first.reach.checked_sub(results[i].reach)?;
            let open = !matches!(first.status, Status::Periodic { .. });
            (class_of[i] != i && open && lacking > 0).then(|| {
                let cost = first.seconds * lacking as f64 / first.reach.max(1) as f64;
                (cost, i, first.reach)
            })
        })
        .collect();
    wanted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut spent = 0.0;
    wanted
        .into_iter()
        .take_while(|&(cost, _, _)| {
            spent += cost;
            spent <= budget
        })
        .map(|(_, i, reach)| (i, reach))
        .collect()
}

fn store_path(dir: &Path, code: &Code) -> PathBuf {
    dir.join("stores").join(format!("{code}.octal"))
}

fn result_path(dir: &Path, code: &Code) -> PathBuf {
    dir.join("results").join(format!("{code}.json"))
}

/// The most a results file holds: a result is a few hundred bytes, plus
/// up to [`octal::run::RARE_LIST_MAX`] rare positions (about 20 bytes each).
const RESULT_BYTES: u64 = 16 << 20;

/// What the census directory holds of `e`, checked: its result, if one is
/// kept whose store holds the values it was made from. A damaged or
/// missing result is made again (from the store, when that checks) and a
/// missing store computed again, each said on stderr; a damaged store, or
/// a result beyond `to`, is refused (one line, exit 2).
fn inspect(e: &census::Entry, dir: &Path, to: u64) -> Result<Option<CodeResult>> {
    let code = e.code.to_string();
    let (rp, sp) = (result_path(dir, &e.code), store_path(dir, &e.code));
    let redo = |why: &dyn std::fmt::Display| {
        eprintln!(
            "octal: census: {}: {why}; making the result of {code} again",
            rp.display()
        );
    };
    own_file(&rp)?;
    // Whether a results file was there (and said to be made again).
    let mut had = true;
    let kept = match read_result(&rp) {
        Ok(None) => {
            had = false;
            None
        }
        Ok(Some(bytes)) => Kept::parse(&bytes, &code).inspect_err(|why| redo(why)).ok(),
        Err(why) => {
            redo(&why);
            None
        }
    };
    let damaged = |why: &dyn std::fmt::Display| {
        input(format!(
            "{}: {why}; move it away and run again to compute {code} afresh",
            sp.display()
        ))
    };
    let Some(store) = checked_store(&sp, &e.code).map_err(|why| damaged(&why))? else {
        if kept.is_some() {
            eprintln!(
                "octal: census: {}: missing; computing {code} again",
                sp.display()
            );
        }
        return Ok(None);
    };
    let Some(kept) = kept else {
        if had {
            return Ok(None);
        }
        eprintln!(
            "octal: census: {code}: no result kept; going on from {} ({} values, checked)",
            sp.display(),
            store.good()
        );
        return Ok(None);
    };
    let facts = &kept.values;
    if store.good() < facts.count || checksum_to(&store, facts.count) != facts.checksum {
        return Err(damaged(&format_args!(
            "does not hold the {} values that {} was made from",
            facts.count,
            rp.display()
        )));
    }
    if kept.result.target > to {
        return Err(input(format!(
            "{}: its census went to {} values, beyond --to {to}: give --to {} or another --out",
            dir.display(),
            kept.result.target,
            kept.result.target
        )));
    }
    Ok(Some(kept.result))
}

/// Refuses `path` when it is there and not a regular file (a directory,
/// a link, a fifo): a census writes its own files, never through another.
fn own_file(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() => Err(input(format!(
            "{}: not a regular file (a census writes its own files here); move it away and run again",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// The census' tables, in `dir`.
const TABLES: [&str; 4] = ["census.csv", "census.jsonl", "census.md", "equivalences.md"];

/// The lock of the census in `dir` (`census.lock`), held while it runs
/// and writes its tables: a second census there is refused at once. Its
/// tables' paths are checked before anything runs.
fn hold(dir: &Path) -> Result<octal::store::output::PathLock> {
    let lock = octal::store::output::PathLock::acquire(&dir.join("census"))?;
    for name in TABLES {
        own_file(&dir.join(name))?;
    }
    Ok(lock)
}

/// The store at `path`, checked as `octal verify` checks it (without
/// recomputing) and against `code`; `None` when there is none. A link or
/// a device is refused, never followed.
fn checked_store(path: &Path, code: &Code) -> std::result::Result<Option<Store>, String> {
    match std::fs::symlink_metadata(path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err.to_string()),
        Ok(m) if !m.file_type().is_file() => {
            return Err("not a regular file (a census keeps its own stores)".into())
        }
        Ok(_) => {}
    }
    let store = Store::open(path, false).map_err(|e| e.to_string())?;
    if store.code() != code {
        return Err(format!("a store of {}, not {code}", store.code()));
    }
    let verdict = octal::verify::verify_store(&store, 0, 0);
    if let Some(problem) = verdict.problems.into_iter().next() {
        return Err(problem);
    }
    if let Some(lost) = verdict.lost_slot {
        eprintln!("octal: {}: {lost}", path.display());
    }
    Ok(Some(store))
}

/// The bytes of a results file, or `None` when there is none; a link, a
/// device or an oversized file is an error (never followed or read).
fn read_result(path: &Path) -> std::result::Result<Option<Vec<u8>>, String> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.to_string()),
        Ok(m) if !m.file_type().is_file() => Err("not a regular file".into()),
        Ok(m) if m.len() > RESULT_BYTES => Err(format!("{} bytes: not a census result", m.len())),
        Ok(_) => std::fs::read(path).map(Some).map_err(|e| e.to_string()),
    }
}

/// The value checksum of the first `n` values of `store`.
fn checksum_to(store: &Store, n: u64) -> String {
    if n == store.good() {
        store.checkpoint().stats.checksum.hex()
    } else {
        store.stats_of(n).checksum.hex()
    }
}

/// Runs one code to `to` (or uses its result `kept`, when that went as
/// far) and keeps its result.
fn run_code(
    e: &census::Entry,
    to: u64,
    cap: Duration,
    dir: &Path,
    stop: &AtomicUsize,
    kept: Option<&CodeResult>,
) -> Result<CodeResult> {
    if let Some(kept) =
        kept.filter(|r| r.target >= to && !matches!(r.status, Status::Stopped { .. }))
    {
        // The spellings are this census' (a census of more digits in the
        // same directory lists more of them).
        return Ok(CodeResult {
            spellings: e.spellings.clone(),
            ..kept.clone()
        });
    }
    let job = Job {
        code: e.code.clone(),
        to,
        engine: EngineKind::Sparse,
        threads: 1,
        mask: MaskSpec::Auto,
    };
    let path = store_path(dir, &e.code);
    let (mut store, _) = Store::open_or_create(&path, &job.code, to, DEFAULT_CHUNK_VALUES)?;
    let every = Duration::from_secs_f64(octal::run::stored::CHECKPOINT_SECONDS);
    let started = Instant::now();
    let driven = with_cap(stop, cap, |own| {
        run_with_bar(&mut store, &job, every, own, true, None)
    })?;
    let seconds = started.elapsed().as_secs_f64();
    // A store that holds more than `to` (a result made again) gives the
    // summary of its first `to` values.
    let (summary, reach) = match driven {
        Driven::Done(summary) => {
            let reach = summary.values;
            (Some(*summary), reach)
        }
        Driven::Stopped { status, .. } if status as usize == CAPPED => (None, store.good()),
        Driven::Stopped { why, .. } => anyhow::bail!("{}: {why}", e.code),
    };
    let status = match summary.as_ref().and_then(|s| s.period) {
        Some(p) => Status::Periodic {
            period: p.period,
            preperiod: p.preperiod,
            proven_at: p.proven_at,
        },
        None if reach >= to => Status::Open,
        None => Status::Stopped {
            why: format!("time cap of {} s", cap.as_secs_f64()),
        },
    };
    let engine = summary.as_ref().map(|s| &s.engine);
    let result = CodeResult {
        code: e.code.to_string(),
        spellings: e.spellings.clone(),
        status,
        reach,
        target: to,
        max_value: summary
            .as_ref()
            .map_or(store.checkpoint().stats.max_value, |s| s.max_value),
        rare_mask: engine.and_then(|e| e.rare_mask),
        rare_positions: engine.and_then(|e| e.rare_positions),
        last_rare_at: engine.and_then(|e| e.last_rare_at),
        rare_class: summary.as_ref().and_then(|s| s.rare_class.clone()),
        rare_list: summary.as_ref().and_then(|s| s.rare_list.clone()),
        rare_list_complete: summary.as_ref().and_then(|s| s.rare_list_complete),
        checksum: Some(checksum_to(&store, reach)),
        period_notation: notation(&store, summary.as_ref().and_then(|s| s.period)),
        at_powers_of_two: powers_of_two(&store, reach),
        seconds,
    };
    let facts = ValuesFacts {
        code: e.code.to_string(),
        count: reach,
        checksum: checksum_to(&store, reach),
    };
    let path = result_path(dir, &e.code);
    octal::store::output::write_file_io(
        &path,
        Kept::new(result.clone(), facts).to_json().as_bytes(),
    )
    .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(result)
}

/// Runs `f` with a stop flag of its own, set to [`CAPPED`] once `cap` has
/// passed, or to `global`'s status once a signal sets that.
fn with_cap<T>(global: &AtomicUsize, cap: Duration, f: impl FnOnce(&AtomicUsize) -> T) -> T {
    let own = AtomicUsize::new(0);
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let start = Instant::now();
            while !done.load(Ordering::Relaxed) {
                let g = global.load(Ordering::SeqCst);
                if g != 0 {
                    own.store(g, Ordering::SeqCst);
                    return;
                }
                if start.elapsed() >= cap {
                    own.store(CAPPED, Ordering::SeqCst);
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let r = f(&own);
        done.store(true, Ordering::Relaxed);
        r
    })
}

/// Groups the results (values read from `stores`), writes the census'
/// tables into `dir` and prints the summary or the JSON lines.
fn tables(
    args: &CensusArgs,
    dir: &Path,
    to: u64,
    results: &[CodeResult],
    stores: &[PathBuf],
) -> Result<()> {
    let eq = equivalences(results, stores)?;
    let provenance = provenance(args, to);
    let marks = marks(args, dir, results, stores, &eq)?;
    let table = Table {
        results,
        eq: &eq,
        provenance: &provenance,
        marks: &marks,
    };
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        octal::store::output::write_file_io(&path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))
    };
    write("census.csv", table.csv())?;
    write("census.jsonl", table.json_lines())?;
    write(
        "census.md",
        format!(
            "# Census of octal codes: {} digits, prefixes {}, {} values\n\n{}\n\n{}\n{}",
            args.digits,
            args.prefix,
            to,
            provenance.line(),
            table.summary(),
            table.markdown()
        ),
    )?;
    write("equivalences.md", table.equivalences_markdown())?;
    if args.json {
        out!("{}", table.rows_json_lines());
    } else {
        out!("{}", table.summary());
        if !args.quiet {
            eprintln!(
                "tables written to {}/census.{{csv,md,jsonl}} and equivalences.md",
                dir.display()
            );
        }
    }
    Ok(())
}

/// Each class' marks, by its first code: its certificate, made and checked
/// for a periodic class within `--check-minutes` (see
/// [`super::certify::certify_census`]), and where the literature stands
/// on it (values for the evidence of a disagreement read from `stores`).
fn marks(
    args: &CensusArgs,
    dir: &Path,
    results: &[CodeResult],
    stores: &[PathBuf],
    eq: &census::Equivalences,
) -> Result<BTreeMap<String, census::Marks>> {
    let budget = args.check_minutes * 60.0;
    if budget.is_nan() || budget < 0.0 {
        return Err(input(format!(
            "--check-minutes {}: give a number of minutes ≥ 0",
            args.check_minutes
        )));
    }
    let firsts: Vec<usize> = (0..results.len())
        .filter(|&i| eq.class_of[i] == i)
        .collect();
    let periodic: Vec<(String, u64, u64)> = firsts
        .iter()
        .filter_map(|&i| {
            let p = results[i].period()?;
            Some((results[i].code.clone(), p.period, p.preperiod))
        })
        .collect();
    let checks = super::certify::certify_census(
        dir,
        &periodic,
        budget,
        &EngineOpts::default(),
        args.quiet,
        true,
    )?;
    let index: BTreeMap<String, usize> = results
        .iter()
        .enumerate()
        .map(|(i, r)| (r.code.clone(), i))
        .collect();
    let opened: std::cell::RefCell<BTreeMap<usize, Opened>> = Default::default();
    let values = |code: &Code, n: u64| -> Option<u32> {
        let &i = index.get(&code.to_string())?;
        if n >= results[i].reach {
            return None;
        }
        let mut open = opened.borrow_mut();
        if let std::collections::btree_map::Entry::Vacant(e) = open.entry(i) {
            e.insert(Opened::open(&stores[i]).ok()?);
        }
        open[&i].read(n, 1).ok()?.to_u32().first().copied()
    };
    let lit = Literature::embedded();
    let mut out = BTreeMap::new();
    for &r in &firsts {
        let members = (0..results.len())
            .filter(|&i| eq.class_of[i] == r)
            .filter_map(|i| {
                let code = results[i].code.parse().ok()?;
                let shift = match i == r {
                    true => Some(0),
                    false => eq.relations[i].map(|rel| rel.shift),
                };
                Some(Member { code, shift })
            })
            .collect();
        let outcome = match results[r].period() {
            Some(p) => Outcome::Periodic {
                period: p.period,
                preperiod: p.preperiod,
            },
            None => Outcome::Open {
                reach: results[r].reach,
            },
        };
        let code = &results[r].code;
        out.insert(
            code.clone(),
            census::Marks {
                literature: lit.judge(&ClassClaim { members, outcome }, Some(&values)),
                checked: checks.iter().find(|c| &c.code == code).cloned(),
            },
        );
    }
    Ok(out)
}

/// The classes of `results`, their values read from `stores` (each up to
/// its result's reach; a store that cannot give them is an error, never
/// a sequence with no values).
fn equivalences(results: &[CodeResult], stores: &[PathBuf]) -> Result<census::Equivalences> {
    let values = |i: usize, most: usize| -> Result<Vec<u32>> {
        let n = (most as u64).min(results[i].reach);
        if n == 0 {
            return Ok(Vec::new());
        }
        let path = &stores[i];
        let opened = Opened::open(path)?;
        if opened.len() < n {
            anyhow::bail!(
                "{}: holds {} values, but the result of {} reached {n}",
                path.display(),
                opened.len(),
                results[i].code
            );
        }
        Ok(opened.read(0, n)?.to_u32())
    };
    let periods: Vec<_> = results.iter().map(CodeResult::period).collect();
    census::equivalences(&periods, &values)
}

/// The canonical `--prefix`: `0`, `4` or `0,4`.
fn prefixes(args: &CensusArgs) -> Result<String> {
    let p = census::parse_prefixes(&args.prefix).map_err(input)?;
    Ok(p.iter().map(u8::to_string).collect::<Vec<_>>().join(","))
}

/// Writes the Slurm job array of a census: the family machinery, one task
/// a game.
fn prepare_slurm(
    args: &CensusArgs,
    entries: &[census::Entry],
    to: u64,
    dir: &Path,
) -> Result<ExitCode> {
    let members: Vec<octal::family::Member> = entries
        .iter()
        .map(|e| octal::family::Member {
            k: None,
            code: e.code.clone(),
        })
        .collect();
    let spec = octal::slurm::TaskSpec {
        engine: "sparse".into(),
        mask: "auto".into(),
        threads: 1,
        time: args.time.clone(),
        mem: String::new(),
        window: None,
    };
    let name = format!("census-{}-{}", args.digits, prefixes(args)?);
    let manifest = octal::slurm::Manifest::new(&name, to, false, spec, &members);
    let script = super::family::prepare_array(&manifest, dir)?;
    if !args.quiet {
        eprintln!(
            "{} games; submit with: sbatch {}; then: octal census --digits {} --prefix {} --to {} --collect {}",
            members.len(),
            script.display(),
            args.digits,
            args.prefix,
            args.to,
            dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The census' tables from the tasks of a Slurm job array.
fn collect(args: &CensusArgs, entries: &[census::Entry], to: u64, dir: &Path) -> Result<ExitCode> {
    let (manifest, rows, unfinished) =
        octal::slurm::collect(dir).map_err(super::family::slurm_error)?;
    if manifest.to != to {
        return Err(input(format!(
            "{}: its job array was prepared with --to {}, not --to {to}: give --to {}",
            dir.display(),
            manifest.to,
            manifest.to
        )));
    }
    if manifest.members.len() != entries.len()
        || manifest
            .members
            .iter()
            .zip(entries)
            .any(|(m, e)| m.code != e.code.to_string())
    {
        return Err(input(format!(
            "{}: not the job array of this census (give the --digits and --prefix it was prepared with)",
            dir.display()
        )));
    }
    let _lock = hold(dir)?;
    let stores: Vec<PathBuf> = (0..entries.len())
        .map(|i| octal::slurm::store_path(dir, i))
        .collect();
    // What dead writers of a finished task left (an unfinished task may
    // be running on another node, where its process id means nothing).
    for r in &rows {
        octal::store::output::sweep(&stores[r.index]);
        octal::store::output::sweep(&octal::slurm::result_path(dir, r.index));
    }
    let mut results = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let row = rows.iter().find(|r| r.index == i);
        // Facts come from a store only once it checks, and a finished
        // task's store must hold what its result says.
        let refuse = |why: &dyn std::fmt::Display| {
            input(format!(
                "{}: {why} (task {i}, {}); move it away and run the task again: octal family member {} --index {i}",
                stores[i].display(),
                e.code,
                dir.display()
            ))
        };
        let store = checked_store(&stores[i], &e.code).map_err(|why| refuse(&why))?;
        if let Some(r) = row.filter(|r| r.values > to) {
            return Err(input(format!(
                "{}: its census went to {} values, beyond --to {to} (task {i}, {}); move it away and run the task again: octal family member {} --index {i}",
                octal::slurm::result_path(dir, i).display(),
                r.values,
                e.code,
                dir.display()
            )));
        }
        if let Some(r) = row.filter(|r| r.error.is_none()) {
            match &store {
                None => return Err(refuse(&"missing, though the task finished")),
                Some(s) if s.good() != r.values => {
                    return Err(refuse(&format_args!(
                        "holds {} values, its task's result {}",
                        s.good(),
                        r.values
                    )))
                }
                Some(_) => {}
            }
        }
        let period = store
            .as_ref()
            .and_then(|s| octal::store::checkpoint::restore_detector(s).proven());
        let why = match row {
            None => Some("unfinished Slurm task".to_string()),
            Some(r) => r.error.clone(),
        };
        let reach = store.as_ref().map_or(0, |s| s.good());
        let status = match (period, why) {
            (Some(p), _) => Status::Periodic {
                period: p.period,
                preperiod: p.preperiod,
                proven_at: p.proven_at,
            },
            (None, Some(why)) => Status::Stopped { why },
            (None, None) if reach >= manifest.to => Status::Open,
            (None, None) => Status::Stopped {
                why: "ended before its target".into(),
            },
        };
        // The sparse-space facts, from the values (as a run would give).
        let rare = match &store {
            Some(s) if reach > 0 => Some(run::rare_of_values(&e.code, s.view(0, reach))?),
            _ => None,
        };
        results.push(CodeResult {
            code: e.code.to_string(),
            spellings: e.spellings.clone(),
            status,
            reach,
            target: manifest.to,
            max_value: row.map_or(0, |r| r.max_value),
            rare_mask: rare.as_ref().and_then(|r| r.engine.rare_mask),
            rare_positions: rare.as_ref().and_then(|r| r.engine.rare_positions),
            last_rare_at: rare.as_ref().and_then(|r| r.engine.last_rare_at),
            rare_class: rare.as_ref().and_then(|r| r.rare_class.clone()),
            rare_list: rare.as_ref().and_then(|r| r.rare_list.clone()),
            rare_list_complete: rare.as_ref().and_then(|r| r.rare_list_complete),
            checksum: store.as_ref().map(|s| checksum_to(s, reach)),
            period_notation: store.as_ref().and_then(|s| notation(s, period)),
            at_powers_of_two: store
                .as_ref()
                .map_or(Vec::new(), |s| powers_of_two(s, reach)),
            seconds: row.map_or(0.0, |r| r.seconds),
        });
    }
    if !unfinished.is_empty() {
        eprintln!(
            "octal: {} of {} games unfinished; they are listed as stopped",
            unfinished.len(),
            entries.len()
        );
    }
    tables(args, dir, manifest.to, &results, &stores)?;
    Ok(ExitCode::from(if unfinished.is_empty() {
        0
    } else {
        INCOMPLETE
    }))
}

/// The nim-sequence notation of a proven `period` of the values in
/// `store` (when they reach the end of its first period and it is short).
fn notation(store: &Store, period: Option<octal::period::Period>) -> Option<String> {
    let p = period?;
    let end = p.preperiod.checked_add(p.period)?;
    if end > store.good() || end > NOTATION_MAX as u64 {
        return None;
    }
    let style = octal::period::Notation::Text;
    match store.view(0, end) {
        octal::seq::SeqRef::U16(v) => octal::period::notation(v, &p, NOTATION_MAX, style),
        octal::seq::SeqRef::U32(v) => octal::period::notation(v, &p, NOTATION_MAX, style),
    }
}

/// Longest nim-sequence notation a census row carries, in characters.
const NOTATION_MAX: usize = 200;

/// The census' provenance: this octal, the commit of the source it was
/// built from, today's date (UTC) and the command with every option that
/// shapes the tables (`--out`, `--json` and `--quiet` do not).
fn provenance(args: &CensusArgs, to: u64) -> census::Provenance {
    let prefix = prefixes(args).unwrap_or_else(|_| args.prefix.clone());
    let mut command = format!(
        "octal census --digits {} --prefix {prefix} --to {to}",
        args.digits
    );
    match &args.collect {
        Some(_) => command += " --collect DIR",
        None => {
            command += &format!(
                " --probe {} --member-seconds {} --member-budget {} --check-minutes {} --jobs {}",
                parse_to("probe", &args.probe)
                    .map_or(args.probe.clone(), |p| p.min(to).to_string()),
                args.member_seconds,
                args.member_budget,
                args.check_minutes,
                threads(args.jobs).unwrap_or(1)
            )
        }
    }
    census::Provenance {
        octal: octal::about::VERSION.into(),
        commit: octal::about::COMMIT.into(),
        date: octal::about::utc_today(),
        command,
    }
}

/// G(2^j) for every 2^j below `reach` (at most what `store` holds).
fn powers_of_two(store: &Store, reach: u64) -> Vec<u32> {
    let reach = reach.min(store.good());
    let view = store.view(0, reach);
    (0..64)
        .map(|j| 1u64 << j)
        .take_while(|&n| n < reach)
        .map(|n| view.get(n as usize))
        .collect()
}
