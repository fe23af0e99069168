//! Choosing between two ways of doing the same work by their measured
//! cost per unit of work.
//!
//! Why it exists: whether handing work to the second thread pays depends
//! on the game, on how far the run has got, and on the machine at that
//! moment: a shared virtual machine's second core may be time-sliced with
//! the first, or be its hyperthread, and that changes within a run. So
//! the engine does not guess. It times both ways on the work itself,
//! keeps the cheaper, and tries the other again from time to time. The
//! diagonal method uses it to share long diagonals or not, the sparse
//! engine to pipeline its blocks or not.

use std::time::Duration;

/// Times two modes, `off` and `on`, and keeps the cheaper: `on` is tried
/// first (for `trial` rounds), then `off`; whichever costs less per unit
/// runs for `epoch` rounds, then the other has a trial again.
#[derive(Debug)]
pub struct Chooser {
    on: bool,
    left: u32,
    time: Duration,
    units: usize,
    /// Nanoseconds per unit measured last, off and on (NaN: not measured
    /// since the last switch back).
    rate: [f64; 2],
    trial: u32,
    epoch: u32,
}

impl Chooser {
    /// A chooser that tries `on` first; `trial` and `epoch` are rounds,
    /// both at least 1.
    pub fn new(trial: u32, epoch: u32) -> Chooser {
        assert!(trial > 0 && epoch > 0, "Chooser: empty trial or epoch");
        Chooser {
            on: true,
            left: trial,
            time: Duration::ZERO,
            units: 0,
            rate: [f64::NAN; 2],
            trial,
            epoch,
        }
    }

    /// Whether the mode in use is `on`.
    #[inline]
    pub fn on(&self) -> bool {
        self.on
    }

    /// Records a round of the mode in use: its time and its units of work.
    pub fn record(&mut self, time: Duration, units: usize) {
        self.time += time;
        self.units += units;
        self.left -= 1;
        if self.left > 0 {
            return;
        }
        let mode = self.on as usize;
        self.rate[mode] = self.time.as_nanos() as f64 / self.units.max(1) as f64;
        self.time = Duration::ZERO;
        self.units = 0;
        let other = mode ^ 1;
        // NaN (not measured yet) compares false: try it.
        if self.rate[other] >= self.rate[mode] {
            // Stay for an epoch, then try the other mode again.
            self.left = self.epoch;
            self.rate[other] = f64::NAN;
        } else if self.rate[other].is_nan() {
            // The other mode has its trial.
            self.on = other == 1;
            self.left = self.trial;
        } else {
            // A trial lost: back to the other mode for an epoch, after
            // which this one is tried again.
            self.on = other == 1;
            self.left = self.epoch;
            self.rate[mode] = f64::NAN;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `rounds` rounds costing `cost(on)` nanoseconds per unit (10
    /// units a round); returns the rounds spent in `on`.
    fn run(c: &mut Chooser, rounds: u32, cost: impl Fn(bool) -> u64) -> u32 {
        let mut on = 0;
        for _ in 0..rounds {
            on += u32::from(c.on());
            c.record(Duration::from_nanos(10 * cost(c.on())), 10);
        }
        on
    }

    #[test]
    fn the_cheaper_mode_runs_and_the_other_is_only_tried() {
        // On at half the cost: on for all but the trials of off. Counted
        // by hand from the rule: on 1–2, off 3–4, then 20 on and 2 off
        // from round 5 (nine times to 202), on 203–220: 2 + 180 + 18.
        let mut c = Chooser::new(2, 20);
        let on = run(&mut c, 220, |on| if on { 5 } else { 10 });
        assert_eq!(on, 200);
        // Off cheaper: on only in its trials, rounds 1–2 and then two of
        // every 22 from round 25 (25, 47, …, 201): 2 + 9 · 2.
        let mut c = Chooser::new(2, 20);
        let on = run(&mut c, 220, |on| if on { 10 } else { 5 });
        assert_eq!(on, 20);
    }

    #[test]
    fn a_change_of_costs_is_followed() {
        // On is cheaper for a while, then dearer (the machine got busy).
        // By hand: rounds 1–100 end with off's trial (99–100), so on
        // runs its epoch at the new cost (101–110), loses to off's trial
        // (111–112), and from then has only trials, two rounds of every
        // 12 from 123 to 196: 10 + 7 · 2 of the last 100; round 200 is
        // in an epoch of off.
        let mut c = Chooser::new(2, 10);
        run(&mut c, 100, |on| if on { 5 } else { 10 });
        let on = run(&mut c, 100, |on| if on { 20 } else { 10 });
        assert_eq!(on, 24);
        assert!(!c.on());
    }

    #[test]
    fn ties_keep_the_mode_in_use() {
        let mut c = Chooser::new(1, 5);
        run(&mut c, 2, |_| 7);
        // On, then off measured equal: off stays for its epoch.
        assert!(!c.on());
        assert_eq!(run(&mut c, 4, |_| 7), 0);
    }
}
