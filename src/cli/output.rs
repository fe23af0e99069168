//! What the commands print: the human summary, progress bars, and writes
//! to stdout that fail cleanly on a full disk.

use super::prelude::*;

/// `println!` that returns an error from the enclosing function when
/// stdout cannot be written (a full disk), instead of panicking.
#[macro_export]
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), $($t)*).map_err($crate::cli::output::stdout_error)?
    }};
}

/// `print!` that returns an error when stdout cannot be written.
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout(), $($t)*).map_err($crate::cli::output::stdout_error)?
    }};
}

/// Why stdout could not be written, as a one-line error (exit 1).
pub fn stdout_error(e: std::io::Error) -> anyhow::Error {
    anyhow::anyhow!("writing to stdout: {e}")
}

/// A progress bar on stderr, only when stdout is a terminal and not quiet.
pub fn progress_bar(to: u64, quiet: bool) -> Option<ProgressBar> {
    if quiet || !std::io::stdout().is_terminal() || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(to);
    bar.set_style(rate_style(
        "{spinner} [{elapsed_precise}] {bar:30} {human_pos}/{human_len} {rate} ETA {eta} {msg}",
    ));
    Some(bar)
}

pub fn update(bar: &Option<ProgressBar>, p: &run::Progress) {
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
pub fn plural(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// A progress style from `template`, where `{rate}` is the values a second
/// as a whole number with thousands separators.
pub fn rate_style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}/s", indicatif::HumanCount(state.per_sec() as u64));
            },
        )
}

/// The summary as one JSON object, or in words.
pub fn print_summary(s: &Summary, json: bool) -> Result<()> {
    if json {
        outln!("{}", serde_json::to_string(s)?);
        Ok(())
    } else {
        print_human(s)
    }
}

pub fn print_human(s: &Summary) -> Result<()> {
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

pub fn print_period(s: &Summary) -> Result<()> {
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
