//! octal: exact Grundy sequences of octal take-and-break games.
//!
//! The library does the work; the `octal` binary is a thin shell over it.
//! [`code`] parses games, [`engine`] computes their values, [`run`] drives
//! an engine over a long sequence, [`stats`] summarises it, [`plot`]
//! draws it and [`formats`] writes it as OEIS b-files or CSV; [`atlas`]
//! makes a census into a static web site.

pub mod about;
pub mod atlas;
pub mod census;
pub mod certificate;
pub mod code;
pub mod compare;
pub mod count;
pub mod engine;
pub mod family;
pub mod font;
pub mod formats;
pub mod games;
pub mod literature;
pub mod pdf;
pub mod period;
pub mod plot;
pub mod progress;
pub mod report;
pub mod run;
pub mod seq;
pub mod slurm;
pub mod stats;
pub mod store;
pub mod verify;
pub mod window;

pub use code::{Code, CodeError};
pub use engine::{compute, Engine, EngineKind};
