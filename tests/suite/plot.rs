//! `octal plot` and the `plot` library: the pictures are valid PNG/SVG of
//! the requested size, and their ink is where the values say it must be.

use std::ops::Range;

use octal::plot::{render, Format, Overlays, Period, PlotOptions};

/// A decoded RGB picture.
struct Image {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
}

impl Image {
    fn decode(bytes: &[u8]) -> Image {
        let decoder = png::Decoder::new(bytes);
        let mut reader = decoder.read_info().expect("a valid PNG header");
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).expect("valid PNG data");
        assert_eq!(info.color_type, png::ColorType::Rgb);
        buf.truncate(info.buffer_size());
        Image {
            width: info.width,
            height: info.height,
            rgb: buf,
        }
    }

    fn pixel(&self, x: i32, y: i32) -> [u8; 3] {
        let i = (y as usize * self.width as usize + x as usize) * 3;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }

    /// Pixels in the rectangle satisfying `f`.
    fn count(&self, xs: Range<i32>, ys: Range<i32>, f: impl Fn([u8; 3]) -> bool) -> usize {
        let mut n = 0;
        for y in ys {
            for x in xs.clone() {
                if f(self.pixel(x, y)) {
                    n += 1;
                }
            }
        }
        n
    }
}

/// Ink: dark grey or black (the mesh lines are much lighter).
fn dark(p: [u8; 3]) -> bool {
    p.iter().all(|&c| c < 200) && p[0].abs_diff(p[1]) < 10
}

fn red(p: [u8; 3]) -> bool {
    p[0] > 180 && p[1] < 80 && p[2] < 80
}

fn green_fill(p: [u8; 3]) -> bool {
    let [r, g, b] = p.map(i32::from);
    g > r + 15 && g > b + 15
}

/// Fraction `a..b` of a pixel range (0.0 = start).
fn part(r: &Range<i32>, a: f64, b: f64) -> Range<i32> {
    let len = (r.end - r.start) as f64;
    r.start + (len * a) as i32..r.start + (len * b) as i32
}

fn options(to: u64, width: u32, height: u32) -> PlotOptions {
    PlotOptions {
        width,
        height,
        to,
        title: "test".into(),
        ..PlotOptions::default()
    }
}

/// The subtraction game {1,2,3}, by hand: G(n) = n mod 4.
fn mod4(len: u64) -> Vec<u32> {
    (0..len).map(|n| (n % 4) as u32).collect()
}

#[test]
fn png_points_sit_in_the_bottom_band() {
    let values = mod4(3000);
    let pic = render(
        &values,
        &options(3000, 640, 400),
        &Overlays::default(),
        Format::Png,
        &|_| {},
    )
    .unwrap();
    assert!(pic.every_point);
    let img = Image::decode(&pic.bytes);
    assert_eq!((img.width, img.height), (640, 400));
    let (px, py) = pic.plot_area;
    assert!(px.start > 0 && px.end <= 640 && py.start > 0 && py.end <= 400);
    let inner = px.start + 2..px.end - 2;
    // Values 0..=3 under a top of 4: the band below 3/4 of the height is
    // inked in every part, the quarter above it is bare.
    let bottom = img.count(inner.clone(), part(&py, 0.2, 1.0), dark);
    assert!(
        bottom > 1000,
        "only {bottom} dark pixels in the bottom band"
    );
    for k in 0..4 {
        let xs = part(&inner, k as f64 / 4.0, (k + 1) as f64 / 4.0);
        assert!(img.count(xs, part(&py, 0.2, 1.0), dark) > 100);
    }
    let top = img.count(inner, part(&py, 0.0, 0.15), dark);
    assert_eq!(top, 0, "dark pixels above the largest value");
}

#[test]
fn svg_has_the_requested_size_and_ink() {
    let values = mod4(2000);
    let pic = render(
        &values,
        &options(2000, 800, 500),
        &Overlays::default(),
        Format::Svg,
        &|_| {},
    )
    .unwrap();
    let svg = String::from_utf8(pic.bytes).unwrap();
    let head = &svg[svg.find("<svg").expect("an <svg> element")..];
    let head = &head[..head.find('>').unwrap()];
    let attr = |name: &str| -> u32 {
        let at = head.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        head[at..at + head[at..].find('"').unwrap()]
            .parse()
            .unwrap()
    };
    assert_eq!((attr("width"), attr("height")), (800, 500));
    assert!(svg.trim_end().ends_with("</svg>"));
    let black_rects = svg.matches("fill=\"#000000\"").count();
    assert!(black_rects > 400, "only {black_rects} black marks");
}

#[test]
fn density_plot_puts_ink_where_the_values_are() {
    // Beyond the point limit: 0 for the first half, 1000 for the second.
    let len = 400_000u64;
    let values: Vec<u32> = (0..len)
        .map(|n| if n < len / 2 { 0 } else { 1000 })
        .collect();
    let pic = render(
        &values,
        &options(len, 600, 400),
        &Overlays::default(),
        Format::Png,
        &|_| {},
    )
    .unwrap();
    assert!(!pic.every_point);
    let img = Image::decode(&pic.bytes);
    let (px, py) = pic.plot_area;
    let left = part(&px, 0.02, 0.48);
    let right = part(&px, 0.52, 0.98);
    let low = part(&py, 0.9, 1.0);
    let high = part(&py, 0.0, 0.1);
    assert!(img.count(left.clone(), low.clone(), dark) >= left.len());
    assert_eq!(img.count(left, high.clone(), dark), 0);
    assert!(img.count(right.clone(), high, dark) >= right.len());
    assert_eq!(img.count(right, low, dark), 0);
}

#[test]
fn density_counts_all_values_and_reports_progress() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let values = mod4(300_000);
    let last = AtomicU64::new(0);
    let pic = render(
        &values,
        &PlotOptions {
            from: 100_000,
            ..options(300_000, 500, 300)
        },
        &Overlays::default(),
        Format::Png,
        &|d| {
            last.fetch_max(d, Ordering::Relaxed);
        },
    )
    .unwrap();
    assert_eq!(last.load(Ordering::Relaxed), 200_000);
    assert_eq!(Image::decode(&pic.bytes).width, 500);
}

#[test]
fn overlays_mark_rare_positions_and_the_periodic_part() {
    let values = mod4(4000);
    let overlays = Overlays {
        rare: vec![100, 2000, 3999, 5000],
        period: Some(Period {
            preperiod: 2000,
            period: 4,
        }),
    };
    let pic = render(
        &values,
        &options(4000, 600, 400),
        &overlays,
        Format::Png,
        &|_| {},
    )
    .unwrap();
    let img = Image::decode(&pic.bytes);
    let (px, py) = pic.plot_area;
    assert!(img.count(px.clone(), py.clone(), red) > 10);
    // Shaded from n = 2000 (the middle) on, not before (the legend text is
    // at the top, so look below it).
    let below = part(&py, 0.2, 1.0);
    assert_eq!(
        img.count(part(&px, 0.02, 0.48), below.clone(), green_fill),
        0
    );
    assert!(img.count(part(&px, 0.52, 0.98), below, green_fill) > 1000);
}

#[test]
fn log_x_renders() {
    let values = mod4(100_000);
    let pic = render(
        &values,
        &PlotOptions {
            log_x: true,
            ..options(100_000, 700, 350)
        },
        &Overlays::default(),
        Format::Png,
        &|_| {},
    )
    .unwrap();
    let img = Image::decode(&pic.bytes);
    assert_eq!((img.width, img.height), (700, 350));
    let (px, py) = pic.plot_area;
    assert!(img.count(part(&px, 0.5, 1.0), part(&py, 0.2, 1.0), dark) > 100);
}

use crate::common::octal_assert as octal;

#[test]
fn labels_font_and_point_sizes_are_the_options() {
    let values = mod4(2000);
    let draw = |point_size: f64, font_size: u32| {
        let opts = PlotOptions {
            xlabel: "heap size".into(),
            ylabel: "nim value".into(),
            title: "Kayles".into(),
            point_size,
            font_size,
            ..options(2000, 800, 500)
        };
        let pic = render(&values, &opts, &Overlays::default(), Format::Svg, &|_| {}).unwrap();
        String::from_utf8(pic.bytes).unwrap()
    };
    let svg = draw(3.0, 13);
    for label in ["heap size", "nim value", "Kayles"] {
        assert!(svg.contains(&format!("\n{label}\n</text>")), "no {label:?}");
    }
    assert!(!svg.contains("G(n)"), "the default label is still drawn");
    // Every value a 3-pixel square: one at least per column with a value,
    // so hundreds of them, and no 1-pixel marks.
    let marks = |svg: &str, side: u32| {
        svg.matches(&format!(
            "width=\"{side}\" height=\"{side}\" opacity=\"1\" fill=\"#000000\""
        ))
        .count()
    };
    assert!(marks(&svg, 3) > 400, "only {} marks of 3", marks(&svg, 3));
    assert_eq!(marks(&svg, 1), 0);
    // Point size 1 is the old pixel marks (runs of cells, 1 wide).
    assert_eq!(marks(&draw(1.0, 13), 3), 0);
    // A larger font: the text is drawn larger than the default's.
    let size = |svg: &str| -> f64 {
        let at = svg.find("\nheap size\n").unwrap();
        let head = &svg[svg[..at].rfind("<text").unwrap()..at];
        let f = head.find("font-size=\"").unwrap() + 11;
        head[f..f + head[f..].find('"').unwrap()].parse().unwrap()
    };
    assert!(size(&draw(2.0, 26)) > 1.8 * size(&draw(2.0, 13)));
}

#[test]
fn pdf_has_the_requested_size_and_ink() {
    let values = mod4(2000);
    let pic = render(
        &values,
        &options(2000, 800, 500),
        &Overlays::default(),
        Format::Pdf,
        &|_| {},
    )
    .unwrap();
    let pdf = String::from_utf8_lossy(&pic.bytes);
    assert!(pdf.starts_with("%PDF-") && pdf.trim_end().ends_with("%%EOF"));
    assert!(pdf.contains("/MediaBox [0 0 800 500]"), "no 800x500 page");
    // Every one of the 2000 values is a filled mark (a rectangle), and the
    // axis labels are text.
    let marks = pdf.matches(" re\nf").count();
    assert!(marks >= 2000, "only {marks} marks");
    let shown = crate::common::pdf::strings(&pic.bytes);
    assert!(shown.iter().any(|t| t == "G(n)"), "no y label: {shown:?}");
}

#[test]
fn cli_writes_png_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    let png_path = dir.path().join("kayles.png");
    octal()
        .args([
            "plot", "0.77", "--to", "2000", "--width", "500", "--height", "300",
        ])
        .arg("-o")
        .arg(&png_path)
        .assert()
        .success();
    let img = Image::decode(&std::fs::read(&png_path).unwrap());
    assert_eq!((img.width, img.height), (500, 300));
    let svg_path = dir.path().join("kayles.SVG");
    octal()
        .args(["plot", "0.77", "--to", "2000", "--from", "1000", "-q"])
        .arg("-o")
        .arg(&svg_path)
        .assert()
        .success()
        .stdout("");
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.contains("width=\"1200\"") && svg.contains("height=\"600\""));

    // `-o -` writes the same picture to standard output, in the format
    // --format names; a file name's extension is not needed then.
    let png = std::fs::read(&png_path).unwrap();
    octal()
        .args(["plot", "0.77", "--to", "2000", "--width", "500"])
        .args(["--height", "300", "-o", "-", "--format", "png"])
        .assert()
        .success()
        .stdout(png);
    let svg_named = dir.path().join("kayles.picture");
    octal()
        .args(["plot", "0.77", "--to", "2000", "--from", "1000", "-q"])
        .args(["--format", "svg", "-o"])
        .arg(&svg_named)
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&svg_named).unwrap(), svg);
}

/// Runs a failing command and returns its exit code and its stderr.
fn fails(args: &[&str]) -> (i32, String) {
    let out = octal().args(args).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    (out.status.code().unwrap(), err)
}

#[test]
fn cli_refuses_bad_input_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.png");
    let out = out.to_str().unwrap();
    let jpg = dir.path().join("x.jpg");
    let (code, err) = fails(&["plot", "0.6", "--to", "100", "-o", jpg.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown picture format"), "{err}");
    let (code, err) = fails(&["plot", "0.6", "--to", "100", "-o", "-"]);
    assert_eq!(code, 2);
    assert!(err.contains("--format"), "{err}");
    assert!(!jpg.exists());
    let (code, err) = fails(&["plot", "0.6", "--to", "0", "-o", out]);
    assert_eq!(code, 2);
    assert!(err.contains("--to"), "{err}");
    let (code, _) = fails(&["plot", "0.6", "--to", "10", "--from", "10", "-o", out]);
    assert_eq!(code, 2);
    let (code, _) = fails(&["plot", "0.6", "--to", "10", "--width", "5", "-o", out]);
    assert_eq!(code, 2);
    let (code, _) = fails(&["plot", "0.G", "--to", "10", "-o", out]);
    assert_eq!(code, 2);
    assert!(!std::path::Path::new(out).exists());
    // An existing path that is neither a store nor a sequence file.
    let (code, err) = fails(&[
        "plot",
        dir.path().to_str().unwrap(),
        "--to",
        "10",
        "-o",
        out,
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("Is a directory"), "{err}");
    assert!(!std::path::Path::new(out).exists());
    // Unwritable: a directory that does not exist. An I/O error: exit 1.
    let nowhere = dir.path().join("no/such/dir/x.png");
    let (code, err) = fails(&["plot", "0.6", "--to", "10", "-o", nowhere.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot write"), "{err}");
}

#[test]
fn stores_and_exported_files_plot_like_the_code() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let ok = |args: &[&str]| {
        let out = octal().args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    ok(&[
        "run",
        "0.6",
        "--to",
        "5000",
        "--store",
        &d("s.octal"),
        "--quiet",
    ]);
    ok(&["export", &d("s.octal"), "-o", &d("s.oseq")]);
    ok(&["plot", "0.6", "--to", "5000", "-o", &d("code.png")]);
    ok(&["plot", &d("s.octal"), "--to", "5000", "-o", &d("store.png")]);
    ok(&["plot", &d("s.oseq"), "--to", "5000", "-o", &d("file.png")]);
    let code = std::fs::read(d("code.png")).unwrap();
    assert_eq!(std::fs::read(d("store.png")).unwrap(), code);
    assert_eq!(std::fs::read(d("file.png")).unwrap(), code);
    // A range beyond what the store holds is refused.
    let out = octal()
        .args(["plot", &d("s.octal"), "--to", "6000", "-o", &d("x.png")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn cli_draws_rare_positions_and_takes_figure_options() {
    let dir = tempfile::tempdir().unwrap();
    // 0.6 has 1,583 rare positions n ≥ 1, the last at 20,627 (the sparse
    // engine's summary; 1,584 with n = 0 as the literature counts): all
    // below 30,000, so all get a red ring, and the legend says how many.
    let svg_path = dir.path().join("officers.svg");
    octal()
        .args(["plot", "0.6", "--to", "30000", "-q", "-o"])
        .arg(&svg_path)
        .assert()
        .success();
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.contains("\n1583 rare positions\n"), "no legend");
    let rings = svg.matches("fill=\"none\" stroke=\"#DC1414\"").count();
    assert!(rings > 1000, "only {rings} rings");
    // No rare positions in a game without sparse space: no rings.
    octal()
        .args(["plot", "0.333", "--to", "3000", "-q", "-o"])
        .arg(&svg_path)
        .assert()
        .success();
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert_eq!(svg.matches("stroke=\"#DC1414\"").count(), 0);

    // Inches at a DPI, labels and a title.
    let png_path = dir.path().join("fig.png");
    octal()
        .args(["plot", "0.77", "--to", "500", "-q", "--width-in", "3.5"])
        .args([
            "--height-in",
            "2",
            "--dpi",
            "200",
            "--title",
            "Kayles",
            "-o",
        ])
        .arg(&png_path)
        .assert()
        .success();
    let img = Image::decode(&std::fs::read(&png_path).unwrap());
    assert_eq!((img.width, img.height), (700, 400));
    let pdf_path = dir.path().join("fig.pdf");
    octal()
        .args(["plot", "0.77", "--to", "500", "-q", "--width-in", "3.5"])
        .args(["--height-in", "2", "--xlabel", "heap", "-o"])
        .arg(&pdf_path)
        .assert()
        .success();
    let bytes = std::fs::read(&pdf_path).unwrap();
    let pdf = String::from_utf8_lossy(&bytes).into_owned();
    assert!(
        pdf.contains("/MediaBox [0 0 252 144]"),
        "3.5 x 2 inches is 252 x 144 points"
    );
    let shown = crate::common::pdf::strings(&bytes);
    assert!(shown.iter().any(|t| t == "heap"), "{shown:?}");

    // A store is drawn whole without --to; a code needs it.
    let store = dir.path().join("k.octal");
    octal()
        .args(["run", ".77", "--to", "800", "--keep-going", "-q", "--store"])
        .arg(&store)
        .assert()
        .success();
    let out = octal()
        .arg("plot")
        .arg(&store)
        .arg("-o")
        .arg(dir.path().join("s.png"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("G(0..800)"));
    // A store's rare positions are rebuilt from its values: the same
    // rings as for the code.
    let store = dir.path().join("o.octal");
    octal()
        .args([
            "run",
            "0.6",
            "--to",
            "30000",
            "--keep-going",
            "-q",
            "--store",
        ])
        .arg(&store)
        .assert()
        .success();
    octal()
        .arg("plot")
        .arg(&store)
        .args(["-q", "-o"])
        .arg(&svg_path)
        .assert()
        .success();
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(
        svg.contains("\n1583 rare positions\n"),
        "no rings for a store"
    );
    let (code, err) = fails(&["plot", "0.77", "-o", "x.png"]);
    assert_eq!(code, 2);
    assert!(err.contains("--to is required"), "{err}");
}

#[test]
fn an_svg_density_is_one_embedded_picture() {
    // 200,000 values: past the every-point limit, so a density.
    let values = mod4(200_000);
    let pic = render(
        &values,
        &options(200_000, 800, 500),
        &Overlays::default(),
        Format::Svg,
        &|_| {},
    )
    .unwrap();
    assert!(!pic.every_point);
    let svg = String::from_utf8(pic.bytes).unwrap();
    assert_eq!(svg.matches("<image ").count(), 1);
    assert!(
        svg.contains("href=\"data:image/png;base64,iVBORw0KGgo"),
        "a PNG inside"
    );
    assert!(!svg.contains("#010203"), "the placeholder is gone");
    assert!(svg.len() < 200_000, "{} bytes", svg.len());
    // The same values as a PNG are a density too, and carry ink where
    // the four values lie: the embedded picture is not empty.
    let png = render(
        &values,
        &options(200_000, 800, 500),
        &Overlays::default(),
        Format::Png,
        &|_| {},
    )
    .unwrap();
    assert!(!png.every_point);
    let img = Image::decode(&png.bytes);
    let (xs, ys) = png.plot_area.clone();
    assert!(img.count(xs, ys, dark) > 1000);
}
