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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::judge_classes;
    use crate::census::classes::Equivalences;
    use crate::census::result::{CodeResult, Status};

    /// A census result for `code`, proven periodic.
    fn periodic(code: &str, period: u64, preperiod: u64) -> CodeResult {
        let status = Status::Periodic {
            period,
            preperiod,
            proven_at: 1000,
        };
        CodeResult::bare(code, status, 1000, 9)
    }

    #[test]
    fn a_class_is_judged_against_the_published_period() {
        // Dawson's Kayles as `.07`: period 34, its values those of A002187
        // one heap on, whose last exception is at 51 (OEIS), so preperiod 53.
        let eq = Equivalences {
            class_of: vec![0, 1],
            relations: vec![None, None],
            ..Default::default()
        };
        let results = [periodic("0.07", 34, 53), periodic("0.074", 33, 10)];
        // No store: the judgement needs no values for a class of one code.
        let stores = vec![PathBuf::from("/nonexistent/0.octal"); 2];
        let judged = judge_classes(&results, &eq, &stores);
        let labels = |code: &str| -> Vec<&str> {
            judged[code].iter().map(|s| s.label()).collect::<Vec<_>>()
        };
        assert!(labels("0.07").contains(&"agrees"), "{:?}", judged["0.07"]);
        // `.074` is published with period 24: 33 contradicts it.
        assert!(
            labels("0.074").contains(&"disagrees"),
            "{:?}",
            judged["0.074"]
        );
        assert_eq!(judged.len(), 2);
    }
}
