//! Cookie Cutter (thesis chapter 5): a k×k cutter is placed anywhere it
//! covers at least one remaining square of the board (it may overhang the
//! edges and straddle holes) and removes every square it covers; whoever
//! cannot move loses.
//!
//! A 1×n strip is the octal game `0.33…37` with k−1 threes at heap n
//! (Lemma 5.1.2), so strips go through the octal engine and may be billions
//! long. Boards with two or more rows and columns are solved here by an exact
//! game-tree search over bitboards: two squares interact only when one
//! placement covers both (Chebyshev distance below k), so a position is the
//! nim-sum of its parts under that relation, and each part is memoised under
//! a canonical form (translated to the origin, least of its 8 symmetries).//!
//! [`rules`] is what is played and which method values a grid, `frame`
//! the board's geometry, [`solver`] the search, [`table`](mod@table) the
//! table of values.

mod frame;
pub mod rules;
pub mod solver;
pub mod table;

pub use crate::games::error::{MAX_CELLS, MAX_K};
pub use rules::{method, strip_values, Cutter, Grid, Method, LARGE_STRIP_ENGINE_MAX};
pub use solver::{SolveError, Solver};
pub use table::{format_table, parse_table, table, Cell};

#[cfg(test)]
mod tests {
    use super::frame::{Frame, Shape};
    use super::*;
    use crate::games::GameError;

    #[test]
    fn parses_grids_and_cutters() {
        assert_eq!("3x5".parse(), Ok(Grid { rows: 3, cols: 5 }));
        assert_eq!(
            "1x2e9".parse(),
            Ok(Grid {
                rows: 1,
                cols: 2_000_000_000
            })
        );
        for bad in ["0x5", "5x0", "axb", "3", "3x", "x3", "-1x3", "3x5x2"] {
            assert!(bad.parse::<Grid>().is_err(), "{bad}");
        }
        assert_eq!("7".parse(), Ok(Cutter::Size(7)));
        assert_eq!("inf".parse(), Ok(Cutter::Large));
        for bad in ["0", "-2", "k", ""] {
            assert!(bad.parse::<Cutter>().is_err(), "{bad}");
        }
        assert!(matches!(
            "1e12".parse::<Cutter>(),
            Err(GameError::CutterTooLarge(_))
        ));
    }

    #[test]
    fn methods() {
        let g = |s: &str| s.parse::<Grid>().unwrap();
        assert_eq!(
            method(Cutter::Size(3), g("1x7")),
            Ok(Method::Strip {
                code: "0.337".parse().unwrap(),
                heap: 7
            })
        );
        assert_eq!(
            method(Cutter::Size(3), g("7x1")),
            method(Cutter::Size(3), g("1x7"))
        );
        assert_eq!(
            method(Cutter::Large, g("1x5000")),
            Ok(Method::Nim { heap: 5000 })
        );
        assert_eq!(
            method(Cutter::Size(2), g("8x16")),
            Ok(Method::Board { rows: 8, cols: 16 })
        );
        assert!(matches!(
            method(Cutter::Size(2), g("9x15")),
            Err(GameError::BoardTooLarge { cells: 135, .. })
        ));
    }

    #[test]
    fn canonical_form_ignores_symmetry_and_place() {
        // An L of three squares, drawn four ways in different places of a
        // 4x5 board, has one canonical form.
        let f = Frame::new(4, 5, Cutter::Size(2));
        let bits =
            |cells: &[(usize, usize)]| cells.iter().fold(0u128, |m, &(r, c)| m | 1 << (r * 5 + c));
        let ls = [
            bits(&[(0, 0), (1, 0), (1, 1)]),
            bits(&[(2, 3), (2, 4), (3, 3)]),
            bits(&[(1, 2), (1, 1), (0, 2)]),
            bits(&[(3, 4), (2, 4), (2, 3)]),
        ];
        let shapes: Vec<Shape> = ls.iter().map(|&l| f.canonical(f.translated(l))).collect();
        assert!(shapes.iter().all(|s| *s == shapes[0]), "{shapes:?}");
        assert_eq!(shapes[0].bits.count_ones(), 3);
        let line = f.canonical(f.translated(bits(&[(0, 1), (1, 1), (2, 1)])));
        assert_ne!(line, shapes[0]);
        assert_eq!((line.h, line.w), (1, 3));
    }

    #[test]
    fn parts_follow_the_cutter() {
        // With k=2, squares two apart cannot be covered together.
        let f = Frame::new(3, 5, Cutter::Size(2));
        let near = f.near.as_ref().unwrap();
        let pos = 1u128 | 1 << 2 | 1 << 8;
        let part = f.part_of_lowest(near, pos);
        assert_eq!(part, 1);
        // (0,2) and (1,3) are diagonal neighbours: one part.
        assert_eq!(f.part_of_lowest(near, pos & !1), 1 << 2 | 1 << 8);
        // A 3x3 cutter on a 3x3 board covers everything: no split needed.
        assert!(Frame::new(3, 3, Cutter::Size(3)).near.is_none());
    }

    #[test]
    fn table_format_round_trips() {
        let t = vec![vec![Some(1), Some(2), None], vec![Some(2), None, Some(10)]];
        assert_eq!(parse_table(&format_table(&t)), Ok(t));
        assert!(parse_table("x\\y 1 2\n1 1\n").is_err());
        assert!(parse_table("x\\y 1\n2 1\n").is_err());
    }
}
