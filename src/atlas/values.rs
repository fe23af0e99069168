//! A class made ready for its page: its first values computed by the
//! engine, its row checked against them, and its rare positions (listed
//! by the census or derived with its mask).

use crate::atlas::census::Row;
use crate::atlas::error::AtlasError;
use crate::census::Status;
use crate::engine::{mask, EngineKind, Mask};

/// Where a class' rare positions come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RareSource {
    /// The row's `rare_list`: every one up to the reach.
    Listed,
    /// Derived from the first values with the row's mask: those below
    /// the plotted range; `complete` when they are all the census counts.
    Derived { mask: Mask, complete: bool },
    /// None to show: the row has no sparse-space mask.
    NoMask,
}

/// One class, ready to be written: its row, its first values and its
/// rare positions.
pub struct Class<'a> {
    pub row: &'a Row,
    pub values: Vec<u32>,
    /// Rare positions (heap, value), those the plot and table show.
    pub rare: Vec<(u64, u32)>,
    pub source: RareSource,
}

/// How many values a class' page shows: a period's preperiod and two
/// periods (at least 100, all read off a proven period), else the reach;
/// never more than `most`.
pub fn shown(row: &Row, most: u64) -> u64 {
    let r = &row.result;
    let n = match r.status {
        Status::Periodic {
            period, preperiod, ..
        } => preperiod.saturating_add(period.saturating_mul(2)).max(100),
        _ => r.reach,
    };
    n.min(most)
}

/// Computes a class' first values and checks the row against them: its
/// G(2^j), its largest value where the values cover it, its rare list.
pub fn class<'a>(row: &'a Row, most: u64) -> Result<Class<'a>, AtlasError> {
    let code = row.code();
    let r = &row.result;
    let n = shown(row, most) as usize;
    let mut engine = EngineKind::Sparse.build(&code, 1);
    let values = crate::compute(engine.as_mut(), n);
    let disagrees = |why: String| AtlasError::Disagrees {
        code: r.code.clone(),
        why,
    };
    for (j, &want) in r.at_powers_of_two.iter().enumerate() {
        let at = 1usize << j;
        if let Some(&got) = values.get(at) {
            if got != want {
                return Err(disagrees(format!(
                    "it gives G({at}) = {want}, the engine {got}"
                )));
            }
        }
    }
    let covers_max = match r.status {
        Status::Periodic {
            period, preperiod, ..
        } => (n as u64) >= preperiod + period,
        _ => n as u64 >= r.reach,
    };
    let max = values.iter().copied().max().unwrap_or(0);
    if covers_max && max != r.max_value {
        return Err(disagrees(format!(
            "its largest value is {}, the engine's {max} in the first {n}",
            r.max_value
        )));
    }
    let (rare, source) = match (&row.result.rare_list, row.mask()) {
        (Some(list), _) => {
            if let Some(&(at, g)) = list
                .iter()
                .find(|&&(at, g)| values.get(at as usize).is_some_and(|&v| v != g))
            {
                return Err(disagrees(format!(
                    "its rare list gives G({at}) = {g}, the engine {}",
                    values[at as usize]
                )));
            }
            (list.clone(), RareSource::Listed)
        }
        (None, Some((bits, pp))) => derive_rare(row, &values, bits, pp)
            .map(|(m, rare, complete)| (rare, RareSource::Derived { mask: m, complete }))
            .ok_or_else(|| {
                disagrees(format!(
                    "its mask 0x{bits:x} does not give the rare positions it counts"
                ))
            })?,
        (None, None) => (Vec::new(), RareSource::NoMask),
    };
    Ok(Class {
        row,
        values,
        rare,
        source,
    })
}

/// A mask, the rare positions (heap, value) it gives and whether they
/// are all the census counts.
type Reading = (Mask, Vec<(u64, u32)>, bool);

/// The rare positions n ≥ 1 among `values` under the row's mask (the
/// engine's definition, [`Mask::is_rare`]), with whether they are all the
/// row counts. A row whose position parity is not said is read both
/// ways; the reading that fits its count and last rare position is taken
/// (the fewer rare positions if both fit, as the engine's choice of mask
/// makes them). `None` when no reading fits.
fn derive_rare(row: &Row, values: &[u32], bits: u32, pp: Option<bool>) -> Option<Reading> {
    let code = row.code();
    let (i0, allow_pp) = mask::split_parity(&code.rules().take_split);
    let readings: Vec<bool> = match pp {
        Some(p) => vec![p],
        None if allow_pp => vec![false, true],
        None => vec![false],
    };
    let (count, last) = (row.result.rare_positions, row.result.last_rare_at);
    let n = values.len() as u64;
    let mut best: Option<Reading> = None;
    for pp in readings {
        let m = Mask { bits, pp };
        let rare: Vec<(u64, u32)> = values
            .iter()
            .enumerate()
            .skip(1)
            .filter(|&(i, &v)| m.is_rare(i, v, i0))
            .map(|(i, &v)| (i as u64, v))
            .collect();
        let k = rare.len() as u64;
        // All of them are below the plotted range when the last is.
        let all_here = last.is_some_and(|l| l < n) || n >= row.result.reach;
        let fits = count.is_none_or(|c| if all_here { k == c } else { k <= c })
            && last.is_none_or(|l| rare.last().is_none_or(|r| r.0 <= l))
            && (!all_here || last.is_none() || rare.last().map(|r| r.0) == last);
        if fits && best.as_ref().is_none_or(|b| rare.len() < b.1.len()) {
            best = Some((m, rare, all_here));
        }
    }
    best
}
