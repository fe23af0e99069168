//! The few pieces of HTML every atlas page is made of: escaping, a
//! page's frame and the file name of a class' page. Plain functions over
//! strings: the pages are small and fixed, so no template engine.

use std::fmt::Write as _;

/// `s` escaped for HTML text and for attribute values in double quotes.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The name a class' page and certificate go by: the code itself when it
/// is made of digits, letters and points only (every canonical code is),
/// else with any other character as `_` and no leading point.
pub fn slug(code: &str) -> String {
    let s: String = code
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    match s.strip_prefix('.') {
        Some(rest) => format!("_{rest}"),
        None if s.is_empty() => "_".into(),
        None => s,
    }
}

/// A number with its digits grouped in threes by thin spaces, as the
/// pages print counts (sorting reads the plain number).
pub fn num(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

/// A whole page: `root` is the way from it to the site's top (`""` or
/// `"../"`) for the style sheet and the script.
pub fn page(title: &str, root: &str, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + 600);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<link rel=\"stylesheet\" href=\"{root}atlas.css\">\n\
         <script src=\"{root}atlas.js\" defer></script>\n</head>\n<body>\n{body}\n</body>\n</html>\n",
        esc(title)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_names_are_safe() {
        assert_eq!(
            esc(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(slug("0.137"), "0.137");
        assert_eq!(slug("4.0u"), "4.0u");
        assert_eq!(slug("../etc/passwd"), "_._etc_passwd");
        assert_eq!(slug(""), "_");
        assert_eq!(num(326639), "326\u{202f}639");
        assert_eq!(num(999), "999");
        assert_eq!(num(1000), "1\u{202f}000");
    }
}
