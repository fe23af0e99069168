//! Where a plot reads its values from: [`Values`], with the sources that
//! implement it (a run in memory, a disk store, an opened store or
//! exported file). It lives here, not in `store`, so that the plot depends
//! on the store and never the other way.

use std::io;

use crate::seq::Seq;
use crate::store::{Opened, Store, StoreError};

/// A sequence the plot can read: G(0), …, G(len−1).
pub trait Values: Sync {
    /// How many values can be read.
    fn available(&self) -> u64;
    /// Writes G(start), G(start+1), … into `out` (`start + out.len() <= available`).
    fn read(&self, start: u64, out: &mut [u32]) -> io::Result<()>;
}

impl Values for Store {
    fn available(&self) -> u64 {
        self.good()
    }
    fn read(&self, start: u64, out: &mut [u32]) -> io::Result<()> {
        let v = self.view(start, start + out.len() as u64);
        for (i, o) in out.iter_mut().enumerate() {
            *o = v.get(i);
        }
        Ok(())
    }
}

impl Values for [u32] {
    fn available(&self) -> u64 {
        <[u32]>::len(self) as u64
    }
    fn read(&self, start: u64, out: &mut [u32]) -> io::Result<()> {
        let s = start as usize;
        out.copy_from_slice(&self[s..s + out.len()]);
        Ok(())
    }
}

impl Values for [u16] {
    fn available(&self) -> u64 {
        <[u16]>::len(self) as u64
    }
    fn read(&self, start: u64, out: &mut [u32]) -> io::Result<()> {
        let s = start as usize;
        let src = &self[s..s + out.len()];
        for (o, &v) in out.iter_mut().zip(src) {
            *o = v as u32;
        }
        Ok(())
    }
}

impl<T: Sync> Values for Vec<T>
where
    [T]: Values,
{
    fn available(&self) -> u64 {
        self.as_slice().available()
    }
    fn read(&self, start: u64, out: &mut [u32]) -> io::Result<()> {
        self.as_slice().read(start, out)
    }
}

impl Values for Seq {
    fn available(&self) -> u64 {
        Seq::len(self) as u64
    }
    fn read(&self, start: u64, out: &mut [u32]) -> io::Result<()> {
        match self {
            Seq::U16(v) => v.as_slice().read(start, out),
            Seq::U32(v) => v.as_slice().read(start, out),
        }
    }
}

impl Values for Opened {
    fn available(&self) -> u64 {
        self.len()
    }

    fn read(&self, start: u64, out: &mut [u32]) -> io::Result<()> {
        let mut at = 0;
        self.for_range(start, start + out.len() as u64, |piece| {
            for i in 0..piece.len() {
                out[at + i] = piece.get(i);
            }
            at += piece.len();
            Ok::<(), StoreError>(())
        })
        .map_err(io::Error::other)
    }
}
