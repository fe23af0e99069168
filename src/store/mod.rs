//! Memory-mapped checkpoint stores: an overnight run keeps its values in a
//! file so that Ctrl-C, `kill -9`, a crash or a full disk cost at most the
//! work since the last checkpoint, and `octal resume` continues exactly
//! there. `docs/store.md` describes the layout and argues why a crash at any
//! instant leaves a store that opens with a consistent state.
//!
//! In short: a superblock written once, two alternating header slots (each
//! with a sequence number and its own checksum) and the values, mapped with
//! memmap2. A checkpoint msyncs the values, then writes the slot the current
//! state is *not* in, then fsyncs. Values below a checkpoint's count are
//! never written again, so the older slot always stays usable.

//!
//! Beside the format: [`checkpoint`], what a checkpoint records besides
//! the values (the period detector's state, the slot it came from), and
//! [`seqfile`], the compressed sequence files that `octal export` writes
//! from a store; [`Opened`] reads either kind. The store knows only its
//! files: runs that extend a store are [`crate::run`]'s, checks of one
//! [`crate::verify`]'s.

pub mod checkpoint;
pub mod opened;
pub mod output;
pub mod seqfile;
pub mod stream;

pub use opened::Opened;

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use memmap2::{Mmap, MmapMut, MmapOptions};
use rayon::prelude::*;
use thiserror::Error;

use crate::code::Code;
use crate::seq::{SeqMut, SeqRef};
use crate::stats::{Checksum, Stats};

#[cfg(target_endian = "big")]
compile_error!("stores map little-endian values directly; big-endian hosts are not supported");

/// The first 8 bytes of every store.
pub const MAGIC: &[u8; 8] = b"OCTSTORE";
/// The first 8 bytes of a windowed run's checkpoint. Its format is
/// [`crate::window::file`]'s; stores and sequence files know its magic only
/// to name such a file in their messages.
pub const WINDOW_MAGIC: &[u8; 8] = b"OCTALWN1";

/// Whether `path` starts like a windowed run's checkpoint.
pub fn is_window(path: &Path) -> bool {
    let mut head = [0u8; 8];
    File::open(path).is_ok_and(|f| f.read_exact_at(&mut head, 0).is_ok()) && &head == WINDOW_MAGIC
}

/// The store format this build reads and writes. Version 2 added the store
/// id and the superblock length, and binds every header slot to its
/// superblock; version 1 stores are refused.
pub const VERSION: u32 = 2;
const SLOT_MAGIC: &[u8; 8] = b"OCTSLOT1";
/// The superblock takes a multiple of this many bytes at the start of the
/// file (one page unless the code is very long).
const SUPER_LEN: u64 = 4096;
/// The largest superblock read (codes up to about 16 million characters).
const MAX_SUPER_LEN: u64 = 1 << 24;
/// Bytes of each header slot: the chunk table (8 bytes a chunk) and the
/// period detector's state (one entry per 8192 values) must fit. Slots are
/// left sparse on disk until written.
pub const DEFAULT_SLOT_SIZE: u64 = 64 << 20;
/// Values per checksummed chunk.
pub const DEFAULT_CHUNK_VALUES: u64 = 1 << 16;
/// Space the file grows by at least, in values (when the target allows).
const GROW_MIN: u64 = 1 << 22;
/// Test knob: pretend the disk has this many bytes free when a store grows
/// (docs/store.md).
pub const FAKE_SPACE_ENV: &str = "OCTAL_TEST_AVAILABLE_BYTES";

/// Why a store cannot be opened, read or written.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The OS error is part of the message and deliberately not a
    /// `#[source]`, so that `{:#}` does not print it twice.
    #[error("{path}: {what}: {error}")]
    Io {
        path: PathBuf,
        what: &'static str,
        error: io::Error,
    },
    /// Not what the command reads: says what the file is, if octal's.
    #[error("{}", crate::store::opened::foreign(.0))]
    Foreign(PathBuf),
    /// A file of one of octal's kinds (`kind`: "store", "sequence file",
    /// "window checkpoint") in a format version this octal does not read.
    #[error("{path}: {kind} of format version {found}, but this octal reads only version {reads}; read it with the octal that made it")]
    Version {
        path: PathBuf,
        kind: &'static str,
        found: u32,
        reads: u32,
    },
    #[error("{path}: damaged store: {what}")]
    Damaged { path: PathBuf, what: String },
    #[error("{0}: store is in use by another octal process; wait for it to finish or use another --store")]
    Locked(PathBuf),
    #[error("{0}: in use by another octal process (a run or an export writes it); wait for it to finish or choose another path")]
    InUse(PathBuf),
    #[error("{path} holds the sequence of {found}, not {wanted}; use another --store")]
    WrongCode {
        path: PathBuf,
        found: String,
        wanted: String,
    },
    #[error("{0}: already exists")]
    Exists(PathBuf),
    #[error("the code is too long to store (its superblock would take {0} bytes, at most 16 MiB); use --no-store")]
    CodeTooLong(u64),
    #[error("{path}: refusing to write: it {why}")]
    Output { path: PathBuf, why: String },
    #[error("interrupted; nothing was written")]
    Interrupted(usize),
    #[error("{path}: disk full: growing the store needs {need} more but only {have} is free; the last checkpoint is kept, free some space and run `octal resume {path}`")]
    NoSpace {
        path: PathBuf,
        need: String,
        have: String,
    },
    #[error("{values} values need {need} of disk for a memory-mapped store, but {dir} has only {have} free; a sparse-space game runs in a window of fixed size whatever --to (--window 2^24: 40 MiB)")]
    TooBig {
        values: u64,
        need: String,
        dir: PathBuf,
        have: String,
    },
    #[error("{path}: checkpoint state of {need} bytes does not fit a header slot of {have} bytes")]
    SlotFull {
        path: PathBuf,
        need: usize,
        have: u64,
    },
}

impl StoreError {
    /// A path the user named that is missing, a directory, or not
    /// readable as a file: bad input (exit 2), not a failure.
    pub fn is_input(&self) -> bool {
        match self {
            StoreError::Io { error, what, .. } => {
                *what == "opening"
                    && matches!(
                        error.kind(),
                        io::ErrorKind::NotFound
                            | io::ErrorKind::IsADirectory
                            | io::ErrorKind::PermissionDenied
                    )
            }
            _ => false,
        }
    }

    pub(crate) fn io<'a>(
        path: &'a Path,
        what: &'static str,
    ) -> impl FnOnce(io::Error) -> StoreError + 'a {
        move |error| StoreError::Io {
            path: path.to_owned(),
            what,
            error,
        }
    }

    /// Opens `path` (read-only, or read-write), refusing a directory as
    /// `opening: Is a directory`.
    pub(crate) fn open_file(path: &Path, write: bool) -> Result<File> {
        let file = OpenOptions::new()
            .read(true)
            .write(write)
            .open(path)
            .map_err(StoreError::io(path, "opening"))?;
        match file.metadata() {
            Ok(m) if m.is_dir() => Err(StoreError::io(path, "opening")(
                io::Error::from_raw_os_error(libc::EISDIR),
            )),
            _ => Ok(file),
        }
    }

    pub(crate) fn damaged(path: &Path, what: impl Into<String>) -> StoreError {
        StoreError::Damaged {
            path: path.to_owned(),
            what: what.into(),
        }
    }
}

type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Little-endian encoding of header fields.
#[derive(Default)]
pub(crate) struct Enc(pub Vec<u8>);

impl Enc {
    pub fn u32(&mut self, x: u32) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }
    pub fn u64(&mut self, x: u64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.0.extend_from_slice(b);
    }
}

/// Bounds-checked decoding: `None` means the bytes end too early.
pub(crate) struct Dec<'a> {
    pub b: &'a [u8],
}

impl<'a> Dec<'a> {
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.b.len() {
            return None;
        }
        let (head, rest) = self.b.split_at(n);
        self.b = rest;
        Some(head)
    }
    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

/// The part of the header written once, when the store is created.
#[derive(Debug, Clone)]
struct Superblock {
    /// Bytes the superblock occupies (a multiple of 4096).
    super_len: u64,
    slot_size: u64,
    chunk_values: u64,
    /// Random, chosen at creation: tells this store's slots from another's.
    id: [u8; 16],
    code: Code,
    /// FNV of the encoded superblock; folded into every slot checksum, so
    /// a slot (and its chunk table) only validates under its own
    /// superblock.
    bind: u64,
}

/// 16 random bytes for a store id.
fn new_store_id() -> [u8; 16] {
    use std::hash::{BuildHasher, Hasher};
    let mut id = [0u8; 16];
    let urandom = File::open("/dev/urandom").and_then(|f| f.read_exact_at(&mut id, 0));
    if urandom.is_err() || id == [0; 16] {
        for (i, part) in id.chunks_mut(8).enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            h.write_u32(std::process::id());
            h.write_usize(i);
            part.copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    id
}

impl Superblock {
    fn new(code: &Code, slot_size: u64, chunk_values: u64) -> Superblock {
        let mut sb = Superblock {
            super_len: SUPER_LEN,
            slot_size,
            chunk_values,
            id: new_store_id(),
            code: code.clone(),
            bind: 0,
        };
        let len = sb.encode().len() as u64;
        sb.super_len = len.div_ceil(SUPER_LEN) * SUPER_LEN;
        sb.bind = Checksum::of_bytes(&sb.encode()).0;
        sb
    }

    fn data_offset(&self) -> u64 {
        self.super_len + 2 * self.slot_size
    }

    fn slot_offset(&self, slot: usize) -> u64 {
        self.super_len + slot as u64 * self.slot_size
    }

    /// The bytes on disk, ending with their own FNV.
    fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.0.extend_from_slice(MAGIC);
        e.u32(VERSION);
        e.u64(self.super_len);
        e.u64(self.slot_size);
        e.u64(self.data_offset());
        e.u64(self.chunk_values);
        e.0.extend_from_slice(&self.id);
        e.bytes(self.code.to_string().as_bytes());
        let sum = Checksum::of_bytes(&e.0).0;
        e.u64(sum);
        e.0
    }

    /// The superblock's length, from its first bytes (magic and version
    /// checked), so that the caller can read all of it.
    fn peek_len(path: &Path, b: &[u8]) -> Result<u64> {
        if b.len() < 8 || &b[..8] != MAGIC {
            return Err(StoreError::Foreign(path.to_owned()));
        }
        let bad = |what: &str| StoreError::damaged(path, format!("superblock {what}"));
        let mut d = Dec { b: &b[8..] };
        let version = d.u32().ok_or_else(|| bad("is truncated"))?;
        if version != VERSION {
            return Err(StoreError::Version {
                path: path.to_owned(),
                kind: "store",
                found: version,
                reads: VERSION,
            });
        }
        let len = d.u64().ok_or_else(|| bad("is truncated"))?;
        if len == 0 || len % SUPER_LEN != 0 || len > MAX_SUPER_LEN {
            return Err(bad("has an impossible length"));
        }
        Ok(len)
    }

    fn decode(path: &Path, b: &[u8]) -> Result<Superblock> {
        let super_len = Superblock::peek_len(path, b)?;
        let bad = |what: &str| StoreError::damaged(path, format!("superblock {what}"));
        let mut d = Dec { b: &b[20..] };
        let mut field = || d.u64().ok_or_else(|| bad("is truncated"));
        let (slot_size, data_offset, chunk_values) = (field()?, field()?, field()?);
        let id: [u8; 16] = d
            .take(16)
            .ok_or_else(|| bad("is truncated"))?
            .try_into()
            .expect("16 bytes");
        let code = d.bytes().ok_or_else(|| bad("is truncated"))?;
        let end = b.len() - d.b.len();
        let sum = d.u64().ok_or_else(|| bad("is truncated"))?;
        if end as u64 + 8 > super_len {
            return Err(bad("is longer than its recorded length"));
        }
        if Checksum::of_bytes(&b[..end]).0 != sum {
            return Err(bad("checksum mismatch"));
        }
        let code = std::str::from_utf8(code)
            .ok()
            .and_then(|s| s.parse::<Code>().ok())
            .ok_or_else(|| bad("holds no valid code"))?;
        let sb = Superblock {
            super_len,
            slot_size,
            chunk_values,
            id,
            code,
            bind: Checksum::of_bytes(&b[..end + 8]).0,
        };
        if !(4096..=1 << 30).contains(&slot_size) || chunk_values == 0 {
            return Err(bad("has impossible sizes"));
        }
        if sb.data_offset() != data_offset {
            return Err(bad("data offset disagrees with its slot size"));
        }
        Ok(sb)
    }
}

/// Everything a checkpoint records besides the values themselves.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    /// G(0), …, G(good−1) are known and durable.
    pub good: u64,
    /// How far the run was asked to go (`resume` continues to here).
    pub target: u64,
    /// Bytes per stored value: 2 (u16) or 4 (u32).
    pub width: u8,
    /// Compute time spent on this sequence, over all sessions.
    pub seconds: f64,
    /// Statistics of G(0..good), including the whole-sequence checksum.
    pub stats: Stats,
    /// Name of the engine that wrote the last values (informational).
    pub engine: String,
    /// Opaque engine state (empty: the engines rebuild from the values).
    pub engine_state: Vec<u8>,
    /// Opaque period-detector state (serialised by the run loop).
    pub period_state: Vec<u8>,
    /// FNV-1a-64 of each chunk of `chunk_values` values (as LE u32); the
    /// last one covers the partial chunk up to `good`. Filled by the store.
    pub chunks: Vec<u64>,
}

impl Checkpoint {
    /// An empty sequence.
    pub fn empty(target: u64, width: u8) -> Checkpoint {
        Checkpoint {
            good: 0,
            target,
            width,
            seconds: 0.0,
            stats: Stats::default(),
            engine: String::new(),
            engine_state: Vec::new(),
            period_state: Vec::new(),
            chunks: Vec::new(),
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.u64(self.good);
        e.u64(self.target);
        e.u32(self.width as u32);
        e.u64(self.seconds.to_bits());
        let s = &self.stats;
        e.u64(s.values);
        e.u32(s.max_value);
        e.u64(s.first_max_at);
        e.u64(s.zeros);
        e.u32(s.last_value);
        e.u64(s.checksum.0);
        e.bytes(self.engine.as_bytes());
        e.bytes(&self.engine_state);
        e.bytes(&self.period_state);
        e.u64(self.chunks.len() as u64);
        for &c in &self.chunks {
            e.u64(c);
        }
        e.0
    }

    fn decode(b: &[u8]) -> Option<Checkpoint> {
        let mut d = Dec { b };
        let good = d.u64()?;
        let target = d.u64()?;
        let width = d.u32()?;
        let seconds = f64::from_bits(d.u64()?);
        let stats = Stats {
            values: d.u64()?,
            max_value: d.u32()?,
            first_max_at: d.u64()?,
            zeros: d.u64()?,
            last_value: d.u32()?,
            checksum: Checksum(d.u64()?),
        };
        let engine = String::from_utf8(d.bytes()?.to_vec()).ok()?;
        let engine_state = d.bytes()?.to_vec();
        let period_state = d.bytes()?.to_vec();
        let n = d.u64()?;
        if n > d.b.len() as u64 / 8 {
            return None;
        }
        let chunks = (0..n).map(|_| d.u64()).collect::<Option<Vec<u64>>>()?;
        if !d.b.is_empty() || !(width == 2 || width == 4) {
            return None;
        }
        Some(Checkpoint {
            good,
            target,
            width: width as u8,
            seconds,
            stats,
            engine,
            engine_state,
            period_state,
            chunks,
        })
    }
}

/// FNV-1a-64 of a slot's bytes, bound to the superblock: the superblock's
/// own checksum (which covers the store id) is hashed first.
fn slot_sum(bind: u64, bytes: &[u8]) -> u64 {
    let mut c = Checksum::default();
    c.push_bytes(&bind.to_le_bytes());
    c.push_bytes(bytes);
    c.0
}

/// A slot on disk: magic, sequence number, body length, body, and the
/// bound FNV-1a-64 of all that.
fn encode_slot(bind: u64, seq: u64, body: &[u8]) -> Vec<u8> {
    let mut e = Enc::default();
    e.0.extend_from_slice(SLOT_MAGIC);
    e.u64(seq);
    e.u64(body.len() as u64);
    e.0.extend_from_slice(body);
    let sum = slot_sum(bind, &e.0);
    e.u64(sum);
    e.0
}

/// Reads and checks one slot; `Err` says what is wrong with it.
fn read_slot(file: &File, sb: &Superblock, slot: usize) -> Result<(u64, Checkpoint), String> {
    let at = sb.slot_offset(slot);
    let mut head = [0u8; 24];
    file.read_exact_at(&mut head, at)
        .map_err(|e| format!("unreadable ({e})"))?;
    if head.iter().all(|&b| b == 0) {
        return Err("empty".into());
    }
    if &head[..8] != SLOT_MAGIC {
        return Err("bad magic".into());
    }
    let seq = u64::from_le_bytes(head[8..16].try_into().unwrap());
    let len = u64::from_le_bytes(head[16..24].try_into().unwrap());
    if len > sb.slot_size - 32 {
        return Err("impossible length".into());
    }
    let mut all = vec![0u8; 24 + len as usize + 8];
    file.read_exact_at(&mut all, at)
        .map_err(|e| format!("unreadable ({e})"))?;
    let (body, sum) = all.split_at(24 + len as usize);
    if slot_sum(sb.bind, body) != u64::from_le_bytes(sum.try_into().unwrap()) {
        return Err("checksum mismatch (damaged, or from another store)".into());
    }
    let cp = Checkpoint::decode(&body[24..]).ok_or("undecodable body")?;
    if cp.stats.values != cp.good
        || cp.good > cp.target.max(cp.good)
        || cp.chunks.len() as u64 != cp.good.div_ceil(sb.chunk_values)
    {
        return Err("inconsistent fields".into());
    }
    Ok((seq, cp))
}

enum Map {
    None,
    Ro(Mmap),
    Rw(MmapMut),
}

impl Map {
    fn bytes(&self) -> &[u8] {
        match self {
            Map::None => &[],
            Map::Ro(m) => m,
            Map::Rw(m) => m,
        }
    }
}

/// A chunk whose values do not match their checksum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadChunk {
    pub chunk: u64,
    pub from: u64,
    pub to: u64,
}

/// An open store: the latest good checkpoint and the mapped values.
pub struct Store {
    path: PathBuf,
    file: File,
    sb: Superblock,
    cp: Checkpoint,
    /// The slot holding `cp`; the next checkpoint goes to the other one.
    slot: usize,
    seq: u64,
    /// What was wrong with the slot not used, if anything.
    other_slot: Option<String>,
    map: Map,
    /// Values the file has room for at the current width.
    capacity: u64,
}

fn parent(path: &Path) -> PathBuf {
    output::dir_of(path)
}

/// Free bytes on the filesystem that holds (or will hold) `path`.
fn available_space(path: &Path) -> Option<u64> {
    let dir = parent(path);
    let existing = dir
        .ancestors()
        .find(|d| d.is_dir())
        .unwrap_or(Path::new("."));
    fs2::available_space(existing).ok()
}

/// Free bytes for growing a store: the test override, else the truth.
fn space_to_grow(path: &Path) -> Option<u64> {
    std::env::var(FAKE_SPACE_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .or_else(|| available_space(path))
}

/// Refuses up front a target whose values cannot fit on the disk holding
/// `path` (a store there, or one to be created, of `width`-byte values).
pub fn check_space(path: &Path, target: u64, width: u64) -> Result<()> {
    let have_now = fs::metadata(path).map_or(0, |m| m.len());
    let need = target
        .saturating_mul(width)
        .saturating_sub(have_now.saturating_sub(SUPER_LEN + 2 * DEFAULT_SLOT_SIZE));
    // (A long code's superblock is a few pages more: noise here.)
    match available_space(path) {
        Some(have) if have < need => Err(StoreError::TooBig {
            values: target,
            need: human_bytes(need),
            dir: parent(path),
            have: human_bytes(have),
        }),
        _ => Ok(()),
    }
}

impl Store {
    /// Creates a new, empty store for `code` at `path` (which must not
    /// exist), locked for writing.
    pub fn create(path: &Path, code: &Code, target: u64, chunk_values: u64) -> Result<Store> {
        let cp = Checkpoint::empty(target, 2);
        Store::create_with(path, code, chunk_values, cp, |_| Ok(()))
    }

    /// Creates a store at `path` (which must not exist) holding checkpoint
    /// `cp`, whose `cp.good` values `fill` writes. Nothing appears at
    /// `path` unless all of it is durable.
    pub fn create_with(
        path: &Path,
        code: &Code,
        chunk_values: u64,
        cp: Checkpoint,
        fill: impl FnOnce(SeqMut<'_>) -> Result<()>,
    ) -> Result<Store> {
        if path.exists() {
            return Err(StoreError::Exists(path.to_owned()));
        }
        let sb = Superblock::new(code, DEFAULT_SLOT_SIZE, chunk_values.max(1));
        if sb.super_len > MAX_SUPER_LEN {
            return Err(StoreError::CodeTooLong(sb.super_len));
        }
        if output::PathLock::held(path) {
            // A windowed run is starting at this path.
            return Err(StoreError::Locked(path.to_owned()));
        }
        let (mut store, tmp) = Store::write_new(path, sb, cp, 0, fill)?;
        // A hard link fails if `path` appeared meanwhile: never clobber.
        let linked = fs::hard_link(&tmp, path);
        drop(tmp);
        match linked {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Err(StoreError::Exists(path.to_owned()))
            }
            r => r.map_err(StoreError::io(path, "creating"))?,
        }
        output::sync_dir(path)?;
        store.path = path.to_owned();
        Ok(store)
    }

    /// Writes a complete store in a new temporary file beside `path`:
    /// superblock, `cp` in slot 0 and values filled in by `fill` (given
    /// `g[..cp.good]`), all durable. The temporary file goes when its
    /// [`tempfile::TempPath`] is dropped.
    fn write_new(
        path: &Path,
        sb: Superblock,
        cp: Checkpoint,
        seq: u64,
        fill: impl FnOnce(SeqMut<'_>) -> Result<()>,
    ) -> Result<(Store, tempfile::TempPath)> {
        let (file, tmp_path) = output::temp_beside(path, "")?.into_parts();
        let tmp: &Path = &tmp_path;
        file.try_lock()
            .map_err(|_| StoreError::Locked(tmp.to_owned()))?;
        let head = sb.encode();
        let mut store = Store {
            path: tmp.to_owned(),
            file,
            sb,
            cp: Checkpoint::empty(cp.target, cp.width),
            slot: 1,
            seq,
            other_slot: None,
            map: Map::None,
            capacity: 0,
        };
        let written = (|| {
            // The header region stays sparse; slots are written with
            // pwrite, which fails cleanly (ENOSPC) on a full disk.
            store
                .file
                .set_len(store.sb.data_offset())
                .map_err(StoreError::io(tmp, "sizing"))?;
            store
                .file
                .write_all_at(&head, 0)
                .map_err(StoreError::io(tmp, "writing superblock"))?;
            if cp.good > 0 {
                store.grow_to(cp.good)?;
                fill(store.lend_exact(cp.good))?;
            }
            // Both slots hold a checkpoint from the start, so an empty or
            // unreadable slot always means a lost checkpoint.
            store.commit(cp.clone())?;
            store.commit(cp)
        })();
        written?;
        Ok((store, tmp_path))
    }

    /// Opens an existing store; `write` takes the writer's lock.
    pub fn open(path: &Path, write: bool) -> Result<Store> {
        let file = Store::open_file(path, write)?;
        let len = file
            .metadata()
            .map_err(StoreError::io(path, "reading metadata"))?
            .len();
        let mut head = vec![0u8; SUPER_LEN.min(len) as usize];
        file.read_exact_at(&mut head, 0)
            .map_err(StoreError::io(path, "reading superblock"))?;
        let super_len = Superblock::peek_len(path, &head)?;
        if super_len > SUPER_LEN {
            if len < super_len {
                return Err(StoreError::damaged(path, "superblock is truncated"));
            }
            head = vec![0u8; super_len as usize];
            file.read_exact_at(&mut head, 0)
                .map_err(StoreError::io(path, "reading superblock"))?;
        }
        let sb = Superblock::decode(path, &head)?;
        let data_offset = sb.data_offset();
        if len < data_offset {
            return Err(StoreError::damaged(
                path,
                format!(
                    "truncated: the file has {len} bytes, its headers alone need {data_offset}"
                ),
            ));
        }
        let slots = [read_slot(&file, &sb, 0), read_slot(&file, &sb, 1)];
        let best = match (&slots[0], &slots[1]) {
            (Ok((a, _)), Ok((b, _))) => usize::from(b > a),
            (Ok(_), Err(_)) => 0,
            (Err(_), Ok(_)) => 1,
            (Err(a), Err(b)) => {
                return Err(StoreError::damaged(
                    path,
                    format!("no valid checkpoint (header slot 0: {a}; header slot 1: {b})"),
                ))
            }
        };
        let other_slot = slots[1 - best].as_ref().err().cloned();
        let [s0, s1] = slots;
        let (seq, cp) = if best == 0 { s0 } else { s1 }.expect("checked above");
        let need = data_offset + cp.good * cp.width as u64;
        if len < need {
            return Err(StoreError::damaged(
                path,
                format!(
                    "truncated: the file has {len} bytes, but its checkpoint of {} values needs {need}",
                    cp.good
                ),
            ));
        }
        let capacity = (len - data_offset) / cp.width as u64;
        let mut store = Store {
            path: path.to_owned(),
            file,
            sb,
            cp,
            slot: best,
            seq,
            other_slot,
            map: Map::None,
            capacity: 0,
        };
        store.map(capacity, write)?;
        if write {
            output::remove_stale_temps(path);
        }
        Ok(store)
    }

    fn open_file(path: &Path, write: bool) -> Result<File> {
        // A writer that widens the store renames a new file over `path`;
        // make sure the locked file is the one `path` names.
        for _ in 0..10 {
            let file = StoreError::open_file(path, write)?;
            if !write {
                return Ok(file);
            }
            file.try_lock()
                .map_err(|_| StoreError::Locked(path.to_owned()))?;
            let same = match (file.metadata(), fs::metadata(path)) {
                (Ok(a), Ok(b)) => output::same_file(&a, &b),
                _ => false,
            };
            if same {
                if output::PathLock::held(path) {
                    // A windowed run or an export writes this path.
                    return Err(StoreError::Locked(path.to_owned()));
                }
                return Ok(file);
            }
        }
        Err(StoreError::Locked(path.to_owned()))
    }

    /// Opens `path` for writing if it exists, after checking it holds
    /// `code`; otherwise creates it. The bool says whether it existed.
    pub fn open_or_create(
        path: &Path,
        code: &Code,
        target: u64,
        chunk_values: u64,
    ) -> Result<(Store, bool)> {
        if path.exists() {
            let store = Store::open(path, true)?;
            if store.code() != code {
                return Err(StoreError::WrongCode {
                    path: path.to_owned(),
                    found: store.code().to_string(),
                    wanted: code.to_string(),
                });
            }
            return Ok((store, true));
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(StoreError::io(dir, "creating directory"))?;
        }
        Ok((Store::create(path, code, target, chunk_values)?, false))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
    pub fn code(&self) -> &Code {
        &self.sb.code
    }
    pub fn checkpoint(&self) -> &Checkpoint {
        &self.cp
    }
    pub fn good(&self) -> u64 {
        self.cp.good
    }
    pub fn width(&self) -> usize {
        self.cp.width as usize
    }
    /// Sets the target the file grows towards (recorded at the next
    /// checkpoint).
    pub fn set_target(&mut self, target: u64) {
        self.cp.target = target;
    }

    /// Where the values start in the file.
    pub fn data_offset(&self) -> u64 {
        self.sb.data_offset()
    }
    pub fn chunk_values(&self) -> u64 {
        self.sb.chunk_values
    }
    /// The slot holding the current checkpoint and what was wrong with the
    /// other one (a torn write or damage), if anything.
    pub fn slots(&self) -> (usize, Option<&str>) {
        (self.slot, self.other_slot.as_deref())
    }

    fn map(&mut self, capacity: u64, write: bool) -> Result<()> {
        self.map = Map::None;
        self.capacity = capacity;
        if capacity == 0 {
            return Ok(());
        }
        let len = usize::try_from(capacity * self.cp.width as u64)
            .map_err(|_| StoreError::damaged(&self.path, "too large to map"))?;
        let mut opts = MmapOptions::new();
        opts.offset(self.sb.data_offset()).len(len);
        // SAFETY: the writer holds the lock; readers only look below the
        // checkpoint, which no one writes again.
        self.map = unsafe {
            if write {
                opts.map_mut(&self.file).map(Map::Rw)
            } else {
                opts.map(&self.file).map(Map::Ro)
            }
        }
        .map_err(StoreError::io(&self.path, "mapping values"))?;
        Ok(())
    }

    /// Refuses a file now shorter than the values `g[..to]` it held when
    /// mapped (cut short by another program while open): reading the map
    /// there would fault (SIGBUS) instead of failing.
    pub fn check_length(&self, to: u64) -> Result<()> {
        let len = self
            .file
            .metadata()
            .map_err(StoreError::io(&self.path, "reading metadata"))?
            .len();
        let need = self.data_offset() + to * self.cp.width as u64;
        if len < need {
            return Err(StoreError::damaged(
                &self.path,
                format!("cut short to {len} bytes while open (its values need {need}); reopen it"),
            ));
        }
        Ok(())
    }

    /// Values `g[from..to]` (`to` at most the capacity).
    pub fn view(&self, from: u64, to: u64) -> SeqRef<'_> {
        let w = self.cp.width as usize;
        if from == to {
            // Nothing mapped, or an empty range: no pointer to align.
            return if w == 2 {
                SeqRef::U16(&[])
            } else {
                SeqRef::U32(&[])
            };
        }
        let bytes = &self.map.bytes()[from as usize * w..to as usize * w];
        match w {
            2 => SeqRef::U16(bytemuck::cast_slice(bytes)),
            _ => SeqRef::U32(bytemuck::cast_slice(bytes)),
        }
    }

    /// The writable `g[..end]`, growing the file first if needed.
    pub fn lend(&mut self, end: u64) -> Result<SeqMut<'_>> {
        if end > self.capacity {
            self.grow_to(end)?;
        }
        Ok(self.lend_exact(end))
    }

    fn lend_exact(&mut self, end: u64) -> SeqMut<'_> {
        let w = self.cp.width as usize;
        let Map::Rw(m) = &mut self.map else {
            unreachable!("lend on a store opened read-only")
        };
        let bytes = &mut m[..end as usize * w];
        match w {
            2 => SeqMut::U16(bytemuck::cast_slice_mut(bytes)),
            _ => SeqMut::U32(bytemuck::cast_slice_mut(bytes)),
        }
    }

    /// Makes the file `len` bytes long with its blocks allocated, so that
    /// writing through the map can never hit a full disk (SIGBUS).
    fn reserve_file(&self, len: u64) -> Result<()> {
        let old = self
            .file
            .metadata()
            .map_err(StoreError::io(&self.path, "reading metadata"))?
            .len();
        if len <= old {
            return Ok(());
        }
        let no_space = |have: u64| StoreError::NoSpace {
            path: self.path.clone(),
            need: human_bytes(len - old),
            have: human_bytes(have),
        };
        if let Some(have) = space_to_grow(&self.path) {
            if have < len - old {
                return Err(no_space(have));
            }
        }
        use std::os::fd::AsRawFd;
        // SAFETY: a plain fallocate(2) on our own open descriptor.
        let r = unsafe {
            libc::fallocate(
                self.file.as_raw_fd(),
                0,
                old as libc::off_t,
                (len - old) as libc::off_t,
            )
        };
        if r == 0 {
            return Ok(());
        }
        match io::Error::last_os_error() {
            e if e.raw_os_error() == Some(libc::ENOSPC) => {
                Err(no_space(space_to_grow(&self.path).unwrap_or(0)))
            }
            // Filesystems without fallocate: a plain (sparse) extension.
            _ => self
                .file
                .set_len(len)
                .map_err(StoreError::io(&self.path, "growing")),
        }
    }

    /// Grows room to at least `end` values, in generous steps up to the
    /// target.
    fn grow_to(&mut self, end: u64) -> Result<()> {
        let step = (self.capacity / 2).max(GROW_MIN);
        let want = end.max((self.capacity + step).min(self.cp.target));
        self.reserve_file(self.sb.data_offset() + want * self.cp.width as u64)?;
        self.map(want, true)
    }

    /// Checksums of chunks `chunks` of `g[..good]`, in parallel.
    fn sums(&self, chunks: std::ops::Range<u64>, good: u64) -> Vec<u64> {
        let c = self.sb.chunk_values;
        chunks
            .into_par_iter()
            .map(|i| self.view(i * c, ((i + 1) * c).min(good)).checksum().0)
            .collect()
    }

    /// Chunk checksums of `g[..good]`, reusing the complete chunks of the
    /// current checkpoint.
    fn chunk_sums(&self, good: u64) -> Vec<u64> {
        let c = self.sb.chunk_values;
        let keep = (self.cp.good / c)
            .min(self.cp.chunks.len() as u64)
            .min(good / c);
        let mut sums = self.cp.chunks[..keep as usize].to_vec();
        sums.extend(self.sums(keep..good.div_ceil(c), good));
        sums
    }

    /// Makes `g[..next.good]` durable and records `next` as the current
    /// checkpoint: msync the values, fdatasync, write the other slot,
    /// fdatasync. `next.chunks` is filled in here.
    pub fn commit(&mut self, mut next: Checkpoint) -> Result<()> {
        assert_eq!(next.width, self.cp.width, "width changes go through widen");
        assert!(next.good <= self.capacity && next.stats.values == next.good);
        let io = |what| StoreError::io(&self.path, what);
        if let Map::Rw(m) = &self.map {
            m.flush().map_err(io("flushing values"))?;
        }
        self.file.sync_data().map_err(io("syncing values"))?;
        next.chunks = self.chunk_sums(next.good);
        let slot = encode_slot(self.sb.bind, self.seq + 1, &next.encode());
        if slot.len() as u64 > self.sb.slot_size {
            return Err(StoreError::SlotFull {
                path: self.path.clone(),
                need: slot.len(),
                have: self.sb.slot_size,
            });
        }
        let other = 1 - self.slot;
        self.file
            .write_all_at(&slot, self.sb.slot_offset(other))
            .map_err(io("writing checkpoint"))?;
        self.file.sync_data().map_err(io("syncing checkpoint"))?;
        self.slot = other;
        self.seq += 1;
        self.cp = next;
        self.other_slot = None;
        Ok(())
    }

    /// Switches to u32 values at checkpoint `next` (whose `good` values are
    /// in the map): writes a complete u32 copy next to the store, then
    /// renames it over the store, so a crash leaves one or the other.
    pub fn widen(&mut self, mut next: Checkpoint) -> Result<()> {
        assert_eq!(self.cp.width, 2, "only u16 stores widen");
        let at = next.good;
        next.width = 4;
        let src = match self.view(0, at) {
            SeqRef::U16(v) => v,
            SeqRef::U32(_) => unreachable!(),
        };
        let (mut new, tmp) =
            Store::write_new(&self.path, self.sb.clone(), next, self.seq, |dst| {
                if let SeqMut::U32(dst) = dst {
                    dst.par_chunks_mut(1 << 20)
                        .zip(src.par_chunks(1 << 20))
                        .for_each(|(d, s)| d.iter_mut().zip(s).for_each(|(d, &s)| *d = s as u32));
                }
                Ok(())
            })?;
        tmp.persist(&self.path)
            .map_err(|e| StoreError::io(&self.path, "replacing with the widened store")(e.error))?;
        output::sync_dir(&self.path)?;
        new.path = self.path.clone();
        *self = new;
        Ok(())
    }

    /// Chunks overlapping `g[from..to]` whose values no longer match the
    /// checkpoint's checksums (`to` at most `good`).
    pub fn bad_chunks_in(&self, from: u64, to: u64) -> Vec<BadChunk> {
        let c = self.sb.chunk_values;
        let good = self.cp.good;
        let first = from / c;
        let sums = self.sums(first..to.min(good).div_ceil(c), good);
        (first..)
            .zip(sums)
            .filter(|&(i, sum)| self.cp.chunks.get(i as usize) != Some(&sum))
            .map(|(i, _)| BadChunk {
                chunk: i,
                from: i * c,
                to: ((i + 1) * c).min(good),
            })
            .collect()
    }

    /// Every damaged chunk.
    pub fn bad_chunks(&self) -> Vec<BadChunk> {
        self.bad_chunks_in(0, self.cp.good)
    }

    /// Fails with a one-line error naming the first damaged chunk of
    /// `g[from..to]`.
    pub fn check_chunks_in(&self, from: u64, to: u64) -> Result<()> {
        match self.bad_chunks_in(from, to).first() {
            None => Ok(()),
            Some(b) => Err(StoreError::damaged(
                &self.path,
                format!(
                    "values {}..{} (chunk {}) do not match their checksum; `octal verify {}` lists all damage",
                    b.from,
                    b.to,
                    b.chunk,
                    self.path.display()
                ),
            )),
        }
    }

    /// [`check_chunks_in`](Store::check_chunks_in) over all values.
    pub fn check_chunks(&self) -> Result<()> {
        self.check_chunks_in(0, self.cp.good)
    }

    /// Statistics of `g[..to]`, recomputed from the values.
    pub fn stats_of(&self, to: u64) -> Stats {
        let mut stats = Stats::default();
        let step = 1 << 20;
        let mut at = 0;
        while at < to {
            let end = (at + step).min(to);
            self.view(at, end).push_stats(&mut stats);
            at = end;
        }
        stats
    }
}

/// Human-readable byte counts ("1.5 GiB").
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}
