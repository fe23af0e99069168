//! Sequences of values: held in memory at the narrowest width that fits
//! them ([`Seq`], u16 until a value needs u32), borrowed from memory or a
//! store's map ([`SeqRef`]), or lent to an engine to fill ([`SeqMut`]).

use crate::period::{arithmetic, ArithmeticPeriod, Period};
use crate::stats::Stats;

/// A sequence held in memory at the narrowest width that fits its values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seq {
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Default for Seq {
    fn default() -> Self {
        Seq::U16(Vec::new())
    }
}

impl Seq {
    pub fn len(&self) -> usize {
        match self {
            Seq::U16(v) => v.len(),
            Seq::U32(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, n: usize) -> u32 {
        match self {
            Seq::U16(v) => v[n] as u32,
            Seq::U32(v) => v[n],
        }
    }

    /// Bytes per value at the current width.
    pub fn width(&self) -> usize {
        match self {
            Seq::U16(_) => 2,
            Seq::U32(_) => 4,
        }
    }

    pub fn to_u32(&self) -> Vec<u32> {
        match self {
            Seq::U16(v) => v.iter().map(|&x| x as u32).collect(),
            Seq::U32(v) => v.clone(),
        }
    }

    /// Statistics of `self[from..to]`, pushed onto `stats`.
    pub fn push_stats(&self, stats: &mut Stats, from: usize, to: usize) {
        self.view(from, to).push_stats(stats);
    }

    /// `self[from..to]`, borrowed.
    pub fn view(&self, from: usize, to: usize) -> SeqRef<'_> {
        match self {
            Seq::U16(v) => SeqRef::U16(&v[from..to]),
            Seq::U32(v) => SeqRef::U32(&v[from..to]),
        }
    }
}

/// Values borrowed from memory or from a store's map.
#[derive(Debug, Clone, Copy)]
pub enum SeqRef<'a> {
    U16(&'a [u16]),
    U32(&'a [u32]),
}

impl SeqRef<'_> {
    /// The apparent arithmetic period of these values, if they show one
    /// ([`arithmetic::apparent`]).
    pub fn apparent_arithmetic(&self) -> Option<ArithmeticPeriod> {
        match self {
            SeqRef::U16(v) => arithmetic::apparent(v),
            SeqRef::U32(v) => arithmetic::apparent(v),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            SeqRef::U16(v) => v.len(),
            SeqRef::U32(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, n: usize) -> u32 {
        match self {
            SeqRef::U16(v) => v[n] as u32,
            SeqRef::U32(v) => v[n],
        }
    }

    /// G(n) for any n, when these are G(0), G(1), …: one of them, or read
    /// off `period` (which they must prove) past them; `None` past them
    /// without a period.
    pub fn answer(&self, n: u64, period: Option<&Period>) -> Option<u32> {
        let len = self.len() as u64;
        let i = if n < len { n } else { period?.first_index(n) };
        (i < len).then(|| self.get(i as usize))
    }

    /// Takes these values into `stats`, as the values that follow.
    pub fn push_stats(&self, stats: &mut Stats) {
        match self {
            SeqRef::U16(v) => stats.push(v),
            SeqRef::U32(v) => stats.push(v),
        }
    }

    pub fn checksum(&self) -> crate::stats::Checksum {
        match self {
            SeqRef::U16(v) => crate::stats::Checksum::of(v),
            SeqRef::U32(v) => crate::stats::Checksum::of(v),
        }
    }
}

/// Values lent for an engine to fill.
#[derive(Debug)]
pub enum SeqMut<'a> {
    U16(&'a mut [u16]),
    U32(&'a mut [u32]),
}
