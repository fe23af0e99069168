//! Which codes a census runs: every octal code of up to D digits under the
//! given prefixes, each game once with every spelling of it.

use std::collections::BTreeMap;

use crate::code::Code;

/// One game of a census and every spelling of it that the census covers
/// (trailing zeros name the same game: `0.60` is `0.6`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub code: Code,
    pub spellings: Vec<String>,
}

/// Why a census cannot be made as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CensusError {
    #[error("--digits {0}: give 1 to 4 (8^4 = 4,096 codes a prefix)")]
    Digits(usize),
    #[error("--digits {0} with --hex: give 1 to 3 (16^3 = 4,096 codes a prefix)")]
    HexDigits(usize),
    #[error("--prefix {0}: give digits before the point, 0 and/or 4 (e.g. 0,4)")]
    Prefix(String),
}

/// Parses `--prefix`: `0`, `4` or `0,4`.
pub fn parse_prefixes(s: &str) -> Result<Vec<u8>, CensusError> {
    let mut out = Vec::new();
    for p in s.split(',').map(str::trim) {
        match p {
            "0" | "4" => out.push(p.as_bytes()[0] - b'0'),
            _ => return Err(CensusError::Prefix(s.to_string())),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Every code `P.d1…dk` for each prefix P and 1 ≤ k ≤ `digits`, each game
/// once, in the order of its shortest spelling. The digits are octal, or
/// with `hex` hexadecimal (0–F: bit 8 of a digit splits a heap into three),
/// which is where arithmetic periods occur.
pub fn codes(digits: usize, prefixes: &[u8], hex: bool) -> Result<Vec<Entry>, CensusError> {
    let radix: usize = if hex { 16 } else { 8 };
    match (hex, digits) {
        (false, 1..=4) | (true, 1..=3) => {}
        (false, _) => return Err(CensusError::Digits(digits)),
        (true, _) => return Err(CensusError::HexDigits(digits)),
    }
    let mut by_game: BTreeMap<String, usize> = BTreeMap::new();
    let mut entries: Vec<Entry> = Vec::new();
    for &p in prefixes {
        for k in 1..=digits {
            for i in 0..radix.pow(k as u32) {
                let ds: String = (0..k)
                    .rev()
                    .map(|j| {
                        let d = (i / radix.pow(j as u32)) % radix;
                        char::from_digit(d as u32, 16)
                            .expect("a digit")
                            .to_ascii_uppercase()
                    })
                    .collect();
                let spelling = format!("{p}.{ds}");
                let code: Code = spelling.parse().expect("census digits parse");
                let key = code.to_string();
                match by_game.get(&key) {
                    Some(&e) => entries[e].spellings.push(spelling),
                    None => {
                        by_game.insert(key, entries.len());
                        entries.push(Entry {
                            code,
                            spellings: vec![spelling],
                        });
                    }
                }
            }
        }
    }
    Ok(entries)
}
