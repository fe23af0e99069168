//! The directory an atlas is written into, and which of its files the
//! atlas owns. `-o SITE` may be a new or empty directory, or a previous
//! atlas: one whose `atlas-manifest.json` lists the files it wrote. Only
//! those are replaced (or removed, when the new atlas has no such page);
//! every other file there is left alone, and a file the new atlas would
//! write over that is not its own is refused. Any other non-empty
//! directory is refused. The manifest is written first, listing what the
//! old atlas owned and what this one will write, so that an atlas
//! stopped half-way is still known as one.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::atlas::error::AtlasError;
use crate::store::output;

/// The file that makes a directory an atlas.
pub const MANIFEST: &str = "atlas-manifest.json";
const FORMAT: &str = "octal-atlas";
const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct Manifest {
    format: String,
    version: u32,
    /// The census it was made from, as given.
    census: String,
    /// Every file of the site, relative to its top.
    files: Vec<String>,
}

/// Whether `rel` is a name the atlas writes: its top files, a class page
/// or a certificate (so that a manifest, whoever wrote it, can never make
/// the atlas replace or remove anything else).
fn owned_name(rel: &str) -> bool {
    let plain = |s: &str| {
        !s.is_empty()
            && !s.starts_with('.')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    };
    match rel.split_once('/') {
        None => matches!(rel, "index.html" | "atlas.css" | "atlas.js"),
        Some(("class", name)) => plain(name) && name.ends_with(".html"),
        Some(("certificates", name)) => plain(name) && name.ends_with(".cert.json"),
        Some(_) => false,
    }
}

/// An atlas' directory, opened for writing.
pub struct Site {
    root: PathBuf,
    census: String,
    /// What the previous atlas there owned.
    old: BTreeSet<String>,
    /// The files the atlas reads (no site file may be one of them).
    inputs: Vec<PathBuf>,
}

impl Site {
    /// Opens `root` for an atlas of the census in `census` (made by
    /// [`begin`](Self::begin) if missing); refuses a link, a file, or a
    /// non-empty directory that is not an atlas.
    pub fn open(root: &Path, census: &Path, inputs: Vec<PathBuf>) -> Result<Site, AtlasError> {
        let refuse = |why: &str| AtlasError::Input {
            path: root.to_owned(),
            why: why.into(),
        };
        let io = |e: std::io::Error| AtlasError::Io {
            path: root.to_owned(),
            error: e,
        };
        let mut old = BTreeSet::new();
        match fs::symlink_metadata(root) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(e)),
            Ok(m) if m.file_type().is_symlink() => return Err(refuse(
                "is a symbolic link; give the directory itself (octal never writes through a link)",
            )),
            Ok(m) if !m.is_dir() => return Err(refuse("exists and is not a directory")),
            Ok(_) => {
                let manifest = root.join(MANIFEST);
                match fs::symlink_metadata(&manifest) {
                    Ok(m) if m.is_file() && m.len() < 64 << 20 => {
                        let text = fs::read(&manifest).map_err(io)?;
                        let m: Manifest = serde_json::from_slice(&text)
                            .ok()
                            .filter(|m: &Manifest| m.format == FORMAT)
                            .ok_or_else(|| {
                                refuse(&format!(
                                    "its {MANIFEST} is not an atlas' (move the directory away or give another)"
                                ))
                            })?;
                        if m.version != VERSION {
                            return Err(refuse(&format!(
                                "holds an atlas of format version {}, and this octal writes version {VERSION}; give another directory",
                                m.version
                            )));
                        }
                        old = m.files.into_iter().filter(|f| owned_name(f)).collect();
                    }
                    Ok(_) => return Err(refuse(&format!("its {MANIFEST} is not a regular file"))),
                    Err(_) => {
                        let mut entries = fs::read_dir(root).map_err(io)?;
                        if entries.next().is_some() {
                            return Err(refuse(
                                "is not empty and holds no atlas (no atlas-manifest.json); give a new or empty directory, or a previous atlas",
                            ));
                        }
                    }
                }
            }
        }
        for sub in ["class", "certificates"] {
            let dir = root.join(sub);
            if fs::symlink_metadata(&dir).is_ok_and(|m| !m.is_dir()) {
                return Err(AtlasError::Input {
                    path: dir,
                    why: "is not a directory (an atlas keeps its pages there)".into(),
                });
            }
        }
        Ok(Site {
            root: root.to_owned(),
            census: census.display().to_string(),
            old,
            inputs,
        })
    }

    /// The path of the site file `rel`.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Records that the atlas is about to write `files` (and still owns
    /// what the old one did), before any of them is written.
    pub fn begin(&self, files: &[String]) -> Result<(), AtlasError> {
        // Made only now: a census refused on the way leaves no directory
        // behind that a second try would take for someone else's.
        for dir in [
            self.root.clone(),
            self.path("class"),
            self.path("certificates"),
        ] {
            fs::create_dir_all(&dir).map_err(|e| AtlasError::Io {
                path: dir,
                error: e,
            })?;
        }
        for f in files {
            debug_assert!(owned_name(f), "{f}");
            let path = self.path(f);
            if !self.old.contains(f) && fs::symlink_metadata(&path).is_ok() {
                return Err(AtlasError::Input {
                    path,
                    why: "is there and not the atlas' own; move it away".into(),
                });
            }
        }
        let all: BTreeSet<String> = self.old.iter().chain(files).cloned().collect();
        self.manifest(all.into_iter().collect())
    }

    fn manifest(&self, files: Vec<String>) -> Result<(), AtlasError> {
        let m = Manifest {
            format: FORMAT.into(),
            version: VERSION,
            census: self.census.clone(),
            files,
        };
        let text = serde_json::to_string_pretty(&m).expect("a manifest serialises") + "\n";
        self.write(MANIFEST, text.as_bytes())
    }

    /// Writes the site file `rel` (replacing the old atlas' file there).
    pub fn write(&self, rel: &str, bytes: &[u8]) -> Result<(), AtlasError> {
        let inputs: Vec<&Path> = self.inputs.iter().map(PathBuf::as_path).collect();
        output::write_file(&self.path(rel), bytes, &inputs).map_err(AtlasError::Store)
    }

    /// Ends the atlas: its manifest lists exactly `files`, and the old
    /// atlas' files that it no longer has are removed.
    pub fn finish(&self, files: &[String]) -> Result<(), AtlasError> {
        self.manifest(files.to_vec())?;
        let new: BTreeSet<&String> = files.iter().collect();
        for f in self.old.iter().filter(|f| !new.contains(f)) {
            let path = self.path(f);
            if fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
                fs::remove_file(&path).map_err(|e| AtlasError::Io { path, error: e })?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_atlas_names_are_owned() {
        for ok in [
            "index.html",
            "atlas.js",
            "class/0.4.html",
            "certificates/0.4.cert.json",
        ] {
            assert!(owned_name(ok), "{ok}");
        }
        for bad in [
            "census.jsonl",
            "../index.html",
            "class/../../x.html",
            "class/.x.html",
            "class/a/b.html",
            "certificates/0.4.json",
            "stores/0.4.octal",
            "/etc/passwd",
            "",
        ] {
            assert!(!owned_name(bad), "{bad}");
        }
    }
}
