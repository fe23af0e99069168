//! The `octal` command line: a thin shell over the library.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use octal::code::{Code, CodeError};
use octal::count::{parse_count, CountError};
use octal::engine::EngineKind;
use octal::run::{self, Job, JobError, Progress, Summary};

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
        /// The octal code, e.g. 0.6, .137 or 4.7.
        code: String,
        /// How many values: 1000000, 1e6, 2^20 or 1_000_000.
        #[arg(long, allow_hyphen_values = true)]
        to: String,
        /// Print one JSON object instead of the human summary.
        #[arg(long)]
        json: bool,
        /// No progress display.
        #[arg(long, short)]
        quiet: bool,
        #[arg(long, value_enum, default_value_t)]
        engine: EngineKind,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Sparse-space mask: auto, none, hex (0x1ee) or hex+p (position parity).
        #[arg(long, default_value = "auto")]
        mask: String,
    },
    /// Print G(M) … G(N−1), one per line.
    Values {
        code: String,
        #[arg(long, allow_hyphen_values = true)]
        to: String,
        #[arg(long, default_value = "0", allow_hyphen_values = true)]
        from: String,
        #[arg(long, value_enum, default_value_t)]
        engine: EngineKind,
        #[arg(long)]
        threads: Option<usize>,
        #[arg(long, default_value = "auto")]
        mask: String,
    },
}

/// An error in what the user typed: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct InputError(String);

fn input<E: std::fmt::Display>(e: E) -> anyhow::Error {
    InputError(e.to_string()).into()
}

fn parse_code(s: &str) -> Result<Code> {
    s.parse::<Code>().map_err(input)
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
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {human_pos}/{human_len} {per_sec} ETA {eta} {msg}",
        )
        .expect("valid template"),
    );
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

fn print_human(s: &Summary) {
    println!(
        "{}: {} values in {:.3} s ({:.0} values/s, engine {}, {} thread{})",
        s.code,
        s.values,
        s.seconds,
        s.values_per_second,
        s.engine.engine,
        s.engine.threads,
        if s.engine.threads == 1 { "" } else { "s" }
    );
    println!(
        "max value {} (first at n={}), {} zeros, last value G({})={}",
        s.max_value,
        s.first_max_at,
        s.zeros,
        s.values.saturating_sub(1),
        s.last_value
    );
    if let Some(mask) = s.engine.rare_mask {
        println!(
            "sparse space: mask 0x{mask:x}, {} rare positions, last at {}",
            s.engine.rare_positions.unwrap_or(0),
            s.engine.last_rare_at.map_or("-".into(), |r| r.to_string())
        );
    }
    println!(
        "checksum {} (FNV-1a-64 of the values as little-endian u32)",
        s.checksum
    );
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli.command) {
        Ok(code) => code,
        Err(e) => {
            let usage = e.downcast_ref::<InputError>().is_some()
                || e.downcast_ref::<CodeError>().is_some()
                || e.downcast_ref::<CountError>().is_some()
                || e.downcast_ref::<JobError>().is_some();
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
            json,
            quiet,
            engine,
            threads: t,
            mask,
        } => {
            let job = Job {
                code: parse_code(&code)?,
                to: parse_to("to", &to)?,
                engine,
                threads: threads(t)?,
                mask: mask.parse().map_err(input)?,
            };
            let bar = progress_bar(job.to, quiet || json);
            let outcome = run::run(&job, &mut |p| update(&bar, p))?;
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            if json {
                println!("{}", serde_json::to_string(&outcome.summary)?);
            } else {
                print_human(&outcome.summary);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Values {
            code,
            to,
            from,
            engine,
            threads: t,
            mask,
        } => {
            let code = parse_code(&code)?;
            let to = parse_to("to", &to)?;
            let from = parse_to("from", &from)?;
            if from >= to {
                return Err(input(format!("--from {from} must be below --to {to}")));
            }
            let job = Job {
                code,
                to,
                engine,
                threads: threads(t)?,
                mask: mask.parse().map_err(input)?,
            };
            let outcome = run::run(&job, &mut |_| {})?;
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            for n in from as usize..to as usize {
                writeln!(out, "{}", outcome.seq.get(n)).context("writing values")?;
            }
            out.flush().context("writing values")?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
