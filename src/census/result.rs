//! What a census keeps of one code's run: how it ended ([`CodeResult`])
//! and the results file that carries it between runs ([`Kept`]), checked
//! against the values it was made from.

use serde::{Deserialize, Serialize};

use crate::engine::RareClass;
use crate::period::{ArithmeticPeriod, Period};

/// How one code of a census ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Status {
    /// Proven periodic.
    Periodic {
        period: u64,
        preperiod: u64,
        proven_at: u64,
    },
    /// Computed to its target without a proof.
    Open,
    /// Stopped before its target: by the time cap or the memory cap.
    Stopped {
        why: String,
        /// The time cap, in seconds, when that stopped it: a census run
        /// again with the same cap keeps the result rather than spend the
        /// cap once more.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cap_seconds: Option<f64>,
    },
}

/// What a census keeps of one code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodeResult {
    pub code: String,
    pub spellings: Vec<String>,
    #[serde(flatten)]
    pub status: Status,
    /// Values computed: G(0) … G(reach − 1).
    pub reach: u64,
    /// The target it was run to.
    pub target: u64,
    pub max_value: u32,
    /// A number in results; the tables' rows write it in hex (`0x1ee`),
    /// and both read back.
    #[serde(deserialize_with = "hex_or_number", default)]
    pub rare_mask: Option<u32>,
    pub rare_positions: Option<u64>,
    pub last_rare_at: Option<u64>,
    /// Which positions are rare (see [`RareClass`]); null without sparse
    /// space or when the code was stopped.
    #[serde(default)]
    pub rare_class: Option<RareClass>,
    /// The rare positions n ≥ 1 below the reach with their values,
    /// `[[n, G(n)], …]`, as a run's summary gives them (at most
    /// [`crate::run::RARE_LIST_MAX`]).
    #[serde(default)]
    pub rare_list: Option<Vec<(u64, u32)>>,
    /// Whether `rare_list` holds them all.
    #[serde(default)]
    pub rare_list_complete: Option<bool>,
    /// The values' checksum (FNV-1a-64, as `octal run` gives it) of
    /// G(0) … G(reach − 1).
    #[serde(default)]
    pub checksum: Option<String>,
    /// The nim-sequence notation of a proven period (up to the end of its
    /// first period, when short: see [`crate::period::notation`]).
    #[serde(default)]
    pub period_notation: Option<String>,
    /// For an open code, the period its values show without a proof
    /// (a game beyond octal has no bound to prove one with; an octal one
    /// may not yet have reached its bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apparent_period: Option<Period>,
    /// The arithmetic period the values show, G(n + p) = G(n) + s (apparent:
    /// no theorem here proves one; only codes beyond octal can have one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arithmetic_period: Option<ArithmeticPeriod>,
    /// G(2^j) for every 2^j below the reach.
    pub at_powers_of_two: Vec<u32>,
    pub seconds: f64,
}

/// A mask as a number (`494`) or in hex (`"0x1ee"`), or null.
fn hex_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Mask {
        Number(u32),
        Text(String),
    }
    match Option::<Mask>::deserialize(d)? {
        None => Ok(None),
        Some(Mask::Number(n)) => Ok(Some(n)),
        Some(Mask::Text(t)) => u32::from_str_radix(t.trim_start_matches("0x"), 16)
            .map(Some)
            .map_err(|_| serde::de::Error::custom(format!("not a mask: {t:?}"))),
    }
}

impl CodeResult {
    /// What an open code's values show without a proof, in words: its
    /// apparent arithmetic period or apparent period; `None` for any other
    /// code. The tables and the atlas say it this way.
    pub fn apparent(&self) -> Option<String> {
        if self.status != Status::Open {
            return None;
        }
        if let Some(a) = &self.arithmetic_period {
            return Some(a.describe());
        }
        self.apparent_period.map(|p| {
            format!(
                "apparent period {}, preperiod {}: seen over {} values, not proven",
                p.period, p.preperiod, self.reach
            )
        })
    }

    /// Keeps what an open code's run saw without a proof, when it held over
    /// at least the later half of the values computed: a regularity that
    /// shows only near the end (`.16` looks periodic with period 3 over its
    /// last 41 values of 8,192, and many hexadecimal codes take an
    /// arithmetic period for their last few periods) says little.
    pub fn set_apparent(&mut self, period: Option<Period>, arithmetic: Option<ArithmeticPeriod>) {
        let open = self.status == Status::Open;
        self.apparent_period = period.filter(|p| open && p.preperiod <= self.reach / 2);
        self.arithmetic_period = arithmetic.filter(|a| open && a.preperiod <= a.checked_to / 2);
    }

    /// The proven period, for [`Side`]s.
    pub fn period(&self) -> Option<Period> {
        match self.status {
            Status::Periodic {
                period,
                preperiod,
                proven_at,
            } => Some(Period {
                period,
                preperiod,
                proven_at,
                bound: None,
            }),
            _ => None,
        }
    }
}

/// What a census keeps of one code in `results/CODE.json`: its result,
/// the facts of the values it was made from (the store's code, how many
/// values, their checksum), and a checksum of both, so that a re-run can
/// tell a result it may use from a damaged one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    pub format: String,
    pub version: u32,
    pub result: CodeResult,
    pub values: ValuesFacts,
    /// FNV of the JSON of the fields above.
    pub fnv: String,
}

/// The values a result was made from: G(0) … G(count − 1) of `code`,
/// whose value checksum is `checksum`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValuesFacts {
    pub code: String,
    pub count: u64,
    pub checksum: String,
}

/// Why a kept result cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeptError {
    #[error("not a census result ({0})")]
    Parse(String),
    #[error("written by another version of octal ({0})")]
    Version(String),
    #[error("its checksum does not match its contents")]
    Checksum,
    #[error("it holds the result of {found}, not {wanted}")]
    WrongCode { found: String, wanted: String },
}

const KEPT_FORMAT: &str = "octal-census-result";
/// 3: results carry the rare positions, the values' checksum and the
/// period notation (a result of version 2 is made again from its store).
const KEPT_VERSION: u32 = 3;

impl Kept {
    pub fn new(result: CodeResult, values: ValuesFacts) -> Kept {
        let mut kept = Kept {
            format: KEPT_FORMAT.into(),
            version: KEPT_VERSION,
            result,
            values,
            fnv: String::new(),
        };
        kept.fnv = kept.digest();
        kept
    }

    fn digest(&self) -> String {
        crate::stats::Checksum::of_json(&(&self.format, self.version, &self.result, &self.values))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a result serialises") + "\n"
    }

    /// Reads a kept result of `code`, checking its format and checksum.
    pub fn parse(bytes: &[u8], code: &str) -> Result<Kept, KeptError> {
        let kept: Kept = match serde_json::from_slice(bytes) {
            Ok(k) => k,
            Err(e) => {
                // A result written before results carried checksums.
                if serde_json::from_slice::<CodeResult>(bytes).is_ok() {
                    return Err(KeptError::Version("no checksum".into()));
                }
                return Err(KeptError::Parse(e.to_string()));
            }
        };
        if kept.format != KEPT_FORMAT || kept.version != KEPT_VERSION {
            return Err(KeptError::Version(format!(
                "format {:?} version {}",
                kept.format, kept.version
            )));
        }
        if kept.digest() != kept.fnv {
            return Err(KeptError::Checksum);
        }
        for found in [&kept.result.code, &kept.values.code] {
            if found != code {
                return Err(KeptError::WrongCode {
                    found: found.clone(),
                    wanted: code.into(),
                });
            }
        }
        Ok(kept)
    }
}

#[cfg(test)]
impl CodeResult {
    /// A result with only the facts a test states; nothing sparse, no
    /// checksum, no notation.
    pub(crate) fn bare(code: &str, status: Status, reach: u64, max_value: u32) -> CodeResult {
        CodeResult {
            code: code.into(),
            spellings: Vec::new(),
            status,
            reach,
            target: reach,
            max_value,
            rare_mask: None,
            rare_positions: None,
            last_rare_at: None,
            rare_class: None,
            rare_list: None,
            rare_list_complete: None,
            checksum: None,
            period_notation: None,
            apparent_period: None,
            arithmetic_period: None,
            at_powers_of_two: Vec::new(),
            seconds: 0.0,
        }
    }
}
