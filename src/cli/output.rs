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

/// The summary as one JSON object, or in words ([`octal::report`]).
pub fn print_summary(s: &Summary, json: bool) -> Result<()> {
    if json {
        outln!("{}", serde_json::to_string(s)?);
    } else {
        out!("{}", octal::report::human(&serde_json::to_value(s)?));
    }
    Ok(())
}

/// Says on stderr that the values past the `known` ones, up to heap
/// `last`, are answers read off the proven period `p` (nothing when none
/// are).
pub fn note_period(known: u64, last: u64, p: &Period) {
    if last >= known {
        eprintln!("octal: {}", p.read_off_note(known));
    }
}
