//! The store's header on disk: the superblock written once, and the two
//! alternating header slots, each holding a [`Checkpoint`] with its own
//! sequence number and checksum (docs/store.md has the layout).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::codec::{Dec, Enc};
use super::error::{Result, StoreError};
use super::kind::MAGIC;
use crate::code::Code;
use crate::stats::{Checksum, Stats};

/// The store format this build reads and writes. Version 2 added the store
/// id and the superblock length, and binds every header slot to its
/// superblock; version 1 stores are refused.
pub const VERSION: u32 = 2;
pub(super) const SLOT_MAGIC: &[u8; 8] = b"OCTSLOT1";
/// The superblock takes a multiple of this many bytes at the start of the
/// file (one page unless the code is very long).
pub(super) const SUPER_LEN: u64 = 4096;
/// The largest superblock read (codes up to about 16 million characters).
pub(super) const MAX_SUPER_LEN: u64 = 1 << 24;
/// Bytes of each header slot: the chunk table (8 bytes a chunk) and the
/// period detector's state (one entry per 8192 values) must fit. Slots are
/// left sparse on disk until written.
pub const DEFAULT_SLOT_SIZE: u64 = 64 << 20;
/// Values per checksummed chunk.
pub const DEFAULT_CHUNK_VALUES: u64 = 1 << 16;
/// Space the file grows by at least, in values (when the target allows).
pub(super) const GROW_MIN: u64 = 1 << 22;
/// Test knob: pretend the disk has this many bytes free when a store grows
/// (docs/store.md).
pub const FAKE_SPACE_ENV: &str = "OCTAL_TEST_AVAILABLE_BYTES";

/// The part of the header written once, when the store is created.
#[derive(Debug, Clone)]
pub(super) struct Superblock {
    /// Bytes the superblock occupies (a multiple of 4096).
    pub(super) super_len: u64,
    pub(super) slot_size: u64,
    pub(super) chunk_values: u64,
    /// Random, chosen at creation: tells this store's slots from another's.
    pub(super) id: [u8; 16],
    pub(super) code: Code,
    /// FNV of the encoded superblock; folded into every slot checksum, so
    /// a slot (and its chunk table) only validates under its own
    /// superblock.
    pub(super) bind: u64,
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
    pub(super) fn new(code: &Code, slot_size: u64, chunk_values: u64) -> Superblock {
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

    pub(super) fn data_offset(&self) -> u64 {
        self.super_len + 2 * self.slot_size
    }

    pub(super) fn slot_offset(&self, slot: usize) -> u64 {
        self.super_len + slot as u64 * self.slot_size
    }

    /// The bytes on disk, ending with their own FNV.
    pub(super) fn encode(&self) -> Vec<u8> {
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
    pub(super) fn peek_len(path: &Path, b: &[u8]) -> Result<u64> {
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

    pub(super) fn decode(path: &Path, b: &[u8]) -> Result<Superblock> {
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

    pub(super) fn encode(&self) -> Vec<u8> {
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
pub(super) fn encode_slot(bind: u64, seq: u64, body: &[u8]) -> Vec<u8> {
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
pub(super) fn read_slot(
    file: &File,
    sb: &Superblock,
    slot: usize,
) -> Result<(u64, Checkpoint), String> {
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
