//! What the atlas reads of a census directory: the rows of `census.jsonl`
//! as typed [`Row`]s (the census' own [`CodeResult`] and the facts later
//! tools add, each optional), the certificates in `certificates/` and how
//! each was checked (`certificates/checks.jsonl`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::atlas::error::AtlasError;
use crate::census::{CodeResult, Status};
use crate::certificate::CheckRow;
use crate::code::Code;

/// The most bytes a table or a certificate of a census may have: far
/// beyond any real one, so that a wrong path is refused, not read.
const MOST_BYTES: u64 = 256 << 20;

/// One class of a census: its representative's result and what the
/// census and the tools after it say of the class.
#[derive(Debug, Clone, Deserialize)]
pub struct Row {
    #[serde(flatten)]
    pub result: CodeResult,
    /// Each code of the class with its relation to the representative,
    /// `0.07 (G(n) = G_0.4(n+1))`; the representative first.
    #[serde(default)]
    pub members: Vec<String>,
    /// The last heap whose value the period does not give.
    #[serde(default)]
    pub last_exception: Option<u64>,
    #[serde(default)]
    pub literature: Option<Literature>,
    #[serde(default)]
    pub checked: Option<CheckRow>,
}

/// What the literature says of a class.
#[derive(Debug, Clone, Deserialize)]
pub struct Literature {
    /// agrees, new, disagrees, open or unlisted.
    pub label: String,
    /// The table cell's text (sources and evidence).
    #[serde(default)]
    pub text: Option<String>,
}

impl Row {
    /// The representative's code, parsed.
    pub fn code(&self) -> Code {
        self.result.code.parse().expect("checked when read")
    }

    /// The literature's label, `unlisted` when there is none.
    pub fn literature_label(&self) -> &str {
        self.literature
            .as_ref()
            .map_or("unlisted", |l| l.label.as_str())
    }

    /// What the literature says in words (which source, and the evidence
    /// of a disagreement), else the label alone.
    pub fn literature_text(&self) -> &str {
        self.literature
            .as_ref()
            .and_then(|l| l.text.as_deref())
            .unwrap_or_else(|| self.literature_label())
    }

    /// The status word: periodic, open or stopped.
    pub fn status_word(&self) -> &'static str {
        match self.result.status {
            Status::Periodic { .. } => "periodic",
            Status::Open => "open",
            Status::Stopped { .. } => "stopped",
        }
    }

    /// The sparse-space mask: its bits and, when the row says, whether it
    /// uses position parity.
    pub fn mask(&self) -> Option<(u32, Option<bool>)> {
        if let Some(rc) = &self.result.rare_class {
            return Some((rc.bits()?, Some(rc.position_parity)));
        }
        self.result.rare_mask.map(|b| (b, None))
    }

    /// The mask as the index shows it, `0x1ee` (`0x1ee+p` with position
    /// parity).
    pub fn mask_text(&self) -> Option<String> {
        let (bits, pp) = self.mask()?;
        Some(format!(
            "0x{bits:x}{}",
            if pp == Some(true) { "+p" } else { "" }
        ))
    }

    /// The number of rare positions up to the reach.
    pub fn rare_count(&self) -> Option<u64> {
        self.result
            .rare_positions
            .or_else(|| self.result.rare_list.as_ref().map(|l| l.len() as u64))
    }

    /// The last heap the period does not give: the row's, or for a
    /// proven period the one before its preperiod.
    pub fn last_exception(&self) -> Option<u64> {
        self.last_exception
            .or_else(|| self.result.period().and_then(|p| p.last_irregular()))
    }

    /// The codes of the class, the representative first: the first word
    /// of each member (the representative alone when there are none).
    pub fn member_codes(&self) -> Vec<String> {
        let mut codes: Vec<String> = self
            .members
            .iter()
            .filter_map(|m| m.split_whitespace().next())
            .map(|c| c.parse::<Code>().map_or(c.to_string(), |c| c.to_string()))
            .collect();
        if codes.first() != Some(&self.result.code) {
            codes.retain(|c| c != &self.result.code);
            codes.insert(0, self.result.code.clone());
        }
        codes
    }
}

/// A census directory as the atlas reads it.
pub struct Census {
    pub dir: PathBuf,
    /// The census' title, the first line of `census.md` without its `#`.
    pub title: Option<String>,
    pub rows: Vec<Row>,
    /// The certificate file of each code that has one.
    pub certificates: BTreeMap<String, PathBuf>,
    /// The last check of each code's certificate.
    pub checks: BTreeMap<String, CheckRow>,
}

impl Census {
    /// The table files the atlas reads: no site file may be one of them.
    pub fn inputs(&self) -> Vec<PathBuf> {
        let mut v = vec![self.dir.join("census.jsonl"), self.dir.join("census.md")];
        v.extend(self.certificates.values().cloned());
        v.push(self.dir.join("certificates").join("checks.jsonl"));
        v
    }
}

fn input(path: &Path, why: impl std::fmt::Display) -> AtlasError {
    AtlasError::Input {
        path: path.to_owned(),
        why: why.to_string(),
    }
}

/// The text of a regular file, `None` when there is none; a link, a
/// directory or an oversized file is refused.
fn read_text(path: &Path) -> Result<Option<String>, AtlasError> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(input(path, e)),
        Ok(m) if !m.file_type().is_file() => Err(input(path, "not a regular file")),
        Ok(m) if m.len() > MOST_BYTES => Err(input(
            path,
            format_args!("{} bytes: too large for a census table", m.len()),
        )),
        Ok(_) => fs::read_to_string(path)
            .map(Some)
            .map_err(|e| input(path, e)),
    }
}

/// Reads the census in `dir`: its rows (each checked: a code that parses,
/// each class once), its title, certificates and checks.
pub fn read(dir: &Path) -> Result<Census, AtlasError> {
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(input(dir, "not a directory (give a census directory)")),
        Err(_) => return Err(input(dir, "no such directory (give a census directory)")),
    }
    let jsonl = dir.join("census.jsonl");
    let Some(text) = read_text(&jsonl)? else {
        return Err(input(
            dir,
            "not a census directory: it has no census.jsonl (made by octal census --out DIR)",
        ));
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut seen = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: String| AtlasError::Row {
            path: jsonl.clone(),
            line: i + 1,
            why,
        };
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| bad(format!("not a census row: {e}")))?;
        // The first line of a census' JSON lines is its provenance.
        if value.get("census").is_some() && value.get("code").is_none() {
            continue;
        }
        let row: Row =
            serde_json::from_value(value).map_err(|e| bad(format!("not a census row: {e}")))?;
        let code: Code = row.result.code.parse().map_err(|e| bad(format!("{e}")))?;
        if code.to_string() != row.result.code {
            return Err(bad(format!(
                "code {:?} is not spelled as a census spells it ({code})",
                row.result.code
            )));
        }
        if let Some(first) = seen.insert(code.to_string(), i + 1) {
            return Err(bad(format!("class {code} again (first on line {first})")));
        }
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(input(&jsonl, "holds no classes"));
    }
    let title = read_text(&dir.join("census.md"))?.and_then(|t| {
        t.lines()
            .next()
            .map(|l| l.trim_start_matches('#').trim().to_string())
            .filter(|l| !l.is_empty())
    });
    let certs = dir.join("certificates");
    let mut certificates = BTreeMap::new();
    for r in &rows {
        let path = certs.join(format!("{}.cert.json", r.result.code));
        if let Some(text) = read_text(&path)? {
            serde_json::from_str::<serde_json::Value>(&text)
                .map_err(|e| input(&path, format_args!("not a certificate (JSON): {e}")))?;
            certificates.insert(r.result.code.clone(), path);
        }
    }
    let mut checks = BTreeMap::new();
    let read = crate::certificate::read_checks(dir).map_err(|e| input(&certs, e))?;
    for row in read {
        // A code spelled otherwise names the same class.
        let code = row
            .code
            .parse::<Code>()
            .map_or(row.code.clone(), |c| c.to_string());
        checks.insert(code, row);
    }
    Ok(Census {
        dir: dir.to_owned(),
        title,
        rows,
        certificates,
        checks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_reads_with_and_without_the_later_fields() {
        let bare = r#"{"at_powers_of_two":[0,0,1],"code":"0.4","last_rare_at":null,"max_value":9,"members":["0.4","0.07 (G(n) = G_0.4(n+1))","0.137 (by a chain)"],"period":34,"preperiod":54,"proven_at":176,"rare_mask":null,"rare_positions":null,"reach":192,"seconds":0.02,"spellings":["0.4","0.07"],"status":"periodic","target":65536}"#;
        let r: Row = serde_json::from_str(bare).unwrap();
        assert_eq!(r.member_codes(), ["0.4", "0.07", "0.137"]);
        assert_eq!(r.literature_label(), "unlisted");
        assert_eq!(r.last_exception(), Some(53));
        assert!(r.result.rare_list.is_none() && r.checked.is_none() && r.mask().is_none());
        let full = bare.replace(
            r#""reach":192"#,
            r#""reach":192,"rare_list":[[3,1],[9,0]],"last_exception":51,"rare_class":{"mask":"0x1ee","position_parity":true,"parity":0,"rule":"r"},"literature":{"label":"agrees","text":"Winning Ways"},"checked":{"code":"0.4","method":"independent","n":192,"seconds":0.1,"ok":true,"reason":null}"#,
        );
        let r: Row = serde_json::from_str(&full).unwrap();
        assert_eq!(r.result.rare_list.as_deref(), Some(&[(3, 1), (9, 0)][..]));
        assert_eq!(r.last_exception(), Some(51));
        assert_eq!(r.mask(), Some((0x1ee, Some(true))));
        assert_eq!(r.literature_label(), "agrees");
        assert_eq!(r.checked.as_ref().unwrap().n, Some(192));
        assert_eq!(r.rare_count(), Some(2));
    }
}
