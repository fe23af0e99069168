//! Print-quality figures (issue 40, item 6): `octal plot` read back
//! structurally. SVGs are parsed for their text and circle elements, PDFs
//! for their fonts and text runs, PNGs for their ink; rare positions are
//! checked against the reference engine.

use std::collections::BTreeMap;
use std::path::Path;

use octal::engine::Reference;

use crate::common::octal_assert as octal;

/// Runs `octal ARGS` and wants it to succeed; returns its stdout.
fn ok(args: &[&str]) -> String {
    let out = octal().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "octal {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// One SVG element: its attributes and, for `<text>`, its text.
#[derive(Debug, Clone)]
struct Element {
    attrs: BTreeMap<String, String>,
    text: String,
}

impl Element {
    fn num(&self, name: &str) -> f64 {
        self.attrs[name].parse().unwrap()
    }
}

/// Every `<tag …>` of `svg`, in order.
fn elements(svg: &str, tag: &str) -> Vec<Element> {
    let open = format!("<{tag} ");
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(at) = rest.find(&open) {
        rest = &rest[at + open.len()..];
        let end = rest.find('>').unwrap();
        let mut head = &rest[..end];
        let mut attrs = BTreeMap::new();
        while let Some(eq) = head.find("=\"") {
            let name = head[..eq].trim().to_string();
            let close = eq + 2 + head[eq + 2..].find('"').unwrap();
            attrs.insert(name, head[eq + 2..close].to_string());
            head = &head[close + 1..];
        }
        let text = if tag == "text" {
            let body = &rest[end + 1..];
            body[..body.find("</text>").unwrap()]
                .trim()
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        } else {
            String::new()
        };
        out.push(Element { attrs, text });
    }
    out
}

/// The rare positions' rings (red, unfilled).
fn rings(svg: &str) -> Vec<Element> {
    elements(svg, "circle")
        .into_iter()
        .filter(|c| c.attrs.get("stroke").map(String::as_str) == Some("#DC1414"))
        .collect()
}

/// The n axis' tick labels, left to right: the numbers that share a
/// baseline (the value axis' share a column instead).
fn x_ticks(svg: &str) -> Vec<Element> {
    let mut rows: BTreeMap<String, Vec<Element>> = BTreeMap::new();
    for t in elements(svg, "text") {
        if t.text.parse::<f64>().is_ok() && !t.attrs.contains_key("transform") {
            rows.entry(t.attrs["y"].clone()).or_default().push(t);
        }
    }
    let mut row = rows.into_values().max_by_key(Vec::len).unwrap();
    row.sort_by(|a, b| a.num("x").total_cmp(&b.num("x")));
    row
}

/// Checks that `ticks` are distinct, increasing, in one notation, and do
/// not overlap at their font size (about 0.6 em a character).
fn one_notation_and_apart(ticks: &[Element]) {
    let texts: Vec<&str> = ticks.iter().map(|t| t.text.as_str()).collect();
    assert!(ticks.len() >= 2, "only {texts:?}");
    let sci = texts.iter().filter(|t| **t != "0").all(|t| t.contains('e'));
    let plain = texts.iter().all(|t| !t.contains('e'));
    assert!(sci || plain, "two notations on one axis: {texts:?}");
    let values: Vec<f64> = texts.iter().map(|t| t.parse().unwrap()).collect();
    assert!(
        values.windows(2).all(|w| w[0] < w[1]),
        "not increasing: {texts:?}"
    );
    for w in ticks.windows(2) {
        let em = w[0].num("font-size");
        let half = |t: &Element| 0.6 * em * t.text.chars().count() as f64 / 2.0;
        let room = w[1].num("x") - w[0].num("x");
        assert!(
            room >= half(&w[0]) + half(&w[1]) + 0.5 * em,
            "{:?} and {:?} are {room} apart at font size {em}: {texts:?}",
            w[0].text,
            w[1].text
        );
    }
}

/// The rare heaps n ≥ 1 below `to` of `0.6`, by the reference engine and
/// the mask 0x1ee its summary names (popcount(G(n) & 0x1ee) even).
fn rare_of_officers(to: usize) -> Vec<u64> {
    let g = octal::compute(&mut Reference::new(&"0.6".parse().unwrap()), to);
    (1..to)
        .filter(|&n| (g[n] & 0x1ee).count_ones().is_multiple_of(2))
        .map(|n| n as u64)
        .collect()
}

#[test]
fn an_empty_title_draws_none() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("k.svg");
    ok(&["plot", "0.77", "--to", "500", "-q", "-o", path(&svg)]);
    let titled = std::fs::read_to_string(&svg).unwrap();
    let texts =
        |s: &str| -> Vec<String> { elements(s, "text").into_iter().map(|t| t.text).collect() };
    assert!(
        texts(&titled).contains(&"0.77: G(n) for 0 ≤ n < 500".to_string()),
        "{:?}",
        texts(&titled)
    );
    ok(&[
        "plot",
        "0.77",
        "--to",
        "500",
        "-q",
        "--title",
        "",
        "-o",
        path(&svg),
    ]);
    let bare = std::fs::read_to_string(&svg).unwrap();
    let t = texts(&bare);
    assert!(!t.iter().any(|t| t.contains("0.77")), "a title: {t:?}");
    assert!(!t.iter().any(String::is_empty), "an empty text: {t:?}");
    // The axis labels are still there.
    assert!(t.contains(&"G(n)".to_string()) && t.contains(&"n".to_string()));
}

#[test]
fn a_pdf_embeds_its_font_and_prints_less_or_equal_as_given() {
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("k.pdf");
    ok(&["plot", "0.77", "--to", "500", "-q", "-o", path(&pdf)]);
    let bytes = std::fs::read(&pdf).unwrap();
    let s = String::from_utf8_lossy(&bytes);
    // One font, and it is embedded: a journal's "all fonts embedded" holds.
    let fonts: Vec<&str> = s.split("/BaseFont /").skip(1).collect();
    assert!(!fonts.is_empty());
    for base in fonts {
        let name = &base[..base.find(|c: char| c.is_whitespace() || c == '/').unwrap()];
        assert!(
            name.ends_with("+DejaVuSans"),
            "{name} is not the embedded subset"
        );
    }
    assert_eq!(s.matches("/FontFile2").count(), 1, "one embedded font file");
    // The title, read back through the ToUnicode map, two bytes a glyph.
    let titles = crate::common::pdf::strings(&bytes);
    assert!(
        titles.contains(&"0.77: G(n) for 0 ≤ n < 500".to_string()),
        "{titles:?}"
    );
    assert!(!titles.iter().any(|t| t.contains("<=")), "{titles:?}");
}

#[test]
fn rings_scale_with_the_picture_stay_clear_of_the_legend_and_can_be_left_off() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("o.svg");
    let draw = |extra: &[&str]| -> String {
        let mut args = vec!["plot", "0.6", "--to", "3000", "-q", "-o", path(&svg)];
        args.extend_from_slice(extra);
        ok(&args);
        std::fs::read_to_string(&svg).unwrap()
    };
    let radius = |s: &str| -> f64 {
        let r = rings(s);
        assert!(!r.is_empty(), "no rings");
        let r0 = r[0].num("r");
        assert!(r.iter().all(|c| c.num("r") == r0), "rings of several sizes");
        r0
    };
    let small = draw(&["--width", "600", "--height", "300"]);
    let large = draw(&["--width", "2400", "--height", "1200"]);
    let (rs, rl) = (radius(&small), radius(&large));
    assert!(
        (3.0..=5.0).contains(&(rl / rs)),
        "rings of {rs} and {rl} on pictures 4 times apart"
    );
    assert!(rs <= 300.0 / 60.0, "ring {rs} on a picture 300 high");

    // The legend lies above every ring.
    for s in [&small, &large] {
        let legend = elements(s, "text")
            .into_iter()
            .find(|t| t.text.ends_with(" rare positions"))
            .expect("a legend");
        // Its box: from y (dy 0.76em puts the top there) one em down.
        let bottom = legend.num("y") + legend.num("font-size");
        // Under the title.
        let title = elements(s, "text")
            .into_iter()
            .find(|t| t.text.starts_with("0.6: G(n)"))
            .expect("a title");
        assert!(
            title.num("y") + title.num("font-size") <= legend.num("y"),
            "the legend is beside the title"
        );
        let top_ring = rings(s)
            .iter()
            .map(|c| c.num("cy") - c.num("r"))
            .fold(f64::INFINITY, f64::min);
        assert!(
            bottom <= top_ring,
            "legend down to {bottom}, a ring up to {top_ring}"
        );
    }

    // --rare none: no ring and no legend.
    let none = draw(&["--rare", "none"]);
    assert!(rings(&none).is_empty());
    assert!(!none.contains("rare positions"));
    let out = octal()
        .args(["plot", "0.6", "--to", "300", "--rare", "squares", "-o"])
        .arg(dir.path().join("x.svg"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn n_axis_labels_are_one_notation_and_apart() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("o.svg");
    // Across 10^6: plain numbers below it, `1e6` at it until now.
    for size in [
        &["--width", "600", "--height", "300"][..],
        &["--width", "1200", "--height", "600"],
        &["--width-in", "3", "--height-in", "2", "--font-size", "9"],
        &["--width", "300", "--height", "200", "--font-size", "20"],
    ] {
        let mut args = vec!["plot", "0.6", "--to", "1100000", "-q", "-o", path(&svg)];
        args.extend_from_slice(size);
        ok(&args);
        let s = std::fs::read_to_string(&svg).unwrap();
        one_notation_and_apart(&x_ticks(&s));
    }
}

#[test]
fn a_store_is_drawn_whole_with_its_rare_positions() {
    let dir = tempfile::tempdir().unwrap();
    // A small store, every value a dot in a column of its own: a ring at
    // each heap the reference engine and the mask call rare, at its dot.
    let store = dir.path().join("small.octal");
    // (30000 values: the rare class is the one of the whole sequence.)
    ok(&["run", "0.6", "--to", "30000", "-q", "--store", path(&store)]);
    let want = rare_of_officers(2000);
    let svg = dir.path().join("small.svg");
    ok(&[
        "plot",
        path(&store),
        "--to",
        "2000",
        "--width",
        "6600",
        "--height",
        "400",
        "-q",
        "-o",
        path(&svg),
    ]);
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.contains(&format!("\n{} rare positions\n", want.len())));
    let mut r = rings(&s);
    assert_eq!(r.len(), want.len(), "one ring a rare heap");
    r.sort_by(|a, b| a.num("cx").total_cmp(&b.num("cx")));
    // x is affine in n: placed from the first and last ring.
    let (n0, n1) = (want[0] as f64, *want.last().unwrap() as f64);
    let (x0, x1) = (r[0].num("cx"), r.last().unwrap().num("cx"));
    let dots: std::collections::HashSet<(String, String)> = elements(&s, "circle")
        .into_iter()
        .filter(|c| c.attrs.get("fill").map(String::as_str) == Some("#000000"))
        .map(|c| (c.attrs["cx"].clone(), c.attrs["cy"].clone()))
        .collect();
    for (ring, &n) in r.iter().zip(&want) {
        let x = x0 + (n as f64 - n0) * (x1 - x0) / (n1 - n0);
        assert!((ring.num("cx") - x).abs() <= 1.0, "no ring at n = {n}");
        let at = (ring.attrs["cx"].clone(), ring.attrs["cy"].clone());
        assert!(dots.contains(&at), "the ring at n = {n} is on no value");
    }

    // Past 2^24 values: all of 0.6's rare heaps (the last at 20,627)
    // are ringed, and the store's length is the default --to, also on a
    // logarithmic n axis.
    let want = rare_of_officers(21_000);
    let store = dir.path().join("large.octal");
    let to = (1u64 << 24) + 1000;
    let json = ok(&[
        "run",
        "0.6",
        "--to",
        &to.to_string(),
        "-q",
        "--json",
        "--store",
        path(&store),
    ]);
    // The rare class the reference count above assumes.
    let summary: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(summary["rare_class"]["mask"], "0x1ee");
    assert_eq!(summary["rare_class"]["position_parity"], false);
    assert_eq!(summary["rare_class"]["parity"], 0);
    for log in [false, true] {
        let svg = dir.path().join("large.svg");
        let mut args = vec!["plot", path(&store), "-o", path(&svg)];
        if log {
            args.push("--log-x");
        }
        let out = ok(&args);
        assert!(out.contains(&format!("G(0..{to})")), "{out}");
        let s = std::fs::read_to_string(&svg).unwrap();
        assert!(
            s.contains(&format!("\n{} rare positions\n", want.len())),
            "log x {log}: no legend"
        );
        // All below 20,627 of 2^24: a few columns on a linear axis, most
        // of the picture on a logarithmic one.
        let least = if log { 500 } else { 1 };
        assert!(rings(&s).len() >= least, "log x {log}: too few rings");
        one_notation_and_apart(&x_ticks(&s));
    }
}

#[test]
fn the_guides_figure_for_a_paper_is_readable() {
    let dir = tempfile::tempdir().unwrap();
    // The GUIDE's example, as a PDF (with a fractional point size) and
    // the same figure as a PNG at 150 dpi to look at its ink.
    let pdf = dir.path().join("fig.pdf");
    let png = dir.path().join("fig.png");
    let figure = [
        "plot",
        "0.6",
        "--to",
        "30000",
        "--width-in",
        "6",
        "--height-in",
        "3",
        "--font-size",
        "9",
        "-q",
    ];
    let mut args = figure.to_vec();
    args.extend(["--point-size", "0.3", "-o", path(&pdf)]);
    ok(&args);
    assert!(std::fs::read(&pdf).unwrap().starts_with(b"%PDF-"));
    for bad in ["0", "-1", "nan"] {
        let out = octal()
            .args(figure)
            .args(["--point-size", bad, "-o"])
            .arg(&pdf)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--point-size {bad}");
    }
    let mut args = figure.to_vec();
    args.extend(["--dpi", "150", "-o", path(&png)]);
    ok(&args);
    let decoder = png::Decoder::new(std::io::Cursor::new(std::fs::read(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(3).collect();
    let share = |f: &dyn Fn(&[u8]) -> bool| {
        pixels.iter().filter(|p| f(p)).count() as f64 / pixels.len() as f64
    };
    // Not a block: black on a small part of the picture, red rings on
    // less still, but ink where the values are.
    let black = share(&|p| p.iter().all(|&c| c < 60));
    let red = share(&|p| p[0] > 150 && p[1] < 90 && p[2] < 90);
    let ink = share(&|p| p.iter().all(|&c| c < 200));
    assert!(black < 0.10, "{:.0}% black", black * 100.0);
    assert!(red < 0.05, "{:.0}% red", red * 100.0);
    assert!(ink > 0.05, "{:.1}% ink", ink * 100.0);
}
