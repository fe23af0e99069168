//! The census' tables: its classes, each class' marks (certificate and
//! the library's literature judgement) and the files written from them.

use std::collections::BTreeMap;

use octal::census::{self, CodeResult, Table};

use super::args::{provenance, CensusArgs};
use crate::cli::prelude::*;

/// Groups the results (values read from `stores`), writes the census'
/// tables into `dir` and prints the summary or the JSON lines.
pub(super) fn tables(
    args: &CensusArgs,
    dir: &Path,
    to: u64,
    results: &[CodeResult],
    stores: &[PathBuf],
) -> Result<()> {
    let eq = equivalences(results, stores)?;
    let provenance = provenance(args, to);
    let marks = marks(args, dir, results, stores, &eq)?;
    let table = Table {
        results,
        eq: &eq,
        provenance: &provenance,
        marks: &marks,
    };
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        octal::store::output::write_file_io(&path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))
    };
    write("census.csv", table.csv())?;
    write("census.jsonl", table.json_lines())?;
    write(
        "census.md",
        format!(
            "# Census of {} codes: {} digits, prefixes {}, {} values\n\n{}\n\n{}\n{}",
            if args.hex { "hexadecimal" } else { "octal" },
            args.digits,
            args.prefix,
            to,
            provenance.line(),
            table.summary(),
            table.markdown()
        ),
    )?;
    write("equivalences.md", table.equivalences_markdown())?;
    if args.json {
        out!("{}", table.rows_json_lines());
    } else {
        out!("{}", table.summary());
        if !args.quiet {
            eprintln!(
                "tables written to {}/census.{{csv,md,jsonl}} and equivalences.md",
                dir.display()
            );
        }
    }
    Ok(())
}

/// Each class' marks, by its first code: its certificate, made and checked
/// for a periodic class within `--check-minutes` (see
/// [`crate::cli::certify::certify_census`]), and where the literature stands
/// on it (values for the evidence of a disagreement read from `stores`).
pub(super) fn marks(
    args: &CensusArgs,
    dir: &Path,
    results: &[CodeResult],
    stores: &[PathBuf],
    eq: &census::Equivalences,
) -> Result<BTreeMap<String, census::Marks>> {
    let budget = args.check_minutes * 60.0;
    if budget.is_nan() || budget < 0.0 {
        return Err(input(format!(
            "--check-minutes {}: give a number of minutes ≥ 0",
            args.check_minutes
        )));
    }
    let firsts: Vec<usize> = (0..results.len())
        .filter(|&i| eq.class_of[i] == i)
        .collect();
    let periodic: Vec<(String, u64, u64)> = firsts
        .iter()
        .filter_map(|&i| {
            let p = results[i].period()?;
            Some((results[i].code.clone(), p.period, p.preperiod))
        })
        .collect();
    let checks = crate::cli::certify::certify_census(
        dir,
        &periodic,
        budget,
        &EngineOpts::default(),
        args.quiet,
        true,
    )?;
    let mut standings = census::judge_classes(results, eq, stores);
    Ok(firsts
        .iter()
        .map(|&r| {
            let code = &results[r].code;
            let marks = census::Marks {
                literature: standings.remove(code).unwrap_or_default(),
                checked: checks.iter().find(|c| &c.code == code).cloned(),
            };
            (code.clone(), marks)
        })
        .collect())
}

/// The classes of `results`, their values read from `stores` (each up to
/// its result's reach; a store that cannot give them is an error, never
/// a sequence with no values).
pub(super) fn equivalences(
    results: &[CodeResult],
    stores: &[PathBuf],
) -> Result<census::Equivalences> {
    let values = |i: usize, most: usize| -> Result<Vec<u32>> {
        let n = (most as u64).min(results[i].reach);
        if n == 0 {
            return Ok(Vec::new());
        }
        let path = &stores[i];
        let opened = Opened::open(path)?;
        if opened.len() < n {
            anyhow::bail!(
                "{}: holds {} values, but the result of {} reached {n}",
                path.display(),
                opened.len(),
                results[i].code
            );
        }
        Ok(opened.read(0, n)?.to_u32())
    };
    let periods: Vec<_> = results.iter().map(CodeResult::period).collect();
    let reach: Vec<u64> = results.iter().map(|r| r.reach).collect();
    census::equivalences(&periods, &reach, &values)
}
