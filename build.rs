//! Records the git commit the binary is built from (`OCTAL_COMMIT`, or
//! `unknown` outside a git checkout), for `octal --version` and the
//! provenance of certificates and census tables: marked `-dirty` when the
//! code differs from that commit, so that no table names a commit whose
//! code did not make it.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

fn main() {
    // The code only: data files and docs changed since do not make it.
    const CODE: [&str; 5] = ["src", "kernels", "Cargo.toml", "Cargo.lock", "build.rs"];
    let commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(c) => {
            let mut diff = vec!["diff", "--quiet", "HEAD", "--"];
            diff.extend(CODE);
            let clean = Command::new("git")
                .args(&diff)
                .status()
                .is_ok_and(|s| s.success());
            if clean {
                c
            } else {
                format!("{c}-dirty")
            }
        }
        None => "unknown".into(),
    };
    println!("cargo:rustc-env=OCTAL_COMMIT={commit}");
    // Cargo scans a folder's files: an edit reruns this script.
    for path in CODE {
        println!("cargo:rerun-if-changed={path}");
    }
    // Rebuilt when HEAD moves (a commit, a checkout); inside a worktree
    // git names the right files.
    // Only files that exist: cargo reruns this script on every build while
    // a watched path is missing (a fresh clone has no packed-refs file).
    let watch = |p: String| {
        if std::path::Path::new(&p).exists() {
            println!("cargo:rerun-if-changed={p}");
        }
    };
    for name in ["HEAD", "packed-refs"] {
        if let Some(p) = git(&["rev-parse", "--git-path", name]) {
            watch(p);
        }
    }
    if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(p) = git(&["rev-parse", "--git-path", &r]) {
            // A branch whose ref is packed (after `git gc`) gets its loose
            // file back at the next commit: its folder sees that.
            if let Some(dir) = std::path::Path::new(&p).parent() {
                watch(dir.display().to_string());
            }
            watch(p);
        }
    }
}
