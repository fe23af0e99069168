//! The index page: one table row per class, plain HTML that reads without
//! JavaScript; `atlas.js` adds sorting, the filters and the search, which
//! read the `data-` attributes written here (`data-codes`: every code of
//! the class in its canonical spelling, which the search compares a typed
//! code with once it has made it canonical the same way).

use std::fmt::Write as _;

use super::census::Census;
use super::class;
use super::html::{esc, num, page as frame};
use super::values::Class;

/// What the index shows of a class.
#[derive(Debug, Clone)]
pub struct Entry {
    code: String,
    codes: Vec<String>,
    status: &'static str,
    why: Option<String>,
    period: Option<u64>,
    preperiod: Option<u64>,
    last_exception: Option<u64>,
    max_value: u32,
    mask: Option<String>,
    rare: Option<u64>,
    reach: u64,
    literature: String,
    /// The source a new result is new against, or a disagreement is
    /// with, in words; empty for the other labels.
    against: String,
    checked: String,
}

impl Entry {
    pub fn of(k: &Class<'_>, census: &Census) -> Entry {
        let row = k.row;
        let r = &row.result;
        let p = r.period();
        Entry {
            code: r.code.clone(),
            codes: row.member_codes(),
            status: row.status_word(),
            why: match &r.status {
                crate::census::Status::Stopped { why, .. } => Some(why.clone()),
                _ => r.apparent(),
            },
            period: p.map(|p| p.period),
            preperiod: p.map(|p| p.preperiod),
            last_exception: row.last_exception(),
            max_value: r.max_value,
            mask: row.mask_text(),
            rare: row.rare_count(),
            reach: r.reach,
            literature: row.literature_label().to_string(),
            against: match row.literature_label() {
                "new" | "disagrees" => row.literature_text().to_string(),
                _ => String::new(),
            },
            checked: class::checked_word(row, census),
        }
    }
}

/// The literature labels, in the order the filter lists them.
const LABELS: [&str; 5] = ["agrees", "new", "disagrees", "open", "unlisted"];

/// A numeric cell: the number (grouped) and its plain value to sort by;
/// `—` when there is none.
fn number(out: &mut String, n: Option<u64>) {
    match n {
        Some(n) => {
            let _ = write!(out, "<td class=\"n\" data-v=\"{n}\">{}</td>", num(n));
        }
        None => out.push_str("<td class=\"n\" data-v=\"\">—</td>"),
    }
}

pub fn page(entries: &[Entry], census: &Census) -> String {
    let title = census
        .title
        .clone()
        .unwrap_or_else(|| "Census of octal games".into());
    let mut b = String::new();
    let count = |s: &str| entries.iter().filter(|e| e.status == s).count();
    let _ = write!(
        b,
        "<header><h1>Atlas of octal games</h1>\n<p class=\"sub\">{} · {} classes: {} proven periodic, {} open, {} stopped. \
         Each row is a class of games with the same values (some shifted by a heap); its code is the first of them. \
         See <a href=\"#about\">how to read it</a>.</p></header>\n",
        esc(&title),
        entries.len(),
        count("periodic"),
        count("open"),
        count("stopped")
    );
    // The controls work only with the script, which shows them.
    b.push_str(
        "<form id=\"controls\" class=\"controls\" hidden role=\"search\" onsubmit=\"return false\">\n\
         <label>Code <input id=\"q\" type=\"search\" placeholder=\".137, 0.1370, 4.064\" autocomplete=\"off\" spellcheck=\"false\"></label>\n\
         <label>Status <select id=\"status\"><option value=\"\">all</option><option>periodic</option><option>open</option><option>stopped</option></select></label>\n\
         <label>Literature <select id=\"lit\"><option value=\"\">all</option>",
    );
    for l in LABELS {
        let _ = write!(b, "<option>{l}</option>");
    }
    b.push_str("</select></label>\n<output id=\"shown\" aria-live=\"polite\"></output>\n</form>\n");
    b.push_str(
        "<div class=\"scroll\"><table id=\"classes\">\n<thead><tr>\
         <th data-type=\"code\">code</th><th data-type=\"n\">members</th><th>status</th>\
         <th data-type=\"n\">period</th><th data-type=\"n\">preperiod</th>\
         <th data-type=\"n\">last exception</th><th data-type=\"n\">largest value</th>\
         <th>rare mask</th><th data-type=\"n\">rare positions</th><th data-type=\"n\">reach</th>\
         <th>literature</th><th>checked</th></tr></thead>\n<tbody>\n",
    );
    for e in entries {
        let _ = write!(
            b,
            "<tr id=\"c-{slug}\" data-codes=\"{codes}\" data-status=\"{status}\" data-lit=\"{lit}\">\
             <td data-v=\"{code}\"><a href=\"{href}\">{code}</a></td>\
             <td class=\"members\" data-v=\"{k}\"><span class=\"k\">{k}</span> {list}</td>\
             <td class=\"st {status}\"{title}>{status}</td>",
            slug = esc(&super::html::slug(&e.code)),
            codes = esc(&e.codes.join(" ")),
            status = e.status,
            lit = esc(&e.literature),
            code = esc(&e.code),
            href = esc(&class::path(&e.code)),
            k = e.codes.len(),
            list = esc(&e.codes.join(" ")),
            title = e
                .why
                .as_ref()
                .map_or(String::new(), |w| format!(" title=\"{}\"", esc(w))),
        );
        number(&mut b, e.period);
        number(&mut b, e.preperiod);
        number(&mut b, e.last_exception);
        number(&mut b, Some(u64::from(e.max_value)));
        let _ = write!(
            b,
            "<td class=\"mask\">{}</td>",
            e.mask.as_deref().map_or("—".into(), esc)
        );
        number(&mut b, e.rare);
        number(&mut b, Some(e.reach));
        let _ = writeln!(
            b,
            "<td class=\"lit {l}\">{l}{}</td><td>{}</td></tr>",
            if e.against.is_empty() {
                String::new()
            } else {
                format!("<br><small>{}</small>", esc(&e.against))
            },
            esc(&e.checked),
            l = esc(&e.literature)
        );
    }
    b.push_str("</tbody>\n</table></div>\n");
    b.push_str(
        "<section id=\"about\"><h2>How to read it</h2>\n<dl>\
         <dt>code, members</dt><dd>The class' first code, linking to its page, and how many codes (any number of trailing zeros is the same code) the class holds, with their codes. \
         The search finds a class by any of its codes, in any spelling: <code>.137</code>, <code>0.137</code>, <code>0.1370</code>. \
         A link <code>index.html?q=.137</code> (or <code>#q=.137</code>) opens the index searched.</dd>\
         <dt>status</dt><dd><em>periodic</em>: proven periodic by the Guy–Smith bound; <em>open</em>: computed to its reach without a period; <em>stopped</em>: the census' time cap ended it at its reach. \
         Pointed at, an open class says what its values show without a proof: a period, or an arithmetic period G(n + p) = G(n) + s (values that grow, seen in hexadecimal games).</dd>\
         <dt>period, preperiod, last exception</dt><dd>G(n + p) = G(n) for every n ≥ preperiod; the last exception is the last heap whose value the period does not give.</dd>\
         <dt>rare mask, rare positions</dt><dd>The sparse-space mask of the engine and how many heaps n ≥ 1 up to the reach have the rare value parity under it.</dd>\
         <dt>reach</dt><dd>Values computed: G(0) … G(reach − 1).</dd>\
         <dt>literature</dt><dd>What published tables say: <em>agrees</em>, <em>new</em> (listed as unsolved, proven here), <em>disagrees</em>, <em>open</em> (unsolved there too) or <em>unlisted</em>.</dd>\
         <dt>checked</dt><dd>How the class' claim was checked: by a method independent of the fast engine, by the engine only, or not yet.</dd>\
         </dl>\n<p>Sorting, filtering and the search need JavaScript; everything else reads without it.</p></section>\n",
    );
    frame(&format!("Atlas of octal games: {title}"), "", &b)
}
