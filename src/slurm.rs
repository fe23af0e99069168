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
    #[error("member index {index} is out of range: the family has {len} members")]
    NoSuchMember { index: usize, len: usize },
    #[error("{0} already holds a family manifest; use another directory or remove it")]
    Exists(String),
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
        let m: Manifest = serde_json::from_str(&text).map_err(|e| SlurmError::BadManifest {
            path: name.clone(),
            message: e.to_string(),
        })?;
        if m.format != "octal-family" || m.version != MANIFEST_VERSION {
            return Err(SlurmError::BadManifest {
                path: name,
                message: format!("format {:?} version {}", m.format, m.version),
            });
        }
        Ok(m)
    }
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
pub fn sbatch_script(manifest: &Manifest, dir: &Path, exe: &Path) -> String {
    let last = manifest.members.len().saturating_sub(1);
    let q = |p: &Path| shell_quote(&p.display().to_string());
    format!(
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
         #SBATCH --output={logs}/%A_%a.out\n\
         # Slurm sends SIGTERM on pre-emption, requeue and time-out: octal\n\
         # checkpoints and exits, and the requeued task resumes.\n\
         exec {exe} family member {dir} --index \"$SLURM_ARRAY_TASK_ID\" --quiet\n",
        manifest = Manifest::path(dir).display(),
        script = dir.join("family.sbatch").display(),
        name = manifest.name,
        threads = manifest.run.threads.max(1),
        time = manifest.run.time,
        mem = if manifest.run.mem.is_empty() {
            mem_estimate(manifest.to, manifest.run.window)
        } else {
            manifest.run.mem.clone()
        },
        logs = dir.join("logs").display(),
        exe = q(exe),
        dir = q(dir),
    )
}

fn shell_quote(s: &str) -> String {
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Writes the manifest, the script and the folders tasks need into `dir`.
pub fn prepare(manifest: &Manifest, dir: &Path, exe: &Path) -> Result<PathBuf, SlurmError> {
    if Manifest::path(dir).exists() {
        return Err(SlurmError::Exists(dir.display().to_string()));
    }
    for sub in ["logs", "results", "stores"] {
        let p = dir.join(sub);
        std::fs::create_dir_all(&p).map_err(|source| SlurmError::Write {
            path: p.display().to_string(),
            error: source,
        })?;
    }
    let text = serde_json::to_string_pretty(manifest).expect("manifest serialises");
    write_file(&Manifest::path(dir), &(text + "\n"))?;
    let script = dir.join("family.sbatch");
    write_file(&script, &sbatch_script(manifest, dir, exe))?;
    Ok(script)
}

/// Saves a finished member's row.
pub fn save_result(dir: &Path, index: usize, row: &Row) -> Result<(), SlurmError> {
    let text = serde_json::to_string(row).expect("rows serialise");
    write_file(&result_path(dir, index), &(text + "\n"))
}

/// The rows of every finished member, in order, and the indices of the
/// members with no result yet.
pub fn collect(dir: &Path) -> Result<(Manifest, Vec<Row>, Vec<usize>), SlurmError> {
    let manifest = Manifest::load(dir)?;
    let mut rows = Vec::new();
    let mut unfinished = Vec::new();
    for m in &manifest.members {
        let path = result_path(dir, m.index);
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let row: Row =
                    serde_json::from_str(&text).map_err(|e| SlurmError::BadManifest {
                        path: path.display().to_string(),
                        message: e.to_string(),
                    })?;
                rows.push(row);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => unfinished.push(m.index),
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
}
