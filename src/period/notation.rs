//! The nim-sequence notation of a periodic sequence, with dots over its
//! period, as the lecture notes write it.

use octal_kernels::Value;

use crate::period::bound::Period;

/// How [`notation`] marks the period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notation {
    /// Plain text: a combining dot above (U+0307) over the period's first
    /// and last values, `0.1̇10112212̇`.
    Text,
    /// LaTeX, as papers print it: `0.\dot{1}10112212\dot{2}`.
    Latex,
}

/// The sequence up to the end of its first period, in the nim-sequence
/// notation of the lecture notes on impartial games: G(0), a point, then
/// G(1), G(2), …, with a dot over the first and the last value of the
/// period (one dot when the period is 1; G(0) is dotted when the
/// preperiod is 0). Guiles (`0.15`, preperiod 1, period 10) is
/// `0.1̇10112212̇2`, in LaTeX `0.\dot{1}10112212\dot{2}`. Values 0 to 9 are
/// one digit each; a value of 10 or more is written in parentheses, `(12)`,
/// and a dot over it sits on its first digit. `None` when the text would
/// be longer than `max_len` characters (the dots do not count).
pub fn notation<V: Value>(
    g: &[V],
    period: &Period,
    max_len: usize,
    style: Notation,
) -> Option<String> {
    let (s, p) = (period.preperiod as usize, period.period as usize);
    if p == 0 || s + p > g.len() || s + p > max_len {
        return None;
    }
    let mut out = String::new();
    let mut len = 0;
    for (n, v) in g[..s + p].iter().enumerate() {
        let digits = v.get().to_string();
        let (open, close) = if digits.len() > 1 {
            ("(", ")")
        } else {
            ("", "")
        };
        let (first, rest) = digits.split_at(1);
        out.push_str(open);
        if n == s || n + 1 == s + p {
            match style {
                Notation::Text => {
                    out.push_str(first);
                    out.push('\u{307}');
                }
                Notation::Latex => {
                    out.push_str("\\dot{");
                    out.push_str(first);
                    out.push('}');
                }
            }
        } else {
            out.push_str(first);
        }
        out.push_str(rest);
        out.push_str(close);
        len += digits.len() + open.len() + close.len();
        if n == 0 {
            out.push('.');
            len += 1;
        }
        if len > max_len {
            return None;
        }
    }
    Some(out)
}
