//! Families on a Slurm cluster: a job-array script and a manifest, one
//! array task per member, and the collection of their results.
//!
//! The engine does not schedule anything itself. `octal family … --slurm
//! DIR` writes `DIR/manifest.json` (what each array index computes) and
//! `DIR/family.sbatch`; array task i runs `octal family member DIR --index
//! i`, which writes `DIR/results/i.json` when the member is done. A task
//! that is pre-empted or requeued gets SIGTERM, checkpoints and exits; run
//! again, it resumes from its checkpoint. `octal family collect DIR` turns
//! the results into the same tables a local family run writes.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::code::Code;
use crate::family::{Member, Row};

const MANIFEST_VERSION: u32 = 1;

#[derive(Debug, Error)]
pub enum SlurmError {
    #[error("cannot write {path}: {error}")]
    Write { path: String, error: std::io::Error },
    #[error("cannot read {path}: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("{path} is not an octal family manifest: {message}")]
    BadManifest { path: String, message: String },
    #[error("{path}: {message}; run its task again (octal family member DIR --index I)")]
    BadResult { path: String, message: String },
    #[error("member index {index} is out of range: the family has {len} members")]
    NoSuchMember { index: usize, len: usize },
    #[error("{0} already holds a family manifest; use another directory or remove it")]
    Exists(String),
    /// `results/`, `stores/` or `logs/` of a directory that is a link or
    /// another file: never followed, so nothing lands elsewhere.
    #[error("{0}: not a directory (a symbolic link or another file); octal keeps its own results, stores and logs there: move it away")]
    NotADirectory(String),
    #[error("--time {0:?}: give a Slurm time limit in digits: MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, DAYS-HOURS, DAYS-HOURS:MINUTES or DAYS-HOURS:MINUTES:SECONDS")]
    BadTime(String),
    #[error("--mem {0:?}: give a Slurm memory size in digits with an optional unit K, M, G or T (e.g. 2G)")]
    BadMem(String),
    /// A value that cannot be written into the job script safely.
    #[error("{what} {value:?} cannot go into a Slurm script: {why}")]
    Unsafe {
        what: &'static str,
        value: String,
        why: &'static str,
    },
}

impl SlurmError {
    /// Whether the error is in what the user gave (exit 2).
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            SlurmError::BadTime(_)
                | SlurmError::BadMem(_)
                | SlurmError::Unsafe { .. }
                | SlurmError::BadResult { .. }
                | SlurmError::BadManifest { .. }
                | SlurmError::NotADirectory(_)
        )
    }
}

/// Checks a task's time limit against Slurm's formats, digits only:
/// `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M` or `D-H:M:S`.
pub fn check_time(s: &str) -> Result<(), SlurmError> {
    let digits = |t: &str| !t.is_empty() && t.len() <= 9 && t.bytes().all(|b| b.is_ascii_digit());
    let ok = match s.split_once('-') {
        Some((days, rest)) => {
            digits(days)
                && (1..=3).contains(&rest.split(':').count())
                && rest.split(':').all(digits)
        }
        None => (1..=3).contains(&s.split(':').count()) && s.split(':').all(digits),
    };
    if ok {
        Ok(())
    } else {
        Err(SlurmError::BadTime(s.to_string()))
    }
}

/// Checks a task's memory: digits and an optional unit (K, M, G, T).
pub fn check_mem(s: &str) -> Result<(), SlurmError> {
    let n = s
        .strip_suffix(['K', 'M', 'G', 'T', 'k', 'm', 'g', 't'])
        .unwrap_or(s);
    if !n.is_empty() && n.len() <= 12 && n.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(SlurmError::BadMem(s.to_string()))
    }
}

/// One array task's member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestMember {
    pub index: usize,
    pub k: Option<u64>,
    pub code: String,
}

/// What a family on the cluster computes; written once, read by every task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    pub name: String,
    pub to: u64,
    /// Members go on to `to` even once their period is proven.
    #[serde(default)]
    pub keep_going: bool,
    /// How each member computes, and what a task asks of Slurm.
    #[serde(default)]
    pub run: TaskSpec,
    pub members: Vec<ManifestMember>,
}

/// How a member computes (`--engine`, `--mask`, `--threads`) and the
/// resources its array task asks for (`--time`, `--mem`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TaskSpec {
    /// `sparse` or `reference`.
    pub engine: String,
    /// As `--mask` takes it: `auto`, `none`, `0x1ee`, `0x1ee+p`.
    pub mask: String,
    /// Threads a member runs on; the task asks for as many CPUs.
    pub threads: usize,
    /// The task's time limit, as Slurm writes it (`1-00:00:00`).
    pub time: String,
    /// The task's memory, as Slurm writes it (`2G`); empty: an estimate.
    pub mem: String,
    /// Members run in a window of these sizes (`--window`), not a store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<crate::window::Sizes>,
}

impl Default for TaskSpec {
    fn default() -> Self {
        TaskSpec {
            engine: "sparse".into(),
            mask: "auto".into(),
            threads: 1,
            time: "1-00:00:00".into(),
            mem: String::new(),
            window: None,
        }
    }
}

/// Memory a member of `to` values needs: the values at 2 bytes each
/// (mapped from its store; in a window, the window and the prefix), plus
/// 256 MiB for the engine and the period detector, in MiB rounded up, as
/// Slurm's `--mem` takes it.
pub fn mem_estimate(to: u64, window: Option<crate::window::Sizes>) -> String {
    let values = window.map_or(to, |w| (w.window + w.prefix).min(to));
    let mib = (2 * values).div_ceil(1 << 20) + 256;
    format!("{mib}M")
}

impl Manifest {
    pub fn new(
        name: &str,
        to: u64,
        keep_going: bool,
        run: TaskSpec,
        members: &[Member],
    ) -> Manifest {
        Manifest {
            format: "octal-family".into(),
            version: MANIFEST_VERSION,
            name: name.into(),
            to,
            keep_going,
            run,
            members: members
                .iter()
                .enumerate()
                .map(|(index, m)| ManifestMember {
                    index,
                    k: m.k,
                    code: m.code.to_string(),
                })
                .collect(),
        }
    }

    /// The member at `index`, ready to run.
    pub fn member(&self, index: usize) -> Result<Member, SlurmError> {
        let m = self.members.get(index).ok_or(SlurmError::NoSuchMember {
            index,
            len: self.members.len(),
        })?;
        let code: Code =
            m.code
                .parse()
                .map_err(|e: crate::code::CodeError| SlurmError::BadManifest {
                    path: format!("member {index}"),
                    message: e.to_string(),
                })?;
        Ok(Member { k: m.k, code })
    }

    pub fn path(dir: &Path) -> PathBuf {
        dir.join("manifest.json")
    }

    pub fn load(dir: &Path) -> Result<Manifest, SlurmError> {
        let path = Manifest::path(dir);
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).map_err(|source| SlurmError::Read {
            path: name.clone(),
            error: source,
        })?;
        let bad = |message: String| SlurmError::BadManifest {
            path: name.clone(),
            message,
        };
        let mut value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        let fnv = value.as_object_mut().and_then(|o| o.remove("fnv"));
        let m: Manifest = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
        if m.format != "octal-family" || m.version != MANIFEST_VERSION {
            return Err(bad(format!("format {:?} version {}", m.format, m.version)));
        }
        match fnv {
            None => {
                return Err(bad(
                    "written without a checksum (by an older octal); prepare the job array again"
                        .into(),
                ))
            }
            Some(f) if f.as_str() != Some(m.digest().as_str()) => {
                return Err(bad("its checksum does not match its contents".into()))
            }
            Some(_) => {}
        }
        check_subdirs(dir)?;
        Ok(m)
    }

    /// A checksum of the manifest, kept in its file (`"fnv"`) so that a
    /// manifest changed by hand is refused.
    fn digest(&self) -> String {
        crate::stats::Checksum::of_json(self)
    }

    /// The manifest's file: its fields and its checksum.
    fn to_json(&self) -> String {
        let mut value = serde_json::to_value(self).expect("manifest serialises");
        if let Some(o) = value.as_object_mut() {
            o.insert("fnv".into(), self.digest().into());
        }
        serde_json::to_string_pretty(&value).expect("manifest serialises") + "\n"
    }
}

/// Refuses a `results/`, `stores/` or `logs/` of `dir` that exists and is
/// not a real directory (a symbolic link to one is never followed).
pub fn check_subdirs(dir: &Path) -> Result<(), SlurmError> {
    for sub in ["logs", "results", "stores"] {
        let p = dir.join(sub);
        if std::fs::symlink_metadata(&p).is_ok_and(|m| !m.file_type().is_dir()) {
            return Err(SlurmError::NotADirectory(p.display().to_string()));
        }
    }
    Ok(())
}

/// Where member `index` keeps its store and its result.
pub fn store_path(dir: &Path, index: usize) -> PathBuf {
    dir.join("stores").join(format!("{index}.octal"))
}

pub fn result_path(dir: &Path, index: usize) -> PathBuf {
    dir.join("results").join(format!("{index}.json"))
}

fn write_file(path: &Path, text: &str) -> Result<(), SlurmError> {
    let err = |source| SlurmError::Write {
        path: path.display().to_string(),
        error: source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(err)?;
    }
    // Written beside, then renamed: a reader never sees half a file.
    crate::store::output::write_file_io(path, text.as_bytes()).map_err(err)
}

/// The job-array script for a family in `dir`, running `octal` at `exe`.
///
/// Every value from outside goes in checked: the time and memory against
/// Slurm's formats, the job name as a safe word, the paths in quotes (for
/// bash on the `exec` line, for sbatch's own parser on the `#SBATCH` line),
/// and a path that no quoting keeps on its line (a newline or another
/// control character) or that sbatch would rewrite is refused.
pub fn sbatch_script(manifest: &Manifest, dir: &Path, exe: &Path) -> Result<String, SlurmError> {
    let last = manifest.members.len().saturating_sub(1);
    let run = &manifest.run;
    check_time(&run.time)?;
    let mem = if run.mem.is_empty() {
        mem_estimate(manifest.to, run.window)
    } else {
        check_mem(&run.mem)?;
        run.mem.clone()
    };
    let dir_s = script_path("the family directory", dir)?;
    let exe_s = script_path("the octal binary", exe)?;
    let logs = directive_path("the family directory", &dir_s)?;
    let q = |p: &Path| shell_quote(&p.display().to_string());
    Ok(format!(
        "#!/bin/bash\n\
         # Written by `octal family --slurm`: array task i computes member i of\n\
         # {manifest} and writes results/i.json. Submit with: sbatch {script}\n\
         #SBATCH --job-name=octal-{name}\n\
         #SBATCH --array=0-{last}\n\
         #SBATCH --ntasks=1\n\
         #SBATCH --cpus-per-task={threads}\n\
         #SBATCH --time={time}\n\
         #SBATCH --mem={mem}\n\
         #SBATCH --requeue\n\
         #SBATCH --open-mode=append\n\
         #SBATCH --output=\"{logs}/logs/%A_%a.out\"\n\
         # Slurm sends SIGTERM on pre-emption, requeue and time-out: octal\n\
         # checkpoints and exits, and the requeued task resumes.\n\
         exec {exe} family member {dir} --index \"$SLURM_ARRAY_TASK_ID\" --quiet\n",
        manifest = q(&Manifest::path(dir)),
        script = q(&dir.join("family.sbatch")),
        name = job_name(&manifest.name),
        threads = run.threads.max(1),
        time = run.time,
        exe = shell_quote(&exe_s),
        dir = shell_quote(&dir_s),
    ))
}

/// `s` as one bash word: as it is when every character is safe unquoted,
/// else in single quotes (a `'` written `'\''`).
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The job's name as one word of safe characters (others become `_`).
fn job_name(name: &str) -> String {
    name.chars()
        .take(64)
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '_' | '-' | '+' | ',' => c,
            _ => '_',
        })
        .collect()
}

/// `path` as text that a script can hold on one line.
fn script_path(what: &'static str, path: &Path) -> Result<String, SlurmError> {
    let unsafe_path = |why| SlurmError::Unsafe {
        what,
        value: path.display().to_string(),
        why,
    };
    let s = path
        .to_str()
        .ok_or_else(|| unsafe_path("it is not UTF-8"))?;
    if s.chars().any(char::is_control) {
        return Err(unsafe_path(
            "it holds a newline or another control character",
        ));
    }
    Ok(s.to_string())
}

/// `path` inside double quotes on an `#SBATCH` line. sbatch reads those
/// lines itself: a backslash escapes the next character even in quotes,
/// `%` starts a file-name pattern, and the words `hetjob` and `packjob`
/// are blanked out; such paths are refused, and `"` is escaped.
fn directive_path(what: &'static str, path: &str) -> Result<String, SlurmError> {
    let unsafe_path = |why| SlurmError::Unsafe {
        what,
        value: path.to_string(),
        why,
    };
    if path.contains(['\\', '%']) {
        return Err(unsafe_path(
            "sbatch reads a backslash or % in its log file's name as a pattern",
        ));
    }
    let lower = path.to_lowercase();
    if lower.contains("hetjob") || lower.contains("packjob") {
        return Err(unsafe_path(
            "sbatch blanks out the words hetjob and packjob in #SBATCH lines",
        ));
    }
    Ok(path.replace('"', "\\\""))
}

/// Writes the manifest, the script and the folders tasks need into `dir`.
///
/// The script names `dir` absolute, so that it can be submitted from
/// anywhere; it is made (and a value refused) before anything is written.
pub fn prepare(manifest: &Manifest, dir: &Path, exe: &Path) -> Result<PathBuf, SlurmError> {
    let dir = &std::path::absolute(dir).map_err(|source| SlurmError::Write {
        path: dir.display().to_string(),
        error: source,
    })?;
    let body = sbatch_script(manifest, dir, exe)?;
    if Manifest::path(dir).exists() {
        return Err(SlurmError::Exists(dir.display().to_string()));
    }
    check_subdirs(dir)?;
    for sub in ["logs", "results", "stores"] {
        let p = dir.join(sub);
        std::fs::create_dir_all(&p).map_err(|source| SlurmError::Write {
            path: p.display().to_string(),
            error: source,
        })?;
    }
    write_file(&Manifest::path(dir), &manifest.to_json())?;
    let script = dir.join("family.sbatch");
    write_file(&script, &body)?;
    Ok(script)
}

/// A finished member's result file: its row and a checksum of the row.
#[derive(Serialize, Deserialize)]
struct Saved {
    row: Row,
    fnv: String,
}

fn row_digest(row: &Row) -> String {
    crate::stats::Checksum::of_json(row)
}

/// Saves a finished member's row.
pub fn save_result(dir: &Path, index: usize, row: &Row) -> Result<(), SlurmError> {
    let saved = Saved {
        row: row.clone(),
        fnv: row_digest(row),
    };
    let text = serde_json::to_string(&saved).expect("rows serialise");
    write_file(&result_path(dir, index), &(text + "\n"))
}

/// The most a result file holds (a row is a few hundred bytes).
const RESULT_BYTES: u64 = 1 << 20;

/// Member `m`'s row from its result file's `text`, checked.
fn saved_row(text: &str, m: &ManifestMember) -> Result<Row, String> {
    let saved: Saved =
        serde_json::from_str(text).map_err(|e| match serde_json::from_str::<Row>(text) {
            Ok(_) => "written without a checksum (by an older octal)".to_string(),
            Err(_) => format!("not a member's result ({e})"),
        })?;
    if row_digest(&saved.row) != saved.fnv {
        return Err("its checksum does not match its contents".into());
    }
    let row = saved.row;
    if row.index != m.index || row.code != m.code {
        return Err(format!(
            "it holds the result of member {} ({}), not of member {} ({})",
            row.index, row.code, m.index, m.code
        ));
    }
    Ok(row)
}

/// The rows of every finished member, in order, and the indices of the
/// members with no result yet.
pub fn collect(dir: &Path) -> Result<(Manifest, Vec<Row>, Vec<usize>), SlurmError> {
    let manifest = Manifest::load(dir)?;
    let mut rows = Vec::new();
    let mut unfinished = Vec::new();
    for m in &manifest.members {
        let path = result_path(dir, m.index);
        let bad = |message: String| SlurmError::BadResult {
            path: path.display().to_string(),
            message,
        };
        // Never follow a link or read a device.
        let read = std::fs::symlink_metadata(&path).and_then(|meta| {
            if meta.file_type().is_file() && meta.len() <= RESULT_BYTES {
                std::fs::read_to_string(&path)
            } else {
                Err(std::io::Error::other(
                    "not a regular file of a result's size",
                ))
            }
        });
        match read {
            Ok(text) => rows.push(saved_row(&text, m).map_err(bad)?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => unfinished.push(m.index),
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Err(bad(format!("not a member's result ({e})")))
            }
            Err(source) => {
                return Err(SlurmError::Read {
                    path: path.display().to_string(),
                    error: source,
                })
            }
        }
    }
    Ok((manifest, rows, unfinished))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::family::cookie_cutter;

    #[test]
    fn manifest_round_trip_and_script() {
        let dir = std::env::temp_dir().join(format!("octal-slurm-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let members = cookie_cutter(&[1, 2, 3]);
        let m = Manifest::new("cookie-cutter", 1000, false, TaskSpec::default(), &members);
        let script = prepare(&m, &dir, Path::new("/opt/octal bin/octal")).unwrap();
        assert_eq!(Manifest::load(&dir).unwrap(), m);
        assert_eq!(m.member(2).unwrap(), members[2]);
        assert!(matches!(
            m.member(3),
            Err(SlurmError::NoSuchMember { index: 3, len: 3 })
        ));
        let text = std::fs::read_to_string(script).unwrap();
        assert!(text.contains("#SBATCH --array=0-2\n"), "{text}");
        assert!(
            text.contains("exec '/opt/octal bin/octal' family member"),
            "{text}"
        );
        assert!(matches!(
            prepare(&m, &dir, Path::new("x")),
            Err(SlurmError::Exists(_))
        ));
        let (_, rows, unfinished) = collect(&dir).unwrap();
        assert!(rows.is_empty());
        assert_eq!(unfinished, [0, 1, 2]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A result whose seconds do not survive a float parser that is not
    /// exact (serde_json's default: 7.9339945190000005 read back as
    /// 7.933994519, seen on a requeued task) is read back as saved.
    #[test]
    fn a_saved_row_reads_back_whatever_its_seconds() {
        let m = ManifestMember {
            index: 5,
            k: Some(6),
            code: "0.333337".into(),
        };
        for seconds in [7.933_994_519_000_000_5, 0.1 + 0.2, 1e-7 / 3.0, 2.0] {
            let row = Row {
                index: 5,
                k: Some(6),
                code: "0.333337".into(),
                values: 500_000,
                period: None,
                preperiod: None,
                max_value: 3179,
                rare_positions: None,
                seconds,
                error: None,
            };
            let saved = Saved {
                row: row.clone(),
                fnv: row_digest(&row),
            };
            let text = serde_json::to_string(&saved).unwrap();
            assert_eq!(saved_row(&text, &m), Ok(row), "{text}");
        }
    }
}
