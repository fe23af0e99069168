//! One check shared by the census tests: a member's sequence is its
//! class' first code's, shifted as the census says.

/// Asserts G_code(n) = G_first(n + shift) for every n where both
/// sequences give a value.
pub fn assert_shifted(code: &str, mine: &[u32], first: &str, theirs: &[u32], shift: i64) {
    for (n, &v) in mine.iter().enumerate() {
        let m = n as i64 + shift;
        if let Some(&w) = usize::try_from(m).ok().and_then(|m| theirs.get(m)) {
            assert_eq!(v, w, "G_{code}({n}) = G_{first}({n}{shift:+})");
        }
    }
}
