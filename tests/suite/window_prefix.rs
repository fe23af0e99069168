//! A windowed run that grows its prefix instead of stopping for it, and
//! the resume of a windowed run with other sizes. `0.6` in a window of
//! 2^16 (prefix 20,628: its last rare position is 20,627) stops, without
//! growing, at a heap whose witnesses lie past the prefix; growing it
//! (G(0..41,256) recomputed from scratch) the run goes on, and every value
//! it makes is a full run's.

use std::process::Output;

use octal::engine::{compute, EngineKind};
use octal::stats::Stats;
use octal::window::{Sizes, WindowEnding, Windowed};
use octal::Code;

use crate::common::child;
use child::octal;

/// Heaps computed: past the first heap that needs a longer prefix than
/// 20,628, before the one that needs more than twice that.
const N: usize = 400_000;
/// 0.6's last rare position (docs/window.md), so its least prefix.
const LAST_RARE: u64 = 20_627;

/// G(0..n) of `code` by a full in-memory run, its start checked against
/// the reference engine (every pair scanned).
fn full(code: &str, n: usize) -> Vec<u32> {
    let c: Code = code.parse().unwrap();
    let g = compute(&mut *EngineKind::Sparse.build(&c, 2), n);
    let r = compute(&mut *EngineKind::Reference.build(&c, 1), 3000);
    assert_eq!(g[..3000], r[..], "{code}: sparse against reference");
    g
}

fn run(args: &[&str]) -> Output {
    octal().args(args).output().unwrap()
}

/// A run of the binary with the words of `line` as arguments.
fn run_line(line: &str) -> Output {
    run(&line.split_whitespace().collect::<Vec<_>>())
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn checksum(g: &[u32]) -> String {
    Stats::of(g).checksum.hex()
}

#[test]
fn a_window_short_of_prefix_grows_it_and_gives_the_full_runs_values() {
    let want = full("0.6", N);
    let dir = tempfile::tempdir().unwrap();
    let (store, export) = (dir.path().join("0.6.window"), dir.path().join("0.6.oseq"));
    let window = "--window 2^16 --keep-going --json";

    // As before: without growing, it stops (exit 4) at a heap past the
    // prefix, the values up to it exact.
    let out = run_line(&format!(
        "run 0.6 --to 400000 --no-store --grow-prefix-to 0 {window}"
    ));
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let s = json(&out);
    let at = s["values"].as_u64().unwrap();
    assert!(s["halted"].is_string() && at < N as u64, "{s}");
    assert_eq!(s["prefix"], LAST_RARE + 1);
    assert_eq!(s["checksum"], checksum(&want[..at as usize]));
    assert!(s.get("prefix_grown").is_none(), "{s}");

    // Growing: G(0..2P) from scratch at that heap, then on to N.
    let (st, ex) = (store.to_str().unwrap(), export.to_str().unwrap());
    let out = run_line(&format!(
        "run 0.6 --to 400000 --store {st} --export {ex} {window}"
    ));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let s = json(&out);
    assert_eq!(s["values"], N as u64);
    assert_eq!(s["checksum"], checksum(&want), "{s}");
    assert!(s.get("halted").is_none(), "{s}");
    let p = 2 * (LAST_RARE + 1);
    assert_eq!(s["prefix"], p);
    assert_eq!(s["memory_bytes"], 2 * ((1 << 16) + p));
    let grown = s["prefix_grown"].as_array().unwrap();
    assert_eq!(grown.len(), 1, "{s}");
    assert_eq!(
        (&grown[0]["at"], &grown[0]["from"], &grown[0]["to"]),
        (&at.into(), &(LAST_RARE + 1).into(), &p.into())
    );
    assert!(grown[0]["seconds"].as_f64().is_some_and(|t| t > 0.0), "{s}");
    // One line on stderr: the heap, the new prefix, the time.
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains(&format!("heap {at} needed a longer prefix"))
            && lines[0].contains(&format!("G(0..{p})"))
            && lines[0].contains(" s;"),
        "{err}"
    );
    // Its checkpoint, with the grown prefix, is whole.
    let out = run_line(&format!("verify {st}"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Every value, as streamed: the full run's.
    let f = octal::store::seqfile::SeqFile::open(&export).unwrap();
    let g = f.read_all().unwrap();
    assert_eq!(g.len(), N);
    assert!(
        (0..N).all(|n| g.get(n) == want[n]),
        "exported values differ"
    );
    // The human report says so too.
    let out = run_line("run 0.6 --to 400000 --no-store --window 2^16 --keep-going");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        text.contains(&format!(
            "prefix grown at heap {at}: {} → {p} values",
            LAST_RARE + 1
        )),
        "{text}"
    );

    // In the library: the kept values, the grown prefix among them, are
    // the full run's.
    let c: Code = "0.6".parse().unwrap();
    let mut w = Windowed::new(&c, N as u64, Sizes::new(1 << 16, None).unwrap(), 2, None).unwrap();
    w.grow_prefix_to(u64::MAX);
    let end = w
        .run(false, std::time::Duration::MAX, None, &mut |_| {})
        .unwrap();
    assert!(matches!(end, WindowEnding::Done), "{end:?}");
    assert_eq!(w.meta().prefix_grown.len(), 1);
    let kept = w.kept_values();
    assert_eq!(kept.prefix.len() as u64, p);
    for n in (0..kept.prefix.len()).chain(kept.lo..N) {
        assert_eq!(kept.get(n), Some(want[n]), "G({n})");
    }
}

/// A windowed run of 0.6 that stopped for its prefix (window 2^17, prefix
/// 2^14, no growing), checkpointed at `path`.
fn stopped_run(path: &str) {
    let out = run_line(&format!(
        "run 0.6 --to 400000 --window 2^17 --prefix 2^14 --grow-prefix-to 0 --store {path} --keep-going --json"
    ));
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
}

/// `line` is refused as bad input: exit 2, one line naming --window.
fn refused(line: &str) {
    let out = run_line(line);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{line}: {err}");
    assert!(
        err.lines().count() == 1 && err.contains("--window"),
        "{line}: {err}"
    );
}

#[test]
fn resume_with_other_sizes_where_they_are_sound() {
    let want = full("0.6", N);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("0.6.window");
    let p = path.to_str().unwrap();
    stopped_run(p);

    // A larger window than the values kept, or too small a one for the
    // rare positions' prefix: refused, the checkpoint untouched.
    let before = std::fs::read(&path).unwrap();
    refused(&format!("resume {p} --window 2^18"));
    refused(&format!("resume {p} --window 2^14"));
    assert!(
        std::fs::read(&path).unwrap() == before,
        "checkpoint changed"
    );
    // A store is not a window.
    let store = dir.path().join("0.6.octal");
    let st = store.to_str().unwrap();
    assert!(run_line(&format!("run 0.6 --to 1000 --store {st} --quiet"))
        .status
        .success());
    refused(&format!("resume {st} --window 2^16"));

    // A smaller window and a longer prefix (recomputed from G(0)): the
    // run goes on past the heap it stopped at, with the full run's values.
    let out = run_line(&format!(
        "resume {p} --window 2^16 --prefix 45000 --keep-going --json"
    ));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let s = json(&out);
    assert_eq!(
        (&s["values"], &s["window"], &s["prefix"]),
        (&N.into(), &(1u64 << 16).into(), &45000u64.into())
    );
    assert_eq!(s["checksum"], checksum(&want));
    assert!(s.get("halted").is_none(), "{s}");
    // Its checkpoint is whole: verify recomputes heaps of its window.
    let out = run_line(&format!("verify {p}"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
