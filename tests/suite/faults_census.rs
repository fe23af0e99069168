//! Fault injection into the census and the Slurm scripts (issue #38),
//! through the `octal` binary: shell injection into generated job
//! scripts (and paths that must still work in them), a census directory
//! damaged in each way a re-run may meet, a census re-run to a lower
//! `--to`, a Slurm census collected with a finished task's store damaged,
//! random bytes in the census' results files; and (second attack) a
//! collect of another census' task or --to, a manifest changed by hand,
//! linked subdirectories, a census directory in use, what a killed
//! census leaves behind, and census files that are not regular files.
//!
//! Expected tables are an undamaged census' own, made once in a fresh
//! directory; the script's lines are checked against the generator's
//! template, the paths read back as bash and sbatch read them (sbatch's
//! `#SBATCH` parser is transcribed here from Slurm's `src/sbatch/opt.c`).
//!
//! Each category prints `faults: CATEGORY: tried T, passed P` (run with
//! `--nocapture` to see them).

use std::ffi::OsString;
use std::fs::OpenOptions;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use proptest::prelude::*;

use crate::common::faults as kit;
use kit::*;

// ---------------------------------------------------------------------
// Job scripts

/// The arguments sbatch takes from an `#SBATCH` line (the text after
/// `#SBATCH`), as Slurm's `_get_argument` reads them: words split at
/// blanks, `'…'` and `"…"` group, a backslash escapes the next character
/// (inside quotes too), an unescaped `#` outside quotes ends the line.
fn sbatch_arguments(line: &str) -> Vec<String> {
    let mut args = Vec::new();
    let b: Vec<char> = line.chars().collect();
    let mut i = 0;
    loop {
        while i < b.len() && b[i].is_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            return args;
        }
        let (mut arg, mut quote, mut escape) = (String::new(), None, false);
        while i < b.len() && (quote.is_some() || !b[i].is_whitespace()) {
            let c = b[i];
            if escape {
                escape = false;
            } else if c == '\\' {
                escape = true;
                i += 1;
                continue;
            } else if let Some(q) = quote {
                if c == q {
                    quote = None;
                    i += 1;
                    continue;
                }
            } else if c == '"' || c == '\'' {
                quote = Some(c);
                i += 1;
                continue;
            } else if c == '#' {
                args.push(arg);
                return args;
            }
            arg.push(c);
            i += 1;
        }
        args.push(arg);
    }
}

/// One bash word at the start of `s` made only of unquoted safe
/// characters, `'…'` and `\'`: its value and the rest of `s`. Anything
/// bash would expand or split on (`$`, `` ` ``, `;`, `"`, …) outside
/// single quotes makes it `None`.
fn bash_word(s: &str) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut rest = s;
    loop {
        if let Some(r) = rest.strip_prefix('\'') {
            let end = r.find('\'')?;
            out.push_str(&r[..end]);
            rest = &r[end + 1..];
        } else if let Some(r) = rest.strip_prefix("\\'") {
            out.push('\'');
            rest = r;
        } else if let Some(c) = rest
            .chars()
            .next()
            .filter(|c| c.is_ascii_alphanumeric() || "/._-+=:,".contains(*c))
        {
            out.push(c);
            rest = &rest[1..];
        } else {
            break;
        }
    }
    (rest.len() < s.len()).then_some((out, rest))
}

fn is_time(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_digit() || b == b':' || b == b'-')
}

/// Every line of `script` is one the generator writes, with the values
/// the user gave only where the template puts them: checked words, and
/// the paths in quotes that bash and sbatch read back as `dir`.
fn script_is_the_template(script: &str, dir: &Path) -> Result<(), String> {
    let dir = dir.to_str().ok_or("a dir that is not UTF-8 was accepted")?;
    let lines: Vec<&str> = script.split('\n').collect();
    if lines.len() != 16 || !lines[15].is_empty() {
        return Err(format!("{} lines: {script:?}", lines.len()));
    }
    let word = |s: &str, ok: &dyn Fn(char) -> bool| !s.is_empty() && s.chars().all(ok);
    let digits = |s: &str| word(s, &|c| c.is_ascii_digit());
    let fixed = [
        (0, "#!/bin/bash"),
        (
            1,
            "# Written by `octal family --slurm`: array task i computes member i of",
        ),
        (5, "#SBATCH --ntasks=1"),
        (9, "#SBATCH --requeue"),
        (10, "#SBATCH --open-mode=append"),
        (
            12,
            "# Slurm sends SIGTERM on pre-emption, requeue and time-out: octal",
        ),
        (
            13,
            "# checkpoints and exits, and the requeued task resumes.",
        ),
    ];
    for (i, want) in fixed {
        if lines[i] != want {
            return Err(format!("line {}: {:?}", i + 1, lines[i]));
        }
    }
    let after = |i: usize, prefix: &str| {
        lines[i]
            .strip_prefix(prefix)
            .ok_or_else(|| format!("line {}: {:?}", i + 1, lines[i]))
    };
    if after(2, "# ").is_err() || lines[2].starts_with("#SBATCH") {
        return Err(format!("line 3: {:?}", lines[2]));
    }
    let name = after(3, "#SBATCH --job-name=octal-")?;
    if !word(name, &|c| c.is_ascii_alphanumeric() || "._+,-".contains(c)) {
        return Err(format!("job name {name:?}"));
    }
    let array = after(4, "#SBATCH --array=0-")?;
    let cpus = after(6, "#SBATCH --cpus-per-task=")?;
    let time = after(7, "#SBATCH --time=")?;
    let mem = after(8, "#SBATCH --mem=")?;
    let mem_digits = mem
        .strip_suffix(['K', 'M', 'G', 'T', 'k', 'm', 'g', 't'])
        .unwrap_or(mem);
    if !digits(array) || !digits(cpus) || !is_time(time) || !digits(mem_digits) {
        return Err(format!("lines 5-9: {:?}", &lines[4..9]));
    }
    let output = after(11, "#SBATCH")?;
    let want = format!("--output={dir}/logs/%A_%a.out");
    if sbatch_arguments(output) != [want.clone()] {
        return Err(format!(
            "sbatch reads {:?} from {:?}, not {want:?}",
            sbatch_arguments(output),
            lines[11]
        ));
    }
    let exec = after(14, "exec ")?;
    let (_, rest) = bash_word(exec).ok_or("no binary word")?;
    let rest = rest
        .strip_prefix(" family member ")
        .ok_or_else(|| format!("exec line {exec:?}"))?;
    let (d, rest) = bash_word(rest).ok_or_else(|| format!("no dir word: {exec:?}"))?;
    if d != dir || rest != " --index \"$SLURM_ARRAY_TASK_ID\" --quiet" {
        return Err(format!("exec line {exec:?} reads back as dir {d:?}"));
    }
    Ok(())
}

/// `family cookie-cutter` (k = 1, 2, to 100), quiet.
fn cookie_cutter() -> Command {
    let mut c = octal();
    c.args([
        "family",
        "cookie-cutter",
        "--k",
        "1..2",
        "--to",
        "100",
        "--quiet",
    ]);
    c
}

/// `family cookie-cutter` (k = 1, 2, to 100) prepared into `dir`.
fn prepare_family(dir: &Path, time: &OsString, mem: &OsString) -> Output {
    cookie_cutter()
        .arg("--time")
        .arg(time)
        .arg("--mem")
        .arg(mem)
        .arg("--slurm")
        .arg(dir)
        .output()
        .unwrap()
}

/// Runs array task 0 of the script in `dir` with bash (no Slurm: bash
/// skips the `#SBATCH` lines) and checks it wrote its result.
fn task_runs(dir: &Path, cwd: &Path) -> Result<(), String> {
    let out = Command::new("bash")
        .arg(dir.join("family.sbatch"))
        .env("SLURM_ARRAY_TASK_ID", "0")
        .current_dir(cwd)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() || !dir.join("results").join("0.json").is_file() {
        return Err(format!("task 0: {:?} {}", out.status, text(&out.stderr)));
    }
    Ok(())
}

/// Refused: exit 2, one line, no script, nothing run.
fn refused(out: &Output, dir: &Path, cwd: &Path) -> Result<(), String> {
    one_line_error(out, 2)?;
    if dir.join("family.sbatch").exists() {
        return Err("refused, but a script was written".into());
    }
    nothing_injected(cwd)
}

/// Accepted: a script that is the template (whose task 0 runs under bash
/// when `run`), nothing else run.
fn accepted(out: &Output, dir: &Path, cwd: &Path, run: bool) -> Result<(), String> {
    if !out.status.success() {
        return Err(format!("exit {:?}: {}", out.status, text(&out.stderr)));
    }
    let body = std::fs::read_to_string(dir.join("family.sbatch")).map_err(|e| e.to_string())?;
    script_is_the_template(&body, dir)?;
    if run {
        task_runs(dir, cwd)?;
    }
    nothing_injected(cwd)
}

/// Either [`refused`] or [`accepted`].
fn prepared_safely(out: &Output, dir: &Path, cwd: &Path, run: bool) -> Result<(), String> {
    match out.status.code() {
        Some(2) => refused(out, dir, cwd),
        _ => accepted(out, dir, cwd, run),
    }
}

fn nothing_injected(cwd: &Path) -> Result<(), String> {
    match cwd.join("INJECTED").exists() {
        true => Err("INJECTED was created".into()),
        false => Ok(()),
    }
}

#[test]
fn job_scripts_hold_no_line_of_the_users() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let mut t = Tally::new("slurm script values (time, mem, paths, names; census and family)");
    let mut n = 0;
    let mut fresh = || {
        n += 1;
        cwd.join(format!("d{n}"))
    };
    let os = |s: &str| OsString::from(s);
    // Times and memories: refused at parsing, or written as given.
    let bad_times = [
        "1:00:00\ntouch INJECTED",
        "x y;rm -rf /",
        "1:00:00;touch INJECTED",
        "$(touch INJECTED)",
        "`touch INJECTED`",
        "1:00:00 ",
        "",
        "-1",
        "1-",
        "1:2:3:4",
        "1-2:3:4:5",
        "1.5",
        "infinite",
        "1:00:00\r",
    ];
    for time in bad_times {
        for census in [false, true] {
            let dir = fresh();
            let out = if census {
                octal()
                    .args(["census", "--digits", "1", "--to", "2^10", "--time", time])
                    .arg("--slurm")
                    .arg(&dir)
                    .current_dir(cwd)
                    .output()
                    .unwrap()
            } else {
                prepare_family(&dir, &os(time), &os("1G"))
            };
            t.check(refused(&out, &dir, cwd), || {
                format!("census {census}: --time {time:?}")
            });
        }
    }
    for time in ["60", "60:30", "1:00:00", "2-0", "2-12:30", "2-12:30:15"] {
        let dir = fresh();
        let out = prepare_family(&dir, &os(time), &os("2G"));
        t.check(
            accepted(&out, &dir, cwd, false).and_then(|()| {
                let s = std::fs::read_to_string(dir.join("family.sbatch")).unwrap();
                match s.contains(&format!("\n#SBATCH --time={time}\n")) {
                    true => Ok(()),
                    false => Err(s),
                }
            }),
            || format!("--time {time:?}"),
        );
    }
    for mem in [
        "1G\ntouch INJECTED",
        "2G;touch INJECTED",
        "G",
        "1.5G",
        "2 G",
        "$(id)",
    ] {
        let dir = fresh();
        let out = prepare_family(&dir, &os("1:00"), &os(mem));
        t.check(refused(&out, &dir, cwd), || format!("--mem {mem:?}"));
    }
    // Paths: quoted so that a task still runs, or refused.
    let fine = [
        "with space",
        "quote'here",
        "double\"quote",
        "dollar$HOME",
        "back`tick`",
        "semi;colon",
        "hash#mark",
        "star*",
        "~tilde",
        "ünïcode",
        "-dash",
        "' ; touch INJECTED ; '",
    ];
    for name in fine {
        let dir = cwd.join(name);
        let out = prepare_family(&dir, &os("1:00"), &os("1G"));
        t.check(accepted(&out, &dir, cwd, true), || {
            format!("--slurm {name:?}")
        });
    }
    let unsafe_names = [
        "new\nline",
        "new\ntouch INJECTED",
        "carriage\rreturn",
        "tab\there",
        "per%cent",
        "back\\slash",
        "my-hetjob",
    ];
    for name in unsafe_names {
        let dir = cwd.join(name);
        let out = prepare_family(&dir, &os("1:00"), &os("1G"));
        t.check(refused(&out, &dir, cwd), || format!("--slurm {name:?}"));
    }
    // A census' script with a quoted path runs its task under bash.
    let dir = cwd.join("a census 'dir' $x");
    let out = octal()
        .args([
            "census",
            "--digits",
            "1",
            "--to",
            "2^10",
            "--probe",
            SLURM_PROBE,
        ])
        .args(["--quiet", "--slurm"])
        .arg(&dir)
        .current_dir(cwd)
        .output()
        .unwrap();
    t.check(accepted(&out, &dir, cwd, true), || {
        "census --slurm with quotes".into()
    });
    // The job name comes from a code list's file name: a newline there
    // stays out of the script.
    for stem in ["x\ntouch INJECTED\n", "a b;$(id)", "quote'"] {
        let list = cwd.join(format!("{stem}.txt"));
        std::fs::write(&list, "0.6\n0.16\n").unwrap();
        let dir = fresh();
        let out = octal()
            .args(["family", "codes", "--to", "100", "--quiet", "--file"])
            .arg(&list)
            .arg("--slurm")
            .arg(&dir)
            .current_dir(cwd)
            .output()
            .unwrap();
        t.check(accepted(&out, &dir, cwd, true), || {
            format!("codes --file {stem:?}.txt")
        });
    }
    t.done();
}

/// Bytes for argument strings: mostly what shells and sbatch treat
/// specially, some digits and letters, some anything (not NUL).
fn arg_bytes(slash: bool) -> impl Strategy<Value = Vec<u8>> {
    let special = prop::sample::select(b"\n\r\t '\"$;`\\%#:-0123456789GMa~*|&<>(){}!".to_vec());
    let any = 1u8..=255;
    prop::collection::vec(prop_oneof![3 => special, 1 => any], 0..12).prop_map(move |mut v| {
        if !slash {
            v.retain(|&b| b != b'/');
        }
        v
    })
}

/// Runs `test` on `cases` values of `strategy` (no regressions file) and
/// prints the category's line.
fn fuzz<S: Strategy>(
    name: &str,
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    match proptest::test_runner::TestRunner::new(config).run(&strategy, test) {
        Ok(()) => println!("faults: {name}: tried {cases}, passed {cases}"),
        Err(e) => {
            println!("faults: {name}: a case failed");
            panic!("{name}: {e}");
        }
    }
}

/// Random argument strings (newlines, quotes, `$`, `;`, …) for the time,
/// the memory and the directory: refused with one line and exit 2, or a
/// script whose every line is the template's, whose task runs.
#[test]
fn random_arguments_never_reach_the_script() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let n = std::cell::Cell::new(0);
    let strategy = (
        arg_bytes(true),
        arg_bytes(true),
        arg_bytes(false),
        prop::bool::ANY,
    );
    fuzz(
        "slurm script arguments (random bytes for --time, --mem, the directory)",
        48,
        strategy,
        |(time, mem, name, valid_time)| {
            n.set(n.get() + 1);
            let mut dir_name = format!("d{}-", n.get()).into_bytes();
            dir_name.extend(&name);
            let dir = cwd.join(OsString::from_vec(dir_name));
            // Half the cases with a good time and memory, so that the
            // paths are tried too.
            let (time, mem) = if valid_time {
                (OsString::from("1:00"), OsString::from("1G"))
            } else {
                (OsString::from_vec(time), OsString::from_vec(mem))
            };
            let out = prepare_family(&dir, &time, &mem);
            let ok = prepared_safely(&out, &dir, cwd, true);
            prop_assert!(
                ok.is_ok(),
                "time {:?} mem {:?} dir {:?}: {:?}",
                time,
                mem,
                dir,
                ok
            );
            Ok(())
        },
    );
}

// ---------------------------------------------------------------------
// Census directories

const CENSUS: [&str; 8] = [
    "census", "--digits", "1", "--probe", "2^10", "--quiet", "--jobs", "2",
];
const TO: &str = "2^12";
/// An open code and a periodic one of the one-digit census.
const OPEN: &str = "0.6";
const PERIODIC: &str = "0.4";

fn census(dir: &Path, to: &str) -> Output {
    octal()
        .args(CENSUS)
        .args(["--to", to, "--out"])
        .arg(dir)
        .output()
        .unwrap()
}

/// The census' tables without their timings: census.md, equivalences.md,
/// census.jsonl without `seconds` (its own and its check's), census.csv
/// without its seconds column.
fn tables(dir: &Path) -> Result<Vec<String>, String> {
    let read =
        |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| format!("{name}: {e}"));
    let csv: String = read("census.csv")?
        .lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split(',').collect();
            if f.len() > 12 {
                f.remove(12);
            }
            f.join(",") + "\n"
        })
        .collect();
    let jsonl: String = read("census.jsonl")?
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).map_err(|e| e.to_string())?;
            v.as_object_mut().map(|o| o.remove("seconds"));
            // How long a certificate's check took is a timing too.
            v["checked"].as_object_mut().map(|o| o.remove("seconds"));
            Ok(v.to_string() + "\n")
        })
        .collect::<Result<_, String>>()?;
    Ok(vec![
        read("census.md")?,
        read("equivalences.md")?,
        csv,
        jsonl,
    ])
}

fn store(dir: &Path, code: &str) -> PathBuf {
    dir.join("stores").join(format!("{code}.octal"))
}

fn result(dir: &Path, code: &str) -> PathBuf {
    dir.join("results").join(format!("{code}.json"))
}

/// Where a store's values begin (superblock: magic 8, version 4, length
/// 8, slot size 8, then the data offset).
fn data_offset(path: &Path) -> u64 {
    let f = std::fs::File::open(path).unwrap();
    let mut b = [0u8; 8];
    f.read_exact_at(&mut b, 28).unwrap();
    u64::from_le_bytes(b)
}

fn flip(path: &Path, at: u64) {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let mut b = [0u8; 1];
    f.read_exact_at(&mut b, at).unwrap();
    f.write_all_at(&[b[0] ^ 0x01], at).unwrap();
}

fn copy_sparse(from: &Path, to: &Path) {
    let ok = Command::new("cp")
        .args(["--sparse=always", "--remove-destination"])
        .arg(from)
        .arg(to)
        .status()
        .unwrap()
        .success();
    assert!(ok, "cp");
}

const DAMAGE: [&str; 11] = [
    "results garbage",
    "results emptied",
    "results deleted",
    "value flipped",
    "superblock flipped",
    "store truncated",
    "store deleted",
    "foreign file",
    "link to /dev/zero",
    "stores swapped",
    "copied over",
];

/// Does `kind` of damage to `code`'s files in the census `dir`; `other`
/// is a code of the other kind (open or periodic).
fn damage(dir: &Path, kind: &str, code: &str, other: &str) {
    let (s, r) = (store(dir, code), result(dir, code));
    match kind {
        "results garbage" => std::fs::write(&r, b"\x00\xffnot json {").unwrap(),
        "results emptied" => std::fs::write(&r, b"").unwrap(),
        "results deleted" => std::fs::remove_file(&r).unwrap(),
        "value flipped" => flip(&s, data_offset(&s) + 2 * 37),
        "superblock flipped" => flip(&s, 40),
        "store truncated" => {
            // Into the values (past them is room the store keeps).
            let f = OpenOptions::new().write(true).open(&s).unwrap();
            f.set_len(data_offset(&s) + 2 * 10).unwrap();
        }
        "store deleted" => std::fs::remove_file(&s).unwrap(),
        "foreign file" => std::fs::write(&s, b"these are my notes, not a store\n").unwrap(),
        "link to /dev/zero" => {
            std::fs::remove_file(&s).unwrap();
            std::os::unix::fs::symlink("/dev/zero", &s).unwrap();
        }
        "stores swapped" => {
            let (o, t) = (store(dir, other), dir.join("stores").join("swap"));
            std::fs::rename(&s, &t).unwrap();
            std::fs::rename(&o, &s).unwrap();
            std::fs::rename(&t, &o).unwrap();
        }
        "copied over" => copy_sparse(&store(dir, other), &s),
        _ => unreachable!("{kind}"),
    }
}

/// A re-run after damage: refused with one line and exit 2, or exit 0,
/// a line on stderr naming the damaged code, and the undamaged tables.
fn refused_or_recomputed(
    out: &Output,
    dir: &Path,
    code: &str,
    want: &[String],
) -> Result<(), String> {
    if out.status.code() == Some(2) {
        return one_line_error(out, 2);
    }
    let err = text(&out.stderr);
    if !out.status.success() || err.contains("panicked") {
        return Err(format!("exit {:?}: {err}", out.status.code()));
    }
    if !err.lines().any(|l| l.contains(code)) {
        return Err(format!("exit 0 without a word about {code}: {err:?}"));
    }
    match tables(dir)? == want {
        true => Ok(()),
        false => Err(format!("exit 0 with different tables; stderr {err:?}")),
    }
}

#[test]
fn a_damaged_census_directory_is_refused_or_recomputed() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("base");
    let out = census(&base, TO);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let want = tables(&base).unwrap();
    // The two codes are what the test needs them to be.
    let csv = &want[2];
    assert!(csv.contains(&format!("\n{OPEN},\"{OPEN}\",open,")), "{csv}");
    assert!(
        csv.contains(&format!("\n{PERIODIC},\"{PERIODIC}\",periodic,")),
        "{csv}"
    );
    // An undamaged re-run keeps the tables and says nothing.
    let again = census(&base, TO);
    assert!(
        again.status.success() && again.stderr.is_empty(),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(tables(&base).unwrap(), want);

    let mut t = Tally::new("census directory damage (11 kinds x an open and a periodic code)");
    for (i, kind) in DAMAGE.iter().enumerate() {
        for (code, other) in [(OPEN, PERIODIC), (PERIODIC, OPEN)] {
            let dir = tmp.path().join(format!("c{i}-{code}"));
            let made = census(&dir, TO);
            assert!(made.status.success(), "{}", text(&made.stderr));
            damage(&dir, kind, code, other);
            let out = census(&dir, TO);
            t.check(refused_or_recomputed(&out, &dir, code, &want), || {
                format!("{kind} ({code})")
            });
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
    t.done();

    // A census to fewer values in the directory of a longer one: refused,
    // or the tables of a census to that many values.
    let mut t = Tally::new("census to a lower --to in a longer census' directory");
    let (long, short) = (tmp.path().join("long"), tmp.path().join("short"));
    for (dir, to) in [(&long, "2^13"), (&short, "2^11")] {
        let out = census(dir, to);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let want_short = tables(&short).unwrap();
    let out = census(&long, "2^11");
    t.check(
        match out.status.code() {
            Some(2) => one_line_error(&out, 2),
            Some(0) => match tables(&long).unwrap() == want_short {
                true => Ok(()),
                false => Err("exit 0 with the tables of the longer census".into()),
            },
            c => Err(format!("exit {c:?}: {}", text(&out.stderr))),
        },
        || "census --to 2^11 over a --to 2^13 directory".into(),
    );
    t.done();
}

/// The probe of the one-digit censuses prepared as Slurm arrays here: it
/// leaves [`TASKS`] classes open, `0.4`, `0.6`, `4.4` and `4.6`.
const SLURM_PROBE: &str = "2^5";
/// Tasks of those arrays (one a class still open after the probe).
const TASKS: usize = 4;
/// The task of `0.6` (open at 2^12) in those arrays.
const OFFICERS_TASK: usize = 1;

/// `census --slurm DIR` or `census --collect DIR` (`how`) of the one-digit
/// census to 2^12.
fn census_array(dir: &Path, how: &str) -> Output {
    octal()
        .args([
            "census",
            "--digits",
            "1",
            "--to",
            "2^12",
            "--probe",
            SLURM_PROBE,
        ])
        .args(["--quiet", how])
        .arg(dir)
        .output()
        .unwrap()
}

/// The census of `dir` prepared as a Slurm array with every task run.
fn slurm_census(dir: &Path) {
    let out = census_array(dir, "--slurm");
    assert!(out.status.success(), "{}", text(&out.stderr));
    for i in 0..TASKS {
        let task = octal()
            .args(["family", "member", "--quiet", "--index", &i.to_string()])
            .arg(dir)
            .output()
            .unwrap();
        assert!(task.status.success(), "task {i}: {}", text(&task.stderr));
    }
}

fn collect(dir: &Path) -> Output {
    census_array(dir, "--collect")
}

#[test]
fn a_slurm_census_with_a_damaged_store_is_not_collected() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("base");
    slurm_census(&base);
    let out = collect(&base);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let want = tables(&base).unwrap();
    // Task 1 is 0.6 (open), task 0 is 0.4 (periodic).
    let mut t = Tally::new("census --collect with a finished task's store damaged");
    // The damage to stores (a task's result is its own, unchecked file).
    for kind in &DAMAGE[3..] {
        for (task, other) in [("1", "0"), ("0", "1")] {
            let dir = tmp.path().join(format!("{kind}-{task}"));
            slurm_census(&dir);
            damage(&dir, kind, task, other);
            let out = collect(&dir);
            t.check(refused_or_recomputed(&out, &dir, task, &want), || {
                format!("{kind} (task {task})")
            });
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
    t.done();
}

/// Random bytes, or the file's own bytes with a few bytes replaced,
/// inserted or removed, written into one of `files` in turn; `rerun`
/// must then refuse (exit 2, one line) or exit 0 with the tables `want`
/// of `dir`. Never a panic, never other tables.
fn fuzz_results(name: &str, dir: &Path, files: &[PathBuf], rerun: &dyn Fn() -> Output) {
    let want = tables(dir).unwrap();
    let strategy = (
        prop::sample::select(files.to_vec()),
        prop::option::of(prop::collection::vec(any::<u8>(), 0..400)),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..4),
    );
    fuzz(name, 40, strategy, |(path, random, edits)| {
        let pristine = std::fs::read(&path).unwrap();
        let bytes = random.unwrap_or_else(|| {
            let mut b = pristine.clone();
            for (at, byte, how) in &edits {
                let i = at.index(b.len() + 1);
                match how {
                    0 if i < b.len() => b[i] = *byte,
                    1 => b.insert(i, *byte),
                    _ if i < b.len() => {
                        b.remove(i);
                    }
                    _ => b.push(*byte),
                }
            }
            b
        });
        std::fs::write(&path, &bytes).unwrap();
        let out = rerun();
        let err = text(&out.stderr);
        let ok = match out.status.code() {
            Some(2) => one_line_error(&out, 2),
            Some(0) => match tables(dir) {
                Ok(t) if t == want => Ok(()),
                _ => Err(format!("exit 0 with other tables: {err}")),
            },
            c => Err(format!("exit {c:?}: {err}")),
        };
        std::fs::write(&path, &pristine).unwrap();
        prop_assert!(ok.is_ok(), "{:?} in {:?}: {:?}", text(&bytes), path, ok);
        Ok(())
    });
}

/// Random and mutated bytes in a census' results files, and in the
/// results of a Slurm census' tasks.
#[test]
fn random_results_files_never_give_other_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("census");
    let out = census(&dir, TO);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let files: Vec<PathBuf> = [OPEN, PERIODIC, "0.2", "4.4"]
        .iter()
        .map(|c| result(&dir, c))
        .collect();
    fuzz_results(
        "census results files (random and mutated bytes)",
        &dir,
        &files,
        &|| census(&dir, TO),
    );
    let array = tmp.path().join("array");
    slurm_census(&array);
    let out = collect(&array);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let files: Vec<PathBuf> = ["1", "0", "2", "3"]
        .iter()
        .map(|c| result(&array, c))
        .collect();
    fuzz_results(
        "census --collect task results (random and mutated bytes)",
        &array,
        &files,
        &|| collect(&array),
    );
}

// ---------------------------------------------------------------------
// A census' directory shared, linked, left behind (second attack)

/// `census --slurm` of the one-digit census to `to` in `dir`, with the
/// tasks `tasks` run.
fn slurm_census_to(dir: &Path, to: &str, tasks: &[usize]) {
    let out = octal()
        .args([
            "census",
            "--digits",
            "1",
            "--to",
            to,
            "--probe",
            SLURM_PROBE,
        ])
        .args(["--quiet", "--slurm"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    for i in tasks {
        let task = member(dir, *i);
        assert!(task.status.success(), "task {i}: {}", text(&task.stderr));
    }
}

/// `family cookie-cutter` (k = 1, 2, to 100) run into `dir`.
fn local_family(dir: &Path) -> Output {
    cookie_cutter().arg("--out").arg(dir).output().unwrap()
}

fn member(dir: &Path, index: usize) -> Output {
    octal()
        .args(["family", "member", "--quiet", "--index", &index.to_string()])
        .arg(dir)
        .output()
        .unwrap()
}

fn collect_to(dir: &Path, to: &str) -> Output {
    octal()
        .args([
            "census",
            "--digits",
            "1",
            "--quiet",
            "--to",
            to,
            "--probe",
            SLURM_PROBE,
            "--collect",
        ])
        .arg(dir)
        .output()
        .unwrap()
}

/// Refused (exit 2, one line) and the tables of `dir` still `want`.
fn refused_unchanged(out: &Output, dir: &Path, want: &[String]) -> Result<(), String> {
    one_line_error(out, 2)?;
    match tables(dir) {
        Ok(t) if t == want => Ok(()),
        _ => Err("the tables changed".into()),
    }
}

/// Whether stderr says `what`.
fn says(out: &Output, what: &str) -> Result<(), String> {
    let err = text(&out.stderr);
    err.contains(what)
        .then_some(())
        .ok_or(format!("does not say {what:?}: {err}"))
}

/// Copies the census directory `from` to `to` (stores kept sparse).
fn copy_dir(from: &Path, to: &Path) {
    let ok = Command::new("cp")
        .args(["-r", "--sparse=always"])
        .arg(from)
        .arg(to)
        .status()
        .unwrap()
        .success();
    assert!(ok, "cp -r");
}

/// A job array to 2^12 in `dir`, every task run and collected: its tables.
fn collected(dir: &Path) -> Vec<String> {
    slurm_census_to(dir, "2^12", &(0..TASKS).collect::<Vec<_>>());
    let out = collect_to(dir, "2^12");
    assert!(out.status.success(), "{}", text(&out.stderr));
    tables(dir).unwrap()
}

/// A task's result and store taken from a job array of another --to, and
/// a --to other than the array's: refused, the tables left as they were.
#[test]
fn a_collect_takes_nothing_of_another_census() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("base");
    let want = collected(&base);
    // 0.6 (open at 2^12), run to 2^13 in another array.
    let wider = tmp.path().join("wider");
    let six = OFFICERS_TASK;
    slurm_census_to(&wider, "2^13", &[six]);
    let mut t = Tally::new("census --collect of another census' task or --to");
    let dir = tmp.path().join("mixed");
    copy_dir(&base, &dir);
    let (result, store) = (format!("results/{six}.json"), format!("stores/{six}.octal"));
    std::fs::copy(wider.join(&result), dir.join(&result)).unwrap();
    copy_sparse(&wider.join(&store), &dir.join(&store));
    let out = collect_to(&dir, "2^12");
    t.check(
        refused_unchanged(&out, &dir, &want).and_then(|()| says(&out, "beyond --to 4096")),
        || "0.6's task's result and store from a census to 2^13".into(),
    );
    for to in ["2^13", "2^11", "4097"] {
        let out = collect_to(&base, to);
        t.check(refused_unchanged(&out, &base, &want), || {
            format!("collected with --to {to}, prepared with 2^12")
        });
    }
    let out = collect_to(&wider, "2^12");
    t.check(one_line_error(&out, 2), || {
        "an array to 2^13 collected with --to 2^12".into()
    });
    t.done();
}

/// A manifest changed by hand or written without its checksum: refused
/// (its tasks too), the tables left as they were.
#[test]
fn a_changed_manifest_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("base");
    let want = collected(&base);
    let mut t = Tally::new("census --collect with its manifest changed");
    let manifest = |dir: &Path| dir.join("manifest.json");
    let edits: [(&str, &str, &str, &str); 3] = [
        ("\"to\": 4096", "\"to\": 4097", "4097", "--to changed"),
        ("\"to\": 4096", "\"to\": 4097", "2^12", "--to changed"),
        (
            "\"time\": \"0-01:00:00\"",
            "\"time\": \"0-02:00:00\"",
            "2^12",
            "--time changed",
        ),
    ];
    for (from, into, to, what) in edits {
        let dir = tmp.path().join("edited");
        copy_dir(&base, &dir);
        let text0 = std::fs::read_to_string(manifest(&dir)).unwrap();
        assert!(text0.contains(from), "{text0}");
        std::fs::write(manifest(&dir), text0.replace(from, into)).unwrap();
        let out = collect_to(&dir, to);
        t.check(refused_unchanged(&out, &dir, &want), || {
            format!("{what}, collected with --to {to}")
        });
        let out = member(&dir, 0);
        t.check(one_line_error(&out, 2), || format!("{what}: task 0 run"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
    // A manifest with no checksum (as an older octal wrote it).
    let dir = tmp.path().join("old");
    copy_dir(&base, &dir);
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(manifest(&dir)).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("fnv");
    std::fs::write(manifest(&dir), v.to_string()).unwrap();
    let out = collect_to(&dir, "2^12");
    t.check(
        refused_unchanged(&out, &dir, &want).and_then(|()| says(&out, "checksum")),
        || "no checksum".into(),
    );
    t.done();
}

/// A `results`, `stores` or `logs` of a census' or a job array's
/// directory that is a symbolic link (to a directory elsewhere) or a
/// file: refused, nothing written through it.
#[test]
fn a_linked_subdirectory_is_never_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let victim = tmp.path().join("victim");
    let mut t = Tally::new("census and Slurm directories with a linked subdirectory");
    let untouched = |out: &Output| -> Result<(), String> {
        one_line_error(out, 2)?;
        match std::fs::read_dir(&victim).unwrap().count() {
            0 => Ok(()),
            n => Err(format!("{n} files written through the link")),
        }
    };
    for sub in ["results", "stores"] {
        for link in [true, false] {
            std::fs::create_dir_all(&victim).unwrap();
            let dir = tmp.path().join(format!("census-{sub}-{link}"));
            std::fs::create_dir_all(&dir).unwrap();
            if link {
                std::os::unix::fs::symlink(&victim, dir.join(sub)).unwrap();
            } else {
                std::fs::write(dir.join(sub), b"").unwrap();
            }
            let out = census(&dir, TO);
            t.check(untouched(&out), || {
                format!("census --out, {sub} a link {link}")
            });
        }
    }
    for sub in ["logs", "results", "stores"] {
        let dir = tmp.path().join(format!("slurm-{sub}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(&victim, dir.join(sub)).unwrap();
        let out = octal()
            .args([
                "census",
                "--digits",
                "1",
                "--to",
                TO,
                "--probe",
                SLURM_PROBE,
            ])
            .args(["--quiet", "--slurm"])
            .arg(&dir)
            .output()
            .unwrap();
        t.check(untouched(&out), || format!("census --slurm, {sub} a link"));
    }
    let dir = tmp.path().join("family-stores");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("stores")).unwrap();
    t.check(untouched(&local_family(&dir)), || {
        "family --out, stores a link".into()
    });
    // A job array whose results or stores became a link to a copy.
    for sub in ["results", "stores"] {
        let dir = tmp.path().join(format!("array-{sub}"));
        slurm_census_to(&dir, TO, &[0, 1]);
        let copy = tmp.path().join(format!("copy-{sub}"));
        std::fs::rename(dir.join(sub), &copy).unwrap();
        std::os::unix::fs::symlink(&copy, dir.join(sub)).unwrap();
        let before = std::fs::read_dir(&copy).unwrap().count();
        let same = |out: &Output| -> Result<(), String> {
            one_line_error(out, 2)?;
            match std::fs::read_dir(&copy).unwrap().count() {
                n if n == before => Ok(()),
                _ => Err("files written through the link".into()),
            }
        };
        t.check(same(&member(&dir, 2)), || {
            format!("family member, {sub} a link")
        });
        t.check(same(&collect_to(&dir, TO)), || {
            format!("census --collect, {sub} a link")
        });
    }
    t.done();
}

/// A census' directory or a job array being collected, in use by
/// another octal process (its lock held here): a second census or
/// collect is refused at once (exit 1, one line), and runs once it goes.
#[test]
fn a_census_in_use_is_refused_at_once() {
    use octal::store::output::PathLock;
    let tmp = tempfile::tempdir().unwrap();
    let mut t = Tally::new("census on a directory another census uses");
    let in_use = |out: &Output| -> Result<(), String> {
        one_line_error(out, 1)?;
        says(out, "in use by another octal process")
    };
    let dir = tmp.path().join("census");
    std::fs::create_dir_all(&dir).unwrap();
    let lock = PathLock::acquire(&dir.join("census")).unwrap();
    t.check(in_use(&census(&dir, TO)), || "census --out".into());
    drop(lock);
    t.check(census(&dir, TO).status.success(), || {
        "census --out once free".into()
    });
    let array = tmp.path().join("array");
    slurm_census_to(&array, TO, &(0..TASKS).collect::<Vec<_>>());
    let lock = PathLock::acquire(&array.join("census")).unwrap();
    t.check(in_use(&collect_to(&array, TO)), || {
        "census --collect".into()
    });
    drop(lock);
    t.check(collect_to(&array, TO).status.success(), || {
        "census --collect once free".into()
    });
    let fam = tmp.path().join("family");
    std::fs::create_dir_all(&fam).unwrap();
    let lock = PathLock::acquire(&fam.join("family")).unwrap();
    t.check(in_use(&local_family(&fam)), || "family --out".into());
    drop(lock);
    t.check(local_family(&fam).status.success(), || {
        "family --out once free".into()
    });
    t.done();
}

/// What a census or a task killed with -9 leaves (a store's and a
/// result's temporary, an empty lock file) goes at the next census or
/// collect; a lock someone holds stays; the tables are the same.
#[test]
fn a_killed_census_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let mut t = Tally::new("census and collect after a writer killed with -9");
    let leave = |dir: &Path, store: &str, result: &str| -> Vec<PathBuf> {
        let files = [
            dir.join("stores")
                .join(format!(".{store}.999999999.Ab3xYz12.tmp")),
            dir.join("results")
                .join(format!(".{result}.999999999.Zz9yXx88.tmp")),
            dir.join("results").join(format!("{result}.lock")),
            dir.join("stores").join(format!("{store}.lock")),
        ];
        for f in &files {
            let file = std::fs::File::create(f).unwrap();
            if f.extension().is_some_and(|e| e == "tmp") {
                file.set_len(1 << 20).unwrap();
            }
        }
        files.to_vec()
    };
    let swept = |out: &Output, files: &[PathBuf], dir: &Path, want: &[String]| {
        if !out.status.success() {
            return Err(format!(
                "exit {:?}: {}",
                out.status.code(),
                text(&out.stderr)
            ));
        }
        if let Some(f) = files.iter().find(|f| f.exists()) {
            return Err(format!("{} is still there", f.display()));
        }
        (tables(dir).as_deref() == Ok(want))
            .then_some(())
            .ok_or("other tables".to_string())
    };
    let dir = tmp.path().join("census");
    assert!(census(&dir, TO).status.success());
    let want = tables(&dir).unwrap();
    for code in [OPEN, PERIODIC] {
        let files = leave(&dir, &format!("{code}.octal"), &format!("{code}.json"));
        t.check(swept(&census(&dir, TO), &files, &dir, &want), || {
            format!("census --out, leftovers of {code}")
        });
    }
    // A lock held by someone stays.
    let held = octal::store::output::PathLock::acquire(&result(&dir, PERIODIC)).unwrap();
    let out = census(&dir, TO);
    t.check(
        out.status.success() && result(&dir, PERIODIC).with_extension("json.lock").exists(),
        || {
            format!(
                "census --out, {PERIODIC}'s result locked: {}",
                text(&out.stderr)
            )
        },
    );
    drop(held);
    let array = tmp.path().join("array");
    slurm_census_to(&array, TO, &(0..TASKS).collect::<Vec<_>>());
    assert!(collect_to(&array, TO).status.success());
    let want = tables(&array).unwrap();
    for task in ["1", "3"] {
        let files = leave(&array, &format!("{task}.octal"), &format!("{task}.json"));
        t.check(
            swept(&collect_to(&array, TO), &files, &array, &want),
            || format!("census --collect, leftovers of task {task}"),
        );
    }
    t.done();
}

/// A census' own file that is not a regular file (a result a directory
/// or a fifo, a table a link): refused before anything runs, one line
/// naming it, exit 2.
#[test]
fn a_census_file_that_is_not_a_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let mut t = Tally::new("census with one of its files not a regular file");
    let base = tmp.path().join("base");
    assert!(census(&base, TO).status.success());
    let kinds = [
        "result a directory",
        "result a fifo",
        "result a link",
        "table a link",
    ];
    for kind in kinds {
        let dir = tmp.path().join(kind.replace(' ', "-"));
        copy_dir(&base, &dir);
        let (path, target) = match kind {
            "table a link" => (dir.join("census.md"), tmp.path().join("elsewhere.md")),
            _ => (result(&dir, OPEN), tmp.path().join("elsewhere.json")),
        };
        std::fs::remove_file(&path).unwrap();
        match kind {
            "result a directory" => std::fs::create_dir(&path).unwrap(),
            "result a fifo" => {
                let ok = Command::new("mkfifo")
                    .arg(&path)
                    .status()
                    .unwrap()
                    .success();
                assert!(ok, "mkfifo");
            }
            _ => std::os::unix::fs::symlink(&target, &path).unwrap(),
        }
        let out = census(&dir, TO);
        let named = |out: &Output| -> Result<(), String> {
            one_line_error(out, 2)?;
            let err = text(&out.stderr);
            (err.contains(p(&path)) && !target.exists())
                .then_some(())
                .ok_or(format!("does not name {}, or wrote: {err}", path.display()))
        };
        t.check(named(&out), || kind.into());
    }
    t.done();
}
