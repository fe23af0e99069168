//! Compressed sequence files: a sequence to keep or share, zstd-compressed
//! in frames with an index so that any range reads without decompressing
//! the rest. `octal export` writes them from a store, `octal import` turns
//! them back into a store, and `values` and `verify` read them. The layout
//! is in docs/store.md.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::kind::kind_of;
pub use super::kind::Kind;
use crate::code::Code;
use crate::seq::{Seq, SeqMut, SeqRef};
use crate::stats::{Checksum, Stats};
use crate::store::{Checkpoint, Dec, Enc, Store, StoreError};

/// The first 8 bytes of a sequence file.
pub use super::kind::SEQ_MAGIC as MAGIC;
const TRAILER_MAGIC: &[u8; 8] = b"OCTSEQZE";
pub const VERSION: u32 = 1;
/// Values per zstd frame.
pub const DEFAULT_FRAME_VALUES: u64 = 1 << 20;
const TRAILER_LEN: u64 = 32;
const INDEX_ENTRY: u64 = 24;

/// The self-describing JSON header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always "octal-sequence".
    pub format: String,
    pub version: u32,
    pub code: String,
    /// G(0) … G(count−1) are in the file.
    pub count: u64,
    /// Bytes per value inside the frames (2: u16 LE, 4: u32 LE).
    pub width: u8,
    pub frame_values: u64,
    /// FNV-1a-64 of all values as LE u32, as in `octal run`'s summary.
    pub checksum: String,
    pub max_value: u32,
    pub first_max_at: u64,
    pub zeros: u64,
    pub last_value: u32,
    /// The proven period, when the store's detector had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<serde_json::Value>,
}

impl Header {
    /// The header of a file of `count` values of `code`, whose statistics
    /// are `stats`, with the proven `period` if any.
    pub fn new(
        code: String,
        count: u64,
        width: u8,
        frame_values: u64,
        stats: &Stats,
        period: Option<crate::period::Period>,
    ) -> Header {
        Header {
            format: "octal-sequence".into(),
            version: VERSION,
            code,
            count,
            width,
            frame_values,
            checksum: stats.checksum.hex(),
            max_value: stats.max_value,
            first_max_at: stats.first_max_at,
            zeros: stats.zeros,
            last_value: stats.last_value,
            period: period.map(|p| serde_json::to_value(p).expect("a period serialises")),
        }
    }
}

/// The file's head: magic, version, the JSON header (padded with spaces
/// to at least `pad` bytes, so that a file written as it grows can put
/// its final header in the room it kept) and the header's checksum.
pub(crate) fn encode_head(header: &Header, pad: usize) -> Vec<u8> {
    let mut json = serde_json::to_vec(header).expect("header serialises");
    if json.len() < pad {
        json.resize(pad, b' ');
    }
    let mut head = Enc::default();
    head.0.extend_from_slice(MAGIC);
    head.u32(VERSION);
    head.u32(json.len() as u32);
    head.0.extend_from_slice(&json);
    head.u64(Checksum::of_bytes(&json).0);
    head.0
}

/// The trailer after the index (`n` entries, starting at `index_at`).
pub(crate) fn encode_tail(index_at: u64, n: u64, index: &[u8]) -> Vec<u8> {
    let mut t = Enc::default();
    t.u64(index_at);
    t.u64(n);
    t.u64(Checksum::of_bytes(index).0);
    t.0.extend_from_slice(TRAILER_MAGIC);
    t.0
}

/// One frame: where it is and the checksum of its values.
#[derive(Debug, Clone, Copy)]
struct Frame {
    offset: u64,
    len: u64,
    checksum: u64,
}

/// An open sequence file.
pub struct SeqFile {
    path: PathBuf,
    file: File,
    header: Header,
    code: Code,
    frames: Vec<Frame>,
    /// The frame decompressed last, so that reading a range piece by piece
    /// (as plots do) decompresses each frame once.
    last: std::sync::Mutex<Option<(usize, std::sync::Arc<Seq>)>>,
}

/// `Some(kind)` if `path` is a file starting with a store's or a sequence
/// file's magic, `None` if it is another file; errors if unreadable.
pub fn detect(path: &Path) -> Result<Option<Kind>, StoreError> {
    let file = StoreError::open_file(path, false)?;
    let mut magic = [0u8; 8];
    if file.read_exact_at(&mut magic, 0).is_err() {
        return Ok(None);
    }
    Ok(kind_of(&magic))
}

fn seq_from_bytes(width: u8, bytes: &[u8]) -> Seq {
    if width == 2 {
        Seq::U16(
            bytes
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                .collect(),
        )
    } else {
        Seq::U32(
            bytes
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        )
    }
}

impl SeqFile {
    pub fn open(path: &Path) -> Result<SeqFile, StoreError> {
        let file = StoreError::open_file(path, false)?;
        let len = file
            .metadata()
            .map_err(StoreError::io(path, "reading metadata"))?
            .len();
        let mut head = [0u8; 16];
        if file.read_exact_at(&mut head, 0).is_err() || &head[..8] != MAGIC {
            return Err(StoreError::Foreign(path.to_owned()));
        }
        let mut d = Dec { b: &head[8..] };
        let (version, hlen) = (d.u32().unwrap(), d.u32().unwrap() as u64);
        if version != VERSION {
            return Err(StoreError::Version {
                path: path.to_owned(),
                kind: "sequence file",
                found: version,
                reads: VERSION,
            });
        }
        if 16 + hlen + 8 + TRAILER_LEN > len {
            return Err(StoreError::damaged(path, format!("truncated: {len} bytes")));
        }
        let mut h = vec![0u8; hlen as usize + 8];
        file.read_exact_at(&mut h, 16)
            .map_err(StoreError::io(path, "reading header"))?;
        let (json, sum) = h.split_at(hlen as usize);
        if Checksum::of_bytes(json).0 != u64::from_le_bytes(sum.try_into().unwrap()) {
            return Err(StoreError::damaged(path, "header checksum mismatch"));
        }
        let header: Header = serde_json::from_slice(json)
            .map_err(|e| StoreError::damaged(path, format!("unreadable header ({e})")))?;
        let code = header
            .code
            .parse::<Code>()
            .map_err(|e| StoreError::damaged(path, format!("header code: {e}")))?;
        if !(header.width == 2 || header.width == 4) || header.frame_values == 0 {
            return Err(StoreError::damaged(path, "impossible header fields"));
        }
        let mut t = [0u8; TRAILER_LEN as usize];
        file.read_exact_at(&mut t, len - TRAILER_LEN)
            .map_err(StoreError::io(path, "reading trailer"))?;
        if &t[24..] != TRAILER_MAGIC {
            return Err(StoreError::damaged(
                path,
                "truncated or damaged: no trailer at the end",
            ));
        }
        let mut d = Dec { b: &t };
        let (index_at, n, index_sum) = (d.u64().unwrap(), d.u64().unwrap(), d.u64().unwrap());
        let data_start = 16 + hlen + 8;
        if n != header.count.div_ceil(header.frame_values)
            || index_at < data_start
            || n.checked_mul(INDEX_ENTRY)
                .and_then(|b| b.checked_add(index_at))
                != Some(len - TRAILER_LEN)
        {
            return Err(StoreError::damaged(path, "index does not fit the file"));
        }
        let mut index = vec![0u8; (n * INDEX_ENTRY) as usize];
        file.read_exact_at(&mut index, index_at)
            .map_err(StoreError::io(path, "reading index"))?;
        if Checksum::of_bytes(&index).0 != index_sum {
            return Err(StoreError::damaged(path, "index checksum mismatch"));
        }
        let mut d = Dec { b: &index };
        let frames: Vec<Frame> = (0..n)
            .map(|_| Frame {
                offset: d.u64().unwrap(),
                len: d.u64().unwrap(),
                checksum: d.u64().unwrap(),
            })
            .collect();
        if frames
            .iter()
            .any(|f| f.offset < data_start || f.offset.saturating_add(f.len) > index_at)
        {
            return Err(StoreError::damaged(path, "index points outside the frames"));
        }
        Ok(SeqFile {
            path: path.to_owned(),
            file,
            header,
            code,
            frames,
            last: std::sync::Mutex::new(None),
        })
    }

    /// Frame `i`, from the one-frame cache or decompressed (and checked).
    fn cached_frame(&self, i: usize) -> Result<std::sync::Arc<Seq>, StoreError> {
        if let Ok(last) = self.last.lock() {
            if let Some((j, seq)) = &*last {
                if *j == i {
                    return Ok(seq.clone());
                }
            }
        }
        let seq = std::sync::Arc::new(self.frame(i)?);
        if let Ok(mut last) = self.last.lock() {
            *last = Some((i, seq.clone()));
        }
        Ok(seq)
    }

    pub fn header(&self) -> &Header {
        &self.header
    }
    pub fn code(&self) -> &Code {
        &self.code
    }
    pub fn count(&self) -> u64 {
        self.header.count
    }
    pub fn path(&self) -> &Path {
        &self.path
    }
    pub fn frames(&self) -> usize {
        self.frames.len()
    }
    /// The index entries: each frame's offset, length and checksum.
    pub(crate) fn index_entries(&self) -> Vec<[u64; 3]> {
        self.frames
            .iter()
            .map(|f| [f.offset, f.len, f.checksum])
            .collect()
    }

    /// Values `from..to` of frame `i`.
    fn frame_range(&self, i: usize) -> (u64, u64) {
        let f = self.header.frame_values;
        (i as u64 * f, ((i as u64 + 1) * f).min(self.header.count))
    }

    /// Frame `i`, decompressed and checked against its checksum.
    pub fn frame(&self, i: usize) -> Result<Seq, StoreError> {
        let (from, to) = self.frame_range(i);
        let fr = self.frames[i];
        let bad = |why: &str| {
            StoreError::damaged(
                &self.path,
                format!("values {from}..{to} (frame {i}) are damaged: {why}"),
            )
        };
        let mut z = vec![0u8; fr.len as usize];
        self.file
            .read_exact_at(&mut z, fr.offset)
            .map_err(StoreError::io(&self.path, "reading a frame"))?;
        let want = ((to - from) * self.header.width as u64) as usize;
        let raw = zstd::bulk::decompress(&z, want).map_err(|_| bad("does not decompress"))?;
        if raw.len() != want {
            return Err(bad("wrong length"));
        }
        let seq = seq_from_bytes(self.header.width, &raw);
        if seq.view(0, seq.len()).checksum().0 != fr.checksum {
            return Err(bad("checksum mismatch"));
        }
        Ok(seq)
    }

    /// Calls `f` on G(from..to) piece by piece, decompressing only the
    /// frames that overlap.
    pub fn for_range(
        &self,
        from: u64,
        to: u64,
        mut f: impl FnMut(SeqRef<'_>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let fv = self.header.frame_values;
        if from >= to {
            return Ok(());
        }
        for i in (from / fv)..to.div_ceil(fv) {
            let seq = self.cached_frame(i as usize)?;
            let (start, _) = self.frame_range(i as usize);
            let a = from.max(start) - start;
            let b = to.min(start + seq.len() as u64) - start;
            f(seq.view(a as usize, b as usize))?;
        }
        Ok(())
    }

    /// The header's statistics.
    pub fn stats(&self) -> Stats {
        let h = &self.header;
        Stats {
            values: h.count,
            max_value: h.max_value,
            first_max_at: h.first_max_at,
            zeros: h.zeros,
            last_value: h.last_value,
            checksum: Checksum(u64::from_str_radix(&h.checksum, 16).unwrap_or(0)),
        }
    }

    /// Every damaged frame, and whether the values match the header's
    /// statistics; reads the whole file once.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut stats = Stats::default();
        for i in 0..self.frames.len() {
            match self.frame(i) {
                Ok(seq) => seq.view(0, seq.len()).push_stats(&mut stats),
                Err(e) => {
                    problems.push(e.to_string());
                    // Keep counting so later frames' statistics line up.
                    let (a, b) = self.frame_range(i);
                    stats.push(&vec![0u16; (b - a) as usize]);
                }
            }
        }
        if problems.is_empty() && stats != self.stats() {
            problems.push(format!(
                "{}: values give checksum {} but the header says {}",
                self.path.display(),
                stats.checksum.hex(),
                self.header.checksum
            ));
        }
        problems
    }

    /// All values in memory (for recomputing with the reference engine;
    /// the caller checks that they fit).
    pub fn read_all(&self) -> Result<Seq, StoreError> {
        let mut all = Seq::U16(Vec::new());
        if self.header.width == 4 {
            all = Seq::U32(Vec::new());
        }
        self.for_range(0, self.count(), |s| {
            match (&mut all, s) {
                (Seq::U16(a), SeqRef::U16(s)) => a.extend_from_slice(s),
                (Seq::U32(a), SeqRef::U32(s)) => a.extend_from_slice(s),
                _ => unreachable!("frames share the header's width"),
            }
            Ok(())
        })?;
        Ok(all)
    }
}

/// Size facts of an export.
#[derive(Debug, Clone, Copy)]
pub struct Exported {
    pub values: u64,
    pub frames: u64,
    pub raw_bytes: u64,
    pub bytes: u64,
}

/// How [`export`] treats `out` and when it gives up.
#[derive(Default)]
pub struct ExportOptions<'a> {
    /// Replace an existing regular file at `out`.
    pub force: bool,
    /// Stop (removing the temporary file) once this becomes non-zero; the
    /// value is the exit status, reported as [`StoreError::Interrupted`].
    pub stop: Option<&'a std::sync::atomic::AtomicUsize>,
}

/// Writes `store`'s values to a compressed sequence file at `out`
/// (atomically: a temporary file put in place, see
/// [`super::output`]): all of them, or with `count` the first `count`
/// (at most all).
pub fn export(
    store: &Store,
    out: &Path,
    level: i32,
    frame_values: u64,
    count: Option<u64>,
    opts: &ExportOptions<'_>,
) -> Result<Exported, StoreError> {
    let mut output = super::output::Output::create(out, opts.force, &[store.path()])?;
    let mut w = BufWriter::with_capacity(1 << 20, output.file());
    let e = write_to(store, &mut w, out, level, frame_values, count, opts.stop)?;
    drop(w);
    output.commit()?;
    Ok(e)
}

/// Writes the sequence file of `store`'s first `count` values (default
/// all) to `w` front to back, as [`export`] does: the format needs no
/// seeking, so `w` may be a pipe. `name` is what errors call `w`. Once
/// `stop` becomes non-zero it gives up between frames with
/// [`StoreError::Interrupted`], leaving `w` incomplete.
pub fn write_to(
    store: &Store,
    w: &mut dyn Write,
    name: &Path,
    level: i32,
    frame_values: u64,
    count: Option<u64>,
    stop: Option<&std::sync::atomic::AtomicUsize>,
) -> Result<Exported, StoreError> {
    let out = name;
    store.check_chunks()?;
    let mut cp = store.checkpoint().clone();
    let frame_values = frame_values.max(1);
    let period = crate::store::checkpoint::restore_detector(store).proven();
    if let Some(count) = count.filter(|&c| c < cp.good) {
        // A prefix: its own statistics, and the period only if the prefix
        // already proves it.
        cp.stats = store.stats_of(count);
        cp.good = count;
    }
    let period = period.filter(|p| p.proven_at <= cp.good);
    let header = Header::new(
        store.code().to_string(),
        cp.good,
        cp.width,
        frame_values,
        &cp.stats,
        period,
    );
    let head = encode_head(&header, 0);
    w.write_all(&head).map_err(StoreError::io(out, "writing"))?;
    let mut at = head.len() as u64;
    let n = cp.good.div_ceil(frame_values);
    let mut index = Enc::default();
    let batch = 4 * rayon::current_num_threads() as u64;
    for b in (0..n).step_by(batch as usize) {
        if let Some(status) = stop
            .map(|s| s.load(std::sync::atomic::Ordering::SeqCst))
            .filter(|&s| s != 0)
        {
            return Err(StoreError::Interrupted(status));
        }
        let frames: Vec<(Vec<u8>, u64)> = (b..(b + batch).min(n))
            .into_par_iter()
            .map(|i| {
                let v = store.view(i * frame_values, ((i + 1) * frame_values).min(cp.good));
                let bytes: &[u8] = match v {
                    SeqRef::U16(v) => bytemuck::cast_slice(v),
                    SeqRef::U32(v) => bytemuck::cast_slice(v),
                };
                let z = zstd::bulk::compress(bytes, level)
                    .map_err(StoreError::io(out, "compressing"))?;
                Ok((z, v.checksum().0))
            })
            .collect::<Result<_, StoreError>>()?;
        for (z, sum) in frames {
            w.write_all(&z).map_err(StoreError::io(out, "writing"))?;
            index.u64(at);
            index.u64(z.len() as u64);
            index.u64(sum);
            at += z.len() as u64;
        }
    }
    w.write_all(&index.0)
        .map_err(StoreError::io(out, "writing"))?;
    w.write_all(&encode_tail(at, n, &index.0))
        .map_err(StoreError::io(out, "writing"))?;
    w.flush().map_err(StoreError::io(out, "writing"))?;
    Ok(Exported {
        values: cp.good,
        frames: n,
        raw_bytes: cp.good * cp.width as u64,
        bytes: at + index.0.len() as u64 + TRAILER_LEN,
    })
}

/// Makes a new store at `path` holding `seq`'s values, to continue
/// computing from them with `octal resume`.
pub fn import(seq: &SeqFile, path: &Path, chunk_values: u64) -> Result<Store, StoreError> {
    let h = seq.header();
    let mut cp = Checkpoint::empty(seq.count(), h.width);
    cp.good = seq.count();
    cp.stats = seq.stats();
    cp.engine = "import".into();
    // The period detector is rebuilt from the values on resume.
    Store::create_with(path, seq.code(), chunk_values, cp, |mut dst| {
        let mut at = 0usize;
        let mut stats = Stats::default();
        seq.for_range(0, seq.count(), |src| {
            let n = src.len();
            match (&mut dst, src) {
                (SeqMut::U16(d), SeqRef::U16(s)) => d[at..at + n].copy_from_slice(s),
                (SeqMut::U32(d), SeqRef::U32(s)) => d[at..at + n].copy_from_slice(s),
                _ => unreachable!("the store was made at the file's width"),
            }
            src.push_stats(&mut stats);
            at += n;
            Ok(())
        })?;
        if stats != seq.stats() {
            return Err(StoreError::damaged(
                seq.path(),
                format!(
                    "values give checksum {} but the header says {}",
                    stats.checksum.hex(),
                    seq.header().checksum
                ),
            ));
        }
        Ok(())
    })
}
