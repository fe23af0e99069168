//! Running statistics of a sequence, and its checksum.
//!
//! The checksum is FNV-1a-64 over the values written as little-endian u32,
//! G(0) first. It is defined here once; GUIDE.md shows how to recompute it.

use octal_kernels::Value;
use serde::{Deserialize, Serialize};

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a-64 over a stream of values, each as 4 little-endian bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checksum(pub u64);

impl Default for Checksum {
    fn default() -> Self {
        Checksum(FNV_OFFSET)
    }
}

impl Checksum {
    #[inline]
    pub fn push(&mut self, v: u32) {
        self.push_bytes(&v.to_le_bytes());
    }

    /// Takes in raw bytes (headers and indexes of files use this too).
    #[inline]
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(FNV_PRIME);
        }
        self.0 = h;
    }

    pub fn of<V: Value>(values: &[V]) -> Checksum {
        let mut c = Checksum::default();
        for &v in values {
            c.push(v.get());
        }
        c
    }

    /// FNV-1a-64 of raw bytes.
    pub fn of_bytes(bytes: &[u8]) -> Checksum {
        let mut c = Checksum::default();
        c.push_bytes(bytes);
        c
    }

    /// FNV-1a-64 of a value's compact JSON, as 16 hex digits: the check a
    /// small JSON record (a census result, a Slurm manifest or task row)
    /// carries of itself.
    pub fn of_json<T: Serialize + ?Sized>(value: &T) -> String {
        let json = serde_json::to_vec(value).expect("a record of plain fields serialises");
        Checksum::of_bytes(&json).hex()
    }

    /// The 16 hex digits users compare.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

/// What a summary says about the values G(0), …, G(values−1).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    pub values: u64,
    pub max_value: u32,
    pub first_max_at: u64,
    pub zeros: u64,
    pub last_value: u32,
    pub checksum: Checksum,
}

impl Stats {
    /// Takes in the next values, G(self.values), G(self.values+1), ….
    pub fn push<V: Value>(&mut self, values: &[V]) {
        let mut at = self.values;
        for &v in values {
            let v = v.get();
            if v > self.max_value {
                self.max_value = v;
                self.first_max_at = at;
            }
            self.zeros += (v == 0) as u64;
            self.checksum.push(v);
            at += 1;
        }
        if let Some(&last) = values.last() {
            self.last_value = last.get();
        }
        self.values = at;
    }

    pub fn of<V: Value>(values: &[V]) -> Stats {
        let mut s = Stats::default();
        s.push(values);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_known_vectors() {
        // Published FNV-1a-64 test vectors.
        assert_eq!(Checksum::of::<u32>(&[]).0, 0xcbf29ce484222325);
        let mut a = Checksum::default();
        a.push_bytes(b"a");
        assert_eq!(a.0, 0xaf63dc4c8601ec8c);
        let mut f = Checksum::default();
        f.push_bytes(b"foobar");
        assert_eq!(f.0, 0x85944171f73967e8);
        // A value is its four little-endian bytes.
        let mut v = Checksum::default();
        v.push_bytes(&[0x2c, 0x01, 0, 0]);
        assert_eq!(Checksum::of(&[300u32]), v);
        assert_eq!(Checksum::of(&[1u16, 2, 300]), Checksum::of(&[1u32, 2, 300]));
    }

    #[test]
    fn stats_are_incremental() {
        let g = [0u16, 1, 2, 0, 3, 3, 1, 0];
        let mut s = Stats::default();
        s.push(&g[..3]);
        s.push(&g[3..]);
        assert_eq!(s, Stats::of(&g));
        assert_eq!(
            (s.values, s.max_value, s.first_max_at, s.zeros, s.last_value),
            (8, 3, 4, 3, 0)
        );
    }
}
