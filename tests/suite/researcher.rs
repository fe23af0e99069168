//! Issue 40, "what a researcher asked for": b-files with an explicit
//! offset, index shift and header; honest progress and summaries of runs
//! that resume or find their values already stored; help with examples.
//! Expected values come from the reference engine or the lecture notes'
//! Kayles table, never from the code under test.

use crate::common::child;

use std::process::Output;

use child::octal;
use octal::engine::{compute, Reference};

fn run(args: &[&str]) -> Output {
    octal().args(args).output().expect("octal runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn reference(code: &str, n: usize) -> Vec<u32> {
    compute(&mut Reference::new(&code.parse().unwrap()), n)
}

/// A b-file's `#` lines and its terms `(n, a(n))`.
fn bfile(o: &Output) -> (Vec<String>, Vec<(i64, u32)>) {
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let (head, terms): (Vec<&str>, Vec<&str>) = out.lines().partition(|l| l.starts_with('#'));
    let terms = terms
        .iter()
        .map(|l| {
            let (n, a) = l.split_once(' ').expect("`n a(n)`");
            (n.parse().unwrap(), a.parse().unwrap())
        })
        .collect();
    (head.iter().map(|s| s.to_string()).collect(), terms)
}

#[test]
fn bfiles_state_their_offset_shift_game_and_command() {
    let g = reference(".77", 40);
    // Default: from G(0), as A002186 (Kayles) starts, nothing dropped.
    let o = run(&["values", ".77", "--to", "40", "--format", "bfile"]);
    let (head, terms) = bfile(&o);
    let want: Vec<(i64, u32)> = (0..40).map(|n| (n as i64, g[n])).collect();
    assert_eq!(terms, want);
    assert!(head[0].contains("a(n) = G(n) of the game .77"), "{head:?}");
    assert!(head[0].contains("offset 0"), "{head:?}");
    assert!(
        head.iter()
            .any(|l| l.ends_with("octal values .77 --to 40 --format bfile")),
        "{head:?}"
    );
    // `octal values .77 --to 40 --format bfile` with more flags.
    let with = |more: &[&str]| {
        let mut args = vec!["values", ".77", "--to", "40", "--format", "bfile"];
        args.extend_from_slice(more);
        bfile(&run(&args))
    };
    // Offset 1, as most A0714xx entries: G(0) left out, on request only.
    let (head, terms) = with(&["--offset", "1"]);
    assert_eq!(terms, want[1..]);
    assert!(head[0].contains("offset 1"), "{head:?}");
    // An entry a(n) = G(n − 2): G(0) is a(2).
    let (head, terms) = with(&["--index-shift", "2"]);
    let shifted: Vec<(i64, u32)> = (0..40).map(|n| (n as i64 + 2, g[n])).collect();
    assert_eq!(terms, shifted);
    assert!(head[0].contains("a(n) = G(n - 2)"), "{head:?}");
    assert!(head[0].contains("offset 2"), "{head:?}");
    // a(n) = G(n + 1) from offset 0: G(0) has no term.
    let (_, terms) = with(&["--index-shift", "-1", "--offset", "0"]);
    let up: Vec<(i64, u32)> = (1..40).map(|n| (n as i64 - 1, g[n])).collect();
    assert_eq!(terms, up);
    // --from 5 --offset 1: the terms start at a(5), and both the header
    // and stderr say that the offset asked for was not met.
    let o = run(&[
        "values", ".77", "--from", "5", "--to", "40", "--format", "bfile", "--offset", "1",
    ]);
    let (head, terms) = bfile(&o);
    assert_eq!(terms, want[5..]);
    assert!(
        head.iter()
            .any(|l| l.contains("start at a(5), not at the offset 1")),
        "{head:?}"
    );
    // The b-file flags with another format are refused, not ignored.
    let csv = run(&[
        "values", ".77", "--to", "4", "--format", "csv", "--offset", "1",
    ]);
    assert_eq!(csv.status.code(), Some(2), "{}", text(&csv.stderr));
    assert!(
        text(&csv.stderr).contains("--format bfile"),
        "{}",
        text(&csv.stderr)
    );
    assert!(
        text(&o.stderr).contains("start at a(5), not at the offset 1"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn a_resumed_run_counts_its_rate_from_where_it_resumed() {
    use octal::progress::Rate;
    // A store of .161 resumed half-done at 2^26 of 2^27 values, computing
    // 1.2 M values/s, observed every 0.25 s on a fake clock. The bar once
    // showed 2·10^12/s here, counting the held values as done at once.
    let (half, to, true_rate) = (1u64 << 26, 1u64 << 27, 1.2e6);
    let mut rate = Rate::new();
    rate.observe(0.0, half);
    let mut t: f64 = 0.0;
    while t < 10.0 {
        t += 0.25;
        // A slow first second (the engine warming up), then steady.
        let done = half + (true_rate * (t - 1.0).max(0.0) + 0.3e6 * t.min(1.0)) as u64;
        rate.observe(t, done);
    }
    let r = rate.per_second().expect("a rate after 10 s");
    assert!(
        r > true_rate / 2.0 && r < true_rate * 2.0,
        "{r} values/s, true {true_rate}"
    );
    let left = (to - half) as f64 / true_rate - 9.0;
    let eta = rate.eta(to).unwrap();
    assert!(
        eta > left / 2.0 && eta < left * 2.0,
        "eta {eta} s, true {left} s"
    );
    // Nothing shown before half a second: no rate out of one observation.
    let mut fresh = Rate::new();
    fresh.observe(0.0, half);
    fresh.observe(0.1, half + 1000);
    assert_eq!(fresh.per_second(), None);
}

#[test]
fn the_progress_line_fits_80_columns_and_shows_rare_and_period() {
    use octal::progress::{Line, WIDTH};
    // The widest values a line can carry: 2^48 values, a year to go.
    let wide = Line {
        done: (1 << 48) - 1,
        to: 1 << 48,
        per_second: Some(999.9e6),
        eta: Some(400.0 * 86_400.0),
        last_rare_at: Some(999_999_999),
        period: Some((999_999_999, false)),
    };
    for line in [
        wide,
        Line {
            done: 0,
            per_second: None,
            eta: None,
            ..wide
        },
        Line {
            last_rare_at: Some((1 << 48) - 1),
            period: Some(((1 << 48) - 1, true)),
            ..wide
        },
    ] {
        let s = line.render();
        assert!(
            s.chars().count() <= WIDTH && WIDTH < 80,
            "{} wide: {s}",
            s.chars().count()
        );
    }
    // .161 at half of 2^27 values: its last rare position (23784, as the
    // literature gives for .161's 489 rare positions) and a period seen.
    let s = Line {
        done: 1 << 26,
        to: 1 << 27,
        per_second: Some(1.2e6),
        eta: Some(56.0),
        last_rare_at: Some(23784),
        period: Some((149_459, false)),
    }
    .render();
    assert!(s.contains(" 50% "), "{s}");
    assert!(s.contains("rare@23784"), "{s}");
    assert!(s.contains("p~149459"), "{s}");
    assert!(s.contains("1.20M/s"), "{s}");
    assert!(s.contains("eta 56s"), "{s}");
}

#[test]
fn ctrl_c_prints_a_partial_summary() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.octal");
    let child = octal()
        .args(["run", ".161", "--to", "2^31", "--store"])
        .arg(&store)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child::wait_for(&store);
    // (Past the installation of the signal handlers.)
    std::thread::sleep(std::time::Duration::from_millis(700));
    child::signal(&child, "-INT");
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    let saved: u64 = err
        .split("checkpoint saved at ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    let out = text(&o.stdout);
    assert!(
        out.starts_with(&format!("0.161: {saved} values")),
        "{out}\n{err}"
    );
    assert!(out.contains("checksum "), "{out}");
    // The summary is of the values held: resuming to that count computes
    // nothing and gives the same checksum.
    let again = run(&[
        "run",
        ".161",
        "--to",
        &saved.to_string(),
        "--store",
        store.to_str().unwrap(),
    ]);
    let sum = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("checksum"))
            .map(str::to_owned)
    };
    assert_eq!(sum(&out), sum(&text(&again.stdout)));
}

#[test]
fn a_store_that_holds_the_values_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.octal");
    let s = store.to_str().unwrap();
    let o = run(&[
        "run",
        ".161",
        "--to",
        "2^15",
        "--keep-going",
        "-q",
        "--store",
        s,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = run(&["run", ".161", "--to", "2^14", "--store", s]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.starts_with("0.161: 16384 values"), "{out}");
    assert!(!out.contains(" s (") && !out.contains("values/s"), "{out}");
    assert!(
        out.contains("holds 32768 values: nothing computed"),
        "{out}"
    );
    assert!(
        text(&o.stderr).contains("nothing to compute"),
        "{}",
        text(&o.stderr)
    );
}

/// The subcommands clap knows, from the `--help` of `args`: the names
/// `octal help` completes to, read off clap's own list
/// (`octal <args> help` fails for an unknown name).
fn commands_in(help: &str) -> Vec<String> {
    help.lines()
        .filter(|l| l.starts_with("  ") && !l.trim_start().starts_with('-'))
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .filter(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        .collect()
}

#[test]
fn every_command_teaches_by_an_example() {
    let top = text(&run(&["--help"]).stdout);
    // Listed by task, under headings, each command once.
    for heading in [
        "Compute a game's values:",
        "Compare and survey games:",
        "Keep, check and share values:",
        "Figures:",
    ] {
        assert!(top.contains(heading), "{top}");
    }
    let mut commands = commands_in(&top);
    commands.retain(|c| c != "help" && c != "octal");
    assert!(commands.len() >= 14, "{commands:?}\n{top}");
    // Every command clap has is in the grouped list: clap's completion
    // script names them all.
    let bash = text(&run(&["completions", "bash"]).stdout);
    for c in &commands {
        assert!(
            bash.contains(&format!("octal,{c})")),
            "{c} is listed but unknown"
        );
    }
    let known: Vec<&str> = bash
        .lines()
        .filter_map(|l| l.trim().strip_prefix("octal,"))
        .filter_map(|l| l.strip_suffix(')'))
        .filter(|c| !c.contains(',') && *c != "help")
        .collect();
    assert!(known.len() >= 14, "{known:?}");
    for k in &known {
        assert!(
            commands.iter().any(|c| c == k),
            "{k} is not in octal --help's groups:\n{top}"
        );
    }
    // Each command's --help (and each family kind's) ends with an example
    // line that starts with `octal `.
    let mut all: Vec<Vec<String>> = commands.iter().map(|c| vec![c.clone()]).collect();
    for kind in ["cookie-cutter", "codes", "member"] {
        all.push(vec!["family".into(), kind.into()]);
    }
    for args in all {
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        a.push("--help");
        let o = run(&a);
        assert!(o.status.success(), "{a:?}: {}", text(&o.stderr));
        let help = text(&o.stdout);
        let example = help
            .split("Example:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{a:?} has no example:\n{help}"));
        assert!(
            example
                .lines()
                .next()
                .is_some_and(|l| l.trim_start().starts_with("octal ")),
            "{a:?}: {example}"
        );
    }
}

#[test]
fn compare_names_the_games_and_apparent_periods_claim_no_proof() {
    // G_.137(n) = G_.4(n + 2) (Dawson's chess and the game .4, two heaps
    // apart; both proven periodic).
    let o = run(&["compare", ".137", ".4", "--shift", "2"]);
    let out = text(&o.stdout);
    assert!(
        out.starts_with("G_0.137(n) = G_0.4(n+2) for every n"),
        "{out}"
    );
    let o = run(&["compare", ".77", ".137"]);
    let out = text(&o.stdout);
    // Kayles and Dawson's chess agree on G(0), G(1) = 0, 1 and differ at
    // 2: Kayles G(2) = 2, .137's G(2) = mex{G(0)} = 1 (from 2 it may only
    // take both tokens); the reference engine agrees.
    let (k, d) = (reference(".77", 3), reference(".137", 3));
    assert_eq!((k, d), (vec![0, 1, 2], vec![0, 1, 1]));
    assert!(
        out.starts_with("differ first at n = 2: G_0.77(2) = 2, G_0.137(2) = 1"),
        "{out}"
    );
    // An apparent period is stated with `checked_to`, never `proven_at`:
    // .16 shows its period 149459 well before its proof at 509621.
    let o = run(&["run", ".16", "--to", "500000", "--no-store", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let a = &v["apparent_period"];
    assert_eq!(a["period"], 149_459, "{v}");
    assert!(a.get("proven_at").is_none(), "{a}");
    assert_eq!(a["checked_to"], v["values"], "{a}");
    assert!(v["period"].is_null(), "{v}");
}
