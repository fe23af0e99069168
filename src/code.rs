//! Octal codes: parsing, validation and the canonical spelling.
//!
//! A code `d0.d1d2d3…` describes a take-and-break game on heaps. Digit `di`
//! (i ≥ 1) is a sum of 1 (a heap of exactly i may be removed whole), 2 (i
//! tokens may be removed leaving one non-empty heap) and 4 (i tokens may be
//! removed leaving two non-empty heaps). The digit before the point may only
//! be 0 or 4, where 4 lets a heap be split in two without removing anything.
//! Everything the engines need is derived once here, in [`Rules`].
//!
//! Beyond octal: digits run on to `F` (hexadecimal codes), bit 8 meaning "i
//! tokens may be removed leaving three non-empty heaps"; the digit before the
//! point may then also be 8 or C (split in three without removing anything).
//! A trailing `u` (`4.0u`) makes every two-heap split unequal: the two heaps
//! left must differ in size. `grundy` is Grundy's game, `4.0u`. Codes whose
//! digits are all below 8 and that have no `u` are octal and mean, print and
//! fail exactly as before.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// Why a string is not an octal code. Each message names the offending
/// character or the rule that was broken, on one line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CodeError {
    #[error("empty octal code (expected something like 0.6 or .137)")]
    Empty,
    #[error("octal code {0:?} has spaces or a newline around it; give the code alone")]
    Whitespace(String),
    #[error("octal code {0:?} has no point: write it as 0.{0} or .{0}")]
    MissingPoint(String),
    #[error("octal code {code:?} has no digits after the point")]
    NoDigits { code: String },
    #[error("octal code {code:?}: the digit before the point must be 0 or 4, found '{found}'")]
    BadLeadingDigit { code: String, found: char },
    #[error(
        "octal code {code:?}: the digit before the point must be 0, 4, 8 or C, found '{found}'"
    )]
    BadHexLeadingDigit { code: String, found: char },
    #[error("octal code {code:?}: digit {value} at position {pos} is above F (15)")]
    DigitTooLarge { code: String, value: u8, pos: usize },
    #[error(
        "octal code {code:?}: invalid character '{found}' at position {pos} \
         (digits are 0-9 and A-F, with an optional u at the end)"
    )]
    BadChar {
        code: String,
        found: char,
        pos: usize,
    },
    #[error("octal code {code:?} has more than one point")]
    TwoPoints { code: String },
    #[error(
        "octal code {code:?}: the u suffix (unequal splits) needs a two-heap split, \
         i.e. a digit with bit 4 (4-7 or C-F)"
    )]
    UselessUnequal { code: String },
}

/// A parsed octal code. `digits[0]` is the digit before the point and
/// `digits[i]` the i-th digit after it; trailing zeros are dropped, so two
/// codes for the same game compare equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Code {
    digits: Vec<u8>,
    /// The `u` suffix: two-heap splits must leave heaps of different sizes.
    unequal: bool,
}

impl Code {
    /// Builds a code from its digits (`digits[0]` before the point).
    pub fn from_digits(mut digits: Vec<u8>) -> Result<Code, CodeError> {
        if digits.is_empty() {
            return Err(CodeError::Empty);
        }
        let text = || digits_text(&digits);
        if let Some(pos) = digits.iter().position(|&d| d > 15) {
            return Err(CodeError::DigitTooLarge {
                code: text(),
                value: digits[pos],
                pos: if pos == 0 { 1 } else { pos + 2 },
            });
        }
        if !matches!(digits[0], 0 | 4 | 8 | 12) {
            return Err(bad_leading_digit(
                text(),
                digit_char(digits[0]),
                digits.iter().all(|&d| d <= 7),
            ));
        }
        while digits.len() > 1 && *digits.last().unwrap() == 0 {
            digits.pop();
        }
        Ok(Code {
            digits,
            unequal: false,
        })
    }

    /// The same code with the `u` suffix: every two-heap split must leave
    /// heaps of different sizes. Fails when the code has no two-heap split
    /// (the suffix would change nothing, so it is probably a typo).
    pub fn with_unequal_splits(mut self) -> Result<Code, CodeError> {
        if !self.digits.iter().any(|&d| d & 4 != 0) {
            return Err(CodeError::UselessUnequal {
                code: format!("{self}u"),
            });
        }
        self.unequal = true;
        Ok(self)
    }

    /// Grundy's game: split a heap into two non-empty heaps of different
    /// sizes, `4.0u`. The name `grundy` parses to it.
    pub fn grundy() -> Code {
        Code {
            digits: vec![4],
            unequal: true,
        }
    }

    /// True for a code with the `u` suffix.
    pub fn unequal_splits(&self) -> bool {
        self.unequal
    }

    /// True when the code is a plain octal code: every digit below 8 and no
    /// `u` suffix.
    pub fn is_octal(&self) -> bool {
        !self.unequal && self.digits.iter().all(|&d| d <= 7)
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
            if d & 8 != 0 {
                r.take_split3.push(i);
            }
        }
        r.unequal_splits = self.unequal;
        r
    }

    /// Cookie Cutter on a 1×n strip with a k×k cutter: `0.33…37` with k−1
    /// threes (thesis Lemma 5.1.2).
    pub fn cookie_cutter(k: usize) -> Code {
        assert!(k >= 1, "a cutter has at least one square");
        let mut digits = vec![0u8];
        digits.extend(std::iter::repeat_n(3u8, k - 1));
        digits.push(7);
        Code {
            digits,
            unequal: false,
        }
    }
}

/// The leading-digit error: octal inputs keep the octal message.
fn bad_leading_digit(code: String, found: char, octal: bool) -> CodeError {
    if octal {
        CodeError::BadLeadingDigit { code, found }
    } else {
        CodeError::BadHexLeadingDigit { code, found }
    }
}

fn digit_char(d: u8) -> char {
    char::from_digit(d as u32, 16)
        .map(|c| c.to_ascii_uppercase())
        .unwrap_or('?')
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
    /// digits after the point prints as `0.0` or `4.0`. Hexadecimal digits
    /// print in upper case (`0.1F`) and the unequal-split suffix as a lower
    /// case `u` (`grundy` prints as `4.0u`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&digits_text(&self.digits))?;
        if self.unequal {
            f.write_str("u")?;
        }
        Ok(())
    }
}

impl FromStr for Code {
    type Err = CodeError;

    fn from_str(s: &str) -> Result<Code, CodeError> {
        // Exactly the code: no spaces or newlines around it.
        let code = s;
        if code.trim().is_empty() {
            return Err(CodeError::Empty);
        }
        if code.trim() != code {
            return Err(CodeError::Whitespace(code.to_string()));
        }
        if code.eq_ignore_ascii_case("grundy") {
            return Ok(Code::grundy());
        }
        let owned = || code.to_string();
        // A trailing u (or U) asks for unequal two-heap splits.
        let (code, unequal) = match code.strip_suffix(['u', 'U']) {
            Some(rest) if !rest.is_empty() => (rest, true),
            _ => (code, false),
        };
        // Only octal digits and a point: an octal input, whose errors read
        // as they always did.
        let octal = !unequal && code.chars().all(|c| matches!(c, '0'..='7' | '.'));
        // First pass: every character is a digit or a single point.
        let mut point = None;
        for (pos, c) in code.chars().enumerate() {
            match c {
                '.' if point.is_some() => return Err(CodeError::TwoPoints { code: owned() }),
                '.' => point = Some(pos),
                '0'..='9' | 'a'..='f' | 'A'..='F' => {}
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
                    "8" => 8,
                    "c" | "C" => 12,
                    _ => {
                        return Err(bad_leading_digit(
                            owned(),
                            trimmed.chars().next().unwrap_or('?'),
                            octal,
                        ))
                    }
                }
            }
        };
        let mut digits = vec![lead];
        digits.extend(after.chars().map(|c| c.to_digit(16).unwrap_or(0) as u8));
        let code = Code::from_digits(digits)?;
        if unequal {
            code.with_unequal_splits()
        } else {
            Ok(code)
        }
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
    /// Bit 8 (hexadecimal codes): from a heap `n ≥ i + 3`, remove `i` and
    /// leave three non-empty heaps `a + b + c = n − i` (`i = 0` is the split
    /// of `8.`). Not touched by `unequal_splits`.
    pub take_split3: Vec<usize>,
    /// The `u` suffix: the two heaps left by a `take_split` move must differ
    /// in size (`a ≠ b`), as in Grundy's game.
    pub unequal_splits: bool,
}

impl Rules {
    /// True when the heap may not move at all (the game `0.0`).
    pub fn is_empty(&self) -> bool {
        self.take_all.is_empty()
            && self.take_leave_one.is_empty()
            && self.take_split.is_empty()
            && self.take_split3.is_empty()
    }

    /// True when two-heap splits exist and must be unequal. The Guy–Smith
    /// periodicity theorem does not cover such games.
    pub fn has_unequal_splits(&self) -> bool {
        self.unequal_splits && !self.take_split.is_empty()
    }

    /// True when some move leaves three heaps (a hexadecimal digit with
    /// bit 8).
    pub fn has_split3(&self) -> bool {
        !self.take_split3.is_empty()
    }

    /// The most heaps one move can leave: 0 (no move leaves a heap), 1, 2
    /// or 3.
    pub fn max_parts(&self) -> usize {
        if self.has_split3() {
            3
        } else if !self.take_split.is_empty() {
            2
        } else if !self.take_leave_one.is_empty() {
            1
        } else {
            0
        }
    }

    /// True when these are the moves of a plain octal game: no three-heap
    /// splits and no unequal-split rule. Engines and proofs written for
    /// octal games check this and refuse the rest; see
    /// [`beyond_octal`](Self::beyond_octal) for the message.
    pub fn is_octal(&self) -> bool {
        !self.has_split3() && !self.unequal_splits
    }

    /// What takes these rules beyond octal, in words for an error message
    /// ("… cannot run three-heap splits"), or `None` for an octal game.
    pub fn beyond_octal(&self) -> Option<&'static str> {
        match (self.has_split3(), self.unequal_splits) {
            (false, false) => None,
            (true, false) => Some("three-heap splits (hexadecimal digits with bit 8)"),
            (false, true) => Some("unequal two-heap splits (the u suffix, as in Grundy's game)"),
            (true, true) => Some(
                "three-heap splits (hexadecimal digits with bit 8) and unequal two-heap splits (the u suffix)",
            ),
        }
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
            ("0.3333333333337", "0.3333333333337"),
        ] {
            assert_eq!(p(input).unwrap().to_string(), canon, "{input}");
        }
        // The code alone: spaces or a newline around it are refused.
        for input in [" .77 ", " 0.6", "0.6\n", "0.6\t"] {
            assert!(
                matches!(p(input), Err(CodeError::Whitespace(_))),
                "{input:?}"
            );
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
        // 0.8 was "not an octal digit" before hexadecimal codes; now it is
        // a game, and only characters outside 0-9, A-F are refused.
        assert!(p("0.8").is_ok());
        let e = p("0.G").unwrap_err().to_string();
        assert!(
            e.contains("'G'") && e.contains("position 3") && e.contains("A-F"),
            "{e}"
        );
        let e = p("0.").unwrap_err().to_string();
        assert!(e.contains("no digits after the point"), "{e}");
        let e = p("xyz").unwrap_err().to_string();
        assert!(e.contains("'x'"), "{e}");
        // a, b, c are hexadecimal digits now: "abc" lacks only a point.
        assert!(matches!(p("abc"), Err(CodeError::MissingPoint(_))));
        let e = p("5.1").unwrap_err().to_string();
        assert!(e.contains("0 or 4") && e.contains("'5'"), "{e}");
        let e = p("0.6x").unwrap_err().to_string();
        assert!(e.contains("'x'") && e.contains("position 4"), "{e}");
        assert_eq!(p(""), Err(CodeError::Empty));
        assert!(matches!(p("6"), Err(CodeError::MissingPoint(_))));
        assert!(matches!(p("0.6.1"), Err(CodeError::TwoPoints { .. })));
        for e in [
            "0.G", "0.", "abc", "5.1", "0.6x", "", "5.F", "0.3u", "0.4u1", "u",
        ] {
            assert!(!p(e).unwrap_err().to_string().contains('\n'));
        }
    }

    #[test]
    fn octal_errors_read_as_before() {
        // Inputs made of octal digits and a point keep their old messages.
        assert_eq!(
            p("5.1").unwrap_err().to_string(),
            "octal code \"5.1\": the digit before the point must be 0 or 4, found '5'"
        );
        assert_eq!(
            p("0.6.1").unwrap_err().to_string(),
            "octal code \"0.6.1\" has more than one point"
        );
        assert_eq!(
            p("0.").unwrap_err().to_string(),
            "octal code \"0.\" has no digits after the point"
        );
        // A hexadecimal input is told about 8 and C as well.
        let e = p("5.F").unwrap_err().to_string();
        assert!(e.contains("0, 4, 8 or C") && e.contains("'5'"), "{e}");
        let e = p("9.1").unwrap_err().to_string();
        assert!(e.contains("0, 4, 8 or C") && e.contains("'9'"), "{e}");
    }

    #[test]
    fn hexadecimal_spellings_are_canonical() {
        for (input, canon) in [
            ("0.8", "0.8"),
            ("0.f", "0.F"),
            (".1f", "0.1F"),
            ("4.F", "4.F"),
            ("0.AbCd", "0.ABCD"),
            ("0.F0", "0.F"),
            ("8.0", "8.0"),
            ("c.0", "C.0"),
            ("C.1", "C.1"),
            ("08.3", "8.3"),
            ("grundy", "4.0u"),
            ("Grundy", "4.0u"),
            ("4.0u", "4.0u"),
            ("4.0U", "4.0u"),
            ("0.04u", "0.04u"),
            (".7u", "0.7u"),
            ("0.F0u", "0.Fu"),
        ] {
            assert_eq!(p(input).unwrap().to_string(), canon, "{input}");
        }
        assert_eq!(p("grundy").unwrap(), p("4.0u").unwrap());
        assert_ne!(p("4.0u").unwrap(), p("4.0").unwrap());
        // Canonical output parses back to the same code.
        for s in ["0.1F", "4.0u", "C.9E", "0.Fu"] {
            let c = p(s).unwrap();
            assert_eq!(p(&c.to_string()).unwrap(), c);
        }
    }

    #[test]
    fn octal_and_hexadecimal_are_told_apart() {
        assert!(p("0.77").unwrap().is_octal());
        assert!(p("4.07").unwrap().is_octal());
        for s in ["0.8", "0.17F", "8.0", "grundy", "0.6u"] {
            assert!(!p(s).unwrap().is_octal(), "{s}");
        }
        assert!(p("4.0u").unwrap().unequal_splits());
        assert!(!p("4.0").unwrap().unequal_splits());
    }

    #[test]
    fn useless_or_misplaced_u_is_refused() {
        // u needs a two-heap split to act on.
        assert!(matches!(p("0.3u"), Err(CodeError::UselessUnequal { .. })));
        assert!(matches!(p("0.8u"), Err(CodeError::UselessUnequal { .. })));
        let e = p("0.3u").unwrap_err().to_string();
        assert!(
            e.contains("\"0.3u\"") && e.contains("two-heap split"),
            "{e}"
        );
        // Only one u, and only at the end.
        let e = p("0.4u1").unwrap_err().to_string();
        assert!(e.contains("'u'") && e.contains("position 4"), "{e}");
        assert!(matches!(p("0.6uu"), Err(CodeError::BadChar { pos: 4, .. })));
        assert!(matches!(p("u"), Err(CodeError::BadChar { pos: 1, .. })));
        assert!(matches!(p(".u"), Err(CodeError::NoDigits { .. })));
    }

    #[test]
    fn from_digits_checks_hexadecimal_range() {
        assert_eq!(Code::from_digits(vec![0, 15]).unwrap().to_string(), "0.F");
        assert!(matches!(
            Code::from_digits(vec![0, 16]),
            Err(CodeError::DigitTooLarge {
                value: 16,
                pos: 3,
                ..
            })
        ));
        assert!(matches!(
            Code::from_digits(vec![2, 1]),
            Err(CodeError::BadLeadingDigit { found: '2', .. })
        ));
        assert!(matches!(
            Code::from_digits(vec![2, 9]),
            Err(CodeError::BadHexLeadingDigit { found: '2', .. })
        ));
        assert_eq!(Code::from_digits(vec![12]).unwrap().to_string(), "C.0");
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
        assert!(r.is_octal() && r.beyond_octal().is_none());
        assert_eq!(r.max_parts(), 2);
    }

    #[test]
    fn hexadecimal_rules_follow_the_digits() {
        // F = 1+2+4+8 at i = 1; C = 4+8 before the point.
        let r = p("C.F9").unwrap().rules();
        assert_eq!(r.take_all, vec![1, 2]);
        assert_eq!(r.take_leave_one, vec![1]);
        assert_eq!(r.take_split, vec![0, 1]);
        assert_eq!(r.take_split3, vec![0, 1, 2]);
        assert!(!r.unequal_splits && !r.has_unequal_splits());
        assert_eq!(r.max_parts(), 3);
        assert!(!r.is_octal());
        assert!(r.beyond_octal().unwrap().contains("three-heap"));
        // 0.8: only "remove one, leave three heaps".
        let r = p("0.8").unwrap().rules();
        assert!(r.take_all.is_empty() && r.take_leave_one.is_empty() && r.take_split.is_empty());
        assert_eq!(r.take_split3, vec![1]);
        assert!(!r.is_empty());
        // Grundy's game: the split of 4. with the unequal rule.
        let r = Code::grundy().rules();
        assert_eq!(r.take_split, vec![0]);
        assert!(r.take_split3.is_empty());
        assert!(r.unequal_splits && r.has_unequal_splits());
        assert!(!r.is_octal());
        assert!(r.beyond_octal().unwrap().contains("unequal"));
        assert_eq!(p("0.1").unwrap().rules().max_parts(), 0);
        assert_eq!(p("0.2").unwrap().rules().max_parts(), 1);
    }
}
