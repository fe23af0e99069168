//! `octal verify`: check a store or an exported file, and recompute a
//! sample of its values with the reference engine.

use super::prelude::*;

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The store (e.g. runs/0.6.octal) or exported file (.oseq) to check.
    pub path: PathBuf,
    /// Recompute this many values at random (plus the last) with the
    /// reference engine.
    #[arg(long, default_value_t = 0, value_name = "K")]
    pub recompute: u64,
    /// Seed for picking the values to recompute (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
    /// No progress display while recomputing.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn verify(args: VerifyArgs) -> Result<ExitCode> {
    let VerifyArgs {
        path,
        recompute,
        seed,
        quiet,
    } = args;
    let seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    if octal::window::file::detect(&path) {
        let v = octal::verify::verify_window(&path, recompute.max(16), seed)?;
        if v.wrong.is_empty() {
            outln!("ok {} (seed {seed})", v.line);
            return Ok(ExitCode::SUCCESS);
        }
        outln!("DAMAGED {}", v.line);
        for (n, have, want) in v.wrong {
            outln!("  G({n}) is {have} in the file, but {want} recomputed");
        }
        return Ok(ExitCode::from(FAILED));
    }
    let mut meter = RecomputeMeter::new(quiet);
    let opened = Opened::open(&path)?;
    let verdict =
        octal::verify::verify_opened(&opened, recompute, seed, &mut |d, t| meter.update(d, t))?;
    meter.finish();
    let octal::verify::Verdict {
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
        INCOMPLETE
    } else {
        FAILED
    }))
}

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
