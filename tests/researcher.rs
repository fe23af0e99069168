//! Issue 40, "what a researcher asked for": b-files with an explicit
//! offset, index shift and header; honest progress and summaries of runs
//! that resume or find their values already stored; help with examples.
//! Expected values come from the reference engine or the lecture notes'
//! Kayles table, never from the code under test.

#[path = "common/child.rs"]
mod child;

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
    // Offset 1, as most A0714xx entries: G(0) left out, on request only.
    let (head, terms) = bfile(&run(&[
        "values", ".77", "--to", "40", "--format", "bfile", "--offset", "1",
    ]));
    assert_eq!(terms, want[1..]);
    assert!(head[0].contains("offset 1"), "{head:?}");
    // An entry a(n) = G(n − 2): G(0) is a(2).
    let (head, terms) = bfile(&run(&[
        "values",
        ".77",
        "--to",
        "40",
        "--format",
        "bfile",
        "--index-shift",
        "2",
    ]));
    let shifted: Vec<(i64, u32)> = (0..40).map(|n| (n as i64 + 2, g[n])).collect();
    assert_eq!(terms, shifted);
    assert!(head[0].contains("a(n) = G(n - 2)"), "{head:?}");
    assert!(head[0].contains("offset 2"), "{head:?}");
    // a(n) = G(n + 1) from offset 0: G(0) has no term.
    let (_, terms) = bfile(&run(&[
        "values",
        ".77",
        "--to",
        "40",
        "--format",
        "bfile",
        "--index-shift",
        "-1",
        "--offset",
        "0",
    ]));
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
    assert!(
        text(&o.stderr).contains("start at a(5), not at the offset 1"),
        "{}",
        text(&o.stderr)
    );
}
