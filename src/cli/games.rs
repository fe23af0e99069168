//! The `cookie-cutter` and `vertex-deletion` subcommands: parse the input,
//! send reducible positions through the octal engine and the rest through
//! the exact searches of `octal::games`, and print the value (alone on the
//! last line) or one JSON object.

use clap::Args;
use serde_json::{json, Map, Value};

use octal::games::cookie_cutter::{self, Cutter, Grid, Method, Solver};
use octal::games::vertex_deletion::{self, Digraph, Variant};

use super::prelude::*;

#[derive(Args)]
pub struct CookieCutterArgs {
    /// Cutter side k (a k×k cutter), or `inf` for an arbitrarily large one.
    #[arg(long)]
    k: String,
    /// The board, rows x columns: 3x5, 1x1e9, 1000x1.
    #[arg(long, conflicts_with = "table")]
    grid: Option<String>,
    /// Print the table of values of every board from 1x1 to XxY.
    #[arg(long)]
    table: Option<String>,
    /// With --table: seconds allowed per board; unfinished cells print '.'.
    #[arg(long, default_value_t = 60.0)]
    cell_seconds: f64,
    /// Most distinct positions the search may keep in memory (~50 bytes each).
    #[arg(long, default_value_t = 1 << 24)]
    max_positions: usize,
    #[command(flatten)]
    report: Report,
    #[command(flatten)]
    engine: EngineOpts,
}

#[derive(Args)]
pub struct VertexDeletionArgs {
    /// A path of N vertices with every arc pointing the same way.
    #[arg(long)]
    directed_path: Option<String>,
    /// The disjoint union of such paths, e.g. 5,8,13.
    #[arg(long)]
    directed_paths: Option<String>,
    /// A small digraph as an arc list, e.g. "0>1,1>2,2>0".
    #[arg(long)]
    arcs: Option<String>,
    /// With --arcs: the number of vertices (to add isolated ones).
    #[arg(long)]
    vertices: Option<usize>,
    /// Which in-degree parity may be deleted (paths: odd-odd only).
    #[arg(long, value_enum, default_value_t)]
    variant: Variant,
    #[command(flatten)]
    report: Report,
    #[command(flatten)]
    engine: EngineOpts,
}

/// Heaps computed in memory before a run goes to a store on disk.
const IN_MEMORY: u64 = 1 << 26;

/// G(heap) for each heap, through the engine: one run towards the
/// largest heap, which stops as soon as the period is proven (heaps beyond
/// it are read off the period, so a periodic game answers for any size at
/// once). Beyond 2^26 values the run goes into the game's default store
/// (`runs/CODE.octal`), resumable like `octal run`, and a later question
/// that store already answers is answered from it at once.
fn engine_values(code: &Code, heaps: &[u64], engine: &EngineOpts, quiet: bool) -> Result<Vec<u32>> {
    let max = heaps.iter().copied().max().unwrap_or(0);
    let to = max
        .checked_add(1)
        .ok_or_else(|| input(format!("heap {max} is too large")))?;
    let path = default_store(code);
    // A store of this game from an earlier run that already answers.
    if let Ok(Opened::Store(store, _)) = Opened::open(&path) {
        let period = octal::store::checkpoint::restore_detector(&store).proven();
        if store.code() == code && (period.is_some() || to <= store.good()) {
            store.check_chunks()?;
            return answers(store.view(0, store.good()), period.as_ref(), heaps);
        }
    }
    // Up to 2^26 values in memory. Beyond, into the store, which stops at
    // a proven period as well; a target the disk cannot hold only gets a
    // short look for a period first.
    let fits = to <= IN_MEMORY || store::check_space(&path, to, 2).is_ok();
    if to <= IN_MEMORY || !fits {
        let job = engine.job(code.clone(), to.min(if fits { IN_MEMORY } else { 1 << 16 }))?;
        let bar = progress_bar(job.to, quiet);
        let outcome = run::run_until(&job, true, &mut |p| update(&bar, p))?;
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        let known = outcome.seq.len() as u64;
        let period = outcome.summary.period;
        if period.is_some() || to <= known {
            return answers(outcome.seq.view(0, known as usize), period.as_ref(), heaps);
        }
    }
    let job = engine.job(code.clone(), to)?;
    store::check_space(&path, to, 2)?;
    let (mut store, _) = Store::open_or_create(&path, code, to, DEFAULT_CHUNK_VALUES)?;
    let stop = octal::run::stored::stop_on_signals()?;
    let every = Duration::from_secs_f64(octal::run::stored::CHECKPOINT_SECONDS);
    let summary = match run_with_bar(
        &mut store,
        &job,
        every,
        &stop,
        true,
        progress_bar(to, quiet),
    )? {
        Driven::Done(summary) => *summary,
        Driven::Stopped { status, why, .. } => {
            anyhow::bail!("{why}; run the same command again to continue (signal exit {status})")
        }
    };
    answers(store.view(0, store.good()), summary.period.as_ref(), heaps)
}

/// G(h) for each heap: from `seq`, or read off `period` past it (and said
/// so on stderr).
fn answers(seq: SeqRef<'_>, period: Option<&Period>, heaps: &[u64]) -> Result<Vec<u32>> {
    let known = seq.len() as u64;
    if let (Some(p), Some(&last)) = (period, heaps.iter().max()) {
        note_period(known, last, p);
    }
    heaps
        .iter()
        .map(|&h| {
            seq.answer(h, period)
                .ok_or_else(|| anyhow::anyhow!("heap {h} is past the {known} values computed"))
        })
        .collect()
}

/// Prints the result: one JSON object, or a line of context and then the
/// value alone on the last line. A full stdout is an error (a closed pipe
/// ends the process by SIGPIPE).
fn print(json_out: bool, obj: Map<String, Value>, human: &str, value: u32) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if json_out {
        let mut obj = obj;
        obj.insert("value".into(), value.into());
        writeln!(out, "{}", Value::Object(obj))
    } else {
        writeln!(out, "{human}\n{value}")
    }
    .and_then(|()| out.flush())
    .map_err(stdout_error)
}

pub fn cookie_cutter(a: CookieCutterArgs) -> Result<ExitCode> {
    let cutter: Cutter = a.k.parse().map_err(input)?;
    let quiet = a.report.quiet || a.report.json;
    if let Some(t) = &a.table {
        cookie_table(&a, cutter, t.parse().map_err(input)?, quiet)?;
        return Ok(ExitCode::SUCCESS);
    }
    let Some(grid) = &a.grid else {
        return Err(input("give --grid XxY or --table XxY"));
    };
    let grid: Grid = grid.parse().map_err(input)?;
    let mut obj = Map::new();
    obj.insert("game".into(), "cookie-cutter".into());
    obj.insert("k".into(), cutter.to_string().into());
    obj.insert("grid".into(), grid.to_string().into());
    match cookie_cutter::method(cutter, grid).map_err(input)? {
        Method::Strip { code, heap } => {
            let value = engine_values(&code, &[heap], &a.engine, quiet)?[0];
            obj.insert("method".into(), "octal engine (Lemma 5.1.2)".into());
            obj.insert("code".into(), code.to_string().into());
            obj.insert("heap".into(), heap.into());
            let human =
                format!("cookie cutter k={cutter} on {grid}: octal game {code} at heap {heap}");
            print(a.report.json, obj, &human, value)?;
        }
        Method::Nim { heap } => {
            obj.insert("method".into(), "nim (Corollary 5.1.1)".into());
            obj.insert("heap".into(), heap.into());
            let human = format!("cookie cutter k={cutter} on {grid}: a nim heap of {heap}");
            let value = u32::try_from(heap).map_err(|_| input("strip too long"))?;
            print(a.report.json, obj, &human, value)?;
        }
        Method::Board { rows, cols } => {
            let mut solver = Solver::new(cutter);
            solver.max_positions = a.max_positions;
            let spinner = search_spinner(quiet);
            if let Some(bar) = spinner.clone() {
                solver.on_progress(Box::new(move |n| bar.set_message(format!("{n} positions"))));
            }
            let start = Instant::now();
            let value = solver.solve(rows, cols, None);
            if let Some(bar) = spinner {
                bar.finish_and_clear();
            }
            let value = value?;
            let seconds = start.elapsed().as_secs_f64();
            obj.insert("method".into(), "exact search".into());
            obj.insert("positions".into(), solver.positions().into());
            obj.insert("seconds".into(), seconds.into());
            let human = format!(
                "cookie cutter k={cutter} on {grid}: exact search, {} positions, {seconds:.3} s",
                solver.positions()
            );
            print(a.report.json, obj, &human, value)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A spinner with the search's memo size, on a terminal only.
fn search_spinner(quiet: bool) -> Option<ProgressBar> {
    let bar = progress_bar(0, quiet)?;
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] exact search: {msg}")
            .expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    Some(bar.into_inner())
}

fn cookie_table(a: &CookieCutterArgs, cutter: Cutter, size: Grid, quiet: bool) -> Result<()> {
    if size.rows > 64 || size.cols > 4096 {
        return Err(input(format!(
            "--table {size}: at most 64 rows and 4096 columns"
        )));
    }
    if !(a.cell_seconds > 0.0 && a.cell_seconds.is_finite()) {
        return Err(input("--cell-seconds must be a positive number"));
    }
    let mut solver = Solver::new(cutter);
    solver.max_positions = a.max_positions;
    let t = cookie_cutter::table(
        &mut solver,
        size.rows as usize,
        size.cols as usize,
        Some(Duration::from_secs_f64(a.cell_seconds)),
        a.engine.engine,
        a.engine.threads()?,
        &mut |x, y, cell, solver| {
            if !quiet {
                let v = cell.value.map_or("unfinished".into(), |v| v.to_string());
                eprintln!(
                    "k={cutter} {x}x{y} = {v} ({:.2} s, {} positions)",
                    cell.seconds,
                    solver.positions()
                );
            }
        },
    )?;
    let values: Vec<Vec<Option<u32>>> = t
        .iter()
        .map(|r| r.iter().map(|c| c.value).collect())
        .collect();
    if a.report.json {
        let seconds: Vec<Vec<f64>> = t
            .iter()
            .map(|r| r.iter().map(|c| c.seconds).collect())
            .collect();
        outln!(
            "{}",
            json!({"game": "cookie-cutter", "k": cutter.to_string(), "table": values, "seconds": seconds})
        );
    } else {
        out!("{}", cookie_cutter::format_table(&values));
    }
    Ok(())
}

pub fn vertex_deletion(a: VertexDeletionArgs) -> Result<ExitCode> {
    let given = [&a.directed_path, &a.directed_paths, &a.arcs]
        .iter()
        .filter(|o| o.is_some())
        .count();
    if given != 1 {
        return Err(input(
            "give exactly one of --directed-path N, --directed-paths A,B,… or --arcs LIST",
        ));
    }
    let quiet = a.report.quiet || a.report.json;
    let mut obj = Map::new();
    obj.insert("game".into(), "vertex-deletion".into());
    obj.insert(
        "variant".into(),
        match a.variant {
            Variant::OddOdd => "odd-odd",
            Variant::EvenEven => "even-even",
        }
        .into(),
    );
    if let Some(arcs) = &a.arcs {
        let d = Digraph::parse_arcs(arcs, a.vertices).map_err(input)?;
        let value = d.grundy(a.variant);
        obj.insert("method".into(), "exact search".into());
        obj.insert("vertices".into(), d.vertices().into());
        let human = format!("vertex deletion on {} vertices: exact search", d.vertices());
        print(a.report.json, obj, &human, value)?;
        return Ok(ExitCode::SUCCESS);
    }
    if a.vertices.is_some() {
        return Err(input("--vertices goes with --arcs only"));
    }
    if a.variant != Variant::OddOdd {
        return Err(input(
            "directed paths reduce to an octal game in the odd-odd variant only; use --arcs",
        ));
    }
    let code = vertex_deletion::directed_path_code();
    obj.insert("method".into(), "octal engine (Theorem 3.2.2)".into());
    obj.insert("code".into(), code.to_string().into());
    if let Some(n) = &a.directed_path {
        let n = parse_to("directed-path", n)?;
        let value = engine_values(&code, &[n], &a.engine, quiet)?[0];
        obj.insert("heap".into(), n.into());
        let human =
            format!("vertex deletion on a directed path of {n}: octal game {code} at heap {n}");
        print(a.report.json, obj, &human, value)?;
    } else if let Some(list) = &a.directed_paths {
        let heaps = vertex_deletion::parse_paths(list).map_err(input)?;
        let values = engine_values(&code, &heaps, &a.engine, quiet)?;
        let value = values.iter().fold(0, |x, v| x ^ v);
        obj.insert("heaps".into(), heaps.clone().into());
        obj.insert("values".into(), values.clone().into());
        let human = format!(
            "vertex deletion on directed paths {list}: nim-sum of {code} at heaps {heaps:?} = {values:?}"
        );
        print(a.report.json, obj, &human, value)?;
    }
    Ok(ExitCode::SUCCESS)
}
