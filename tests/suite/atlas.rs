//! `octal atlas`: the site made from a small census (two digits, 2^12
//! values) read as files (every page well formed, every link resolved,
//! nothing from the network, the sizes), then driven in headless
//! Chromium: the index searched by a code in several spellings, a row's
//! link followed, the class page's plot, rare marks and certificate
//! link. Which class a code belongs to, and which heaps are rare, come
//! from the reference engine, never from the atlas. Where no chromium is
//! installed the browser tests print a line saying so and pass
//! (scripts/install-browser.sh installs it).
//!
//! `OCTAL_ATLAS_SCREENSHOTS=1 cargo test --release --test suite
//! atlas::screenshots` remakes docs/atlas/index.png and class.png from the
//! committed three-digit census.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use octal::Code;

const TO: usize = 1 << 12;

use crate::common::faults as kit;
use kit::{one_line_error, reference, run};

/// What a run printed and how it ended, for a failed assertion.
fn said(out: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `octal atlas CENSUS -o SITE EXTRA…`.
fn atlas(census: &Path, site: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "atlas",
        census.to_str().unwrap(),
        "-o",
        site.to_str().unwrap(),
    ];
    args.extend(extra);
    run(&args)
}

/// A census of every code of up to two digits to 2^12, with a
/// certificate and a check row for the class of 0.4 (period 34,
/// preperiod 54), made once for the whole file.
fn census() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = run(&[
            "census",
            "--digits",
            "2",
            "--to",
            "2^12",
            "--probe",
            "2^12",
            "-q",
            "--out",
            dir.path().to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", said(&out));
        // The census certified its periodic classes itself (0.4 among them).
        assert!(dir.path().join("certificates/0.4.cert.json").is_file());
        dir
    })
    .path()
}

/// The atlas of [`census`], made once.
fn site() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        let out = atlas(census(), &site, &[]);
        assert!(out.status.success(), "{}", said(&out));
        (dir, site)
    })
    .1
}

/// The census' rows as plain JSON (the test's own reading).
fn rows(dir: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(dir.join("census.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r.get("code").is_some()) // not the provenance line
        .collect()
}

/// A row's sparse-space mask: in hex (`"0x1ee"`) as the census writes
/// it, or a number as older censuses did.
fn mask_of(row: &serde_json::Value) -> Option<u32> {
    match &row["rare_mask"] {
        serde_json::Value::String(t) => u32::from_str_radix(t.trim_start_matches("0x"), 16).ok(),
        v => v.as_u64().map(|m| m as u32),
    }
}

/// Whether G_a(n) = G_b(n + k) for some shift |k| ≤ 3 wherever both are
/// known: the relations a census' classes are made of, composed.
fn related(a: &[u32], b: &[u32]) -> bool {
    (-3i64..=3).any(|k| {
        (0..a.len() as i64)
            .filter(|&n| n + k >= 0 && ((n + k) as usize) < b.len())
            .all(|n| a[n as usize] == b[(n + k) as usize])
    })
}

// ---------------------------------------------------------------------
// HTML read as text: tags, attributes, rows.

const VOID: [&str; 6] = ["meta", "link", "br", "input", "img", "hr"];

/// Checks that `html` is well formed: every tag closed in order (void
/// elements and `/>` aside), attribute quotes paired. Returns the tags,
/// each as its name and its text.
fn parse(html: &str, what: &str) -> Vec<(String, String)> {
    let mut tags = Vec::new();
    let mut stack: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i..];
        if let Some(r) = rest.strip_prefix("<!--") {
            rest = &r[r
                .find("-->")
                .unwrap_or_else(|| panic!("{what}: open comment"))
                + 3..];
            continue;
        }
        let end = rest
            .find('>')
            .unwrap_or_else(|| panic!("{what}: a tag never closed"));
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        assert_eq!(tag.matches('"').count() % 2, 0, "{what}: quotes in <{tag}>");
        if tag.starts_with('!') {
            continue;
        }
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        assert!(!name.is_empty(), "{what}: <{tag}>");
        if let Some(closing) = tag.strip_prefix('/') {
            let _ = closing;
            let open = stack.pop();
            assert_eq!(open.as_deref(), Some(name.as_str()), "{what}: </{name}>");
        } else if !(tag.ends_with('/') || VOID.contains(&name.as_str())) {
            stack.push(name.clone());
            if name == "script" || name == "style" {
                let close = format!("</{name}>");
                let at = rest
                    .find(&close)
                    .unwrap_or_else(|| panic!("{what}: <{name}> never closed"));
                rest = &rest[at..];
            }
        }
        tags.push((name, tag.to_string()));
    }
    assert!(stack.is_empty(), "{what}: {stack:?} never closed");
    tags
}

/// The value of attribute `name` in a tag's text.
fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    let v = &tag[i..i + tag[i..].find('"')?];
    Some(
        v.replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
}

/// The index's class rows (a dumped DOM or the file): their `data-codes`
/// and whether they are hidden.
struct IndexRow {
    codes: Vec<String>,
    hidden: bool,
    href: String,
}

fn index_rows(html: &str) -> Vec<IndexRow> {
    let tags = parse(html, "index");
    let mut out: Vec<IndexRow> = Vec::new();
    for (name, tag) in &tags {
        if name == "tr" {
            if let Some(codes) = attr(tag, "data-codes") {
                out.push(IndexRow {
                    codes: codes.split(' ').map(String::from).collect(),
                    hidden: attr(tag, "hidden").is_some() || tag.ends_with(" hidden"),
                    href: String::new(),
                });
            }
        } else if name == "a" {
            if let (Some(last), Some(href)) = (out.last_mut(), attr(tag, "href")) {
                if last.href.is_empty() {
                    last.href = href;
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------
// The site as files.

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn the_site_reads_as_files_with_every_link_resolved_and_nothing_from_the_network() {
    let site = site();
    let rows = rows(census());
    let index = fs::read_to_string(site.join("index.html")).unwrap();
    let shown = index_rows(&index);
    // One row and one page per class, each class' codes all listed.
    assert_eq!(shown.len(), rows.len());
    for (row, r) in rows.iter().zip(&shown) {
        let code = row["code"].as_str().unwrap();
        assert_eq!(r.codes[0], code);
        let members = row["members"].as_array().unwrap();
        assert_eq!(r.codes.len(), members.len(), "{code}");
        assert!(!r.hidden);
        assert!(site.join(&r.href).is_file(), "{}", r.href);
    }
    // Readable on a phone: the viewport set, the table in a box that
    // scrolls sideways; the controls, which need the script, hidden
    // until it shows them.
    assert!(index.contains("<meta name=\"viewport\" content=\"width=device-width"));
    assert!(index.contains("<div class=\"scroll\"><table id=\"classes\">"));
    assert!(index.contains("<form id=\"controls\" class=\"controls\" hidden"));
    let css = fs::read_to_string(site.join("atlas.css")).unwrap();
    assert!(css.contains(".controls[hidden] { display: none; }"));
    assert!(css.contains(".scroll { overflow-x: auto;"));
    let pages: Vec<PathBuf> = files(site)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    assert_eq!(pages.len(), rows.len() + 1);
    for page in &pages {
        let html = fs::read_to_string(page).unwrap();
        let what = page.display().to_string();
        let tags = parse(&html, &what);
        for (name, tag) in &tags {
            for key in ["href", "src"] {
                let Some(link) = attr(tag, key) else { continue };
                let resource = matches!(name.as_str(), "link" | "script" | "img" | "image");
                assert!(
                    !(resource && link.contains("://")),
                    "{what}: <{tag}> loads from elsewhere"
                );
                if link.starts_with("http://") || link.starts_with("https://") {
                    continue;
                }
                let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
                let file = file.split('?').next().unwrap();
                let target = if file.is_empty() {
                    page.clone()
                } else {
                    page.parent().unwrap().join(file)
                };
                assert!(target.is_file(), "{what}: {link} is not in the site");
                if !anchor.is_empty() {
                    let there = fs::read_to_string(&target).unwrap();
                    assert!(
                        there.contains(&format!("id=\"{anchor}\"")),
                        "{what}: {link}: no such anchor"
                    );
                }
            }
        }
        assert!(
            !html.contains("<style") || !html.contains("@import"),
            "{what}"
        );
    }
    for asset in ["atlas.css", "atlas.js"] {
        let body = fs::read_to_string(site.join(asset)).unwrap();
        assert!(!body.contains("://"), "{asset} names a resource elsewhere");
        assert!(!body.contains("@import"), "{asset}");
    }
    // Sizes: a small census makes a small site.
    let index_bytes = fs::metadata(site.join("index.html")).unwrap().len();
    assert!(index_bytes < 200_000, "index.html is {index_bytes} bytes");
    for p in files(site) {
        let n = fs::metadata(&p).unwrap().len();
        assert!(n < 400_000, "{} is {n} bytes", p.display());
    }
    // The certificate is in the site; what it says, unchanged.
    assert_eq!(
        fs::read(site.join("certificates/0.4.cert.json")).unwrap(),
        fs::read(census().join("certificates/0.4.cert.json")).unwrap()
    );
}

#[test]
fn a_class_page_shows_the_values_the_reference_engine_computes() {
    let site = site();
    // 0.4 (Dawson's Kayles' class): period 34, preperiod 54.
    let page = fs::read_to_string(site.join("class/0.4.html")).unwrap();
    let g = reference("0.4", 100);
    let first_line: String = g[..10].iter().map(|v| format!("<td>{v}</td>")).collect();
    assert!(page.contains(&format!("<tr><th>0</th>{first_line}</tr>")));
    let last_line: String = g[90..].iter().map(|v| format!("<td>{v}</td>")).collect();
    assert!(page.contains(&format!("<tr><th>90</th>{last_line}</tr>")));
    // The notation: G(0), a point, then up to G(54 + 34 − 1), the dots
    // (U+0307) over G(54) and G(87).
    let dots = page.matches('\u{307}').count();
    assert_eq!(dots, 2);
    assert!(page.contains("octal run 0.4 --to 192"));
    assert!(page.contains("G_0.07(n) = G_0.4(n+1)"), "relation of 0.07");
    // Its certificate's N, the last heap the proof needs: 2i + 2p + t − 2
    // with t = 1 (.4 takes one token; docs/certificates.md says why the
    // Guy–Smith induction holds from heap 2i + 2p + t − 1 on).
    let n = 2 * 54 + 2 * 34 + 1 - 2;
    assert!(page.contains(&format!(
        "Checked by <strong>independent</strong> up to n = {n}"
    )));
    let index = fs::read_to_string(site.join("index.html")).unwrap();
    let tr = index.split("<tr id=\"c-0.4\"").nth(1).unwrap();
    assert!(tr[..tr.find("</tr>").unwrap()].contains(&format!("<td>independent to {n}</td>")));
    // No mask at 2^12: no rare positions, and it says so.
    assert!(!page.contains("class=\"rare\""));
    assert!(page.contains("no sparse-space mask"));
}

/// The rare positions n ≥ 1 of `values` under a mask without position
/// parity: heaps whose value has an even number of ones under it (the
/// definition of sparse space, Gangolli and Plambeck).
fn rare_by_definition(values: &[u32], mask: u32) -> Vec<usize> {
    (1..values.len())
        .filter(|&n| (values[n] & mask).count_ones().is_multiple_of(2))
        .collect()
}

#[test]
fn rare_positions_are_those_of_the_census_mask() {
    let site = site();
    let rows = rows(census());
    let mut checked = 0;
    for row in rows.iter().filter(|r| mask_of(r).is_some()) {
        let code = row["code"].as_str().unwrap();
        let mask = mask_of(row).unwrap();
        let g = reference(code, TO);
        let rare = rare_by_definition(&g, mask);
        assert_eq!(
            rare.len() as u64,
            row["rare_positions"].as_u64().unwrap(),
            "{code}"
        );
        let page = fs::read_to_string(site.join(format!("class/{code}.html"))).unwrap();
        let path = page
            .split("class=\"rare\" d=\"")
            .nth(1)
            .unwrap_or_else(|| panic!("{code}: no rare marks"));
        let marks = path[..path.find('"').unwrap()].matches("h0").count();
        assert_eq!(marks, rare.len(), "{code}: rare marks in the plot");
        for &n in &rare {
            assert!(
                page.contains(&format!("<tr><td>{n}</td><td>{}</td></tr>", g[n])),
                "{code}: rare position {n} not listed"
            );
        }
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} classes with a mask");
}

/// The census with the fields later tools add to a row, on 0.16's:
/// every rare position (by the reference engine), the literature's word
/// and how the claim was checked.
fn census_with_later_fields(dir: &Path, rare: &[(usize, u32)]) {
    let text = fs::read_to_string(census().join("census.jsonl")).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let mut row: serde_json::Value = serde_json::from_str(line).unwrap();
        if row["code"] == "0.16" {
            row["rare_list"] = serde_json::json!(rare);
            row["literature"] = serde_json::json!({"label": "new", "text": "unsolved in <a list>"});
            row["checked"] = serde_json::json!({"code": "0.16", "method": "engine-only", "n": 4096, "seconds": 0.5, "ok": true, "reason": "over budget"});
            row["last_exception"] = serde_json::json!(4000);
        }
        out += &format!("{row}\n");
    }
    fs::write(dir.join("census.jsonl"), out).unwrap();
}

#[test]
fn a_rare_list_is_plotted_over_the_whole_reach_and_the_later_fields_shown() {
    let dir = tempfile::tempdir().unwrap();
    let census = dir.path().join("census");
    fs::create_dir(&census).unwrap();
    let rows = rows(self::census());
    let row = rows.iter().find(|r| r["code"] == "0.16").unwrap();
    let g = reference("0.16", TO);
    let rare: Vec<(usize, u32)> = rare_by_definition(&g, mask_of(row).unwrap())
        .into_iter()
        .map(|n| (n, g[n]))
        .collect();
    census_with_later_fields(&census, &rare);
    let site = dir.path().join("site");
    let build = || atlas(&census, &site, &["--plot", "1000"]);
    let out = build();
    assert!(out.status.success(), "{}", said(&out));
    let page = fs::read_to_string(site.join("class/0.16.html")).unwrap();
    parse(&page, "0.16");
    // The whole-reach plot marks every listed one; the first plot those
    // below its 1000 heaps; the table lists them all.
    let marks = |id: &str| {
        let fig = page.split(&format!("<figure id=\"{id}\">")).nth(1).unwrap();
        let fig = &fig[..fig.find("</figure>").unwrap()];
        let p = fig.split("class=\"rare\" d=\"").nth(1).unwrap();
        p[..p.find('"').unwrap()].matches("h0").count()
    };
    assert_eq!(marks("rare-plot"), rare.len());
    assert_eq!(marks("plot"), rare.iter().filter(|r| r.0 < 1000).count());
    assert!(
        rare.iter().any(|r| r.0 >= 1000),
        "a rare position beyond the first plot"
    );
    for (n, v) in &rare {
        assert!(page.contains(&format!("<tr><td>{n}</td><td>{v}</td></tr>")));
    }
    assert!(
        page.contains("unsolved in &lt;a list&gt;"),
        "the literature's text, escaped"
    );
    assert!(page.contains("engine only (N = 4096)"));
    let index = fs::read_to_string(site.join("index.html")).unwrap();
    let tr = index.split("<tr id=\"c-0.16\"").nth(1).unwrap();
    let tr = &tr[..tr.find("</tr>").unwrap()];
    assert!(tr.contains("data-lit=\"new\""));
    assert!(tr.contains(&format!("data-v=\"{}\"", rare.len())));
    assert!(tr.contains("data-v=\"4000\""), "the last exception");
    // A rare list the values contradict is refused.
    let mut wrong = rare.clone();
    wrong[0].1 ^= 1;
    census_with_later_fields(&census, &wrong);
    let out = build();
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("rare list"));
    if let Some(browser) = chromium() {
        census_with_later_fields(&census, &rare);
        assert!(build().status.success());
        let dom = dump(
            browser,
            &format!("{}?lit=new", file_url(&site.join("index.html"))),
        );
        let shown: Vec<String> = index_rows(&dom)
            .into_iter()
            .filter(|r| !r.hidden)
            .map(|r| r.codes[0].clone())
            .collect();
        assert_eq!(shown, ["0.16"]);
    }
}

#[test]
fn a_previous_atlas_is_replaced_and_nothing_else_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let atlas = |extra: &[&str]| atlas(census(), &site, extra);
    let out = atlas(&["--plot", "300"]);
    assert!(out.status.success(), "{}", said(&out));
    // A reader's note, and a stale page of an earlier census.
    fs::write(site.join("notes.txt"), "mine").unwrap();
    let manifest = site.join("atlas-manifest.json");
    let m = fs::read_to_string(&manifest).unwrap();
    fs::write(site.join("class/0.777.html"), "old").unwrap();
    fs::write(
        &manifest,
        m.replacen(
            "\"index.html\"",
            "\"class/0.777.html\",\n    \"index.html\"",
            1,
        ),
    )
    .unwrap();
    let out = atlas(&["--plot", "300"]);
    assert!(out.status.success(), "{}", said(&out));
    assert_eq!(fs::read_to_string(site.join("notes.txt")).unwrap(), "mine");
    assert!(
        !site.join("class/0.777.html").exists(),
        "a stale page stays"
    );
    // A file at a page's name that the atlas did not write is refused.
    fs::remove_file(site.join("class/0.4.html")).unwrap();
    fs::write(site.join("class/0.4.html"), "yours").unwrap();
    let m = fs::read_to_string(&manifest).unwrap();
    fs::write(&manifest, m.replace("\"class/0.4.html\",", "")).unwrap();
    let out = atlas(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert_eq!(
        fs::read_to_string(site.join("class/0.4.html")).unwrap(),
        "yours"
    );
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let refused = |args: &[&str], says: &str| {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(one_line_error(&out, 2), Ok(()), "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
    };
    // No census; a directory that is none.
    refused(&["atlas", &d("none"), "-o", &d("s1")], "no such directory");
    fs::create_dir(d("empty")).unwrap();
    refused(&["atlas", &d("empty"), "-o", &d("s1")], "no census.jsonl");
    // Rows that cannot be read; a row the values contradict.
    fs::create_dir(d("bad")).unwrap();
    let good = fs::read_to_string(census().join("census.jsonl")).unwrap();
    let mut lines: Vec<String> = good.lines().map(String::from).collect();
    lines[2] = "{\"code\": 7}".into();
    fs::write(dir.path().join("bad/census.jsonl"), lines.join("\n")).unwrap();
    refused(&["atlas", &d("bad"), "-o", &d("s1")], "line 3");
    let four = lines
        .iter()
        .position(|l| l.contains("\"code\":\"0.4\""))
        .unwrap();
    lines[2] = good.lines().nth(2).unwrap().into();
    lines[four] = lines[four].replace("\"max_value\":9", "\"max_value\":8");
    fs::write(dir.path().join("bad/census.jsonl"), lines.join("\n")).unwrap();
    refused(&["atlas", &d("bad"), "-o", &d("s1")], "0.4");
    assert!(
        !dir.path().join("s1").exists(),
        "a refused atlas left its directory"
    );
    // A site that is not an atlas: the census directory itself.
    let c = census().to_str().unwrap();
    refused(&["atlas", c, "-o", c], "holds no atlas");
    assert!(!census().join("index.html").exists());
    // An atlas' name taken by a file.
    fs::write(d("file"), "x").unwrap();
    refused(&["atlas", c, "-o", &d("file")], "not a directory");
}

#[test]
fn the_three_digit_census_index_stays_small() {
    let census = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/census/digits-3-2^25");
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let out = atlas(&census, &site, &["--plot", "128"]);
    assert!(out.status.success(), "{}", said(&out));
    let index = fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.len() < 2 << 20, "index.html is {} bytes", index.len());
    let rows = index_rows(&index);
    assert_eq!(rows.len(), self::rows(&census).len());
    // Every class the census judged new says so in the index, naming
    // the list it is new against.
    let new = self::rows(&census)
        .iter()
        .filter(|r| r["literature"]["label"] == "new")
        .count();
    assert_eq!(index.matches("new: listed as unsolved by").count(), new);
    // The four games the issue names, each findable by its code.
    for code in ["4.344", "4.364", "4.064", "4.406"] {
        assert!(
            rows.iter().any(|r| r.codes.iter().any(|c| c == code)),
            "{code}"
        );
    }
}

// ---------------------------------------------------------------------
// In the browser.

/// The chromium to drive, or `None` (said on stderr) when there is none.
fn chromium() -> Option<&'static str> {
    static FOUND: OnceLock<Option<&'static str>> = OnceLock::new();
    *FOUND.get_or_init(|| {
        let found = ["chromium", "chromium-browser"].into_iter().find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
        if found.is_none() {
            // Past the test harness' capture, so that a passing run shows it.
            let _ = writeln!(
                std::io::stderr(),
                "skipped: no chromium; run scripts/install-browser.sh"
            );
        }
        found
    })
}

/// Chromium's flags for a headless run here (as root too: no sandbox).
fn headless(browser: &str, profile: &Path) -> Command {
    let mut c = Command::new(browser);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--hide-scrollbars",
        "--allow-file-access-from-files",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

/// The DOM of `url` once its scripts have run.
fn dump(browser: &str, url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = headless(browser, profile.path())
        .args(["--virtual-time-budget=5000", "--dump-dom", url])
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success() && dom.contains("</html>"),
        "{url}: {}",
        said(&out)
    );
    dom
}

fn file_url(path: &Path) -> String {
    format!("file://{}", fs::canonicalize(path).unwrap().display())
}

#[test]
fn the_browser_finds_a_class_by_any_spelling_and_follows_its_link() {
    let Some(browser) = chromium() else { return };
    let site = site();
    let rows = rows(census());
    // Which class holds 0.07, by the reference engine: the one whose
    // first code's values are 0.07's, shifted by at most a few heaps.
    let seven = reference("0.07", TO);
    let expected: Vec<String> = rows
        .iter()
        .map(|r| r["code"].as_str().unwrap().to_string())
        .filter(|c| related(&reference(c, TO), &seven))
        .collect();
    assert_eq!(
        expected,
        ["0.4"],
        "the class of 0.07 by the reference engine"
    );
    let index = file_url(&site.join("index.html"));
    let mut href = String::new();
    for query in ["?q=0.07", "?q=.07", "#q=0.070", "?q=0.0700", "?q=.4"] {
        let dom = dump(browser, &format!("{index}{query}"));
        let all = index_rows(&dom);
        let visible: Vec<&IndexRow> = all.iter().filter(|r| !r.hidden).collect();
        let shown: Vec<&str> = visible.iter().map(|r| r.codes[0].as_str()).collect();
        assert_eq!(shown, expected, "{query}");
        assert!(dom.contains("1 of "), "{query}: the count");
        href = visible[0].href.clone();
    }
    // A code in no class here, and text that is no code: no row.
    for query in ["?q=0.1234", "?q=banana"] {
        let dom = dump(browser, &format!("{index}{query}"));
        assert!(index_rows(&dom).iter().all(|r| r.hidden), "{query}");
    }
    assert!(dump(browser, &format!("{index}?q=banana")).contains("is not an octal code"));
    // The status filter from the address: exactly the periodic rows.
    let dom = dump(browser, &format!("{index}?status=periodic"));
    let periodic = rows.iter().filter(|r| r["status"] == "periodic").count();
    assert_eq!(
        index_rows(&dom).iter().filter(|r| !r.hidden).count(),
        periodic
    );
    // Sorted from the address: by period (none last), then back to front.
    for (sort, reverse) in [("period", false), ("-preperiod", true)] {
        let key = sort.trim_start_matches('-');
        let mut want: Vec<(Option<u64>, usize, String)> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r[key].as_u64(), i, r["code"].as_str().unwrap().to_string()))
            .collect();
        want.sort_by(|a, b| match (a.0, b.0) {
            (Some(x), Some(y)) if reverse => y.cmp(&x).then(a.1.cmp(&b.1)),
            (Some(x), Some(y)) => x.cmp(&y).then(a.1.cmp(&b.1)),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a.1.cmp(&b.1),
        });
        let dom = dump(browser, &format!("{index}?sort={sort}"));
        let got: Vec<String> = index_rows(&dom)
            .into_iter()
            .map(|r| r.codes[0].clone())
            .collect();
        let want: Vec<String> = want.into_iter().map(|w| w.2).collect();
        assert_eq!(got, want, "?sort={sort}");
    }
    // The row's link, followed.
    assert_eq!(href, "class/0.4.html");
    let page = dump(browser, &file_url(&site.join(&href)));
    assert!(page.contains("<svg class=\"plot\""), "no plot");
    let tags = parse(&page, "class page");
    let cert = tags
        .iter()
        .find(|(n, t)| n == "a" && attr(t, "class").as_deref() == Some("cert"))
        .map(|(_, t)| attr(t, "href").unwrap())
        .expect("a certificate link");
    assert!(site.join("class").join(&cert).is_file(), "{cert}");
    // A class with rare positions: its marks are in the plot.
    let sixteen = dump(browser, &file_url(&site.join("class/0.16.html")));
    let g = reference("0.16", TO);
    let mask = mask_of(rows.iter().find(|r| r["code"] == "0.16").unwrap())
        .expect("0.16 has a mask at 2^12");
    let marks = sixteen
        .split("class=\"rare\" d=\"")
        .nth(1)
        .map(|p| p[..p.find('"').unwrap()].matches("h0").count());
    assert_eq!(marks, Some(rare_by_definition(&g, mask).len()));
}

#[test]
fn javascript_spells_codes_as_the_rust_parser_does() {
    let Some(browser) = chromium() else { return };
    let inputs = [
        ".137",
        "0.137",
        "0.1370",
        "0.137000",
        "00.6",
        "4.7",
        "4.70",
        "4.0",
        ".0",
        "0.0",
        "4.",
        ".",
        "",
        "grundy",
        "GRUNDY",
        "4.0u",
        "0.4u",
        "0.1u",
        "u",
        "0.6U",
        "8.1",
        "c.1",
        "C.10",
        "0.1f",
        "0.1F0",
        "0x1",
        "1.2",
        "0..1",
        "0.1.2",
        "a.1",
        "44.1",
        "04.1",
        "0.g",
        "8.4u",
        "8.1u",
        "C.0u",
        "0.8",
        "0.08",
        "4.00u",
        "0.12345670",
        "-0.6",
        "0,6",
        "0.6 ",
    ];
    let dir = tempfile::tempdir().unwrap();
    let js = file_url(&site().join("atlas.js"));
    let page = dir.path().join("t.html");
    fs::write(
        &page,
        format!(
            "<!DOCTYPE html><html><head><script src=\"{js}\"></script></head><body><pre id=\"out\"></pre>\
             <script>var inputs = {};\
             document.getElementById('out').textContent = JSON.stringify(inputs.map(octalCanonical));</script></body></html>",
            serde_json::to_string(&inputs[..]).unwrap()
        ),
    )
    .unwrap();
    let dom = dump(browser, &file_url(&page));
    let json = dom
        .split("<pre id=\"out\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .expect("the script's answer");
    let got: Vec<Option<String>> = serde_json::from_str(json).unwrap();
    let mut want: BTreeMap<&str, Option<String>> = BTreeMap::new();
    for s in inputs {
        // The search box drops spaces around a code; the parser refuses
        // them.
        want.insert(s, s.trim().parse::<Code>().ok().map(|c| c.to_string()));
    }
    for (s, g) in inputs.iter().zip(&got) {
        assert_eq!(g, &want[s], "{s:?}");
    }
    assert!(got.iter().filter(|g| g.is_some()).count() >= 20);
}

#[test]
fn screenshots() {
    if std::env::var_os("OCTAL_ATLAS_SCREENSHOTS").is_none() {
        return;
    }
    let browser = chromium().expect("OCTAL_ATLAS_SCREENSHOTS needs chromium");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let out = run(&[
        "atlas",
        root.join("data/census/digits-3-2^25").to_str().unwrap(),
        "-o",
        site.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", said(&out));
    let docs = root.join("docs/atlas");
    fs::create_dir_all(&docs).unwrap();
    for (name, page, size) in [
        ("index.png", "index.html?q=", "1280,900"),
        ("class.png", "class/4.406.html", "1000,1900"),
    ] {
        let profile = tempfile::tempdir().unwrap();
        let shot = docs.join(name);
        let url = format!(
            "{}{}",
            file_url(&site).trim_end_matches('/'),
            format_args!("/{page}")
        );
        let out = headless(browser, profile.path())
            .arg(format!("--screenshot={}", shot.display()))
            .arg(format!("--window-size={size}"))
            .arg(url)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", said(&out));
        let png = fs::read(&shot).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{name}");
    }
}
