//! `octal values`: G(n) for a range of n, of a code, a store or an
//! exported file, one a line, as an OEIS b-file or as CSV.

use super::prelude::*;

#[derive(clap::Args)]
pub struct ValuesArgs {
    /// An octal code, or a store or exported sequence file.
    pub code: String,
    /// Required for a code; default for a file: all its values.
    #[arg(long, allow_hyphen_values = true)]
    pub to: Option<String>,
    /// The first heap printed (values G(FROM) … G(TO−1)).
    #[arg(long, default_value = "0", allow_hyphen_values = true)]
    pub from: String,
    /// plain (one value a line), bfile (OEIS b-file lines `n G(n)`) or
    /// csv (a header `n,value`, then `n,G(n)` rows).
    #[arg(long, default_value = "plain")]
    pub format: octal::formats::Format,
    /// b-files: the first term a(n) written, the OEIS entry's offset
    /// (Kayles A002186, Dawson's chess A002187, Grundy's game A002188
    /// start at 0; most A0714xx entries at 1). Default: the first value
    /// computed, a(FROM + SHIFT). An offset below that cannot be met: the
    /// terms start at a(FROM + SHIFT), and the header and stderr say so.
    #[arg(long)]
    pub offset: Option<u64>,
    /// b-files: write G(n) as the term a(n + SHIFT), for an entry stated
    /// as a(n) = G(n − SHIFT) (a negative SHIFT for a(n) = G(n + |SHIFT|)).
    #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
    pub index_shift: i64,
    #[command(flatten)]
    pub engine: EngineOpts,
}

pub fn values(args: ValuesArgs) -> Result<ExitCode> {
    let ValuesArgs {
        code,
        to,
        from,
        format,
        offset,
        index_shift,
        engine,
    } = args;
    let from = parse_to("from", &from)?;
    let to = to.map(|to| parse_to("to", &to)).transpose()?;
    if format != octal::formats::Format::BFile && (offset.is_some() || index_shift != 0) {
        return Err(input(format!(
            "--offset and --index-shift number b-file terms: they go with --format bfile, not {format}"
        )));
    }
    let path = Path::new(&code);
    let game = if path.is_file() {
        format!("the values in {}", path.display())
    } else {
        format!("the game {code}")
    };
    let command = command_line();
    let (header, note) = octal::formats::bfile_header(&game, from, offset, index_shift, &command);
    let first = octal::formats::first_term(from, offset, index_shift).unwrap_or(0);
    if format == octal::formats::Format::BFile {
        if let Some(note) = note {
            eprintln!("octal: note: {note}");
        }
    }
    let writer = || {
        octal::formats::ValueWriter::new(std::io::stdout().lock(), format, from, first)
            .bfile(index_shift, &header)
    };
    if path.is_file() {
        // Read, not computed.
        let opened = open_saved(path)?;
        let to = check_range(path, from, to, opened.len())?;
        let mut out = writer();
        opened.for_range(from, to, |v| out.write_seq(v).map_err(stdout_error))?;
        drop(out.finish().map_err(stdout_error)?);
        return Ok(ExitCode::SUCCESS);
    }
    let code = parse_code(&code)?;
    let Some(to) = to else {
        return Err(input("--to is required when computing values of a code"));
    };
    if to == 0 {
        return Err(JobError::Empty.into());
    }
    if from >= to {
        return Err(input(format!("--from {from} must be below --to {to}")));
    }
    // Stops once a period is proven: every later value is a lookup. Heaps
    // past what memory holds are answered only off a proven period.
    let reach = run::reach_for_answers(&code, from, to)?;
    if reach < to {
        eprintln!(
            "octal: note: {to} values do not fit in memory; computing until a period is proven, at most {reach} values"
        );
    }
    let job = engine.job(code, reach)?;
    let outcome = run::run_until(&job, true, &mut |_| {})?;
    if run::check_answered(&outcome.summary, to).is_err() {
        return Err(input(format!(
            "no period of {} is proven in its first {} values and {to} values do not fit in memory: G(n) past them cannot be given",
            outcome.summary.code, outcome.summary.values
        )));
    }
    let seq = &outcome.seq;
    let known = outcome.summary.values;
    let period = outcome.summary.period;
    if let Some(p) = &period {
        note_period(known, to - 1, p);
    }
    let mut out = writer();
    write_answers(&mut out, seq, known, period.as_ref(), from, to)?;
    drop(out.finish().map_err(stdout_error)?);
    Ok(ExitCode::SUCCESS)
}

/// This command as typed, for the b-file's header.
fn command_line() -> String {
    std::iter::once("octal".to_string())
        .chain(
            std::env::args()
                .skip(1)
                .map(|a| octal::slurm::shell_quote(&a)),
        )
        .collect::<Vec<_>>()
        .join(" ")
}

/// G(from..to): up to what was computed (`seq[..known]`), the values as
/// they are; beyond, a chunk at a time off the proven `period`.
fn write_answers<W: std::io::Write>(
    out: &mut octal::formats::ValueWriter<W>,
    seq: &octal::seq::Seq,
    known: u64,
    period: Option<&octal::period::Period>,
    from: u64,
    to: u64,
) -> Result<()> {
    let computed = to.min(known).max(from);
    if from < computed {
        out.write_seq(seq.view(from as usize, computed as usize))
            .map_err(stdout_error)?;
    }
    let mut n = computed;
    let mut chunk = Vec::with_capacity(1 << 16);
    while n < to {
        let end = (n + (1 << 16)).min(to);
        chunk.clear();
        for i in n..end {
            let v = seq.view(0, known as usize).answer(i, period);
            chunk.push(v.ok_or_else(|| anyhow::anyhow!("G({i}) is past the values computed"))?);
        }
        out.write(&chunk).map_err(stdout_error)?;
        n = end;
    }
    Ok(())
}
