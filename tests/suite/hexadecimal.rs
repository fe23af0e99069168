//! Hexadecimal codes and Grundy's game against references that share no
//! code with the engine: the lecture notes' table of Grundy's game, and a
//! brute force written here from the definition of the digits.

use std::collections::HashMap;

use assert_cmd::Command;
use octal::code::Code;
use octal::engine::{compute, Engine, Reference};

/// A game as the brute force reads it: the digit values, lead first, and
/// whether two-heap splits must be unequal.
struct Game {
    digits: Vec<u8>,
    unequal: bool,
}

impl Game {
    /// Calls `visit` with every position (a multiset of heaps, sorted) one
    /// move from a single heap of `n`. The same multiset may come more than
    /// once; every ordering of the parts is generated.
    fn options(&self, n: usize, visit: &mut dyn FnMut(&[usize])) {
        for (i, &d) in self.digits.iter().enumerate() {
            if i > n {
                break;
            }
            let rest = n - i;
            if d & 1 != 0 && i >= 1 && rest == 0 {
                visit(&[]);
            }
            if d & 2 != 0 && i >= 1 && rest >= 1 {
                visit(&[rest]);
            }
            if d & 4 != 0 {
                for a in 1..rest {
                    let b = rest - a;
                    if self.unequal && a == b {
                        continue;
                    }
                    let mut h = [a, b];
                    h.sort();
                    visit(&h);
                }
            }
            if d & 8 != 0 {
                for a in 1..rest {
                    for b in 1..rest - a {
                        let mut h = [a, b, rest - a - b];
                        h.sort();
                        visit(&h);
                    }
                }
            }
        }
    }

    /// G(0), …, G(len − 1): each G(n) is the mex over the options of n of
    /// the XOR of the G of their heaps (all smaller than n).
    fn values(&self, len: usize) -> Vec<u32> {
        let mut g: Vec<u32> = Vec::with_capacity(len);
        for n in 0..len {
            let mut seen = vec![false; 4 * len + 64];
            self.options(n, &mut |heaps| {
                let v = heaps.iter().fold(0, |x, &h| x ^ g[h]);
                seen[v as usize] = true;
            });
            g.push(seen.iter().position(|&s| !s).unwrap() as u32);
        }
        g
    }

    /// The value of a whole position, by the game tree alone (no XOR rule):
    /// mex over replacing one heap by one of its options.
    fn position_value(&self, heaps: Vec<usize>, memo: &mut HashMap<Vec<usize>, u32>) -> u32 {
        if let Some(&v) = memo.get(&heaps) {
            return v;
        }
        let mut next = Vec::new();
        for (k, &h) in heaps.iter().enumerate() {
            if k > 0 && heaps[k - 1] == h {
                continue;
            }
            self.options(h, &mut |parts| {
                let mut p: Vec<usize> = heaps[..k].to_vec();
                p.extend_from_slice(&heaps[k + 1..]);
                p.extend_from_slice(parts);
                p.sort();
                next.push(p);
            });
        }
        let mut values: Vec<u32> = next
            .into_iter()
            .map(|p| self.position_value(p, memo))
            .collect();
        values.sort();
        values.dedup();
        let v = values
            .iter()
            .enumerate()
            .find(|&(i, &x)| i as u32 != x)
            .map_or(values.len() as u32, |(i, _)| i as u32);
        memo.insert(heaps, v);
        v
    }
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A random hexadecimal code with 1–4 digits after the point, its spelling
/// (mixed case, sometimes with u) and the brute force's reading of it.
fn random_game(rng: &mut Rng) -> (String, Game) {
    let lead = [0u8, 4, 8, 12][rng.below(4) as usize];
    let len = 1 + rng.below(4) as usize;
    let mut digits = vec![lead];
    digits.extend((0..len).map(|_| rng.below(16) as u8));
    let splits2 = digits.iter().any(|&d| d & 4 != 0);
    let unequal = splits2 && rng.below(2) == 0;
    let upper = rng.below(2) == 0;
    let mut text = String::new();
    for (k, &d) in digits.iter().enumerate() {
        let c = char::from_digit(d as u32, 16).unwrap();
        text.push(if upper { c.to_ascii_uppercase() } else { c });
        if k == 0 {
            text.push('.');
        }
    }
    if unequal {
        text.push('u');
    }
    (text, Game { digits, unequal })
}

fn reference(code: &str, n: usize) -> Vec<u32> {
    let code: Code = code.parse().unwrap_or_else(|e| panic!("{code}: {e}"));
    compute(&mut Reference::new(&code), n)
}

/// The values of a file in data/sequences (lines starting with # are
/// headers), with its `# code:` header.
fn sequence_file(name: &str) -> (String, Vec<u32>) {
    let path = format!("{}/data/sequences/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let code = text
        .lines()
        .find_map(|l| l.strip_prefix("# code:"))
        .expect("a # code: header")
        .trim()
        .to_string();
    let values = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .flat_map(|l| l.split_whitespace())
        .map(|v| v.parse().unwrap())
        .collect();
    (code, values)
}

#[test]
fn grundys_game_matches_the_lecture_notes() {
    let (code, table) = sequence_file("grundy.txt");
    assert_eq!(code, "grundy");
    assert_eq!(table.len(), 100);
    assert_eq!(reference(&code, table.len()), table);
    assert_eq!(reference("4.0u", table.len()), table);
    // And the brute force agrees with the notes too.
    let brute = Game {
        digits: vec![4],
        unequal: true,
    };
    assert_eq!(brute.values(table.len()), table);
}

#[test]
fn reference_matches_brute_force_on_random_hexadecimal_codes() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut fixed: Vec<(String, Game)> = [
        ("0.8", vec![0, 8], false),
        ("0.F", vec![0, 15], false),
        ("4.F", vec![4, 15], false),
        ("0.1F", vec![0, 1, 15], false),
        ("8.0", vec![8], false),
        ("C.0", vec![12], false),
        ("C.0u", vec![12], true),
        ("0.0Fu", vec![0, 0, 15], true),
    ]
    .into_iter()
    .map(|(s, digits, unequal)| (s.to_string(), Game { digits, unequal }))
    .collect();
    fixed.extend((0..150).map(|_| random_game(&mut rng)));
    for (text, game) in &fixed {
        assert_eq!(reference(text, 200), game.values(200), "{text}");
    }
}

#[test]
fn brute_force_agrees_with_the_game_tree() {
    // The brute force leans on the XOR rule for sums; check that on small
    // heaps against values of whole positions, computed without it.
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    for _ in 0..40 {
        let (text, game) = random_game(&mut rng);
        let mut memo = HashMap::new();
        let tree: Vec<u32> = (0..9)
            .map(|n| game.position_value(if n == 0 { vec![] } else { vec![n] }, &mut memo))
            .collect();
        assert_eq!(game.values(9), tree, "{text}");
        assert_eq!(reference(&text, 9), tree, "{text}");
    }
}

#[test]
fn reference_resumes_hexadecimal_games_from_any_prefix() {
    for code in ["0.8", "C.1u", "grundy", "0.4C"] {
        let full = reference(code, 300);
        for from in [0, 1, 5, 137, 299] {
            let mut g: Vec<u32> = full[..from].to_vec();
            g.resize(300, 0);
            let mut e = Reference::new(&code.parse().unwrap());
            e.extend_u32(&mut g, from).unwrap();
            assert_eq!(g, full, "{code} from {from}");
        }
    }
}

#[test]
fn cli_accepts_grundy_and_hexadecimal_codes() {
    let (_, table) = sequence_file("grundy.txt");
    let out = Command::cargo_bin("octal")
        .unwrap()
        .args(["values", "grundy", "--to", "100"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let printed: Vec<u32> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(printed, table);

    let out = Command::cargo_bin("octal")
        .unwrap()
        .args(["run", "grundy", "--to", "100", "--json", "--no-store"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["code"], "4.0u");
    assert_eq!(summary["max_value"], 7);

    let out = Command::cargo_bin("octal")
        .unwrap()
        .args(["run", "0.1f", "--to", "50", "--json", "--no-store"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["code"], "0.1F");

    let out = Command::cargo_bin("octal")
        .unwrap()
        .args(["run", "0.G", "--to", "50", "--no-store"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("'G'") && err.lines().count() == 1, "{err}");
}
