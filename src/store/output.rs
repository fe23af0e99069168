//! Files that octal writes at a path the user named (exports, pictures,
//! b-files, a windowed run's checkpoint and its `--export`), and the
//! temporary files beside them. One set of rules for every writer:
//!
//! * the output is never a file being read (same device and inode, so a
//!   hard or symbolic link to it is caught too), never anything but a
//!   regular file (a device, a directory or a symbolic link is refused,
//!   not written through), never a store or a windowed run's checkpoint,
//!   and an existing file only when the caller allows replacing it
//!   ([`Output::create`]);
//! * the bytes go to a temporary file beside it, made with `O_EXCL` (so
//!   never through a symbolic link, never over anything) under a name with
//!   the process id and a random part, `.NAME.PID.RANDOM.tmp`; once
//!   complete and synced it is renamed into place, or hard-linked when
//!   nothing may be replaced, so that a file that appeared meanwhile is
//!   not lost ([`Output::commit`]);
//! * only files this process made are removed: its own temporaries, and
//!   temporaries named as above whose process is gone
//!   ([`remove_stale_temps`]);
//! * a writer holds an `flock` on `PATH.lock` for as long as it writes
//!   `PATH` ([`PathLock`]), so two writers of one path never both go on:
//!   the second fails at once with [`StoreError::InUse`]. The kernel frees
//!   the lock when its holder dies, even by `kill -9`.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use super::StoreError;

/// The directory holding `path` (`.` for a bare name).
pub fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// `path` with `ext` appended to its name (`x.oseq` → `x.oseq.lock`).
pub fn with_suffix(path: &Path, ext: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(ext);
    PathBuf::from(s)
}

/// `path` made absolute against the current directory (a path recorded in
/// a checkpoint must mean the same file from wherever it is resumed).
pub fn absolute(path: &Path) -> Result<PathBuf, StoreError> {
    std::path::absolute(path).map_err(StoreError::io(path, "making the path absolute"))
}

pub(crate) fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Refuses `out` if it is one of `inputs` (the same file under any name),
/// a symbolic link, anything but a regular file, a file that exists
/// unless `replace`, or one that holds a run's state (a store, a windowed
/// run's checkpoint) in any case.
pub fn check(out: &Path, replace: bool, inputs: &[&Path]) -> Result<(), StoreError> {
    let refuse = |why: &str| StoreError::Output {
        path: out.to_owned(),
        why: why.to_string(),
    };
    if let Ok(a) = fs::metadata(out) {
        for input in inputs {
            if fs::metadata(input).is_ok_and(|b| same_file(&a, &b)) {
                return Err(refuse(&format!(
                    "is {}, which this command reads",
                    input.display()
                )));
            }
        }
    }
    match fs::symlink_metadata(out) {
        Err(_) => Ok(()),
        Ok(m) if m.file_type().is_symlink() => Err(refuse(
            "is a symbolic link, which octal never writes through",
        )),
        Ok(m) if !m.is_file() => Err(refuse("exists and is not a regular file")),
        Ok(_) if !replace => Err(refuse("already exists; add --force to replace it")),
        Ok(_) => match holds_a_run(out) {
            Some(what) => Err(refuse(&format!("is {what}, which octal never replaces"))),
            // A file another process holds locked (a lock file of octal's).
            None if File::open(out).is_ok_and(|f| fs2::FileExt::try_lock_shared(&f).is_err()) => {
                Err(StoreError::InUse(out.to_owned()))
            }
            None => Ok(()),
        },
    }
}

/// What `path` is if it holds a run's state: a store or a windowed run's
/// checkpoint (by its magic).
fn holds_a_run(path: &Path) -> Option<&'static str> {
    let mut head = [0u8; 8];
    let mut f = File::open(path).ok()?;
    io::Read::read_exact(&mut f, &mut head).ok()?;
    if &head == super::MAGIC {
        Some("an octal store")
    } else if &head == super::WINDOW_MAGIC {
        Some("a windowed run's checkpoint")
    } else {
        None
    }
}

/// A new, empty temporary file beside `path`, `.NAME.KINDPID.RANDOM.tmp`,
/// created with `O_EXCL` (mode 0666 less the umask, as a plain create).
/// Dropped, it removes itself. `kind` is empty for a file renamed into
/// place within this process (what [`remove_stale_temps`] removes once
/// the process is gone), else a word and a dot, for one that outlives it
/// (a windowed run's `--export`, taken up again on resume).
pub fn temp_beside(path: &Path, kind: &str) -> Result<NamedTempFile, StoreError> {
    let name = path
        .file_name()
        .map_or("octal".into(), |n| n.to_string_lossy());
    let dir = dir_of(path);
    tempfile::Builder::new()
        .prefix(&format!(".{name}.{kind}{}.", std::process::id()))
        .suffix(".tmp")
        .rand_bytes(8)
        .permissions(fs::Permissions::from_mode(0o666))
        .tempfile_in(&dir)
        .map_err(StoreError::io(path, "creating a temporary file beside"))
}

/// Removes the temporary files beside `path` that writers of it left when
/// they died: names `.NAME.PID.tmp` or `.NAME.PID.RANDOM.tmp` (and
/// `.NAME.WHAT.PID.tmp` of older stores) whose PID is no longer running.
/// Nothing else is touched, and neither symbolic links nor directories.
pub fn remove_stale_temps(path: &Path) {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let prefix = format!(".{name}.");
    let Ok(entries) = fs::read_dir(dir_of(path)) else {
        return;
    };
    for entry in entries.flatten() {
        let n = entry.file_name().to_string_lossy().into_owned();
        let Some(middle) = n.strip_prefix(&prefix).and_then(|r| r.strip_suffix(".tmp")) else {
            continue;
        };
        let pid = match middle.split('.').collect::<Vec<_>>()[..] {
            ["new" | "widen", pid] | [pid] => pid.parse::<i32>().ok(),
            // Only the random part `temp_beside` makes: a user's
            // `.NAME.42.notes.tmp` is not ours.
            [pid, r] if r.len() == 8 && r.bytes().all(|b| b.is_ascii_alphanumeric()) => {
                pid.parse::<i32>().ok()
            }
            _ => None,
        };
        let Some(pid) = pid.filter(|&p| p > 0) else {
            continue;
        };
        if process_alive(pid) {
            continue;
        }
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Removes what dead writers of `path` left: their temporaries
/// ([`remove_stale_temps`]) and an empty `PATH.lock` that no one holds
/// (taken and let go, so one a writer holds now is never removed).
pub fn sweep(path: &Path) {
    remove_stale_temps(path);
    if fs::symlink_metadata(with_suffix(path, ".lock")).is_ok_and(|m| m.is_file()) {
        drop(PathLock::acquire(path));
    }
}

/// Whether process `pid` exists (this one always does).
pub fn process_alive(pid: i32) -> bool {
    // SAFETY: kill(pid, 0) only asks whether the process exists.
    pid == std::process::id() as i32
        || unsafe { libc::kill(pid, 0) } == 0
        || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Syncs the directory holding `path` (so a rename or link in it is
/// durable).
pub fn sync_dir(path: &Path) -> Result<(), StoreError> {
    let dir = dir_of(path);
    File::open(&dir)
        .and_then(|d| d.sync_all())
        .map_err(StoreError::io(&dir, "syncing directory"))
}

/// Puts the complete temporary file `tmp` at `path`: renamed over a
/// regular file there when `replace`, else hard-linked (and the temporary
/// name removed), which fails with [`StoreError::Output`] if anything
/// appeared at `path`. On failure `tmp` stays.
pub fn place(tmp: &Path, path: &Path, replace: bool) -> Result<(), StoreError> {
    if replace {
        fs::rename(tmp, path).map_err(StoreError::io(path, "renaming into place"))?;
    } else {
        fs::hard_link(tmp, path).map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => StoreError::Output {
                path: path.to_owned(),
                why: "appeared while it was being written, and is kept".into(),
            },
            _ => StoreError::io(path, "linking into place")(e),
        })?;
        let _ = fs::remove_file(tmp);
    }
    sync_dir(path)
}

/// A file being written for `path`: a temporary file beside it, locked
/// against other writers of `path`, put in place by [`Output::commit`]
/// and removed if dropped before.
pub struct Output {
    path: PathBuf,
    replace: bool,
    inputs: Vec<PathBuf>,
    tmp: NamedTempFile,
    _lock: PathLock,
}

impl Output {
    /// Starts writing `path` (see [`check`] for what is refused; `inputs`
    /// are the files the command reads). Temporaries of dead writers of
    /// `path` are removed.
    pub fn create(path: &Path, replace: bool, inputs: &[&Path]) -> Result<Output, StoreError> {
        check(path, replace, inputs)?;
        let lock = PathLock::acquire(path)?;
        remove_stale_temps(path);
        let tmp = temp_beside(path, "")?;
        Ok(Output {
            path: path.to_owned(),
            replace,
            inputs: inputs.iter().map(|p| p.to_path_buf()).collect(),
            tmp,
            _lock: lock,
        })
    }

    /// The temporary file to write.
    pub fn file(&mut self) -> &mut File {
        self.tmp.as_file_mut()
    }

    /// Syncs the temporary file and puts it at the path (checked again:
    /// something may have appeared there meanwhile).
    pub fn commit(self) -> Result<(), StoreError> {
        let Output {
            path,
            replace,
            inputs,
            tmp,
            _lock,
        } = self;
        tmp.as_file()
            .sync_all()
            .map_err(StoreError::io(&path, "syncing"))?;
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        check(&path, replace, &inputs)?;
        let mut tmp = tmp.into_temp_path();
        place(&tmp, &path, replace)?;
        tmp.disable_cleanup(true);
        Ok(())
    }
}

/// Writes `bytes` to `path` as an [`Output`] that may replace a regular
/// file there (tables, scripts, results, notation files: the command's
/// own outputs, rewritten on each run).
pub fn write_file(path: &Path, bytes: &[u8], inputs: &[&Path]) -> Result<(), StoreError> {
    use std::io::Write;
    let mut out = Output::create(path, true, inputs)?;
    out.file()
        .write_all(bytes)
        .map_err(StoreError::io(path, "writing"))?;
    out.commit()
}

/// [`write_file`] for callers that report an [`io::Error`] with the path
/// already said.
pub fn write_file_io(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_file(path, bytes, &[]).map_err(|e| match e {
        StoreError::Io { error, .. } => error,
        StoreError::Output { why, .. } => io::Error::other(format!("refusing to write: it {why}")),
        StoreError::InUse(_) => {
            io::Error::new(io::ErrorKind::WouldBlock, "in use by another octal process")
        }
        e => io::Error::other(e.to_string()),
    })
}

/// An `flock` on `PATH.lock`, held by whoever writes `PATH` (a store
/// being created, an export, a windowed run and its `--export`). The lock
/// file is removed when the holder lets go, if this process made it or it
/// is empty (a holder killed earlier leaves an empty one).
pub struct PathLock {
    lock: PathBuf,
    file: File,
    made: bool,
}

fn lock_open(lock: &Path, create: bool) -> io::Result<(File, bool)> {
    let mut o = OpenOptions::new();
    o.read(true).write(true).custom_flags(libc::O_NOFOLLOW);
    if create {
        match o.clone().create_new(true).open(lock) {
            Ok(f) => return Ok((f, true)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    o.open(lock).map(|f| (f, false))
}

impl PathLock {
    /// Takes the lock of `path`, or fails at once with
    /// [`StoreError::InUse`] if another process (or another writer in
    /// this one) holds it.
    pub fn acquire(path: &Path) -> Result<PathLock, StoreError> {
        let lock = with_suffix(path, ".lock");
        // The file is removed by a holder letting go: make sure the one
        // locked is still the one the name gives.
        for _ in 0..10 {
            let (file, made) = lock_open(&lock, true).map_err(|e| {
                if e.kind() == io::ErrorKind::NotFound {
                    // No such directory: say it of the path asked for.
                    StoreError::io(path, "creating")(e)
                } else {
                    StoreError::io(&lock, "creating the lock file")(e)
                }
            })?;
            if !file.metadata().is_ok_and(|m| m.is_file()) {
                return Err(StoreError::io(&lock, "creating the lock file")(
                    io::Error::other("not a regular file"),
                ));
            }
            fs2::FileExt::try_lock_exclusive(&file)
                .map_err(|_| StoreError::InUse(path.to_owned()))?;
            let same = match (file.metadata(), fs::symlink_metadata(&lock)) {
                (Ok(a), Ok(b)) => same_file(&a, &b),
                _ => false,
            };
            if same {
                return Ok(PathLock { lock, file, made });
            }
        }
        Err(StoreError::InUse(path.to_owned()))
    }

    /// Whether another process holds the lock of `path` now.
    pub fn held(path: &Path) -> bool {
        let lock = with_suffix(path, ".lock");
        let Ok((file, _)) = lock_open(&lock, false) else {
            return false;
        };
        fs2::FileExt::try_lock_shared(&file).is_err()
    }
}

impl Drop for PathLock {
    fn drop(&mut self) {
        // Removed while still held, so that no one locks a file that is
        // about to vanish without noticing (see `acquire`).
        let ours = self.made || self.file.metadata().is_ok_and(|m| m.len() == 0);
        let same = match (self.file.metadata(), fs::symlink_metadata(&self.lock)) {
            (Ok(a), Ok(b)) => same_file(&a, &b),
            _ => false,
        };
        if ours && same {
            let _ = fs::remove_file(&self.lock);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_of_a_path_is_refused_and_the_lock_file_goes() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.oseq");
        let a = PathLock::acquire(&out).unwrap();
        assert!(matches!(PathLock::acquire(&out), Err(StoreError::InUse(_))));
        drop(a);
        assert!(!with_suffix(&out, ".lock").exists());
        let _b = PathLock::acquire(&out).unwrap();
    }

    #[test]
    fn a_sweep_takes_a_dead_writers_lock_file_but_not_a_held_one() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
        fs::write(with_suffix(&a, ".lock"), b"").unwrap();
        fs::write(dir.path().join(".a.json.999999999.Ab3xYz12.tmp"), b"x").unwrap();
        let held = PathLock::acquire(&b).unwrap();
        sweep(&a);
        sweep(&b);
        assert!(!with_suffix(&a, ".lock").exists());
        assert!(!dir.path().join(".a.json.999999999.Ab3xYz12.tmp").exists());
        assert!(with_suffix(&b, ".lock").exists());
        drop(held);
    }

    #[test]
    fn stale_temps_of_dead_writers_go_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.oseq");
        let keep = [".x.oseq.notes.tmp", ".x.oseq.1.2.3.tmp", "x.oseq.tmp"];
        let mine = format!(".x.oseq.{}.abc.tmp", std::process::id());
        let stale = [".x.oseq.999999999.tmp", ".x.oseq.999999999.Ab3xYz12.tmp"];
        for n in keep.iter().chain(&stale).chain([&mine.as_str()]) {
            fs::write(dir.path().join(n), b"x").unwrap();
        }
        remove_stale_temps(&out);
        for n in keep.iter().chain([&mine.as_str()]) {
            assert!(dir.path().join(n).exists(), "{n}");
        }
        for n in stale {
            assert!(!dir.path().join(n).exists(), "{n}");
        }
    }
}
