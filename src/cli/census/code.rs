//! One code of a census: run to its target under a time cap (or taken from
//! its kept result), summed up as a [`CodeResult`] and kept; and which
//! members are worth taking on to their class' reach.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use octal::census::{self, CodeResult, Kept, Status, ValuesFacts};
use octal::engine::MaskSpec;

use super::files::{checksum_to, result_path, store_path};
use crate::cli::prelude::*;

/// What the time cap sets a code's stop flag to (signals set 130 or 143).
pub(super) const CAPPED: usize = 1;

/// How many times `--member-seconds` a member may take to reach its class'
/// reach: about what its class' first code took over one or more runs.
pub(super) const MEMBER_CAP_FACTOR: u32 = 10;

/// The members to take on to their class' reach, each with the values
/// wanted: for an open or stopped class that reach; for a periodic one a
/// few values past it (as many as the member's longest move), where a
/// member equal to its class has proven its own period, so that the two
/// are equal for every n. All of them without a `factor`; with one,
/// the cheapest first (a member costs about what its class' first code
/// took for the values it lacks), while their estimated seconds stay
/// within `factor` times all the results' seconds. A member whose
/// agreement is proven for every n by its code
/// ([`census::Relation::by_take_all`]) needs no more values.
pub(super) fn members_to_check(
    results: &[CodeResult],
    eq: &census::Equivalences,
    factor: Option<f64>,
) -> Vec<(usize, u64)> {
    let class_of = &eq.class_of;
    let mut wanted: Vec<(f64, usize, u64)> = (0..results.len())
        .filter(|&i| {
            let first = &results[class_of[i]].code;
            eq.relations[i].is_none_or(|r| r.by_take_all(&results[i].code, first).is_none())
        })
        .filter_map(|i| {
            let first = &results[class_of[i]];
            let mine = &results[i];
            let to = match first.status {
                // Proven periodic already: nothing to add.
                Status::Periodic { .. } if matches!(mine.status, Status::Periodic { .. }) => {
                    return None
                }
                Status::Periodic { .. } => first.reach + longest_move(&mine.code),
                _ => first.reach,
            };
            let lacking = to.checked_sub(mine.reach)?;
            (class_of[i] != i && lacking > 0).then(|| {
                let cost = first.seconds * lacking as f64 / first.reach.max(1) as f64;
                (cost, i, to)
            })
        })
        .collect();
    let Some(factor) = factor else {
        return wanted.into_iter().map(|(_, i, reach)| (i, reach)).collect();
    };
    let budget = factor * results.iter().map(|r| r.seconds).sum::<f64>();
    wanted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut spent = 0.0;
    wanted
        .into_iter()
        .take_while(|&(cost, _, _)| {
            spent += cost;
            spent <= budget
        })
        .map(|(_, i, reach)| (i, reach))
        .collect()
}

/// The `t` of `code`'s periodicity bound: its longest move.
fn longest_move(code: &str) -> u64 {
    code.parse::<octal::code::Code>()
        .map_or(0, |c| c.last_digit_index() as u64)
}

/// Runs one code to `to` (or uses its result `kept`, when that went as
/// far, or was stopped on the way by this same time cap) and keeps its
/// result.
pub(super) fn run_code(
    e: &census::Entry,
    to: u64,
    cap: Duration,
    dir: &Path,
    stop: &AtomicUsize,
    kept: Option<&CodeResult>,
) -> Result<CodeResult> {
    // A stopped result is used when it still went as far as `to`, or
    // when this same cap stopped it (a cap spent again would take it
    // only a little further, and each run of the census further still).
    let enough = |r: &CodeResult| match r.status {
        Status::Stopped { cap_seconds, .. } => {
            r.reach >= to || cap_seconds == Some(cap.as_secs_f64())
        }
        _ => true,
    };
    if let Some(kept) = kept.filter(|r| r.target >= to && enough(r)) {
        // The spellings are this census' (a census of more digits in the
        // same directory lists more of them).
        return Ok(CodeResult {
            spellings: e.spellings.clone(),
            ..kept.clone()
        });
    }
    let job = Job {
        code: e.code.clone(),
        to,
        engine: EngineKind::Sparse,
        threads: 1,
        mask: MaskSpec::Sparse,
    };
    let path = store_path(dir, &e.code);
    let (mut store, _) = Store::open_or_create(&path, &job.code, to, DEFAULT_CHUNK_VALUES)?;
    let every = Duration::from_secs_f64(octal::run::stored::CHECKPOINT_SECONDS);
    let started = Instant::now();
    let driven = with_cap(stop, cap, |own| {
        run_with_bar(&mut store, &job, every, own, true, None)
    })?;
    let seconds = started.elapsed().as_secs_f64();
    // A store that holds more than `to` (a result made again) gives the
    // summary of its first `to` values.
    let (summary, reach) = match driven {
        Driven::Done(summary) => {
            let reach = summary.values;
            (Some(*summary), reach)
        }
        Driven::Stopped { status, .. } if status as usize == CAPPED => (None, store.good()),
        Driven::Stopped { why, .. } => anyhow::bail!("{}: {why}", e.code),
    };
    let status = status_of(summary.as_ref().and_then(|s| s.period), reach >= to, cap);
    let engine = summary.as_ref().map(|s| &s.engine);
    let mut result = CodeResult {
        code: e.code.to_string(),
        spellings: e.spellings.clone(),
        status,
        reach,
        target: to,
        max_value: summary
            .as_ref()
            .map_or(store.checkpoint().stats.max_value, |s| s.max_value),
        rare_mask: engine.and_then(|e| e.rare_mask),
        rare_positions: engine.and_then(|e| e.rare_positions),
        last_rare_at: engine.and_then(|e| e.last_rare_at),
        rare_class: summary.as_ref().and_then(|s| s.rare_class.clone()),
        rare_list: summary.as_ref().and_then(|s| s.rare_list.clone()),
        rare_list_complete: summary.as_ref().and_then(|s| s.rare_list_complete),
        checksum: Some(checksum_to(&store, reach)),
        period_notation: notation(&store, summary.as_ref().and_then(|s| s.period)),
        apparent_period: None,
        arithmetic_period: None,
        at_powers_of_two: powers_of_two(&store, reach),
        seconds,
    };
    result.set_apparent(
        summary.as_ref().and_then(|s| s.apparent_period),
        summary.as_ref().and_then(|s| s.arithmetic_period),
    );
    let facts = ValuesFacts {
        code: e.code.to_string(),
        count: reach,
        checksum: checksum_to(&store, reach),
    };
    let path = result_path(dir, &e.code);
    octal::store::output::write_file_io(
        &path,
        Kept::new(result.clone(), facts).to_json().as_bytes(),
    )
    .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(result)
}

/// How a run ended: periodic with its proof, open at its target, or
/// stopped by the time cap `cap`.
fn status_of(period: Option<octal::period::Period>, reached: bool, cap: Duration) -> Status {
    match period {
        Some(p) => Status::Periodic {
            period: p.period,
            preperiod: p.preperiod,
            proven_at: p.proven_at,
        },
        None if reached => Status::Open,
        None => Status::Stopped {
            why: format!("time cap of {} s", cap.as_secs_f64()),
            cap_seconds: Some(cap.as_secs_f64()),
        },
    }
}

/// Runs `f` with a stop flag of its own, set to [`CAPPED`] once `cap` has
/// passed, or to `global`'s status once a signal sets that.
pub(super) fn with_cap<T>(
    global: &AtomicUsize,
    cap: Duration,
    f: impl FnOnce(&AtomicUsize) -> T,
) -> T {
    let own = AtomicUsize::new(0);
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let start = Instant::now();
            while !done.load(Ordering::Relaxed) {
                let g = global.load(Ordering::SeqCst);
                if g != 0 {
                    own.store(g, Ordering::SeqCst);
                    return;
                }
                if start.elapsed() >= cap {
                    own.store(CAPPED, Ordering::SeqCst);
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let r = f(&own);
        done.store(true, Ordering::Relaxed);
        r
    })
}

/// The nim-sequence notation of a proven `period` of the values in
/// `store` (when they reach the end of its first period and it is short).
pub(super) fn notation(store: &Store, period: Option<octal::period::Period>) -> Option<String> {
    let p = period?;
    let end = p.preperiod.checked_add(p.period)?;
    if end > store.good() || end > NOTATION_MAX as u64 {
        return None;
    }
    let style = octal::period::Notation::Text;
    match store.view(0, end) {
        octal::seq::SeqRef::U16(v) => octal::period::notation(v, &p, NOTATION_MAX, style),
        octal::seq::SeqRef::U32(v) => octal::period::notation(v, &p, NOTATION_MAX, style),
    }
}

/// Longest nim-sequence notation a census row carries, in characters.
pub(super) const NOTATION_MAX: usize = 200;

/// G(2^j) for every 2^j below `reach` (at most what `store` holds).
pub(super) fn powers_of_two(store: &Store, reach: u64) -> Vec<u32> {
    let reach = reach.min(store.good());
    let view = store.view(0, reach);
    (0..64)
        .map(|j| 1u64 << j)
        .take_while(|&n| n < reach)
        .map(|n| view.get(n as usize))
        .collect()
}
