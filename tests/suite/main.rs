//! The integration tests, as one binary: one link of the library and the
//! binary instead of one per file. Each module is one concern; `common`
//! holds what they share. The Python package and the NEON kernels under
//! qemu are tested by binaries of their own (tests/python.rs,
//! tests/neon_qemu.rs), run as steps of their own: they need a Python
//! environment and a cross toolchain (see README, Development).

#[path = "../common/mod.rs"]
mod common;

mod answers;
mod architecture;
mod arithmetic;
mod atlas;
mod census;
mod census_four;
mod certify;
mod cli;
mod compare;
mod diagonal;
mod family;
mod faults;
mod faults_census;
mod faults_crashes;
mod faults_files;
mod faults_periods;
mod figures;
mod games;
mod hexadecimal;
mod isa_cli;
mod isa_paths;
mod literature;
mod period;
mod plot;
mod researcher;
mod researcher_census;
mod seeds;
mod sparse_engine;
mod store;
mod verify_progress;
mod window;
mod window_prefix;
