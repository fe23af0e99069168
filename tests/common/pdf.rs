//! Reading back the text of the PDFs octal draws: the strings its content
//! stream shows, decoded through the embedded font's ToUnicode map.

use std::collections::HashMap;

/// The text a PDF's content stream shows, one string per BT … ET block,
/// as (font resource, bytes) runs.
pub fn texts(pdf: &[u8]) -> Vec<Vec<(String, Vec<u8>)>> {
    let mut blocks = Vec::new();
    let mut i = 0;
    let mut font = String::new();
    let mut block: Option<Vec<(String, Vec<u8>)>> = None;
    while i < pdf.len() {
        let Some(runs) = block.as_mut() else {
            if pdf[i..].starts_with(b"BT\n") {
                block = Some(Vec::new());
            }
            i += 1;
            continue;
        };
        match pdf[i] {
            b'E' if pdf[i..].starts_with(b"ET\n") => blocks.extend(block.take()),
            b'/' => {
                let end = i + pdf[i..].iter().position(|&b| b == b' ').unwrap();
                font = String::from_utf8_lossy(&pdf[i + 1..end]).into_owned();
                i = end;
            }
            b'<' => {
                // A hexadecimal string.
                let end = i + pdf[i..].iter().position(|&b| b == b'>').unwrap();
                let hex = String::from_utf8_lossy(&pdf[i + 1..end]).into_owned();
                let s = (0..hex.len())
                    .step_by(2)
                    .map(|k| u8::from_str_radix(&hex[k..k + 2], 16).unwrap())
                    .collect();
                runs.push((font.clone(), s));
                i = end;
            }
            b'(' => {
                // A literal string: balanced parentheses need no escape.
                let (mut s, mut depth) = (Vec::new(), 0);
                i += 1;
                while depth > 0 || pdf[i] != b')' {
                    match pdf[i] {
                        b'\\' => {
                            i += 1;
                            let digits = pdf[i..].iter().take(3).take_while(|b| b.is_ascii_digit());
                            let n = digits.count();
                            if n > 0 {
                                // An octal escape, \ddd.
                                let oct = std::str::from_utf8(&pdf[i..i + n]).unwrap();
                                s.push(u8::from_str_radix(oct, 8).unwrap());
                                i += n;
                                continue;
                            }
                            let named = [
                                (b'n', b'\n'),
                                (b'r', b'\r'),
                                (b't', b'\t'),
                                (b'b', 8),
                                (b'f', 12),
                            ];
                            if let Some(&(_, b)) = named.iter().find(|(e, _)| *e == pdf[i]) {
                                s.push(b);
                                i += 1;
                                continue;
                            }
                        }
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        _ => {}
                    }
                    s.push(pdf[i]);
                    i += 1;
                }
                runs.push((font.clone(), s));
            }
            _ => {}
        }
        i += 1;
    }
    blocks
}

/// The ToUnicode map of a PDF with one embedded font: glyph id → character.
pub fn to_unicode(pdf: &str) -> HashMap<u16, char> {
    let start = pdf.find("beginbfchar").expect("a ToUnicode map");
    let end = start + pdf[start..].find("endbfchar").unwrap();
    pdf[start..end]
        .lines()
        .skip(1)
        .filter_map(|l| {
            let hex: Vec<&str> = l
                .split(['<', '>'])
                .filter(|t| !t.trim().is_empty())
                .collect();
            let gid = u16::from_str_radix(hex.first()?, 16).ok()?;
            let unit = u32::from_str_radix(hex.get(1)?, 16).ok()?;
            Some((gid, char::from_u32(unit)?))
        })
        .collect()
}

/// Every string a PDF shows (one per text block), as characters.
pub fn strings(pdf: &[u8]) -> Vec<String> {
    let map = to_unicode(&String::from_utf8_lossy(pdf));
    texts(pdf)
        .into_iter()
        .map(|runs| {
            runs.iter()
                .flat_map(|(_, b)| b.chunks(2).map(|g| map[&u16::from_be_bytes([g[0], g[1]])]))
                .collect()
        })
        .collect()
}
