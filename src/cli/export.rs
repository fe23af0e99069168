//! `octal export` and `octal import`: a store to a compressed, shareable
//! sequence file and back.

use super::prelude::*;

#[derive(clap::Args)]
pub struct ExportArgs {
    /// The store.
    pub path: PathBuf,
    /// The sequence file to write (refused if it exists, unless
    /// --force); `-` writes it to standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// zstd level, 1 (fast) to 22 (small).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(i32).range(1..=22))]
    pub level: i32,
    /// Export only G(0) … G(N−1) (default: every value in the store).
    #[arg(long, value_name = "N")]
    pub to: Option<String>,
    /// Values per compressed frame.
    #[arg(long, hide = true, default_value_t = seqfile::DEFAULT_FRAME_VALUES)]
    pub frame_values: u64,
    /// Replace an existing regular file at FILE (never a device, a
    /// directory, a symbolic link or the store itself).
    #[arg(long)]
    pub force: bool,
}

#[derive(clap::Args)]
pub struct ImportArgs {
    /// The exported sequence file (.oseq) to read.
    pub file: PathBuf,
    /// The store to make (it must not exist yet).
    #[arg(long, value_name = "PATH")]
    pub store: PathBuf,
    #[arg(long, hide = true, default_value_t = DEFAULT_CHUNK_VALUES)]
    pub chunk_values: u64,
}

pub fn export(args: ExportArgs) -> Result<ExitCode> {
    let ExportArgs {
        path,
        output,
        level,
        to,
        frame_values,
        force,
    } = args;
    let Opened::Store(store, _) = open_saved(&path)? else {
        return Err(input(format!(
            "export takes a store; {} is already an exported sequence file",
            path.display()
        )));
    };
    let to = match to {
        Some(to) => {
            let to = parse_to("to", &to)?;
            Some(check_range(&path, 0, Some(to), store.checkpoint().good)?)
        }
        None => None,
    };
    let start = Instant::now();
    // Ctrl-C or SIGTERM stop between frames and remove the
    // temporary file.
    let stop = octal::run::stored::stop_on_signals().context("installing signal handlers")?;
    if is_stdout(&output) {
        return export_to_stdout(&store, level, frame_values, to, &stop, start);
    }
    let opts = seqfile::ExportOptions {
        force,
        stop: Some(&stop),
    };
    let e = match seqfile::export(&store, &output, level, frame_values, to, &opts) {
        Err(StoreError::Interrupted(status)) => {
            eprintln!(
                "octal: interrupted: nothing was written to {}",
                output.display()
            );
            return Ok(ExitCode::from(status as u8));
        }
        r => r?,
    };
    outln!(
        "{}",
        exported(&e, &store, &output.display().to_string(), start)
    );
    Ok(ExitCode::SUCCESS)
}

/// The closing line of an export to `dest`.
fn exported(e: &seqfile::Exported, store: &Store, dest: &str, start: Instant) -> String {
    format!(
        "exported {} values of {} to {dest}: {} ({} raw, ratio {:.1}) in {:.2} s",
        e.values,
        store.code(),
        store::human_bytes(e.bytes),
        store::human_bytes(e.raw_bytes),
        e.raw_bytes as f64 / e.bytes.max(1) as f64,
        start.elapsed().as_secs_f64()
    )
}

/// `octal export STORE -o -`: the sequence file streamed to standard
/// output (its format needs no seeking), the closing line on stderr.
fn export_to_stdout(
    store: &Store,
    level: i32,
    frame_values: u64,
    to: Option<u64>,
    stop: &std::sync::atomic::AtomicUsize,
    start: Instant,
) -> Result<ExitCode> {
    let stdout = std::io::stdout();
    if stdout.is_terminal() {
        return Err(input(
            "refusing to write a binary sequence file to a terminal; redirect standard output",
        ));
    }
    let mut w = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    let name = Path::new("standard output");
    let e = match seqfile::write_to(store, &mut w, name, level, frame_values, to, Some(stop)) {
        Err(StoreError::Interrupted(status)) => {
            eprintln!("octal: interrupted: the sequence file on standard output is incomplete");
            return Ok(ExitCode::from(status as u8));
        }
        r => r?,
    };
    eprintln!("{}", exported(&e, store, "standard output", start));
    Ok(ExitCode::SUCCESS)
}

pub fn import(args: ImportArgs) -> Result<ExitCode> {
    let ImportArgs {
        file,
        store,
        chunk_values,
    } = args;
    let seq = SeqFile::open(&file)?;
    let s = seqfile::import(&seq, &store, chunk_values)?;
    outln!(
        "imported {} values of {} into {}; `octal resume {} --to N` continues",
        s.good(),
        s.code(),
        store.display(),
        store.display()
    );
    Ok(ExitCode::SUCCESS)
}
