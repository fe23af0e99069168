//! The portable paths of the flag-row scans (`mex::first_unflagged`,
//! `mex::unflagged_bits`): SWAR, eight bytes in a general register.

use crate::generic::{first_zero, unflagged_tail};

/// The portable path of `mex::first_unflagged`: eight bytes a step, a zero
/// byte found by the carry trick (SWAR).
pub fn first_unflagged(flags: &[u8]) -> usize {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = flags.chunks_exact(8);
    for (i, c) in (&mut chunks).enumerate() {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        // The lowest byte that is zero sets its top bit here (bytes above
        // it may be wrong: only the lowest is read).
        let zero = w.wrapping_sub(LOW) & !w & HIGH;
        if zero != 0 {
            return 8 * i + zero.trailing_zeros() as usize / 8;
        }
    }
    let j = flags.len() - chunks.remainder().len();
    j + first_zero(&flags[j..])
}

/// The portable path of `mex::unflagged_bits`: each output word from 64 flag
/// bytes, eight at a time gathered into eight bits by a multiply (SWAR)
/// and the word built in a register, for flag bytes that are 0 or 1 as
/// every kernel writes them; a word with other bytes takes the byte by
/// byte loop. (A read-modify-write of `out` for every eight bytes is
/// slower: docs/performance.md.)
pub fn unflagged_bits(flags: &[u8], out: &mut [u64]) {
    const LOW: u64 = 0x0101_0101_0101_0101;
    let mut chunks = flags.chunks_exact(64);
    for (o, c) in out.iter_mut().zip(&mut chunks) {
        let w: [u64; 8] = std::array::from_fn(|k| {
            u64::from_le_bytes(c[8 * k..8 * k + 8].try_into().expect("8 bytes"))
        });
        if w.iter().fold(0, |a, &x| a | x) & !LOW != 0 {
            *o = 0;
            unflagged_tail(c, 0, std::slice::from_mut(o));
            continue;
        }
        let mut set = 0u64;
        for (k, &x) in w.iter().enumerate() {
            // Byte j (0 or 1) to bit 56 + j, then the eight bits down to 8k.
            set |= (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
        }
        *o = !set;
    }
    let done = flags.len() / 64;
    out[done..].fill(0);
    unflagged_tail(flags, 64 * done, out);
}
