//! What the literature says about short octal games, and how a result of
//! this project stands against it.
//!
//! A census proves games periodic; a reader wants to know which of those
//! results were known, which are new and which contradict a published
//! claim. `data/literature/` holds the published status of short octal
//! games, each entry with its source (see its README); this module embeds
//! those tables, parses them into typed entries and judges a census class
//! against every entry about any of its codes.
//!
//! Codes are matched through [`Code`], so `.137`, `0.137` and `0.1370` are
//! one game. A class holds several codes, related to its first one by
//! G_member(n) = G_first(n + shift); an entry about a member judges the
//! class with the preperiod moved by that shift (the period is the same for
//! every member). A member whose shift is unknown (the census says "by a
//! chain") has it found from the values when a value source is given, and
//! is otherwise judged on its period alone.//!
//! [`claims`] holds the typed entries, [`tables`] reads them, [`judge`]
//! judges a class against them.

pub mod claims;
pub mod judge;
pub mod tables;

pub use claims::{
    Claim, ClassClaim, Entry, Literature, LiteratureError, Member, Outcome, Relation, Source,
};
pub use judge::{cell, headline, Standing, Values};

#[cfg(test)]
mod tests {
    use super::tables::{csv_rows, table};
    use super::*;

    #[test]
    fn census_members_parse_with_their_shifts() {
        let m = |s: &str| Member::parse_census(s).unwrap();
        assert_eq!(m("0.137").shift, Some(0));
        assert_eq!(m("0.42 (=)").shift, Some(0));
        assert_eq!(m("0.07 (G(n) = G_0.4(n+1))").shift, Some(1));
        assert_eq!(m("0.01 (G(n+1) = G_0.1(n))").shift, Some(-1));
        assert_eq!(m("0.137 (by a chain)").shift, None);
        assert!(Member::parse_census("0.1 (G(x) = y)").is_err());
        assert!(Member::parse_census("banana").is_err());
    }

    #[test]
    fn csv_reads_quotes_and_rejects_ragged_rows() {
        let rows = csv_rows("t", "a,b\n\"x, \"\"y\"\"\",2\n").unwrap();
        assert_eq!(rows[1], vec!["x, \"y\"".to_string(), "2".to_string()]);
        assert!(table("t", "a,b\n1\n", &["a", "b"]).is_err());
        assert!(csv_rows("t", "a,\"b\n").is_err());
    }
}
