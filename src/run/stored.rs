//! Runs kept in a store: continue from the store's checkpoint, checkpoint
//! on a timer and when SIGINT, SIGTERM or SIGHUP arrives, and summarise
//! the whole sequence. The store is the [`Backing`] of the one driver,
//! [`drive`]; the store itself knows only its file format.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::Arc;
use std::time::Instant;

use super::driver::{drive, Backing, Control, Ending};
use super::error::RunError;
use super::in_memory::Job;
use super::summary::Summary;
use crate::engine::{Engine, EngineInfo};
use crate::period::Detector;
use crate::seq::{SeqMut, SeqRef};
use crate::stats::Stats;
use crate::store::checkpoint::{detector_of, restore_detector};
use crate::store::{Checkpoint, Store, StoreError};

/// Seconds between checkpoints unless asked otherwise: at most this much
/// work is lost to `kill -9` or a power cut.
pub const CHECKPOINT_SECONDS: f64 = 60.0;

/// Exit status after SIGINT (128 + 2), as shells report it.
pub const EXIT_SIGINT: usize = 130;
/// Exit status after SIGTERM (128 + 15).
pub const EXIT_SIGTERM: usize = 143;
/// Exit status after SIGHUP (128 + 1): the terminal went away.
pub const EXIT_SIGHUP: usize = 129;

/// Installs SIGINT, SIGTERM and SIGHUP (a closed terminal or a dropped
/// ssh session) handlers that set the returned flag to the exit status to
/// use (130, 143 or 129), for [`run_in_store`] to checkpoint and stop. A
/// second signal exits at once: the store still holds its last checkpoint.
pub fn stop_on_signals() -> io::Result<Arc<AtomicUsize>> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use signal_hook::flag;
    let stop = Arc::new(AtomicUsize::new(0));
    let again = Arc::new(AtomicBool::new(false));
    for (sig, status) in [
        (SIGINT, EXIT_SIGINT),
        (SIGTERM, EXIT_SIGTERM),
        (SIGHUP, EXIT_SIGHUP),
    ] {
        flag::register_conditional_shutdown(sig, status as i32, again.clone())?;
        flag::register(sig, again.clone())?;
        flag::register_usize(sig, stop.clone(), status)?;
    }
    Ok(stop)
}

/// A store seen as the backing of a run.
struct OnStore<'a> {
    store: &'a mut Store,
    base_seconds: f64,
    start: Instant,
    target: u64,
    engine: &'static str,
}

impl OnStore<'_> {
    fn next(&self, stats: &Stats, period_state: Option<Vec<u8>>) -> Checkpoint {
        let cp = self.store.checkpoint();
        Checkpoint {
            good: stats.values,
            target: self.target,
            width: cp.width,
            seconds: self.base_seconds + self.start.elapsed().as_secs_f64(),
            stats: stats.clone(),
            engine: self.engine.to_string(),
            // Engines rebuild their state from the values.
            engine_state: Vec::new(),
            // The detector's state at `good`; `None` keeps the saved one.
            period_state: period_state.unwrap_or_else(|| cp.period_state.clone()),
            chunks: Vec::new(),
        }
    }
}

impl Backing for OnStore<'_> {
    type Error = StoreError;

    fn lend(&mut self, end: usize, _to: usize) -> Result<SeqMut<'_>, StoreError> {
        self.store.lend(end as u64)
    }

    fn view(&self, from: usize, to: usize) -> SeqRef<'_> {
        self.store.view(from as u64, to as u64)
    }

    fn widen(&mut self, at: usize, stats: &Stats) -> Result<(), StoreError> {
        debug_assert_eq!(stats.values, at as u64);
        let next = self.next(stats, None);
        self.store.widen(next)
    }

    fn checkpoint(&mut self, stats: &Stats, detector: &Detector) -> Result<(), StoreError> {
        let state = serde_json::to_vec(detector).expect("the detector serialises");
        let next = self.next(stats, Some(state));
        self.store.commit(next)
    }
}

/// A stored run's end: its summary (of the whole sequence up to the
/// target) and whether it finished or was stopped.
pub struct StoredOutcome {
    pub summary: Summary,
    pub ending: Ending,
}

/// Extends `store` to `job.to` values (the code must be the store's),
/// steered by `ctl`: checkpointing every `ctl.checkpoint_every` (and at
/// the end) and when `ctl.stop` becomes non-zero, and with
/// `ctl.stop_at_proof` stopping once a period is proven. A target below
/// what the store holds just summarises that prefix.
pub fn run_in_store(
    store: &mut Store,
    job: &Job,
    ctl: &mut Control,
) -> Result<StoredOutcome, RunError> {
    assert_eq!(store.code(), &job.code, "the caller checks the code");
    // Build only on values that still match their checksums.
    store.check_chunks()?;
    let cp = store.checkpoint().clone();
    let mut engine = job.engine.build_with(&job.code, job.threads, job.mask)?;
    let resumed_from = (cp.good > 0).then_some(cp.good);
    let (stats, seconds, ending, detector) = if job.to <= cp.good {
        // Nothing to compute: summarise the prefix asked for (with the
        // time it took when that is the whole store).
        let detector = detector_of(store, job.to);
        if job.to == cp.good {
            (cp.stats.clone(), cp.seconds, Ending::Done, detector)
        } else {
            (store.stats_of(job.to), 0.0, Ending::Done, detector)
        }
    } else {
        let mut stats = cp.stats.clone();
        let mut detector = restore_detector(store);
        store.set_target(job.to);
        let mut backing = OnStore {
            store: &mut *store,
            base_seconds: cp.seconds,
            start: Instant::now(),
            target: job.to,
            engine: engine.info().engine,
        };
        let ending = drive(
            &mut *engine,
            &mut backing,
            &mut stats,
            &mut detector,
            job.to as usize,
            ctl,
        )?;
        (stats, store.checkpoint().seconds, ending, detector)
    };
    let fresh = fresh_engine(store, job, stats.values)?;
    let info = info_of_values(fresh.as_deref(), engine.info());
    let mut summary = Summary::new(&job.code, &stats, seconds, store.width(), info);
    summary.set_period(&job.code, &detector, store.view(0, stats.values));
    summary.set_rare(
        fresh.as_deref().unwrap_or(&*engine),
        store.view(0, stats.values),
    );
    summary.store = Some(store.path().display().to_string());
    if job.to < cp.good {
        summary.held = Some(cp.good);
    } else {
        summary.resumed_from = resumed_from;
    }
    Ok(StoredOutcome { summary, ending })
}

/// A fresh engine given the stored `g[..n]` (None when `n` is 0): its
/// sparse-space facts (mask, rare positions and their class) are a
/// function of the values alone, so that the summary of a store does not
/// depend on how many sessions computed it.
fn fresh_engine(store: &mut Store, job: &Job, n: u64) -> Result<Option<Box<dyn Engine>>, RunError> {
    if n == 0 {
        return Ok(None);
    }
    let mut fresh = job.engine.build_with(&job.code, 1, job.mask)?;
    // `from == g.len()`: the engine rebuilds its state and computes nothing.
    let built = match store.lend(n)? {
        SeqMut::U16(g) => fresh.extend_u16(g, n as usize),
        SeqMut::U32(g) => fresh.extend_u32(g, n as usize),
    };
    debug_assert!(built.is_ok());
    Ok(Some(fresh))
}

/// The engine facts of a summary (`base`) with the sparse-space ones
/// taken from the `fresh` engine of [`fresh_engine`], if any.
fn info_of_values(fresh: Option<&dyn Engine>, base: EngineInfo) -> EngineInfo {
    let Some(fresh) = fresh else { return base };
    let f = fresh.info();
    EngineInfo {
        rare_mask: f.rare_mask,
        rare_positions: f.rare_positions,
        rare_positions_with_0: f.rare_positions_with_0,
        last_rare_at: f.last_rare_at,
        ..base
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::code::Code;
    use crate::engine::{fit, EngineInfo, Overflow};
    use crate::seq::Seq;
    use octal_kernels::Value;

    /// G(n) = 20n: overflows u16 at n = 3277, so runs must widen.
    struct Ramp;

    impl Ramp {
        fn fill<V: Value>(g: &mut [V], from: usize) -> Result<(), Overflow> {
            for (n, x) in g.iter_mut().enumerate().skip(from) {
                *x = fit(20 * n as u32, n)?;
            }
            Ok(())
        }
    }

    impl crate::engine::Engine for Ramp {
        fn extend_u16(&mut self, g: &mut [u16], from: usize) -> Result<(), Overflow> {
            Ramp::fill(g, from)
        }
        fn extend_u32(&mut self, g: &mut [u32], from: usize) -> Result<(), Overflow> {
            Ramp::fill(g, from)
        }
        fn info(&self) -> EngineInfo {
            EngineInfo {
                engine: "ramp",
                threads: 1,
                ..EngineInfo::default()
            }
        }
    }

    fn drive_store(store: &mut Store, to: usize) -> Stats {
        let mut stats = store.checkpoint().stats.clone();
        let mut detector = restore_detector(store);
        store.set_target(to as u64);
        let mut backing = OnStore {
            store,
            base_seconds: 0.0,
            start: Instant::now(),
            target: to as u64,
            engine: "ramp",
        };
        let mut ctl = Control {
            progress: &mut |_| {},
            checkpoint_every: Some(Duration::ZERO),
            stop: None,
            stop_at_proof: false,
        };
        let ending = drive(
            &mut Ramp,
            &mut backing,
            &mut stats,
            &mut detector,
            to,
            &mut ctl,
        )
        .unwrap();
        assert_eq!(ending, Ending::Done);
        stats
    }

    #[test]
    fn a_store_widens_to_u32_and_resumes_identically() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ramp.octal");
        let code: Code = "0.6".parse().unwrap();
        let want: Vec<u32> = (0..9000).map(|n| 20 * n).collect();
        {
            let mut store = Store::create(&path, &code, 2000, 1000).unwrap();
            // Stays u16 up to 2000, then widens on the way to 6000.
            drive_store(&mut store, 2000);
            assert_eq!(store.width(), 2);
            drive_store(&mut store, 6000);
            assert_eq!(store.width(), 4);
        }
        // Reopened after the rename: u32, checksums intact, and it goes on.
        let mut store = Store::open(&path, true).unwrap();
        assert_eq!((store.width(), store.good()), (4, 6000));
        store.check_chunks().unwrap();
        let stats = drive_store(&mut store, 9000);
        assert_eq!(stats, Stats::of(&want));
        assert_eq!(store.stats_of(9000), stats);
        assert!(store.bad_chunks().is_empty());
        assert!(matches!(store.view(0, 9000), SeqRef::U32(v) if v == &want[..]));
        // The in-memory run widens the same way.
        let mut seq = Seq::default();
        let mut mem = Stats::default();
        let mut ctl = Control {
            progress: &mut |_| {},
            checkpoint_every: None,
            stop: None,
            stop_at_proof: false,
        };
        let mut detector = Detector::new(&code);
        drive(&mut Ramp, &mut seq, &mut mem, &mut detector, 9000, &mut ctl).unwrap();
        assert_eq!((mem, seq), (stats, Seq::U32(want)));
        // No temporary files are left next to the store.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }
}
