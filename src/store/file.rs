//! An open store: the values mapped with memmap2, extended, checkpointed
//! (values durable first, then the other header slot), widened to u32 by
//! a complete copy renamed over the store, and checked against their
//! chunk checksums.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use memmap2::{Mmap, MmapMut, MmapOptions};
use rayon::prelude::*;

use super::error::{Result, StoreError};
use super::format::{
    encode_slot, read_slot, Checkpoint, Superblock, DEFAULT_SLOT_SIZE, GROW_MIN, MAX_SUPER_LEN,
    SUPER_LEN,
};
use super::output;
use super::space::{human_bytes, space_to_grow};
use crate::code::Code;
use crate::seq::{SeqMut, SeqRef};
use crate::stats::Stats;

#[cfg(target_endian = "big")]
compile_error!("stores map little-endian values directly; big-endian hosts are not supported");

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
