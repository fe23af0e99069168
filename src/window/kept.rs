//! The values a windowed run keeps, as one indexable whole: what
//! `--notation` and `octal verify` read G(n) from.

/// The kept values of a windowed run: G(0..prefix) and G(lo..end).
pub struct KeptValues<'a> {
    pub prefix: &'a [u16],
    pub lo: usize,
    pub ring: &'a [u16],
}

impl KeptValues<'_> {
    /// G(n), if kept.
    pub fn get(&self, n: usize) -> Option<u32> {
        if n < self.prefix.len() {
            Some(self.prefix[n] as u32)
        } else if n >= self.lo {
            self.ring.get(n - self.lo).map(|&v| v as u32)
        } else {
            None
        }
    }
}
