//! Flags that several commands share, and the parsing of what users type
//! (codes, counts, thread counts).

use octal::count::parse_count;
use octal::engine::MaskSpec;

use super::prelude::*;

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
    /// Sparse-space mask: auto (computing in sparse space where that is
    /// faster on this CPU), sparse (wherever there is any), none, hex
    /// (0x1ee) or hex+p (position parity).
    #[arg(long, default_value = "auto")]
    mask: String,
}

impl Default for EngineOpts {
    /// The defaults of the flags: the sparse engine, every core, `auto`.
    fn default() -> EngineOpts {
        EngineOpts {
            engine: EngineKind::default(),
            threads: None,
            mask: "auto".into(),
        }
    }
}

impl EngineOpts {
    /// `--threads`, or every core.
    pub fn threads(&self) -> Result<usize> {
        threads(self.threads)
    }

    /// Whether an engine or a mask other than the default was asked for.
    pub fn chosen(&self) -> bool {
        self.engine != EngineKind::default()
            || !self
                .mask
                .parse::<MaskSpec>()
                .is_ok_and(|m| m == MaskSpec::Auto)
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

/// Options of runs kept in a store.
#[derive(clap::Args)]
pub struct StoreOpts {
    /// Seconds between checkpoints (fractions allowed; one beyond 10^19,
    /// or inf: only at the end and on a signal).
    #[arg(long, default_value_t = octal::run::stored::CHECKPOINT_SECONDS, value_name = "SECS")]
    pub checkpoint_every: f64,
    /// Values per checksummed chunk of a new store.
    #[arg(long, hide = true, default_value_t = DEFAULT_CHUNK_VALUES)]
    pub chunk_values: u64,
}

impl StoreOpts {
    pub fn every(&self) -> Result<Duration> {
        let secs = self.checkpoint_every;
        if secs.is_nan() || secs < 0.0 {
            return Err(input(format!(
                "--checkpoint-every {secs}: must be a number of seconds ≥ 0"
            )));
        }
        // Longer than a Duration holds (~1.8·10^19 s) is never on the timer.
        Ok(Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX))
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
    /// Whether `--notation` was given.
    pub fn asked(&self) -> bool {
        self.notation.is_some()
    }

    /// Puts the full notation of `seq`'s period into `s`, or into the file
    /// asked for (and says so on stderr).
    pub fn apply(&self, s: &mut Summary, seq: SeqRef<'_>) -> Result<()> {
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
        octal::store::output::write_file_io(dest, body.as_bytes())
            .with_context(|| format!("writing {}", dest.display()))?;
        eprintln!(
            "octal: the notation of period {} (preperiod {}) is in {}: text, then LaTeX",
            p.period,
            p.preperiod,
            dest.display()
        );
        Ok(())
    }
}

pub fn parse_code(s: &str) -> Result<Code> {
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

pub fn parse_to(flag: &str, s: &str) -> Result<u64> {
    let n = parse_count(s).map_err(|e| input(format!("--{flag}: {e}")))?;
    Ok(n)
}

/// `--time` of a Slurm task, checked against Slurm's formats (a value
/// written into a job script).
pub fn slurm_time(s: &str) -> Result<String, String> {
    octal::slurm::check_time(s)
        .map(|()| s.to_string())
        .map_err(|e| e.to_string())
}

pub fn threads(t: Option<usize>) -> Result<usize> {
    match t {
        Some(0) => Err(input("--threads must be at least 1")),
        Some(t) => Ok(t),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// `--from`/`--to` against a file holding `count` values; returns `to`.
pub fn check_range(path: &Path, from: u64, to: Option<u64>, count: u64) -> Result<u64> {
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

/// Where the values of a plot come from.
pub enum Source {
    Code(Code),
    /// A store or an exported sequence file (not readable yet).
    File(PathBuf),
}

pub fn parse_source(s: &str) -> Result<Source> {
    if Path::new(s).exists() {
        Ok(Source::File(s.into()))
    } else {
        Ok(Source::Code(parse_code(s)?))
    }
}

/// Whether an output path is `-`, standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}
