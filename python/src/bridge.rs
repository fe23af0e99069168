//! Every call the Python bindings make into the octal library, in one
//! place: `lib.rs` sees only what this module exports, in plain Rust types,
//! and the library's errors arrive here already sorted into the Python
//! exception they become ([`Error`]). The typed summary and periods are
//! the exception: `summary.rs` and `period.rs` build Python's classes
//! straight from the library's types.

use std::fs::File;
use std::io::{self, BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use octal::code::CodeError;
use octal::count::{parse_count, CountError};
use octal::engine::{EngineKind, MaskSpec, SparseError};
use octal::formats::{self, BFileError, Format, FormatError, ValueWriter};
use octal::games::cookie_cutter::{self, Cutter, Grid, Method, SolveError, Solver};
use octal::games::vertex_deletion::{self, Digraph, Variant};
use octal::games::GameError;
use octal::period::Bound;
use octal::run::{self, Control, Ending, Job, JobError, RunError, Summary};
use octal::store::{self, Store, StoreError, DEFAULT_CHUNK_VALUES};

pub use octal::code::Code;
pub use octal::seq::{Seq, SeqRef};
pub use octal_kernels::Value;

/// What goes wrong, sorted by the Python exception it becomes.
#[derive(Debug)]
pub enum Error {
    /// Bad input: `ValueError`.
    Value(String),
    /// A file that cannot be opened, read or written, or is damaged:
    /// `OSError` (the errno, when there is one, picks its subclass).
    Os {
        errno: Option<i32>,
        message: String,
        path: Option<PathBuf>,
    },
    /// More values than memory holds: `MemoryError`.
    Memory(String),
}

impl Error {
    fn os(message: String, path: Option<&Path>) -> Error {
        Error::Os {
            errno: None,
            message,
            path: path.map(Path::to_owned),
        }
    }
}

/// Errors of the library that are always bad input: `ValueError`.
macro_rules! value_errors {
    ($($t:ty),*) => {$(
        impl From<$t> for Error {
            fn from(e: $t) -> Error {
                Error::Value(e.to_string())
            }
        }
    )*};
}

value_errors!(CodeError, CountError, GameError, SparseError, FormatError);

impl From<JobError> for Error {
    fn from(e: JobError) -> Error {
        match e {
            JobError::TooBig { .. } => Error::Memory(e.to_string()),
            _ => Error::Value(e.to_string()),
        }
    }
}

impl From<RunError> for Error {
    fn from(e: RunError) -> Error {
        match e {
            RunError::Store(e) => e.into(),
            RunError::Job(e) => e.into(),
        }
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Error {
        match &e {
            StoreError::Io { path, error, .. } => Error::Os {
                errno: error.raw_os_error(),
                message: e.to_string(),
                path: Some(path.clone()),
            },
            StoreError::WrongCode { .. } | StoreError::CodeTooLong(_) => {
                Error::Value(e.to_string())
            }
            StoreError::Foreign(p)
            | StoreError::Version { path: p, .. }
            | StoreError::Damaged { path: p, .. }
            | StoreError::Locked(p)
            | StoreError::InUse(p)
            | StoreError::Exists(p)
            | StoreError::Output { path: p, .. }
            | StoreError::NoSpace { path: p, .. }
            | StoreError::SlotFull { path: p, .. } => Error::os(e.to_string(), Some(p)),
            _ => Error::os(e.to_string(), None),
        }
    }
}

/// An I/O error on `path`, said as `path: what: error`.
fn io_error(path: &Path, what: &str, e: io::Error) -> Error {
    Error::Os {
        errno: e.raw_os_error(),
        message: format!("{}: {what}: {e}", path.display()),
        path: Some(path.to_owned()),
    }
}

type Result<T, E = Error> = std::result::Result<T, E>;

/// A count as users type it (`1e6`, `2^20`).
pub fn count(s: &str) -> Result<u64> {
    Ok(parse_count(s)?)
}

/// The largest count accepted.
pub const MAX_COUNT: u64 = octal::count::MAX_COUNT;

/// Whether a proof of periodicity exists for this kind of game.
pub fn period_provable(code: &Code) -> bool {
    Bound::of(code).is_some()
}

/// The moves of a code, by kind: (take all, leave one, split in two, split
/// in three, unequal splits).
pub fn rules(code: &Code) -> (Vec<usize>, Vec<usize>, Vec<usize>, Vec<usize>, bool) {
    let r = code.rules();
    (
        r.take_all,
        r.take_leave_one,
        r.take_split,
        r.take_split3,
        r.unequal_splits,
    )
}

/// Cookie Cutter's strip game for a k×k cutter, `0.33…37`.
pub fn cookie_cutter_code(k: usize) -> Result<Code> {
    if k == 0 || k as u64 > cookie_cutter::MAX_K {
        return Err(Error::Value(format!(
            "cutter size {k}: expected 1 to {}",
            cookie_cutter::MAX_K
        )));
    }
    Ok(Code::cookie_cutter(k))
}

/// How to compute `to` values of `code`, with the sparse-space mask the
/// engine picks.
pub fn job(code: Code, to: u64, engine: &str, threads: Option<usize>) -> Result<Job> {
    job_with_mask(code, to, engine, threads, "auto")
}

/// As [`job`], with the sparse-space `mask` written as `octal run --mask`
/// takes it: auto, none, hex (0x1ee) or hex+p.
pub fn job_with_mask(
    code: Code,
    to: u64,
    engine: &str,
    threads: Option<usize>,
    mask: &str,
) -> Result<Job> {
    let mask = mask
        .parse::<MaskSpec>()
        .map_err(|e| Error::Value(e.to_string()))?;
    let engine = match engine.to_ascii_lowercase().as_str() {
        "sparse" => EngineKind::Sparse,
        "reference" => EngineKind::Reference,
        _ => {
            return Err(Error::Value(format!(
                "engine {engine:?}: expected \"sparse\" or \"reference\""
            )))
        }
    };
    let threads = match threads {
        Some(0) => return Err(Error::Value("threads must be at least 1".into())),
        Some(t) => t,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    Ok(Job {
        code,
        to,
        engine,
        threads,
        mask,
    })
}

/// How far a piece of work has got, for progress displays.
#[derive(Default)]
pub struct Meter {
    pub done: AtomicU64,
    pub total: AtomicU64,
}

impl Meter {
    pub fn set(&self, done: u64, total: u64) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(done, Ordering::Relaxed);
    }
}

/// A run in memory, as `octal run --no-store` (with `stop_at_proof`) or
/// `octal values`: the library's one driver, which stops between its
/// blocks (where the CLI stops) once `stop` becomes non-zero. Memory that
/// cannot be had is `MemoryError`; None when stopped.
pub fn in_memory(
    job: &Job,
    stop_at_proof: bool,
    stop: &AtomicUsize,
    meter: &Meter,
) -> Result<Option<(Seq, Summary)>> {
    let mut ctl = Control {
        progress: &mut |p| meter.set(p.done, p.to),
        checkpoint_every: None,
        stop: Some(stop),
        stop_at_proof,
    };
    let outcome = run::run_with(job, &mut ctl)?;
    Ok(match outcome.ending {
        Ending::Done => Some((outcome.seq, outcome.summary)),
        Ending::Stopped(_) => None,
    })
}

/// G(0), …, G(to − 1) of `code` as a run computes them (every value, no
/// stop at a proof), for checking values given from outside; None when
/// stopped.
pub fn game_values(code: &Code, to: u64, stop: &AtomicUsize, meter: &Meter) -> Result<Option<Seq>> {
    let job = job(code.clone(), to, "sparse", None)?;
    Ok(in_memory(&job, false, stop, meter)?.map(|(seq, _)| seq))
}

/// The values that answer heaps `start..job.to`, as `octal values` finds
/// them: computed to a proven period, or to what memory holds when the
/// heaps past it can be read off one ([`run::reach_for_answers`]); None
/// when stopped.
pub fn answers(
    mut job: Job,
    start: u64,
    stop: &AtomicUsize,
    meter: &Meter,
) -> Result<Option<(Seq, Summary)>> {
    let to = job.to;
    job.to = run::reach_for_answers(&job.code, start, to)?;
    let Some((seq, summary)) = in_memory(&job, true, stop, meter)? else {
        return Ok(None);
    };
    run::check_answered(&summary, to)?;
    Ok(Some((seq, summary)))
}

/// G(start), …, G(n − 1) from a run that stopped at its proof: the values
/// past those computed are read off the proven period (as the command
/// line's `values` does), with the note that says so (for Python's
/// `warnings`).
pub fn values_from(seq: Seq, s: &Summary, start: u64, n: u64) -> (Seq, Option<String>) {
    let known = seq.len() as u64;
    let Some(p) = s.period.filter(|_| n > known) else {
        return (drop_front(seq, start as usize), None);
    };
    let at = |i: u64| p.first_index(i) as usize;
    let values = match &seq {
        Seq::U16(v) => Seq::U16((start..n).map(|i| v[at(i)]).collect()),
        Seq::U32(v) => Seq::U32((start..n).map(|i| v[at(i)]).collect()),
    };
    (values, Some(p.read_off_note(known)))
}

/// `seq` without its first `start` values.
pub fn drop_front(seq: Seq, start: usize) -> Seq {
    match seq {
        Seq::U16(mut v) => {
            v.drain(..start.min(v.len()));
            Seq::U16(v)
        }
        Seq::U32(mut v) => {
            v.drain(..start.min(v.len()));
            Seq::U32(v)
        }
    }
}

/// A run kept in a store: what it ended with.
pub struct Stored {
    pub summary: Summary,
    /// Stopped by `stop` (checkpointed) rather than finished.
    pub stopped: bool,
    /// Values in the store now.
    pub good: u64,
}

/// Runs `job` in the store at `path` (created, or resumed when it holds
/// the same code), checkpointing every `every` and when `stop` becomes
/// non-zero, as `octal run --store PATH` does.
pub fn run_in_store(
    path: &Path,
    job: &Job,
    keep_going: bool,
    every: Duration,
    stop: &AtomicUsize,
    meter: &Meter,
) -> Result<Stored> {
    store::check_space(path, job.to, 2)?;
    let (mut store, _) = Store::open_or_create(path, &job.code, job.to, DEFAULT_CHUNK_VALUES)?;
    meter.set(store.good().min(job.to), job.to);
    let mut ctl = Control {
        progress: &mut |p| meter.set(p.done, p.to),
        checkpoint_every: Some(every),
        stop: Some(stop),
        stop_at_proof: !keep_going,
    };
    let outcome = run::run_in_store(&mut store, job, &mut ctl)?;
    Ok(Stored {
        summary: outcome.summary,
        stopped: matches!(outcome.ending, Ending::Stopped(_)),
        good: store.good(),
    })
}

pub use octal::store::Opened;

/// Writes G(from..to) of `o` (`range`) to `out` in `format` (b-files:
/// see [`FileWriter::create`]), until `stop` becomes non-zero: false then,
/// and `out` is removed.
pub fn write(
    o: &Opened,
    out: &Path,
    format: &str,
    (from, to): (u64, u64),
    bfile: &BFileLayout,
    stop: &AtomicUsize,
    meter: &Meter,
) -> Result<bool> {
    let mut w = FileWriter::create(out, &[o.path()], format, from, bfile)?;
    let (mut stopped, mut done) = (false, 0);
    let written = o.for_range(from, to, |piece| {
        if stop.load(Ordering::SeqCst) != 0 {
            stopped = true;
            return Err(Error::Value("stopped".into()));
        }
        w.write_seq(piece)?;
        done += piece.len() as u64;
        meter.set(done, to - from);
        Ok(())
    });
    if stopped {
        w.abandon();
        return Ok(false);
    }
    if let Err(e) = written {
        w.abandon();
        return Err(e);
    }
    w.finish()?;
    Ok(true)
}

/// Values written to a file in one of the text formats, piece by piece,
/// in a temporary file put in place by [`FileWriter::finish`] (the rules
/// of [`store::output`]: an existing regular file is replaced, never a
/// file read, a device, a directory or a symbolic link).
pub struct FileWriter {
    w: ValueWriter<BufWriter<File>>,
    out: store::output::Output,
    path: PathBuf,
}

/// How a b-file is laid out: its first term, its index shift and its
/// `#` header ([`octal::formats::bfile_header`]); other formats ignore it.
#[derive(Clone, Default)]
pub struct BFileLayout {
    pub first: u64,
    pub shift: i64,
    pub header: String,
}

impl FileWriter {
    /// Starts `path` for G(start), … in `format`; `inputs` are the files
    /// the values come from.
    pub fn create(
        path: &Path,
        inputs: &[&Path],
        format: &str,
        start: u64,
        bfile: &BFileLayout,
    ) -> Result<FileWriter> {
        let format: Format = format.parse()?;
        let mut out = store::output::Output::create(path, true, inputs).map_err(Error::from)?;
        let file = out
            .file()
            .try_clone()
            .map_err(|e| io_error(path, "creating", e))?;
        Ok(FileWriter {
            w: ValueWriter::new(BufWriter::new(file), format, start, bfile.first)
                .bfile(bfile.shift, &bfile.header),
            out,
            path: path.to_owned(),
        })
    }

    /// Writes the next values.
    pub fn write<V: Value>(&mut self, values: &[V]) -> Result<()> {
        self.w
            .write(values)
            .map_err(|e| io_error(&self.path, "writing", e))
    }

    fn write_seq(&mut self, values: SeqRef<'_>) -> Result<()> {
        match values {
            SeqRef::U16(v) => self.write(v),
            SeqRef::U32(v) => self.write(v),
        }
    }

    /// Writes what is buffered and puts the file in place.
    pub fn finish(self) -> Result<()> {
        let path = self.path;
        self.w
            .finish()
            .map(drop)
            .map_err(|e| io_error(&path, "writing", e))?;
        self.out.commit().map_err(Error::from)
    }

    /// Gives up: the temporary file is removed, and nothing else.
    pub fn abandon(self) {
        drop(self);
    }
}

/// Writes `data` to `path` as [`FileWriter`] does.
pub fn write_file(path: &Path, data: &[u8], inputs: &[&Path]) -> Result<()> {
    store::output::write_file(path, data, inputs).map_err(Error::from)
}

/// The text of `values` (G(start), …) in `format`; `header`: with the CSV
/// or b-file header (the first piece of a longer text).
pub fn render<V: Value>(
    format: &str,
    values: &[V],
    start: u64,
    bfile: &BFileLayout,
    header: bool,
) -> Result<Vec<u8>> {
    let format: Format = format.parse()?;
    let mut w = if header {
        ValueWriter::new(Vec::new(), format, start, bfile.first).bfile(bfile.shift, &bfile.header)
    } else {
        ValueWriter::continuing(Vec::new(), format, start, bfile.first).bfile(bfile.shift, "")
    };
    let written = w.write(values).and_then(|()| w.finish());
    Ok(written.expect("writing to memory"))
}

pub use octal::formats::{bfile_header, first_term};

/// A b-file read back: (its first n, the values).
pub fn read_bfile(path: &Path) -> Result<(u64, Vec<u32>)> {
    let file = File::open(path).map_err(|e| io_error(path, "opening", e))?;
    match formats::read_bfile(BufReader::new(file)) {
        Ok(b) => Ok((b.first, b.values)),
        Err(BFileError::Io(e)) => Err(io_error(path, "reading", e)),
        Err(e) => Err(Error::Value(format!("{}: {e}", path.display()))),
    }
}

/// How a Cookie Cutter position is solved.
pub enum CookiePlan {
    /// G(heap) of an octal game, through the engine.
    Strip { code: Code, heap: u64 },
    /// A nim heap.
    Nim(u64),
    /// The exact search.
    Board {
        cutter: String,
        rows: usize,
        cols: usize,
    },
}

/// Chooses how to solve a k×k cutter (`k`: a count or `inf`) on a board of
/// `rows`×`cols`, as `octal cookie-cutter --k K --grid RxC` does.
pub fn cookie_plan(k: &str, rows: u64, cols: u64) -> Result<CookiePlan> {
    let cutter: Cutter = k.parse()?;
    if rows == 0 || cols == 0 {
        return Err(GameError::BadGrid(format!("{rows}x{cols}")).into());
    }
    Ok(match cookie_cutter::method(cutter, Grid { rows, cols })? {
        Method::Strip { code, heap } => CookiePlan::Strip { code, heap },
        Method::Nim { heap } => CookiePlan::Nim(heap),
        Method::Board { rows, cols } => CookiePlan::Board {
            cutter: cutter.to_string(),
            rows,
            cols,
        },
    })
}

/// The exact search of a Cookie Cutter board, in slices of `slice` until
/// `stop` becomes non-zero (`Ok(None)` then); `meter` counts positions.
pub fn cookie_board(
    cutter: &str,
    rows: usize,
    cols: usize,
    max_positions: usize,
    slice: Duration,
    stop: &AtomicUsize,
    meter: &Meter,
) -> Result<Option<u32>> {
    let mut solver = Solver::new(cutter.parse()?);
    solver.max_positions = max_positions;
    loop {
        if stop.load(Ordering::SeqCst) != 0 {
            return Ok(None);
        }
        // A slice that runs out keeps every part it finished in the memo,
        // so the next one goes on from there.
        match solver.solve(rows, cols, Some(slice)) {
            Ok(v) => return Ok(Some(v)),
            Err(SolveError::Timeout(_)) => meter.set(solver.positions() as u64, 0),
            Err(e @ SolveError::MemoFull(_)) => return Err(Error::Memory(e.to_string())),
            Err(e) => return Err(Error::Value(e.to_string())),
        }
    }
}

/// The code of a directed path under Vertex Deletion's Odd/Odd rule.
pub fn directed_path_code() -> Code {
    vertex_deletion::directed_path_code()
}

/// Parses `"5,8,13"`.
pub fn parse_paths(list: &str) -> Result<Vec<u64>> {
    Ok(vertex_deletion::parse_paths(list)?)
}

/// A digraph of Vertex Deletion, checked for the exact search.
pub struct Graph(Digraph, Variant);

/// Parses an arc list `"0>1,1>2"` with `vertices` (at least those named)
/// under `variant` (`odd-odd` or `even-even`).
pub fn digraph(arcs: &str, vertices: Option<usize>, variant: &str) -> Result<Graph> {
    let variant = variant_of(variant)?;
    Ok(Graph(Digraph::parse_arcs(arcs, vertices)?, variant))
}

pub fn variant_of(s: &str) -> Result<Variant> {
    match s.to_ascii_lowercase().replace('_', "-").as_str() {
        "odd-odd" => Ok(Variant::OddOdd),
        "even-even" => Ok(Variant::EvenEven),
        _ => Err(Error::Value(format!(
            "variant {s:?}: expected \"odd-odd\" or \"even-even\""
        ))),
    }
}

/// True for the Odd/Odd variant (the one directed paths reduce under).
pub fn is_odd_odd(s: &str) -> Result<bool> {
    Ok(variant_of(s)? == Variant::OddOdd)
}

impl Graph {
    /// The Grundy value, by exhaustive search.
    pub fn grundy(&self) -> u32 {
        self.0.grundy(self.1)
    }
}
