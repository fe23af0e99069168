//! Which instruction set the kernels run on: the host's features detected
//! once, the path chosen once, and `OCTAL_ISA` to force a lower one.
//!
//! Every dispatching kernel (`strike_xors`, `Runs::flag`, `or_pair_xors`,
//! `pairs_hit`, …) takes the path [`current`] names, and has a `*_on`
//! form that takes a path as an argument, so that tests and benchmarks
//! reach every path the host has ([`available`]), not only the one
//! dispatch picks. A path is named by an [`Isa`]; what runs is its
//! `Level`, which also says whether the AVX-512 chip has VBMI (decided
//! here, once: see `Isa::level`), and `crate::platform` holds the one
//! `match` on the level that each kernel makes. The paths:
//!
//! | path | where | what |
//! | --- | --- | --- |
//! | `scalar` | everywhere | portable Rust, no intrinsics: blocked and branch-light, what every other architecture gets |
//! | `avx2` | x86-64 with AVX2, POPCNT and BMI1 (every AVX2 chip: Intel from 2013, AMD from 2015) | 256-bit vectors, bit counts and scans in one instruction |
//! | `avx512` | x86-64 with AVX-512 F and BW (and what `avx2` needs) | 512-bit vectors and mask registers; kernels that need VBMI, VBMI2 and BITALG take their AVX2 path on chips without them (Skylake-SP, Cascade Lake) |
//! | `neon` | aarch64 | 128-bit vectors |
//!
//! Beside these, each kernel keeps a reference twin (`*_reference`): the
//! plainest code that states what the kernel computes, which the tests pin
//! every path to.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

/// An instruction set the kernels have paths for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Isa {
    /// Portable Rust, no intrinsics.
    Scalar = 1,
    /// x86-64 AVX2, with POPCNT and BMI1.
    Avx2 = 2,
    /// x86-64 AVX-512 (F and BW at least), with what `Avx2` needs.
    Avx512 = 3,
    /// aarch64 NEON (Advanced SIMD).
    Neon = 4,
}

/// What runs: a path ([`Isa`]) as this host has it. AVX-512 is two levels,
/// with and without VBMI (with VBMI2 and BITALG), so that a kernel whose
/// AVX-512 form needs the byte permutes says once, in its `match`, what
/// runs on a chip without them (Skylake-SP, Cascade Lake): its AVX2 code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub(crate) enum Level {
    /// Portable Rust, no intrinsics (the `scalar` path).
    Portable = 1,
    /// x86-64 AVX2, with POPCNT and BMI1.
    Avx2 = 2,
    /// x86-64 AVX-512 F and BW, without VBMI, VBMI2 or BITALG.
    Avx512 = 3,
    /// x86-64 AVX-512 F and BW, with VBMI, VBMI2 and BITALG.
    Avx512Vbmi = 4,
    /// aarch64 NEON.
    Neon = 5,
}

impl Level {
    /// The path this level runs.
    pub(crate) const fn isa(self) -> Isa {
        match self {
            Level::Portable => Isa::Scalar,
            Level::Avx2 => Isa::Avx2,
            Level::Avx512 | Level::Avx512Vbmi => Isa::Avx512,
            Level::Neon => Isa::Neon,
        }
    }
}

/// Every path, in the order [`available`] lists them.
pub const ALL: [Isa; 4] = [Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Neon];

/// The name of the environment variable that forces a path.
pub const ENV: &str = "OCTAL_ISA";

impl Isa {
    /// The name `OCTAL_ISA` and `--json` use.
    pub const fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
            Isa::Neon => "neon",
        }
    }

    /// What the path needs of the CPU, in words (for error messages).
    pub const fn needs(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Avx2 => "avx2 (AVX2 with POPCNT and BMI1)",
            Isa::Avx512 => "avx512 (AVX-512 F and BW, AVX2, POPCNT and BMI1)",
            Isa::Neon => "neon",
        }
    }

    /// The level this path runs at on this host: the AVX-512 path with or
    /// without VBMI as the CPU has it.
    #[inline]
    pub(crate) fn level(self) -> Level {
        match self {
            Isa::Scalar => Level::Portable,
            Isa::Avx2 => Level::Avx2,
            Isa::Avx512 if features().avx512_vbmi => Level::Avx512Vbmi,
            Isa::Avx512 => Level::Avx512,
            Isa::Neon => Level::Neon,
        }
    }

    /// Whether this host can run the path.
    #[inline]
    pub fn on_host(self) -> bool {
        let f = features();
        match self {
            Isa::Scalar => true,
            Isa::Avx2 => f.avx2,
            Isa::Avx512 => f.avx512,
            Isa::Neon => f.neon,
        }
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Isa {
    type Err = IsaError;
    /// One of `scalar`, `avx2`, `avx512`, `neon` (any case, no spaces).
    fn from_str(s: &str) -> Result<Self, IsaError> {
        ALL.into_iter()
            .find(|isa| isa.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| IsaError::Unknown(s.to_string()))
    }
}

/// Why a path can't be chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IsaError {
    /// Not the name of a path.
    Unknown(String),
    /// A path this host's CPU lacks.
    NotOnHost(Isa),
}

impl fmt::Display for IsaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IsaError::Unknown(s) => write!(
                f,
                "{ENV}={s:?} is not an instruction set: use scalar, avx2, avx512 or neon"
            ),
            IsaError::NotOnHost(isa) => write!(
                f,
                "{ENV}={isa}: this CPU does not have {} (it has: {})",
                isa.needs(),
                available().map(Isa::name).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

impl std::error::Error for IsaError {}

/// What this host's CPU offers the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// AVX2, with POPCNT and BMI1 (x86-64).
    pub avx2: bool,
    /// AVX-512 F and BW, and all that `avx2` needs (x86-64): the `avx512`
    /// path.
    pub avx512: bool,
    /// AVX-512 VBMI, VBMI2, BITALG and POPCNT too (Ice Lake, Zen 4 and
    /// later): the byte permutes of the diagonal kernel and of the checked
    /// runs' low bytes.
    pub avx512_vbmi: bool,
    /// NEON (aarch64; always present there).
    pub neon: bool,
}

/// The host's features, detected on first use.
#[inline]
pub fn features() -> Features {
    static FEATURES: OnceLock<Features> = OnceLock::new();
    *FEATURES.get_or_init(detect)
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Features {
    use std::arch::is_x86_feature_detected as has;
    // The AVX2 path counts and finds bits with POPCNT and BMI1 (TZCNT,
    // BLSR), which every AVX2 chip has (Intel from Haswell, AMD from
    // Excavator); without them a count is a dozen vector operations.
    // AVX-512 paths also call AVX2 code: every AVX-512 chip has all of
    // these, but a virtual machine may hide some, and then the path that
    // needs them is not offered.
    let avx2 = has!("avx2") && has!("popcnt") && has!("bmi1");
    let avx512 = avx2 && has!("avx512f") && has!("avx512bw");
    Features {
        avx2,
        avx512,
        avx512_vbmi: avx512 && has!("avx512vbmi") && has!("avx512vbmi2") && has!("avx512bitalg"),
        neon: false,
    }
}

#[cfg(target_arch = "aarch64")]
fn detect() -> Features {
    Features {
        avx2: false,
        avx512: false,
        avx512_vbmi: false,
        neon: std::arch::is_aarch64_feature_detected!("neon"),
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn detect() -> Features {
    Features {
        avx2: false,
        avx512: false,
        avx512_vbmi: false,
        neon: false,
    }
}

/// Every path this host can run, scalar first, best last.
pub fn available() -> impl Iterator<Item = Isa> {
    ALL.into_iter().filter(|isa| isa.on_host())
}

/// The best path this host has.
pub fn best() -> Isa {
    let f = features();
    if f.avx512 {
        Isa::Avx512
    } else if f.avx2 {
        Isa::Avx2
    } else if f.neon {
        Isa::Neon
    } else {
        Isa::Scalar
    }
}

/// The chosen level (`Level as u8`), 0 until the first [`current`].
static CHOSEN: AtomicU8 = AtomicU8::new(0);

/// The path the dispatching kernels take: [`select`]ed, else `OCTAL_ISA`
/// where it names a path this host has, else [`best`]. (A program should
/// call [`from_env`] first, to report a bad `OCTAL_ISA` rather than have
/// it ignored.)
#[inline]
pub fn current() -> Isa {
    level().isa()
}

/// The level of the [`current`] path: what every dispatching kernel
/// passes to `crate::platform`, a byte load once chosen.
#[inline]
pub(crate) fn level() -> Level {
    match CHOSEN.load(Ordering::Relaxed) {
        1 => Level::Portable,
        2 => Level::Avx2,
        3 => Level::Avx512,
        4 => Level::Avx512Vbmi,
        5 => Level::Neon,
        _ => choose(),
    }
}

#[cold]
fn choose() -> Level {
    let level = from_env().ok().flatten().unwrap_or_else(best).level();
    // A select() that raced this one wins.
    match CHOSEN.compare_exchange(0, level as u8, Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => level,
        Err(_) => self::level(),
    }
}

/// The path `OCTAL_ISA` names: `None` when it is unset or empty, an error
/// when it names no path or one this host lacks.
pub fn from_env() -> Result<Option<Isa>, IsaError> {
    match std::env::var(ENV) {
        Ok(s) if !s.is_empty() => {
            let isa: Isa = s.parse()?;
            if isa.on_host() {
                Ok(Some(isa))
            } else {
                Err(IsaError::NotOnHost(isa))
            }
        }
        // Unset or empty.
        Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(s)) => Err(IsaError::Unknown(format!("{s:?}"))),
    }
}

/// Makes every dispatching kernel take `isa` from now on.
pub fn select(isa: Isa) -> Result<(), IsaError> {
    if !isa.on_host() {
        return Err(IsaError::NotOnHost(isa));
    }
    CHOSEN.store(isa.level() as u8, Ordering::Relaxed);
    Ok(())
}

/// The level of `isa`, after a panic unless the host has it: the `*_on`
/// forms of the kernels take their path through it, so that asking for a
/// path the CPU lacks is a clear panic, never an illegal instruction. (The
/// dispatching kernels take [`level`], on the host by construction.) The
/// current path costs a byte load and a compare; only another path looks
/// at the features.
#[inline(always)]
pub(crate) fn on_host_level(isa: Isa) -> Level {
    let current = level();
    if isa == current.isa() {
        return current;
    }
    assert!(isa.on_host(), "the {isa} path is not on this host");
    isa.level()
}

/// Every level this host can run: those of its paths, and AVX-512
/// without VBMI where it has VBMI (a subset of what the chip offers), so
/// that the tests reach the code Skylake-SP and Cascade Lake run.
#[cfg(test)]
pub(crate) fn levels_on_host() -> Vec<Level> {
    let mut levels: Vec<Level> = available().map(Isa::level).collect();
    if levels.contains(&Level::Avx512Vbmi) {
        levels.push(Level::Avx512);
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for isa in ALL {
            assert_eq!(isa.name().parse::<Isa>(), Ok(isa));
            assert_eq!(isa.name().to_uppercase().parse::<Isa>(), Ok(isa));
        }
        assert!(matches!("sse2".parse::<Isa>(), Err(IsaError::Unknown(_))));
        assert!(matches!(" avx2".parse::<Isa>(), Err(IsaError::Unknown(_))));
    }

    #[test]
    fn the_host_has_scalar_and_its_best() {
        let have: Vec<Isa> = available().collect();
        assert_eq!(have[0], Isa::Scalar);
        assert!(have.contains(&best()));
        assert!(best().on_host());
        // x86-64 and aarch64 never both.
        assert!(!(Isa::Neon.on_host() && Isa::Avx2.on_host()));
        // AVX-512 here means F and BW; every such chip has AVX2.
        if Isa::Avx512.on_host() {
            assert!(Isa::Avx2.on_host());
        }
        #[cfg(target_arch = "aarch64")]
        assert!(Isa::Neon.on_host());
    }

    /// Under qemu too (scripts/test-aarch64.sh): the NEON paths are the
    /// ones dispatch and the tests take there.
    #[test]
    #[cfg(target_arch = "aarch64")]
    fn aarch64_has_scalar_and_neon() {
        assert_eq!(available().collect::<Vec<_>>(), [Isa::Scalar, Isa::Neon]);
        assert_eq!(best(), Isa::Neon);
    }

    #[test]
    fn each_path_runs_at_its_own_level() {
        for isa in available() {
            assert_eq!(isa.level().isa(), isa);
        }
        let vbmi = features().avx512_vbmi;
        assert_eq!(Isa::Avx512.level() == Level::Avx512Vbmi, vbmi);
        assert_eq!(Isa::Avx512.level() == Level::Avx512, !vbmi);
        assert_eq!(level().isa(), current());
    }

    #[test]
    fn a_path_the_host_lacks_is_refused() {
        let missing = ALL.into_iter().find(|isa| !isa.on_host());
        let missing = missing.expect("no host has both avx2 and neon");
        assert_eq!(select(missing), Err(IsaError::NotOnHost(missing)));
        let msg = IsaError::NotOnHost(missing).to_string();
        assert!(
            msg.contains(missing.name()) && msg.contains("scalar"),
            "{msg}"
        );
    }
}
