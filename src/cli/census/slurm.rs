//! A census on a cluster: every game run to the probe here and grouped,
//! then a Slurm job array of one task a class still open (`--slurm`), and
//! the tables made from the probe and the finished tasks (`--collect`).
//!
//! The probe is a census directory of its own, `DIR/probe`; the array is
//! the family machinery's, in `DIR` (task i's store `DIR/stores/i.octal`).

use octal::census::{self, CodeResult, Status};

use super::args::{kind, prefixes, which, CensusArgs};
use super::code::{notation, powers_of_two};
use super::files::{checked_store, checksum_to, hold, inspect, store_path};
use super::tables::tables;
use super::Batch;
use crate::cli::prelude::*;

/// Where a census on a cluster keeps its probe.
fn probe_dir(dir: &Path) -> PathBuf {
    dir.join("probe")
}

/// The probe's `--probe`, as the census' flags give it.
fn probe_of(args: &CensusArgs, to: u64) -> Result<u64> {
    Ok(parse_to("probe", &args.probe)?.min(to))
}

/// The job array's name: which census it is.
fn array_name(args: &CensusArgs) -> Result<String> {
    Ok(format!("census-{}-{}", kind(args), prefixes(args)?))
}

/// Runs every game to the probe here, groups them, and writes the Slurm
/// job array of the classes still open: one task a class' first code, to
/// `to` (the family machinery's).
pub(super) fn prepare_slurm(
    args: &CensusArgs,
    entries: &[census::Entry],
    to: u64,
    dir: &Path,
) -> Result<ExitCode> {
    let probe = probe_of(args, to)?;
    octal::slurm::check_subdirs(dir).map_err(crate::cli::family::slurm_error)?;
    let here = probe_dir(dir);
    std::fs::create_dir_all(&here).with_context(|| format!("cannot write {}", here.display()))?;
    let (_lock, batch) = Batch::new(args, entries, &here, probe)?;
    let stores: Vec<PathBuf> = entries.iter().map(|e| store_path(&here, &e.code)).collect();
    let (results, eq) = match batch.probe(probe, &stores)? {
        Ok(probed) => probed,
        Err(code) => return Ok(code),
    };
    batch.finish();
    let open: Vec<octal::family::Member> = (0..entries.len())
        .filter(|&i| eq.class_of[i] == i && results[i].reach < to)
        .filter(|&i| !matches!(results[i].status, Status::Periodic { .. }))
        .map(|i| octal::family::Member {
            k: None,
            code: entries[i].code.clone(),
        })
        .collect();
    let classes = (0..entries.len()).filter(|&i| eq.class_of[i] == i).count();
    if open.is_empty() {
        eprintln!(
            "octal: all {classes} classes of the {} games ended within --probe {probe}: nothing for a cluster; \
             make the tables here with --out instead of --slurm",
            entries.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let spec = octal::slurm::TaskSpec {
        engine: "sparse".into(),
        mask: "sparse".into(),
        threads: 1,
        time: args.time.clone(),
        mem: String::new(),
        window: None,
    };
    let manifest = octal::slurm::Manifest::new(&array_name(args)?, to, false, spec, &open);
    let script = crate::cli::family::prepare_array(&manifest, dir)?;
    if !args.quiet {
        eprintln!(
            "{} games in {classes} classes to {probe} values; {} classes still open, one task each; \
             submit with: sbatch {}; then: octal census {} --to {} --probe {} --collect {}",
            entries.len(),
            open.len(),
            script.display(),
            which(args),
            args.to,
            args.probe,
            dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The census' tables from its probe and the tasks of its Slurm job
/// array; a class whose task did not finish keeps its probe's values and
/// is listed as stopped.
pub(super) fn collect(
    args: &CensusArgs,
    entries: &[census::Entry],
    to: u64,
    dir: &Path,
) -> Result<ExitCode> {
    let (manifest, rows, unfinished) =
        octal::slurm::collect(dir).map_err(crate::cli::family::slurm_error)?;
    let tasks_of = check_manifest(args, &manifest, entries, to, dir)?;
    let _lock = hold(dir)?;
    let probe = probe_of(args, to)?;
    let here = probe_dir(dir);
    let _probe_lock = hold(&here)?;
    let mut results = Vec::with_capacity(entries.len());
    for e in entries {
        match inspect(e, &here, probe)? {
            Some(r) if r.target == probe => results.push(r),
            Some(r) => {
                return Err(input(format!(
                    "{}: its probe went to {} values, not --probe {probe}: give --probe {}",
                    here.display(),
                    r.target,
                    r.target
                )))
            }
            None => {
                return Err(input(format!(
                    "{}: no probe of {}: prepare the array again with --slurm {}",
                    here.display(),
                    e.code,
                    dir.display()
                )))
            }
        }
    }
    let mut stores: Vec<PathBuf> = entries.iter().map(|e| store_path(&here, &e.code)).collect();
    let task_stores: Vec<PathBuf> = (0..tasks_of.len())
        .map(|j| octal::slurm::store_path(dir, j))
        .collect();
    // What dead writers of a finished task left (an unfinished task may
    // be running on another node, where its process id means nothing).
    for r in &rows {
        octal::store::output::sweep(&task_stores[r.index]);
        octal::store::output::sweep(&octal::slurm::result_path(dir, r.index));
    }
    let tasks = Tasks {
        dir,
        to,
        target: manifest.to,
        rows: &rows,
        stores: &task_stores,
    };
    for (j, &i) in tasks_of.iter().enumerate() {
        let task = tasks.result(j, &entries[i])?;
        if task.reach >= results[i].reach {
            results[i] = task;
            stores[i] = task_stores[j].clone();
        } else {
            results[i].status = Status::Stopped {
                why: "unfinished Slurm task".into(),
                cap_seconds: None,
            };
        }
    }
    if !unfinished.is_empty() {
        eprintln!(
            "octal: {} of {} classes' tasks unfinished; they are listed as stopped",
            unfinished.len(),
            tasks_of.len()
        );
    }
    tables(args, dir, manifest.to, &results, &stores)?;
    Ok(ExitCode::from(if unfinished.is_empty() {
        0
    } else {
        INCOMPLETE
    }))
}

/// Refuses a job array prepared for another `--to` or another census;
/// for each task, the index of its game in `entries`.
fn check_manifest(
    args: &CensusArgs,
    manifest: &octal::slurm::Manifest,
    entries: &[census::Entry],
    to: u64,
    dir: &Path,
) -> Result<Vec<usize>> {
    if manifest.to != to {
        return Err(input(format!(
            "{}: its job array was prepared with --to {}, not --to {to}: give --to {}",
            dir.display(),
            manifest.to,
            manifest.to
        )));
    }
    let other = || {
        input(format!(
            "{}: not the job array of this census (give the --digits, --hex and --prefix it was prepared with)",
            dir.display()
        ))
    };
    if manifest.name != array_name(args)? {
        return Err(other());
    }
    manifest
        .members
        .iter()
        .map(|m| {
            entries
                .iter()
                .position(|e| e.code.to_string() == m.code)
                .ok_or_else(other)
        })
        .collect()
}

/// The tasks of a job array, as collected.
struct Tasks<'a> {
    dir: &'a Path,
    to: u64,
    /// The `--to` the array was prepared with.
    target: u64,
    rows: &'a [octal::family::Row],
    stores: &'a [PathBuf],
}

impl Tasks<'_> {
    /// The result of task `i` (game `e`), from its store once that checks.
    fn result(&self, i: usize, e: &census::Entry) -> Result<CodeResult> {
        let (dir, to, stores) = (self.dir, self.to, self.stores);
        let row = self.rows.iter().find(|r| r.index == i);
        // Facts come from a store only once it checks, and a finished
        // task's store must hold what its result says.
        let refuse = |why: &dyn std::fmt::Display| {
            input(format!(
                "{}: {why} (task {i}, {}); move it away and run the task again: octal family member {} --index {i}",
                stores[i].display(),
                e.code,
                dir.display()
            ))
        };
        let store = checked_store(&stores[i], &e.code).map_err(|why| refuse(&why))?;
        if let Some(r) = row.filter(|r| r.values > to) {
            return Err(input(format!(
                "{}: its census went to {} values, beyond --to {to} (task {i}, {}); move it away and run the task again: octal family member {} --index {i}",
                octal::slurm::result_path(dir, i).display(),
                r.values,
                e.code,
                dir.display()
            )));
        }
        if let Some(r) = row.filter(|r| r.error.is_none()) {
            match &store {
                None => return Err(refuse(&"missing, though the task finished")),
                Some(s) if s.good() != r.values => {
                    return Err(refuse(&format_args!(
                        "holds {} values, its task's result {}",
                        s.good(),
                        r.values
                    )))
                }
                Some(_) => {}
            }
        }
        self.summed_up(e, row, store.as_ref())
    }

    /// A checked task's [`CodeResult`]: its period from the store's
    /// detector, its sparse-space facts from the values.
    fn summed_up(
        &self,
        e: &census::Entry,
        row: Option<&octal::family::Row>,
        store: Option<&Store>,
    ) -> Result<CodeResult> {
        let period = store.and_then(|s| octal::store::checkpoint::restore_detector(s).proven());
        let why = match row {
            None => Some("unfinished Slurm task".to_string()),
            Some(r) => r.error.clone(),
        };
        let reach = store.map_or(0, |s| s.good());
        let status = match (period, why) {
            (Some(p), _) => Status::Periodic {
                period: p.period,
                preperiod: p.preperiod,
                proven_at: p.proven_at,
            },
            (None, Some(why)) => Status::Stopped {
                why,
                cap_seconds: None,
            },
            (None, None) if reach >= self.target => Status::Open,
            (None, None) => Status::Stopped {
                why: "ended before its target".into(),
                cap_seconds: None,
            },
        };
        // The sparse-space facts, from the values (as a run would give).
        let rare = match store {
            Some(s) if reach > 0 => Some(run::rare_of_values(&e.code, s.view(0, reach))?),
            _ => None,
        };
        let mut result = CodeResult {
            code: e.code.to_string(),
            spellings: e.spellings.clone(),
            status,
            reach,
            target: self.target,
            max_value: row.map_or(0, |r| r.max_value),
            rare_mask: rare.as_ref().and_then(|r| r.engine.rare_mask),
            rare_positions: rare.as_ref().and_then(|r| r.engine.rare_positions),
            last_rare_at: rare.as_ref().and_then(|r| r.engine.last_rare_at),
            rare_class: rare.as_ref().and_then(|r| r.rare_class.clone()),
            rare_list: rare.as_ref().and_then(|r| r.rare_list.clone()),
            rare_list_complete: rare.as_ref().and_then(|r| r.rare_list_complete),
            checksum: store.map(|s| checksum_to(s, reach)),
            period_notation: store.and_then(|s| notation(s, period)),
            apparent_period: None,
            arithmetic_period: None,
            at_powers_of_two: store.map_or(Vec::new(), |s| powers_of_two(s, reach)),
            seconds: row.map_or(0.0, |r| r.seconds),
        };
        // What a run's summary would see: the detector's apparent period,
        // and an arithmetic period only for a game that can have one.
        result.set_apparent(
            store
                .filter(|_| period.is_none())
                .and_then(|s| octal::store::checkpoint::restore_detector(s).apparent()),
            store
                .filter(|_| period.is_none() && octal::period::arithmetic::possible(&e.code))
                .and_then(|s| s.view(0, reach).apparent_arithmetic()),
        );
        Ok(result)
    }
}
