//! `octal certify`: write a certificate of a proven period, check one
//! without the engines, or certify every periodic class of a census (see
//! the library's `certificate` module and docs/certificates.md).

use octal::certificate::{self, Certificate, CheckRow, Plan, Wrong};
use octal::period::Bound;

use super::prelude::*;

#[derive(clap::Args)]
pub struct CertifyArgs {
    /// The octal code (e.g. 4.344, .137), or a store (.octal) or exported
    /// file (.oseq) holding a proven period.
    #[arg(required_unless_present_any = ["check", "census"], conflicts_with_all = ["check", "census"])]
    pub target: Option<String>,
    /// Where to write the certificate (default: CODE.cert.json here).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Values the engine may compute looking for the proof.
    #[arg(long, allow_hyphen_values = true, default_value = "2^24")]
    pub to: String,
    /// Check a certificate by recomputing its values independently.
    #[arg(long, value_name = "FILE", conflicts_with = "census")]
    pub check: Option<PathBuf>,
    /// Certify every periodic class of a finished census directory, into
    /// DIR/certificates/ (with checks.jsonl).
    #[arg(long, value_name = "DIR")]
    pub census: Option<PathBuf>,
    /// Refuse a check estimated to take longer than this (per class with
    /// --census).
    #[arg(long, value_name = "M", default_value_t = certificate::DEFAULT_BUDGET_SECONDS / 60.0)]
    pub max_minutes: f64,
    #[command(flatten)]
    pub engine: EngineOpts,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn certify(args: CertifyArgs) -> Result<ExitCode> {
    let budget = args.max_minutes * 60.0;
    if budget.is_nan() || budget < 0.0 {
        return Err(input(format!(
            "--max-minutes {}: give a number of minutes ≥ 0",
            args.max_minutes
        )));
    }
    if let Some(file) = &args.check {
        return check_file(file, budget, args.quiet);
    }
    if let Some(dir) = &args.census {
        return census(&args, dir, budget);
    }
    let target = args.target.as_deref().expect("clap requires a target");
    let (cert, inputs) = if Path::new(target).exists() {
        (from_file(Path::new(target))?, vec![PathBuf::from(target)])
    } else {
        let code = parse_code(target)?;
        let to = parse_to("to", &args.to)?;
        (
            compute(target, &code, to, &args.engine, args.quiet)?,
            vec![],
        )
    };
    let path = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.cert.json", cert.claim.canonical)));
    write(&path, &cert, &inputs)?;
    let c = &cert.claim;
    outln!(
        "{}: period {}, preperiod {}, proven by G(0..={}); certificate in {}",
        c.canonical,
        c.period,
        c.preperiod,
        c.n,
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn write(path: &Path, cert: &Certificate, inputs: &[PathBuf]) -> Result<()> {
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    octal::store::output::write_file(path, cert.to_json().as_bytes(), &inputs)
        .with_context(|| format!("writing {}", path.display()))
}

/// Refuses before any work a game whose periods cannot be proven.
fn provable(code: &Code) -> Result<()> {
    if Bound::of(code).is_none() {
        return Err(input(format!(
            "{code}: no proof of periodicity is known for this kind of game, so no certificate"
        )));
    }
    Ok(())
}

/// Runs the fast engine on `code` in memory until its period is proven
/// (at most `to` values) and makes the certificate.
fn compute(
    given: &str,
    code: &Code,
    to: u64,
    engine: &EngineOpts,
    quiet: bool,
) -> Result<Certificate> {
    provable(code)?;
    let job = engine.job(code.clone(), to)?;
    let bar = progress_bar(job.to, quiet);
    let outcome = run::run_until(&job, true, &mut |p| update(&bar, p))?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let s = &outcome.summary;
    let Some(period) = s.period else {
        let seen = s.apparent_period.map_or(String::new(), |p| {
            format!(
                " (it looks periodic with period {}, preperiod {})",
                p.period, p.preperiod
            )
        });
        return Err(anyhow::anyhow!(
            "{code}: no period proven in {} values{seen}; a larger --to may prove one",
            s.values
        ));
    };
    let g = outcome.seq.view(0, outcome.seq.len());
    Ok(Certificate::make(given, code, &period, g, s.engine.engine)?)
}

/// The certificate of the period a store or an exported file proves.
fn from_file(path: &Path) -> Result<Certificate> {
    let opened = open_saved(path)?;
    let code = opened.code().clone();
    provable(&code)?;
    let Some(period) = opened.period() else {
        return Err(input(format!(
            "{}: it proves no period of {code} (computed to {} values); `octal resume` computes further",
            path.display(),
            opened.len()
        )));
    };
    let need = period.bound.unwrap_or(0).min(opened.len());
    let g = opened.read(0, need)?;
    let engine = format!("{} (from {})", opened.kind(), path.display());
    Ok(Certificate::make(
        &code.to_string(),
        &code,
        &period,
        g.view(0, g.len()),
        &engine,
    )?)
}

/// Reads a certificate file; what cannot be read is bad input (exit 2).
fn read(file: &Path) -> Result<Certificate> {
    let bytes = std::fs::read(file).map_err(|e| input(format!("{}: {e}", file.display())))?;
    Certificate::read(&bytes).map_err(|e| input(format!("{}: {e}", file.display())))
}

/// A progress bar over the heaps of a check, on a terminal.
fn heap_bar(plan: &Plan, quiet: bool) -> Option<ProgressBar> {
    if quiet || !std::io::stderr().is_terminal() || plan.seconds < 2.0 {
        return None;
    }
    let bar = ProgressBar::new(plan.last + 1);
    bar.set_style(rate_style(
        "checking [{elapsed_precise}] {bar:30} {human_pos}/{human_len} heaps ETA {eta}",
    ));
    Some(bar)
}

/// Checks `plan` of `cert`, with a progress bar on a terminal.
fn run_check(
    plan: &Plan,
    cert: &Certificate,
    quiet: bool,
) -> std::result::Result<certificate::Checked, Wrong> {
    let bar = heap_bar(plan, quiet);
    let done = plan.check(cert, &mut |n| {
        if let Some(bar) = &bar {
            bar.set_position(n);
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    done
}

fn check_file(file: &Path, budget: f64, quiet: bool) -> Result<ExitCode> {
    let cert = read(file)?;
    let name = file.display();
    let plan = match cert.plan() {
        Ok(plan) => plan,
        Err(wrong) => {
            outln!("FAILED {name}: {wrong}");
            return Ok(ExitCode::from(FAILED));
        }
    };
    let code = &cert.claim.code;
    eprintln!("octal: checking {}", plan.cost_line(code));
    plan.within(code, budget).map_err(input)?;
    match run_check(&plan, &cert, quiet) {
        Ok(done) => {
            outln!(
                "ok {name}: {} has period {}, preperiod {}: G(0..={}) recomputed independently in {:.1} s, hash, period and leastness hold",
                cert.claim.canonical,
                cert.claim.period,
                cert.claim.preperiod,
                plan.last,
                done.seconds
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(wrong) => {
            outln!("FAILED {name}: {wrong}");
            Ok(ExitCode::from(FAILED))
        }
    }
}

/// The census' periodic classes: (code, period, preperiod) from the rows
/// of `DIR/census.jsonl`.
fn periodic_classes(dir: &Path) -> Result<Vec<(String, u64, u64)>> {
    let path = dir.join("census.jsonl");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        input(format!(
            "{}: {e} (not a finished census directory?)",
            path.display()
        ))
    })?;
    let mut out = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let bad = |why: &str| input(format!("{} line {}: {why}", path.display(), i + 1));
        let row: serde_json::Value = serde_json::from_str(line).map_err(|e| bad(&e.to_string()))?;
        if row["status"] != "periodic" {
            continue;
        }
        let code = row["code"].as_str().ok_or_else(|| bad("no code"))?;
        let p = row["period"].as_u64().ok_or_else(|| bad("no period"))?;
        let s = row["preperiod"]
            .as_u64()
            .ok_or_else(|| bad("no preperiod"))?;
        out.push((code.to_string(), p, s));
    }
    Ok(out)
}

fn census(args: &CertifyArgs, dir: &Path, budget: f64) -> Result<ExitCode> {
    let rows = certify_census(
        dir,
        &periodic_classes(dir)?,
        budget,
        &args.engine,
        args.quiet,
        false,
    )?;
    let count = |m: &str| rows.iter().filter(|r| r.ok && r.method == m).count();
    let failed: Vec<&str> = rows
        .iter()
        .filter(|r| !r.ok)
        .map(|r| r.code.as_str())
        .collect();
    outln!(
        "{} periodic classes: {} checked independently, {} by the engine only, {} failed{}; certificates and checks.jsonl in {}",
        rows.len(),
        count("independent"),
        count("engine-only"),
        failed.len(),
        if failed.is_empty() {
            String::new()
        } else {
            format!(" ({})", failed.join(" "))
        },
        dir.join(certificate::CENSUS_DIR).display()
    );
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(FAILED)
    })
}

/// Certifies the periodic `classes` (code, period, preperiod) of the
/// census in `dir` into `dir/certificates/` and records how each was checked in its
/// `checks.jsonl` (see [`certify_class`]). A class whose certificate and
/// independent check are already there (for the same period, preperiod
/// and N) is kept when `reuse` is set, so a census made again does not
/// check again.
pub fn certify_census(
    dir: &Path,
    classes: &[(String, u64, u64)],
    budget: f64,
    engine: &EngineOpts,
    quiet: bool,
    reuse: bool,
) -> Result<Vec<CheckRow>> {
    let out = dir.join(certificate::CENSUS_DIR);
    std::fs::create_dir_all(&out).with_context(|| format!("cannot write {}", out.display()))?;
    let show = !quiet && std::io::stderr().is_terminal();
    let bar = show.then(|| {
        let bar = ProgressBar::new(classes.len() as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "certify [{elapsed_precise}] {bar:30} {pos}/{len} classes {msg}",
            )
            .expect("valid template"),
        );
        bar
    });
    let mut rows: Vec<CheckRow> = Vec::new();
    let checks = out.join(certificate::CHECKS);
    let done = match reuse {
        true => certificate::read_checks(dir).unwrap_or_default(),
        false => Vec::new(),
    };
    for (code, p, s) in classes {
        if let Some(bar) = &bar {
            bar.set_message(code.clone());
        }
        let kept = done
            .iter()
            .find(|r| &r.code == code && r.ok && r.method == "independent")
            .filter(|r| {
                let Ok(bytes) = std::fs::read(out.join(format!("{code}.cert.json"))) else {
                    return false;
                };
                Certificate::read(&bytes).is_ok_and(|c| {
                    (c.claim.period, c.claim.preperiod, Some(c.claim.n)) == (*p, *s, r.n)
                })
            });
        rows.push(match kept {
            Some(r) => r.clone(),
            None => certify_class(engine, &out, code, *p, *s, budget),
        });
        let body: String = rows
            .iter()
            .map(|r| serde_json::to_string(r).expect("a row serialises") + "\n")
            .collect();
        octal::store::output::write_file(&checks, body.as_bytes(), &[])
            .with_context(|| format!("writing {}", checks.display()))?;
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(rows)
}

/// Makes and (within the budget) checks the certificate of one class.
fn certify_class(
    engine: &EngineOpts,
    out: &Path,
    code: &str,
    p: u64,
    s: u64,
    budget: f64,
) -> CheckRow {
    let start = Instant::now();
    let mut row = CheckRow {
        code: code.to_string(),
        n: None,
        method: "engine-only".into(),
        seconds: 0.0,
        ok: false,
        reason: None,
    };
    let made = (|| -> Result<Certificate> {
        let parsed = parse_code(code)?;
        // The engine stops at the proof; the margin lets its detector see
        // the period (it proves none from a single value).
        let need = Bound::of(&parsed).map_or(0, |b| b.needed(p, s));
        let cert = compute(code, &parsed, need + need / 8 + 1024, engine, true)?;
        let c = &cert.claim;
        if (c.period, c.preperiod) != (p, s) {
            anyhow::bail!(
                "the engine proves period {} preperiod {}, the census says {p} and {s}",
                c.period,
                c.preperiod
            );
        }
        write(&out.join(format!("{code}.cert.json")), &cert, &[])?;
        Ok(cert)
    })();
    let cert = match made {
        Ok(cert) => cert,
        Err(e) => {
            row.reason = Some(format!("{e:#}"));
            row.seconds = start.elapsed().as_secs_f64();
            return row;
        }
    };
    row.n = Some(cert.claim.n);
    let plan = match cert.plan() {
        Ok(plan) => plan,
        Err(wrong) => {
            row.method = "independent".into();
            row.reason = Some(wrong.to_string());
            return row;
        }
    };
    if let Err(too) = plan.within(code, budget) {
        row.ok = true;
        row.reason = Some(format!("independent check refused: {too}"));
        row.seconds = start.elapsed().as_secs_f64();
        return row;
    }
    row.method = "independent".into();
    let check = Instant::now();
    match plan.check(&cert, &mut |_| {}) {
        Ok(_) => row.ok = true,
        Err(wrong) => row.reason = Some(wrong.to_string()),
    }
    row.seconds = check.elapsed().as_secs_f64();
    row
}
