//! Long work off the GIL: a worker thread computes while the calling
//! thread watches for Ctrl-C and reports progress, so that every call can
//! be interrupted and a panic becomes a `RuntimeError`, never a crash.

use std::any::Any;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::bridge::Meter;

/// The exit status Ctrl-C asks a run for (128 + SIGINT), as the CLI uses.
const EXIT_SIGINT: usize = 130;

fn panic_message(p: &(dyn Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// What a worker thread hands back, and the flags it shares.
struct Shared<R> {
    slot: Mutex<Option<std::thread::Result<R>>>,
    ready: Condvar,
    stop: AtomicUsize,
    meter: Meter,
}

impl<R> Shared<R> {
    /// The worker's result, waiting at most `wait` (for ever: `None`).
    fn take(&self, wait: Option<Duration>) -> Option<std::thread::Result<R>> {
        let slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        let mut slot = match wait {
            Some(d) => {
                self.ready
                    .wait_timeout_while(slot, d, |s| s.is_none())
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
            None => self
                .ready
                .wait_while(slot, |s| s.is_none())
                .unwrap_or_else(|e| e.into_inner()),
        };
        slot.take()
    }
}

/// How [`supervise`]d work ended.
pub enum Outcome<R> {
    Done(R),
    /// Ctrl-C (or an exception raised by the progress callback): the error
    /// to raise, and the worker's result if it was waited for.
    Interrupted {
        err: PyErr,
        late: Option<R>,
    },
}

/// Runs `work` on a worker thread without the GIL. Meanwhile this thread
/// checks for signals (and calls `progress(done, total)`) every 50 ms. On
/// Ctrl-C the work's stop flag is set; with `wait` the worker is waited
/// for (it stops at its next piece, a run checkpointing first), otherwise
/// it is left to finish on its own and its result dropped.
pub fn supervise<R: Send + 'static>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    wait: bool,
    work: impl FnOnce(&AtomicUsize, &Meter) -> R + Send + 'static,
) -> PyResult<Outcome<R>> {
    let shared = Arc::new(Shared {
        slot: Mutex::new(None),
        ready: Condvar::new(),
        stop: AtomicUsize::new(0),
        meter: Meter::default(),
    });
    let worker = shared.clone();
    std::thread::Builder::new()
        .name("octal".into())
        .spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                work(&worker.stop, &worker.meter)
            }));
            *worker.slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            worker.ready.notify_all();
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    let unpanic = |r: std::thread::Result<R>| {
        r.map_err(|p| {
            PyRuntimeError::new_err(format!(
                "internal error in octal (please report it): {}",
                panic_message(&*p)
            ))
        })
    };
    let mut shown = None;
    let mut show = |shared: &Shared<R>| -> PyResult<()> {
        let Some(cb) = progress else { return Ok(()) };
        let now = (
            shared.meter.done.load(Ordering::Relaxed),
            shared.meter.total.load(Ordering::Relaxed),
        );
        // (Nothing to show before the worker has said anything.)
        if shown != Some(now) && now != (0, 0) {
            shown = Some(now);
            cb.call1(now)?;
        }
        Ok(())
    };
    loop {
        let s = &shared;
        if let Some(r) = py.detach(|| s.take(Some(Duration::from_millis(50)))) {
            let r = unpanic(r)?;
            show(&shared)?;
            return Ok(Outcome::Done(r));
        }
        if let Err(err) = py.check_signals().and_then(|()| show(&shared)) {
            shared.stop.store(EXIT_SIGINT, Ordering::SeqCst);
            let late = if wait {
                Some(unpanic(py.detach(|| s.take(None)).expect("waited"))?)
            } else {
                None
            };
            return Ok(Outcome::Interrupted { err, late });
        }
    }
}
