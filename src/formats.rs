//! The text formats sequences are exchanged in: one value a line (what
//! `octal values` prints), OEIS b-files and CSV; and b-files read back.
//!
//! A b-file has one line `n a(n)` per term, in ASCII, each line ending in a
//! newline, after `#` comment lines ([`bfile_header`]: the game and the
//! command that wrote it). Here a(n) = G(n − shift) (the index shift is 0
//! unless an entry is stated as, say, a(n) = G(n − 2)), and the `offset` is
//! the first n written: OEIS entries use both 0 (Kayles A002186, Dawson's
//! chess A002187, Grundy's game A002188) and 1 (most A0714xx entries).
//! Programs default to the first value given, so that nothing is dropped
//! unasked. CSV has a header line `n,value` and one row `n,G(n)` a value.
//!
//! Values are written from slices, in as many pieces as the caller likes
//! ([`ValueWriter`]), so a store or an exported file streams out without
//! being held in memory; [`output`] opens a path for writing, `-` meaning
//! standard output.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, Write};
use std::path::Path;
use std::str::FromStr;

use octal_kernels::Value;
use thiserror::Error;

use crate::seq::SeqRef;

/// How values are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// G(n) alone, one a line.
    #[default]
    Plain,
    /// OEIS b-file lines `n G(n)`, from n = offset on.
    BFile,
    /// A header `n,value`, then rows `n,G(n)`.
    Csv,
}

impl Format {
    /// The names [`FromStr`] accepts, for help texts.
    pub const NAMES: [&'static str; 3] = ["plain", "bfile", "csv"];
}

impl FromStr for Format {
    type Err = FormatError;

    fn from_str(s: &str) -> Result<Format, FormatError> {
        match s.to_ascii_lowercase().as_str() {
            "plain" | "lines" => Ok(Format::Plain),
            "bfile" | "b-file" => Ok(Format::BFile),
            "csv" => Ok(Format::Csv),
            _ => Err(FormatError(s.to_string())),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Plain => "plain",
            Format::BFile => "bfile",
            Format::Csv => "csv",
        })
    }
}

/// A format name that is none of [`Format::NAMES`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown format {0:?} (expected plain, bfile or csv)")]
pub struct FormatError(pub String);

/// Bytes gathered before they go to the writer.
const BUFFER: usize = 1 << 16;

/// Writes values in one [`Format`], piece by piece: the first piece given
/// to [`write`](ValueWriter::write) is G(start), G(start+1), …, and each
/// further piece goes on where the last one ended.
pub struct ValueWriter<W: Write> {
    out: W,
    format: Format,
    /// The n of the next value given.
    next: u64,
    /// b-files: terms a(n) with n below this are not written.
    offset: u64,
    /// b-files: G(n) is the term a(n + shift).
    shift: i64,
    buf: Vec<u8>,
}

impl<W: Write> ValueWriter<W> {
    /// A writer of G(start), … in `format` to `out`; for a b-file, values
    /// G(n) with n < `offset` are skipped (other formats ignore `offset`).
    /// A CSV header goes out with the first write or at
    /// [`finish`](ValueWriter::finish).
    pub fn new(out: W, format: Format, start: u64, offset: u64) -> ValueWriter<W> {
        let mut buf = Vec::with_capacity(BUFFER + 64);
        if format == Format::Csv {
            buf.extend_from_slice(b"n,value\n");
        }
        ValueWriter {
            out,
            format,
            next: start,
            offset,
            shift: 0,
            buf,
        }
    }

    /// For a b-file: G(n) is written as the term a(n + `shift`) (terms
    /// below the offset still left out), after the `#` lines `header`.
    pub fn bfile(mut self, shift: i64, header: &str) -> ValueWriter<W> {
        self.shift = shift;
        if self.format == Format::BFile {
            self.buf.extend_from_slice(header.as_bytes());
        }
        self
    }

    /// As [`new`](ValueWriter::new), for the rest of a text another writer
    /// began: no CSV header.
    pub fn continuing(out: W, format: Format, start: u64, offset: u64) -> ValueWriter<W> {
        let mut w = ValueWriter::new(out, format, start, offset);
        w.buf.clear();
        w
    }

    /// The n of the next value to be given.
    pub fn next_index(&self) -> u64 {
        self.next
    }

    /// Writes the next `values.len()` values.
    pub fn write<V: Value>(&mut self, values: &[V]) -> io::Result<()> {
        // G(n) with n + shift < offset are not written.
        let skip = match self.format {
            Format::BFile => (self.offset as i128 - self.shift as i128 - self.next as i128)
                .clamp(0, values.len() as i128),
            _ => 0,
        } as usize;
        for (n, v) in (self.next + skip as u64..).zip(&values[skip..]) {
            match self.format {
                Format::Plain => {}
                Format::BFile => {
                    push_decimal(&mut self.buf, n.wrapping_add_signed(self.shift));
                    self.buf.push(b' ');
                }
                Format::Csv => {
                    push_decimal(&mut self.buf, n);
                    self.buf.push(b',');
                }
            }
            push_decimal(&mut self.buf, v.get() as u64);
            self.buf.push(b'\n');
            if self.buf.len() >= BUFFER {
                self.out.write_all(&self.buf)?;
                self.buf.clear();
            }
        }
        self.next += values.len() as u64;
        Ok(())
    }

    /// Writes values borrowed from memory or from a store's map.
    pub fn write_seq(&mut self, values: SeqRef<'_>) -> io::Result<()> {
        match values {
            SeqRef::U16(v) => self.write(v),
            SeqRef::U32(v) => self.write(v),
        }
    }

    /// Writes what is buffered, flushes, and hands the writer back.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Writes G(start), …, G(start + values.len() − 1) to `out` in `format`
/// (see [`ValueWriter::new`] for `offset`) and flushes.
pub fn write_values<W: Write, V: Value>(
    out: W,
    format: Format,
    values: &[V],
    start: u64,
    offset: u64,
) -> io::Result<W> {
    let mut w = ValueWriter::new(out, format, start, offset);
    w.write(values)?;
    w.finish()
}

/// The first term a b-file of G(first), … has: a(first + shift), or
/// a(`offset`) when that is later (terms before it are left out); None
/// when the values cannot give it (a(n) with n < 0).
pub fn first_term(first: u64, offset: Option<u64>, shift: i64) -> Option<u64> {
    let start = u64::try_from(first as i128 + shift as i128).ok();
    match (offset, start) {
        (Some(o), Some(s)) => Some(o.max(s)),
        (Some(o), None) => Some(o),
        (None, s) => s,
    }
}

/// The `#` lines (ASCII) that open a b-file of G(first), … of `game` (a
/// code, or a description such as "the values given"), written by
/// `command`; and,
/// when the values given start past the `offset` asked for, a note saying
/// where the terms start instead (the OEIS takes the first line's n for
/// the offset), for the program to show too.
pub fn bfile_header(
    game: &str,
    first: u64,
    offset: Option<u64>,
    shift: i64,
    command: &str,
) -> (String, Option<String>) {
    let g = match shift {
        0 => "G(n)".to_string(),
        s if s > 0 => format!("G(n - {s})"),
        s => format!("G(n + {})", s.unsigned_abs()),
    };
    let at = first_term(first, offset, shift).unwrap_or(0);
    let mut text = format!("# a(n) = {g} of {game}, from a({at}) on (offset {at})\n");
    let note = offset.filter(|&o| o < at).map(|o| {
        format!("the terms start at a({at}), not at the offset {o} asked for: the values given start at G({first})")
    });
    if let Some(note) = &note {
        text += &format!("# note: {note}\n");
    }
    text += &format!(
        "# written by octal {}: {command}\n",
        env!("CARGO_PKG_VERSION")
    );
    // A b-file is ASCII: a path or command in other characters gets `?`.
    let text = text
        .chars()
        .map(|c| if c.is_ascii() { c } else { '?' })
        .collect();
    (text, note)
}

/// Appends `x` in decimal.
fn push_decimal(buf: &mut Vec<u8>, mut x: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

/// True for the path `-`, which means standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Where values are written: standard output or a file.
pub enum Output {
    Stdout(io::Stdout),
    File(File),
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(s) => s.write(buf),
            Output::File(f) => f.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(s) => s.write_all(buf),
            Output::File(f) => f.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(s) => s.flush(),
            Output::File(f) => f.flush(),
        }
    }
}

/// Opens `path` for writing (created, or truncated if it exists); `-` is
/// standard output.
pub fn output(path: &Path) -> io::Result<Output> {
    if is_stdout(path) {
        Ok(Output::Stdout(io::stdout()))
    } else {
        File::create(path).map(Output::File)
    }
}

/// A b-file read back: a(first), a(first+1), ….
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BFile {
    /// The n of the first line: the sequence's offset.
    pub first: u64,
    pub values: Vec<u32>,
}

/// Why a b-file cannot be read.
#[derive(Debug, Error)]
pub enum BFileError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("line {line}: {why}")]
    Line { line: u64, why: String },
    #[error("no terms: a b-file has lines `n a(n)`")]
    Empty,
}

/// Reads a b-file: lines `n a(n)` with consecutive n, separated by spaces
/// or tabs; blank lines and lines starting with `#` are skipped, and a
/// line may end in `\r\n`. Every a(n) must be a Grundy value (0 to 2^32−1).
pub fn read_bfile<R: BufRead>(mut r: R) -> Result<BFile, BFileError> {
    let mut first = None;
    let mut values = Vec::new();
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        if r.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        number += 1;
        let bad = |why: String| BFileError::Line { line: number, why };
        let text = std::str::from_utf8(&line)
            .map_err(|_| bad("not ASCII text".into()))?
            .trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let mut fields = text.split_ascii_whitespace();
        let (Some(n), Some(a), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(bad(format!("expected `n a(n)`, found {text:?}")));
        };
        let n: u64 = n
            .parse()
            .map_err(|_| bad(format!("index {n:?} is not a whole number n ≥ 0")))?;
        let expected = first.map(|f: u64| f + values.len() as u64);
        if let Some(want) = expected {
            if n != want {
                return Err(bad(format!("expected index {want}, found {n}")));
            }
        }
        let a: u32 = a.parse().map_err(|_| {
            bad(format!(
                "a({n}) = {a:?} is not a Grundy value (a whole number from 0 to {})",
                u32::MAX
            ))
        })?;
        first.get_or_insert(n);
        values.push(a);
    }
    match first {
        Some(first) => Ok(BFile { first, values }),
        None => Err(BFileError::Empty),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text<V: Value>(format: Format, values: &[V], start: u64, offset: u64) -> String {
        String::from_utf8(write_values(Vec::new(), format, values, start, offset).unwrap()).unwrap()
    }

    /// Kayles (0.77), G(0..=11), from the lecture notes' table.
    const KAYLES: [u16; 12] = [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6];

    #[test]
    fn bfile_lines_are_n_and_g_of_n_from_the_offset() {
        let b = text(Format::BFile, &KAYLES[..4], 0, 1);
        assert_eq!(b, "1 1\n2 2\n3 3\n");
        assert_eq!(text(Format::BFile, &KAYLES[..3], 0, 0), "0 0\n1 1\n2 2\n");
        // Values that start past the offset keep their own n.
        assert_eq!(text(Format::BFile, &KAYLES[5..7], 5, 1), "5 4\n6 3\n");
        // Everything below the offset: nothing.
        assert_eq!(text(Format::BFile, &KAYLES[..2], 0, 10), "");
        assert!(b.is_ascii() && b.ends_with('\n'));
    }

    #[test]
    fn csv_and_plain() {
        assert_eq!(
            text(Format::Csv, &KAYLES[10..], 10, 1),
            "n,value\n10,2\n11,6\n"
        );
        assert_eq!(text(Format::Csv, &[] as &[u16], 0, 1), "n,value\n");
        let mut w = ValueWriter::continuing(Vec::new(), Format::Csv, 12, 1);
        w.write(&[5u16]).unwrap();
        assert_eq!(w.finish().unwrap(), b"12,5\n");
        assert_eq!(text(Format::Plain, &KAYLES[..3], 0, 1), "0\n1\n2\n");
        let wide = [70_000u32, u32::MAX];
        assert_eq!(
            text(Format::BFile, &wide, 7, 0),
            format!("7 70000\n8 {}\n", u32::MAX)
        );
    }

    #[test]
    fn pieces_continue_where_the_last_ended() {
        let mut w = ValueWriter::new(Vec::new(), Format::BFile, 0, 1);
        for piece in KAYLES.chunks(5) {
            w.write(piece).unwrap();
        }
        assert_eq!(w.next_index(), 12);
        let out = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(out, text(Format::BFile, &KAYLES, 0, 1));
        assert_eq!(out.lines().count(), 11);
        // A long run crosses the internal buffer many times.
        let long: Vec<u32> = (0..200_000).map(|n| n % 1000).collect();
        let mut w = ValueWriter::new(Vec::new(), Format::BFile, 0, 1);
        w.write_seq(SeqRef::U32(&long[..123_457])).unwrap();
        w.write_seq(SeqRef::U32(&long[123_457..])).unwrap();
        let out = w.finish().unwrap();
        assert_eq!(
            out,
            write_values(Vec::new(), Format::BFile, &long, 0, 1).unwrap()
        );
    }

    #[test]
    fn bfiles_round_trip() {
        for (offset, start) in [(0, 0), (1, 0), (3, 3)] {
            let b = text(Format::BFile, &KAYLES[start as usize..], start, offset);
            let back = read_bfile(b.as_bytes()).unwrap();
            assert_eq!(back.first, offset.max(start));
            let want: Vec<u32> = KAYLES[back.first as usize..]
                .iter()
                .map(|&v| v as u32)
                .collect();
            assert_eq!(back.values, want);
        }
    }

    #[test]
    fn bfiles_as_oeis_writes_them_are_read() {
        let text = "# A002188\n# Grundy's game\n\n0 0\r\n1\t0\n2  0\n3 1 \n";
        let b = read_bfile(text.as_bytes()).unwrap();
        assert_eq!(
            b,
            BFile {
                first: 0,
                values: vec![0, 0, 0, 1]
            }
        );
    }

    #[test]
    fn bad_bfiles_name_the_line() {
        let err = |t: &str| read_bfile(t.as_bytes()).unwrap_err().to_string();
        assert_eq!(err("1 1\n2 2\n4 3\n"), "line 3: expected index 3, found 4");
        assert!(err("1 1\n2\n").starts_with("line 2: expected `n a(n)`"));
        assert!(err("1 1 1\n").starts_with("line 1: expected `n a(n)`"));
        assert!(err("-1 0\n").contains("index \"-1\""));
        assert!(err("1 -3\n").contains("a(1) = \"-3\" is not a Grundy value"));
        assert!(err("1 4294967296\n").contains("not a Grundy value"));
        assert!(err("1 x\n").contains("\"x\""));
        assert_eq!(err("# nothing\n\n"), BFileError::Empty.to_string());
        assert!(err("1 \u{ff}\n").contains("line 1"));
    }

    #[test]
    fn format_names() {
        for name in Format::NAMES {
            assert_eq!(name.parse::<Format>().unwrap().to_string(), name);
        }
        assert_eq!("B-File".parse(), Ok(Format::BFile));
        assert_eq!(
            "json".parse::<Format>().unwrap_err().to_string(),
            "unknown format \"json\" (expected plain, bfile or csv)"
        );
    }

    #[test]
    fn decimal() {
        for x in [0u64, 7, 10, 99, 12345, u32::MAX as u64, u64::MAX] {
            let mut b = Vec::new();
            push_decimal(&mut b, x);
            assert_eq!(String::from_utf8(b).unwrap(), x.to_string());
        }
    }

    #[test]
    fn output_to_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.txt");
        let out = output(&path).unwrap();
        write_values(out, Format::BFile, &KAYLES, 0, 1).unwrap();
        let back = read_bfile(io::BufReader::new(File::open(&path).unwrap())).unwrap();
        assert_eq!(back.values.len(), 11);
        assert!(is_stdout(Path::new("-")) && !is_stdout(&path));
    }
}
