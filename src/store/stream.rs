//! A sequence file written while the values are made: a windowed run's
//! `--export`, for whoever has the disk but not the memory. The file is
//! the same as `octal export` writes ([`super::seqfile`]). It grows as
//! `FILE.part` with its frames, its index entries go to `FILE.part.idx`,
//! and the head keeps room for the final header; at the end the index and
//! trailer follow the frames, the header is written in its room, and the
//! file is renamed into place. A checkpoint records how many whole frames
//! are durable, so a resumed run cuts both files back to them and goes on.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::seqfile::{encode_head, encode_tail, Header};
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
    /// The file to make.
    pub path: PathBuf,
    pub frame_values: u64,
    /// Whole frames written and synced.
    pub frames: u64,
    /// Where the next frame goes.
    pub at: u64,
}

/// A sequence file being written, value by value.
pub struct Streamer {
    state: StreamState,
    code: String,
    level: i32,
    file: File,
    index: File,
    buf: Vec<u16>,
}

fn with(path: &Path, ext: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(ext);
    PathBuf::from(s)
}

impl Streamer {
    /// Starts `path` (which must not exist) for the values of `code`, in
    /// frames of `frame_values`.
    pub fn create(path: &Path, code: &str, frame_values: u64) -> Result<Streamer, StoreError> {
        if path.exists() {
            return Err(StoreError::Exists(path.to_owned()));
        }
        let part = with(path, ".part");
        let io = |what| StoreError::io(&part, what);
        let file = File::create(&part).map_err(io("creating"))?;
        file.write_all_at(&[0u8; HEAD_ROOM], 0)
            .map_err(io("writing"))?;
        let index = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(with(path, ".part.idx"))
            .map_err(io("creating its index"))?;
        Ok(Streamer {
            state: StreamState {
                path: path.to_owned(),
                frame_values: frame_values.max(1),
                frames: 0,
                at: HEAD_ROOM as u64,
            },
            code: code.to_string(),
            level: 3,
            file,
            index,
            buf: Vec::new(),
        })
    }

    /// Takes up the file a checkpoint left at `state`: both files are cut
    /// back to its whole frames, and the caller pushes again the values
    /// after them.
    pub fn resume(state: &StreamState, code: &str) -> Result<Streamer, StoreError> {
        let part = with(&state.path, ".part");
        let idx = with(&state.path, ".part.idx");
        let io = |what| StoreError::io(&part, what);
        let open = |p: &Path| OpenOptions::new().read(true).write(true).open(p);
        let file = open(&part).map_err(io("reopening the export"))?;
        let index = open(&idx).map_err(io("reopening the export's index"))?;
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
            state: state.clone(),
            code: code.to_string(),
            level: 3,
            file,
            index,
            buf: Vec::new(),
        })
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
        let path = with(&self.state.path, ".part");
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
        let path = with(&self.state.path, ".part");
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
        let part = with(&st.path, ".part");
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
        fs::rename(&part, &st.path).map_err(io("renaming into place"))?;
        let _ = fs::remove_file(with(&st.path, ".part.idx"));
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
