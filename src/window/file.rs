//! A windowed run's checkpoint: one small file holding the run's state
//! ([`Meta`], as JSON) and the values it keeps (G(0..prefix) and the
//! window), replaced atomically at each checkpoint and checked in full
//! when read. Layout, all little-endian:
//!
//! | bytes | what |
//! | --- | --- |
//! | 8 | magic `OCTALWN1` |
//! | 4 | format version (1) |
//! | 8 | length L of the JSON |
//! | L | [`Meta`] as JSON |
//! | 2 per value | the kept values as u16, the prefix then the window |
//! | 8 | FNV-1a-64 of everything before |
//!
//! A run holds `PATH.lock` locked while it writes
//! ([`crate::store::output::PathLock`], as a store being created and an
//! export do), so two runs never share a checkpoint, and a full-store run
//! on the same path is refused. Each checkpoint is written to a new
//! temporary file beside it (`O_EXCL`, a random name) and renamed over
//! the previous one only while PATH is still the file this run wrote: the
//! first never replaces anything.

use std::fs::{self, File};
use std::io::{BufWriter, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::Meta;
use crate::stats::Checksum;
use crate::store::output::{self, PathLock};
use crate::store::StoreError;

/// The first 8 bytes of a windowed run's checkpoint.
pub const MAGIC: &[u8; 8] = crate::store::WINDOW_MAGIC;
pub const VERSION: u32 = 1;
const HEAD: usize = 20;

/// Whether `path` starts like a windowed run's checkpoint.
pub fn detect(path: &Path) -> bool {
    crate::store::is_window(path)
}

/// A checkpoint file this process writes, locked against others.
pub struct Locked {
    path: PathBuf,
    _lock: PathLock,
    /// The device and inode of the checkpoint at `path` this run read or
    /// wrote last (none before the first).
    last: Mutex<Option<(u64, u64)>>,
}

fn identity(m: &fs::Metadata) -> (u64, u64) {
    (m.dev(), m.ino())
}

impl Locked {
    fn lock(path: &Path) -> Result<Locked, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(StoreError::io(dir, "creating directory"))?;
        }
        let lock = PathLock::acquire(path)?;
        // A store being written at `path` holds an flock on the file.
        let regular = fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
        if let Some(f) = regular.then(|| File::open(path).ok()).flatten() {
            if fs2::FileExt::try_lock_shared(&f).is_err() {
                return Err(StoreError::Locked(path.to_owned()));
            }
        }
        output::remove_stale_temps(path);
        Ok(Locked {
            path: path.to_owned(),
            _lock: lock,
            last: Mutex::new(None),
        })
    }

    /// Locks a new checkpoint file (nothing is written until the first
    /// checkpoint). Refuses a path that exists.
    pub fn create(path: &Path) -> Result<Locked, StoreError> {
        let locked = Locked::lock(path)?;
        if fs::symlink_metadata(path).is_ok() {
            return Err(StoreError::Exists(path.to_owned()));
        }
        Ok(locked)
    }

    /// Locks and reads an existing checkpoint (under the lock, so that no
    /// other run writes it meanwhile).
    pub fn open(path: &Path) -> Result<(Locked, Meta, Vec<u16>), StoreError> {
        let locked = Locked::lock(path)?;
        let (meta, values) = read(path)?;
        if let Ok(m) = fs::symlink_metadata(path) {
            *locked.last.lock().unwrap_or_else(|e| e.into_inner()) = Some(identity(&m));
        }
        Ok((locked, meta, values))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the checkpoint by `meta` and the kept values `a` then `b`:
    /// written beside it, synced, then renamed over it, so that a crash
    /// leaves the old one or the new one whole.
    pub fn write(&self, meta: &Meta, a: &[u16], b: &[u16]) -> Result<(), StoreError> {
        let path = &self.path;
        let json = serde_json::to_vec(meta).expect("a window's state serialises");
        let mut sum = Checksum::default();
        let mut tmp = output::temp_beside(path, "")?;
        let result = (|| -> std::io::Result<()> {
            let mut w = BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
            let mut put = |bytes: &[u8], w: &mut BufWriter<&mut File>| {
                sum.push_bytes(bytes);
                w.write_all(bytes)
            };
            put(MAGIC, &mut w)?;
            put(&VERSION.to_le_bytes(), &mut w)?;
            put(&(json.len() as u64).to_le_bytes(), &mut w)?;
            put(&json, &mut w)?;
            for part in [a, b] {
                for chunk in part.chunks(1 << 16) {
                    let bytes: Vec<u8> = chunk.iter().flat_map(|v| v.to_le_bytes()).collect();
                    put(&bytes, &mut w)?;
                }
            }
            w.write_all(&sum.0.to_le_bytes())?;
            w.into_inner().map_err(|e| e.into_error())?.sync_all()
        })();
        if let Err(e) = result {
            let what = if e.raw_os_error() == Some(libc::ENOSPC) {
                "writing the checkpoint (disk full; the previous checkpoint is kept)"
            } else {
                "writing the checkpoint (the previous one is kept)"
            };
            return Err(StoreError::io(path, what)(e));
        }
        // Replace only the checkpoint this run wrote or read: anything
        // else at `path` (a store another process made meanwhile) stays.
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let now = fs::symlink_metadata(path).ok().map(|m| identity(&m));
        if now.is_some() && now != *last {
            return Err(StoreError::Locked(path.to_owned()));
        }
        let new = tmp
            .as_file()
            .metadata()
            .map_err(StoreError::io(path, "writing the checkpoint"))?;
        let mut tmp = tmp.into_temp_path();
        output::place(&tmp, path, now.is_some()).map_err(|e| match e {
            StoreError::Output { .. } => StoreError::Locked(path.to_owned()),
            e => e,
        })?;
        tmp.disable_cleanup(true);
        *last = Some(identity(&new));
        Ok(())
    }
}

/// Reads and checks a checkpoint: its magic, version, length, checksum
/// and JSON; gives the state and the kept values (the prefix, then the
/// window).
pub fn read(path: &Path) -> Result<(Meta, Vec<u16>), StoreError> {
    let bytes = {
        let mut f = StoreError::open_file(path, false)?;
        let mut b = Vec::new();
        f.read_to_end(&mut b)
            .map_err(StoreError::io(path, "reading"))?;
        b
    };
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(StoreError::Foreign(path.to_owned()));
    }
    let damaged = |what: &str| StoreError::damaged(path, what.to_string());
    if bytes.len() < HEAD + 8 {
        return Err(damaged("truncated"));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    if version != VERSION {
        return Err(StoreError::Version {
            path: path.to_owned(),
            kind: "window checkpoint",
            found: version,
            reads: VERSION,
        });
    }
    let (body, tail) = bytes.split_at(bytes.len() - 8);
    if Checksum::of_bytes(body).0 != u64::from_le_bytes(tail.try_into().unwrap()) {
        return Err(damaged(
            "checksum mismatch (the file was changed or cut short)",
        ));
    }
    let jlen = u64::from_le_bytes(bytes[12..20].try_into().unwrap());
    let jend = usize::try_from(jlen)
        .ok()
        .and_then(|l| l.checked_add(HEAD))
        .filter(|&e| e <= body.len())
        .ok_or_else(|| damaged("header length out of range"))?;
    let meta: Meta = serde_json::from_slice(&body[HEAD..jend])
        .map_err(|e| damaged(&format!("unreadable state: {e}")))?;
    let raw = &body[jend..];
    let [(a0, a1), (b0, b1)] = meta.kept_ranges();
    let want = (a1.checked_sub(a0))
        .zip(b1.checked_sub(b0))
        .map(|(x, y)| x + y);
    if raw.len() % 2 != 0
        || want != Some(raw.len() as u64 / 2)
        || meta.done > meta.to.max(meta.done)
    {
        return Err(damaged("its values do not match its state"));
    }
    if meta.prefix > 0 && !(meta.prefix <= meta.lo && meta.lo <= meta.done) {
        return Err(damaged("its kept ranges are out of order"));
    }
    let values = raw
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    Ok((meta, values))
}
