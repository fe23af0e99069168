//! A class' page: its facts and period notation, its first values, the
//! plots, its rare positions, its codes with their relations, the
//! certificate and how it was checked, the command that reproduces the
//! row, and what the literature says.

use std::fmt::Write as _;

use super::census::{Census, Row};
use super::html::{esc, num, page as frame, slug};
use super::svg;
use super::values::{Class, RareSource};
use crate::census::Status;
use crate::certificate::CheckRow;
use crate::period::{notation, Notation};

/// The page of the class whose first code is `code`, from the site's top.
pub fn path(code: &str) -> String {
    format!("class/{}.html", slug(code))
}

/// Where the class' certificate goes, from the site's top.
pub fn certificate_path(code: &str) -> String {
    format!("certificates/{}.cert.json", slug(code))
}

/// How the class' claim was checked, in a few words: the row's
/// `checked`, else its certificate's check, else "not checked".
pub fn checked_word(row: &Row, census: &Census) -> String {
    row.checked
        .as_ref()
        .or_else(|| census.checks.get(&row.result.code))
        .map_or("not checked".into(), CheckRow::cell)
}

/// Longest period notation printed (characters).
const NOTATION_CHARS: usize = 4000;
/// First values printed, ten a line.
const FIRST_VALUES: usize = 100;

/// A member's relation to the first code, as the census writes it
/// (`0.07 (G(n) = G_0.4(n+1))`), in words with both codes named.
fn relation(member: &str, first: &str) -> (String, String) {
    let (code, rest) = member.split_once(' ').unwrap_or((member, ""));
    let inner = rest
        .trim()
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(rest.trim());
    let text = match inner {
        "" if code == first => "the class' first code".to_string(),
        "" => "—".to_string(),
        "=" => format!("G_{code}(n) = G_{first}(n)"),
        "by a chain" => "by a chain of shifts through other codes of the class".to_string(),
        r => {
            // The census' bare G( is this code's.
            let mut out = String::new();
            let mut s = r;
            while let Some(i) = s.find("G(") {
                out.push_str(&s[..i]);
                out.push_str(&format!("G_{code}("));
                s = &s[i + 2..];
            }
            out.push_str(s);
            out
        }
    };
    (code.to_string(), text)
}

fn fact(b: &mut String, name: &str, value: &str) {
    let _ = write!(b, "<dt>{name}</dt><dd>{value}</dd>");
}

pub fn page(k: &Class<'_>, census: &Census) -> String {
    let code = &k.row.result.code;
    let mut b = String::new();
    header(&mut b, k);
    facts(&mut b, k, census);
    period_notation(&mut b, k);
    first_values(&mut b, k);
    plots(&mut b, k);
    rare_positions(&mut b, k);
    codes(&mut b, k);
    certificate(&mut b, k, census);
    reproduce_and_literature(&mut b, k);
    frame(&format!("{code}: atlas of octal games"), "../", &b)
}

/// The header: the code and its status in a line.
fn header(b: &mut String, k: &Class<'_>) {
    let row = k.row;
    let r = &row.result;
    let code = &r.code;
    let _ = write!(
        b,
        "<nav><a href=\"../index.html#c-{}\">← all classes</a></nav>\n<header><h1>{}</h1>\n<p class=\"sub\">",
        esc(&slug(code)),
        esc(code),
    );
    match &r.status {
        Status::Periodic {
            period: p,
            preperiod: s,
            ..
        } => {
            let _ = write!(
                b,
                "<span class=\"st periodic\">periodic</span>: period {}, preperiod {}",
                num(*p),
                num(*s)
            );
        }
        Status::Open => {
            // With an apparent regularity, say that none is proven and what
            // the values show.
            let apparent = r.apparent();
            let _ = write!(
                b,
                "<span class=\"st open\">open</span>: no period {}in its first {} values",
                if apparent.is_some() { "proven " } else { "" },
                num(r.reach)
            );
            if let Some(a) = apparent {
                let _ = write!(b, "; {}", esc(&a));
            }
        }
        Status::Stopped { why, .. } => {
            let _ = write!(
                b,
                "<span class=\"st stopped\">stopped</span> ({}) after {} values",
                esc(why),
                num(r.reach)
            );
        }
    }
    let k_members = row.member_codes().len();
    if k_members > 1 {
        let _ = write!(b, " · {k_members} codes in the class");
    }
    b.push_str("</p></header>\n");
}

/// The facts list.
fn facts(b: &mut String, k: &Class<'_>, census: &Census) {
    let row = k.row;
    let r = &row.result;
    let dash = || "—".to_string();
    let period = r.period();
    b.push_str("<section><h2>Facts</h2><dl class=\"facts\">");
    fact(b, "status", row.status_word());
    fact(b, "period", &period.map_or_else(dash, |p| num(p.period)));
    fact(
        b,
        "preperiod",
        &period.map_or_else(dash, |p| num(p.preperiod)),
    );
    fact(
        b,
        "proven at",
        &period.map_or_else(dash, |p| format!("{} values", num(p.proven_at))),
    );
    fact(
        b,
        "last exception",
        &row.last_exception().map_or_else(dash, num),
    );
    if let Some(a) = &r.arithmetic_period {
        fact(
            b,
            "arithmetic period (apparent)",
            &format!(
                "period {}, saltus {}, from n = {} (seen over {} values; not proven)",
                num(a.period),
                num(a.saltus),
                num(a.preperiod),
                num(a.checked_to)
            ),
        );
    }
    fact(b, "reach", &format!("{} values", num(r.reach)));
    fact(b, "largest value", &num(u64::from(r.max_value)));
    fact(
        b,
        "rare mask",
        &row.mask_text().map_or_else(dash, |m| esc(&m)),
    );
    fact(
        b,
        "rare positions",
        &row.rare_count().map_or_else(dash, num),
    );
    fact(
        b,
        "last rare position",
        &r.last_rare_at.map_or_else(dash, num),
    );
    fact(
        b,
        "checksum of the values",
        &r.checksum
            .as_deref()
            .map_or_else(dash, |c| format!("<code>{}</code>", esc(c))),
    );
    fact(b, "literature", &esc(row.literature_text()));
    fact(b, "checked", &esc(&checked_word(row, census)));
    b.push_str("</dl></section>\n");
}

/// The period in nim-sequence notation, for a periodic class.
fn period_notation(b: &mut String, k: &Class<'_>) {
    let row = k.row;
    let r = &row.result;
    let period = r.period();
    if let Some(p) = period {
        b.push_str("<section><h2>Period</h2>");
        match notation(&k.values, &p, NOTATION_CHARS, Notation::Text) {
            Some(text) => {
                let _ = write!(
                    b,
                    "<p>In nim-sequence notation (a dot over the first and the last value of the period; values of 10 or more in parentheses):</p>\
                     <p class=\"notation\">{}</p>",
                    esc(&text)
                );
            }
            None => {
                let _ = write!(
                    b,
                    "<p>The preperiod and one period are {} values, too many to print here.</p>",
                    num(p.preperiod + p.period)
                );
            }
        }
        b.push_str("</section>\n");
    }
}

/// The first values, ten a line.
fn first_values(b: &mut String, k: &Class<'_>) {
    let first = k.values.len().min(FIRST_VALUES);
    let _ = write!(
        b,
        "<section><h2>First values</h2><table class=\"values\"><caption>G(0) … G({}), ten a line</caption><tbody>",
        first.saturating_sub(1)
    );
    for (line, chunk) in k.values[..first].chunks(10).enumerate() {
        let _ = write!(b, "<tr><th>{}</th>", line * 10);
        for v in chunk {
            let _ = write!(b, "<td>{v}</td>");
        }
        b.push_str("</tr>");
    }
    b.push_str("</tbody></table></section>\n");
}

/// The plots of the values shown, and of every listed rare position.
fn plots(b: &mut String, k: &Class<'_>) {
    let row = k.row;
    let r = &row.result;
    let shown = k.values.len() as u64;
    let in_plot: Vec<(u64, u32)> = k.rare.iter().copied().filter(|r| r.0 < shown).collect();
    let _ = write!(
        b,
        "<section><h2>Plot</h2><p>G(n) for n &lt; {} (computed by the engine when this atlas was made; {} rare positions marked in red).</p>\
         <figure id=\"plot\">{}</figure>",
        num(shown),
        num(in_plot.len() as u64),
        svg::values_plot(&k.values, &in_plot)
    );
    if k.source == RareSource::Listed && !k.rare.is_empty() {
        let _ = write!(
            b,
            "<p>Every rare position up to the reach, {}:</p><figure id=\"rare-plot\">{}</figure>",
            num(r.reach),
            svg::rare_plot(&k.rare, r.reach)
        );
    }
    b.push_str("</section>\n");
}

/// The rare positions and where they come from.
fn rare_positions(b: &mut String, k: &Class<'_>) {
    let row = k.row;
    let dash = || "—".to_string();
    let shown = k.values.len() as u64;
    b.push_str("<section id=\"rare\"><h2>Rare positions</h2>");
    match &k.source {
        RareSource::Listed => {
            let _ = write!(
                b,
                "<p>All {} rare positions up to the reach, from the census.</p>",
                num(k.rare.len() as u64)
            );
        }
        RareSource::Derived { mask, complete } => {
            let mask = crate::engine::MaskSpec::Fixed(*mask);
            if *complete {
                let _ = write!(
                    b,
                    "<p>Derived from the first {} values with the census' mask {mask}: these are all {} of them.</p>",
                    num(shown),
                    num(k.rare.len() as u64)
                );
            } else {
                let _ = write!(
                    b,
                    "<p>The list is partial: derived from the first {} values with the census' mask {mask}; the census counts {} up to its reach.</p>",
                    num(shown),
                    row.rare_count().map_or_else(dash, num)
                );
            }
        }
        RareSource::NoMask => {
            b.push_str("<p>None: the census recorded no sparse-space mask for this class.</p>")
        }
    }
    if !k.rare.is_empty() {
        b.push_str("<div class=\"scroll short\"><table class=\"rare\"><thead><tr><th>n</th><th>G(n)</th></tr></thead><tbody>");
        for (n, g) in &k.rare {
            let _ = write!(b, "<tr><td>{n}</td><td>{g}</td></tr>");
        }
        b.push_str("</tbody></table></div>");
    }
    b.push_str("</section>\n");
}

/// The codes of the class and how each relates to the first.
fn codes(b: &mut String, k: &Class<'_>) {
    let row = k.row;
    let r = &row.result;
    let code = &r.code;
    b.push_str("<section id=\"codes\"><h2>Codes of the class</h2><div class=\"scroll\"><table><thead><tr><th>code</th><th>relation</th></tr></thead><tbody>");
    let members: Vec<String> = if row.members.is_empty() {
        vec![code.clone()]
    } else {
        row.members.clone()
    };
    for m in &members {
        let (c, rel) = relation(m, code);
        let _ = write!(
            b,
            "<tr><td><code>{}</code></td><td>{}</td></tr>",
            esc(&c),
            esc(&rel)
        );
    }
    b.push_str("</tbody></table></div>");
    if !r.spellings.is_empty() {
        let _ = write!(
            b,
            "<p class=\"spellings\">Spellings in the census: {}</p>",
            esc(&r.spellings.join(" "))
        );
    }
    b.push_str("</section>\n");
}

/// The certificate to download and how the class was checked.
fn certificate(b: &mut String, k: &Class<'_>, census: &Census) {
    let row = k.row;
    let r = &row.result;
    let code = &r.code;
    let period = r.period();
    b.push_str("<section id=\"certificate\"><h2>Certificate</h2>");
    if census.certificates.contains_key(code) {
        let _ = write!(
            b,
            "<p><a class=\"cert\" href=\"../{}\" download>{}.cert.json</a>: the claim and a hash of the values it rests on; \
             <code>octal certify --check {}.cert.json</code> checks it without the fast engine.</p>",
            esc(&certificate_path(code)),
            esc(code),
            esc(code)
        );
    } else if period.is_some() {
        b.push_str("<p>No certificate in this census yet.</p>");
    } else {
        b.push_str("<p>None: only a proven period has a certificate.</p>");
    }
    match census.checks.get(code) {
        Some(c) => {
            let _ = write!(
                b,
                "<p class=\"check\">Checked by <strong>{}</strong>{} in {:.1} s: {}{}.</p>",
                esc(&c.method),
                c.n.map_or(String::new(), |n| format!(" up to n = {}", num(n))),
                c.seconds,
                if c.ok { "passed" } else { "FAILED" },
                c.reason
                    .as_deref()
                    .map_or(String::new(), |r| format!(" ({})", esc(r))),
            );
        }
        None => {
            let _ = write!(
                b,
                "<p class=\"check\">Check: {}.</p>",
                esc(&checked_word(row, census))
            );
        }
    }
    b.push_str("</section>\n");
}

/// How to reproduce the values, and the literature's standing.
fn reproduce_and_literature(b: &mut String, k: &Class<'_>) {
    let row = k.row;
    let r = &row.result;
    let code = &r.code;
    let period = r.period();
    let _ = writeln!(
        b,
        "<section id=\"reproduce\"><h2>Reproduce</h2><pre><code>octal run {} --to {}</code></pre>\
         <p>computes the same {} values{}.</p></section>",
        esc(code),
        r.reach,
        num(r.reach),
        if period.is_some() {
            " and proves the period"
        } else {
            ""
        }
    );
    let _ = writeln!(
        b,
        "<section id=\"literature\"><h2>Literature</h2><p><span class=\"lit {l}\">{l}</span> {}</p></section>",
        row.literature
            .as_ref()
            .and_then(|l| l.text.as_deref())
            .map_or_else(|| "No published status recorded for this class.".to_string(), esc),
        l = esc(row.literature_label()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relations_name_both_codes() {
        assert_eq!(
            relation("0.07 (G(n) = G_0.4(n+1))", "0.4").1,
            "G_0.07(n) = G_0.4(n+1)"
        );
        assert_eq!(
            relation("0.01 (G(n+1) = G_0.1(n))", "0.1").1,
            "G_0.01(n+1) = G_0.1(n)"
        );
        assert_eq!(relation("0.42 (=)", "0.4").1, "G_0.42(n) = G_0.4(n)");
        assert_eq!(
            relation("0.137 (G_0.137(n) = G_0.4(n+2))", "0.4").1,
            "G_0.137(n) = G_0.4(n+2)"
        );
        assert_eq!(relation("0.4", "0.4").1, "the class' first code");
        assert!(relation("0.137 (by a chain)", "0.4").1.contains("chain"));
    }
}
