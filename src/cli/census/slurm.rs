//! A census on a cluster: its Slurm job array written (`--slurm`), and
//! its tables made from the finished tasks (`--collect`).

use octal::census::{self, CodeResult, Status};

use super::args::{prefixes, CensusArgs};
use super::code::{notation, powers_of_two};
use super::files::{checked_store, checksum_to, hold};
use super::tables::tables;
use crate::cli::prelude::*;

/// Writes the Slurm job array of a census: the family machinery, one task
/// a game.
pub(super) fn prepare_slurm(
    args: &CensusArgs,
    entries: &[census::Entry],
    to: u64,
    dir: &Path,
) -> Result<ExitCode> {
    let members: Vec<octal::family::Member> = entries
        .iter()
        .map(|e| octal::family::Member {
            k: None,
            code: e.code.clone(),
        })
        .collect();
    let spec = octal::slurm::TaskSpec {
        engine: "sparse".into(),
        mask: "auto".into(),
        threads: 1,
        time: args.time.clone(),
        mem: String::new(),
        window: None,
    };
    let name = format!("census-{}-{}", args.digits, prefixes(args)?);
    let manifest = octal::slurm::Manifest::new(&name, to, false, spec, &members);
    let script = crate::cli::family::prepare_array(&manifest, dir)?;
    if !args.quiet {
        eprintln!(
            "{} games; submit with: sbatch {}; then: octal census --digits {} --prefix {} --to {} --collect {}",
            members.len(),
            script.display(),
            args.digits,
            args.prefix,
            args.to,
            dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The census' tables from the tasks of a Slurm job array.
pub(super) fn collect(
    args: &CensusArgs,
    entries: &[census::Entry],
    to: u64,
    dir: &Path,
) -> Result<ExitCode> {
    let (manifest, rows, unfinished) =
        octal::slurm::collect(dir).map_err(crate::cli::family::slurm_error)?;
    check_manifest(&manifest, entries, to, dir)?;
    let _lock = hold(dir)?;
    let stores: Vec<PathBuf> = (0..entries.len())
        .map(|i| octal::slurm::store_path(dir, i))
        .collect();
    // What dead writers of a finished task left (an unfinished task may
    // be running on another node, where its process id means nothing).
    for r in &rows {
        octal::store::output::sweep(&stores[r.index]);
        octal::store::output::sweep(&octal::slurm::result_path(dir, r.index));
    }
    let tasks = Tasks {
        dir,
        to,
        target: manifest.to,
        rows: &rows,
        stores: &stores,
    };
    let results = entries
        .iter()
        .enumerate()
        .map(|(i, e)| tasks.result(i, e))
        .collect::<Result<Vec<_>>>()?;
    if !unfinished.is_empty() {
        eprintln!(
            "octal: {} of {} games unfinished; they are listed as stopped",
            unfinished.len(),
            entries.len()
        );
    }
    tables(args, dir, manifest.to, &results, &stores)?;
    Ok(ExitCode::from(if unfinished.is_empty() {
        0
    } else {
        INCOMPLETE
    }))
}

/// Refuses a job array prepared for another `--to` or another census.
fn check_manifest(
    manifest: &octal::slurm::Manifest,
    entries: &[census::Entry],
    to: u64,
    dir: &Path,
) -> Result<()> {
    if manifest.to != to {
        return Err(input(format!(
            "{}: its job array was prepared with --to {}, not --to {to}: give --to {}",
            dir.display(),
            manifest.to,
            manifest.to
        )));
    }
    if manifest.members.len() != entries.len()
        || manifest
            .members
            .iter()
            .zip(entries)
            .any(|(m, e)| m.code != e.code.to_string())
    {
        return Err(input(format!(
            "{}: not the job array of this census (give the --digits and --prefix it was prepared with)",
            dir.display()
        )));
    }
    Ok(())
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
        Ok(CodeResult {
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
            at_powers_of_two: store.map_or(Vec::new(), |s| powers_of_two(s, reach)),
            seconds: row.map_or(0.0, |r| r.seconds),
        })
    }
}
