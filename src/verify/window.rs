//! `octal verify` of a windowed run's checkpoint: its file checksum on
//! reading, then heaps of its window recomputed from the kept values by
//! a method that shares no code with the sparse engine (only the reference engine's
//! list of options): every option the kept values give, into a bitset,
//! then the least value no option reaches. The split pairs
//! that are not kept join two common heaps (every rare position lies in
//! the prefix), so under the run's mask they only reach values of the
//! heap's own class: a least unreached value of the other class is G(n)
//! for certain, and one of the heap's own class is G(n) only when every
//! split pair is kept. Otherwise the heap is left undecided here.

use std::path::Path;

use super::sample::sample_heaps;
use crate::code::Code;
use crate::engine::reference::two_heap_options;
use crate::engine::{Mask, WindowState};
use crate::store::StoreError;
use crate::window::{checked_code, file, reach, KeptValues};

/// What `octal verify` finds in a windowed run's checkpoint.
#[derive(Debug, Clone)]
pub struct WindowVerdict {
    /// One line: the run, and what was checked.
    pub line: String,
    /// Heaps recomputed whose value differs: (n, kept, recomputed).
    pub wrong: Vec<(u64, u32, u32)>,
}

/// Checks a windowed run's checkpoint (its file checksum, on reading) and
/// recomputes `k` heaps of its window (chosen by `seed`, plus the last)
/// from the kept values by [`value_at`].
pub fn verify_window(path: &Path, k: u64, seed: u64) -> Result<WindowVerdict, StoreError> {
    let (meta, values) = file::read(path)?;
    let code = checked_code(path, &meta, &values)?;
    let [(a0, a1), (b0, _)] = meta.kept_ranges();
    let (prefix, ring) = values.split_at((a1 - a0) as usize);
    let kv = KeptValues {
        prefix,
        lo: b0 as usize,
        ring,
    };
    let mask = meta.engine.as_ref().map(WindowState::mask);
    // Heaps whose prefix pairs all have their partners kept (all of them
    // before anything is dropped).
    let from = match meta.prefix {
        0 => 0,
        p => b0 + p + reach(&code),
    };
    let mut picks = if meta.done > from {
        // At most one pick a heap that can be picked.
        let k = k.min(meta.done - from);
        sample_heaps(seed, k, from, meta.done)
    } else {
        Vec::new()
    };
    picks.sort_unstable();
    picks.dedup();
    let mut wrong = Vec::new();
    let mut undecided = 0;
    for &n in &picks {
        let have = kv.get(n as usize).expect("a kept heap");
        match value_at(&code, mask, &kv, n as usize) {
            Some(v) if v != have => wrong.push((n, have, v)),
            Some(_) => {}
            None => undecided += 1,
        }
    }
    let line = format!(
        "{}: windowed run of {}, {} values (window {}, prefix {}), checksum {}, file checksum ok, {} heaps of the window recomputed from the kept values{}",
        path.display(),
        meta.code,
        meta.done,
        meta.sizes.window,
        meta.prefix.max(meta.sizes.prefix),
        meta.stats.checksum.hex(),
        picks.len() - undecided,
        if undecided > 0 {
            format!(" ({undecided} more not decidable from them)")
        } else {
            String::new()
        }
    );
    Ok(WindowVerdict { line, wrong })
}

/// G(n) from the kept values alone, or None when they cannot decide it.
/// `mask` is the run's (None for a game without splits).
pub fn value_at(code: &Code, mask: Option<Mask>, g: &KeptValues, n: usize) -> Option<u32> {
    let rules = code.rules();
    // A one-heap option's value can be of either class: it must be kept.
    if rules
        .take_leave_one
        .iter()
        .any(|&i| n > i && g.get(n - i).is_none())
    {
        return None;
    }
    let mut reached = vec![false; 1 << 17];
    let mut all_kept = true;
    two_heap_options(
        &rules,
        n,
        |h| g.get(h),
        |v| match v {
            Some(x) => reached[x as usize] = true,
            None => all_kept = false,
        },
    );
    let v = reached.iter().position(|&r| !r)? as u32;
    if all_kept {
        return Some(v);
    }
    let i0 = rules.take_split.first().copied().unwrap_or(0);
    let mask = mask?;
    // Unkept pairs reach only the class q(n): a least unreached value of
    // the other class is the mex whatever they reach.
    (mask.parity(v) != mask.q(n, i0)).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{compute, Reference};

    #[test]
    fn with_every_value_kept_it_is_the_mex() {
        for code in ["0.6", ".137", "4.7", "0.33337", "grundy"] {
            let c: Code = code.parse().unwrap();
            let g = compute(&mut Reference::new(&c), 600);
            let g16: Vec<u16> = g.iter().map(|&v| v as u16).collect();
            let kept = KeptValues {
                prefix: &g16,
                lo: g16.len(),
                ring: &[],
            };
            for (n, &want) in g.iter().enumerate() {
                assert_eq!(value_at(&c, None, &kept, n), Some(want), "{code} G({n})");
            }
        }
    }

    #[test]
    fn in_a_window_it_decides_most_heaps_and_each_one_rightly() {
        // 0.6 with G(0..21000) and G(30000..60000) kept: heaps from 51,001
        // on have every prefix pair's partner. The mask is the engine's.
        let c: Code = "0.6".parse().unwrap();
        let g = compute(&mut Reference::new(&c), 60_000);
        let mut e = crate::engine::Sparse::new(&c, 1, crate::engine::MaskSpec::Sparse).unwrap();
        compute(&mut e, 60_000);
        let mask = e.mask();
        assert!(mask.is_some());
        let g16: Vec<u16> = g.iter().map(|&v| v as u16).collect();
        let kept = KeptValues {
            prefix: &g16[..21_000],
            lo: 30_000,
            ring: &g16[30_000..],
        };
        let (mut decided, mut tried) = (0, 0);
        for n in (51_001..60_000).step_by(37) {
            tried += 1;
            if let Some(v) = value_at(&c, mask, &kept, n) {
                assert_eq!(v, g[n], "G({n})");
                decided += 1;
            }
        }
        assert!(decided * 10 >= tried * 9, "{decided} of {tried} decided");
        // Without the mask only heaps whose every pair is kept are decided.
        assert_eq!(value_at(&c, None, &kept, 55_000), None);
    }
}
