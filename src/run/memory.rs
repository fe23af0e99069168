//! How many values fit: the machine's memory (or an address-space limit)
//! against what a run in memory needs, and how far a run that answers
//! heaps by a proven period may go.

use super::error::JobError;
use super::summary::Summary;
use crate::code::Code;
use crate::period::Detector;

/// Total physical memory, from /proc/meminfo (None where unknown).
pub fn total_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Under an address-space limit (`ulimit -v`, RLIMIT_AS): the bytes it
/// leaves beside what this process maps now. None without a limit.
fn address_space_left() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let statm = std::fs::read_to_string("/proc/self/statm").ok();
    let pages: u64 = statm
        .as_deref()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    Some(r.rlim_cur.saturating_sub(pages.saturating_mul(page)))
}

/// The memory this process can have: the machine's, or less under an
/// address-space limit (None where neither is known).
pub fn memory_available() -> Option<u64> {
    match (total_memory(), address_space_left()) {
        (Some(t), Some(a)) => Some(t.min(a)),
        (t, a) => t.or(a),
    }
}

/// The error of `values` values of `width` bytes that do not fit.
pub(crate) fn too_big(values: u64, width: u64) -> JobError {
    JobError::TooBig {
        values,
        need: crate::store::human_bytes(values.saturating_mul(width)),
        have: crate::store::human_bytes(memory_available().unwrap_or(u64::MAX)),
    }
}

/// Refuses a count that is zero or cannot fit in memory at 2 bytes a value.
pub fn check_in_memory(to: u64) -> Result<(), JobError> {
    if to == 0 {
        return Err(JobError::Empty);
    }
    let need = to.saturating_mul(2);
    let have = memory_available().unwrap_or(u64::MAX);
    if need > have || usize::try_from(to).is_err() {
        return Err(too_big(to, 2));
    }
    Ok(())
}

/// The most values [`reach_for_answers`] computes looking for a proven
/// period (every period the three-digit census proves is proven well
/// within it).
pub const EXPLORE: u64 = 1 << 26;

/// How many values a run that stops at a proven period computes to
/// answer heaps `from..to`: `to` when they fit in memory; else, for a
/// game whose periods can be proven and when the heaps asked for would
/// fit themselves, as many as a quarter of the memory holds (room to
/// widen them to 32 bits), and at most [`EXPLORE`]; the heaps past them
/// are read off the period, if one is proven by then
/// ([`check_answered`]).
pub fn reach_for_answers(code: &Code, from: u64, to: u64) -> Result<u64, JobError> {
    check_in_memory(to.saturating_sub(from).max(1))?;
    let Err(e) = check_in_memory(to) else {
        return Ok(to);
    };
    // Looking for a proof costs time as well as memory: a game with no
    // period proven in the first EXPLORE values is refused in about a
    // minute rather than after hours.
    let most = (memory_available().unwrap_or(0) / 4).min(EXPLORE);
    if matches!(e, JobError::Empty) || !Detector::new(code).can_prove() || most == 0 {
        return Err(e);
    }
    Ok(most)
}

/// After a run to [`reach_for_answers`]: refuses heaps below `to` that
/// were neither computed nor can be read off a proven period.
pub fn check_answered(summary: &Summary, to: u64) -> Result<(), JobError> {
    if summary.values >= to || summary.period.is_some() {
        return Ok(());
    }
    check_in_memory(to)
}
