//! Files octal must not overwrite or remove (issue #38): a writer's
//! output over its own input, the temporary files of `--export` and of a
//! windowed run's checkpoint (a user's `FILE.part`, `X.tmp`, symbolic
//! links at those names), other processes writing the same path at once,
//! a file that appears at `--export`'s path during a run, a crash right
//! after an export is put in place, and a relative `--export` resumed
//! from another directory. Expected values come from the reference
//! engine or from an uninterrupted run in another directory.
//!
//! Each category prints `faults: CATEGORY: tried T, passed P`.

use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::thread::sleep;
use std::time::Duration;

use crate::common::child;
use child::{octal, wait_for};

use crate::common::faults as kit;
use kit::*;

/// G(from..to) of a store or sequence file, as `octal values` prints them.
fn values_of(file: &Path, from: u64, to: u64) -> Result<Vec<u32>, String> {
    let out = run(&[
        "values",
        p(file),
        "--from",
        &from.to_string(),
        "--to",
        &to.to_string(),
    ]);
    if !out.status.success() {
        return Err(text(&out.stderr));
    }
    Ok(text(&out.stdout)
        .lines()
        .map(|l| l.parse().unwrap())
        .collect())
}

/// `octal verify FILE` says ok, and the file holds `count` values (any
/// count when none).
fn verifies(file: &Path, count: Option<u64>) -> Result<(), String> {
    let out = run(&["verify", p(file)]);
    if !out.status.success() {
        return Err(format!(
            "verify {}: {}{}",
            file.display(),
            text(&out.stdout),
            text(&out.stderr)
        ));
    }
    if let Some(n) = count {
        let f = octal::store::seqfile::SeqFile::open(file).map_err(|e| e.to_string())?;
        if f.count() != n {
            return Err(format!("{}: {} values, not {n}", file.display(), f.count()));
        }
    }
    Ok(())
}

fn make_store(dir: &Path, name: &str, code: &str, to: u64) -> PathBuf {
    let path = dir.join(name);
    let out = run(&[
        "run",
        code,
        "--to",
        &to.to_string(),
        "--store",
        p(&path),
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    path
}

fn interrupt(child: &Child) {
    // SAFETY: a signal to a child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
}

/// A windowed run of 0.6 to 2^40, checkpointed in `store`, started in
/// `cwd` with `extra` arguments and stopped by Ctrl-C once it has run
/// a moment after its first checkpoint: the values it checkpointed
/// (more than none).
fn interrupted_window(cwd: &Path, store: &Path, extra: &[&str]) -> u64 {
    let mut args = vec![
        "run",
        "0.6",
        "--to",
        "2^40",
        "--window",
        "2^20",
        "--store",
        p(store),
        "--checkpoint-every",
        "0.1",
        "--quiet",
        "--keep-going",
    ];
    args.extend(extra);
    let child = octal()
        .current_dir(cwd)
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first checkpoint comes after values are made.
    wait_for(store);
    sleep(Duration::from_millis(100));
    interrupt(&child);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    let done = octal::window::file::read(store).unwrap().0.done;
    // Else the tests built on it would check an empty run against another.
    assert!(done > 0, "interrupted before any value was checkpointed");
    done
}

/// Whether G(0..n) of `file` are 0.6's, by the reference engine (at most
/// the first 3000 are checked: its time grows as n²).
fn right_values(file: &Path, n: u64) -> Result<(), String> {
    let k = n.min(3000);
    let want = reference("0.6", k as usize);
    match values_of(file, 0, k) {
        Ok(v) if v == want => Ok(()),
        Ok(_) => Err(format!("{}: wrong values", file.display())),
        Err(e) => Err(e),
    }
}

/// The names in `dir` ending in `suffix`.
fn names_ending(dir: &Path, suffix: &str) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(suffix))
        .collect()
}

/// `plot` never writes over what it draws from (under any name), nor
/// through a symbolic link or onto a device; a picture it made before is
/// still replaced.
#[test]
fn plot_never_writes_over_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut t = Tally::new("writer over its input");
    let store = make_store(d, "s.octal", "0.6", 3000);
    let oseq = d.join("s.oseq");
    let out = run(&["export", p(&store), "-o", p(&oseq)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let hard = d.join("hard.png");
    fs::hard_link(&store, &hard).unwrap();
    let sym = d.join("sym.svg");
    std::os::unix::fs::symlink(&oseq, &sym).unwrap();
    let (store_bytes, oseq_bytes) = (fs::read(&store).unwrap(), fs::read(&oseq).unwrap());
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "store -o store",
            vec!["plot", p(&store), "-o", p(&store), "--format", "png"],
        ),
        (
            "export -o export",
            vec!["plot", p(&oseq), "--format", "svg", "-o", p(&oseq)],
        ),
        (
            "store -o its hard link",
            vec!["plot", p(&store), "-o", p(&hard)],
        ),
        (
            "export -o a link to it",
            vec!["plot", p(&oseq), "-o", p(&sym)],
        ),
        (
            "a code -o /dev/full",
            vec![
                "plot",
                "0.6",
                "--to",
                "100",
                "-o",
                "/dev/full",
                "--format",
                "png",
            ],
        ),
    ];
    // Other commands' outputs over a store: a picture, the notation of
    // the period (0.07 has period 34).
    let other = make_store(d, "other.octal", "0.07", 2000);
    let other_bytes = fs::read(&other).unwrap();
    let cases = [
        cases,
        vec![(
            "a code -o another store",
            vec![
                "plot",
                "0.6",
                "--to",
                "100",
                "-o",
                p(&other),
                "--format",
                "png",
            ],
        )],
    ]
    .concat();
    for (name, args) in cases {
        let out = run(&args);
        t.check(one_line_error(&out, Some(2)).is_ok(), || {
            format!("{name}: {:?}", one_line_error(&out, Some(2)))
        });
    }
    let notation = format!("--notation={}", p(&other));
    let r = run(&[
        "run",
        "0.07",
        "--to",
        "3000",
        "--store",
        p(&other),
        &notation,
        "--quiet",
    ]);
    t.check(!r.status.success(), || "--notation=STORE succeeded".into());
    t.check(
        fs::read(&other).is_ok_and(|b| b.get(..4096) == other_bytes.get(..4096)),
        || "--notation=STORE replaced the store".into(),
    );
    t.check(verifies(&other, None).is_ok(), || {
        format!("{:?}", verifies(&other, None))
    });
    t.check(fs::read(&store).unwrap() == store_bytes, || {
        "the store changed".into()
    });
    t.check(fs::read(&oseq).unwrap() == oseq_bytes, || {
        "the export changed".into()
    });
    t.check(
        fs::metadata("/dev/full").is_ok_and(|m| m.file_type().is_char_device()),
        || "/dev/full is no longer a device".into(),
    );
    // An earlier picture is replaced, as before.
    let pic = d.join("pic.svg");
    fs::write(&pic, b"old picture").unwrap();
    let out = run(&["plot", p(&store), "-o", p(&pic), "--quiet"]);
    t.check(out.status.success(), || text(&out.stderr));
    t.check(fs::read(&pic).unwrap().starts_with(b"<svg"), || {
        "the picture was not replaced".into()
    });
    t.check(names_ending(d, ".tmp").is_empty(), || {
        format!("temporary files left: {:?}", names_ending(d, ".tmp"))
    });
    t.done();
}

/// The temporary files of `--export FILE` and of a windowed run's
/// checkpoint X are new files of their own: a user's `FILE.part`,
/// `FILE.part.idx` and `X.tmp` (or symbolic links there to a victim)
/// stay as they were, and an export to the name the checkpoint's
/// temporary file used to have is kept. A store's writer removes only its
/// own dead temporaries.
#[test]
fn temporary_names_are_never_a_users_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut t = Tally::new("temporary-file traps");
    const N: u64 = 1 << 15;
    let victim = d.join("victim.txt");
    let precious = b"precious, 16 bytes of it".to_vec();
    let window = |store: &Path, export: Option<&Path>| {
        let mut args = vec![
            "run",
            "0.6",
            "--to",
            "2^15",
            "--window",
            "2^20",
            "--store",
            p(store),
            "--quiet",
        ];
        if let Some(x) = export {
            args.extend(["--export", p(x)]);
        }
        run(&args)
    };
    for (i, trap) in [".part", ".part.idx", ".part (link)", ".part.idx (link)"]
        .iter()
        .enumerate()
    {
        fs::write(&victim, &precious).unwrap();
        let out = d.join(format!("x{i}.oseq"));
        let name = trap.trim_end_matches(" (link)");
        let at = PathBuf::from(format!("{}{name}", out.display()));
        if trap.ends_with("(link)") {
            std::os::unix::fs::symlink(&victim, &at).unwrap();
        } else {
            fs::write(&at, &precious).unwrap();
        }
        let r = window(&d.join(format!("x{i}.window")), Some(&out));
        t.check(r.status.success(), || {
            format!("{trap}: {}", text(&r.stderr))
        });
        t.check(fs::read(&at).is_ok_and(|b| b == precious), || {
            format!("--export FILE: FILE{trap} changed")
        });
        t.check(fs::read(&victim).is_ok_and(|b| b == precious), || {
            format!("--export FILE: FILE{trap}: the victim changed")
        });
        t.check(verifies(&out, Some(N)).is_ok(), || {
            format!("{trap}: {:?}", verifies(&out, Some(N)))
        });
    }
    for (i, link) in [false, true].into_iter().enumerate() {
        fs::write(&victim, &precious).unwrap();
        let store = d.join(format!("y{i}.window"));
        let tmp = PathBuf::from(format!("{}.tmp", store.display()));
        if link {
            std::os::unix::fs::symlink(&victim, &tmp).unwrap();
        } else {
            fs::write(&tmp, &precious).unwrap();
        }
        let r = window(&store, None);
        t.check(r.status.success(), || text(&r.stderr));
        t.check(
            fs::read(&tmp).is_ok_and(|b| b == precious)
                && fs::read(&victim).is_ok_and(|b| b == precious),
            || format!("--store X (link: {link}): X.tmp or its target changed"),
        );
        t.check(verifies(&store, None).is_ok(), || {
            format!("{:?}", verifies(&store, None))
        });
    }
    // --export onto the name the checkpoint's temporary file had.
    let store = d.join("z.window");
    let export = d.join("z.window.tmp");
    let r = window(&store, Some(&export));
    t.check(r.status.success(), || text(&r.stderr));
    t.check(
        verifies(&export, Some(N)).is_ok() && right_values(&export, N).is_ok(),
        || format!("--export X.tmp: {:?}", verifies(&export, Some(N))),
    );
    t.check(verifies(&store, None).is_ok(), || {
        format!("--export X.tmp: {:?}", verifies(&store, None))
    });
    // A store's writer leaves alone a file of the user's that looks like
    // a temporary file of it.
    let s = make_store(d, "s.octal", "0.6", 1000);
    let notes = d.join(".s.octal.notes.tmp");
    fs::write(&notes, &precious).unwrap();
    let r = run(&["resume", p(&s), "--to", "2000", "--quiet"]);
    t.check(r.status.success(), || text(&r.stderr));
    t.check(fs::read(&notes).is_ok_and(|b| b == precious), || {
        "resume removed .s.octal.notes.tmp".into()
    });
    t.done();
}

/// Two processes started together on one path: exactly one succeeds,
/// the other fails at once with a one-line "in use" error, and the file
/// that is left verifies.
#[test]
fn two_writers_of_one_path_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut t = Tally::new("two writers at once");
    let together = |a: Vec<String>, b: Vec<String>| -> [Output; 2] {
        let spawn = |args: &Vec<String>| {
            octal()
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (x, y) = (spawn(&a), spawn(&b));
        [x.wait_with_output().unwrap(), y.wait_with_output().unwrap()]
    };
    let one_wins = |outs: &[Output; 2]| -> Result<(), String> {
        let won = outs.iter().filter(|o| o.status.success()).count();
        let lost: Vec<&Output> = outs.iter().filter(|o| !o.status.success()).collect();
        if won != 1 {
            return Err(format!(
                "{won} succeeded: {:?}",
                outs.iter().map(|o| text(&o.stderr)).collect::<Vec<_>>()
            ));
        }
        one_line_error(lost[0], None)?;
        let err = text(&lost[0].stderr);
        if !err.contains("in use") {
            return Err(format!("not an \"in use\" error: {err}"));
        }
        Ok(())
    };
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    for round in 0..2 {
        // Two windowed runs, each with its own checkpoint, exporting to
        // one file.
        let export = d.join(format!("both{round}.oseq"));
        let args = |i: usize| {
            let store = d.join(format!("w{round}-{i}.window"));
            s(&[
                "run",
                "0.6",
                "--to",
                "2^19",
                "--window",
                "2^20",
                "--store",
                p(&store),
                "--export",
                p(&export),
                "--quiet",
            ])
        };
        let outs = together(args(0), args(1));
        t.check(one_wins(&outs).is_ok(), || {
            format!("two exports: {:?}", one_wins(&outs))
        });
        t.check(verifies(&export, Some(1 << 19)).is_ok(), || {
            format!("two exports: {:?}", verifies(&export, Some(1 << 19)))
        });
        // A windowed run and a full-store run on one path.
        let store = d.join(format!("one{round}.octal"));
        let window = s(&[
            "run",
            "0.6",
            "--to",
            "2^19",
            "--window",
            "2^20",
            "--store",
            p(&store),
            "--quiet",
        ]);
        let full = s(&[
            "run",
            "0.6",
            "--to",
            "2^19",
            "--store",
            p(&store),
            "--quiet",
        ]);
        let outs = if round == 0 {
            together(window, full)
        } else {
            together(full, window)
        };
        t.check(one_wins(&outs).is_ok(), || {
            format!("window and store: {:?}", one_wins(&outs))
        });
        t.check(verifies(&store, None).is_ok(), || {
            format!("window and store: {:?}", verifies(&store, None))
        });
    }
    // Writers that meet a windowed run writing its export: refused at
    // once, and the run's file whole after it.
    let export = d.join("busy.oseq");
    let store = make_store(d, "small.octal", "0.6", 1000);
    let busy = d.join("busy.window");
    let child = octal()
        .args([
            "run",
            "0.6",
            "--to",
            "2^40",
            "--window",
            "2^20",
            "--store",
            p(&busy),
            "--export",
            p(&export),
            "--quiet",
            "--keep-going",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(Path::new(&format!("{}.lock", export.display())));
    let lock = format!("{}.lock", busy.display());
    let others: [&[&str]; 4] = [
        &["export", p(&store), "-o", p(&export), "--force"],
        // The run's lock file itself, named as an output.
        &["plot", "0.6", "--to", "100", "-o", &lock, "--format", "png"],
        &[
            "plot",
            "0.6",
            "--to",
            "100",
            "-o",
            p(&export),
            "--format",
            "png",
        ],
        &["run", "0.6", "--to", "1000", "--store", p(&export)],
    ];
    for args in others {
        let r = run(args);
        t.check(
            one_line_error(&r, Some(1)).is_ok() && text(&r.stderr).contains("in use"),
            || format!("{} during a run's export: {}", args[0], text(&r.stderr)),
        );
    }
    interrupt(&child);
    let out = child.wait_with_output().unwrap();
    t.check(out.status.code() == Some(130), || text(&out.stderr));
    let done = match octal::window::file::read(&busy) {
        Ok((meta, _)) => meta.done,
        Err(e) => panic!("{e}; the run said: {}", text(&out.stderr)),
    };
    let r = run(&["resume", p(&busy), "--to", &done.to_string(), "--quiet"]);
    t.check(r.status.success(), || text(&r.stderr));
    t.check(
        verifies(&export, Some(done)).is_ok() && right_values(&export, done).is_ok(),
        || format!("the run's export: {:?}", verifies(&export, Some(done))),
    );
    t.done();
}

/// What a windowed run's `--export` finds when it takes up again: a file
/// that appeared at its path meanwhile (kept, and the run refuses to
/// finish over it), the finished file of a run killed right after putting
/// it in place (taken up, the result unchanged), and a relative path
/// resumed from another directory.
#[test]
fn a_windowed_export_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut t = Tally::new("export taken up again");
    fs::create_dir(d.join("a")).unwrap();
    fs::create_dir(d.join("b")).unwrap();

    // A file created at the export's path during the run.
    let store = d.join("appear.window");
    let export = d.join("appear.oseq");
    let done = interrupted_window(d, &store, &["--export", p(&export)]);
    fs::write(&export, b"the user's own file").unwrap();
    let r = run(&["resume", p(&store), "--to", &done.to_string(), "--quiet"]);
    t.check(one_line_error(&r, None).is_ok(), || {
        format!("appeared: {:?}", one_line_error(&r, None))
    });
    t.check(fs::read(&export).unwrap() == b"the user's own file", || {
        "the file that appeared was replaced".into()
    });
    fs::remove_file(&export).unwrap();
    let r = run(&["resume", p(&store), "--to", &done.to_string(), "--quiet"]);
    t.check(r.status.success(), || text(&r.stderr));
    t.check(
        verifies(&export, Some(done)).is_ok() && right_values(&export, done).is_ok(),
        || {
            format!(
                "appeared, then removed: {:?}",
                verifies(&export, Some(done))
            )
        },
    );

    // Killed right after the rename: the checkpoint before it, the file
    // in place and no temporary file.
    let store = d.join("killed.window");
    let export = d.join("killed.oseq");
    let done = interrupted_window(d, &store, &["--export", p(&export)]);
    let before = fs::read(&store).unwrap();
    let r = run(&["resume", p(&store), "--to", &done.to_string(), "--quiet"]);
    t.check(r.status.success(), || text(&r.stderr));
    let finished = fs::read(&export).unwrap_or_default();
    fs::write(&store, &before).unwrap();
    for attempt in 0..3 {
        let r = run(&["resume", p(&store), "--to", &done.to_string(), "--quiet"]);
        t.check(r.status.success(), || {
            format!("after the rename, try {attempt}: {}", text(&r.stderr))
        });
        t.check(fs::read(&export).unwrap_or_default() == finished, || {
            format!("after the rename, try {attempt}: the export differs")
        });
        fs::write(&store, &before).unwrap();
    }
    t.check(
        verifies(&export, Some(done)).is_ok() && right_values(&export, done).is_ok(),
        || format!("after the rename: {:?}", verifies(&export, Some(done))),
    );
    // And it is what an uninterrupted run writes.
    let straight = d.join("straight.oseq");
    let r = run(&[
        "run",
        "0.6",
        "--to",
        &done.to_string(),
        "--window",
        "2^20",
        "--store",
        p(&d.join("straight.window")),
        "--export",
        p(&straight),
        "--quiet",
        "--keep-going",
    ]);
    t.check(r.status.success(), || text(&r.stderr));
    let same = |a: &Path, b: &Path| {
        let (x, y) = (
            octal::store::seqfile::SeqFile::open(a).map(|f| f.header().checksum.clone()),
            octal::store::seqfile::SeqFile::open(b).map(|f| f.header().checksum.clone()),
        );
        matches!((x, y), (Ok(x), Ok(y)) if x == y)
    };
    t.check(same(&export, &straight), || {
        "after the rename: not the uninterrupted run's values".into()
    });

    // A relative --export, resumed from another directory.
    let store = d.join("rel.window");
    let done = interrupted_window(&d.join("a"), &store, &["--export", "rel.oseq"]);
    let r = run_in(
        &d.join("b"),
        &["resume", p(&store), "--to", &done.to_string(), "--quiet"],
    );
    t.check(r.status.success(), || {
        format!("relative: {}", text(&r.stderr))
    });
    let export = d.join("a/rel.oseq");
    t.check(
        verifies(&export, Some(done)).is_ok() && right_values(&export, done).is_ok(),
        || format!("relative: {:?}", verifies(&export, Some(done))),
    );
    t.check(!d.join("b/rel.oseq").exists(), || {
        "relative: written in the other directory".into()
    });
    t.done();
}
