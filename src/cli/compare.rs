//! `octal compare`: where two sequences first differ, or a proof that
//! they never do.

use octal::compare::{auto_shifts, Comparison, Outcome};

use super::prelude::*;

#[derive(clap::Args)]
pub struct CompareArgs {
    /// The first sequence: an octal code, a store or an exported file.
    pub a: String,
    /// The second sequence, likewise.
    pub b: String,
    /// Compare G_A(n) with G_B(n + K) (K may be negative), or `auto`:
    /// try every shift that can matter and say which holds.
    #[arg(
        long,
        default_value = "0",
        allow_hyphen_values = true,
        value_name = "K|auto"
    )]
    pub shift: String,
    /// Compare n below N. Default: a code is computed to 10^6 values
    /// (or until its period is proven) and a file gives all its values;
    /// two proven periods settle every n.
    #[arg(long, value_name = "N")]
    pub to: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub engine: EngineOpts,
}

pub fn compare(args: CompareArgs) -> Result<ExitCode> {
    let CompareArgs {
        a,
        b,
        shift,
        to,
        json,
        engine,
    } = args;
    let to = to.map(|t| parse_to("to", &t)).transpose()?;
    let shifts: Vec<i64> = match shift.trim() {
        "auto" => {
            let most = auto_shifts(&[code_of(&a)?, code_of(&b)?]);
            (-most..=most).collect()
        }
        k => vec![parse_shift(k)?],
    };
    let most = shifts.iter().map(|k| k.unsigned_abs()).max().unwrap_or(0);
    let reach = |k: u64| to.unwrap_or(octal::compare::DEFAULT_TO).saturating_add(k);
    let (ga, pa, na) = compare_source(&a, reach(0), &engine)?;
    let (gb, pb, nb) = compare_source(&b, reach(most), &engine)?;
    let side = |values, period| octal::compare::Side { values, period };
    let outcomes: Vec<(i64, Comparison, Outcome)> = shifts
        .iter()
        .map(|&shift| {
            let c = Comparison {
                a: side(&ga, pa),
                b: side(&gb, pb),
                shift,
            };
            (shift, c, c.run(to))
        })
        .collect();
    if let [(shift, c, Outcome::EqualTo { to })] = outcomes[..] {
        if to <= c.start() {
            // No heap was held by both sides: "equal" would say nothing.
            return Err(input(format!(
                "nothing to compare: with --shift {shift} the first n compared is {}, and the values both sides hold end at n = {to}",
                c.start()
            )));
        }
    }
    if json {
        outln!("{}", as_json(&shifts, &outcomes, &na, &nb));
    } else {
        print_words(&shifts, &outcomes, &na, &nb)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One shift tried: the shift, its comparison and what it found.
type Tried<'a> = (i64, Comparison<'a>, Outcome);

/// What holds: an agreement on at least one heap.
fn holds((_, c, o): &&Tried<'_>) -> bool {
    c.holds(o)
}

/// The verdict of one shift (`--shift K`), or of every shift searched.
fn as_json(shifts: &[i64], outcomes: &[Tried<'_>], na: &str, nb: &str) -> serde_json::Value {
    let verdict = |&(shift, _, o): &Tried<'_>| o.to_json(shift);
    if shifts.len() == 1 {
        verdict(&outcomes[0])
    } else {
        serde_json::json!({
            "a": na, "b": nb,
            "searched": [shifts[0], shifts[shifts.len() - 1]],
            "holds": outcomes.iter().filter(holds).map(|o| o.0).collect::<Vec<_>>(),
            "shifts": outcomes.iter().map(verdict).collect::<Vec<_>>(),
        })
    }
}

/// The verdict in words: of the one shift, or of every shift that holds
/// (or the nearest when none does).
fn print_words(shifts: &[i64], outcomes: &[Tried<'_>], na: &str, nb: &str) -> Result<()> {
    let says = |&(shift, _, o): &Tried<'_>| o.words(na, nb, shift);
    if shifts.len() == 1 {
        outln!("{}", says(&outcomes[0]));
        return Ok(());
    }
    let held: Vec<&Tried<'_>> = outcomes.iter().filter(holds).collect();
    if held.is_empty() {
        // The shift that agreed longest, to say how near it came.
        let nearest = outcomes.iter().max_by_key(|(_, _, o)| match o {
            Outcome::Differ { at, .. } => *at,
            _ => 0,
        });
        outln!(
            "no shift from {} to {} holds between {na} and {nb}{}",
            shifts[0],
            shifts[shifts.len() - 1],
            nearest.map_or(String::new(), |o| format!(
                " (the nearest, shift {}: {})",
                o.0,
                says(o)
            ))
        );
    } else {
        for o in held {
            outln!("{}", says(o));
        }
    }
    Ok(())
}

/// A `--shift` given as a number.
fn parse_shift(k: &str) -> Result<i64> {
    match k.parse::<i64>() {
        // Its negation, the first n compared, is no i64.
        Ok(i64::MIN) | Err(_) => Err(input(format!(
            "--shift {k} is out of range: give auto or a shift from -{} to {}",
            i64::MAX,
            i64::MAX
        ))),
        Ok(k) => Ok(k),
    }
}

/// The code of one side of `compare`: a code, or that of a store or file.
fn code_of(s: &str) -> Result<Code> {
    let path = Path::new(s);
    if path.is_file() {
        return Ok(open_saved(path)?.code().clone());
    }
    parse_code(s)
}

/// The values of one side of `compare`, and its proven period: a code is
/// computed to `to` (stopping at a proof), a store or an exported file read
/// whole, with the period it records (or, for a file exported without one,
/// the period the detector finds in its values).
fn compare_source(
    s: &str,
    to: u64,
    engine: &EngineOpts,
) -> Result<(Vec<u32>, Option<Period>, String)> {
    let path = Path::new(s);
    if path.is_file() {
        let opened = open_saved(path)?;
        let values = opened.read(0, opened.len())?.to_u32();
        let period = opened.period().or_else(|| {
            let mut d = octal::period::Detector::new(opened.code());
            d.feed(&values);
            d.proven()
        });
        return Ok((values, period, opened.code().to_string()));
    }
    let code = parse_code(s)?;
    let name = code.to_string();
    let job = engine.job(code, to)?;
    let outcome = run::run_until(&job, true, &mut |_| {})?;
    let known = outcome.summary.values as usize;
    let mut values = outcome.seq.to_u32();
    values.truncate(known);
    Ok((values, outcome.summary.period, name))
}
