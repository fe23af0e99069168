//! Pair scans over a Grundy sequence: the inner loops of every engine.
//!
//! A split of a heap of size `m` into `a + (m − a)` has value
//! `G(a) ⊕ G(m − a)`, so the engines keep XOR-ing a run of the sequence
//! against a *reversed* run of it. [`find_xor`] looks for one target value
//! (the witness search); [`flag_xor`] marks the values `x ⊕ run[k]` in
//! per-heap flag rows (the rare-pair enumeration of the sparse engine).
//!
//! Each kernel has a scalar twin (`*_scalar`) that the SIMD path must match;
//! the tests below pin them equal on random inputs.

use std::any::TypeId;

use crate::Value;

/// The smallest `k` with `lo[k] ⊕ hi[hi.len() − 1 − k] == target`, if any.
/// `lo` and `hi` must have the same length.
#[inline]
pub fn find_xor<V: Value>(lo: &[V], hi: &[V], target: u32) -> Option<usize> {
    assert_eq!(lo.len(), hi.len(), "find_xor: runs of different lengths");
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            if TypeId::of::<V>() == TypeId::of::<u16>() {
                // SAFETY: V is u16 (checked above), so the slices are u16
                // slices; AVX2 is present (checked above).
                return unsafe {
                    let lo = std::slice::from_raw_parts(lo.as_ptr() as *const u16, lo.len());
                    let hi = std::slice::from_raw_parts(hi.as_ptr() as *const u16, hi.len());
                    if target > u16::MAX as u32 {
                        return None;
                    }
                    avx2::find_xor_u16(lo, hi, target as u16)
                };
            }
            if TypeId::of::<V>() == TypeId::of::<u32>() {
                // SAFETY: as above, for u32.
                return unsafe {
                    let lo = std::slice::from_raw_parts(lo.as_ptr() as *const u32, lo.len());
                    let hi = std::slice::from_raw_parts(hi.as_ptr() as *const u32, hi.len());
                    avx2::find_xor_u32(lo, hi, target)
                };
            }
        }
    }
    find_xor_scalar(lo, hi, target)
}

/// Scalar twin of [`find_xor`].
#[inline]
pub fn find_xor_scalar<V: Value>(lo: &[V], hi: &[V], target: u32) -> Option<usize> {
    assert_eq!(lo.len(), hi.len(), "find_xor: runs of different lengths");
    lo.iter()
        .zip(hi.iter().rev())
        .position(|(a, b)| a.get() ^ b.get() == target)
}

/// Most targets [`find_xor_any`] takes at once.
pub const MAX_TARGETS: usize = 8;

/// The smallest `k` with `lo[k] ⊕ hi[hi.len() − 1 − k]` in `targets`, if
/// any: one scan looks for several missing values at once. At most
/// [`MAX_TARGETS`] targets; `lo` and `hi` have the same length.
#[inline]
pub fn find_xor_any<V: Value>(lo: &[V], hi: &[V], targets: &[u32]) -> Option<usize> {
    assert_eq!(
        lo.len(),
        hi.len(),
        "find_xor_any: runs of different lengths"
    );
    assert!(
        targets.len() <= MAX_TARGETS,
        "find_xor_any: too many targets"
    );
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") && TypeId::of::<V>() == TypeId::of::<u16>() {
            let mut t = [u16::MAX; MAX_TARGETS];
            let mut k = 0;
            let mut wide = false;
            for &x in targets {
                if x <= u16::MAX as u32 {
                    t[k] = x as u16;
                    k += 1;
                } else {
                    wide = true;
                }
            }
            if !wide || k > 0 {
                // SAFETY: V is u16 (checked above); AVX2 is present.
                return unsafe {
                    let lo = std::slice::from_raw_parts(lo.as_ptr() as *const u16, lo.len());
                    let hi = std::slice::from_raw_parts(hi.as_ptr() as *const u16, hi.len());
                    avx2::find_xor_any_u16(lo, hi, &t[..k])
                };
            }
            return None;
        }
    }
    find_xor_any_scalar(lo, hi, targets)
}

/// Scalar twin of [`find_xor_any`].
#[inline]
pub fn find_xor_any_scalar<V: Value>(lo: &[V], hi: &[V], targets: &[u32]) -> Option<usize> {
    assert_eq!(
        lo.len(),
        hi.len(),
        "find_xor_any: runs of different lengths"
    );
    lo.iter()
        .zip(hi.iter().rev())
        .position(|(a, b)| targets.contains(&(a.get() ^ b.get())))
}

/// For every `k < run.len()`: `flags[k * row + (x ⊕ run[k])] = 1`.
///
/// Each of the `run.len()` rows of `row` bytes records which option values
/// one heap has; every `x ⊕ run[k]` must be below `row`. A byte per value
/// (rather than a bit) makes this a plain store with no read-modify-write,
/// which is what keeps it fast.
#[inline]
pub fn flag_xor<V: Value>(flags: &mut [u8], row: usize, x: u32, run: &[V]) {
    assert!(flags.len() >= run.len() * row, "flag_xor: flags too short");
    assert!(row.is_power_of_two(), "flag_xor: row not a power of two");
    assert!((x as usize) < row, "flag_xor: x out of range");
    // One store per element: the speed comes from no bounds checks and no
    // read-modify-write. Values ≥ row would be a caller bug; masking keeps
    // the store in bounds (and the tests pin the result to the scalar twin).
    let mask = row - 1;
    let mut p = flags.as_mut_ptr();
    // Four rows per step, the row pointer stepped rather than multiplied.
    let mut quads = run.chunks_exact(4);
    for q in &mut quads {
        let j = [0, 1, 2, 3].map(|t| ((x ^ q[t].get()) as usize) & mask);
        // SAFETY: the 4 rows of this step are below run.len() rows and
        // each j < row, so every store is inside flags.
        unsafe {
            *p.add(j[0]) = 1;
            *p.add(row + j[1]) = 1;
            *p.add(2 * row + j[2]) = 1;
            *p.add(3 * row + j[3]) = 1;
            p = p.add(4 * row);
        }
    }
    for v in quads.remainder() {
        let j = ((x ^ v.get()) as usize) & mask;
        debug_assert_eq!(j, (x ^ v.get()) as usize);
        // SAFETY: as above, one row at a time.
        unsafe {
            *p.add(j) = 1;
            p = p.add(row);
        }
    }
}

/// Scalar twin of [`flag_xor`] (the reference the tests compare against).
#[inline]
pub fn flag_xor_scalar<V: Value>(flags: &mut [u8], row: usize, x: u32, run: &[V]) {
    for (k, v) in run.iter().enumerate() {
        let i = k * row + (x ^ v.get()) as usize;
        flags[i] = 1;
    }
}

/// For every `k < lo.len()`: `row[lo[k] ⊕ hi[hi.len() − 1 − k]] = 1`.
///
/// The split values of one heap, flagged in its row (`row.len()` a power
/// of two above every XOR). `lo` and `hi` have the same length.
#[inline]
pub fn flag_pairs<V: Value>(row: &mut [u8], lo: &[V], hi: &[V]) {
    assert_eq!(lo.len(), hi.len(), "flag_pairs: runs of different lengths");
    assert!(
        row.len().is_power_of_two(),
        "flag_pairs: row not a power of two"
    );
    let mask = row.len() - 1;
    let base = row.as_mut_ptr();
    for (a, b) in lo.iter().zip(hi.iter().rev()) {
        let j = ((a.get() ^ b.get()) as usize) & mask;
        debug_assert_eq!(j, (a.get() ^ b.get()) as usize);
        // SAFETY: j ≤ mask < row.len().
        unsafe { *base.add(j) = 1 };
    }
}

/// Scalar twin of [`flag_pairs`].
pub fn flag_pairs_scalar<V: Value>(row: &mut [u8], lo: &[V], hi: &[V]) {
    for (a, b) in lo.iter().zip(hi.iter().rev()) {
        row[(a.get() ^ b.get()) as usize] = 1;
    }
}

/// For every `j < xs.len()`: `row[xs[j] ⊕ g[top − rs[j]]] = 1`.
///
/// The pairs of one heap with a list of (rare) heaps `rs` whose values are
/// `xs`: the partner of `rs[j]` is `top − rs[j]`. Every `rs[j]` must be in
/// `1..=top`, `top ≤ g.len()`, and every XOR below `row.len()`, a power of
/// two. No bounds checks in the loop: that is the whole gain over the twin.
#[inline]
pub fn flag_xor_gather<V: Value>(row: &mut [u8], xs: &[u32], rs: &[usize], g: &[V], top: usize) {
    assert_eq!(
        xs.len(),
        rs.len(),
        "flag_xor_gather: lists of different lengths"
    );
    assert!(top <= g.len(), "flag_xor_gather: top out of range");
    assert!(
        row.len().is_power_of_two(),
        "flag_xor_gather: row not a power of two"
    );
    let (lo, hi) = rs
        .iter()
        .fold((usize::MAX, 0), |(lo, hi), &r| (lo.min(r), hi.max(r)));
    assert!(
        rs.is_empty() || (lo >= 1 && hi <= top),
        "flag_xor_gather: heap out of range"
    );
    let mask = row.len() - 1;
    let base = row.as_mut_ptr();
    let g = &g[..top];
    for (&x, &r) in xs.iter().zip(rs) {
        // SAFETY: 1 ≤ r ≤ top (asserted), so top − r < top = g.len().
        let v = unsafe { g.get_unchecked(top - r) }.get();
        let j = ((x ^ v) as usize) & mask;
        debug_assert_eq!(j, (x ^ v) as usize);
        // SAFETY: j ≤ mask < row.len().
        unsafe { *base.add(j) = 1 };
    }
}

/// Scalar twin of [`flag_xor_gather`].
pub fn flag_xor_gather_scalar<V: Value>(
    row: &mut [u8],
    xs: &[u32],
    rs: &[usize],
    g: &[V],
    top: usize,
) {
    for (&x, &r) in xs.iter().zip(rs) {
        row[(x ^ g[top - r].get()) as usize] = 1;
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// Reverses the 16 `u16` lanes of `x`.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn rev16(x: __m256i) -> __m256i {
        let m = _mm256_setr_epi8(
            14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, //
            14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1,
        );
        _mm256_permute4x64_epi64(_mm256_shuffle_epi8(x, m), 0x4e)
    }

    #[target_feature(enable = "avx2")]
    pub unsafe fn find_xor_u16(lo: &[u16], hi: &[u16], target: u16) -> Option<usize> {
        let n = lo.len();
        let t = _mm256_set1_epi16(target as i16);
        let mut k = 0;
        // Two vectors per step: fewer branches on the (rare) hit.
        while k + 32 <= n {
            let a0 = _mm256_loadu_si256(lo.as_ptr().add(k) as *const __m256i);
            let a1 = _mm256_loadu_si256(lo.as_ptr().add(k + 16) as *const __m256i);
            let b0 = _mm256_loadu_si256(hi.as_ptr().add(n - k - 16) as *const __m256i);
            let b1 = _mm256_loadu_si256(hi.as_ptr().add(n - k - 32) as *const __m256i);
            let e0 = _mm256_cmpeq_epi16(_mm256_xor_si256(a0, rev16(b0)), t);
            let e1 = _mm256_cmpeq_epi16(_mm256_xor_si256(a1, rev16(b1)), t);
            let m = (_mm256_movemask_epi8(e0) as u32 as u64)
                | ((_mm256_movemask_epi8(e1) as u32 as u64) << 32);
            if m != 0 {
                return Some(k + m.trailing_zeros() as usize / 2);
            }
            k += 32;
        }
        while k + 16 <= n {
            let a = _mm256_loadu_si256(lo.as_ptr().add(k) as *const __m256i);
            let b = _mm256_loadu_si256(hi.as_ptr().add(n - k - 16) as *const __m256i);
            let e = _mm256_cmpeq_epi16(_mm256_xor_si256(a, rev16(b)), t);
            let m = _mm256_movemask_epi8(e) as u32;
            if m != 0 {
                return Some(k + m.trailing_zeros() as usize / 2);
            }
            k += 16;
        }
        (k..n).find(|&j| lo[j] ^ hi[n - 1 - j] == target)
    }

    #[target_feature(enable = "avx2")]
    pub unsafe fn find_xor_any_u16(lo: &[u16], hi: &[u16], targets: &[u16]) -> Option<usize> {
        let n = lo.len();
        if targets.is_empty() {
            return None;
        }
        let mut t = [_mm256_setzero_si256(); super::MAX_TARGETS];
        for (v, &x) in t.iter_mut().zip(targets) {
            *v = _mm256_set1_epi16(x as i16);
        }
        let t = &t[..targets.len()];
        let mut k = 0;
        while k + 16 <= n {
            let a = _mm256_loadu_si256(lo.as_ptr().add(k) as *const __m256i);
            let b = _mm256_loadu_si256(hi.as_ptr().add(n - k - 16) as *const __m256i);
            let x = _mm256_xor_si256(a, rev16(b));
            let mut e = _mm256_cmpeq_epi16(x, t[0]);
            for tj in &t[1..] {
                e = _mm256_or_si256(e, _mm256_cmpeq_epi16(x, *tj));
            }
            let m = _mm256_movemask_epi8(e) as u32;
            if m != 0 {
                return Some(k + m.trailing_zeros() as usize / 2);
            }
            k += 16;
        }
        (k..n).find(|&j| targets.contains(&(lo[j] ^ hi[n - 1 - j])))
    }

    #[target_feature(enable = "avx2")]
    pub unsafe fn find_xor_u32(lo: &[u32], hi: &[u32], target: u32) -> Option<usize> {
        let n = lo.len();
        let t = _mm256_set1_epi32(target as i32);
        let rev = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
        let mut k = 0;
        while k + 8 <= n {
            let a = _mm256_loadu_si256(lo.as_ptr().add(k) as *const __m256i);
            let b = _mm256_loadu_si256(hi.as_ptr().add(n - k - 8) as *const __m256i);
            let b = _mm256_permutevar8x32_epi32(b, rev);
            let e = _mm256_cmpeq_epi32(_mm256_xor_si256(a, b), t);
            let m = _mm256_movemask_ps(_mm256_castsi256_ps(e)) as u32;
            if m != 0 {
                return Some(k + m.trailing_zeros() as usize);
            }
            k += 8;
        }
        (k..n).find(|&j| lo[j] ^ hi[n - 1 - j] == target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check_find<V: Value>(lo: &[V], hi: &[V], t: u32) {
        assert_eq!(find_xor(lo, hi, t), find_xor_scalar(lo, hi, t));
    }

    proptest! {
        #[test]
        fn find_xor_matches_scalar_u16(
            pairs in proptest::collection::vec((0u16..40, 0u16..40), 0..300),
            t in 0u32..70,
        ) {
            let (lo, hi): (Vec<u16>, Vec<u16>) = pairs.into_iter().unzip();
            check_find(&lo, &hi, t);
            // Every present value is found at its first position.
            if let Some(k) = find_xor_scalar(&lo, &hi, t) {
                prop_assert_eq!(lo[k] as u32 ^ hi[hi.len() - 1 - k] as u32, t);
            }
        }

        #[test]
        fn find_xor_matches_scalar_u32(
            pairs in proptest::collection::vec((0u32..40, 0u32..40), 0..300),
            t in 0u32..70,
        ) {
            let (lo, hi): (Vec<u32>, Vec<u32>) = pairs.into_iter().unzip();
            check_find(&lo, &hi, t);
        }

        #[test]
        fn find_xor_big_values(
            pairs in proptest::collection::vec((any::<u16>(), any::<u16>()), 0..100),
            t in any::<u32>(),
        ) {
            let (lo, hi): (Vec<u16>, Vec<u16>) = pairs.into_iter().unzip();
            check_find(&lo, &hi, t);
            let lo32: Vec<u32> = lo.iter().map(|&x| x as u32 * 65537).collect();
            let hi32: Vec<u32> = hi.iter().map(|&x| x as u32 * 3).collect();
            check_find(&lo32, &hi32, t);
        }

        #[test]
        fn find_xor_any_matches_scalar(
            pairs in proptest::collection::vec((0u16..60, 0u16..60), 0..300),
            targets in proptest::collection::vec(0u32..70, 0..=MAX_TARGETS),
            big in any::<u32>(),
        ) {
            let (lo, hi): (Vec<u16>, Vec<u16>) = pairs.into_iter().unzip();
            prop_assert_eq!(find_xor_any(&lo, &hi, &targets), find_xor_any_scalar(&lo, &hi, &targets));
            let mut t2 = targets.clone();
            t2.truncate(MAX_TARGETS - 1);
            t2.push(big);
            prop_assert_eq!(find_xor_any(&lo, &hi, &t2), find_xor_any_scalar(&lo, &hi, &t2));
            let lo32: Vec<u32> = lo.iter().map(|&x| x as u32).collect();
            let hi32: Vec<u32> = hi.iter().map(|&x| x as u32).collect();
            prop_assert_eq!(find_xor_any(&lo32, &hi32, &t2), find_xor_any_scalar(&lo, &hi, &t2));
            if let Some(k) = find_xor_any_scalar(&lo, &hi, &targets) {
                prop_assert!(targets.contains(&(lo[k] as u32 ^ hi[hi.len() - 1 - k] as u32)));
            }
        }

        #[test]
        fn flag_xor_matches_naive(
            run in proptest::collection::vec(0u16..64, 0..100),
            x in 0u32..64,
        ) {
            let row = 64;
            let mut a = vec![0u8; run.len() * row];
            let mut b = a.clone();
            flag_xor(&mut a, row, x, &run);
            flag_xor_scalar(&mut b, row, x, &run);
            prop_assert_eq!(&a, &b);
            for (k, v) in run.iter().enumerate() {
                let set: Vec<usize> = (0..row).filter(|&j| a[k * row + j] != 0).collect();
                prop_assert_eq!(set, vec![(x ^ *v as u32) as usize]);
            }
        }
    }

    proptest! {
        #[test]
        fn flag_pairs_matches_scalar(
            pairs in proptest::collection::vec((0u16..64, 0u16..64), 0..200),
        ) {
            let (lo, hi): (Vec<u16>, Vec<u16>) = pairs.into_iter().unzip();
            let mut a = vec![0u8; 64];
            let mut b = a.clone();
            flag_pairs(&mut a, &lo, &hi);
            flag_pairs_scalar(&mut b, &lo, &hi);
            prop_assert_eq!(&a, &b);
            let want: std::collections::BTreeSet<usize> = (0..lo.len())
                .map(|k| (lo[k] ^ hi[hi.len() - 1 - k]) as usize)
                .collect();
            let got: std::collections::BTreeSet<usize> = (0..64).filter(|&j| a[j] != 0).collect();
            prop_assert_eq!(got, want);
        }
    }

    proptest! {
        #[test]
        fn flag_xor_gather_matches_scalar(
            g in proptest::collection::vec(0u16..64, 1..200),
            picks in proptest::collection::vec((0u32..64, any::<usize>()), 0..100),
            top_pick in any::<usize>(),
        ) {
            let top = top_pick % (g.len() + 1);
            let mut xs = Vec::new();
            let mut rs = Vec::new();
            if top >= 1 {
                for &(x, r) in &picks {
                    xs.push(x);
                    rs.push(1 + r % top);
                }
            }
            let mut a = vec![0u8; 64];
            let mut b = a.clone();
            flag_xor_gather(&mut a, &xs, &rs, &g, top);
            flag_xor_gather_scalar(&mut b, &xs, &rs, &g, top);
            prop_assert_eq!(&a, &b);
            let want: std::collections::BTreeSet<usize> = xs
                .iter()
                .zip(&rs)
                .map(|(&x, &r)| (x ^ g[top - r] as u32) as usize)
                .collect();
            let got: std::collections::BTreeSet<usize> = (0..64).filter(|&j| a[j] != 0).collect();
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn find_xor_by_hand() {
        // lo[k] ^ hi[len-1-k]: pairs (1,6) (2,5) (3,4) → 7, 7, 7 … and 5^0.
        let lo = [1u16, 2, 3, 5];
        let hi = [0u16, 4, 5, 6];
        assert_eq!(find_xor(&lo, &hi, 7), Some(0));
        assert_eq!(find_xor(&lo, &hi, 5), Some(3));
        assert_eq!(find_xor(&lo, &hi, 6), None);
    }
}
