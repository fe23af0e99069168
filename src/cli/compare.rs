//! `octal compare`: where two sequences first differ, or a proof that
//! they never do.

use super::prelude::*;

#[derive(clap::Args)]
pub struct CompareArgs {
    /// The first sequence: an octal code, a store or an exported file.
    pub a: String,
    /// The second sequence, likewise.
    pub b: String,
    /// Compare G_A(n) with G_B(n + K) (K may be negative).
    #[arg(
        long,
        default_value_t = 0,
        allow_hyphen_values = true,
        value_name = "K"
    )]
    pub shift: i64,
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

/// Values a code is computed to for `compare` without `--to`.
const COMPARE_DEFAULT: u64 = 1_000_000;

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
    if shift == i64::MIN {
        // Its negation, the first n compared, is no i64.
        return Err(input(format!(
            "--shift {shift} is out of range: give a shift from -{} to {}",
            i64::MAX,
            i64::MAX
        )));
    }
    let reach = |k: i64| {
        to.unwrap_or(COMPARE_DEFAULT)
            .saturating_add_signed(k.max(0))
    };
    let (ga, pa) = compare_source(&a, reach(0), &engine)?;
    let (gb, pb) = compare_source(&b, reach(shift), &engine)?;
    let c = octal::compare::Comparison {
        a: octal::compare::Side {
            values: &ga,
            period: pa,
        },
        b: octal::compare::Side {
            values: &gb,
            period: pb,
        },
        shift,
    };
    let outcome = c.run(to);
    if let octal::compare::Outcome::EqualTo { to } = outcome {
        if to <= c.start() {
            // No heap was held by both sides: "equal" would say nothing.
            return Err(input(format!(
                "nothing to compare: with --shift {shift} the first n compared is {}, and the values both sides hold end at n = {to}",
                c.start()
            )));
        }
    }
    if json {
        let v = match outcome {
            octal::compare::Outcome::Differ { at, a, b } => serde_json::json!({
                "verdict": "differ", "at": at, "a": a, "b": b, "shift": shift}),
            octal::compare::Outcome::EqualTo { to } => serde_json::json!({
                "verdict": "equal_to", "to": to, "shift": shift}),
            octal::compare::Outcome::EqualForever { checked_to } => serde_json::json!({
                "verdict": "equal_forever", "checked_to": checked_to, "shift": shift}),
        };
        outln!("{v}");
    } else {
        let shifted = match shift {
            0 => "n".to_string(),
            k if k > 0 => format!("n + {k}"),
            k => format!("n − {}", -k),
        };
        let (mut ga, mut gb) = (side_name(&a)?, side_name(&b)?);
        if ga == gb {
            // Two files of one game (or a code and its own store).
            ga += "[A]";
            gb += "[B]";
        }
        match outcome {
            octal::compare::Outcome::Differ { at, a: x, b: y } => outln!(
                "differ first at n = {at}: {ga}({at}) = {x}, {gb}({}) = {y}",
                at as i64 + shift
            ),
            octal::compare::Outcome::EqualTo { to } => outln!(
                "{ga}(n) = {gb}({shifted}) for every n below {to} (equal to {to}; not proven beyond)"
            ),
            octal::compare::Outcome::EqualForever { checked_to } => outln!(
                "{ga}(n) = {gb}({shifted}) for every n: both are proven periodic and agree up to {checked_to}"
            ),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The values of one side of `compare`, and its proven period: a code is
/// computed to `to` (stopping at a proof), a store or an exported file read
/// whole, with the period it records (or, for a file exported without one,
/// the period the detector finds in its values).
fn compare_source(s: &str, to: u64, engine: &EngineOpts) -> Result<(Vec<u32>, Option<Period>)> {
    let path = Path::new(s);
    if path.is_file() {
        let opened = open_saved(path)?;
        let values = opened.read(0, opened.len())?.to_u32();
        let period = opened.period().or_else(|| {
            let mut d = octal::period::Detector::new(opened.code());
            d.feed(&values);
            d.proven()
        });
        return Ok((values, period));
    }
    let job = engine.job(parse_code(s)?, to)?;
    let outcome = run::run_until(&job, true, &mut |_| {})?;
    let known = outcome.summary.values as usize;
    let mut values = outcome.seq.to_u32();
    values.truncate(known);
    Ok((values, outcome.summary.period))
}

/// How the output names a side's values: `G_0.137`, by the code given or
/// the game of the file given.
fn side_name(s: &str) -> Result<String> {
    let path = Path::new(s);
    if path.is_file() {
        return Ok(format!("G_{}", Opened::open(path)?.code()));
    }
    Ok(format!("G_{}", parse_code(s)?))
}
