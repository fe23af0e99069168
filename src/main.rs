//! The `octal` command line: a thin shell over the library.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::{CommandFactory, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use octal::code::{Code, CodeError};
use octal::count::{parse_count, CountError};
use octal::engine::EngineKind;
use octal::games::GameError;
use octal::period::Period;
use octal::plot::{self, Format, Overlays, PlotError, PlotOptions};
use octal::run::{self, Ending, Job, JobError, Progress, SeqRef, Summary};
use octal::seqfile::{self, Kind, SeqFile};
use octal::store::{self, Store, StoreError, DEFAULT_CHUNK_VALUES};
use octal::stored::{self, run_stored};
use octal::{compare, family, formats, slurm};

/// `println!` that returns an error from the enclosing function when
/// stdout cannot be written (a full disk), instead of panicking.
#[macro_export]
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), $($t)*).map_err($crate::stdout_error)?
    }};
}

/// `print!` that returns an error when stdout cannot be written.
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout(), $($t)*).map_err($crate::stdout_error)?
    }};
}

/// Why stdout could not be written, as a one-line error (exit 1).
pub fn stdout_error(e: std::io::Error) -> anyhow::Error {
    anyhow::anyhow!("writing to stdout: {e}")
}

mod games_cli;

/// Says on stderr that the values past the `known` ones, up to heap
/// `last`, are answers read off the proven period `p` (nothing when none
/// are).
pub fn note_period(known: u64, last: u64, p: &octal::period::Period) {
    if last >= known {
        eprintln!(
            "octal: values from n = {known} on are read off the proven period {} (preperiod {}, proven at {})",
            p.period, p.preperiod, p.proven_at
        );
    }
}

#[derive(Parser)]
#[command(
    name = "octal",
    version,
    about = "Exact Grundy sequences of octal games"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compute G(0) … G(N−1) and print a summary.
    Run {
        /// The octal code, e.g. 0.6, .137 or 4.7; hexadecimal 0.1F; or grundy (= 4.0u).
        code: String,
        /// How many values: 1000000, 1e6, 2.5e6, 2^20 or 1_000_000.
        #[arg(long, allow_hyphen_values = true)]
        to: String,
        #[command(flatten)]
        report: Report,
        #[command(flatten)]
        engine: EngineOpts,
        /// Compute all N values even once a period is proven.
        #[arg(long)]
        keep_going: bool,
        #[command(flatten)]
        notation: NotationOpts,
        /// Keep the values in this store (default: runs/CODE.octal); an
        /// existing store of the same code is resumed.
        #[arg(long, value_name = "PATH", conflicts_with = "no_store")]
        store: Option<PathBuf>,
        /// Compute in memory only, without a store.
        #[arg(long)]
        no_store: bool,
        #[command(flatten)]
        store_opts: StoreOpts,
    },
    /// Run a family of games as one batch and tabulate them.
    Family {
        #[command(subcommand)]
        kind: FamilyKind,
    },
    /// Continue a stored run from its last checkpoint.
    Resume {
        /// The store, e.g. runs/0.6.octal.
        path: PathBuf,
        /// New target (default: the store's own target).
        #[arg(long, allow_hyphen_values = true)]
        to: Option<String>,
        #[command(flatten)]
        report: Report,
        /// Compute all N values even once a period is proven.
        #[arg(long)]
        keep_going: bool,
        #[command(flatten)]
        notation: NotationOpts,
        #[command(flatten)]
        engine: EngineOpts,
        #[command(flatten)]
        store_opts: StoreOpts,
    },
    /// Print G(M) … G(N−1), one per line, computed for a code or read from
    /// a store or an exported file.
    Values {
        /// An octal code, or a store or exported sequence file.
        code: String,
        /// Required for a code; default for a file: all its values.
        #[arg(long, allow_hyphen_values = true)]
        to: Option<String>,
        /// The first heap printed (values G(FROM) … G(TO−1)).
        #[arg(long, default_value = "0", allow_hyphen_values = true)]
        from: String,
        /// plain (one value a line), bfile (OEIS b-file lines `n G(n)`) or
        /// csv (a header `n,value`, then `n,G(n)` rows).
        #[arg(long, default_value = "plain")]
        format: formats::Format,
        /// b-files: the first n written (the OEIS octal-game entries mostly
        /// start at 1, Grundy's game A002188 at 0; default: --from).
        #[arg(long)]
        offset: Option<u64>,
        #[command(flatten)]
        engine: EngineOpts,
    },
    /// Check a store or exported file against its checksums (and K values
    /// against the reference engine). Exit 0: ok; 1: damaged; 3: a header
    /// slot was lost, so the store opens at its older checkpoint.
    Verify {
        /// The store (e.g. runs/0.6.octal) or exported file (.oseq) to check.
        path: PathBuf,
        /// Recompute this many values at random (plus the last) with the
        /// reference engine.
        #[arg(long, default_value_t = 0, value_name = "K")]
        recompute: u64,
        /// Seed for picking the values to recompute (default: from the clock).
        #[arg(long)]
        seed: Option<u64>,
        /// No progress display while recomputing.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Write a store's values to a zstd-compressed sequence file.
    Export {
        /// The store.
        path: PathBuf,
        /// The sequence file to write (refused if it exists, unless
        /// --force); `-` writes it to standard output.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
        /// zstd level, 1 (fast) to 22 (small).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(i32).range(1..=22))]
        level: i32,
        /// Export only G(0) … G(N−1) (default: every value in the store).
        #[arg(long, value_name = "N")]
        to: Option<String>,
        /// Values per compressed frame.
        #[arg(long, hide = true, default_value_t = seqfile::DEFAULT_FRAME_VALUES)]
        frame_values: u64,
        /// Replace an existing regular file at FILE (never a device, a
        /// directory, a symbolic link or the store itself).
        #[arg(long)]
        force: bool,
    },
    /// Make a store from an exported file, to continue computing with
    /// `octal resume`.
    Import {
        /// The exported sequence file (.oseq) to read.
        file: PathBuf,
        /// The store to make (it must not exist yet).
        #[arg(long, value_name = "PATH")]
        store: PathBuf,
        #[arg(long, hide = true, default_value_t = DEFAULT_CHUNK_VALUES)]
        chunk_values: u64,
    },
    /// Compare two games: the first n where G_A(n) ≠ G_B(n + K), "equal
    /// to N", or, when both are proven periodic, equality for every n.
    Compare {
        /// The first sequence: an octal code, a store or an exported file.
        a: String,
        /// The second sequence, likewise.
        b: String,
        /// Compare G_A(n) with G_B(n + K) (K may be negative).
        #[arg(
            long,
            default_value_t = 0,
            allow_hyphen_values = true,
            value_name = "K"
        )]
        shift: i64,
        /// Compare n below N. Default: a code is computed to 10^6 values
        /// (or until its period is proven) and a file gives all its values;
        /// two proven periods settle every n.
        #[arg(long, value_name = "N")]
        to: Option<String>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        engine: EngineOpts,
    },
    /// Draw G(n) against n as a picture: PNG or SVG, by the name of -o.
    Plot {
        /// An octal code to compute (e.g. 0.6), or a store or exported
        /// sequence file to draw from.
        source: String,
        /// One past the last n drawn: required for a code; for a store or
        /// an exported file, all its values by default.
        #[arg(long, allow_hyphen_values = true)]
        to: Option<String>,
        /// First n drawn, to zoom in on a range.
        #[arg(long, default_value = "0", allow_hyphen_values = true)]
        from: String,
        /// The picture file: NAME.png, NAME.svg or NAME.pdf; `-` writes
        /// it to standard output (then --format is required).
        #[arg(long, short)]
        output: PathBuf,
        /// The picture format, instead of the one -o's name ends in.
        #[arg(long, value_parser = ["png", "svg", "pdf"])]
        format: Option<String>,
        /// Width in pixels (points in a PDF).
        #[arg(long, default_value_t = 1200)]
        width: u32,
        /// Height in pixels (points in a PDF).
        #[arg(long, default_value_t = 600)]
        height: u32,
        /// Logarithmic n axis (from n = 1).
        #[arg(long)]
        log_x: bool,
        #[command(flatten)]
        figure: FigureOpts,
        /// No progress display and no closing line.
        #[arg(long, short)]
        quiet: bool,
        #[command(flatten)]
        engine: EngineOpts,
    },
    /// Cookie Cutter: a strip through the octal engine, a board by exact search.
    CookieCutter(games_cli::CookieCutterArgs),
    /// Print a completion script for a shell, e.g.
    /// `octal completions bash > ~/.local/share/bash-completion/completions/octal`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `octal man > octal.1; man ./octal.1`.
    Man,
    /// Vertex Deletion on digraphs: directed paths through the engine (0.6).
    VertexDeletion(games_cli::VertexDeletionArgs),
}

/// Options of runs kept in a store.
#[derive(clap::Args)]
struct StoreOpts {
    /// Seconds between checkpoints (fractions allowed).
    #[arg(long, default_value_t = 60.0, value_name = "SECS")]
    checkpoint_every: f64,
    /// Values per checksummed chunk of a new store.
    #[arg(long, hide = true, default_value_t = DEFAULT_CHUNK_VALUES)]
    chunk_values: u64,
}

impl StoreOpts {
    fn every(&self) -> Result<Duration> {
        Duration::try_from_secs_f64(self.checkpoint_every)
            .map_err(|_| input("--checkpoint-every must be a number of seconds ≥ 0"))
    }
}

/// Where the values of a plot come from.
enum Source {
    Code(Code),
    /// A store or an exported sequence file (not readable yet).
    File(PathBuf),
}

/// Values a code is computed to for `compare` without `--to`.
const COMPARE_DEFAULT: u64 = 1_000_000;

/// The values of one side of `compare`, and its proven period: a code is
/// computed to `to` (stopping at a proof), a store or an exported file read
/// whole, its period found by the detector over what it holds.
fn compare_source(s: &str, to: u64, engine: &EngineOpts) -> Result<(Vec<u32>, Option<Period>)> {
    let path = Path::new(s);
    if path.is_file() {
        let (code, values) = match seqfile::detect(path)? {
            Some(Kind::Store) => {
                let store = Store::open(path, false)?;
                warn_lost_slot(&store);
                let good = store.good();
                store.check_chunks_in(0, good)?;
                let v = store.view(0, good);
                (
                    store.code().clone(),
                    (0..v.len()).map(|i| v.get(i)).collect(),
                )
            }
            Some(Kind::SeqFile) => {
                let file = SeqFile::open(path)?;
                (file.code().clone(), file.read_all()?.to_u32())
            }
            None => return Err(StoreError::Foreign(path.to_owned()).into()),
        };
        let mut d = octal::period::Detector::new(&code);
        d.feed(&values);
        return Ok((values, d.proven()));
    }
    let job = engine.job(parse_code(s)?, to)?;
    let outcome = run::run_until(&job, true, &mut |_| {})?;
    let known = outcome.summary.values as usize;
    let mut values = outcome.seq.to_u32();
    values.truncate(known);
    Ok((values, outcome.summary.period))
}

fn parse_source(s: &str) -> Result<Source> {
    if Path::new(s).exists() {
        Ok(Source::File(s.into()))
    } else {
        Ok(Source::Code(parse_code(s)?))
    }
}

#[derive(Subcommand)]
enum FamilyKind {
    /// Cookie Cutter strips, 0.33…37 with k−1 threes, for each k.
    CookieCutter {
        /// Cutter sizes: 1..64 (inclusive), 7, or 1,3,5.
        #[arg(long)]
        k: String,
        #[command(flatten)]
        args: FamilyArgs,
    },
    /// Any list of codes, one a line (# starts a comment).
    Codes {
        /// The list: one code a line, `#` starts a comment; `-` reads
        /// standard input.
        #[arg(long)]
        file: std::path::PathBuf,
        #[command(flatten)]
        args: FamilyArgs,
    },
    /// Run one member of a family prepared with --slurm (an array task).
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
struct FamilyArgs {
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
    /// With --slurm: each task's time limit, as Slurm writes it; a task
    /// stopped by it checkpoints and resumes when requeued.
    #[arg(long, default_value = "1-00:00:00")]
    time: String,
    /// With --slurm: each task's memory, as Slurm writes it (default: 2
    /// bytes a value plus 256 MiB).
    #[arg(long)]
    mem: Option<String>,
}

impl FamilyArgs {
    /// How the members compute, as the manifest records it.
    fn task_spec(&self) -> Result<slurm::TaskSpec> {
        // Refuse a bad mask or an impossible pair now, not in every member.
        let mask: octal::engine::MaskSpec = self.mask.parse().map_err(input)?;
        if self.engine == EngineKind::Reference && matches!(mask, octal::engine::MaskSpec::Fixed(_))
        {
            return Err(input(octal::engine::SparseError::MaskWithoutSparse));
        }
        if self.threads == 0 {
            return Err(input("--threads must be at least 1"));
        }
        Ok(slurm::TaskSpec {
            engine: match self.engine {
                EngineKind::Sparse => "sparse".into(),
                EngineKind::Reference => "reference".into(),
            },
            mask: self.mask.clone(),
            threads: self.threads,
            time: self.time.clone(),
            mem: self.mem.clone().unwrap_or_default(),
        })
    }
}

/// The job of one family member under `spec`.
fn member_job(member: &family::Member, to: u64, spec: &slurm::TaskSpec) -> Result<Job, String> {
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

/// What a figure for a paper needs: labels, sizes in inches, fonts in
/// points.
#[derive(clap::Args, Debug, Clone)]
pub struct FigureOpts {
    /// The title (default: the code and the range drawn).
    #[arg(long)]
    title: Option<String>,
    /// The n axis' label.
    #[arg(long, default_value = "n")]
    xlabel: String,
    /// The value axis' label.
    #[arg(long, default_value = "G(n)")]
    ylabel: String,
    /// Tick-label size (title and axis labels in proportion): pixels, or
    /// points with --width-in/--height-in.
    #[arg(long, default_value_t = 13)]
    font_size: u32,
    /// Side of each value's mark when every value is drawn: pixels, or
    /// points with --width-in/--height-in.
    #[arg(long, default_value_t = 2)]
    point_size: u32,
    /// Width in inches (replaces --width): PNG at --dpi, SVG at 96 px an
    /// inch, PDF at 72 points an inch.
    #[arg(long, requires = "height_in")]
    width_in: Option<f64>,
    /// Height in inches (replaces --height).
    #[arg(long, requires = "width_in")]
    height_in: Option<f64>,
    /// Pixels an inch of a PNG sized in inches.
    #[arg(long, default_value_t = 300)]
    dpi: u32,
}

impl FigureOpts {
    /// The picture's size in its format's units, and how many of them
    /// make a point (fonts and marks are given in points when sized in
    /// inches, in units otherwise).
    fn size(&self, format: Format, width: u32, height: u32) -> Result<(u32, u32, f64)> {
        let (Some(w), Some(h)) = (self.width_in, self.height_in) else {
            return Ok((width, height, 1.0));
        };
        let per_inch = match format {
            Format::Png => self.dpi as f64,
            Format::Svg => 96.0,
            Format::Pdf => 72.0,
        };
        let side = |inches: f64, flag: &str| -> Result<u32> {
            let units = (inches * per_inch).round();
            // NaN fails both tests.
            if !(inches > 0.0 && (1.0..=u32::MAX as f64).contains(&units)) {
                return Err(input(format!("--{flag} {inches}: not a usable size")));
            }
            Ok(units as u32)
        };
        Ok((side(w, "width-in")?, side(h, "height-in")?, per_inch / 72.0))
    }
}

/// `--notation[=FILE]`: the period's notation however long it is.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct NotationOpts {
    /// Give the nim-sequence notation of the (proven or apparent) period
    /// however long (the summary leaves out one of over 200 characters);
    /// with =FILE, write it there instead, in text and in LaTeX (`-`, as
    /// without FILE: in the summary).
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    notation: Option<PathBuf>,
}

impl NotationOpts {
    /// Puts the full notation of `seq`'s period into `s`, or into the file
    /// asked for (and says so on stderr).
    fn apply(&self, s: &mut Summary, seq: SeqRef<'_>) -> Result<()> {
        let Some(dest) = &self.notation else {
            return Ok(());
        };
        let Some(p) = s.period.or(s.apparent_period) else {
            eprintln!("octal: --notation: no period to write");
            return Ok(());
        };
        let write = |style| match seq {
            SeqRef::U16(v) => octal::period::notation(v, &p, usize::MAX, style),
            SeqRef::U32(v) => octal::period::notation(v, &p, usize::MAX, style),
        };
        let (text, latex) = (
            write(octal::period::Notation::Text),
            write(octal::period::Notation::Latex),
        );
        if dest == Path::new("-") {
            s.period_notation = text;
            s.period_notation_latex = latex;
            return Ok(());
        }
        let body = format!(
            "{}\n{}\n",
            text.unwrap_or_default(),
            latex.unwrap_or_default()
        );
        std::fs::write(dest, body).with_context(|| format!("writing {}", dest.display()))?;
        eprintln!(
            "octal: the notation of period {} (preperiod {}) is in {}: text, then LaTeX",
            p.period,
            p.preperiod,
            dest.display()
        );
        Ok(())
    }
}

/// How a command reports: one JSON object or a human summary, and
/// whether it shows progress.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct Report {
    /// Print one JSON object instead of the human summary.
    #[arg(long)]
    pub json: bool,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
}

/// How to compute: the engine, its threads and its sparse-space mask.
#[derive(clap::Args, Debug, Clone)]
pub struct EngineOpts {
    #[arg(long, value_enum, default_value_t)]
    pub engine: EngineKind,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Sparse-space mask: auto, none, hex (0x1ee) or hex+p (position parity).
    #[arg(long, default_value = "auto")]
    mask: String,
}

impl EngineOpts {
    /// `--threads`, or every core.
    pub fn threads(&self) -> Result<usize> {
        threads(self.threads)
    }

    /// The job of computing `to` values of `code` this way.
    pub fn job(&self, code: Code, to: u64) -> Result<Job> {
        Ok(Job {
            code,
            to,
            engine: self.engine,
            threads: self.threads()?,
            mask: self.mask.parse().map_err(input)?,
        })
    }
}

/// An error in what the user typed: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct InputError(String);

fn input<E: std::fmt::Display>(e: E) -> anyhow::Error {
    InputError(e.to_string()).into()
}

fn parse_code(s: &str) -> Result<Code> {
    s.parse::<Code>().map_err(|e| {
        // A name that no code has: a file that is not there.
        let lower = s.to_ascii_lowercase();
        if s.contains(['/', '\\']) || lower.ends_with(".octal") || lower.ends_with(".oseq") {
            input(format!("{s}: no such file (nor an octal code)"))
        } else {
            input(e)
        }
    })
}

fn parse_to(flag: &str, s: &str) -> Result<u64> {
    let n = parse_count(s).map_err(|e| input(format!("--{flag}: {e}")))?;
    Ok(n)
}

fn threads(t: Option<usize>) -> Result<usize> {
    match t {
        Some(0) => Err(input("--threads must be at least 1")),
        Some(t) => Ok(t),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// A progress bar on stderr, only when stdout is a terminal and not quiet.
fn progress_bar(to: u64, quiet: bool) -> Option<ProgressBar> {
    if quiet || !std::io::stdout().is_terminal() || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(to);
    bar.set_style(rate_style(
        "{spinner} [{elapsed_precise}] {bar:30} {human_pos}/{human_len} {rate} ETA {eta} {msg}",
    ));
    Some(bar)
}

fn update(bar: &Option<ProgressBar>, p: &Progress) {
    if let Some(bar) = bar {
        bar.set_position(p.done);
        let rare = p
            .rare_positions
            .map(|r| format!(" rare {r}"))
            .unwrap_or_default();
        bar.set_message(format!("max {}{rare}", p.max_value));
    }
}

/// `1 zero`, `14 zeros`.
fn plural(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// A progress style from `template`, where `{rate}` is the values a second
/// as a whole number with thousands separators.
fn rate_style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}/s", indicatif::HumanCount(state.per_sec() as u64));
            },
        )
}

fn print_human(s: &Summary) -> Result<()> {
    outln!(
        "{}: {} values in {:.3} s ({:.0} values/s, engine {}, {} thread{}, {})",
        s.code,
        s.values,
        s.seconds,
        s.values_per_second,
        s.engine.engine,
        s.engine.threads,
        if s.engine.threads == 1 { "" } else { "s" },
        s.isa
    );
    outln!(
        "max value {} (first at n={}), {} (n = 0 included), last value G({})={}",
        s.max_value,
        s.first_max_at,
        plural(s.zeros, "zero"),
        s.values.saturating_sub(1),
        s.last_value
    );
    if let Some(mask) = s.engine.rare_mask {
        let with_0 = s
            .engine
            .rare_positions_with_0
            .filter(|&w| Some(w) != s.engine.rare_positions)
            .map(|w| format!(" ({w} with n = 0)"))
            .unwrap_or_default();
        outln!(
            "sparse space: mask 0x{mask:x}, {}{with_0}, last at {}",
            plural(s.engine.rare_positions.unwrap_or(0), "rare position"),
            s.engine.last_rare_at.map_or("-".into(), |r| r.to_string())
        );
    }
    print_period(s)?;
    outln!(
        "checksum {} (FNV-1a-64 of the values as little-endian u32)",
        s.checksum
    );
    Ok(())
}

fn run_family(members: &[family::Member], name: &str, args: FamilyArgs) -> Result<ExitCode> {
    let to = parse_to("to", &args.to)?;
    run::check_in_memory(to)?;
    if let Some(dir) = &args.slurm {
        let manifest = slurm::Manifest::new(name, to, args.keep_going, args.task_spec()?, members);
        let exe = std::env::current_exe().context("locating the octal binary")?;
        let script = slurm::prepare(&manifest, dir, &exe)?;
        outln!("{}", script.display());
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
    let spec = args.task_spec()?;
    let jobs = threads(args.jobs)?;
    let out = args
        .out
        .unwrap_or_else(|| std::path::Path::new("runs").join(format!("family-{name}")));
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
    let stop = stored::stop_on_signals().context("installing signal handlers")?;
    let rows = family::run_family(members, jobs, |_, member| {
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
    member: &family::Member,
    to: u64,
    spec: &slurm::TaskSpec,
    keep_going: bool,
    path: &Path,
    stop: &std::sync::atomic::AtomicUsize,
    multi: &Option<indicatif::MultiProgress>,
) -> Result<Summary, String> {
    let bar = multi.as_ref().map(|m| {
        let bar = m.add(ProgressBar::new(to));
        bar.set_style(rate_style(
            "{prefix:>24} {bar:30} {human_pos}/{human_len} {rate} ETA {eta} {msg}",
        ));
        bar.set_prefix(member.label());
        bar
    });
    let job = member_job(member, to, spec)?;
    let result = (|| -> Result<Summary, String> {
        let fail = |e: StoreError| e.to_string();
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let (mut store, _) =
            Store::open_or_create(path, &job.code, job.to, DEFAULT_CHUNK_VALUES).map_err(fail)?;
        let outcome = run_stored(
            &mut store,
            &job,
            Duration::from_secs(60),
            Some(stop),
            !keep_going,
            &mut |p| update(&bar, p),
        )
        .map_err(fail)?;
        match outcome.ending {
            Ending::Stopped(_) => Err(format!(
                "interrupted: checkpoint saved at {} values in {}",
                store.good(),
                path.display()
            )),
            _ => Ok(outcome.summary),
        }
    })();
    if let (Some(m), Some(bar)) = (multi, bar) {
        bar.finish_and_clear();
        m.remove(&bar);
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
        period: summary.period.as_ref().map(|p| plot::Period {
            preperiod: p.preperiod,
            period: p.period,
        }),
    };
    let picture = plot::render(&store, &opts, &overlays, Format::Png, &|_| {})?;
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot write {}", dir.display()))?;
    }
    std::fs::write(out, picture.bytes).with_context(|| format!("cannot write {}", out.display()))
}

/// Writes the tables and prints them; exit 1 if a member failed.
fn finish_family(
    rows: &[family::Row],
    out: &std::path::Path,
    json: bool,
    quiet: bool,
) -> Result<ExitCode> {
    family::write_tables(rows, out)?;
    if json {
        out!("{}", family::to_json_lines(rows));
    } else {
        out!("{}", family::to_markdown(rows));
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
        return Ok(ExitCode::from(1));
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
    let manifest = slurm::Manifest::load(dir)?;
    let member = manifest.member(index)?;
    // The member's values live in a store, so a task killed by Slurm
    // (SIGTERM on pre-emption or time-out) checkpoints, exits 143, and
    // resumes when requeued.
    let path = slurm::store_path(dir, index);
    let stop = stored::stop_on_signals().context("installing signal handlers")?;
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
    let row = family::Row::from_summary(index, &member, &summary);
    slurm::save_result(dir, index, &row)?;
    if !quiet {
        outln!("{}", serde_json::to_string(&row)?);
    }
    Ok(ExitCode::SUCCESS)
}

/// Merges a Slurm family's results; exit 3 while members are unfinished.
fn family_collect(dir: &std::path::Path, json: bool) -> Result<ExitCode> {
    let (manifest, rows, unfinished) = slurm::collect(dir)?;
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
        return Ok(ExitCode::from(3));
    }
    Ok(code)
}

/// A clap usage error as one line: the message and its hints, without the
/// usage block.
fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let parts: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more"))
        .collect();
    parts.join(" ").trim_start_matches("error: ").to_string()
}

fn print_period(s: &Summary) -> Result<()> {
    let notation = s
        .period_notation
        .as_ref()
        .map(|n| format!(": {n}"))
        .unwrap_or_default();
    if let Some(p) = &s.period {
        outln!(
            "periodic: period {}, preperiod {}, proven at {} (bound {}){notation}",
            p.period,
            p.preperiod,
            p.proven_at,
            p.bound.unwrap_or(p.proven_at)
        );
        return Ok(());
    }
    if !s.period_provable {
        out!("no period can be proven for this game");
    } else {
        out!("no period found up to {}", s.values);
    }
    match &s.apparent_period {
        Some(p) => {
            let needs = p
                .bound
                .map(|b| format!(", a proof needs {b} values"))
                .unwrap_or_default();
            outln!(
                " (apparent period {}, preperiod {}, holding over the last {} values{needs}){notation}",
                p.period,
                p.preperiod,
                s.values.saturating_sub(p.preperiod)
            )
        }
        None => outln!(),
    }
    Ok(())
}

fn main() -> ExitCode {
    // Like other Unix filters, end quietly when the reader of our output
    // goes away (`octal values … | head`) instead of failing to print.
    // SAFETY: setting a signal's disposition to the default before any
    // other thread exists.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    use clap::error::ErrorKind;
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e)
            if e.use_stderr()
                && e.kind() != ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            eprintln!("octal: {}", one_line(&e));
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    // A bad OCTAL_ISA is bad input, reported before any work.
    if let Err(e) = octal_kernels::isa::from_env() {
        eprintln!("octal: {e}");
        return ExitCode::from(2);
    }
    // Whatever was printed must reach stdout: a full disk is an error.
    let result = dispatch(cli.command).and_then(|code| {
        std::io::stdout().flush().map_err(stdout_error)?;
        Ok(code)
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            let usage = e.downcast_ref::<InputError>().is_some()
                || e.downcast_ref::<StoreError>()
                    .is_some_and(StoreError::is_input)
                || matches!(
                    e.downcast_ref::<slurm::SlurmError>(),
                    Some(slurm::SlurmError::NoSuchMember { .. })
                )
                || matches!(
                    e.downcast_ref::<slurm::SlurmError>(),
                    Some(slurm::SlurmError::Read { error, .. })
                        if error.kind() == std::io::ErrorKind::NotFound
                )
                || matches!(
                    e.downcast_ref::<StoreError>(),
                    Some(
                        StoreError::WrongCode { .. }
                            | StoreError::Foreign(_)
                            | StoreError::Exists(_)
                            | StoreError::Output { .. }
                            | StoreError::CodeTooLong(_)
                            | StoreError::Version { .. }
                            | StoreError::TooBig { .. }
                            | StoreError::Engine(_)
                    )
                )
                || e.downcast_ref::<CodeError>().is_some()
                || e.downcast_ref::<CountError>().is_some()
                || e.downcast_ref::<JobError>().is_some()
                || e.downcast_ref::<PlotError>()
                    .is_some_and(PlotError::is_input)
                || e.downcast_ref::<GameError>().is_some();
            eprintln!("octal: {e:#}");
            ExitCode::from(if usage { 2 } else { 1 })
        }
    }
}

fn dispatch(command: Command) -> Result<ExitCode> {
    match command {
        Command::Run {
            code,
            to,
            report: Report { json, quiet },
            engine,
            keep_going,
            notation,
            store,
            no_store,
            store_opts,
        } => {
            let job = engine.job(parse_code(&code)?, parse_to("to", &to)?)?;
            if !no_store {
                let path = store.unwrap_or_else(|| default_store(&job.code));
                if job.to == 0 {
                    return Err(JobError::Empty.into());
                }
                store::check_space(&path, job.to, 2)?;
                let (store, _) =
                    Store::open_or_create(&path, &job.code, job.to, store_opts.chunk_values)?;
                return stored_run(store, job, &store_opts, json, quiet, keep_going, &notation);
            }
            let bar = progress_bar(job.to, quiet || json);
            let mut outcome = run::run_until(&job, !keep_going, &mut |p| update(&bar, p))?;
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            let known = outcome.summary.values as usize;
            notation.apply(&mut outcome.summary, outcome.seq.view(0, known))?;
            if json {
                outln!("{}", serde_json::to_string(&outcome.summary)?);
            } else {
                print_human(&outcome.summary)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Resume {
            path,
            to,
            report: Report { json, quiet },
            keep_going,
            notation,
            engine,
            store_opts,
        } => {
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
            stored_run(store, job, &store_opts, json, quiet, keep_going, &notation)
        }
        Command::Values {
            code,
            to,
            from,
            format,
            offset,
            engine,
        } if Path::new(&code).is_file() => {
            let path = Path::new(&code);
            let from = parse_to("from", &from)?;
            let to = to.map(|to| parse_to("to", &to)).transpose()?;
            let stdout = std::io::stdout();
            let mut out =
                formats::ValueWriter::new(stdout.lock(), format, from, offset.unwrap_or(from));
            let _ = engine; // values are read, not computed
            match seqfile::detect(path)? {
                Some(Kind::Store) => {
                    let store = Store::open(path, false)?;
                    warn_lost_slot(&store);
                    let to = check_range(path, from, to, store.good())?;
                    let mut at = from;
                    while at < to {
                        let end = (at + (1 << 20)).min(to);
                        store.check_chunks_in(at, end)?;
                        out.write_seq(store.view(at, end)).map_err(stdout_error)?;
                        at = end;
                    }
                }
                Some(Kind::SeqFile) => {
                    let file = SeqFile::open(path)?;
                    let to = check_range(path, from, to, file.count())?;
                    file.for_range(from, to, |v| {
                        out.write_seq(v).map_err(|error| StoreError::Io {
                            path: "<stdout>".into(),
                            what: "writing values",
                            error,
                        })
                    })?;
                }
                None => return Err(StoreError::Foreign(path.to_owned()).into()),
            }
            drop(out.finish().map_err(stdout_error)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Verify {
            path,
            recompute,
            seed,
            quiet,
        } => {
            let seed = seed.unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
            let mut meter = RecomputeMeter::new(quiet);
            let verdict = match seqfile::detect(&path)? {
                Some(Kind::Store) => {
                    let store = Store::open(&path, false)?;
                    stored::verify_store_with(&store, recompute, seed, &mut |d, t| {
                        meter.update(d, t)
                    })
                }
                Some(Kind::SeqFile) => {
                    let file = SeqFile::open(&path)?;
                    let mut problems = file.problems();
                    if problems.is_empty() && recompute > 0 {
                        let all = file.read_all()?;
                        for (i, have, want) in stored::recompute_with(
                            file.code(),
                            all.view(0, all.len()),
                            recompute,
                            seed,
                            &mut |d, t| meter.update(d, t),
                        ) {
                            problems.push(format!(
                                "G({i}) is stored as {have} but the reference engine gives {want}"
                            ));
                        }
                    }
                    let h = file.header();
                    let line = format!(
                        "{}: sequence file of {}, {} values, {} bytes per value, checksum {}, {} frames, {} recomputed",
                        path.display(),
                        h.code,
                        h.count,
                        h.width,
                        h.checksum,
                        file.frames(),
                        recompute.min(h.count)
                    );
                    stored::Verdict {
                        line,
                        problems,
                        lost_slot: None,
                    }
                }
                None => return Err(StoreError::Foreign(path).into()),
            };
            meter.finish();
            let stored::Verdict {
                line,
                problems,
                lost_slot,
            } = verdict;
            if problems.is_empty() && lost_slot.is_none() {
                outln!("ok {line} (seed {seed})");
                return Ok(ExitCode::SUCCESS);
            }
            if problems.is_empty() {
                outln!("CHECKPOINT LOST {line}");
            } else {
                outln!("DAMAGED {line}");
            }
            for p in lost_slot.iter().chain(&problems) {
                outln!("  {p}");
            }
            Ok(ExitCode::from(if problems.is_empty() {
                EXIT_CHECKPOINT_LOST
            } else {
                1
            }))
        }
        Command::Export {
            path,
            output,
            level,
            to,
            frame_values,
            force,
        } => {
            if seqfile::detect(&path)? == Some(Kind::SeqFile) {
                return Err(input(format!(
                    "export takes a store; {} is already an exported sequence file",
                    path.display()
                )));
            }
            let store = Store::open(&path, false)?;
            warn_lost_slot(&store);
            let to = match to {
                Some(to) => {
                    let to = parse_to("to", &to)?;
                    Some(check_range(&path, 0, Some(to), store.checkpoint().good)?)
                }
                None => None,
            };
            let start = Instant::now();
            // Ctrl-C or SIGTERM stop between frames and remove the
            // temporary file.
            let stop = stored::stop_on_signals().context("installing signal handlers")?;
            if is_stdout(&output) {
                return export_to_stdout(&store, level, frame_values, to, &stop, start);
            }
            let opts = seqfile::ExportOptions {
                force,
                stop: Some(&stop),
            };
            let e = match seqfile::export(&store, &output, level, frame_values, to, &opts) {
                Err(StoreError::Interrupted(status)) => {
                    eprintln!(
                        "octal: interrupted: nothing was written to {}",
                        output.display()
                    );
                    return Ok(ExitCode::from(status as u8));
                }
                r => r?,
            };
            outln!(
                "exported {} values of {} to {}: {} ({} raw, ratio {:.1}) in {:.2} s",
                e.values,
                store.code(),
                output.display(),
                run::human_bytes(e.bytes),
                run::human_bytes(e.raw_bytes),
                e.raw_bytes as f64 / e.bytes.max(1) as f64,
                start.elapsed().as_secs_f64()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Import {
            file,
            store,
            chunk_values,
        } => {
            let seq = SeqFile::open(&file)?;
            let s = seqfile::import(&seq, &store, chunk_values)?;
            outln!(
                "imported {} values of {} into {}; `octal resume {} --to N` continues",
                s.good(),
                s.code(),
                store.display(),
                store.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Family { kind } => match kind {
            FamilyKind::CookieCutter { k, args } => {
                let ks = family::parse_k_range(&k).map_err(input)?;
                run_family(&family::cookie_cutter(&ks), "cookie-cutter", args)
            }
            FamilyKind::Codes { file, args } => {
                let list = family::read_code_list(&file).map_err(input)?;
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
        },

        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "octal", &mut script);
            std::io::stdout().write_all(&script).map_err(stdout_error)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            let mut page = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut page)
                .context("writing the manual page")?;
            std::io::stdout().write_all(&page).map_err(stdout_error)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::CookieCutter(args) => games_cli::cookie_cutter(args).map(|()| ExitCode::SUCCESS),
        Command::VertexDeletion(args) => {
            games_cli::vertex_deletion(args).map(|()| ExitCode::SUCCESS)
        }
        Command::Values {
            code,
            to,
            from,
            format,
            offset,
            engine,
        } => {
            let code = parse_code(&code)?;
            let Some(to) = to else {
                return Err(input("--to is required when computing values of a code"));
            };
            let to = parse_to("to", &to)?;
            let from = parse_to("from", &from)?;
            if to == 0 {
                return Err(JobError::Empty.into());
            }
            if from >= to {
                return Err(input(format!("--from {from} must be below --to {to}")));
            }
            let job = engine.job(code, to)?;
            // Stops once a period is proven: every later value is a lookup.
            let outcome = run::run_until(&job, true, &mut |_| {})?;
            let seq = &outcome.seq;
            let known = outcome.summary.values;
            let period = outcome.summary.period;
            if let Some(p) = &period {
                note_period(known, to - 1, p);
            }
            let stdout = std::io::stdout();
            let mut out =
                formats::ValueWriter::new(stdout.lock(), format, from, offset.unwrap_or(from));
            // Up to what was computed, the values as they are; beyond, a
            // chunk at a time off the period.
            let computed = to.min(known).max(from);
            if from < computed {
                out.write_seq(seq.view(from as usize, computed as usize))
                    .map_err(stdout_error)?;
            }
            let mut n = computed;
            let mut chunk = Vec::with_capacity(1 << 16);
            while n < to {
                let end = (n + (1 << 16)).min(to);
                chunk.clear();
                chunk.extend(
                    (n..end).map(|i| seq.get(period.map_or(i, |p| p.first_index(i)) as usize)),
                );
                out.write(&chunk).map_err(stdout_error)?;
                n = end;
            }
            drop(out.finish().map_err(stdout_error)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Compare {
            a,
            b,
            shift,
            to,
            json,
            engine,
        } => {
            let to = to.map(|t| parse_to("to", &t)).transpose()?;
            let reach = |k: i64| {
                to.unwrap_or(COMPARE_DEFAULT)
                    .saturating_add_signed(k.max(0))
            };
            let (ga, pa) = compare_source(&a, reach(0), &engine)?;
            let (gb, pb) = compare_source(&b, reach(shift), &engine)?;
            let c = compare::Comparison {
                a: compare::Side {
                    values: &ga,
                    period: pa,
                },
                b: compare::Side {
                    values: &gb,
                    period: pb,
                },
                shift,
            };
            let outcome = c.run(to);
            if json {
                let v = match outcome {
                    compare::Outcome::Differ { at, a, b } => serde_json::json!({
                        "verdict": "differ", "at": at, "a": a, "b": b, "shift": shift}),
                    compare::Outcome::EqualTo { to } => serde_json::json!({
                        "verdict": "equal_to", "to": to, "shift": shift}),
                    compare::Outcome::EqualForever { checked_to } => serde_json::json!({
                        "verdict": "equal_forever", "checked_to": checked_to, "shift": shift}),
                };
                outln!("{v}");
            } else {
                let shifted = match shift {
                    0 => "n".to_string(),
                    k if k > 0 => format!("n + {k}"),
                    k => format!("n − {}", -k),
                };
                match outcome {
                    compare::Outcome::Differ { at, a: x, b: y } => outln!(
                        "differ first at n = {at}: G_A({at}) = {x}, G_B({}) = {y}",
                        at as i64 + shift
                    ),
                    compare::Outcome::EqualTo { to } => outln!(
                        "G_A(n) = G_B({shifted}) for every n below {to} (equal to {to}; not proven beyond)"
                    ),
                    compare::Outcome::EqualForever { checked_to } => outln!(
                        "G_A(n) = G_B({shifted}) for every n: both are proven periodic and agree up to {checked_to}"
                    ),
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Plot {
            source,
            to,
            from,
            output,
            format,
            width,
            height,
            log_x,
            figure,
            quiet,
            engine,
        } => {
            let format = match format {
                Some(f) => Format::from_name(&f).expect("clap checked the format"),
                None if is_stdout(&output) => {
                    return Err(input("-o - needs --format png, svg or pdf"))
                }
                None => Format::from_path(&output)?,
            };
            if is_stdout(&output) && format != Format::Svg && std::io::stdout().is_terminal() {
                return Err(input(
                    "refusing to write a binary picture to a terminal; redirect standard output",
                ));
            }
            let source = parse_source(&source)?;
            let (width, height, per_point) = figure.size(format, width, height)?;
            let scaled = |x: u32| ((x as f64 * per_point).round() as u32).max(1);
            let to = to.map(|t| parse_to("to", &t)).transpose()?;
            if to.is_none() && matches!(source, Source::Code(_)) {
                return Err(input("--to is required when plotting a code"));
            }
            let mut opts = PlotOptions {
                width,
                height,
                from: parse_to("from", &from)?,
                // 0 until a file says how many values it holds.
                to: to.unwrap_or(0),
                log_x,
                title: figure.title.clone().unwrap_or_default(),
                xlabel: figure.xlabel.clone(),
                ylabel: figure.ylabel.clone(),
                font_size: scaled(figure.font_size),
                point_size: scaled(figure.point_size),
                ..PlotOptions::default()
            };
            if to.is_some() {
                plot::check(&opts, u64::MAX)?;
            } else {
                // Size and range are checked once the file's length is known.
                plot::check(
                    &PlotOptions {
                        to: opts.from + 1,
                        ..opts.clone()
                    },
                    u64::MAX,
                )?;
            }
            if is_stdout(&output) {
                let p = plot_source(source, &mut opts, format, quiet, &engine)?;
                let mut out = std::io::stdout().lock();
                out.write_all(&p.bytes)
                    .and_then(|()| out.flush())
                    .map_err(stdout_error)?;
                return Ok(ExitCode::SUCCESS);
            }
            // Fail on an unwritable path before computing anything: the
            // picture goes to a temporary file next to it, renamed into
            // place once complete, so a full disk leaves no empty picture.
            let tmp = plot_temp(&output)?;
            let written = plot_source(source, &mut opts, format, quiet, &engine).and_then(|p| {
                use std::io::Write as _;
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&tmp)
                    .with_context(|| format!("cannot write {}", output.display()))?;
                f.write_all(&p.bytes)
                    .and_then(|()| f.sync_all())
                    .with_context(|| format!("writing {}", output.display()))?;
                std::fs::rename(&tmp, &output)
                    .with_context(|| format!("cannot write {}", output.display()))?;
                Ok(p)
            });
            let picture = match written {
                Ok(p) => p,
                Err(e) => {
                    let _ = std::fs::remove_file(&tmp);
                    return Err(e);
                }
            };
            if !quiet {
                outln!(
                    "wrote {} ({}x{}, G({}..{}), {})",
                    output.display(),
                    width,
                    height,
                    opts.from,
                    opts.to,
                    if picture.every_point {
                        "every value"
                    } else {
                        "density per pixel column"
                    }
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Whether an output path is `-`, standard output.
fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// `octal export STORE -o -`: the sequence file streamed to standard
/// output (its format needs no seeking), the closing line on stderr.
fn export_to_stdout(
    store: &Store,
    level: i32,
    frame_values: u64,
    to: Option<u64>,
    stop: &std::sync::atomic::AtomicUsize,
    start: Instant,
) -> Result<ExitCode> {
    let stdout = std::io::stdout();
    if stdout.is_terminal() {
        return Err(input(
            "refusing to write a binary sequence file to a terminal; redirect standard output",
        ));
    }
    let mut w = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    let name = Path::new("standard output");
    let e = match seqfile::write_to(store, &mut w, name, level, frame_values, to, Some(stop)) {
        Err(StoreError::Interrupted(status)) => {
            eprintln!("octal: interrupted: the sequence file on standard output is incomplete");
            return Ok(ExitCode::from(status as u8));
        }
        r => r?,
    };
    eprintln!(
        "exported {} values of {} to standard output: {} ({} raw, ratio {:.1}) in {:.2} s",
        e.values,
        store.code(),
        run::human_bytes(e.bytes),
        run::human_bytes(e.raw_bytes),
        e.raw_bytes as f64 / e.bytes.max(1) as f64,
        start.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// A new, empty temporary file next to the picture `output`; refuses an
/// `output` that exists and is not a regular file.
fn plot_temp(output: &Path) -> Result<PathBuf> {
    if let Ok(m) = std::fs::symlink_metadata(output) {
        if !m.is_file() {
            return Err(input(format!(
                "{}: refusing to write: it exists and is not a regular file",
                output.display()
            )));
        }
    }
    let name = output
        .file_name()
        .map_or("plot".into(), |n| n.to_string_lossy().into_owned());
    let dir = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .with_context(|| format!("cannot write {}", output.display()))?;
    Ok(tmp)
}

/// Gets the values of a plot and draws them.
/// Most values read back to find a file's rare positions for a plot.
const RINGS_MAX: u64 = 1 << 24;

/// The rare positions below `to` of a sequence's values (a run's, a
/// store's or a file's), for the plot's rings: a fresh sparse engine
/// handed G(0..to) rebuilds its mask
/// and rare list from them and computes nothing. Past [`RINGS_MAX`] values
/// (64 MiB read back) none are drawn. The period is not redrawn here: a
/// file's summary does not keep it.
fn file_overlays(values: &dyn plot::Values, code: &Code, to: u64) -> Result<Overlays> {
    if to > RINGS_MAX || to == 0 {
        return Ok(Overlays::default());
    }
    let mut g = vec![0u32; to as usize];
    values.read(0, &mut g)?;
    let Ok(mut engine) = EngineKind::Sparse.build_with(code, 1, Default::default()) else {
        return Ok(Overlays::default());
    };
    engine.extend_u32(&mut g, to as usize).map_err(|o| {
        anyhow::anyhow!(
            "rebuilding the rare positions: value {} at {}",
            o.value,
            o.at
        )
    })?;
    Ok(Overlays {
        rare: engine.rare_positions(),
        period: None,
    })
}

fn plot_source(
    source: Source,
    opts: &mut PlotOptions,
    format: Format,
    quiet: bool,
    engine: &EngineOpts,
) -> Result<plot::Picture> {
    match source {
        Source::Code(code) => {
            let job = engine.job(code, opts.to)?;
            let bar = progress_bar(job.to, quiet);
            let outcome = run::run(&job, &mut |p| update(&bar, p))?;
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            if opts.title.is_empty() {
                opts.title = format!("{}: G(n) for {} ≤ n < {}", job.code, opts.from, opts.to);
            }
            if opts.from == 0 {
                opts.max_value = Some(outcome.summary.max_value);
            }
            // Rings as for a store of the same values (the mask chosen
            // from them all), so that both pictures are one.
            let rings = file_overlays(&outcome.seq, &job.code, opts.to)?;
            let overlays = Overlays {
                rare: rings.rare,
                period: outcome.summary.period.as_ref().map(|p| plot::Period {
                    preperiod: p.preperiod,
                    period: p.period,
                }),
            };
            let span = opts.to - opts.from;
            let bar = progress_bar(span, quiet || span < 10_000_000);
            let picture = plot::render(&outcome.seq, opts, &overlays, format, &|done| {
                if let Some(bar) = &bar {
                    bar.set_position(done);
                }
            })?;
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            Ok(picture)
        }
        Source::File(path) => {
            if opts.to == 0 {
                opts.to = match seqfile::detect(&path)? {
                    Some(Kind::Store) => Store::open(&path, false)?.good(),
                    Some(Kind::SeqFile) => SeqFile::open(&path)?.count(),
                    None => return Err(StoreError::Foreign(path).into()),
                };
            }
            let bar = progress_bar(
                opts.to - opts.from,
                quiet || opts.to - opts.from < 10_000_000,
            );
            let progress = |done| {
                if let Some(bar) = &bar {
                    bar.set_position(done);
                }
            };
            let picture = match seqfile::detect(&path)? {
                Some(Kind::Store) => {
                    let store = Store::open(&path, false)?;
                    check_range(&path, opts.from, Some(opts.to), store.good())?;
                    store.check_chunks_in(opts.from, opts.to)?;
                    let cp = store.checkpoint();
                    if opts.title.is_empty() {
                        opts.title =
                            format!("{}: G(n) for {} ≤ n < {}", store.code(), opts.from, opts.to);
                    }
                    if opts.from == 0 && cp.good == opts.to {
                        opts.max_value = Some(cp.stats.max_value);
                    }
                    let overlays = file_overlays(&store, store.code(), opts.to)?;
                    plot::render(&store, opts, &overlays, format, &progress)?
                }
                Some(Kind::SeqFile) => {
                    let file = SeqFile::open(&path)?;
                    check_range(&path, opts.from, Some(opts.to), file.count())?;
                    if opts.title.is_empty() {
                        opts.title =
                            format!("{}: G(n) for {} ≤ n < {}", file.code(), opts.from, opts.to);
                    }
                    if opts.from == 0 && file.count() == opts.to {
                        opts.max_value = Some(file.header().max_value);
                    }
                    let overlays = file_overlays(&file, file.code(), opts.to)?;
                    plot::render(&file, opts, &overlays, format, &progress)?
                }
                None => return Err(StoreError::Foreign(path).into()),
            };
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            Ok(picture)
        }
    }
}

/// Says on stderr when a store opened at its older checkpoint.
fn warn_lost_slot(store: &Store) {
    if let Some(lost) = stored::lost_slot(store) {
        eprintln!("octal: warning: {}: {lost}", store.path().display());
    }
}

/// `verify`'s exit status when the store is sound but a header slot was
/// lost, so it opens at the older checkpoint (documented in docs/store.md).
const EXIT_CHECKPOINT_LOST: u8 = 3;

/// Progress of `verify --recompute` on a terminal: a bar, and once the
/// first values are done, how long the reference engine will take.
struct RecomputeMeter {
    show: bool,
    bar: Option<ProgressBar>,
    start: Instant,
    said: bool,
}

impl RecomputeMeter {
    fn new(quiet: bool) -> RecomputeMeter {
        let show = !quiet && std::io::stderr().is_terminal();
        RecomputeMeter {
            show,
            bar: None,
            start: Instant::now(),
            said: false,
        }
    }

    fn update(&mut self, done: u64, total: u64) {
        if !self.show {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            self.start = Instant::now();
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template(
                    "recomputing with the reference engine [{elapsed_precise}] {bar:30} {human_pos}/{human_len} ETA {eta}",
                )
                .expect("valid template"),
            );
            bar
        });
        bar.set_position(done);
        let elapsed = self.start.elapsed().as_secs_f64();
        if !self.said && done > 0 && (elapsed > 0.5 || done >= 1024) {
            self.said = true;
            bar.println(format!(
                "octal: recomputing {total} values with the reference engine takes about {:.0} s",
                elapsed / done as f64 * total as f64
            ));
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// Where `octal run CODE` keeps its values when no --store is given.
pub fn default_store(code: &Code) -> PathBuf {
    PathBuf::from("runs").join(format!("{code}.octal"))
}

/// A run kept in `store`: progress, checkpoints, Ctrl-C, summary.
fn stored_run(
    mut store: Store,
    job: Job,
    opts: &StoreOpts,
    json: bool,
    quiet: bool,
    keep_going: bool,
    notation: &NotationOpts,
) -> Result<ExitCode> {
    let every = opts.every()?;
    let stop = stored::stop_on_signals().context("installing signal handlers")?;
    let path = store.path().display().to_string();
    warn_lost_slot(&store);
    let good = store.good();
    let bar = progress_bar(job.to, quiet || json);
    if let Some(bar) = &bar {
        bar.set_position(good.min(job.to));
    }
    let mut outcome = run_stored(
        &mut store,
        &job,
        every,
        Some(&stop),
        !keep_going,
        &mut |p| update(&bar, p),
    )?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let Ending::Stopped(status) = outcome.ending {
        eprintln!(
            "octal: interrupted: checkpoint saved at {} values in {path}; `octal resume {path}` continues",
            store.good()
        );
        return Ok(ExitCode::from(status as u8));
    }
    notation.apply(&mut outcome.summary, store.view(0, store.good()))?;
    if json {
        outln!("{}", serde_json::to_string(&outcome.summary)?);
    } else {
        print_human(&outcome.summary)?;
        match outcome.summary.resumed_from {
            Some(n) => outln!("store {path} (resumed from {n} values)"),
            None => outln!("store {path}"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--from`/`--to` against a file holding `count` values; returns `to`.
fn check_range(path: &Path, from: u64, to: Option<u64>, count: u64) -> Result<u64> {
    let to = to.unwrap_or(count);
    if to > count {
        return Err(input(format!(
            "{} holds {count} values, --to {to} is beyond them",
            path.display()
        )));
    }
    if from >= to {
        return Err(input(format!("--from {from} must be below --to {to}")));
    }
    Ok(to)
}
