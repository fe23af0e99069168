//! The Python package: installs `./python` into the virtual environment
//! `scripts/install-python.sh` makes (`target/python-venv`, or
//! `$OCTAL_PYTHON_VENV`) and runs its pytest suite, `python/tests/`, against
//! the `octal` binary this suite built.
//!
//! Without that environment it says so (a `SKIPPED` line past libtest's
//! capture, visible in `cargo test`'s output) and passes, except under CI (`CI`
//! set), where a missing environment is a failure; `.ci/run` makes it.

#[path = "common/skip.rs"]
mod skip;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn venv() -> PathBuf {
    match std::env::var_os("OCTAL_PYTHON_VENV") {
        Some(v) => PathBuf::from(v),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("target/python-venv"),
    }
}

#[test]
fn the_python_package_installs_and_passes_its_tests() {
    let venv = venv();
    let python = venv.join("bin/python");
    let ready = Command::new(&python)
        .args(["-c", "import maturin, numpy, pytest"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ready {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: no Python environment at {} (scripts/install-python.sh makes it)",
            venv.display()
        );
        skip::skipped(
            "the_python_package_installs_and_passes_its_tests",
            &format!("no Python environment at {}", venv.display()),
            "scripts/install-python.sh",
        );
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // maturin must be on PATH for pip's build; the extension gets its own
    // build directory, as the suite's is locked by the running cargo.
    let path = std::env::join_paths(std::iter::once(venv.join("bin")).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH joins");
    let build = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-build");
    let start = Instant::now();
    let install = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-build-isolation",
            "--no-deps",
            "--force-reinstall",
            "./python",
        ])
        .current_dir(root)
        .env("PATH", &path)
        .env("CARGO_TARGET_DIR", &build)
        .output()
        .expect("pip runs");
    assert!(
        install.status.success(),
        "pip install ./python failed:\n{}{}",
        String::from_utf8_lossy(&install.stdout),
        String::from_utf8_lossy(&install.stderr)
    );
    eprintln!(
        "pip install ./python: {:.0} s",
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    let out = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"])
        .current_dir(root.join("python"))
        .env("PATH", &path)
        .env("OCTAL_BIN", env!("CARGO_BIN_EXE_octal"))
        // The crate's version, which the package must report as its own.
        .env("OCTAL_CRATE_VERSION", env!("CARGO_PKG_VERSION"))
        .output()
        .expect("pytest runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "pytest failed:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.contains(" passed") && !last.contains("failed") && !last.contains("skipped"),
        "{text}"
    );
    eprintln!("pytest: {last} ({:.0} s)", start.elapsed().as_secs_f64());
}
