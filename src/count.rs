//! Heap counts as users type them: `10000000`, `1e7`, `2^30`, `10_000_000`.
//!
//! Exactly these spellings are accepted: decimal digits, with single `_`
//! only between two digits; `Me` or `ME` followed by an exponent (a power of
//! ten: `1e6`, `25e4`); `2^K` (a power of two; other bases are refused, write
//! `1e6` rather than `10^6`). No spaces, signs or fractions.

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
    } else if let Some((m, e)) = t.split_once(['e', 'E']) {
        int(m)?
            .checked_mul(pow(10, int(e)?)?)
            .ok_or_else(too_large)?
    } else {
        int(&t)?
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
    }

    #[test]
    fn rejects() {
        assert!(matches!(parse_count("-5"), Err(CountError::Negative(_))));
        assert!(matches!(parse_count("abc"), Err(CountError::Syntax(_))));
        assert!(matches!(parse_count(""), Err(CountError::Syntax(_))));
        assert!(matches!(parse_count("1.5e3"), Err(CountError::Syntax(_))));
        for s in [
            " 100", "100 ", "1_", "_1", "1__0", "10^6", "3^2", "1e_6", "+5", "0x10",
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
