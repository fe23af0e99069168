//! The summary a run ends with: one typed record that the human report,
//! the JSON and the Python package are all written from.

use std::ops::Deref;

use serde::{Serialize, Serializer};

use crate::code::Code;
use crate::engine::{Engine, EngineInfo, EngineKind, MaskSpec, RareClass};
use crate::period::{self, arithmetic, ArithmeticPeriod, Detector, Notation, Period};
use crate::seq::{Seq, SeqRef};
use crate::stats::Stats;

use super::JobError;

/// An apparent period in JSON: `checked_to` for the values it holds over,
/// not the `proven_at` of a proof.
fn apparent_json<S: serde::Serializer>(p: &Option<Period>, s: S) -> Result<S::Ok, S::Error> {
    p.map(|p| {
        serde_json::json!({
            "period": p.period,
            "preperiod": p.preperiod,
            "checked_to": p.proven_at,
            "bound": p.bound,
        })
    })
    .serialize(s)
}

/// The engine as a summary knows it: a run's own, or for values read back
/// from a store or file only what the file records. It reads as the
/// run's [`EngineInfo`] (`summary.engine.rare_mask`), which a summary of
/// read-back values has empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EngineFacts {
    pub info: EngineInfo,
    /// `Some` for values read back: the engine the file records as writing
    /// its last values (a store does, an exported file does not). The
    /// threads are then unknown.
    pub read_back: Option<Option<String>>,
}

impl EngineFacts {
    /// The engine's name, when known.
    pub fn name(&self) -> Option<&str> {
        match &self.read_back {
            None => Some(self.info.engine),
            Some(recorded) => recorded.as_deref(),
        }
    }

    /// How many threads it ran on, when known (a run).
    pub fn threads(&self) -> Option<usize> {
        self.read_back.is_none().then_some(self.info.threads)
    }
}

impl Deref for EngineFacts {
    type Target = EngineInfo;
    fn deref(&self) -> &EngineInfo {
        &self.info
    }
}

/// In JSON: the keys of [`EngineInfo`], with `null` for what is unknown.
impl Serialize for EngineFacts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Keys<'a> {
            engine: Option<&'a str>,
            threads: Option<usize>,
            rare_mask: Option<u32>,
            rare_positions: Option<u64>,
            rare_positions_with_0: Option<u64>,
            last_rare_at: Option<u64>,
        }
        let i = &self.info;
        Keys {
            engine: self.name(),
            threads: self.threads(),
            rare_mask: i.rare_mask,
            rare_positions: i.rare_positions,
            rare_positions_with_0: i.rare_positions_with_0,
            last_rare_at: i.last_rare_at,
        }
        .serialize(s)
    }
}

/// The summary a run ends with; `--json` prints it. A summary of values
/// read back from a store or file (the Python package's) has `None` for
/// the facts the file does not record.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub code: String,
    pub values: u64,
    pub max_value: u32,
    pub first_max_at: u64,
    /// How many n < values have G(n) = 0, counting n = 0 (G(0) = 0 in every
    /// game), as the published count of 14 for `0.6` does.
    pub zeros: u64,
    /// The same without n = 0, as the published count of 13 for `.161`.
    pub zeros_from_1: u64,
    pub last_value: u32,
    /// FNV-1a-64 over the values as little-endian u32, as 16 hex digits.
    pub checksum: String,
    /// Compute time (a store's: over all its sessions); None when not
    /// recorded (an exported file).
    pub seconds: Option<f64>,
    pub values_per_second: Option<f64>,
    pub bytes_per_value: usize,
    #[serde(flatten)]
    pub engine: EngineFacts,
    /// The instruction set the kernels ran on (`scalar`, `avx2`,
    /// `avx512`, `neon`): the host's best, or `OCTAL_ISA`; None for values
    /// read back.
    pub isa: Option<&'static str>,
    /// The proven period, if any.
    pub period: Option<Period>,
    /// Without a proof: the period the values show so far, if any. In
    /// JSON its `proven_at` (nothing is proven) is `checked_to`: the
    /// values it holds over.
    #[serde(serialize_with = "apparent_json")]
    pub apparent_period: Option<Period>,
    /// False when no period of this game can be proven at all.
    pub period_provable: bool,
    /// Without a period (proven or apparent), for a game beyond octal:
    /// the arithmetic period the values show, G(n + p) = G(n) + s for
    /// every computed n ≥ i (apparent: nothing proves it goes on).
    pub arithmetic_period: Option<ArithmeticPeriod>,
    /// The values up to the end of the first period in the lecture
    /// notes' nim-sequence notation, the period's ends dotted (U+0307),
    /// when at most 200 characters (see [`period::notation`]).
    pub period_notation: Option<String>,
    /// The same in LaTeX, `0.\dot{1}10112212\dot{2}`.
    pub period_notation_latex: Option<String>,
    /// Which positions are rare (the sparse-space split: the mask and the
    /// parity a rare heap's value has); null for a game run without
    /// sparse space.
    pub rare_class: Option<RareClass>,
    /// The rare positions n ≥ 1 with their values, `[[n, G(n)], …]` in
    /// order of n (heap 0, never paired, is left out as `rare_positions`
    /// leaves it out; `rare_class` says whether G(0) = 0 is of the rare
    /// class). At most [`RARE_LIST_MAX`], the first ones; null without
    /// sparse space.
    pub rare_list: Option<Vec<(u64, u32)>>,
    /// Whether `rare_list` holds every rare position (false when it was
    /// cut at [`RARE_LIST_MAX`]); null without sparse space.
    pub rare_list_complete: Option<bool>,
    /// The store holding the values, for runs kept on disk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
    /// How many values the store already held when this session began.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed_from: Option<u64>,
    /// For the summary of a store's first `values` only (a target below
    /// what it holds, so nothing was computed): how many it holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held: Option<u64>,
    /// For a store read back: how far its runs were asked to go.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<u64>,
}

/// Most rare positions a summary lists. A game in sparse space has few (a
/// few thousand for `0.6` to 2^30); one with a hundred thousand has no
/// sparse space to speak of, and its list would outweigh the rest of the
/// summary, so it is cut there and `rare_list_complete` says so.
pub const RARE_LIST_MAX: usize = 100_000;

/// `[(n, G(n))]` for the rare `positions` (at most [`RARE_LIST_MAX`]) and
/// whether that is all of them; positions past `g` are left out.
pub fn rare_list(positions: &[u64], g: SeqRef<'_>) -> (Vec<(u64, u32)>, bool) {
    let known = positions.partition_point(|&n| (n as usize) < g.len());
    let list = positions[..known.min(RARE_LIST_MAX)]
        .iter()
        .map(|&n| (n, g.get(n as usize)))
        .collect();
    (list, known <= RARE_LIST_MAX && known == positions.len())
}

/// The sparse-space facts of `g`, the values G(0..g.len()) of `code`, as
/// a fresh engine with the automatic mask finds them (what a run's summary
/// of these values says): for values read from a file or from a store
/// opened read-only. The values are copied (the engine takes a mutable
/// slice); nothing is computed. `info` has only the sparse-space fields.
pub fn rare_of_values(code: &Code, g: SeqRef<'_>) -> Result<Summary, JobError> {
    let mut engine = EngineKind::Sparse.build_with(code, 1, MaskSpec::Auto)?;
    let mut seq = match g {
        SeqRef::U16(v) => Seq::U16(v.to_vec()),
        SeqRef::U32(v) => Seq::U32(v.to_vec()),
    };
    let n = seq.len();
    // `from == g.len()`: the engine rebuilds its state and computes nothing.
    let built = match &mut seq {
        Seq::U16(v) if n > 0 => engine.extend_u16(v, n),
        Seq::U32(v) if n > 0 => engine.extend_u32(v, n),
        _ => Ok(()),
    };
    debug_assert!(built.is_ok());
    let mut summary = Summary::new(code, &Stats::default(), 0.0, seq.width(), engine.info());
    summary.set_rare(&*engine, seq.view(0, n));
    Ok(summary)
}

/// Values a second (0 for no time).
fn rate(values: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        values as f64 / seconds
    } else {
        0.0
    }
}

/// Longest nim-sequence notation a summary carries, in characters.
const NOTATION_MAX: usize = 200;

impl Summary {
    /// `(period, preperiod)` when a period is proven.
    pub fn proven_period(&self) -> (Option<u64>, Option<u64>) {
        match &self.period {
            Some(p) => (Some(p.period), Some(p.preperiod)),
            None => (None, None),
        }
    }

    pub fn new(code: &Code, stats: &Stats, seconds: f64, width: usize, engine: EngineInfo) -> Self {
        Summary {
            code: code.to_string(),
            values: stats.values,
            max_value: stats.max_value,
            first_max_at: stats.first_max_at,
            zeros: stats.zeros,
            zeros_from_1: stats.zeros.saturating_sub(1),
            last_value: stats.last_value,
            checksum: stats.checksum.hex(),
            seconds: Some(seconds),
            values_per_second: Some(rate(stats.values, seconds)),
            bytes_per_value: width,
            engine: EngineFacts {
                info: engine,
                read_back: None,
            },
            isa: Some(octal_kernels::isa::current().name()),
            period: None,
            apparent_period: None,
            period_provable: true,
            arithmetic_period: None,
            period_notation: None,
            period_notation_latex: None,
            rare_class: None,
            rare_list: None,
            rare_list_complete: None,
            store: None,
            resumed_from: None,
            held: None,
            target: None,
        }
    }

    /// Makes this the summary of values read back from a file, which
    /// records of the sessions that computed them only the `engine` that
    /// wrote the last values and the `seconds` they took (a store does, an
    /// exported file does not): the threads and instruction set are unknown.
    pub fn read_back(&mut self, engine: Option<String>, seconds: Option<f64>) {
        self.engine.read_back = Some(engine);
        self.seconds = seconds;
        self.values_per_second = seconds.map(|s| rate(self.values, s));
        self.isa = None;
    }

    /// Fills in the rare positions of `engine` (which has computed, or
    /// rebuilt its state from, the values `g`) with their values.
    pub fn set_rare(&mut self, engine: &dyn Engine, g: SeqRef<'_>) {
        self.rare_class = engine.rare_class();
        if self.rare_class.is_some() {
            let (list, complete) = rare_list(&engine.rare_positions(), g);
            self.rare_list = Some(list);
            self.rare_list_complete = Some(complete);
        } else {
            self.rare_list = None;
            self.rare_list_complete = None;
        }
    }

    /// Fills in what `detector` found in `seq`, the values G(0..) of
    /// `code` (or, for a windowed run, its kept prefix), and the
    /// arithmetic period `seq` shows, for a game that can have one.
    pub fn set_period(&mut self, code: &Code, detector: &Detector, seq: SeqRef<'_>) {
        self.period = detector.proven();
        self.apparent_period = detector.apparent().filter(|_| self.period.is_none());
        self.period_provable = detector.can_prove();
        let periodic = self.period.or(self.apparent_period).is_some();
        self.arithmetic_period = (!periodic && arithmetic::possible(code))
            .then(|| seq.apparent_arithmetic())
            .flatten();
        let notation = |style| {
            self.period
                .or(self.apparent_period)
                .and_then(|p| match seq {
                    SeqRef::U16(v) => period::notation(v, &p, NOTATION_MAX, style),
                    SeqRef::U32(v) => period::notation(v, &p, NOTATION_MAX, style),
                })
        };
        self.period_notation = notation(Notation::Text);
        self.period_notation_latex = notation(Notation::Latex);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys of `s` as JSON, in the order written (a summary without
    /// nested objects: every key is a top-level one).
    fn keys(s: &Summary) -> Vec<String> {
        let text = serde_json::to_string(s).expect("serialises");
        let parts: Vec<&str> = text.split('"').collect();
        // The odd parts are the strings; a key is one followed by ':'.
        (1..parts.len())
            .step_by(2)
            .filter(|&i| parts.get(i + 1).is_some_and(|p| p.starts_with(':')))
            .map(|i| parts[i].to_string())
            .collect()
    }

    #[test]
    fn the_json_keeps_its_keys_in_the_documented_order() {
        let code: Code = "0.6".parse().expect("a code");
        let info = EngineInfo {
            engine: "sparse",
            threads: 2,
            ..EngineInfo::default()
        };
        let s = Summary::new(&code, &Stats::default(), 1.5, 2, info);
        // GUIDE.md's list, then the period's and sparse space's keys.
        let documented = "code values max_value first_max_at zeros zeros_from_1 \
            last_value checksum seconds values_per_second bytes_per_value engine \
            threads rare_mask rare_positions rare_positions_with_0 last_rare_at isa \
            period apparent_period period_provable arithmetic_period period_notation \
            period_notation_latex rare_class rare_list rare_list_complete";
        assert_eq!(keys(&s), documented.split_whitespace().collect::<Vec<_>>());
        let json = serde_json::to_value(&s).expect("serialises");
        assert_eq!(json["engine"], "sparse");
        assert_eq!(json["threads"], 2);
        assert_eq!(json["seconds"], 1.5);
        assert!(json["isa"].is_string());
    }

    #[test]
    fn a_summary_read_back_says_null_for_what_its_file_does_not_record() {
        let code: Code = "0.77".parse().expect("a code");
        let mut s = Summary::new(&code, &Stats::default(), 0.0, 2, EngineInfo::default());
        s.read_back(Some("sparse".into()), Some(2.0));
        s.target = Some(5000);
        let json = serde_json::to_value(&s).expect("serialises");
        assert_eq!(json["engine"], "sparse");
        assert_eq!(json["seconds"], 2.0);
        assert!(json["threads"].is_null() && json["isa"].is_null());
        assert_eq!(json["target"], 5000);
        s.read_back(None, None);
        let json = serde_json::to_value(&s).expect("serialises");
        for unknown in ["engine", "threads", "isa", "seconds", "values_per_second"] {
            assert!(json[unknown].is_null(), "{unknown}");
        }
    }
}
