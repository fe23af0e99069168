//! Octal codes: parsing, validation and the canonical spelling.
//!
//! A code `d0.d1d2d3…` describes a take-and-break game on heaps. Digit `di`
//! (i ≥ 1) is a sum of 1 (a heap of exactly i may be removed whole), 2 (i
//! tokens may be removed leaving one non-empty heap) and 4 (i tokens may be
//! removed leaving two non-empty heaps). The digit before the point may only
//! be 0 or 4, where 4 lets a heap be split in two without removing anything.
//! Everything the engines need is derived once here, in [`Rules`].

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// Why a string is not an octal code. Each message names the offending
/// character or the rule that was broken, on one line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CodeError {
    #[error("empty octal code (expected something like 0.6 or .137)")]
    Empty,
    #[error("octal code {0:?} has no point: write it as 0.{0} or .{0}")]
    MissingPoint(String),
    #[error("octal code {code:?} has no digits after the point")]
    NoDigits { code: String },
    #[error("octal code {code:?}: the digit before the point must be 0 or 4, found '{found}'")]
    BadLeadingDigit { code: String, found: char },
    #[error("octal code {code:?}: '{found}' at position {pos} is not an octal digit (0-7)")]
    NotOctal {
        code: String,
        found: char,
        pos: usize,
    },
    #[error("octal code {code:?}: invalid character '{found}' at position {pos}")]
    BadChar {
        code: String,
        found: char,
        pos: usize,
    },
    #[error("octal code {code:?} has more than one point")]
    TwoPoints { code: String },
}

/// A parsed octal code. `digits[0]` is the digit before the point and
/// `digits[i]` the i-th digit after it; trailing zeros are dropped, so two
/// codes for the same game compare equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Code {
    digits: Vec<u8>,
}

impl Code {
    /// Builds a code from its digits (`digits[0]` before the point).
    pub fn from_digits(mut digits: Vec<u8>) -> Result<Code, CodeError> {
        if digits.is_empty() {
            return Err(CodeError::Empty);
        }
        let text = || digits_text(&digits);
        if digits[0] != 0 && digits[0] != 4 {
            return Err(CodeError::BadLeadingDigit {
                code: text(),
                found: digit_char(digits[0]),
            });
        }
        if let Some(pos) = digits.iter().position(|&d| d > 7) {
            return Err(CodeError::NotOctal {
                code: text(),
                found: digit_char(digits[pos]),
                pos: pos + 2,
            });
        }
        while digits.len() > 1 && *digits.last().unwrap() == 0 {
            digits.pop();
        }
        Ok(Code { digits })
    }

    /// The digits, `[d0, d1, …, dt]`, with no trailing zeros.
    pub fn digits(&self) -> &[u8] {
        &self.digits
    }

    /// Index of the last non-zero digit (the `t` of the periodicity bound);
    /// 0 for a game whose only move, if any, is the split of `4.`.
    pub fn last_digit_index(&self) -> usize {
        self.digits.len() - 1
    }

    /// The game's moves, ready for an engine.
    pub fn rules(&self) -> Rules {
        let mut r = Rules::default();
        for (i, &d) in self.digits.iter().enumerate() {
            if d & 1 != 0 && i >= 1 {
                r.take_all.push(i);
            }
            if d & 2 != 0 && i >= 1 {
                r.take_leave_one.push(i);
            }
            if d & 4 != 0 {
                r.take_split.push(i);
            }
        }
        r
    }

    /// Cookie Cutter on a 1×n strip with a k×k cutter: `0.33…37` with k−1
    /// threes (thesis Lemma 5.1.2).
    pub fn cookie_cutter(k: usize) -> Code {
        assert!(k >= 1, "a cutter has at least one square");
        let mut digits = vec![0u8];
        digits.extend(std::iter::repeat_n(3u8, k - 1));
        digits.push(7);
        Code { digits }
    }
}

fn digit_char(d: u8) -> char {
    char::from_digit(d as u32, 16).unwrap_or('?')
}

fn digits_text(digits: &[u8]) -> String {
    let mut s = String::with_capacity(digits.len() + 1);
    s.push(digit_char(digits[0]));
    s.push('.');
    if digits.len() == 1 {
        s.push('0');
    }
    for &d in &digits[1..] {
        s.push(digit_char(d));
    }
    s
}

impl fmt::Display for Code {
    /// The canonical spelling: `0.6`, `4.7`, `0.137`; a game with no
    /// digits after the point prints as `0.0` or `4.0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&digits_text(&self.digits))
    }
}

impl FromStr for Code {
    type Err = CodeError;

    fn from_str(s: &str) -> Result<Code, CodeError> {
        let code = s.trim();
        if code.is_empty() {
            return Err(CodeError::Empty);
        }
        let owned = || code.to_string();
        // First pass: every character is a digit or a single point.
        let mut point = None;
        for (pos, c) in code.chars().enumerate() {
            match c {
                '.' if point.is_some() => return Err(CodeError::TwoPoints { code: owned() }),
                '.' => point = Some(pos),
                '0'..='7' => {}
                '8' | '9' => {
                    return Err(CodeError::NotOctal {
                        code: owned(),
                        found: c,
                        pos: pos + 1,
                    })
                }
                _ => {
                    return Err(CodeError::BadChar {
                        code: owned(),
                        found: c,
                        pos: pos + 1,
                    })
                }
            }
        }
        let Some(point) = point else {
            return Err(CodeError::MissingPoint(owned()));
        };
        let (before, after) = (&code[..point], &code[point + 1..]);
        if after.is_empty() {
            return Err(CodeError::NoDigits { code: owned() });
        }
        let lead = match before {
            "" => 0,
            _ => {
                // Leading zeros before the point ("00.6") are harmless;
                // anything else must be a single 0 or 4.
                let trimmed = before.trim_start_matches('0');
                match trimmed {
                    "" => 0,
                    "4" => 4,
                    _ => {
                        return Err(CodeError::BadLeadingDigit {
                            code: owned(),
                            found: trimmed.chars().next().unwrap_or('?'),
                        })
                    }
                }
            }
        };
        let mut digits = vec![lead];
        digits.extend(after.bytes().map(|b| b - b'0'));
        Code::from_digits(digits)
    }
}

/// The moves of a game, split by kind. Each list holds the numbers of
/// tokens `i` that such a move removes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    /// Bit 1: a heap of exactly `i` may be removed whole (option value 0).
    pub take_all: Vec<usize>,
    /// Bit 2: from a heap `n > i`, remove `i` and leave one heap `n − i`.
    pub take_leave_one: Vec<usize>,
    /// Bit 4: from a heap `n ≥ i + 2`, remove `i` and leave two non-empty
    /// heaps `a + b = n − i` (`i = 0` is the split of `4.`).
    pub take_split: Vec<usize>,
}

impl Rules {
    /// True when the heap may not move at all (the game `0.0`).
    pub fn is_empty(&self) -> bool {
        self.take_all.is_empty() && self.take_leave_one.is_empty() && self.take_split.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Code, CodeError> {
        s.parse()
    }

    #[test]
    fn spellings_are_canonical() {
        for (input, canon) in [
            ("0.6", "0.6"),
            (".6", "0.6"),
            ("4.7", "4.7"),
            (".137", "0.137"),
            ("0.07", "0.07"),
            ("0.60", "0.6"),
            ("0.0", "0.0"),
            ("4.0", "4.0"),
            (" .77 ", "0.77"),
            ("0.3333333333337", "0.3333333333337"),
        ] {
            assert_eq!(p(input).unwrap().to_string(), canon, "{input}");
        }
    }

    #[test]
    fn long_codes_work() {
        let s = format!("0.{}7", "3".repeat(300));
        let c = p(&s).unwrap();
        assert_eq!(c.digits().len(), 302);
        assert_eq!(c, Code::cookie_cutter(301));
        assert_eq!(c.to_string(), s);
    }

    #[test]
    fn bad_codes_name_the_problem() {
        let e = p("0.8").unwrap_err().to_string();
        assert!(e.contains("'8'") && e.contains("octal digit"), "{e}");
        let e = p("0.").unwrap_err().to_string();
        assert!(e.contains("no digits after the point"), "{e}");
        let e = p("abc").unwrap_err().to_string();
        assert!(e.contains("'a'"), "{e}");
        let e = p("5.1").unwrap_err().to_string();
        assert!(e.contains("0 or 4") && e.contains("'5'"), "{e}");
        let e = p("0.6x").unwrap_err().to_string();
        assert!(e.contains("'x'") && e.contains("position 4"), "{e}");
        assert_eq!(p(""), Err(CodeError::Empty));
        assert!(matches!(p("6"), Err(CodeError::MissingPoint(_))));
        assert!(matches!(p("0.6.1"), Err(CodeError::TwoPoints { .. })));
        for e in ["0.8", "0.", "abc", "5.1", "0.6x", ""] {
            assert!(!p(e).unwrap_err().to_string().contains('\n'));
        }
    }

    #[test]
    fn rules_follow_the_digits() {
        // Kayles: remove 1 or 2, from the end or the middle.
        let r = p(".77").unwrap().rules();
        assert_eq!(r.take_all, vec![1, 2]);
        assert_eq!(r.take_leave_one, vec![1, 2]);
        assert_eq!(r.take_split, vec![1, 2]);
        let r = p("4.07").unwrap().rules();
        assert_eq!(r.take_all, vec![2]);
        assert_eq!(r.take_leave_one, vec![2]);
        assert_eq!(r.take_split, vec![0, 2]);
        assert!(p("0.0").unwrap().rules().is_empty());
    }
}
