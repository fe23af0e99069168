//! A second thread that takes one job at a time and waits for the next by
//! spinning, not sleeping. Both engines (the sparse pipeline and the
//! diagonal method) run their second thread on it.
//!
//! The sparse engine hands a job to a second core once per block, about a
//! thousand times a second, and the diagonal method once per diagonal.
//! Through a thread pool each hand-off wakes a sleeping thread, which on
//! the virtual machines where these runs live cost a fifth of a block
//! (docs/engine.md, two threads). This helper stays awake (spinning, then
//! yielding its core) for a few milliseconds after each job, so the next
//! one starts at once; only after a longer pause does it park. A job the
//! helper has not started when the caller is free is taken back and run by
//! the caller: a descheduled helper costs parallelism, never a wait for
//! the job's start (a caller that needs a piece of work the helper is in
//! the middle of, as the sparse pipeline's band, waits for that piece).

use std::cell::UnsafeCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::tuning::STAY_AWAKE;

/// A type-erased job: a pointer to a closure on the poster's stack, valid
/// until the poster sees the job done (see [`Helper::join`]).
type Job = *mut (dyn FnMut() + Send);

struct Shared {
    /// Tickets: `posted` counts jobs handed over, `claimed` those taken
    /// (by the helper, or back by the caller), `done` those the helper
    /// finished.
    posted: AtomicU64,
    claimed: AtomicU64,
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
// SAFETY: as for Sync: one side at a time.
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
            claimed: AtomicU64::new(0),
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

    /// Runs `a` on the helper and `b` here (or both here, when the helper
    /// has not started `a` by the time `b` is done), and returns both
    /// results once both are done. A panic in either is resumed here.
    pub fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        RA: Send,
        B: FnOnce() -> RB,
    {
        let mut a = Some(a);
        let mut ra = None;
        let mut run_a = || ra = a.take().map(|a| a());
        let job: &mut (dyn FnMut() + Send) = &mut run_a;
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
        let taken_back = sh
            .claimed
            .compare_exchange(ticket - 1, ticket, Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
        if taken_back {
            // The helper will skip this ticket without reading `job`.
            // SAFETY: nobody else runs the job (the claim is ours) and the
            // closure is still alive on this stack.
            unsafe {
                (*sh.job.get()) = None;
                let r = catch_unwind(AssertUnwindSafe(|| (*job)()));
                if let Err(p) = r {
                    *sh.panic.get() = Some(p);
                }
            }
        }
        if !taken_back {
            wait_until(|| sh.done.load(Ordering::Acquire) >= ticket);
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

    /// Runs `job(slice, thread)` for every slice in `0..slices`, each once,
    /// on this thread (`thread` 0) and the helper (1), each taking the next
    /// slice when free; returns when all are done.
    pub fn run_slices(&mut self, slices: usize, job: &(dyn Fn(usize, usize) + Sync)) {
        let next = AtomicUsize::new(0);
        let work = |thread: usize| loop {
            let slice = next.fetch_add(1, Ordering::Relaxed);
            if slice >= slices {
                break;
            }
            job(slice, thread);
        };
        self.join(|| work(1), || work(0));
    }
}

/// Runs `job` for every slice on this thread alone (thread 0), or shared
/// with `helper` when there is one.
pub fn run_slices(helper: Option<&mut Helper>, slices: usize, job: &(dyn Fn(usize, usize) + Sync)) {
    match helper {
        Some(h) => h.run_slices(slices, job),
        None => (0..slices).for_each(|s| job(s, 0)),
    }
}

/// Waits until `done()` holds: spinning a while (the other thread is
/// usually a few microseconds from it), then yielding the core (it may be
/// waiting for this one, on a machine with fewer cores than threads).
pub fn wait_until(done: impl Fn() -> bool) {
    let mut spins = 0u32;
    while !done() {
        spins += 1;
        if spins < 1 << 12 {
            std::hint::spin_loop();
        } else {
            thread::yield_now();
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
        seen = posted;
        // Every earlier ticket is claimed (the caller returns only after
        // that), so this fails only when the caller took the job back.
        if sh
            .claimed
            .compare_exchange(posted - 1, posted, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
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
    fn slices_run_once_each() {
        let mut h = Helper::new().expect("a thread");
        for slices in [0, 1, 2, 7, 100] {
            let hits: Vec<AtomicUsize> = (0..slices).map(|_| AtomicUsize::new(0)).collect();
            h.run_slices(slices, &|s, _| {
                hits[s].fetch_add(1, Ordering::Relaxed);
            });
            assert!(hits.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        }
    }

    #[test]
    fn wakes_after_parking() {
        let mut h = Helper::new().expect("a thread");
        assert_eq!(h.join(|| 1, || 2), (1, 2));
        thread::sleep(STAY_AWAKE + Duration::from_millis(30));
        assert_eq!(h.join(|| 4, || 5), (4, 5));
    }
}
