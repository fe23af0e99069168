//! What the atlas reads of a census directory: the rows of `census.jsonl`
//! as typed [`Row`]s (the census' own [`CodeResult`] and the facts later
//! tools add, each optional), the certificates in `certificates/` and how
//! each was checked (`certificates/checks.jsonl`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::AtlasError;
use crate::census::{CodeResult, Status};
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
    /// Every rare position up to the reach, as `[n, G(n)]`.
    #[serde(default)]
    pub rare_list: Option<Vec<(u64, u32)>>,
    /// The last heap whose value the period does not give.
    #[serde(default)]
    pub last_exception: Option<u64>,
    /// The checksum of the values G(0..reach).
    #[serde(default)]
    pub checksum: Option<String>,
    /// The sparse-space mask as text, `0x1ee` or `0x1ee+p` (position
    /// parity).
    #[serde(default, alias = "mask_hex", alias = "rare_mask_text")]
    pub rare_mask_hex: Option<String>,
    #[serde(default)]
    pub literature: Option<Literature>,
    #[serde(default)]
    pub checked: Option<Checked>,
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

/// How a class' claim was checked: `independent` (a method sharing no
/// code with the fast engine) or `engine-only`, up to heap `n`.
#[derive(Debug, Clone, Deserialize)]
pub struct Checked {
    pub method: String,
    #[serde(default)]
    pub n: Option<u64>,
}

/// One line of `certificates/checks.jsonl`: a certificate's check.
#[derive(Debug, Clone, Deserialize)]
pub struct CheckRow {
    pub code: String,
    #[serde(default)]
    pub n: Option<u64>,
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default)]
    pub seconds: Option<f64>,
    #[serde(default)]
    pub ok: Option<bool>,
    #[serde(default)]
    pub reason: Option<String>,
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
            let bits = u32::from_str_radix(rc.mask.trim_start_matches("0x"), 16).ok()?;
            return Some((bits, Some(rc.position_parity)));
        }
        if let Some(text) = &self.rare_mask_hex {
            let t = text.trim().to_ascii_lowercase();
            let (hex, pp) = match t.strip_suffix("+p") {
                Some(h) => (h.to_string(), true),
                None => (t.clone(), false),
            };
            let hex = hex.strip_prefix("0x").unwrap_or(&hex);
            if let Ok(bits) = u32::from_str_radix(hex, 16) {
                return Some((bits, Some(pp)));
            }
        }
        self.result.rare_mask.map(|b| (b, None))
    }

    /// The mask as the index shows it, `0x1ee`.
    pub fn mask_text(&self) -> Option<String> {
        self.rare_mask_hex
            .clone()
            .or_else(|| self.result.rare_mask.map(|b| format!("0x{b:x}")))
    }

    /// The number of rare positions up to the reach.
    pub fn rare_count(&self) -> Option<u64> {
        self.result
            .rare_positions
            .or_else(|| self.rare_list.as_ref().map(|l| l.len() as u64))
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
    let checks_path = certs.join("checks.jsonl");
    if let Some(text) = read_text(&checks_path)? {
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let row: CheckRow = serde_json::from_str(line).map_err(|e| AtlasError::Row {
                path: checks_path.clone(),
                line: i + 1,
                why: format!("not a check row: {e}"),
            })?;
            // A code spelled otherwise names the same class.
            let code = row
                .code
                .parse::<Code>()
                .map_or(row.code.clone(), |c| c.to_string());
            checks.insert(code, row);
        }
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
        assert!(r.rare_list.is_none() && r.checked.is_none() && r.mask().is_none());
        let full = bare.replace(
            r#""reach":192"#,
            r#""reach":192,"rare_list":[[3,1],[9,0]],"last_exception":51,"rare_mask_hex":"0x1ee+p","literature":{"label":"agrees","text":"Winning Ways"},"checked":{"method":"independent","n":192}"#,
        );
        let r: Row = serde_json::from_str(&full).unwrap();
        assert_eq!(r.rare_list.as_deref(), Some(&[(3, 1), (9, 0)][..]));
        assert_eq!(r.last_exception(), Some(51));
        assert_eq!(r.mask(), Some((0x1ee, Some(true))));
        assert_eq!(r.literature_label(), "agrees");
        assert_eq!(r.checked.as_ref().unwrap().n, Some(192));
        assert_eq!(r.rare_count(), Some(2));
    }
}
