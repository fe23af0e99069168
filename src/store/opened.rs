//! A sequence kept on disk, of either kind: a store or an exported
//! sequence file. Whatever reads one (`octal values`, `plot`, `verify`,
//! `compare`, Python's `octal.open`) opens it here and reads it the same
//! way, and every value it hands out has been checked against its
//! checksum first.

use std::path::Path;
use std::sync::Mutex;

use crate::code::Code;
use crate::period::Period;
use crate::seq::{Seq, SeqRef};
use crate::store::checkpoint;
use crate::store::seqfile::{self, Kind, SeqFile};
use crate::store::{Store, StoreError};

/// A store or an exported sequence file, open for reading.
pub enum Opened {
    /// A store, and which of its chunks have been checked against their
    /// checksums (each is checked once, when first read).
    Store(Store, Mutex<Vec<bool>>),
    File(SeqFile),
}

/// Values per piece of a store handed to [`Opened::for_range`]'s callback.
const STORE_PIECE: u64 = 1 << 20;

impl Opened {
    /// Opens `path`, a store (read-only) or an exported file, by its first
    /// bytes; anything else is [`StoreError::Foreign`].
    pub fn open(path: &Path) -> Result<Opened, StoreError> {
        Ok(match seqfile::detect(path)? {
            Some(Kind::Store) => {
                let store = Store::open(path, false)?;
                let chunks = store.good().div_ceil(store.chunk_values()) as usize;
                Opened::Store(store, Mutex::new(vec![false; chunks]))
            }
            Some(Kind::SeqFile) => Opened::File(SeqFile::open(path)?),
            None => return Err(StoreError::Foreign(path.to_owned())),
        })
    }

    /// `"store"` or `"export"`.
    pub fn kind(&self) -> &'static str {
        match self {
            Opened::Store(..) => "store",
            Opened::File(_) => "export",
        }
    }

    pub fn path(&self) -> &Path {
        match self {
            Opened::Store(s, _) => s.path(),
            Opened::File(f) => f.path(),
        }
    }

    pub fn code(&self) -> &Code {
        match self {
            Opened::Store(s, _) => s.code(),
            Opened::File(f) => f.code(),
        }
    }

    /// The values held: G(0), …, G(len−1).
    pub fn len(&self) -> u64 {
        match self {
            Opened::Store(s, _) => s.good(),
            Opened::File(f) => f.count(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per value: 2 or 4.
    pub fn width(&self) -> usize {
        match self {
            Opened::Store(s, _) => s.width(),
            Opened::File(f) => f.header().width as usize,
        }
    }

    /// The largest of the values held.
    pub fn max_value(&self) -> u32 {
        match self {
            Opened::Store(s, _) => s.checkpoint().stats.max_value,
            Opened::File(f) => f.header().max_value,
        }
    }

    /// The proven period the file records: a store's (see
    /// [`checkpoint::detector_of`]), an exported file's header's. `None`
    /// when none was proven (or a file's header has none it can read).
    pub fn period(&self) -> Option<Period> {
        match self {
            Opened::Store(s, _) => checkpoint::restore_detector(s).proven(),
            Opened::File(_) => self.recorded_period().and_then(Result::ok),
        }
    }

    /// A sequence file's recorded period, checked against its values
    /// ([`Period::check_proof`]): `Err` says why it is no proof.
    pub fn recorded_period(&self) -> Option<Result<Period, String>> {
        let Opened::File(f) = self else {
            return None;
        };
        let p: Period = match serde_json::from_value(f.header().period.clone()?) {
            Ok(p) => p,
            Err(e) => return Some(Err(format!("the recorded period cannot be read: {e}"))),
        };
        // The values are read only when the header can be a proof at all.
        let len = p.bound.filter(|&b| b <= self.len()).unwrap_or(0);
        Some(match self.read(0, len) {
            Ok(g) => p
                .check_proof(self.code(), self.len(), |n| {
                    if (n as usize) < g.len() {
                        g.get(n as usize)
                    } else {
                        u32::MAX
                    }
                })
                .map(|()| p),
            Err(e) => Err(e.to_string()),
        })
    }

    /// For a store that opened at its older checkpoint: why.
    pub fn lost_slot(&self) -> Option<String> {
        match self {
            Opened::Store(s, _) => checkpoint::lost_slot(s),
            Opened::File(_) => None,
        }
    }

    /// G(from..to) straight from a store's map, after checking the
    /// checksums of the chunks they lie in (and that the file still holds
    /// them); `None` for a compressed file.
    pub fn view(&self, from: u64, to: u64) -> Result<Option<SeqRef<'_>>, StoreError> {
        match self {
            Opened::Store(s, checked) => {
                if from < to {
                    s.check_length(to)?;
                    let c = s.chunk_values();
                    let mut checked = checked.lock().unwrap_or_else(|e| e.into_inner());
                    let (mut i, last) = ((from / c) as usize, ((to - 1) / c) as usize);
                    while i <= last {
                        if checked[i] {
                            i += 1;
                            continue;
                        }
                        let mut j = i;
                        while j <= last && !checked[j] {
                            j += 1;
                        }
                        s.check_chunks_in(i as u64 * c, (j as u64 * c).min(s.good()))?;
                        checked[i..j].fill(true);
                        i = j;
                    }
                }
                Ok(Some(s.view(from, to)))
            }
            Opened::File(_) => Ok(None),
        }
    }

    /// Hands G(from..to) to `f` piece by piece, in order, each piece
    /// checked first: a store's in pieces of 2^20 values, a file's a frame
    /// at a time (so each frame is decompressed once). The first error,
    /// `f`'s or the reading's, ends it.
    pub fn for_range<E: From<StoreError>>(
        &self,
        from: u64,
        to: u64,
        mut f: impl FnMut(SeqRef<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let step = match self {
            Opened::Store(..) => STORE_PIECE,
            Opened::File(file) => file.header().frame_values.max(1),
        };
        let mut at = from;
        while at < to {
            let end = ((at / step + 1) * step).min(to);
            match self {
                Opened::Store(..) => f(self.view(at, end)?.expect("a store has a view"))?,
                Opened::File(file) => {
                    let mut failed = None;
                    let read = file.for_range(at, end, |piece| {
                        f(piece).map_err(|e| {
                            failed = Some(e);
                            // Only ends the file's loop; `failed` is returned.
                            StoreError::Interrupted(0)
                        })
                    });
                    if let Some(e) = failed {
                        return Err(e);
                    }
                    read?;
                }
            }
            at = end;
        }
        Ok(())
    }

    /// G(from..to), copied out, in the width the values are kept in.
    pub fn read(&self, from: u64, to: u64) -> Result<Seq, StoreError> {
        let n = to.saturating_sub(from) as usize;
        let mut all = if self.width() == 2 {
            Seq::U16(Vec::with_capacity(n))
        } else {
            Seq::U32(Vec::with_capacity(n))
        };
        self.for_range(from, to, |piece| {
            match (&mut all, piece) {
                (Seq::U16(a), SeqRef::U16(p)) => a.extend_from_slice(p),
                (Seq::U32(a), SeqRef::U32(p)) => a.extend_from_slice(p),
                _ => unreachable!("pieces have the width of what holds them"),
            }
            Ok::<(), StoreError>(())
        })?;
        Ok(all)
    }
}
