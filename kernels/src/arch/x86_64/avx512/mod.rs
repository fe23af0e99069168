//! AVX-512 paths: 512-bit vectors and mask registers.

pub(crate) mod diagonal;
pub(crate) mod mex;
pub(crate) mod runs;
pub(crate) mod witness;

/// Byte `j` of a result takes byte `2j` of two sources: the low bytes of
/// two vectors of u16 lanes (with `vpermt2b`).
pub(crate) const LOW_BYTES: [u8; 64] = {
    let mut r = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        r[j] = (2 * j) as u8;
        j += 1;
    }
    r
};
