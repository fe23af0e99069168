//! Heap counts as users type them: `10000000`, `1e7`, `2^30`, `10_000_000`.
//!
//! Exactly these spellings are accepted: decimal digits, with single `_`
//! only between two digits; a decimal number followed by `e` or `E` and an
//! exponent (a power of ten: `1e6`, `25e4`, `2.5e6`), or with a fraction
//! of zeros (`1000.0`), as long as it is a whole number; `2^K` (a power of
//! two; other bases are refused, write `1e6` rather than `10^6`). No
//! spaces or signs; `2.5e0` is refused as not whole.

use thiserror::Error;

/// The largest count accepted anywhere (2^48 heaps); a run near it is
/// refused later for want of memory or disk, with the size it would need.
pub const MAX_COUNT: u64 = 1 << 48;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CountError {
    #[error(
        "{0:?} is not a count (expected e.g. 1000000, 1e6, 2^20 or 1_000_000, without spaces)"
    )]
    Syntax(String),
    #[error("{0:?} is negative; a count must be positive")]
    Negative(String),
    #[error("{0:?} is too large (at most 2^48)")]
    TooLarge(String),
    #[error("{0:?} is not a whole number; a count of heaps must be")]
    NotWhole(String),
}

/// Parses a non-negative count. `0` is allowed here; callers that need a
/// positive one say so.
pub fn parse_count(s: &str) -> Result<u64, CountError> {
    let bad = || CountError::Syntax(s.to_string());
    if s.starts_with('-') {
        return Err(CountError::Negative(s.to_string()));
    }
    // `_` only between two digits.
    let b = s.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'_'
            && !(i > 0 && i + 1 < b.len() && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit())
        {
            return Err(bad());
        }
    }
    let t: String = s.chars().filter(|&c| c != '_').collect();
    if t.is_empty() {
        return Err(bad());
    }
    let int = |x: &str| -> Result<u64, CountError> {
        if x.is_empty() || !x.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        x.parse::<u64>()
            .map_err(|_| CountError::TooLarge(s.to_string()))
    };
    let too_large = || CountError::TooLarge(s.to_string());
    let pow = |base: u64, exp: u64| -> Result<u64, CountError> {
        let exp = u32::try_from(exp).map_err(|_| too_large())?;
        base.checked_pow(exp).ok_or_else(too_large)
    };
    let value = if let Some((b, e)) = t.split_once('^') {
        if b != "2" {
            return Err(bad());
        }
        pow(2, int(e)?)?
    } else {
        let (m, e) = match t.split_once(['e', 'E']) {
            Some((m, e)) => (m, int(e)?),
            None => (t.as_str(), 0),
        };
        // The mantissa's digits as one integer, and the places of its
        // fraction: 2.5e6 = 25 · 10^(6 − 1).
        let (i, f) = match m.split_once('.') {
            Some((_, "")) => return Err(bad()),
            Some(("", f)) => ("0", f),
            Some(x) => x,
            None => (m, ""),
        };
        int(i)?;
        if !f.is_empty() {
            int(f)?;
        }
        // Trailing zeros of the fraction change nothing (2.50e6 = 2.5e6).
        let f = f.trim_end_matches('0');
        let places = f.len() as u64;
        if places > e {
            return Err(CountError::NotWhole(s.to_string()));
        }
        int(&format!("{i}{f}"))?
            .checked_mul(pow(10, e - places)?)
            .ok_or_else(too_large)?
    };
    if value > MAX_COUNT {
        return Err(too_large());
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings() {
        assert_eq!(parse_count("10000000"), Ok(10_000_000));
        assert_eq!(parse_count("1e7"), Ok(10_000_000));
        assert_eq!(parse_count("2^30"), Ok(1 << 30));
        assert_eq!(parse_count("10_000_000"), Ok(10_000_000));
        assert_eq!(parse_count("3E2"), Ok(300));
        assert_eq!(parse_count("0"), Ok(0));
        // Decimal mantissas that make a whole number.
        assert_eq!(parse_count("2.5e6"), Ok(2_500_000));
        assert_eq!(parse_count("1.5e3"), Ok(1500));
        assert_eq!(parse_count("1.25E2"), Ok(125));
        assert_eq!(parse_count("2.50e1"), Ok(25));
        assert_eq!(parse_count("1000.0"), Ok(1000));
        assert_eq!(parse_count("0.5e1"), Ok(5));
        assert_eq!(parse_count(".5e1"), Ok(5));
        assert_eq!(parse_count("1_000.5e1"), Ok(10_005));
    }

    #[test]
    fn rejects() {
        assert!(matches!(parse_count("-5"), Err(CountError::Negative(_))));
        assert!(matches!(parse_count("abc"), Err(CountError::Syntax(_))));
        assert!(matches!(parse_count(""), Err(CountError::Syntax(_))));
        for s in ["2.5e0", "1.25e1", "0.5", "3.14"] {
            assert!(
                matches!(parse_count(s), Err(CountError::NotWhole(_))),
                "{s:?}"
            );
        }
        for s in [
            " 100", "100 ", "1_", "_1", "1__0", "10^6", "3^2", "1e_6", "+5", "0x10", "1.", ".",
            "1..5e3", "1.5.e3", "e6", "1e", "1.e6", "1e6.0", "1e-3",
        ] {
            assert!(
                matches!(parse_count(s), Err(CountError::Syntax(_))),
                "{s:?}"
            );
        }
        assert!(matches!(parse_count("2^64"), Err(CountError::TooLarge(_))));
        assert!(matches!(parse_count("1e300"), Err(CountError::TooLarge(_))));
        assert!(matches!(
            parse_count("99999999999999999999999"),
            Err(CountError::TooLarge(_))
        ));
    }
}
