//! A second thread that takes one job at a time and waits for the next by
//! spinning, not sleeping.
//!
//! The sparse engine hands a job to a second core once per block, about a
//! thousand times a second. Through a thread pool each hand-off wakes a
//! sleeping thread, and on the virtual machines where these runs live that
//! was measured at 100–400 µs a block: a fifth of the block. This helper
//! stays awake (spinning, then yielding its core) for a few milliseconds
//! after each job, so the next one starts at once; only after a longer
//! pause does it park.

use std::cell::UnsafeCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long the helper stays awake after a job before it parks.
const STAY_AWAKE: Duration = Duration::from_millis(20);

/// A type-erased job: a pointer to a closure on the poster's stack, valid
/// until the poster sees the job done (see [`Helper::join`]).
type Job = *mut (dyn FnMut() + Send);

struct Shared {
    /// Tickets: `posted` counts jobs handed over, `done` jobs finished.
    posted: AtomicU64,
    done: AtomicU64,
    quit: AtomicBool,
    /// The job of ticket `posted`, written before `posted` is raised and
    /// read by the helper after it sees the raise.
    job: UnsafeCell<Option<Job>>,
    /// A panic of the last job, handed back to the poster.
    panic: UnsafeCell<Option<Box<dyn std::any::Any + Send>>>,
}

// SAFETY: `job` and `panic` are only touched by one side at a time: the
// poster before raising `posted` and after seeing `done` catch up, the
// helper in between (the tickets are Release/Acquire pairs).
unsafe impl Sync for Shared {}
unsafe impl Send for Shared {}

/// The second thread (see the module documentation).
pub struct Helper {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Helper {
    /// Starts the thread, or `None` if the system refuses one.
    pub fn new() -> Option<Helper> {
        let shared = Arc::new(Shared {
            posted: AtomicU64::new(0),
            done: AtomicU64::new(0),
            quit: AtomicBool::new(false),
            job: UnsafeCell::new(None),
            panic: UnsafeCell::new(None),
        });
        let s = Arc::clone(&shared);
        let thread = thread::Builder::new()
            .name("octal-helper".into())
            .spawn(move || serve(&s))
            .ok()?;
        Some(Helper {
            shared,
            thread: Some(thread),
        })
    }

    /// Runs `a` on the helper and `b` here, and returns both results once
    /// both are done. A panic in either is resumed here.
    pub fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        RA: Send,
        B: FnOnce() -> RB,
    {
        let mut a = Some(a);
        let mut ra = None;
        let mut job = || ra = a.take().map(|a| a());
        let job: &mut (dyn FnMut() + Send) = &mut job;
        // SAFETY: the pointer outlives its use: this function does not
        // return (nor unwind) before the helper has finished the job, which
        // is waited for below even when `b` panics.
        let job: Job = unsafe { std::mem::transmute::<&mut (dyn FnMut() + Send), Job>(job) };
        let sh = &*self.shared;
        let ticket = sh.posted.load(Ordering::Relaxed) + 1;
        // SAFETY: the helper is idle (done == posted), so nobody reads `job`.
        unsafe { *sh.job.get() = Some(job) };
        sh.posted.store(ticket, Ordering::Release);
        if let Some(t) = &self.thread {
            t.thread().unpark();
        }
        let rb = catch_unwind(AssertUnwindSafe(b));
        let mut spins = 0u32;
        while sh.done.load(Ordering::Acquire) < ticket {
            spins += 1;
            if spins < 1 << 12 {
                std::hint::spin_loop();
            } else {
                thread::yield_now();
            }
        }
        // SAFETY: the helper is done with the job and idle again.
        if let Some(p) = unsafe { (*sh.panic.get()).take() } {
            resume_unwind(p);
        }
        match rb {
            Ok(rb) => (ra.expect("the helper ran the job"), rb),
            Err(p) => resume_unwind(p),
        }
    }
}

/// The helper's loop: wait for a ticket, run its job, report it done.
fn serve(sh: &Shared) {
    let mut seen = 0u64;
    let mut idle_since = Instant::now();
    let mut spins = 0u32;
    loop {
        if sh.quit.load(Ordering::Acquire) {
            return;
        }
        let posted = sh.posted.load(Ordering::Acquire);
        if posted == seen {
            spins += 1;
            if spins < 1 << 10 {
                std::hint::spin_loop();
            } else if idle_since.elapsed() < STAY_AWAKE {
                thread::yield_now();
            } else {
                // Woken by the next post (or spuriously: the loop rechecks).
                thread::park_timeout(Duration::from_millis(100));
            }
            continue;
        }
        // SAFETY: the poster wrote the job before raising `posted` (seen
        // above with Acquire) and waits for `done` before touching it again.
        let job = unsafe { (*sh.job.get()).take() };
        if let Some(job) = job {
            // SAFETY: the poster keeps the closure alive until `done`.
            let result = catch_unwind(AssertUnwindSafe(|| unsafe { (*job)() }));
            if let Err(p) = result {
                // SAFETY: as for `job`: the poster reads it only after `done`.
                unsafe { *sh.panic.get() = Some(p) };
            }
        }
        seen = posted;
        sh.done.store(posted, Ordering::Release);
        idle_since = Instant::now();
        spins = 0;
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        self.shared.quit.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_both_sides_with_borrowed_data() {
        let mut h = Helper::new().expect("a thread");
        let data: Vec<u64> = (0..1000).collect();
        for round in 0..200u64 {
            let (a, b) = h.join(
                || data.iter().map(|x| x * round).sum::<u64>(),
                || data.iter().sum::<u64>() + round,
            );
            assert_eq!(a, 499_500 * round);
            assert_eq!(b, 499_500 + round);
        }
    }

    #[test]
    fn a_panic_on_the_helper_reaches_the_caller_and_the_helper_survives() {
        let mut h = Helper::new().expect("a thread");
        let r = catch_unwind(AssertUnwindSafe(|| {
            h.join(|| panic!("boom"), || 1);
        }));
        assert!(r.is_err());
        assert_eq!(h.join(|| 2, || 3), (2, 3));
    }

    #[test]
    fn wakes_after_parking() {
        let mut h = Helper::new().expect("a thread");
        assert_eq!(h.join(|| 1, || 2), (1, 2));
        thread::sleep(STAY_AWAKE + Duration::from_millis(30));
        assert_eq!(h.join(|| 4, || 5), (4, 5));
    }
}
