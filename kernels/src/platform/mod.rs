//! The one place the kernels choose a path: a function per operation, each
//! one `match` on the [`Level`] (detected once in [`isa`]), as BLAKE3's
//! `platform.rs` does it. The kernels' public modules check their inputs
//! and call here; the paths themselves live in `crate::portable` and under
//! `crate::arch`, and know nothing of one another or of this module.
//!
//! What a level runs, in short: AVX2 and both AVX-512 levels share the
//! AVX2 pair flags, mex scan, `pairs_hit` and the strike of witness sets
//! of a few values; AVX-512 without VBMI runs
//! the AVX2 code wherever the AVX-512 form needs the byte permutes (the
//! diagonal's sets in registers, the checked runs' low bytes); NEON has
//! its own form of each but `pairs_hit`; the portable level runs
//! `crate::portable`.

pub mod isa;

#[cfg(target_arch = "aarch64")]
use crate::arch::aarch64::neon;
#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{avx2, avx512};
use crate::generic::rows::Check;
use crate::generic::{as_u16, has_few_values, HIT_CANDIDATES, SIMD_WORDS};
use crate::portable;
use crate::value::Value;
use isa::Level;

/// Largest set (in values) whose bitset the AVX-512 VBMI path of
/// `diagonal::or_pair_xors` keeps in (up to 32) registers; beyond, byte
/// rows. At 16384 values the tables spill, and are still faster than byte
/// rows (docs/performance.md).
pub const REGISTER_SET_MAX: usize = 16384;

/// `witness::strike_xors` at `level`.
#[inline]
pub(crate) fn strike_xors<V: Value>(level: Level, set: &mut [u64], lo: &[V], hi: &[V]) -> bool {
    if let Some((lo, hi)) = as_u16(lo, hi).filter(|_| set.len() <= SIMD_WORDS) {
        match level {
            #[cfg(target_arch = "x86_64")]
            // A few values are struck faster by the AVX2 compares than
            // by AVX-512's table of the set, a permute a step whatever it
            // holds (`.16`'s sets: docs/performance.md).
            Level::Avx512 | Level::Avx512Vbmi if has_few_values(set) => {
                // SAFETY: the host has the avx2 features (which the avx512
                // levels imply); set.len() <= SIMD_WORDS.
                return unsafe { avx2::witness::strike_xors_u16(set, lo, hi) };
            }
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 | Level::Avx512Vbmi => {
                // SAFETY: the host has the avx512 features (the level);
                // set.len() <= SIMD_WORDS.
                return unsafe { avx512::witness::strike_xors_u16(set, lo, hi) };
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the host has the avx2 features (the level);
            // set.len() <= SIMD_WORDS.
            Level::Avx2 => return unsafe { avx2::witness::strike_xors_u16(set, lo, hi) },
            #[cfg(target_arch = "aarch64")]
            Level::Neon => {
                let block = portable::witness::strike_xors::<u16>;
                // SAFETY: the host has NEON; set.len() <= SIMD_WORDS.
                return unsafe { neon::witness::strike_xors_u16(set, lo, hi, block) };
            }
            _ => {}
        }
    }
    portable::witness::strike_xors(set, lo, hi)
}

/// `pairs::flag_pairs` at `level`, returning the OR of every XOR.
#[inline]
pub(crate) fn flag_pairs<V: Value>(level: Level, row: &mut [u8], lo: &[V], hi: &[V]) -> u32 {
    if let Some((lo, hi)) = as_u16(lo, hi).filter(|(lo, _)| lo.len() >= 32) {
        if row.len() <= 1 << 16 {
            match level {
                // AVX-512 has nothing to add: the stores are the cost.
                #[cfg(target_arch = "x86_64")]
                Level::Avx2 | Level::Avx512 | Level::Avx512Vbmi => {
                    // SAFETY: the host has the avx2 features (which
                    // Features::avx512 implies); row.len() a power of two
                    // (the caller's check) <= 65536.
                    return unsafe { avx2::pairs::flag_pairs_u16(row, lo, hi) } as u32;
                }
                #[cfg(target_arch = "aarch64")]
                // SAFETY: the host has NEON; row.len() a power of two <= 65536.
                Level::Neon => return unsafe { neon::pairs::flag_pairs_u16(row, lo, hi) } as u32,
                _ => {}
            }
        }
    }
    portable::pairs::flag_pairs(row, lo, hi)
}

/// Whether `diagonal::or_pair_xors` at `level` keeps long diagonals' sets
/// in registers (AVX-512 with VBMI).
#[inline]
pub(crate) fn sets_in_registers(level: Level) -> bool {
    match level {
        Level::Avx512Vbmi => true,
        Level::Portable | Level::Avx2 | Level::Avx512 | Level::Neon => false,
    }
}

/// `diagonal::or_pair_xors` at `level` (its inputs checked): sets in
/// registers where the level has them and the run is long, else the bits
/// one by one for short runs, else a byte row flagged and packed.
pub(crate) fn or_pair_xors<V: Value>(
    level: Level,
    bits: &mut [u64],
    lo: &[V],
    hi: &[V],
    bytes: &mut Vec<u8>,
) {
    let bound = 64 * bits.len();
    if let Some((lo, hi)) = as_u16(lo, hi).filter(|(lo, _)| lo.len() >= 256) {
        let or = match level {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the host has the avx512 features and VBMI, VBMI2
            // and BITALG (the level); 64 · bits.len() <= REGISTER_SET_MAX.
            Level::Avx512Vbmi if bound <= REGISTER_SET_MAX => unsafe {
                Some(avx512::diagonal::or_pair_xors(bits, lo, hi))
            },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: the host has NEON; bits.len() a power of two (the
            // caller's check), bound <= SET_MAX.
            Level::Neon if bound <= neon::diagonal::SET_MAX => unsafe {
                Some(neon::diagonal::or_pair_xors(bits, lo, hi))
            },
            _ => None,
        };
        if let Some(or) = or {
            assert!((or as usize) < bound, "or_pair_xors: XOR {or} out of range");
            return;
        }
    }
    if lo.len() < bound / 4 {
        // Short runs: fewer bit updates than a row would cost to clear.
        portable::diagonal::set_pair_xors(bits, lo, hi);
        return;
    }
    bytes.clear();
    bytes.resize(bound, 0);
    let or = flag_pairs(level, bytes, lo, hi);
    assert!((or as usize) < bound, "or_pair_xors: XOR {or} out of range");
    or_flagged(level, bits, bytes);
}

/// `diagonal::or_flagged` at `level` (its inputs checked): the flags as
/// bits 1024 at a time (the open ones, inverted).
#[inline]
pub(crate) fn or_flagged(level: Level, bits: &mut [u64], row: &[u8]) {
    let mut open = [0u64; 16];
    for (words, flags) in bits.chunks_mut(16).zip(row.chunks(1024)) {
        let n = flags.len().div_ceil(64);
        unflagged_bits(level, flags, &mut open[..n]);
        for (w, o) in words.iter_mut().zip(&open[..n]) {
            *w |= !o;
        }
    }
}

/// `diagonal::pairs_hit` at `level` (the lengths checked).
#[inline]
pub(crate) fn pairs_hit<V: Value>(
    level: Level,
    lo: &[V],
    partners: &[V],
    cands: &[u32; HIT_CANDIDATES],
) -> u32 {
    let Some((lo, partners)) = as_u16(lo, partners) else {
        return portable::diagonal::pairs_hit_wide(lo, partners, cands);
    };
    // A candidate above u16 is no XOR of u16 values: compared as its low
    // bits, then its bit cleared.
    let fits = cands
        .iter()
        .enumerate()
        .fold(0, |m, (j, &c)| m | u32::from(c <= 0xffff) << j);
    let c16 = cands.map(|c| c as u16);
    let hit = match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the host has the avx2 features (which Features::avx512
        // implies); the lengths are equal (the caller's check).
        Level::Avx2 | Level::Avx512 | Level::Avx512Vbmi => unsafe {
            avx2::diagonal::pairs_hit_u16(lo, partners, &c16)
        },
        _ => portable::diagonal::pairs_hit(lo, partners, &c16),
    };
    hit & fits
}

/// `mex::first_unflagged` at `level`.
#[inline]
pub(crate) fn first_unflagged(level: Level, flags: &[u8]) -> usize {
    match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the host has the avx2 features (on the avx512 levels too:
        // detection makes Features::avx512 imply Features::avx2).
        Level::Avx2 | Level::Avx512 | Level::Avx512Vbmi => unsafe {
            avx2::mex::first_unflagged(flags)
        },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: the host has NEON.
        Level::Neon => unsafe { neon::mex::first_unflagged(flags) },
        _ => portable::mex::first_unflagged(flags),
    }
}

/// `mex::unflagged_bits` at `level` (`out` checked to hold the bits).
#[inline]
pub(crate) fn unflagged_bits(level: Level, flags: &[u8], out: &mut [u64]) {
    match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the host has the avx512 features; out holds the bits.
        Level::Avx512 | Level::Avx512Vbmi => unsafe { avx512::mex::unflagged_bits(flags, out) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the host has the avx2 features; out holds the bits.
        Level::Avx2 => unsafe { avx2::mex::unflagged_bits(flags, out) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: the host has NEON; out holds the bits.
        Level::Neon => unsafe { neon::mex::unflagged_bits(flags, out) },
        _ => portable::mex::unflagged_bits(flags, out),
    }
}

/// Whether `level` has vector far flags and checks ([`run_groups`],
/// [`check_group`]): every level but the portable one.
#[inline(always)]
pub(crate) fn vector_runs(level: Level) -> bool {
    match level {
        Level::Avx2 | Level::Avx512 | Level::Avx512Vbmi | Level::Neon => true,
        Level::Portable => false,
    }
}

/// `runs::checks_pay` at `level`: whether the checked runs of rows of
/// `row` bytes cost less than flagging them, tuned per level (measured on
/// `0.6`: docs/performance.md):
/// - AVX-512's check (32 rows a vector, 12 compares a run) costs less than
///   the flags it saves, on whole values and on low bytes (without VBMI
///   its low bytes take the AVX2 check, as before);
/// - AVX2's pays on low bytes only, where the group's 32 rows fit one
///   vector of bytes; on whole values, two vectors of 16 rows, it costs
///   as much as the flags;
/// - the portable check walks each row's bytes, which costs more;
/// - NEON's (8 rows a vector) is exact but untimed on an aarch64 machine,
///   so it is off there until it has been.
pub(crate) fn checks_pay<V: Value>(level: Level, row: usize, low_bytes: bool) -> bool {
    let pays = match level {
        Level::Avx512 | Level::Avx512Vbmi => true,
        Level::Avx2 => low_bytes,
        Level::Portable | Level::Neon => false,
    };
    pays && std::any::TypeId::of::<V>() == std::any::TypeId::of::<u16>()
        && matches!(row, 256 | 512 | 1024)
}

/// Every run `(xs[j], g + starts[j])` into a full group of rows at the
/// vector level `level`: byte `t · ROW + ((xs[j] ⊕ q[t]) mod ROW)` from
/// `p` set to 1, for each `t < GROUP`, where `q = g + starts[j]`.
///
/// # Safety
/// The host has `level` and [`vector_runs`] holds for it; each
/// `g + starts[j]` points to GROUP values, and `p` to GROUP writable rows
/// of ROW bytes.
#[inline(always)]
pub(crate) unsafe fn run_groups<const ROW: usize>(
    level: Level,
    p: *mut u8,
    xs: &[u32],
    starts: &[usize],
    g: *const u16,
) {
    // SAFETY: in all arms, the host has the level's features and the
    // pointers are as `groups` needs them (this function's contract).
    unsafe {
        match level {
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 | Level::Avx512Vbmi => avx512::runs::groups::<ROW>(p, xs, starts, g),
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => avx2::runs::groups::<ROW>(p, xs, starts, g),
            #[cfg(target_arch = "aarch64")]
            Level::Neon => neon::runs::groups::<ROW>(p, xs, starts, g),
            _ => unreachable!("no vector groups at the {level:?} level"),
        }
    }
}

/// The checked runs of a full group of rows at the vector level `level`
/// (see `runs::Runs::flag_checked`). AVX-512 without VBMI compares low
/// bytes with the AVX2 check: they need VBMI's byte permutes.
///
/// # Safety
/// As for [`run_groups`], for every checked run `(xs[i], g + starts[i])`;
/// `lims` has GROUP limits.
#[inline(always)]
pub(crate) unsafe fn check_group<'e, const ROW: usize>(
    level: Level,
    p: *mut u8,
    (xs, starts): (&[u32], &[usize]),
    g: *const u16,
    check: &Check<impl Fn(usize) -> &'e [u64]>,
    lims: &mut [u32],
) {
    // SAFETY: in all arms, the host has the level's features (the avx512
    // ones include the avx2 ones, and VBMI where the level says so) and
    // the pointers are as `check_group` needs them (this function's
    // contract).
    unsafe {
        match level {
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 if check.low_bytes => {
                avx2::runs::check_group::<ROW>(p, xs, starts, g, check, lims)
            }
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 | Level::Avx512Vbmi => {
                avx512::runs::check_group::<ROW>(p, xs, starts, g, check, lims)
            }
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => avx2::runs::check_group::<ROW>(p, xs, starts, g, check, lims),
            #[cfg(target_arch = "aarch64")]
            Level::Neon => neon::runs::check_group::<ROW>(p, xs, starts, g, check, lims),
            _ => unreachable!("no vector checks at the {level:?} level"),
        }
    }
}
