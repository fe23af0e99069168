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

/// A run's progress display: an indicatif bar whose message is the line
/// [`octal::progress::Line`] renders, with the rate counted from where
/// this process started ([`octal::progress::Rate`]).
#[derive(Clone)]
pub struct Bar {
    bar: ProgressBar,
    rate: std::sync::Arc<std::sync::Mutex<octal::progress::Rate>>,
    clock: std::time::Instant,
}

impl std::ops::Deref for Bar {
    type Target = ProgressBar;
    fn deref(&self) -> &ProgressBar {
        &self.bar
    }
}

impl Bar {
    /// `bar` (its style's `{msg}` gets the line) as a run's display.
    pub fn of(bar: ProgressBar) -> Bar {
        Bar {
            bar,
            rate: Default::default(),
            clock: std::time::Instant::now(),
        }
    }

    /// The indicatif bar itself.
    pub fn into_inner(self) -> ProgressBar {
        self.bar
    }

    /// Starts the count at `done` values already held (a resumed run).
    pub fn start_at(&self, done: u64) {
        self.observe(done);
        self.bar.set_position(done);
    }

    fn observe(&self, done: u64) -> octal::progress::Rate {
        let mut rate = self.rate.lock().unwrap_or_else(|e| e.into_inner());
        rate.observe(self.clock.elapsed().as_secs_f64(), done);
        rate.clone()
    }

    /// Shows a run's progress report.
    pub fn show(&self, p: &run::Progress) {
        let rate = self.observe(p.done);
        self.bar.set_position(p.done);
        let line = octal::progress::Line {
            done: p.done,
            to: p.to,
            per_second: rate.per_second(),
            eta: rate.eta(p.to),
            last_rare_at: p.last_rare_at,
            period: p.period,
        };
        self.bar.set_message(line.render());
    }
}

/// A progress bar on stderr, only when stdout is a terminal and not quiet.
pub fn progress_bar(to: u64, quiet: bool) -> Option<Bar> {
    if quiet || !std::io::stdout().is_terminal() || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(to);
    bar.set_style(ProgressStyle::with_template("{msg}").expect("valid template"));
    Some(Bar::of(bar))
}

pub fn update(bar: &Option<Bar>, p: &run::Progress) {
    if let Some(bar) = bar {
        bar.show(p);
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
        out!("{}", octal::report::human(s));
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
