//! What a store's checkpoint records beside its values: the period
//! detector's state (every command that reads a store's period reads it
//! here, so a proven period recorded in a store is never lost to a
//! detector run again), and which header slot it was read from.

use crate::period::Detector;
use crate::seq::SeqRef;
use crate::store::Store;

/// The period detector saved with the store's checkpoint, or a new one
/// fed the values when there is none (or it does not match them).
pub fn restore_detector(store: &Store) -> Detector {
    detector_of(store, store.good())
}

/// What is wrong with the proof a store's saved detector records, if it
/// records one ([`Period::check_proof`] over the store's values).
pub fn proof_problem(store: &Store, d: &Detector) -> Option<String> {
    let p = d.proven()?;
    let len = store.good();
    let g = store.view(0, len);
    p.check_proof(store.code(), len, |n| g.get(n as usize))
        .err()
}

/// The period detector of the store's first `n` values (`n` ≤ what it
/// holds): the one saved with the checkpoint when it was fed exactly
/// those, or when it holds a proof that they reach (a proven detector
/// stops where the proof was made, and the proof stands however far the
/// run went on); else a new one fed G(0..n). Every command that reads a
/// store's period reads it here, so a proven period recorded in a store
/// is never lost to a detector run again.
pub fn detector_of(store: &Store, n: u64) -> Detector {
    let cp = store.checkpoint();
    let n = n.min(cp.good);
    if let Ok(d) = serde_json::from_slice::<Detector>(&cp.period_state) {
        // A saved state is used only when its fields are ones a run could
        // have written, and a recorded proof only where the values bear
        // it out.
        let sound = d.check(store.code()).is_ok() && proof_problem(store, &d).is_none();
        let proven_by_n = d.proven().is_some_and(|p| p.proven_at <= n);
        if sound && d.kept_from() == 0 && ((n == cp.good && d.seen() == n) || proven_by_n) {
            return d;
        }
    }
    let mut d = Detector::new(store.code());
    match store.view(0, n) {
        SeqRef::U16(v) => d.feed(v),
        SeqRef::U32(v) => d.feed(v),
    }
    d
}

/// The line saying that a header slot is unusable and which checkpoint is
/// used instead, or `None` when both slots are good.
pub fn lost_slot(store: &Store) -> Option<String> {
    let (slot, other) = store.slots();
    other.map(|why| {
        format!(
            "header slot {} is unusable ({why}): using the older checkpoint in slot {slot} at {} values; values computed after it are lost (a crash during a checkpoint also leaves this; the next checkpoint rewrites the slot)",
            1 - slot,
            store.good()
        )
    })
}
