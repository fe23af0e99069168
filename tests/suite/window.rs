//! Windowed runs against full ones: the same values (by checksum and by
//! the values kept), the same periods, a clean stop (never a guess) where
//! the window cannot decide a heap, and a resume after `kill -9` that
//! keeps the checksum.

use std::path::Path;
use std::process::{Child, Stdio};
use std::thread::sleep;
use std::time::Duration;

use octal::engine::{compute, EngineKind};
use octal::stats::{Checksum, Stats};
use octal::verify::value_at;
use octal::window::{Sizes, WindowEnding, Windowed};
use octal::Code;

use crate::common::child;
use child::{octal, signal, wait_for};

fn full(code: &Code, n: usize) -> Vec<u32> {
    compute(&mut *EngineKind::Sparse.build(code, 1), n)
}

/// (period, preperiod) that a full run of `code` proves within `to` values.
fn full_period(code: &Code, to: u64) -> (u64, u64) {
    let job = octal::run::Job {
        code: code.clone(),
        to,
        engine: EngineKind::Sparse,
        threads: 2,
        mask: Default::default(),
    };
    let outcome = octal::run::run_until(&job, true, &mut |_| {}).unwrap();
    let p = outcome.summary.period.expect("a proven period");
    (p.period, p.preperiod)
}

/// How a windowed run of `code` to `n` ended, once checked against the
/// full engine's values: "done" (with values dropped), "halted" (at a
/// heap that the kept values truly cannot decide), or "refused".
fn check(code: &str, n: usize, window: u64, threads: usize) -> &'static str {
    check_at(code, n, window, threads).0
}

/// [`check`], the values the run made, and whether the heap it stopped
/// at (if it did) is a rare position of the full sequence.
fn check_at(code: &str, n: usize, window: u64, threads: usize) -> (&'static str, usize, bool) {
    let c: Code = code.parse().unwrap();
    let sizes = Sizes::new(window, None).unwrap();
    let Ok(mut w) = Windowed::new(&c, n as u64, sizes, threads, None) else {
        return ("refused", 0, false);
    };
    let Ok(end) = w.run(false, Duration::MAX, None, &mut |_| {}) else {
        return ("refused", 0, false);
    };
    let want = full(&c, n);
    let done = w.meta().done as usize;
    // Every value the run made is the full engine's.
    assert_eq!(
        w.meta().stats,
        Stats::of(&want[..done]),
        "{code}: statistics"
    );
    let (prefix, lo) = (w.meta().prefix as usize, w.meta().lo as usize);
    let mask = w.mask();
    let kept = w.kept_values();
    assert_eq!(kept.prefix.len(), if prefix == 0 { done } else { prefix });
    for (k, &v) in kept.prefix.iter().chain(kept.ring).enumerate() {
        let n = if k < kept.prefix.len() {
            k
        } else {
            lo + k - kept.prefix.len()
        };
        assert_eq!(v as u32, want[n], "{code}: kept G({n})");
    }
    match end {
        WindowEnding::Done => {
            assert_eq!(done, n, "{code}");
            if prefix > 0 {
                assert!(lo > prefix, "{code}: values were dropped");
                ("done", done, false)
            } else {
                ("small", done, false)
            }
        }
        WindowEnding::Halted(why) => {
            assert!(done < n, "{code}: {why}");
            let h = done;
            let i0 = c.rules().take_split.first().copied().unwrap_or(0);
            let m = mask.expect("a mask");
            if prefix == 0 {
                // Stopped before dropping anything: the full sequence has a
                // rare position past the longest prefix the window keeps
                // (three quarters of it, less the detector's and the
                // moves' reach).
                let last = (1..h).rev().find(|&r| m.is_rare(r, want[r], i0));
                assert!(
                    last.is_some_and(|r| r + 2048 > 3 * window as usize / 4),
                    "{code}: {why}"
                );
            } else {
                // The kept values cannot decide it: an independent method,
                // every kept option into a bitset, says so too.
                let g: Vec<u16> = want[..h].iter().map(|&v| v as u16).collect();
                let kept = octal::window::KeptValues {
                    prefix: &g[..prefix],
                    lo,
                    ring: &g[lo..],
                };
                assert_eq!(value_at(&c, mask, &kept, h), None, "{code}: {why}");
            }
            ("halted", done, m.is_rare(h, want[h], i0))
        }
        WindowEnding::Stopped(_) => unreachable!(),
    }
}

#[test]
fn a_window_gives_the_full_runs_values_or_stops_where_they_cannot_decide() {
    // 0.6 in a window of 2^15 stops at a heap whose value of its own
    // class is witnessed only by a pair (a, m − a) with 20,628 ≤ a: the
    // prefix (which must hold the rare positions, up to 20,627) has no
    // witness for it. In 2^17 it goes on further.
    assert_eq!(check("0.6", 1 << 18, 1 << 15, 2), "halted");
    // .444 gains a rare position long after a window of 2^20 (prefix
    // 2^18) is in use: its value has no witness at all, and the window
    // cannot tell that from one in the dropped pairs.
    let (end, at, rare) = check_at(".444", 5_000_000, 1 << 20, 2);
    assert_eq!(end, "halted");
    assert!(rare && at > 1 << 21, "stopped at {at}, rare: {rare}");
    // .376's last rare position, 1,140,540, is past what a window of 2^20
    // can keep in its prefix: it stops before dropping anything.
    assert_eq!(check(".376", 1 << 21, 1 << 20, 2), "halted");
    for (code, n) in [
        ("0.6", 1 << 18),
        (".16", 1 << 18),
        (".56", 1 << 18),
        ("4.7", 1 << 18),
    ] {
        for threads in [1, 2] {
            assert_eq!(
                check(code, n, 1 << 17, threads),
                "done",
                "{code}, {threads} threads"
            );
        }
    }
}

#[test]
fn random_sparse_space_codes_run_exactly_in_a_window() {
    let mut x = 0x5eed_u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut seen = std::collections::BTreeMap::new();
    for _ in 0..24 {
        let digits: String = (0..1 + next() % 3)
            .map(|_| char::from(b'0' + (next() % 8) as u8))
            .collect();
        let code = format!("{}.{digits}", if next() % 4 == 0 { "4" } else { "0" });
        let end = check(&code, 1 << 17, 1 << 14, 1 + (next() % 2) as usize);
        *seen.entry(end).or_insert(0) += 1;
    }
    assert!(
        seen.get("done").copied().unwrap_or(0) >= 3,
        "too few ran windowed: {seen:?}"
    );
}

#[test]
fn windowed_periods_are_the_full_runs() {
    // .16's period 149,459 is Gangolli and Plambeck's; the rest are the
    // full engine's, computed here.
    // Windows small enough to be in use before the proof (and for .376
    // to keep its last rare position, 1,140,540, in the prefix).
    for (code, window) in [
        (".16", 1 << 18),
        (".56", 1 << 18),
        (".127", 1 << 16),
        (".376", 1 << 22),
    ] {
        let c: Code = code.parse().unwrap();
        let sizes = Sizes::new(window, None).unwrap();
        let mut w = Windowed::new(&c, 1 << 24, sizes, 2, None).unwrap();
        let end = w.run(true, Duration::MAX, None, &mut |_| {}).unwrap();
        assert!(matches!(end, WindowEnding::Done), "{code}: {end:?}");
        let got = w.summary().summary.period.expect("a proven period");
        let want = full_period(&c, 1 << 24);
        assert!(
            w.meta().lo > w.meta().prefix,
            "{code}: the window was in use"
        );
        assert_eq!((got.period, got.preperiod), want, "{code}");
        if code == ".16" {
            assert_eq!(got.period, 149_459);
        }
    }
}

#[test]
fn games_without_sparse_space_are_refused_up_front() {
    // Games whose values leave over a fifth of the positions rare under
    // every mask (the census finds no sparse space in them).
    for code in [".06", ".76"] {
        let c: Code = code.parse().unwrap();
        let sizes = Sizes::new(1 << 15, None).unwrap();
        let e = Windowed::new(&c, 1 << 20, sizes, 1, None)
            .err()
            .expect("refused");
        assert!(
            e.is_input() && e.to_string().contains("sparse space"),
            "{e}"
        );
    }
    // Three-heap splits too.
    let c: Code = "0.8".parse().unwrap();
    assert!(Windowed::new(&c, 1 << 20, Sizes::new(1 << 15, None).unwrap(), 1, None).is_err());
    // Without splits nothing but the last few values is needed.
    assert_eq!(check("0.333", 1 << 17, 1 << 14, 1), "done");
}

/// Starts `octal ARGS` (stdout discarded, stderr as given) and waits until
/// `started` exists: the checkpoint or its lock, once the run is under way.
fn start(args: &[&str], stderr: Stdio, started: &Path) -> Child {
    let child = octal()
        .args(args)
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    wait_for(started);
    child
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

#[test]
fn kill_9_then_resume_keeps_the_checksum() {
    const N: usize = 1 << 23;
    let c: Code = "0.6".parse().unwrap();
    let want = Checksum::of(&full(&c, N)).hex();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.window");
    let p = path.to_str().unwrap();
    let export = dir.path().join("k.oseq");
    let x = export.to_str().unwrap();
    let args = [
        "run",
        "0.6",
        "--to",
        "2^23",
        "--window",
        "2^22",
        "--prefix",
        "2^20",
        "--store",
        p,
        "--checkpoint-every",
        "0.05",
        "--quiet",
        "--json",
        "--keep-going",
    ];
    let mut kills = 0;
    for round in 0..4 {
        // The first run streams the values into a sequence file too; the
        // resumed ones go on with it.
        let extra: &[&str] = if round == 0 { &["--export", x] } else { &[] };
        let mut child = start(&[&args[..], extra].concat(), Stdio::null(), &path);
        sleep(Duration::from_millis(150 + 100 * round));
        if child.try_wait().unwrap().is_none() {
            kills += 1;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let v = octal().args(["verify", p]).output().unwrap();
        assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stdout));
    }
    assert!(kills >= 2, "the runs ended before they were killed");
    let out = octal()
        .args(["resume", p, "--json", "--keep-going"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = json(&out.stdout);
    assert_eq!(s["values"], N as u64);
    assert_eq!(s["checksum"], want.as_str());
    // The streamed file is a whole, checked sequence file of every value.
    let f = octal::store::seqfile::SeqFile::open(&export).unwrap();
    assert!(f.problems().is_empty(), "{:?}", f.problems());
    assert_eq!(
        (f.count(), f.header().checksum.as_str()),
        (N as u64, want.as_str())
    );
}

#[test]
fn ctrl_c_checkpoints_a_windowed_run_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("int.window");
    let p = path.to_str().unwrap();
    let child = start(
        &[
            "run",
            "0.6",
            "--to",
            "2^40",
            "--window",
            "2^20",
            "--store",
            p,
            "--checkpoint-every",
            "1000",
            "--quiet",
        ],
        Stdio::piped(),
        Path::new(&format!("{p}.lock")),
    );
    sleep(Duration::from_millis(500));
    signal(&child, "-INT");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("checkpoint saved at") && err.lines().count() == 1,
        "{err}"
    );
    // A clean stop lets go of the checkpoint: its lock file goes with it.
    assert!(!Path::new(&format!("{p}.lock")).exists(), "the lock stays");
    // Written on the signal (the timer was 1000 s), and sound.
    let (meta, _) = octal::window::file::read(&path).unwrap();
    assert!(meta.done > 10_000, "only {} values saved", meta.done);
    let v = octal().args(["verify", p]).output().unwrap();
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stdout));
}

#[test]
fn two_runs_on_one_checkpoint_and_bad_sizes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two.window");
    let p = path.to_str().unwrap();
    let mut first = start(
        &[
            "run", "0.6", "--to", "2^30", "--window", "2^20", "--store", p, "--quiet",
        ],
        Stdio::null(),
        Path::new(&format!("{p}.lock")),
    );
    sleep(Duration::from_millis(200));
    let second = octal()
        .args([
            "run", "0.6", "--to", "2^30", "--window", "2^20", "--store", p,
        ])
        .output()
        .unwrap();
    first.kill().unwrap();
    first.wait().unwrap();
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{err}");
    assert!(err.contains("in use"), "{err}");
    for (args, what) in [
        (
            &["run", "0.6", "--to", "1e6", "--window", "100", "--no-store"][..],
            "too small",
        ),
        (
            &[
                "run",
                "0.6",
                "--to",
                "1e6",
                "--window",
                "2^16",
                "--prefix",
                "2^16",
                "--no-store",
            ],
            "--prefix",
        ),
        (
            &[
                "run",
                ".06",
                "--to",
                "1e6",
                "--window",
                "2^16",
                "--no-store",
            ],
            "sparse space",
        ),
        (
            &["run", "0.6", "--to", "1e6", "--window", "x", "--no-store"],
            "--window",
        ),
        (
            &["run", "0.6", "--to", "2^48", "--window", "--no-store"],
            "address range",
        ),
    ] {
        let out = octal().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(what) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_family_runs_windowed_members_to_their_proven_periods() {
    // .127 and .56 as one family, each member in a window of 2^18 (in use
    // before either proof), against the full engine's periods; .06 has no
    // sparse space and fails alone, with its reason.
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("codes.txt");
    std::fs::write(&list, ".127\n.56\n.06\n").unwrap();
    let out_dir = dir.path().join("fam");
    let out = octal()
        .args([
            "family", "codes", "--to", "2^21", "--window", "2^18", "--json", "--jobs", "2",
            "--file",
        ])
        .arg(&list)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "one member fails");
    let rows: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 3);
    for (row, code) in rows.iter().zip([".127", ".56"]) {
        let (period, preperiod) = full_period(&code.parse().unwrap(), 1 << 21);
        assert_eq!(row["period"], period, "{row}");
        assert_eq!(row["preperiod"], preperiod, "{row}");
    }
    assert!(
        rows[2]["error"].as_str().unwrap().contains("sparse space"),
        "{}",
        rows[2]
    );
    assert!(
        out_dir.join("stores").join("0.127.window").exists()
            || std::fs::read_dir(out_dir.join("stores")).unwrap().count() >= 2
    );
}
