//! `octal equiv CODE`: which codes share CODE's class in the shipped
//! three- or four-digit census (or a census' `census.jsonl`), each with its shift
//! against the class' first code, and the class' status. It answers
//! "which codes are Kayles?" without reading the whole table.

use octal::census::lookup::{Census, LookupError};
use octal::census::shifted_equation;

use super::prelude::*;

#[derive(clap::Args)]
pub struct EquivArgs {
    /// An octal code, in any spelling: .137, 0.137, 0.1370.
    pub code: String,
    /// A census' census.jsonl to read instead of the shipped ones
    /// (data/census/digits-3-2^25, every code of up to 3 digits to 2^25;
    /// then data/census/digits-4-2^22, up to 4 digits to 2^22).
    #[arg(long, value_name = "FILE")]
    pub census: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// A lookup error as the binary reports it: bad input (exit 2) or not.
fn report(e: LookupError) -> anyhow::Error {
    match e {
        LookupError::NotFound { .. } => anyhow::Error::from(e),
        e if e.is_input() => input(e),
        e => e.into(),
    }
}

pub fn equiv(args: EquivArgs) -> Result<ExitCode> {
    let code = parse_code(&args.code)?.to_string();
    let census = Census::read_for(args.census.as_deref(), &code).map_err(report)?;
    let class = census.class_of(&code).map_err(report)?;
    if args.json {
        outln!("{}", class.to_json(&code, &census.source));
        return Ok(ExitCode::SUCCESS);
    }
    let first = class.first();
    outln!(
        "{code} is in the class of {first} ({}), {} code(s), in {}:",
        class.status(),
        class.members.len(),
        census.source
    );
    for m in &class.members {
        let mark = if m.code == code { "* " } else { "  " };
        let how = match m.shift {
            _ if m.code == first => format!("G_{first}(n): the class' first code"),
            None => format!(
                "{} = {first} shifted, by a chain the census did not record",
                m.code
            ),
            Some(s) => {
                let extent = match (m.every_n, m.below) {
                    (true, _) => "for every n".to_string(),
                    (false, Some(b)) => format!("for n < {b}"),
                    (false, None) => "as far as the census computed both".to_string(),
                };
                format!("{} {extent}", shifted_equation(&m.code, first, s))
            }
        };
        outln!("{mark}{how}");
    }
    Ok(ExitCode::SUCCESS)
}
