//! The census directory's files: where each code's store and result go,
//! and how what a directory holds is checked before it is used (a result
//! only with the values it was made from; links and devices refused).

use octal::census::{self, CodeResult, Kept};

use crate::cli::prelude::*;

pub(super) fn store_path(dir: &Path, code: &Code) -> PathBuf {
    dir.join("stores").join(format!("{code}.octal"))
}

pub(super) fn result_path(dir: &Path, code: &Code) -> PathBuf {
    dir.join("results").join(format!("{code}.json"))
}

/// The most a results file holds: a result is a few hundred bytes, plus
/// up to [`octal::run::RARE_LIST_MAX`] rare positions (about 20 bytes each).
pub(super) const RESULT_BYTES: u64 = 16 << 20;

/// What the census directory holds of `e`, checked: its result, if one is
/// kept whose store holds the values it was made from. A damaged or
/// missing result is made again (from the store, when that checks) and a
/// missing store computed again, each said on stderr; a damaged store, or
/// a result beyond `to`, is refused (one line, exit 2).
pub(super) fn inspect(e: &census::Entry, dir: &Path, to: u64) -> Result<Option<CodeResult>> {
    let code = e.code.to_string();
    let (rp, sp) = (result_path(dir, &e.code), store_path(dir, &e.code));
    let redo = |why: &dyn std::fmt::Display| {
        eprintln!(
            "octal: census: {}: {why}; making the result of {code} again",
            rp.display()
        );
    };
    own_file(&rp)?;
    // Whether a results file was there (and said to be made again).
    let mut had = true;
    let kept = match read_result(&rp) {
        Ok(None) => {
            had = false;
            None
        }
        Ok(Some(bytes)) => Kept::parse(&bytes, &code).inspect_err(|why| redo(why)).ok(),
        Err(why) => {
            redo(&why);
            None
        }
    };
    let damaged = |why: &dyn std::fmt::Display| {
        input(format!(
            "{}: {why}; move it away and run again to compute {code} afresh",
            sp.display()
        ))
    };
    let Some(store) = checked_store(&sp, &e.code).map_err(|why| damaged(&why))? else {
        if kept.is_some() {
            eprintln!(
                "octal: census: {}: missing; computing {code} again",
                sp.display()
            );
        }
        return Ok(None);
    };
    let Some(kept) = kept else {
        if had {
            return Ok(None);
        }
        eprintln!(
            "octal: census: {code}: no result kept; going on from {} ({} values, checked)",
            sp.display(),
            store.good()
        );
        return Ok(None);
    };
    let facts = &kept.values;
    if store.good() < facts.count || checksum_to(&store, facts.count) != facts.checksum {
        return Err(damaged(&format_args!(
            "does not hold the {} values that {} was made from",
            facts.count,
            rp.display()
        )));
    }
    if kept.result.target > to {
        return Err(input(format!(
            "{}: its census went to {} values, beyond --to {to}: give --to {} or another --out",
            dir.display(),
            kept.result.target,
            kept.result.target
        )));
    }
    Ok(Some(kept.result))
}

/// Refuses `path` when it is there and not a regular file (a directory,
/// a link, a fifo): a census writes its own files, never through another.
pub(super) fn own_file(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() => Err(input(format!(
            "{}: not a regular file (a census writes its own files here); move it away and run again",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// The census' tables, in `dir`.
pub(super) const TABLES: [&str; 4] = ["census.csv", "census.jsonl", "census.md", "equivalences.md"];

/// The lock of the census in `dir` (`census.lock`), held while it runs
/// and writes its tables: a second census there is refused at once. Its
/// tables' paths are checked before anything runs.
pub(super) fn hold(dir: &Path) -> Result<octal::store::output::PathLock> {
    let lock = octal::store::output::PathLock::acquire(&dir.join("census"))?;
    for name in TABLES {
        own_file(&dir.join(name))?;
    }
    Ok(lock)
}

/// The store at `path`, checked as `octal verify` checks it (without
/// recomputing) and against `code`; `None` when there is none. A link or
/// a device is refused, never followed.
pub(super) fn checked_store(
    path: &Path,
    code: &Code,
) -> std::result::Result<Option<Store>, String> {
    match std::fs::symlink_metadata(path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err.to_string()),
        Ok(m) if !m.file_type().is_file() => {
            return Err("not a regular file (a census keeps its own stores)".into())
        }
        Ok(_) => {}
    }
    let store = Store::open(path, false).map_err(|e| e.to_string())?;
    if store.code() != code {
        return Err(format!("a store of {}, not {code}", store.code()));
    }
    let verdict = octal::verify::verify_store(&store, 0, 0);
    if let Some(problem) = verdict.problems.into_iter().next() {
        return Err(problem);
    }
    if let Some(lost) = verdict.lost_slot {
        eprintln!("octal: {}: {lost}", path.display());
    }
    Ok(Some(store))
}

/// The bytes of a results file, or `None` when there is none; a link, a
/// device or an oversized file is an error (never followed or read).
pub(super) fn read_result(path: &Path) -> std::result::Result<Option<Vec<u8>>, String> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.to_string()),
        Ok(m) if !m.file_type().is_file() => Err("not a regular file".into()),
        Ok(m) if m.len() > RESULT_BYTES => Err(format!("{} bytes: not a census result", m.len())),
        Ok(_) => std::fs::read(path).map(Some).map_err(|e| e.to_string()),
    }
}

/// The value checksum of the first `n` values of `store`.
pub(super) fn checksum_to(store: &Store, n: u64) -> String {
    if n == store.good() {
        store.checkpoint().stats.checksum.hex()
    } else {
        store.stats_of(n).checksum.hex()
    }
}
