//! The `octal` binary as a user meets it: output formats checked against
//! the seed tables and an independent checksum, and every kind of bad
//! input refused with exit code 2 and a one-line message.

use crate::common;
use crate::common::fnv1a64;

use std::process::Output;

use crate::common::run_in_temp as octal;

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

/// Runs a command that must succeed and returns its stdout.
fn ok(args: &[&str]) -> String {
    let o = octal(args);
    assert!(o.status.success(), "octal {args:?} failed: {}", stderr(&o));
    stdout(&o)
}

/// Parses `octal values` output: one number per line and nothing else.
fn numbers(out: &str) -> Vec<u32> {
    assert!(out.ends_with('\n') || out.is_empty(), "unterminated output");
    out.lines()
        .map(|l| {
            assert!(
                !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()),
                "not a number on stdout: {l:?}"
            );
            l.parse().expect("a u32")
        })
        .collect()
}

/// The fields of `run --json` recomputed from the values.
fn check_summary(json: &str, canonical: &str, values: &[u32]) {
    assert_eq!(json.lines().count(), 1, "more than one line: {json}");
    let v: serde_json::Value = serde_json::from_str(json).expect("one JSON object");
    let obj = v.as_object().expect("a JSON object");
    let max = *values.iter().max().unwrap();
    let first_max = values.iter().position(|&x| x == max).unwrap();
    let zeros = values.iter().filter(|&&x| x == 0).count();
    assert_eq!(obj["code"], canonical);
    assert_eq!(obj["values"], values.len() as u64);
    assert_eq!(obj["max_value"], max);
    assert_eq!(obj["first_max_at"], first_max as u64);
    assert_eq!(obj["zeros"], zeros as u64);
    assert_eq!(obj["last_value"], *values.last().unwrap());
    assert_eq!(obj["checksum"], fnv1a64(values).as_str());
    let secs = obj["seconds"].as_f64().expect("seconds is a number");
    let rate = obj["values_per_second"]
        .as_f64()
        .expect("values_per_second is a number");
    assert!(secs >= 0.0 && rate >= 0.0, "{json}");
}

#[test]
fn run_json_matches_the_kayles_table() {
    let kayles = common::load("kayles");
    assert_eq!(kayles.from, 0);
    let table = &kayles.expected()[..101];
    let out = ok(&["run", ".77", "--to", "101", "--json"]);
    check_summary(&out, "0.77", table);
    // Hand-checked facts of that table, so the test does not only compare
    // the program with itself: G(27) = 8 is the first 8, G(0) the only zero,
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["max_value"], 8);
    assert_eq!(v["first_max_at"], 27);
    assert_eq!(v["zeros"], 1);
    assert_eq!(v["last_value"], 1); // G(100), row 96 of the table: 4 1 2 8 1
}

#[test]
fn run_json_agrees_with_values_on_a_longer_run() {
    let dawson = common::load("dawsons-chess");
    let out = ok(&[
        "run",
        "0.137",
        "--to",
        "3000",
        "--json",
        "--quiet",
        "--keep-going",
    ]);
    let values = numbers(&ok(&["values", "0.137", "--to", "3000"]));
    assert_eq!(values[..dawson.end()], dawson.expected()[..]);
    check_summary(&out, "0.137", &values);
}

#[test]
fn values_prints_the_kayles_table_exactly() {
    let kayles = common::load("kayles");
    let want: String = kayles.expected()[..101]
        .iter()
        .map(|v| format!("{v}\n"))
        .collect();
    let out = ok(&["values", ".77", "--to", "101"]);
    assert_eq!(out, want);
    assert!(octal(&["values", ".77", "--to", "101"]).stderr.is_empty());
}

#[test]
fn values_from_starts_where_asked() {
    let kayles = common::load("kayles").expected();
    let out = numbers(&ok(&["values", "0.77", "--from", "50", "--to", "101"]));
    assert_eq!(out, kayles[50..101]);
    let out = numbers(&ok(&["values", "0.77", "--from", "100", "--to", "101"]));
    assert_eq!(out, [kayles[100]]);
}

/// Exit code 2, nothing on stdout, one line on stderr that mentions `needle`.
fn refused(args: &[&str], needle: &str) {
    let o = octal(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "octal {args:?}: {err}");
    assert!(
        o.stdout.is_empty(),
        "octal {args:?} printed {:?}",
        stdout(&o)
    );
    assert_eq!(err.lines().count(), 1, "octal {args:?}: {err:?}");
    assert!(err.starts_with("octal: "), "octal {args:?}: {err:?}");
    assert!(
        err.contains(needle),
        "octal {args:?}: {err:?} does not mention {needle:?}"
    );
    assert!(!err.contains("panicked"), "octal {args:?}: {err:?}");
}

#[test]
fn bad_codes_are_refused() {
    for (code, needle) in [
        // 0.8 was refused while codes were octal only; it is hexadecimal
        // now (issue 8: "leave three heaps"), so a non-digit stands in.
        ("0.G", "'G'"),
        ("0.", "no digits"),
        ("abc", "no point"),
        ("xyz", "'x'"),
        ("5.1", "'5'"),
        ("0.6x", "'x'"),
        ("", "empty"),
        ("0.6.6", "more than one point"),
        ("66", "no point"),
    ] {
        refused(&["values", code, "--to", "10"], needle);
        refused(&["run", code, "--to", "10", "--json"], needle);
    }
}

#[test]
fn bad_counts_are_refused() {
    for (to, needle) in [
        ("0", "at least 1"),
        ("-5", "negative"),
        ("abc", "not a count"),
        ("", "not a count"),
        ("1e15", "too large"),
        ("2^64", "too large"),
        ("1e14", "memory"),
    ] {
        refused(&["values", "0.6", "--to", to], needle);
        refused(&["run", "0.6", "--to", to, "--json"], needle);
        refused(&["run", "0.6", "--to", to], needle);
    }
    for (from, to) in [("5", "5"), ("7", "5"), ("0", "0")] {
        refused(&["values", "0.6", "--from", from, "--to", to], "--");
    }
    refused(&["values", "0.6", "--from", "-1", "--to", "5"], "negative");
    refused(&["values", "0.6", "--from", "x", "--to", "5"], "--from");
    refused(&["run", "0.6", "--to", "5", "--threads", "0"], "--threads");
}

#[test]
fn every_engine_is_reachable_from_the_command_line() {
    use clap::ValueEnum;
    let dawson = common::load("dawsons-chess");
    let to = dawson.end().to_string();
    for kind in octal::engine::EngineKind::value_variants() {
        let name = kind.to_possible_value().expect("a visible engine");
        let out = ok(&["values", ".137", "--to", &to, "--engine", name.get_name()]);
        assert_eq!(
            numbers(&out),
            dawson.expected(),
            "--engine {}",
            name.get_name()
        );
        let json = ok(&[
            "run",
            ".137",
            "--to",
            &to,
            "--json",
            "--keep-going",
            "--engine",
            name.get_name(),
        ]);
        check_summary(&json, "0.137", &dawson.expected());
    }
    refused(
        &["values", ".137", "--to", "5", "--engine", "nonsense"],
        "nonsense",
    );
}

#[test]
fn usage_errors_are_one_line_too() {
    refused(&["values", ".137"], "--to");
    refused(&["run", "0.6", "--to", "5", "--bogus"], "--bogus");
    refused(&["run", "0.6", "--to", "5", "--threads", "x"], "--threads");
    refused(&["frob"], "frob");
    // Help and version still work and go to stdout.
    let o = octal(&["--version"]);
    assert!(o.status.success() && stdout(&o).starts_with("octal "));
    let o = octal(&["values", "--help"]);
    assert!(o.status.success() && stdout(&o).contains("--from"));
}

#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command as Std, Stdio};
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("octal"))
        .args(["values", "0.333", "--to", "200000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first, "0\n");
    // The reader is gone now: the writer must not panic.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

/// `plot --help` says what `plot` reads: a code, a store or an exported
/// file (it once said stores and files were "not yet" supported).
#[test]
fn plot_help_names_stores_and_files() {
    let out = octal(&["plot", "--help"]);
    assert!(out.status.success(), "{out:?}");
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(!help.contains("not yet"), "{help}");
    assert!(
        help.contains("store") && help.contains("sequence file"),
        "{help}"
    );
}

#[test]
fn completions_and_manual_page() {
    let commands = [
        "run",
        "resume",
        "values",
        "verify",
        "export",
        "import",
        "plot",
        "compare",
        "family",
        "cookie-cutter",
        "vertex-deletion",
    ];
    let bash = ok(&["completions", "bash"]);
    assert!(
        bash.contains("complete -F _octal"),
        "not a bash completion script"
    );
    for c in commands {
        assert!(bash.contains(c), "bash completion lacks {c}");
    }
    for shell in ["zsh", "fish"] {
        let script = ok(&["completions", shell]);
        assert!(
            script.contains("compare") && script.contains("notation"),
            "{shell}"
        );
    }
    let man = ok(&["man"]);
    assert!(man.contains(".TH octal 1"), "no man header");
    for c in commands {
        // roff writes a hyphen as \-.
        assert!(
            man.contains(&c.replace('-', "\\-")),
            "the manual page lacks {c}"
        );
    }
    let o = octal(&["completions", "tcsh-of-2040"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn every_argument_has_help() {
    // The arguments once shown without a word of help, each with its
    // command; the help gives an argument's text on its line (short form)
    // or below it (long form).
    let cases: [(&[&str], &str); 10] = [
        (&["resume"], "--json"),
        (&["resume"], "--quiet"),
        (&["verify"], "<PATH>"),
        (&["import"], "<FILE>"),
        (&["import"], "--store"),
        (&["export"], "--output"),
        (&["values"], "--from"),
        (&["family", "codes"], "--file"),
        (&["family", "member"], "<DIR>"),
        (&["family", "collect"], "<DIR>"),
    ];
    for (command, arg) in cases {
        let mut args = command.to_vec();
        args.push("--help");
        let help = ok(&args);
        let at = help
            .lines()
            .position(|l| l.trim_start().starts_with(arg) || l.contains(&format!(", {arg}")))
            .unwrap_or_else(|| panic!("{command:?}: no {arg} in\n{help}"));
        // Short help: the text on the argument's line; long help: below.
        let line = help.lines().nth(at).unwrap();
        let after = line[line.find(arg).unwrap() + arg.len()..].trim();
        // Past the value's name (`--store <PATH>`), if any.
        let after = match after.strip_prefix('<') {
            Some(r) => r[r.find('>').map_or(r.len(), |i| i + 1)..].trim(),
            None => after,
        };
        let text = if after
            .split_whitespace()
            .any(|w| w.chars().all(char::is_alphabetic))
        {
            after.trim()
        } else {
            help.lines().nth(at + 1).unwrap_or("").trim()
        };
        assert!(
            !text.is_empty() && !text.starts_with(['-', '<', '[']),
            "{command:?} {arg} has no help:\n{help}"
        );
    }
}
