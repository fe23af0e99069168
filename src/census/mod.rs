//! The census: every octal code of up to a few digits, each game computed
//! once, classified (periodic with its proof, open with its reach, or
//! stopped by a cap) and grouped with the codes whose sequences agree with
//! it, exactly or shifted by one heap. The field's status tables are kept
//! by hand and contain mistakes their readers found; this rebuilds them
//! from nothing, with a proof for every periodic entry.
//!
//! This module holds what needs no store or thread: which codes a census
//! runs ([`codes`]), how their sequences are found equal ([`equivalences`])
//! and the tables ([`Table`]). `octal census` runs the codes as a family.//!
//! [`codes`] lists the codes, [`result`] what a run leaves, [`classes`]
//! groups them, [`literature`](mod@literature) judges each class against
//! the published tables and `table` writes the tables.

pub mod classes;
pub mod codes;
pub mod literature;
pub mod lookup;
pub mod result;
mod table;

pub use classes::{equivalences, shifted_equation, Equivalences, Link, Relation, SIGNATURE};
pub use codes::{codes, parse_prefixes, CensusError, Entry};
pub use literature::judge_classes;
pub use result::{CodeResult, Kept, KeptError, Status, ValuesFacts};
pub use table::{Marks, Provenance, Table};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Outcome;

    #[test]
    fn codes_are_listed_once_with_their_spellings() {
        let e = codes(2, &[0], false).unwrap();
        // 8 one-digit and 64 two-digit spellings; those ending in 0 (other
        // than the one-digit 0.0) are shorter codes.
        assert_eq!(e.iter().map(|x| x.spellings.len()).sum::<usize>(), 72);
        assert_eq!(e.len(), 8 + 56);
        let six = e.iter().find(|x| x.code.to_string() == "0.6").unwrap();
        assert_eq!(six.spellings, ["0.6", "0.60"]);
        assert_eq!(codes(1, &[0, 4], false).unwrap().len(), 16);
        assert!(codes(5, &[0], false).is_err());
        assert_eq!(parse_prefixes("4,0").unwrap(), [0, 4]);
        assert!(parse_prefixes("3").is_err());
    }

    #[test]
    fn hexadecimal_codes_are_listed_once_with_their_spellings() {
        let e = codes(2, &[0], true).unwrap();
        // 16 one-digit and 256 two-digit spellings; the 16 ending in 0
        // are one-digit codes (0.00 is 0.0).
        assert_eq!(e.iter().map(|x| x.spellings.len()).sum::<usize>(), 16 + 256);
        assert_eq!(e.len(), 16 + 240);
        let f = e.iter().find(|x| x.spellings[0] == "0.F").unwrap();
        assert_eq!(f.spellings, ["0.F", "0.F0"]);
        // The octal codes are among them, spelled as the octal census does.
        assert!(e.iter().any(|x| x.code.to_string() == "0.77"));
        assert!(e.iter().any(|x| x.spellings[0] == "0.9C"));
        assert!(codes(4, &[0], true).is_err());
        assert!(codes(3, &[0], true).is_ok());
    }

    #[test]
    fn an_apparent_regularity_is_kept_only_when_it_held_over_half_the_values() {
        let period = |preperiod| crate::period::Period {
            period: 3,
            preperiod,
            proven_at: 0,
            bound: None,
        };
        let arithmetic = |preperiod| crate::period::ArithmeticPeriod {
            period: 4,
            preperiod,
            saltus: 2,
            checked_to: 8192,
        };
        let mut r = CodeResult::bare("0.9", Status::Open, 8192, 4000);
        r.set_apparent(Some(period(4096)), Some(arithmetic(4096)));
        assert_eq!(r.apparent_period.map(|p| p.preperiod), Some(4096));
        assert_eq!(r.arithmetic_period.map(|a| a.preperiod), Some(4096));
        // Seen over the last 41 values of 8,192 (`.16`): not listed.
        r.set_apparent(Some(period(8151)), Some(arithmetic(4097)));
        assert_eq!((r.apparent_period, r.arithmetic_period), (None, None));
        // Only open codes list one.
        let mut r = CodeResult::bare(
            "0.9",
            Status::Stopped {
                why: "cap".into(),
                cap_seconds: None,
            },
            8192,
            4000,
        );
        r.set_apparent(Some(period(1)), Some(arithmetic(1)));
        assert_eq!((r.apparent_period, r.arithmetic_period), (None, None));
    }

    #[test]
    fn kept_results_are_checked() {
        let result = CodeResult {
            spellings: vec!["0.6".into(), "0.60".into()],
            at_powers_of_two: vec![0, 1],
            seconds: 0.125,
            ..CodeResult::bare("0.6", Status::Open, 4096, 126)
        };
        let facts = ValuesFacts {
            code: "0.6".into(),
            count: 4096,
            checksum: "7c52818c8397ef69".into(),
        };
        let kept = Kept::new(result.clone(), facts);
        let json = kept.to_json();
        assert_eq!(Kept::parse(json.as_bytes(), "0.6").unwrap(), kept);
        // A changed fact, another code, an old result, not JSON.
        let edited = json.replace("\"max_value\":126", "\"max_value\":127");
        assert_eq!(
            Kept::parse(edited.as_bytes(), "0.6"),
            Err(KeptError::Checksum)
        );
        assert!(matches!(
            Kept::parse(json.as_bytes(), "0.16"),
            Err(KeptError::WrongCode { .. })
        ));
        let old = serde_json::to_vec(&result).unwrap();
        assert!(matches!(
            Kept::parse(&old, "0.6"),
            Err(KeptError::Version(_))
        ));
        assert!(matches!(Kept::parse(b"", "0.6"), Err(KeptError::Parse(_))));
        // Seconds that an inexact float parser reads back one bit off
        // (serde_json's default) still match their checksum.
        let timed = Kept::new(
            CodeResult {
                seconds: 7.933_994_519_000_000_5,
                ..result
            },
            kept.values.clone(),
        );
        assert_eq!(Kept::parse(timed.to_json().as_bytes(), "0.6"), Ok(timed));
    }

    fn reference(code: &str, n: usize) -> Vec<u32> {
        crate::compute(
            &mut crate::engine::Reference::new(&code.parse().unwrap()),
            n,
        )
    }

    #[test]
    fn shifted_equal_and_nearly_equal_sequences_are_told_apart() {
        // .36 and .161 first differ at heap 519 (T. Czajka's list of solved
        // games, against Flammenkamp's table, which equates them); .07 is
        // .4 from heap 1 on (Dawson's Kayles); .6 and .61 differ only at a
        // heap of 2, where both have value 1.
        let codes = [".36", ".161", ".07", ".4", ".6", ".61", ".2"];
        let seqs: Vec<Vec<u32>> = codes.iter().map(|c| reference(c, 1500)).collect();
        let values = |i: usize, most: usize| Ok::<_, ()>(seqs[i][..most.min(1500)].to_vec());
        let eq = equivalences(&[None; 7], &[1500; 7], &values).unwrap();
        let differ = |a: usize, b: usize| {
            eq.near_misses.iter().find_map(|l| match l.outcome {
                Outcome::Differ { at, .. } if (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a) => {
                    Some(at)
                }
                _ => None,
            })
        };
        assert_eq!(differ(0, 1), Some(519));
        assert_ne!(eq.class_of[0], eq.class_of[1]);
        let shifted = eq
            .links
            .iter()
            .find(|l| (l.a, l.b) == (2, 3))
            .expect(".07 ~ .4");
        assert_eq!(shifted.shift, 1);
        assert_eq!(shifted.outcome, Outcome::EqualTo { to: 1499 });
        assert_eq!(eq.class_of[2], eq.class_of[3]);
        assert_eq!(eq.class_of[4], eq.class_of[5]);
        // Nothing else here agrees with .2.
        assert!((0..6).all(|i| eq.class_of[i] != eq.class_of[6]));
    }

    /// A periodic code is read no further than its preperiod and one
    /// period, and no further than a shorter member's comparison goes;
    /// what is found is what reading everything finds.
    #[test]
    fn a_comparison_reads_only_the_values_it_can_look_at() {
        // Dawson's Kayles: .07 is .4 from heap 1 on; .4 is periodic with
        // period 34 from heap 54 (Winning Ways). .4 is held to 5,000
        // values, .07 to 300 without a period; .6 to 5,000, unrelated.
        let codes = [".4", ".07", ".6"];
        let seqs: Vec<Vec<u32>> = codes.iter().map(|c| reference(c, 5000)).collect();
        let reach: [u64; 3] = [5000, 300, 5000];
        let periods = [
            Some(crate::period::Period {
                period: 34,
                preperiod: 54,
                proven_at: 5000,
                bound: None,
            }),
            None,
            None,
        ];
        let most = std::cell::RefCell::new([0usize; 3]);
        let values = |i: usize, m: usize| {
            let n = m.min(reach[i] as usize);
            let mut most = most.borrow_mut();
            most[i] = most[i].max(n);
            Ok::<_, ()>(seqs[i][..n].to_vec())
        };
        let eq = equivalences(&periods, &reach, &values).unwrap();
        assert_eq!(eq.class_of, [0, 0, 2]);
        let r = eq.relations[1].expect(".07 against .4");
        assert_eq!((r.shift, r.outcome), (1, Outcome::EqualTo { to: 300 }));
        // .4: its preperiod and one period, 54 + 34, though the comparison
        // looks at G_.4(n + 1) for every n < 300; .6 only its first values,
        // as no other code begins as it does.
        assert_eq!(*most.borrow(), [88, 300, SIGNATURE + 1]);
    }
}
