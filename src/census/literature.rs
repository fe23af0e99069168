//! Where the literature stands on each class of a census: the class'
//! members and outcome as a [`ClassClaim`], judged against every published
//! entry, with the values quoted as evidence read from the census' stores.
//! This is the library's judgement; `octal census` only prints it.

use std::cell::RefCell;
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::census::classes::Equivalences;
use crate::census::result::CodeResult;
use crate::code::Code;
use crate::literature::{ClassClaim, Literature, Member, Outcome, Standing};
use crate::store::Opened;

/// Each class' standing against the embedded literature, by its first
/// code. `stores[i]` holds the values of `results[i]` (read only where a
/// member's shift or a disagreement's evidence needs them; a store that
/// cannot be read gives no values, never an error).
pub fn judge_classes(
    results: &[CodeResult],
    eq: &Equivalences,
    stores: &[PathBuf],
) -> BTreeMap<String, Vec<Standing>> {
    let index: BTreeMap<String, usize> = results
        .iter()
        .enumerate()
        .map(|(i, r)| (r.code.clone(), i))
        .collect();
    let opened: RefCell<BTreeMap<usize, Opened>> = Default::default();
    let values = |code: &Code, n: u64| -> Option<u32> {
        let &i = index.get(&code.to_string())?;
        if n >= results[i].reach {
            return None;
        }
        let mut open = opened.borrow_mut();
        if let Entry::Vacant(e) = open.entry(i) {
            e.insert(Opened::open(&stores[i]).ok()?);
        }
        open[&i].read(n, 1).ok()?.to_u32().first().copied()
    };
    let lit = Literature::embedded();
    let mut out = BTreeMap::new();
    for r in (0..results.len()).filter(|&i| eq.class_of[i] == i) {
        let claim = class_claim(results, eq, r);
        out.insert(results[r].code.clone(), lit.judge(&claim, Some(&values)));
    }
    out
}

/// The class whose first code is `results[r]`: its members with their
/// shifts, and its outcome.
fn class_claim(results: &[CodeResult], eq: &Equivalences, r: usize) -> ClassClaim {
    let members = (0..results.len())
        .filter(|&i| eq.class_of[i] == r)
        .filter_map(|i| {
            let code = results[i].code.parse().ok()?;
            let shift = match i == r {
                true => Some(0),
                false => eq.relations[i].map(|rel| rel.shift),
            };
            Some(Member { code, shift })
        })
        .collect();
    let outcome = match results[r].period() {
        Some(p) => Outcome::Periodic {
            period: p.period,
            preperiod: p.preperiod,
        },
        None => Outcome::Open {
            reach: results[r].reach,
        },
    };
    ClassClaim { members, outcome }
}
