//! `octal census`'s flags, and what is read off them alone: the canonical
//! prefixes and the provenance line every table opens with.

use octal::census;

use crate::cli::prelude::*;

#[derive(clap::Args)]
pub struct CensusArgs {
    /// Digits after the point: every code with 1 to D of them.
    #[arg(long, default_value_t = 2)]
    pub digits: usize,
    /// Hexadecimal digits (0–F; bit 8 splits a heap into three): every
    /// hexadecimal code of up to 3 digits, the games where arithmetic
    /// periods occur. No period of theirs is proven (no bound is derived
    /// for three-heap splits): they are listed as open, with the period or
    /// arithmetic period their values show.
    #[arg(long)]
    pub hex: bool,
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
    /// Members go on to their class' reach, so that their agreement is
    /// checked that far and not only to the probe (for a periodic class,
    /// until they prove their own period, which makes them equal for
    /// every n), each within ten times --member-seconds. With a FACTOR, only the
    /// cheapest go on, within FACTOR times the seconds the rest of the
    /// census took (1 about doubles a census; 0 checks them to the probe
    /// only). The tables say how far each member was checked.
    #[arg(long, value_name = "FACTOR")]
    pub member_budget: Option<f64>,
    /// Runs the class of CODE on to N values, beyond --to, within ten
    /// times --member-seconds: for a class whose published period needs
    /// more values to prove (`--further .1777=2^29`). Repeatable.
    #[arg(long, value_name = "CODE=N", conflicts_with_all = ["slurm", "collect"])]
    pub further: Vec<String>,
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

/// The canonical `--prefix`: `0`, `4` or `0,4`.
pub(super) fn prefixes(args: &CensusArgs) -> Result<String> {
    let p = census::parse_prefixes(&args.prefix).map_err(input)?;
    Ok(p.iter().map(u8::to_string).collect::<Vec<_>>().join(","))
}

/// The census' games, as its flags name them: `--digits 3 --prefix 0,4`,
/// with `--hex` for hexadecimal ones.
pub(super) fn which(args: &CensusArgs) -> String {
    let prefix = prefixes(args).unwrap_or_else(|_| args.prefix.clone());
    let hex = if args.hex { " --hex" } else { "" };
    format!("--digits {}{hex} --prefix {prefix}", args.digits)
}

/// The census' games in a word, for names: `3`, or `hex-2`.
pub(super) fn kind(args: &CensusArgs) -> String {
    if args.hex {
        format!("hex-{}", args.digits)
    } else {
        args.digits.to_string()
    }
}

/// The `--further` targets as (index into `entries`, values): each CODE
/// must be one of the census' games, and each N beyond `to` and within
/// memory.
pub(super) fn further(
    args: &CensusArgs,
    entries: &[census::Entry],
    to: u64,
) -> Result<Vec<(usize, u64)>> {
    args.further
        .iter()
        .map(|f| {
            let bad = || input(format!("--further {f}: give CODE=N, as .1777=2^29"));
            let (code, n) = f.split_once('=').ok_or_else(bad)?;
            let code: octal::code::Code = code.trim().parse().map_err(|_| bad())?;
            let n = parse_to("further", n.trim())?;
            let i = entries.iter().position(|e| e.code == code).ok_or_else(|| {
                input(format!(
                    "--further {f}: {code} is not one of this census' games"
                ))
            })?;
            if n <= to {
                return Err(input(format!(
                    "--further {f}: {n} values is not beyond --to {to}"
                )));
            }
            run::check_in_memory(n)?;
            Ok((i, n))
        })
        .collect()
}

/// The census' provenance: this octal, the commit of the source it was
/// built from, today's date (UTC) and the command with every option that
/// shapes the tables (`--out`, `--json` and `--quiet` do not).
pub(super) fn provenance(args: &CensusArgs, to: u64) -> census::Provenance {
    let mut command = format!("octal census {} --to {to}", which(args));
    let probe =
        parse_to("probe", &args.probe).map_or(args.probe.clone(), |p| p.min(to).to_string());
    match &args.collect {
        Some(_) => command += &format!(" --probe {probe} --collect DIR"),
        None => {
            command += &format!(
                " --probe {probe} --member-seconds {}{} --check-minutes {} --jobs {}",
                args.member_seconds,
                args.member_budget
                    .map_or(String::new(), |f| format!(" --member-budget {f}")),
                args.check_minutes,
                threads(args.jobs).unwrap_or(1)
            );
            for f in &args.further {
                command += &format!(" --further {f}");
            }
        }
    }
    census::Provenance {
        octal: octal::about::VERSION.into(),
        commit: octal::about::COMMIT.into(),
        date: octal::about::utc_today(),
        command,
    }
}
