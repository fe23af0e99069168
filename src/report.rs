//! A run's summary in words: what `octal run` prints, and what Python's
//! `print(summary)` shows, written once. It reads the JSON form of the
//! summary (`octal run --json`), so that a summary some of whose facts are
//! unknown (a store's, an exported file's: no threads, no instruction set)
//! leaves those out rather than inventing them.

use serde_json::Value;

/// The summary `s` (a [`crate::run::Summary`] as JSON) as lines of text,
/// each ending in a newline.
pub fn human(s: &Value) -> String {
    let int = |k: &str| s.get(k).and_then(Value::as_u64);
    let text = |k: &str| s.get(k).and_then(Value::as_str);
    let values = int("values").unwrap_or(0);
    let mut out = String::new();
    let mut line = |l: String| {
        out.push_str(&l);
        out.push('\n');
    };

    // A prefix of a store (nothing computed) took no time to speak of.
    let held = int("held");
    let time = |k: &str| s.get(k).and_then(Value::as_f64).filter(|_| held.is_none());
    let mut head = format!("{}: {values} values", text("code").unwrap_or("?"));
    if let Some(secs) = time("seconds") {
        head += &format!(" in {secs:.3} s");
    }
    let mut facts = Vec::new();
    if let Some(rate) = time("values_per_second") {
        facts.push(format!("{rate:.0} values/s"));
    }
    if let Some(engine) = text("engine").filter(|e| !e.is_empty()) {
        facts.push(format!("engine {engine}"));
    }
    if let Some(t) = int("threads") {
        facts.push(plural(t, "thread"));
    }
    if let Some(isa) = text("isa").filter(|i| !i.is_empty()) {
        facts.push(isa.to_string());
    }
    if !facts.is_empty() {
        head += &format!(" ({})", facts.join(", "));
    }
    line(head);

    line(format!(
        "max value {} (first at n={}), {} (n = 0 included), last value G({})={}",
        int("max_value").unwrap_or(0),
        int("first_max_at").unwrap_or(0),
        plural(int("zeros").unwrap_or(0), "zero"),
        values.saturating_sub(1),
        int("last_value").unwrap_or(0)
    ));

    if let Some(mask) = int("rare_mask") {
        let rare = int("rare_positions").unwrap_or(0);
        let with_0 = int("rare_positions_with_0")
            .filter(|&w| w != rare)
            .map(|w| format!(" ({w} with n = 0)"))
            .unwrap_or_default();
        let last = int("last_rare_at").map_or("-".into(), |r| r.to_string());
        line(format!(
            "sparse space: mask 0x{mask:x}, {}{with_0}, last at {last}",
            plural(rare, "rare position")
        ));
        // The last few rare positions with their values (the JSON's
        // `rare_list` holds them all).
        if let Some(list) = s.get("rare_list").and_then(Value::as_array) {
            let pair = |p: &Value| Some((p.get(0)?.as_u64()?, p.get(1)?.as_u64()?));
            let last: Vec<String> = list[list.len().saturating_sub(RARE_SHOWN)..]
                .iter()
                .filter_map(pair)
                .map(|(n, g)| format!("G({n})={g}"))
                .collect();
            if !last.is_empty() {
                let rule = s
                    .get("rare_class")
                    .and_then(|c| c.get("rule"))
                    .and_then(Value::as_str)
                    .map(|r| format!(" (rare: {r})"))
                    .unwrap_or_default();
                line(format!("last rare positions: {}{rule}", last.join(", ")));
            }
        }
    }

    let notation = text("period_notation")
        .map(|n| format!(": {n}"))
        .unwrap_or_default();
    let field = |p: &Value, k: &str| p.get(k).and_then(Value::as_u64);
    match s.get("period").filter(|p| !p.is_null()) {
        Some(p) => {
            let proven_at = field(p, "proven_at").unwrap_or(0);
            line(format!(
                "periodic: period {}, preperiod {}, proven at {proven_at} (bound {}){notation}",
                field(p, "period").unwrap_or(0),
                field(p, "preperiod").unwrap_or(0),
                field(p, "bound").unwrap_or(proven_at)
            ));
        }
        None => {
            let provable = s.get("period_provable").and_then(Value::as_bool) == Some(true);
            let mut l = if provable {
                format!("no period found up to {values}")
            } else {
                "no period can be proven for this game".to_string()
            };
            if let Some(a) = s.get("apparent_period").filter(|a| !a.is_null()) {
                let preperiod = field(a, "preperiod").unwrap_or(0);
                let needs = field(a, "bound")
                    .map(|b| format!(", a proof needs {b} values"))
                    .unwrap_or_default();
                l += &format!(
                    " (apparent period {}, preperiod {preperiod}, holding over the last {} values{needs}){notation}",
                    field(a, "period").unwrap_or(0),
                    values.saturating_sub(preperiod)
                );
            }
            line(l);
        }
    }

    line(format!(
        "checksum {} (FNV-1a-64 of the values as little-endian u32)",
        text("checksum").unwrap_or("?")
    ));
    if let Some(store) = text("store") {
        match (held, int("resumed_from")) {
            (Some(h), _) => line(format!(
                "store {store} (holds {h} values: nothing computed, the first {values} summarised)"
            )),
            (None, Some(n)) => line(format!("store {store} (resumed from {n} values)")),
            (None, None) => line(format!("store {store}")),
        }
    }
    out
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

    #[test]
    fn unknown_facts_are_left_out_and_known_ones_said() {
        // An exported file's summary: no seconds, engine, threads or ISA.
        let file = serde_json::json!({
            "code": "0.07", "values": 100, "seconds": null, "values_per_second": null,
            "engine": null, "threads": null, "isa": null, "max_value": 4,
            "first_max_at": 50, "zeros": 1, "last_value": 2, "checksum": "00ff",
            "period": {"period": 34, "preperiod": 53, "proven_at": 97},
            "period_provable": true, "store": "s.octal", "resumed_from": 40
        });
        assert_eq!(
            human(&file),
            "0.07: 100 values\n\
             max value 4 (first at n=50), 1 zero (n = 0 included), last value G(99)=2\n\
             periodic: period 34, preperiod 53, proven at 97 (bound 97)\n\
             checksum 00ff (FNV-1a-64 of the values as little-endian u32)\n\
             store s.octal (resumed from 40 values)\n"
        );
        let run = serde_json::json!({
            "code": "0.6", "values": 10, "seconds": 0.5, "values_per_second": 20.0,
            "engine": "sparse", "threads": 1, "isa": "scalar", "max_value": 3,
            "first_max_at": 9, "zeros": 2, "last_value": 3, "checksum": "ab",
            "rare_mask": 494, "rare_positions": 1, "rare_positions_with_0": 2,
            "last_rare_at": 7, "period": null, "period_provable": true,
            "apparent_period": {"period": 2, "preperiod": 4, "bound": 40}
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
        let prefix = serde_json::json!({
            "code": "0.6", "values": 10, "seconds": 0.0, "values_per_second": 0.0,
            "engine": "sparse", "max_value": 3, "first_max_at": 9, "zeros": 2,
            "last_value": 3, "checksum": "ab", "period": null, "period_provable": true,
            "store": "s.octal", "held": 100
        });
        let text = human(&prefix);
        assert!(
            text.starts_with("0.6: 10 values (engine sparse)\n"),
            "{text}"
        );
        assert!(
            text.ends_with(
                "store s.octal (holds 100 values: nothing computed, the first 10 summarised)\n"
            ),
            "{text}"
        );
    }
}
