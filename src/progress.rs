//! The progress line of a long run, as a function of what the run reports
//! and of a clock the caller reads, so that it can be tested without
//! timing. The rate is counted from the first position observed, not from
//! 0: a store resumed half-done once showed 2·10^12 values/s, its held
//! values taken for work of the first second. The line fits an 80-column
//! terminal and shows what one watches overnight: the last rare position
//! and the apparent period.

use std::collections::VecDeque;

/// The rate is taken over about this many seconds of the recent past (a
/// run slows as its heaps grow; the ETA follows the current pace).
const SPAN: f64 = 30.0;
/// Observations closer together than this replace one another.
const GRAIN: f64 = 0.1;

/// Values a second, from observations `(t, done)`: `t` in seconds on any
/// clock, `done` the values held at that time. The first observation is
/// the baseline; values held before it are never counted as computed.
#[derive(Debug, Clone, Default)]
pub struct Rate {
    samples: VecDeque<(f64, u64)>,
}

impl Rate {
    pub fn new() -> Rate {
        Rate::default()
    }

    /// Records that `done` values were held at time `t` (non-decreasing).
    pub fn observe(&mut self, t: f64, done: u64) {
        let n = self.samples.len();
        if n >= 2 && t - self.samples[n - 2].0 < GRAIN {
            self.samples[n - 1] = (t, done);
        } else {
            self.samples.push_back((t, done));
        }
        // Keep one observation at least SPAN old, to measure over SPAN.
        while self.samples.len() > 2 && t - self.samples[1].0 >= SPAN {
            self.samples.pop_front();
        }
    }

    /// Values a second over the recent past; None before half a second
    /// has been observed.
    pub fn per_second(&self) -> Option<f64> {
        let (&(t0, d0), &(t1, d1)) = (self.samples.front()?, self.samples.back()?);
        (t1 - t0 >= 0.5).then(|| d1.saturating_sub(d0) as f64 / (t1 - t0))
    }

    /// Seconds until `to` values at the current rate.
    pub fn eta(&self, to: u64) -> Option<f64> {
        let rate = self.per_second().filter(|&r| r > 0.0)?;
        let done = self.samples.back()?.1;
        Some(to.saturating_sub(done) as f64 / rate)
    }
}

/// What the progress line shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    pub done: u64,
    pub to: u64,
    pub per_second: Option<f64>,
    pub eta: Option<f64>,
    /// The last rare position, when the engine has a sparse space.
    pub last_rare_at: Option<u64>,
    /// The period the values show so far, and whether it is proven.
    pub period: Option<(u64, bool)>,
}

/// The widest a progress line gets: it must not wrap on an 80-column
/// terminal (a terminal wraps at its last column).
pub const WIDTH: usize = 79;

impl Line {
    /// The line, at most [`WIDTH`] characters, e.g.
    /// `[#####.....]  50% 67.11M/134.2M 1.2M/s eta 56s rare@67108001 p~149459`
    /// (`p~`: an apparent period, `p=`: a proven one).
    pub fn render(&self) -> String {
        let frac = if self.to == 0 {
            0.0
        } else {
            (self.done as f64 / self.to as f64).min(1.0)
        };
        let cells = 10;
        let full = (frac * cells as f64).floor() as usize;
        let mut s = format!(
            "[{}{}] {:>3}% {}/{} {}/s eta {}",
            "#".repeat(full),
            ".".repeat(cells - full),
            (frac * 100.0).floor() as u64,
            si(self.done as f64),
            si(self.to as f64),
            self.per_second.map_or("-".into(), si),
            self.eta.map_or("-".into(), duration)
        );
        if let Some(r) = self.last_rare_at {
            s += &format!(" rare@{}", exact(r));
        }
        if let Some((p, proven)) = self.period {
            s += &format!(" p{}{}", if proven { '=' } else { '~' }, exact(p));
        }
        s
    }
}

/// A count in at most 6 characters: `999`, `12.34k`, `134.2M`, `281.5T`.
fn si(x: f64) -> String {
    const UNITS: [&str; 6] = ["", "k", "M", "G", "T", "P"];
    let mut x = x.max(0.0);
    let mut u = 0;
    while x >= 999.95 && u + 1 < UNITS.len() {
        x /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{}", x.round() as u64)
    } else if x >= 99.95 {
        format!("{x:.1}{}", UNITS[u])
    } else {
        format!("{x:.2}{}", UNITS[u])
    }
}

/// A heap or period: exact up to 9 digits (every n of a 2^27 run), else
/// in [`si`] form.
fn exact(n: u64) -> String {
    if n < 1_000_000_000 {
        n.to_string()
    } else {
        si(n as f64)
    }
}

/// Seconds as `56s`, `12m04s`, `3h07m`, `12d03h` (at most 6 characters).
fn duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
        3600..=86_399 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        _ if s / 86_400 < 1000 => format!("{}d{:02}h", s / 86_400, s % 86_400 / 3600),
        _ => ">999d".into(),
    }
}
