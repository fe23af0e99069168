//! The ring of a windowed run, made by the memory manager: the address
//! range of the whole sequence, G(0..N) as `u16`, is reserved without
//! memory, and only the kept values (the prefix and the last values) are
//! backed by pages. Values behind the window are handed back to the
//! system and their pages made inaccessible, so the engine keeps indexing
//! heaps by their number, exactly as in a full run, and a read outside
//! the kept values faults instead of returning a wrong value.
//!
//! Invariant: the values [`Ring::slice`] hands out are backed (readable
//! and writable) exactly where [`Ring::open`] made them so and
//! [`Ring::release`] has not taken them back.

use std::io;

/// The reserved address range of G(0..len), `u16` values.
pub struct Ring {
    ptr: *mut u16,
    len: usize,
    page: usize,
}

// SAFETY: the mapping is owned by the ring; `&mut self` guards every change.
unsafe impl Send for Ring {}

/// The system's page size in bytes.
fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

impl Ring {
    /// Reserves room for `len` values without backing any of them.
    pub fn reserve(len: usize) -> io::Result<Ring> {
        let bytes = len
            .checked_mul(2)
            .filter(|&b| b <= isize::MAX as usize)
            .ok_or_else(|| io::Error::other("too many values for this machine's address space"))?
            .max(1);
        // SAFETY: a fresh anonymous mapping, checked below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Ring {
            ptr: ptr.cast(),
            len,
            page: page_size(),
        })
    }

    /// How many values the range holds.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of the pages that hold values `[a, b)`: rounded out when
    /// `outward`, else in (so that no other value's page is touched).
    fn pages(&self, a: usize, b: usize, outward: bool) -> (usize, usize) {
        let (a, b) = (2 * a.min(self.len), 2 * b.min(self.len));
        let p = self.page;
        if outward {
            (a / p * p, b.div_ceil(p) * p)
        } else {
            (a.div_ceil(p) * p, b / p * p)
        }
    }

    /// Backs values `[a, b)` with memory (zero where new).
    pub fn open(&mut self, a: usize, b: usize) -> io::Result<()> {
        let (x, y) = self.pages(a, b, true);
        if x >= y {
            return Ok(());
        }
        let end = (2 * self.len).div_ceil(self.page) * self.page;
        let y = y.min(end);
        // SAFETY: [x, y) lies inside the mapping made by `reserve`.
        let r = unsafe {
            libc::mprotect(
                self.ptr.cast::<u8>().add(x).cast(),
                y - x,
                libc::PROT_READ | libc::PROT_WRITE,
            )
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Gives the pages that lie wholly inside values `[a, b)` back to the
    /// system and makes them inaccessible: their values are gone.
    pub fn release(&mut self, a: usize, b: usize) -> io::Result<()> {
        let (x, y) = self.pages(a, b, false);
        if x >= y {
            return Ok(());
        }
        // SAFETY: a fixed mapping over [x, y), inside our own mapping,
        // replaces those pages by fresh inaccessible ones.
        let p = unsafe {
            libc::mmap(
                self.ptr.cast::<u8>().add(x).cast(),
                y - x,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The values G(0..end) by heap number. Only the backed ones may be
    /// read or written; the engine of a windowed run reads no others
    /// (and would fault, not read a wrong value, if it did).
    pub fn slice(&mut self, end: usize) -> &mut [u16] {
        assert!(end <= self.len, "ring: {end} values past its {}", self.len);
        // SAFETY: the range is reserved for `len` values and owned by
        // `self`, borrowed mutably; unbacked pages are never accessed.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, end) }
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: the mapping made by `reserve`, unmapped once.
        unsafe {
            libc::munmap(self.ptr.cast(), (2 * self.len).max(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_open_release_and_reopen_as_zero() {
        let n = 1 << 20;
        let mut r = Ring::reserve(n).unwrap();
        r.open(0, 1000).unwrap();
        r.open(100_000, 300_000).unwrap();
        let g = r.slice(300_000);
        g[..1000]
            .iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x = i as u16);
        for (i, x) in g[100_000..300_000].iter_mut().enumerate() {
            *x = (i % 999) as u16 + 1;
        }
        // Releasing the middle keeps both ends of the range.
        r.release(120_000, 280_000).unwrap();
        let g = r.slice(300_000);
        assert_eq!(g[999], 999);
        assert_eq!(g[100_000], 1);
        assert_eq!(g[299_999], (199_999 % 999) as u16 + 1);
        r.open(120_000, 280_000).unwrap();
        assert_eq!(
            r.slice(300_000)[200_000],
            0,
            "released values come back as zero"
        );
    }

    #[test]
    fn a_range_far_larger_than_memory_reserves_nothing() {
        // 2^40 values: 2 TiB of addresses, no memory.
        let r = Ring::reserve(1 << 40).unwrap();
        assert_eq!(r.len(), 1 << 40);
    }
}
