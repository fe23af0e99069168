//! Vertex Deletion on digraphs (thesis §3.2): players alternately delete a
//! vertex, with its arcs, whose in-degree has the allowed parity; whoever
//! cannot move loses. In the Odd/Odd variant both players delete vertices
//! of odd in-degree, and on a path whose arcs all point the same way that
//! is the octal game `0.6` (Theorem 3.2.2): the source can never go, any
//! other vertex can, leaving one or two shorter such paths.
//!
//! Directed paths therefore go through the octal engine; any other small
//! digraph is solved here by an exact search over sets of remaining
//! vertices, which also checks the reduction.

use std::str::FromStr;

use super::error::GameError;
use crate::code::Code;

pub use super::error::MAX_VERTICES;

/// Which in-degrees make a vertex deletable (both players alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Variant {
    /// Odd/Odd: vertices of odd in-degree.
    #[default]
    OddOdd,
    /// Even/Even: vertices of even in-degree (including 0).
    EvenEven,
}

/// The octal game of a directed path under Odd/Odd (Theorem 3.2.2).
pub fn directed_path_code() -> Code {
    "0.6".parse().expect("0.6 is an octal code")
}

/// A digraph on vertices `0..n`; `into[v]` is the set of `u` with an arc
/// `u → v`, as a bitmask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digraph {
    into: Vec<u32>,
}

impl Digraph {
    /// `n` vertices and no arcs.
    pub fn empty(n: usize) -> Result<Digraph, GameError> {
        if n > MAX_VERTICES {
            return Err(GameError::TooManyVertices(n as u64));
        }
        Ok(Digraph { into: vec![0; n] })
    }

    /// The path `0 → 1 → … → n−1`.
    pub fn directed_path(n: usize) -> Result<Digraph, GameError> {
        let mut d = Digraph::empty(n)?;
        for v in 1..n {
            d.into[v] |= 1 << (v - 1);
        }
        Ok(d)
    }

    /// Parses `"0>1,1>2,2>0"`. The vertices are `0..n` where `n` is
    /// `vertices` if given (so isolated vertices can be added), else one
    /// more than the largest vertex named.
    pub fn parse_arcs(list: &str, vertices: Option<usize>) -> Result<Digraph, GameError> {
        let bad = |why: String| GameError::BadArcs {
            list: list.to_string(),
            why,
        };
        let mut arcs = Vec::new();
        for item in list.split(',').map(str::trim) {
            if item.is_empty() && list.trim().is_empty() {
                break;
            }
            let (a, b) = item
                .split_once('>')
                .ok_or_else(|| bad(format!("{item:?} is not an arc like 0>1")))?;
            let vertex = |s: &str| -> Result<u64, GameError> {
                let s = s.trim();
                if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
                    return Err(bad(format!("{s:?} in {item:?} is not a vertex number")));
                }
                s.parse()
                    .map_err(|_| bad(format!("vertex {s} is out of range")))
            };
            let (u, v) = (vertex(a)?, vertex(b)?);
            if u == v {
                return Err(bad(format!("{item:?} is a loop")));
            }
            arcs.push((u, v));
        }
        let named = arcs.iter().map(|&(u, v)| u.max(v) + 1).max().unwrap_or(0);
        let n = match vertices {
            Some(n) if (n as u64) < named => {
                return Err(bad(format!(
                    "vertex {} is out of range for {n} vertices (0..{})",
                    named - 1,
                    n.saturating_sub(1)
                )))
            }
            Some(n) => n as u64,
            None => named,
        };
        if n > MAX_VERTICES as u64 {
            return Err(GameError::TooManyVertices(n));
        }
        let mut d = Digraph::empty(n as usize)?;
        for (u, v) in arcs {
            let (u, v) = (u as usize, v as usize);
            if d.into[v] & 1 << u != 0 {
                return Err(bad(format!("arc {u}>{v} appears twice")));
            }
            d.into[v] |= 1 << u;
        }
        Ok(d)
    }

    pub fn vertices(&self) -> usize {
        self.into.len()
    }

    /// The disjoint union, `other`'s vertices renumbered after `self`'s.
    pub fn disjoint_union(&self, other: &Digraph) -> Result<Digraph, GameError> {
        let n = self.vertices();
        let mut d = Digraph::empty(n + other.vertices())?;
        d.into[..n].copy_from_slice(&self.into);
        for (v, &m) in other.into.iter().enumerate() {
            d.into[n + v] = m << n;
        }
        Ok(d)
    }

    /// The Grundy value under `variant`, by exhaustive search: memoised on
    /// the set of remaining vertices, with no decomposition or reduction.
    pub fn grundy(&self, variant: Variant) -> u32 {
        let n = self.vertices();
        let mut memo = vec![u8::MAX; 1usize << n];
        let want_odd = variant == Variant::OddOdd;
        let full = if n == 0 { 0 } else { u32::MAX >> (32 - n) };
        self.search(full, want_odd, &mut memo) as u32
    }

    fn search(&self, set: u32, want_odd: bool, memo: &mut [u8]) -> u8 {
        if memo[set as usize] != u8::MAX {
            return memo[set as usize];
        }
        // Values are at most the number of vertices (each move deletes
        // one), so 32 bits of "seen" suffice.
        let mut seen = 0u32;
        let mut rest = set;
        while rest != 0 {
            let v = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let odd = (self.into[v] & set).count_ones() % 2 == 1;
            if odd == want_odd {
                seen |= 1 << self.search(set & !(1 << v), want_odd, memo);
            }
        }
        let g = seen.trailing_ones() as u8;
        memo[set as usize] = g;
        g
    }
}

/// Parses `"5,8,13"` into path lengths.
pub fn parse_paths(list: &str) -> Result<Vec<u64>, GameError> {
    let bad = || GameError::BadPaths(list.to_string());
    if list.trim().is_empty() {
        return Err(bad());
    }
    list.split(',')
        .map(|s| crate::count::parse_count(s.trim()).map_err(|_| bad()))
        .collect()
}

impl FromStr for Digraph {
    type Err = GameError;

    fn from_str(s: &str) -> Result<Digraph, GameError> {
        Digraph::parse_arcs(s, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked_values() {
        // One vertex, in-degree 0: no Odd/Odd move; one Even/Even move.
        let one = Digraph::empty(1).unwrap();
        assert_eq!(one.grundy(Variant::OddOdd), 0);
        assert_eq!(one.grundy(Variant::EvenEven), 1);
        // 0→1: only vertex 1 may go (odd), leaving a lone vertex: *1.
        let arc: Digraph = "0>1".parse().unwrap();
        assert_eq!(arc.grundy(Variant::OddOdd), 1);
        // A directed triangle: every vertex has in-degree 1; any deletion
        // leaves a directed P2 of value 1, so the triangle is 0.
        let tri: Digraph = "0>1,1>2,2>0".parse().unwrap();
        assert_eq!(tri.grundy(Variant::OddOdd), 0);
        // Even/Even on a forest is * or 0 by parity (Theorem 3.2.1).
        let tree: Digraph = "0>1,0>2,2>3".parse().unwrap();
        assert_eq!(tree.grundy(Variant::EvenEven), 0);
        let tree5: Digraph = "0>1,0>2,2>3,4>2".parse().unwrap();
        assert_eq!(tree5.grundy(Variant::EvenEven), 1);
    }

    #[test]
    fn parse_errors_name_the_problem() {
        let e = |s: &str, n| Digraph::parse_arcs(s, n).unwrap_err().to_string();
        assert!(e("0>1,1-2", None).contains("\"1-2\""));
        assert!(e("0>1,1>1", None).contains("loop"));
        assert!(e("0>1,0>1", None).contains("twice"));
        assert!(e("0>a", None).contains("\"a\""));
        assert!(e("0>5", Some(3)).contains("out of range"));
        assert!(e("0>30", None).contains("at most 24"));
        // The whole message, word for word as the command line prints it.
        assert_eq!(
            e("0>30", None),
            "31 vertices: the exact search handles at most 24"
        );
        assert_eq!(
            Digraph::empty(25).unwrap_err().to_string(),
            "25 vertices: the exact search handles at most 24"
        );
        assert!(e("0>99999999999999999999999", None).contains("out of range"));
        assert_eq!(Digraph::parse_arcs("", Some(2)).unwrap().vertices(), 2);
        assert_eq!(Digraph::parse_arcs("0>3", None).unwrap().vertices(), 4);
    }

    #[test]
    fn unions_renumber() {
        let p2 = Digraph::directed_path(2).unwrap();
        let u = p2.disjoint_union(&p2).unwrap();
        assert_eq!(u, Digraph::parse_arcs("0>1,2>3", None).unwrap());
        assert_eq!(parse_paths("5, 8,13"), Ok(vec![5, 8, 13]));
        assert!(parse_paths("5,,8").is_err());
        assert!(parse_paths("").is_err());
    }
}
