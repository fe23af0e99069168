//! Fault suite of issue #38, proven periods and wrong questions, through
//! the `octal` binary: a period proven in a file survives every later
//! command on it (run again, resume, export, import, compare), and flags a
//! command cannot act on are refused or said to be unused, never silently
//! dropped.
//!
//! The period of `.16` is the published one: 149,459 from preperiod
//! 105,351 (last irregular value G(105350), OEIS A071430; see
//! docs/periodicity.md), proven at the Guy–Smith bound for it. Other
//! expected values come from the reference engine.
//!
//! Each category prints `faults: CATEGORY: tried T, passed P` (run with
//! `--nocapture` to see them).

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::common::faults as kit;
use kit::*;

/// Runs `octal` in `dir` with the words of `line` as its arguments.
fn sh(dir: &Path, line: &str) -> Output {
    octal()
        .current_dir(dir)
        .args(line.split_whitespace())
        .output()
        .expect("octal runs")
}

/// `.16`'s published period and preperiod, and the values that prove it.
fn published_16() -> (u64, u64, u64) {
    let (p, s) = (149_459, 105_351);
    let bound = octal::period::Bound::of(&".16".parse().unwrap()).unwrap();
    (p, s, bound.needed(p, s))
}

/// The JSON on stdout of a command that succeeded, or why not.
fn json(dir: &Path, line: &str) -> Result<Value, String> {
    let out = sh(dir, line);
    if !out.status.success() {
        return Err(format!(
            "{line}: {:?}: {}",
            out.status,
            text(&out.stderr).trim()
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("{line}: {e}"))
}

/// Whether a summary reports `.16`'s published period, proven at its
/// bound.
fn has_period_16(v: &Value) -> bool {
    let (p, s, at) = published_16();
    v["period"]["period"] == p && v["period"]["preperiod"] == s && v["period"]["proven_at"] == at
}

#[test]
fn a_proven_period_survives_every_later_command() {
    let mut t = Tally::new("proven periods kept");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Each command's summary has the period, over this many values.
    let summaries = |t: &mut Tally, cases: &[(&str, u64)]| {
        for &(line, values) in cases {
            let got = json(d, line);
            t.check(
                got.as_ref()
                    .is_ok_and(|v| has_period_16(v) && v["values"] == values),
                || format!("{line}: want period 149459 from 105351 over {values} values: {got:?}"),
            );
        }
    };
    // Compare settles every n.
    let forever = |t: &mut Tally, pairs: &[(&str, &str)]| {
        for (a, b) in pairs {
            let got = json(d, &format!("compare {a} {b} --json"));
            t.check(
                got.as_ref().is_ok_and(|v| v["verdict"] == "equal_forever"),
                || format!("compare {a} {b}: want equal for every n: {got:?}"),
            );
        }
    };
    let ok = |t: &mut Tally, line: &str| {
        let out = sh(d, line);
        t.check(out.status.success(), || {
            format!("{line}: {}", text(&out.stderr))
        });
    };
    // Computed on past its proof, as the store was; run again,
    // resumed, a prefix that reaches the proof, nothing to compute (the
    // period is proven) and on to 2.5e6.
    let first = "run .16 --to 2e6 --keep-going --store s.octal --json -q";
    summaries(
        &mut t,
        &[
            (first, 2_000_000),
            (first, 2_000_000),
            ("run .16 --to 2e6 --store s.octal --json", 2_000_000),
            ("resume s.octal --json", 2_000_000),
            ("run .16 --to 1e6 --store s.octal --json", 1_000_000),
            ("resume s.octal --to 1e6 --json", 1_000_000),
            ("resume s.octal --to 3e6 --json", 2_000_000),
            (
                "resume s.octal --to 2.5e6 --keep-going --json -q",
                2_500_000,
            ),
            ("resume s.octal --json", 2_500_000),
        ],
    );
    // Compared either way round, as a store and exported.
    forever(&mut t, &[("s.octal", ".16"), (".16", "s.octal")]);
    ok(&mut t, "export s.octal -o s.oseq");
    forever(&mut t, &[("s.oseq", ".16"), ("s.oseq", "s.octal")]);
    // Imported, exported again, resumed and run again.
    ok(&mut t, "import s.oseq --store i.octal");
    forever(&mut t, &[("i.octal", ".16")]);
    ok(&mut t, "export i.octal -o i.oseq");
    forever(&mut t, &[("i.oseq", ".16")]);
    summaries(
        &mut t,
        &[
            ("resume i.octal --json", 2_500_000),
            ("run .16 --to 2.5e6 --store i.octal --json", 2_500_000),
        ],
    );
    // A run that stopped at its proof, compared and exported.
    ok(&mut t, "run .16 --to 2e6 --store p.octal -q");
    ok(&mut t, "export p.octal -o p.oseq");
    forever(&mut t, &[("p.octal", ".16"), ("p.oseq", "p.octal")]);
    // A windowed run, its checkpoint and the file it exports.
    summaries(
        &mut t,
        &[
            (
                "run .16 --to 2e6 --window 2^20 --keep-going --store w.window --export w.oseq --json -q",
                2_000_000,
            ),
            ("resume w.window --json", 2_000_000),
            ("resume w.window --to 2.2e6 --json", 2_000_000),
        ],
    );
    forever(&mut t, &[("w.oseq", ".16")]);
    t.done();
}

/// A command refused as bad input: exit 2 and one line on stderr that
/// contains each of `says`.
fn refused(out: &Output, says: &[&str]) -> bool {
    let err = text(&out.stderr);
    out.status.code() == Some(2)
        && err.trim().lines().count() == 1
        && says.iter().all(|s| err.contains(s))
}

#[test]
fn flags_a_run_cannot_use_are_refused_or_said_unused() {
    let mut t = Tally::new("wrong questions");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let refuses = |t: &mut Tally, line: &str, says: &[&str]| {
        let out = sh(d, line);
        t.check(refused(&out, says), || {
            format!(
                "{line}: want exit 2 saying {says:?}: {:?} {}",
                out.status,
                text(&out.stderr)
            )
        });
    };
    let out = sh(d, "run .16 --to 2e6 --keep-going --store s.octal -q");
    assert!(out.status.success(), "{}", text(&out.stderr));

    // --to below what is done: nothing computed, said so, and the prefix
    // summarised (not "in 0.000 s (0 values/s)").
    let g = reference(".16", 2_000);
    for line in [
        "resume s.octal --to 2000 --json",
        "run .16 --to 2000 --store s.octal --json",
    ] {
        let out = sh(d, line);
        let v: Option<Value> = serde_json::from_slice(&out.stdout).ok();
        t.check(
            out.status.success()
                && text(&out.stderr).contains("nothing to compute")
                && v.as_ref().is_some_and(|v| {
                    v["values"] == 2000
                        && v["last_value"] == g[1999]
                        && v["held"] == 2_000_000
                        && v.get("resumed_from").is_none()
                }),
            || {
                format!(
                    "{line}: want the first 2000 values summarised and nothing computed said: {} {}",
                    text(&out.stdout),
                    text(&out.stderr)
                )
            },
        );
    }
    let out = sh(d, "run .16 --to 2000 --store s.octal");
    let said = text(&out.stdout);
    t.check(
        out.status.success()
            && !said.contains("values/s")
            && said.contains("holds 2000000 values: nothing computed"),
        || format!("run --to below the store: {said}"),
    );

    // An engine or mask for nothing to compute: refused, naming them.
    for (flags, why) in [
        ("--engine reference", "nothing to compute"),
        ("--mask 0x1e", "nothing to compute"),
        ("--to 1000 --engine reference", "holds 2000000"),
        ("--to 3e6 --mask 0x1e", "proves the period"),
    ] {
        refuses(
            &mut t,
            &format!("resume s.octal {flags}"),
            &["--engine", why],
        );
    }
    // With something to compute, --engine is honoured and the summary
    // names it.
    let out = sh(d, "run .16 --to 3000 --store r.octal");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let g = reference(".16", 4_000);
    let got = json(
        d,
        "resume r.octal --to 4000 --engine reference --keep-going --json",
    );
    t.check(
        got.as_ref().is_ok_and(|v| {
            v["engine"] == "reference" && v["values"] == 4000 && v["last_value"] == g[3999]
        }),
        || format!("resume --engine reference: {got:?}"),
    );

    // A windowed run: no engine or mask to choose, no prefix to
    // summarise.
    let line = "run .16 --to 2e6 --window 2^20 --keep-going --store w.window -q";
    assert!(sh(d, line).status.success());
    refuses(&mut t, "resume w.window --engine reference", &["--engine"]);
    refuses(&mut t, "resume w.window --mask 0x1e", &["--mask"]);
    refuses(&mut t, "resume w.window --to 1e6", &["2000000 or more"]);
    refuses(
        &mut t,
        "run .16 --to 1e5 --window 2^16 --mask 0x1e --no-store",
        &["--mask"],
    );

    // --notation=FILE with --window: written when the window holds the
    // first period, refused when it does not. `0.156`: period 349 from
    // preperiod 3479 (data/census), its notation from the reference
    // engine's values.
    let g156 = reference("0.156", 3479 + 349);
    let p156 = octal::period::Period {
        period: 349,
        preperiod: 3479,
        proven_at: 0,
        bound: None,
    };
    let want = [
        octal::period::Notation::Text,
        octal::period::Notation::Latex,
    ]
    .map(|style| octal::period::notation(&g156, &p156, usize::MAX, style).unwrap());
    let line = "run 0.156 --to 2e5 --window 2^16 --keep-going --no-store --notation=w.txt -q";
    let out = sh(d, line);
    let got = std::fs::read_to_string(d.join("w.txt")).unwrap_or_default();
    t.check(
        out.status.success() && got.lines().eq(want.iter().map(String::as_str)),
        || format!("{line}: {} {got:?}", text(&out.stderr)),
    );
    let line =
        "run .16 --to 2e6 --window 2^20 --prefix 2^16 --keep-going --no-store --notation=x.txt -q";
    refuses(&mut t, line, &["--notation", "G(254809)"]);
    t.check(!d.join("x.txt").exists(), || {
        "--notation past the window wrote a file".into()
    });

    // --checkpoint-every: any number of seconds ≥ 0, however large; the
    // refusal of others names the value.
    for secs in ["1e300", "inf", "0"] {
        let line = format!("run .16 --to 1e4 --store c{secs}.octal --checkpoint-every {secs} -q");
        let out = sh(d, &line);
        t.check(out.status.success(), || {
            format!("{line}: {}", text(&out.stderr))
        });
    }
    for secs in ["-1", "NaN"] {
        refuses(
            &mut t,
            &format!("run .16 --to 1e4 --store c.octal --checkpoint-every={secs}"),
            &["--checkpoint-every", secs, "≥ 0"],
        );
    }
    // Shifts past everything the sides hold: nothing is compared, and
    // "equal" would be a claim about no heap at all.
    refuses(
        &mut t,
        "compare .16 .16 --shift=-1 --to 1",
        &["nothing to compare"],
    );
    // The one shift whose negation (the first n compared) is no i64.
    refuses(
        &mut t,
        "compare .16 .16 --shift=-9223372036854775808",
        &["--shift", "out of range"],
    );
    t.done();
}

/// `src` with its sequence-file header's JSON changed by `patch` and the
/// header's checksum made again (FNV-1a-64, docs/store.md), as a forger
/// would: only a check against the values can tell.
fn forge_header(src: &Path, dst: &Path, patch: impl FnOnce(&mut Value)) {
    let b = std::fs::read(src).unwrap();
    let h = u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize;
    let mut j: Value = serde_json::from_slice(&b[16..16 + h]).unwrap();
    patch(&mut j);
    let mut nj = serde_json::to_vec(&j).unwrap();
    assert!(nj.len() <= h, "the forged header must fit");
    nj.resize(h, b' ');
    let fnv = nj.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3)
    });
    let mut out = b[..16].to_vec();
    out.extend_from_slice(&nj);
    out.extend_from_slice(&fnv.to_le_bytes());
    out.extend_from_slice(&b[16 + h + 8..]);
    std::fs::write(dst, out).unwrap();
}

/// A change to a header's JSON.
type Patch = Box<dyn Fn(&mut Value)>;

#[test]
fn a_forged_period_is_never_taken_for_a_proof() {
    let mut t = Tally::new("forged periods");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (p16, s16, _) = published_16();
    let store = d.join("s.octal");
    let oseq = d.join("s.oseq");
    let out = run(&["run", ".16", "--to", "6e5", "--store", p(&store), "-q"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(&["export", p(&store), "-o", p(&oseq)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The unforged file verifies (else the test proves nothing).
    t.check(run(&["verify", p(&oseq)]).status.success(), || {
        "verify the export".into()
    });
    let forgeries: [(&str, Patch); 4] = [
        (
            "period 1",
            Box::new(|j| {
                j["period"] =
                    serde_json::json!({"bound": 1, "period": 1, "preperiod": 0, "proven_at": 1})
            }),
        ),
        ("period 0", Box::new(|j| j["period"]["period"] = 0.into())),
        (
            "preperiod one less",
            Box::new(move |j| j["period"]["preperiod"] = (s16 - 1).into()),
        ),
        (
            "period doubled",
            Box::new(move |j| j["period"]["period"] = (2 * p16).into()),
        ),
    ];
    for (name, patch) in forgeries {
        let f = d.join(format!("{}.oseq", name.replace(' ', "-")));
        forge_header(&oseq, &f, patch);
        let v = run(&["verify", p(&f)]);
        t.check(v.status.code() == Some(1), || {
            format!("verify {name}: {:?} {}", v.status, text(&v.stdout))
        });
        // compare reads the values, not the forged period: .16 agrees with
        // its own values for every n it holds, never "differ".
        let c = run(&["compare", ".16", p(&f)]);
        let said = text(&c.stdout);
        t.check(c.status.success() && !said.contains("differ"), || {
            format!("compare {name}: {said} {}", text(&c.stderr))
        });
    }
    t.done();
}
