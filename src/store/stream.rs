//! A sequence file written while the values are made: a windowed run's
//! `--export`, for whoever has the disk but not the memory. The file is
//! the same as `octal export` writes ([`super::seqfile`]). It grows in a
//! temporary file beside it (`.FILE.part.PID.RANDOM.tmp`, made with
//! `O_EXCL`) with its frames, its index entries go to a second one
//! (`.FILE.idx.…`), and the head keeps room for the final header; at the
//! end the index and trailer follow the frames, the header is written in
//! its room, and the file is linked into place (never over a file that
//! appeared at FILE meanwhile). A checkpoint records the absolute paths
//! and how many whole frames are durable, so a resumed run, from any
//! directory, cuts both files back to them and goes on. While a process
//! writes the file it holds FILE's lock ([`super::output::PathLock`]).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::output::{self, PathLock};
use super::seqfile::{encode_head, encode_tail, Header, SeqFile};
use super::StoreError;
use crate::period::Period;
use crate::stats::{Checksum, Stats};

/// Bytes of the head kept for the final header.
const HEAD_ROOM: usize = 4096;
/// The JSON's share of it (the rest: magic, version, length, checksum).
const JSON_ROOM: usize = HEAD_ROOM - 24;
/// Bytes of an index entry: offset, length, checksum.
const ENTRY: u64 = 24;

/// What a checkpoint records of a file being written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamState {
    /// The file to make (absolute).
    pub path: PathBuf,
    pub frame_values: u64,
    /// Whole frames written and synced.
    pub frames: u64,
    /// Where the next frame goes.
    pub at: u64,
    /// The file growing (absolute; none in checkpoints of older
    /// versions: `PATH.part`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<PathBuf>,
    /// Its index entries (none: `PATH.part.idx`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<PathBuf>,
}

impl StreamState {
    fn part(&self) -> PathBuf {
        self.part
            .clone()
            .unwrap_or_else(|| output::with_suffix(&self.path, ".part"))
    }

    fn index(&self) -> PathBuf {
        self.index
            .clone()
            .unwrap_or_else(|| output::with_suffix(&self.path, ".part.idx"))
    }
}

/// A sequence file being written, value by value.
pub struct Streamer {
    state: StreamState,
    code: String,
    level: i32,
    file: File,
    index: File,
    buf: Vec<u16>,
    /// The finished file at `state.path` that a run killed just after
    /// putting it in place left, taken back to go on (its device and
    /// inode): replaced at the end if it is still there.
    adopted: Option<(u64, u64)>,
    _lock: PathLock,
}

/// A temporary file beside `path` that outlives this process (until the
/// export is finished or abandoned): its file and absolute path.
fn lasting_temp(path: &Path, kind: &str) -> Result<(File, PathBuf), StoreError> {
    let (file, tmp) = output::temp_beside(path, kind)?.into_parts();
    let tmp = tmp
        .keep()
        .map_err(|e| StoreError::io(path, "keeping a temporary file")(e.error))?;
    Ok((file, tmp))
}

/// Opens a file this export made, for reading and writing, never through
/// a symbolic link.
fn reopen(p: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(p)
}

impl Streamer {
    /// Starts `path` (which must not exist) for the values of `code`, in
    /// frames of `frame_values`.
    pub fn create(path: &Path, code: &str, frame_values: u64) -> Result<Streamer, StoreError> {
        let path = output::absolute(path)?;
        let lock = PathLock::acquire(&path)?;
        if fs::symlink_metadata(&path).is_ok() {
            return Err(StoreError::Exists(path));
        }
        let (file, part) = lasting_temp(&path, "part.")?;
        let made = (|| {
            let io = |what| StoreError::io(&part, what);
            file.write_all_at(&[0u8; HEAD_ROOM], 0)
                .map_err(io("writing"))?;
            lasting_temp(&path, "idx.")
        })();
        let (index, idx) = match made {
            Ok(x) => x,
            Err(e) => {
                let _ = fs::remove_file(&part);
                return Err(e);
            }
        };
        Ok(Streamer {
            state: StreamState {
                path,
                frame_values: frame_values.max(1),
                frames: 0,
                at: HEAD_ROOM as u64,
                part: Some(part),
                index: Some(idx),
            },
            code: code.to_string(),
            level: 3,
            file,
            index,
            buf: Vec::new(),
            adopted: None,
            _lock: lock,
        })
    }

    /// Takes up the file a checkpoint left at `state`: both files are cut
    /// back to its whole frames, and the caller pushes again the values
    /// after them. A run killed between putting the finished file in
    /// place and its next checkpoint left that file and no temporary
    /// one: it is taken back, if it is the one this export made.
    pub fn resume(state: &StreamState, code: &str) -> Result<Streamer, StoreError> {
        let lock = PathLock::acquire(&state.path)?;
        let (part, idx) = (state.part(), state.index());
        let io = |what| StoreError::io(&part, what);
        let mut state = state.clone();
        let mut adopted = None;
        let file = match reopen(&part) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let (file, p, identity) = Streamer::take_back(&state, code)?;
                state.part = Some(p);
                adopted = Some(identity);
                file
            }
            r => r.map_err(io("reopening the export"))?,
        };
        let index = match reopen(&idx) {
            Err(e) if adopted.is_some() && e.kind() == std::io::ErrorKind::NotFound => {
                let (index, p) = lasting_temp(&state.path, "idx.")?;
                state.index = Some(p);
                index
            }
            r => r.map_err(io("reopening the export's index"))?,
        };
        if adopted.is_some() {
            // The index entries of the frames kept, from the file's own
            // index.
            let entries = SeqFile::open(&state.path)?.index_entries();
            let bytes: Vec<u8> = entries[..state.frames as usize]
                .iter()
                .flatten()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            index
                .write_all_at(&bytes, 0)
                .map_err(io("rebuilding the export's index"))?;
        }
        let (flen, ilen) = (
            file.metadata().map_err(io("reading metadata"))?.len(),
            index.metadata().map_err(io("reading metadata"))?.len(),
        );
        if flen < state.at || ilen < state.frames * ENTRY {
            return Err(StoreError::damaged(
                &part,
                "shorter than the run's checkpoint says",
            ));
        }
        file.set_len(state.at).map_err(io("cutting back"))?;
        index
            .set_len(state.frames * ENTRY)
            .map_err(io("cutting back"))?;
        Ok(Streamer {
            state,
            code: code.to_string(),
            level: 3,
            file,
            index,
            buf: Vec::new(),
            adopted,
            _lock: lock,
        })
    }

    /// The finished file at `state.path`, if this export made it (its
    /// code, frame size and the place of frame `state.frames` agree with
    /// the checkpoint), copied to a new temporary file to go on from: that
    /// file, its path, and the finished file's device and inode. The
    /// finished file stays in place until the new one replaces it.
    fn take_back(
        state: &StreamState,
        code: &str,
    ) -> Result<(File, PathBuf, (u64, u64)), StoreError> {
        let missing = || {
            StoreError::io(&state.part(), "reopening the export")(std::io::Error::from(
                std::io::ErrorKind::NotFound,
            ))
        };
        let seq = SeqFile::open(&state.path).map_err(|_| missing())?;
        let entries = seq.index_entries();
        let k = state.frames as usize;
        let next_at = match entries.get(k) {
            Some(e) => Some(e[0]),
            None if k == entries.len() => {
                Some(entries.last().map_or(HEAD_ROOM as u64, |e| e[0] + e[1]))
            }
            None => None,
        };
        let ours = seq.header().code == code
            && seq.header().frame_values == state.frame_values
            && seq.header().width == 2
            && next_at == Some(state.at);
        if !ours {
            return Err(missing());
        }
        let src = File::open(&state.path).map_err(|_| missing())?;
        let identity = src
            .metadata()
            .map(|m| (m.dev(), m.ino()))
            .map_err(|_| missing())?;
        let (mut file, p) = lasting_temp(&state.path, "part.")?;
        let copied = std::io::copy(&mut std::io::Read::take(src, state.at), &mut file);
        match copied {
            Ok(n) if n == state.at => Ok((file, p, identity)),
            r => {
                let _ = fs::remove_file(&p);
                Err(StoreError::io(
                    &state.path,
                    "taking back the finished export",
                )(r.err().unwrap_or_else(|| {
                    std::io::Error::from(std::io::ErrorKind::UnexpectedEof)
                })))
            }
        }
    }

    /// The values in whole frames so far.
    pub fn values_in_frames(&self) -> u64 {
        self.state.frames * self.state.frame_values
    }

    /// Takes the next values; each whole frame is compressed and written.
    pub fn push(&mut self, values: &[u16]) -> Result<(), StoreError> {
        let f = self.state.frame_values as usize;
        let mut rest = values;
        while !rest.is_empty() {
            let take = (f - self.buf.len()).min(rest.len());
            self.buf.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.buf.len() == f {
                self.write_frame()?;
            }
        }
        Ok(())
    }

    fn write_frame(&mut self) -> Result<(), StoreError> {
        let path = self.state.part();
        let io = |what| StoreError::io(&path, what);
        let bytes: &[u8] = bytemuck::cast_slice(&self.buf);
        let z = zstd::bulk::compress(bytes, self.level).map_err(io("compressing"))?;
        let st = &mut self.state;
        self.file
            .write_all_at(&z, st.at)
            .map_err(io("writing (disk full?)"))?;
        let mut entry = Vec::with_capacity(ENTRY as usize);
        for x in [st.at, z.len() as u64, Checksum::of(&self.buf).0] {
            entry.extend_from_slice(&x.to_le_bytes());
        }
        self.index
            .write_all_at(&entry, st.frames * ENTRY)
            .map_err(io("writing its index (disk full?)"))?;
        st.at += z.len() as u64;
        st.frames += 1;
        self.buf.clear();
        Ok(())
    }

    /// Makes the whole frames durable and says where they end (for the
    /// run's checkpoint, written after this).
    pub fn sync(&mut self) -> Result<StreamState, StoreError> {
        let path = self.state.part();
        self.file
            .sync_data()
            .and_then(|_| self.index.sync_data())
            .map_err(StoreError::io(&path, "syncing"))?;
        Ok(self.state.clone())
    }

    /// Writes the last frame, the index, the trailer and the header for
    /// `stats` (all the values pushed), and renames the file into place.
    pub fn finish(mut self, stats: &Stats, period: Option<Period>) -> Result<PathBuf, StoreError> {
        if !self.buf.is_empty() {
            self.write_frame()?;
        }
        let st = self.state.clone();
        let part = st.part();
        let io = |what| StoreError::io(&part, what);
        let mut index = vec![0u8; (st.frames * ENTRY) as usize];
        self.index
            .read_exact_at(&mut index, 0)
            .map_err(io("reading its index"))?;
        let header = Header::new(
            self.code.clone(),
            stats.values,
            2,
            st.frame_values,
            stats,
            period,
        );
        let head = encode_head(&header, JSON_ROOM);
        if head.len() != HEAD_ROOM {
            return Err(StoreError::damaged(&part, "header longer than its room"));
        }
        let tail = encode_tail(st.at, st.frames, &index);
        let mut f = &self.file;
        f.write_all_at(&index, st.at)
            .and_then(|_| f.write_all_at(&tail, st.at + index.len() as u64))
            .and_then(|_| f.write_all_at(&head, 0))
            .and_then(|_| f.set_len(st.at + index.len() as u64 + tail.len() as u64))
            .and_then(|_| f.flush())
            .and_then(|_| self.file.sync_all())
            .map_err(io("finishing (disk full?)"))?;
        // Linked into place: a file that appeared at the path during the
        // run is not replaced (only the one this export made and took
        // back after a crash).
        let ours = self.adopted.is_some()
            && fs::symlink_metadata(&st.path)
                .is_ok_and(|m| Some((m.dev(), m.ino())) == self.adopted);
        output::place(&part, &st.path, ours)?;
        let _ = fs::remove_file(st.index());
        Ok(st.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::seqfile::SeqFile;

    #[test]
    fn a_streamed_file_reads_back_as_an_exported_one_even_after_a_resume() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.oseq");
        let g: Vec<u16> = (0..10_000u32).map(|n| ((n * 7919) % 301) as u16).collect();
        let mut s = Streamer::create(&path, "0.6", 1000).unwrap();
        s.push(&g[..3500]).unwrap();
        let cp = s.sync().unwrap();
        // Values written after the checkpoint, then a crash.
        s.push(&g[3500..6000]).unwrap();
        drop(s);
        let mut s = Streamer::resume(&cp, "0.6").unwrap();
        assert_eq!(s.values_in_frames(), 3000);
        s.push(&g[3000..]).unwrap();
        let out = s.finish(&Stats::of(&g), None).unwrap();
        let f = SeqFile::open(&out).unwrap();
        assert_eq!(f.count(), 10_000);
        assert!(f.problems().is_empty(), "{:?}", f.problems());
        let back = f.read_all().unwrap();
        assert_eq!(back.view(0, 10_000).checksum(), Checksum::of(&g));
        assert_eq!(f.header().checksum, Checksum::of(&g).hex());
    }
}
