//! Overnight-run safety, end to end through the `octal` binary: kills at
//! random moments, Ctrl-C and SIGTERM, damaged and foreign files, a second
//! writer, a full disk, and store → export → values round trips. Expected
//! values come from the reference engine in memory (and, for 0.333, from
//! G(n) = n mod 4), never from the store being tested.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread::sleep;
use std::time::Duration;

use octal::engine::Reference;
use octal::stats::Checksum;
use octal::store::Store;
use octal::verify::SplitMix;

use crate::common::child;
use child::{octal, signal, wait_for};

/// `octal ARGS`; runs and resumes go on past a proven period (the games
/// here are cheap because they are periodic).
fn with_args(args: &[&str]) -> Command {
    let mut c = octal();
    c.args(args);
    if matches!(args.first(), Some(&"run") | Some(&"resume")) {
        c.arg("--keep-going");
    }
    c
}

fn run(args: &[&str]) -> Output {
    with_args(args).output().expect("octal runs")
}

fn spawn(args: &[&str]) -> Child {
    with_args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("octal starts")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn reference(code: &str, n: usize) -> Vec<u32> {
    octal::compute(&mut Reference::new(&code.parse().unwrap()), n)
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "octal failed: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn values_of(file: &Path, from: u64, to: u64) -> Vec<u32> {
    let out = run(&[
        "values",
        file.to_str().unwrap(),
        "--from",
        &from.to_string(),
        "--to",
        &to.to_string(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}

fn seed() -> u64 {
    let s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    eprintln!("seed {s}");
    s
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn sigkill_at_random_moments_then_resume_is_exact() {
    // About 2.4 s of the reference engine on an AMD EPYC (Zen 4): long
    // enough that kills 30–230 ms apart land midway on a fast machine
    // (30,000 values took 0.4 s there, and runs finished before the kill).
    const N: usize = 80_000;
    let want = reference(".77", N);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("k.octal");
    let mut rng = SplitMix(seed());
    let args = [
        "run",
        ".77",
        "--to",
        "80000",
        "--store",
        p(&store),
        "--checkpoint-every",
        "0.02",
        "--chunk-values",
        "1000",
        // The quadratic engine (to the end: `with_args` adds
        // --keep-going) is slow enough to be killed midway, whatever the
        // fast engine's speed.
        "--engine",
        "reference",
        "--quiet",
        "--json",
    ];
    let mut killed_midway = 0;
    let mut last_good = 0;
    for _ in 0..6 {
        let mut child = spawn(&args);
        sleep(Duration::from_millis(30 + rng.below(200)));
        if child.try_wait().unwrap().is_none() {
            killed_midway += 1;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        if store.exists() {
            // Whatever instant the kill hit, the store opens consistently
            // and never goes backwards.
            let s = Store::open(&store, false).expect("store opens after SIGKILL");
            s.check_chunks().expect("checkpointed values intact");
            assert!(s.good() >= last_good);
            last_good = s.good();
            if last_good == N as u64 {
                break;
            }
        }
    }
    assert!(
        killed_midway >= 3,
        "the runs were too short to be killed ({killed_midway}, store at {last_good})"
    );
    assert!(last_good > 0, "no checkpoint survived any round");
    let out = json(&run(&args));
    assert_eq!(out["values"], N as u64);
    assert_eq!(out["checksum"], Checksum::of(&want).hex());
    assert_eq!(values_of(&store, 0, N as u64), want);
    let v = run(&["verify", p(&store), "--recompute", "5"]);
    assert!(v.status.success(), "{}", text(&v.stdout));
}

#[test]
fn sigint_sigterm_and_sighup_checkpoint_and_exit_130_143_and_129() {
    let dir = tempfile::tempdir().unwrap();
    for (sig, status) in [("-INT", 130), ("-TERM", 143), ("-HUP", 129)] {
        let store = dir.path().join(format!("s{status}.octal"));
        let mut child = spawn(&[
            "run",
            "0.6",
            "--to",
            "1e6",
            "--store",
            p(&store),
            "--checkpoint-every",
            "1000",
            "--quiet",
        ]);
        wait_for(&store);
        sleep(Duration::from_millis(300));
        assert!(child.try_wait().unwrap().is_none(), "finished too early");
        signal(&child, sig);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(status), "{}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(err.contains("checkpoint saved at"), "{err}");
        // The checkpoint was written on the signal (the timer was 1000 s).
        let good = Store::open(&store, false).unwrap().good();
        assert!(good > 1000, "only {good} values saved");
        // Resuming past the checkpoint gives the uninterrupted values (the
        // fast engine's: the reference engine would take minutes this far).
        let n = good as usize + 500;
        let want = octal::compute(
            &mut *octal::EngineKind::Sparse.build(&"0.6".parse().unwrap(), 1),
            n,
        );
        let out = json(&run(&[
            "resume",
            p(&store),
            "--to",
            &n.to_string(),
            "--json",
        ]));
        assert_eq!(out["values"], n as u64);
        assert_eq!(out["resumed_from"], good);
        assert_eq!(out["checksum"], Checksum::of(&want).hex());
    }
}

/// A finished store of 0.333 (G(n) = n mod 4) in small chunks.
fn small_store(dir: &Path, name: &str, n: u64) -> PathBuf {
    let store = dir.join(name);
    let out = run(&[
        "run",
        "0.333",
        "--to",
        &n.to_string(),
        "--store",
        p(&store),
        "--chunk-values",
        "1024",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    store
}

fn flip(path: &Path, at: u64) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let mut b = [0u8];
    f.read_exact_at(&mut b, at).unwrap();
    f.write_all_at(&[b[0] ^ 0x10], at).unwrap();
}

/// One line on stderr, no panic, the given exit code.
fn fails(out: &Output, code: i32, needle: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains(needle), "wanted {needle:?} in {err}");
}

#[test]
fn damaged_and_foreign_files_give_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let good = small_store(dir.path(), "good.octal", 10_000);
    let want: Vec<u32> = (0..10_000).map(|n| n % 4).collect();
    assert_eq!(values_of(&good, 0, 10_000), want);
    let data = Store::open(&good, false).unwrap().data_offset();
    let copy = |name: &str| {
        let to = dir.path().join(name);
        std::fs::copy(&good, &to).unwrap();
        to
    };

    // Truncated inside the values.
    let t = copy("trunc.octal");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&t)
        .unwrap()
        .set_len(data + 3000)
        .unwrap();
    fails(&run(&["resume", p(&t)]), 1, "truncated");
    fails(&run(&["verify", p(&t)]), 1, "truncated");
    fails(&run(&["values", p(&t)]), 1, "truncated");

    // A flipped byte in the superblock.
    let h = copy("super.octal");
    flip(&h, 20);
    fails(&run(&["resume", p(&h)]), 1, "superblock");

    // A flipped byte in both header slots: no checkpoint left.
    let h2 = copy("slots.octal");
    flip(&h2, 4096 + 40);
    flip(&h2, 4096 + octal::store::DEFAULT_SLOT_SIZE + 40);
    fails(&run(&["verify", p(&h2)]), 1, "no valid checkpoint");

    // A flipped byte in one slot: the other checkpoint is used (that is
    // what a torn write looks like), and verify reports the slot with its
    // own exit status, 3.
    let h1 = copy("slot.octal");
    flip(&h1, 4096 + 40);
    let v = run(&["verify", p(&h1)]);
    assert_eq!(v.status.code(), Some(3));
    assert!(text(&v.stdout).contains("header slot 0 is unusable"));

    // A flipped byte in the values: G(5000) sits in chunk 4 = 4096..5120.
    let f = copy("flip.octal");
    flip(&f, data + 2 * 5000);
    let v = run(&["verify", p(&f)]);
    assert_eq!(v.status.code(), Some(1));
    let report = text(&v.stdout);
    assert!(report.contains("values 4096..5120 (chunk 4)"), "{report}");
    assert_eq!(report.matches("damaged").count(), 1, "{report}");
    fails(&run(&["resume", p(&f), "--to", "20000"]), 1, "4096..5120");
    fails(&run(&["values", p(&f), "--from", "4000"]), 1, "4096..5120");
    assert_eq!(values_of(&f, 0, 4096), want[..4096]);

    // Not a store at all, or empty.
    let foreign = dir.path().join("notes.txt");
    std::fs::write(&foreign, "G(n) for 0.6, see thesis\n").unwrap();
    fails(&run(&["resume", p(&foreign)]), 2, "not an octal store");
    fails(&run(&["verify", p(&foreign)]), 2, "not an octal store");
    let empty = dir.path().join("empty.octal");
    std::fs::write(&empty, "").unwrap();
    fails(&run(&["resume", p(&empty)]), 2, "not an octal store");
    fails(
        &run(&["resume", p(&dir.path().join("missing.octal"))]),
        2,
        "No such file",
    );

    // A store of another code.
    fails(
        &run(&["run", "0.6", "--to", "100", "--store", p(&good)]),
        2,
        "holds the sequence of 0.333",
    );

    // The undamaged store still verifies, recomputing values.
    let v = run(&["verify", p(&good), "--recompute", "20"]);
    assert!(v.status.success(), "{}", text(&v.stdout));
}

#[test]
fn a_second_writer_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("busy.octal");
    let mut first = spawn(&["run", "0.6", "--to", "1e6", "--store", p(&store), "--quiet"]);
    wait_for(&store);
    sleep(Duration::from_millis(100));
    fails(
        &run(&["run", "0.6", "--to", "1e6", "--store", p(&store)]),
        1,
        "in use by another octal process",
    );
    fails(
        &run(&["resume", p(&store)]),
        1,
        "in use by another octal process",
    );
    // Readers are welcome meanwhile.
    let v = run(&["verify", p(&store)]);
    assert!(v.status.success(), "{}", text(&v.stdout));
    assert!(first.try_wait().unwrap().is_none());
    signal(&first, "-INT");
    assert_eq!(first.wait().unwrap().code(), Some(130));
}

#[test]
fn a_full_disk_keeps_the_checkpoint_and_says_what_is_needed() {
    let dir = tempfile::tempdir().unwrap();
    let store = small_store(dir.path(), "full.octal", 3000);
    let out = with_args(&["resume", p(&store), "--to", "8e6", "--quiet"])
        .env("OCTAL_TEST_AVAILABLE_BYTES", "1000000")
        .output()
        .unwrap();
    fails(&out, 1, "disk full");
    let err = text(&out.stderr);
    assert!(err.contains("needs") && err.contains("MiB"), "{err}");
    let s = Store::open(&store, false).unwrap();
    assert_eq!(s.good(), 3000);
    s.check_chunks().unwrap();
    drop(s);
    let out = json(&run(&["resume", p(&store), "--to", "9000", "--json"]));
    let want: Vec<u32> = (0..9000).map(|n| n % 4).collect();
    assert_eq!(out["checksum"], Checksum::of(&want).hex());
}

#[test]
fn store_export_values_import_round_trip() {
    const N: u64 = 12_000;
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("d.octal");
    let out = json(&run(&[
        "run",
        ".137",
        "--to",
        "12000",
        "--store",
        p(&store),
        "--json",
        "--quiet",
    ]));
    let want = reference(".137", N as usize);
    assert_eq!(out["checksum"], Checksum::of(&want).hex());
    let file = dir.path().join("d.oseq");
    let e = run(&[
        "export",
        p(&store),
        "-o",
        p(&file),
        "--level",
        "5",
        "--frame-values",
        "1000",
    ]);
    assert!(e.status.success(), "{}", text(&e.stderr));
    let mut rng = SplitMix(seed());
    for _ in 0..8 {
        let a = rng.below(N);
        let b = a + 1 + rng.below(N - a);
        let got = values_of(&file, a, b);
        assert_eq!(got, want[a as usize..b as usize], "range {a}..{b}");
        assert_eq!(got, values_of(&store, a, b));
    }
    let v = run(&["verify", p(&file), "--recompute", "5"]);
    assert!(v.status.success(), "{}", text(&v.stdout));

    // A prefix export carries the prefix's own count and checksum.
    let prefix = dir.path().join("prefix.oseq");
    let e = run(&["export", p(&store), "-o", p(&prefix), "--to", "7001"]);
    assert!(e.status.success(), "{}", text(&e.stderr));
    assert_eq!(values_of(&prefix, 0, 7001), want[..7001]);
    fails(
        &run(&["values", p(&prefix), "--to", "7002"]),
        2,
        "7001 values",
    );
    let v = run(&["verify", p(&prefix)]);
    assert!(v.status.success(), "{}", text(&v.stdout));
    assert!(
        text(&v.stdout).contains(&Checksum::of(&want[..7001]).hex()),
        "{}",
        text(&v.stdout)
    );
    fails(
        &run(&["export", p(&store), "-o", p(&prefix), "--to", "12001"]),
        2,
        "12000 values",
    );

    // `-o -` streams the same file to standard output, its closing line
    // to stderr; a full standard output is an error, not a short file.
    let piped = run(&["export", p(&store), "-o", "-", "--to", "7001"]);
    assert!(piped.status.success(), "{}", text(&piped.stderr));
    assert!(text(&piped.stderr).contains("standard output"));
    let streamed = dir.path().join("streamed.oseq");
    std::fs::write(&streamed, &piped.stdout).unwrap();
    assert_eq!(values_of(&streamed, 0, 7001), want[..7001]);
    assert_eq!(piped.stdout, std::fs::read(&prefix).unwrap());
    let full = with_args(&["export", p(&store), "-o", "-"])
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(full.status.code(), Some(1), "{}", text(&full.stderr));
    assert!(text(&full.stderr).contains("No space left"));

    // Import and continue computing.
    let back = dir.path().join("back.octal");
    let i = run(&["import", p(&file), "--store", p(&back)]);
    assert!(i.status.success(), "{}", text(&i.stderr));
    let more = reference(".137", 14_000);
    let out = json(&run(&["resume", p(&back), "--to", "14000", "--json"]));
    assert_eq!(out["checksum"], Checksum::of(&more).hex());
    assert_eq!(out["resumed_from"], N);

    // A damaged frame is named; the other frames still read.
    let len = std::fs::metadata(&file).unwrap().len();
    flip(&file, len / 3);
    let v = run(&["verify", p(&file)]);
    assert_eq!(v.status.code(), Some(1));
    assert!(text(&v.stdout).contains("(frame "), "{}", text(&v.stdout));
    flip(&file, len - 4);
    fails(&run(&["values", p(&file)]), 1, "trailer");
}

#[test]
fn a_slurm_member_checkpoints_on_sigterm_and_resumes_when_requeued() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("codes.txt");
    std::fs::write(&list, "0.6\n").unwrap();
    let fam = dir.path().join("fam");
    let out = run(&[
        "family",
        "codes",
        "--file",
        p(&list),
        "--to",
        "1e6",
        "--slurm",
        p(&fam),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let store = fam.join("stores").join("0.octal");
    let member = ["family", "member", p(&fam), "--index", "0", "--quiet"];
    let mut good = 0;
    for _ in 0..2 {
        let child = spawn(&member);
        wait_for(&store);
        sleep(Duration::from_millis(300));
        signal(&child, "-TERM");
        assert_eq!(child.wait_with_output().unwrap().status.code(), Some(143));
        let s = Store::open(&store, false).unwrap();
        s.check_chunks().unwrap();
        assert!(s.good() > good, "the requeued task went on");
        good = s.good();
    }
    let want = reference("0.6", good as usize);
    assert_eq!(values_of(&store, 0, good), want);
}

#[test]
fn a_proven_period_stops_the_run_and_survives_resume_and_export() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("kayles.octal");
    // Without --keep-going: Kayles is proven periodic (period 12,
    // preperiod 71) at 167 values.
    let first = octal()
        .args(["run", ".77", "--to", "1e6", "--store", p(&store), "--json"])
        .output()
        .unwrap();
    let first = json(&first);
    assert_eq!(first["period"]["period"], 12);
    assert_eq!(first["period"]["preperiod"], 71);
    assert!(first["values"].as_u64().unwrap() < 1000);
    // The detector's state was saved: resuming finds the proof at once.
    let again = octal()
        .args(["resume", p(&store), "--json"])
        .output()
        .unwrap();
    let again = json(&again);
    assert_eq!(again["period"], first["period"]);
    assert_eq!(again["values"], first["values"]);
    // The export header carries the proven period.
    let file = dir.path().join("kayles.oseq");
    assert!(run(&["export", p(&store), "-o", p(&file)]).status.success());
    let header = octal::store::seqfile::SeqFile::open(&file)
        .unwrap()
        .header()
        .clone();
    assert_eq!(header.period.unwrap()["period"], 12);
}
