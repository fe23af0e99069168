//! A run's summary in words: what `octal run` prints, and what Python's
//! `print(summary)` shows, written once from the typed
//! [`Summary`]. Facts a summary does not know (a store's or an exported
//! file's: no threads, no instruction set) are left out rather than
//! invented.

use std::fmt::Write as _;

use crate::run::Summary;

/// The summary `s` as lines of text, each ending in a newline.
pub fn human(s: &Summary) -> String {
    let mut out = String::new();
    let mut line = |l: String| {
        out.push_str(&l);
        out.push('\n');
    };
    line(head(s));
    line(format!(
        "max value {} (first at n={}), {} (n = 0 included), last value G({})={}",
        s.max_value,
        s.first_max_at,
        plural(s.zeros, "zero"),
        s.values.saturating_sub(1),
        s.last_value
    ));
    sparse_space(s).into_iter().for_each(&mut line);
    line(period(s));
    line(format!(
        "checksum {} (FNV-1a-64 of the values as little-endian u32)",
        s.checksum
    ));
    if let Some(store) = &s.store {
        line(match (s.held, s.resumed_from) {
            (Some(h), _) => format!(
                "store {store} (holds {h} values: nothing computed, the first {} summarised)",
                s.values
            ),
            (None, Some(n)) => format!("store {store} (resumed from {n} values)"),
            (None, None) => format!("store {store}"),
        });
    }
    out
}

/// `0.6: 10 values in 0.500 s (20 values/s, engine sparse, 1 thread, scalar)`.
fn head(s: &Summary) -> String {
    // A prefix of a store (nothing computed) took no time to speak of.
    let timed = s.held.is_none();
    let mut head = format!("{}: {} values", s.code, s.values);
    if let Some(secs) = s.seconds.filter(|_| timed) {
        let _ = write!(head, " in {secs:.3} s");
    }
    let mut facts = Vec::new();
    if let Some(rate) = s.values_per_second.filter(|_| timed) {
        facts.push(format!("{rate:.0} values/s"));
    }
    if let Some(engine) = s.engine.name().filter(|e| !e.is_empty()) {
        facts.push(format!("engine {engine}"));
    }
    if let Some(t) = s.engine.threads() {
        facts.push(plural(t as u64, "thread"));
    }
    if let Some(isa) = s.isa.filter(|i| !i.is_empty()) {
        facts.push(isa.to_string());
    }
    if !facts.is_empty() {
        let _ = write!(head, " ({})", facts.join(", "));
    }
    head
}

/// The sparse-space lines: the mask and the rare positions' count, and the
/// last few of them with their values (the JSON's `rare_list` holds them
/// all); none for a game run without sparse space.
fn sparse_space(s: &Summary) -> Vec<String> {
    let Some(mask) = s.engine.rare_mask else {
        return Vec::new();
    };
    let rare = s.engine.rare_positions.unwrap_or(0);
    let with_0 = s
        .engine
        .rare_positions_with_0
        .filter(|&w| w != rare)
        .map(|w| format!(" ({w} with n = 0)"))
        .unwrap_or_default();
    let last = s.engine.last_rare_at.map_or("-".into(), |r| r.to_string());
    let mut lines = vec![format!(
        "sparse space: mask 0x{mask:x}, {}{with_0}, last at {last}",
        plural(rare, "rare position")
    )];
    let list = s.rare_list.as_deref().unwrap_or_default();
    if !list.is_empty() {
        let last: Vec<String> = list[list.len().saturating_sub(RARE_SHOWN)..]
            .iter()
            .map(|(n, g)| format!("G({n})={g}"))
            .collect();
        let rule = s
            .rare_class
            .as_ref()
            .map(|c| format!(" (rare: {})", c.rule))
            .unwrap_or_default();
        lines.push(format!("last rare positions: {}{rule}", last.join(", ")));
    }
    lines
}

/// The period line: proven, or none found (with the apparent one).
fn period(s: &Summary) -> String {
    let notation = s
        .period_notation
        .as_ref()
        .map(|n| format!(": {n}"))
        .unwrap_or_default();
    if let Some(p) = &s.period {
        return format!(
            "periodic: period {}, preperiod {}, proven at {} (bound {}){notation}",
            p.period,
            p.preperiod,
            p.proven_at,
            p.bound.unwrap_or(p.proven_at)
        );
    }
    let mut l = if s.period_provable {
        format!("no period found up to {}", s.values)
    } else {
        "no period can be proven for this game".to_string()
    };
    if let Some(a) = &s.apparent_period {
        let needs = a
            .bound
            .map(|b| format!(", a proof needs {b} values"))
            .unwrap_or_default();
        let _ = write!(
            l,
            " (apparent period {}, preperiod {}, holding over the last {} values{needs}){notation}",
            a.period,
            a.preperiod,
            s.values.saturating_sub(a.preperiod)
        );
    }
    if let Some(a) = &s.arithmetic_period {
        let _ = write!(l, "; {}", a.describe());
    }
    l
}

/// How many of the last rare positions the text names.
const RARE_SHOWN: usize = 5;

/// `1 zero`, `14 zeros`.
pub fn plural(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::Code;
    use crate::engine::EngineInfo;
    use crate::period::Period;
    use crate::stats::Stats;

    /// A summary of `values` values of `code` with the given statistics.
    fn summary(code: &str, values: u64, max: (u32, u64), zeros: u64, last: u32) -> Summary {
        let stats = Stats {
            values,
            max_value: max.0,
            first_max_at: max.1,
            zeros,
            last_value: last,
            ..Stats::default()
        };
        let code: Code = code.parse().expect("a code");
        Summary::new(&code, &stats, 0.0, 2, EngineInfo::default())
    }

    #[test]
    fn a_file_read_back_leaves_its_unknown_facts_out() {
        let mut file = summary("0.07", 100, (4, 50), 1, 2);
        file.read_back(None, None);
        file.checksum = "00ff".into();
        file.period = Some(Period {
            period: 34,
            preperiod: 53,
            proven_at: 97,
            bound: None,
        });
        file.store = Some("s.octal".into());
        file.resumed_from = Some(40);
        assert_eq!(
            human(&file),
            "0.07: 100 values\n\
             max value 4 (first at n=50), 1 zero (n = 0 included), last value G(99)=2\n\
             periodic: period 34, preperiod 53, proven at 97 (bound 97)\n\
             checksum 00ff (FNV-1a-64 of the values as little-endian u32)\n\
             store s.octal (resumed from 40 values)\n"
        );
    }

    #[test]
    fn a_run_says_every_fact() {
        let info = EngineInfo {
            engine: "sparse",
            threads: 1,
            rare_mask: Some(0x1ee),
            rare_positions: Some(1),
            rare_positions_with_0: Some(2),
            last_rare_at: Some(7),
        };
        let mut run = summary("0.6", 10, (3, 9), 2, 3);
        run.engine.info = info;
        run.seconds = Some(0.5);
        run.values_per_second = Some(20.0);
        run.isa = Some("scalar");
        run.checksum = "ab".into();
        run.apparent_period = Some(Period {
            period: 2,
            preperiod: 4,
            proven_at: 10,
            bound: Some(40),
        });
        assert_eq!(
            human(&run),
            "0.6: 10 values in 0.500 s (20 values/s, engine sparse, 1 thread, scalar)\n\
             max value 3 (first at n=9), 2 zeros (n = 0 included), last value G(9)=3\n\
             sparse space: mask 0x1ee, 1 rare position (2 with n = 0), last at 7\n\
             no period found up to 10 (apparent period 2, preperiod 4, holding over the last 6 values, a proof needs 40 values)\n\
             checksum ab (FNV-1a-64 of the values as little-endian u32)\n"
        );
        // A store's prefix: nothing computed, so no time and no rate.
        run.held = Some(100);
        run.store = Some("s.octal".into());
        run.engine.info.threads = 2;
        let text = human(&run);
        assert!(
            text.starts_with("0.6: 10 values (engine sparse, 2 threads, scalar)\n"),
            "{text}"
        );
        assert!(
            text.ends_with(
                "store s.octal (holds 100 values: nothing computed, the first 10 summarised)\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn an_arithmetic_period_is_said_as_apparent_with_its_range() {
        // 0.8: G(n) = ⌊(n − 1)/3⌋ for n ≥ 1, so G(99) = 32.
        let mut run = summary("0.8", 100, (32, 97), 3, 32);
        run.read_back(None, None);
        run.checksum = "ab".into();
        run.arithmetic_period = Some(crate::period::ArithmeticPeriod {
            period: 3,
            preperiod: 1,
            saltus: 1,
            checked_to: 100,
        });
        let text = human(&run);
        let line = text.lines().nth(2).expect("a period line");
        assert_eq!(
            line,
            "no period found up to 100; apparent arithmetic period 3, saltus 1: \
             G(n + 3) = G(n) + 1 for 1 ≤ n < 97"
        );
    }
}
