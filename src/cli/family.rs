//! `octal family`: a family of games as one batch, or as a Slurm job
//! array and its collection.

use octal::plot::{Format, Overlays, PlotOptions};

use super::prelude::*;

#[derive(clap::Subcommand)]
pub enum FamilyKind {
    /// Cookie Cutter strips, 0.33…37 with k−1 threes, for each k.
    #[command(after_help = "Example:\n  octal family cookie-cutter --k 1..8 --to 1e5")]
    CookieCutter {
        /// Cutter sizes: 1..64 (inclusive), 7, or 1,3,5.
        #[arg(long)]
        k: String,
        #[command(flatten)]
        args: FamilyArgs,
    },
    /// Any list of codes, one a line (# starts a comment).
    #[command(
        after_help = "Example:\n  octal family codes --file games.txt --to 2^20      # one code a line"
    )]
    Codes {
        /// The list: one code a line, `#` starts a comment; `-` reads
        /// standard input.
        #[arg(long)]
        file: std::path::PathBuf,
        #[command(flatten)]
        args: FamilyArgs,
    },
    /// Run one member of a family prepared with --slurm (an array task).
    #[command(
        after_help = "Example:\n  octal family member runs/family --index 3     # task 3 of a --slurm array"
    )]
    Member {
        /// The family's directory, as prepared by `family … --slurm DIR`.
        dir: std::path::PathBuf,
        /// The member (default: $SLURM_ARRAY_TASK_ID).
        #[arg(long)]
        index: Option<usize>,
        /// Threads (default: the family's --threads, which the task's
        /// --cpus-per-task matches).
        #[arg(long)]
        threads: Option<usize>,
        /// No summary line on stdout.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Merge the results of a family prepared with --slurm into tables.
    Collect {
        /// The family's directory, as prepared by `family … --slurm DIR`.
        dir: std::path::PathBuf,
        /// Print the JSON lines instead of the Markdown table.
        #[arg(long)]
        json: bool,
    },
}

#[derive(clap::Args)]
pub struct FamilyArgs {
    /// Values per member.
    #[arg(long, allow_hyphen_values = true)]
    to: String,
    /// Members run at once (default: all cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Where the tables go (default: runs/family-NAME).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Print the JSON lines instead of the Markdown table.
    #[arg(long)]
    json: bool,
    /// No progress display.
    #[arg(long, short)]
    quiet: bool,
    /// Compute every member to --to even once its period is proven.
    #[arg(long)]
    keep_going: bool,
    /// Also draw each finished member, as DIR/CODE.png.
    #[arg(long, value_name = "DIR")]
    plots: Option<std::path::PathBuf>,
    /// Do not run: write a Slurm job-array script and manifest into DIR.
    #[arg(long, value_name = "DIR")]
    slurm: Option<std::path::PathBuf>,
    #[arg(long, value_enum, default_value_t)]
    engine: EngineKind,
    /// Sparse-space mask of every member: auto, none, hex (0x1ee) or
    /// hex+p (position parity).
    #[arg(long, default_value = "auto")]
    mask: String,
    /// Threads per member (a Slurm task asks for as many CPUs). With
    /// --jobs J, J members run at once, each on this many threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// With --slurm: each task's time limit, in digits as Slurm writes
    /// it (M, M:S, H:M:S, D-H, D-H:M or D-H:M:S); a task
    /// stopped by it checkpoints and resumes when requeued.
    #[arg(long, default_value = "1-00:00:00", value_parser = slurm_time)]
    time: String,
    /// With --slurm: each task's memory, as Slurm writes it: digits and
    /// K, M, G or T (default: 2 bytes a value plus 256 MiB).
    #[arg(long, value_parser = slurm_mem)]
    mem: Option<String>,
    #[command(flatten)]
    window: super::window::WindowOpts,
}

impl FamilyArgs {
    /// How the members compute, as the manifest records it.
    fn task_spec(&self) -> Result<octal::slurm::TaskSpec> {
        // Refuse a bad mask or an impossible pair now, not in every member.
        let mask: octal::engine::MaskSpec = self.mask.parse().map_err(input)?;
        if self.engine == EngineKind::Reference && matches!(mask, octal::engine::MaskSpec::Fixed(_))
        {
            return Err(input(octal::engine::SparseError::MaskWithoutSparse));
        }
        if self.threads == 0 {
            return Err(input("--threads must be at least 1"));
        }
        let window = self.window.sizes()?;
        if window.is_some() && self.engine == EngineKind::Reference {
            return Err(input(
                "--window runs the sparse engine only (drop --engine)",
            ));
        }
        if window.is_some() && self.plots.is_some() {
            return Err(input("--plots draws members from their stores; a windowed member has none (drop one of them)"));
        }
        Ok(octal::slurm::TaskSpec {
            engine: match self.engine {
                EngineKind::Sparse => "sparse".into(),
                EngineKind::Reference => "reference".into(),
            },
            mask: self.mask.clone(),
            threads: self.threads,
            time: self.time.clone(),
            mem: self.mem.clone().unwrap_or_default(),
            window,
        })
    }
}

/// `--mem` of a Slurm task, checked (a value written into a job script).
fn slurm_mem(s: &str) -> Result<String, String> {
    octal::slurm::check_mem(s)
        .map(|()| s.to_string())
        .map_err(|e| e.to_string())
}

/// The job of one family member under `spec`.
fn member_job(
    member: &octal::family::Member,
    to: u64,
    spec: &octal::slurm::TaskSpec,
) -> Result<Job, String> {
    Ok(Job {
        code: member.code.clone(),
        to,
        engine: match spec.engine.as_str() {
            "reference" => EngineKind::Reference,
            _ => EngineKind::Sparse,
        },
        threads: spec.threads.max(1),
        mask: spec.mask.parse().map_err(|e| format!("{e}"))?,
    })
}

pub fn family(kind: FamilyKind) -> Result<ExitCode> {
    match kind {
        FamilyKind::CookieCutter { k, args } => {
            let ks = octal::family::parse_k_range(&k).map_err(input)?;
            run_family(&octal::family::cookie_cutter(&ks), "cookie-cutter", args)
        }
        FamilyKind::Codes { file, args } => {
            let list = octal::family::read_code_list(&file).map_err(input)?;
            for d in &list.duplicates {
                eprintln!("octal: {d}");
            }
            let members = list.members;
            let stem = match file.file_stem() {
                Some(s) if file != Path::new("-") => s.to_string_lossy().into_owned(),
                _ => "codes".into(),
            };
            run_family(&members, &stem, args)
        }
        FamilyKind::Member {
            dir,
            index,
            threads,
            quiet,
        } => family_member(&dir, index, threads, quiet),
        FamilyKind::Collect { dir, json } => family_collect(&dir, json),
    }
}

fn run_family(members: &[octal::family::Member], name: &str, args: FamilyArgs) -> Result<ExitCode> {
    let to = parse_to("to", &args.to)?;
    let spec = args.task_spec()?;
    if spec.window.is_none() {
        run::check_in_memory(to)?;
    }
    if let Some(dir) = &args.slurm {
        let manifest = octal::slurm::Manifest::new(name, to, args.keep_going, spec, members);
        let script = prepare_array(&manifest, dir)?;
        if !args.quiet {
            eprintln!(
                "{} members; submit with: sbatch {}; then: octal family collect {}",
                members.len(),
                script.display(),
                dir.display()
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let jobs = threads(args.jobs)?;
    let out = args
        .out
        .unwrap_or_else(|| std::path::Path::new("runs").join(format!("family-{name}")));
    // One family run a directory, its stores never through a link.
    octal::slurm::check_subdirs(&out).map_err(slurm_error)?;
    std::fs::create_dir_all(&out).with_context(|| format!("cannot write {}", out.display()))?;
    let _lock = octal::store::output::PathLock::acquire(&out.join("family"))?;
    let show = !(args.quiet || args.json)
        && std::io::stdout().is_terminal()
        && std::io::stderr().is_terminal();
    let multi = show.then(indicatif::MultiProgress::new);
    let overall = multi.as_ref().map(|m| {
        let bar = m.add(ProgressBar::new(members.len() as u64));
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix} [{elapsed_precise}] {bar:30} {pos}/{len} members",
            )
            .expect("valid template"),
        );
        bar.set_prefix("family");
        bar
    });
    let stop = octal::run::stored::stop_on_signals().context("installing signal handlers")?;
    let rows = octal::family::run_family(members, jobs, |_, member| {
        let path = out
            .join("stores")
            .join(format!("{}.octal", member.file_stem()));
        let mut result = run_member(member, to, &spec, args.keep_going, &path, &stop, &multi);
        if let (Ok(summary), Some(dir)) = (&result, &args.plots) {
            if let Err(e) = plot_member(
                &path,
                summary,
                &dir.join(format!("{}.png", member.file_stem())),
            ) {
                result = Err(format!("plotting: {e:#}"));
            }
        }
        if let Some(o) = &overall {
            o.inc(1);
        }
        result
    });
    if let Some(o) = overall {
        o.finish_and_clear();
    }
    let code = finish_family(&rows, &out, args.json, args.quiet)?;
    match stop.load(std::sync::atomic::Ordering::SeqCst) {
        0 => Ok(code),
        status => {
            eprintln!("octal: interrupted; run the same command again to resume every member");
            Ok(ExitCode::from(status as u8))
        }
    }
}

/// Runs one family member in its store at `path` (resuming the store if it
/// exists), with a progress line under `multi` if given. A member stopped
/// by SIGINT/SIGTERM checkpoints and reports why it has no result.
fn run_member(
    member: &octal::family::Member,
    to: u64,
    spec: &octal::slurm::TaskSpec,
    keep_going: bool,
    path: &Path,
    stop: &std::sync::atomic::AtomicUsize,
    multi: &Option<indicatif::MultiProgress>,
) -> Result<Summary, String> {
    let bar = multi.as_ref().map(|m| {
        let bar = m.add(ProgressBar::new(to));
        bar.set_style(rate_style("{prefix:>12} {msg}"));
        bar.set_prefix(member.label());
        Bar::of(bar)
    });
    let job = member_job(member, to, spec)?;
    let result = (|| -> Result<Summary, String> {
        if let Some(sizes) = spec.window {
            let path = path.with_extension("window");
            return super::window::member(&job, sizes, &path, stop, !keep_going, &bar);
        }
        let fail = |e: StoreError| e.to_string();
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let (mut store, _) =
            Store::open_or_create(path, &job.code, job.to, DEFAULT_CHUNK_VALUES).map_err(fail)?;
        let every = Duration::from_secs_f64(octal::run::stored::CHECKPOINT_SECONDS);
        match run_with_bar(&mut store, &job, every, stop, !keep_going, bar.clone())
            .map_err(|e| e.to_string())?
        {
            Driven::Done(summary) => Ok(*summary),
            Driven::Stopped { why, .. } => Err(why),
        }
    })();
    if let (Some(m), Some(bar)) = (multi, bar) {
        m.remove(&bar.into_inner());
    }
    result
}

/// Draws a finished member from its store, with its proven period shaded.
fn plot_member(store: &Path, summary: &Summary, out: &Path) -> Result<()> {
    let store = Store::open(store, false)?;
    let opts = PlotOptions {
        to: summary.values,
        title: format!("{}: G(n) for 0 ≤ n < {}", summary.code, summary.values),
        max_value: Some(summary.max_value),
        ..PlotOptions::default()
    };
    let overlays = Overlays {
        rare: Vec::new(),
        period: summary.period.as_ref().map(|p| octal::plot::Period {
            preperiod: p.preperiod,
            period: p.period,
        }),
    };
    let picture = octal::plot::render(&store, &opts, &overlays, Format::Png, &|_| {})?;
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot write {}", dir.display()))?;
    }
    octal::store::output::write_file_io(out, &picture.bytes)
        .with_context(|| format!("cannot write {}", out.display()))
}

/// Writes the tables and prints them; exit 1 if a member failed.
fn finish_family(
    rows: &[octal::family::Row],
    out: &std::path::Path,
    json: bool,
    quiet: bool,
) -> Result<ExitCode> {
    octal::family::write_tables(rows, out)?;
    if json {
        out!("{}", octal::family::to_json_lines(rows));
    } else {
        out!("{}", octal::family::to_markdown(rows));
        if !quiet {
            eprintln!(
                "tables written to {}/family.{{csv,md,jsonl}}",
                out.display()
            );
        }
    }
    let failed = rows.iter().filter(|r| r.error.is_some()).count();
    if failed > 0 {
        eprintln!("octal: {failed} of {} members failed", rows.len());
        return Ok(ExitCode::from(FAILED));
    }
    Ok(ExitCode::SUCCESS)
}

/// An array task: runs member `index` of the family in `dir`.
fn family_member(
    dir: &std::path::Path,
    index: Option<usize>,
    threads: Option<usize>,
    quiet: bool,
) -> Result<ExitCode> {
    let index = match index {
        Some(i) => i,
        None => std::env::var("SLURM_ARRAY_TASK_ID")
            .ok()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| {
                input("give --index, or run as a Slurm array task (SLURM_ARRAY_TASK_ID)")
            })?,
    };
    let manifest = octal::slurm::Manifest::load(dir).map_err(slurm_error)?;
    let member = manifest.member(index)?;
    // The member's values live in a store, so a task killed by Slurm
    // (SIGTERM on pre-emption or time-out) checkpoints, exits 143, and
    // resumes when requeued.
    let path = octal::slurm::store_path(dir, index);
    let stop = octal::run::stored::stop_on_signals().context("installing signal handlers")?;
    let mut spec = manifest.run.clone();
    if let Some(t) = threads {
        spec.threads = t.max(1);
    }
    let result = run_member(
        &member,
        manifest.to,
        &spec,
        manifest.keep_going,
        &path,
        &stop,
        &None,
    );
    let status = stop.load(std::sync::atomic::Ordering::SeqCst);
    if status != 0 {
        eprintln!("octal: {}", result.err().unwrap_or_default());
        return Ok(ExitCode::from(status as u8));
    }
    let summary = result.map_err(anyhow::Error::msg)?;
    let row = octal::family::Row::from_summary(index, &member, &summary);
    octal::slurm::save_result(dir, index, &row)?;
    if !quiet {
        outln!("{}", serde_json::to_string(&row)?);
    }
    Ok(ExitCode::SUCCESS)
}

/// Merges a Slurm family's results; exit 3 while members are unfinished.
fn family_collect(dir: &std::path::Path, json: bool) -> Result<ExitCode> {
    let (manifest, rows, unfinished) = octal::slurm::collect(dir).map_err(slurm_error)?;
    let _lock = octal::store::output::PathLock::acquire(&dir.join("family"))?;
    let code = finish_family(&rows, dir, json, true)?;
    if !unfinished.is_empty() {
        let names: Vec<String> = unfinished
            .iter()
            .map(|&i| {
                manifest
                    .member(i)
                    .map_or(format!("#{i}"), |m| format!("#{i} ({})", m.label()))
            })
            .collect();
        eprintln!(
            "octal: {} of {} members unfinished: {}",
            unfinished.len(),
            manifest.members.len(),
            names.join(", ")
        );
        return Ok(ExitCode::from(INCOMPLETE));
    }
    Ok(code)
}

/// A Slurm error with its exit code: 2 for what the user gave or a
/// damaged result file.
pub fn slurm_error(e: octal::slurm::SlurmError) -> anyhow::Error {
    if e.is_input() {
        input(e)
    } else {
        e.into()
    }
}

/// Writes the manifest and job-array script of `manifest` into `dir` and
/// prints the script's path.
pub fn prepare_array(manifest: &octal::slurm::Manifest, dir: &Path) -> Result<PathBuf> {
    let exe = std::env::current_exe().context("locating the octal binary")?;
    let script = octal::slurm::prepare(manifest, dir, &exe).map_err(slurm_error)?;
    outln!("{}", script.display());
    Ok(script)
}
