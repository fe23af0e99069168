//! The `octal` command line: one file per subcommand, the flags they
//! share in [`args`], what they print in [`output`], and the exit codes in
//! [`exit`]. The work is the library's.

mod args;
mod atlas;
mod census;
mod certify;
mod compare;
mod docs;
mod equiv;
mod exit;
mod export;
mod family;
mod games;
mod output;
mod plot;
mod run;
mod stored;
mod values;
mod verify;
mod window;

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// What every command file uses.
mod prelude {
    pub use std::io::{IsTerminal as _, Write as _};
    pub use std::path::{Path, PathBuf};
    pub use std::process::ExitCode;
    pub use std::time::{Duration, Instant};

    pub use anyhow::{Context as _, Result};
    pub use indicatif::{ProgressBar, ProgressStyle};

    pub use octal::code::Code;
    pub use octal::engine::EngineKind;
    pub use octal::period::Period;
    pub use octal::run::{self, Ending, Job, JobError, Summary};
    pub use octal::seq::SeqRef;
    pub use octal::store::seqfile::{self, Kind, SeqFile};
    pub use octal::store::{self, Opened, Store, StoreError, DEFAULT_CHUNK_VALUES};

    pub use super::args::*;
    pub use super::exit::*;
    pub use super::output::*;
    pub use super::stored::*;
    pub use crate::{out, outln};
}

/// `octal --help`: the commands by task (clap lists subcommands in one
/// flat list); every command's own `--help` ends with an example.
const HELP_TEMPLATE: &str = "\
{before-help}{about-with-newline}
{usage-heading} {usage}

Compute a game's values:
  run              Compute G(0) … G(N−1) and print a summary
  resume           Continue a stored run from its last checkpoint
  values           Print G(n) for a range of n (plain, OEIS b-file or CSV)

Compare and survey games:
  compare          Where two games first differ, or that they never do
  census           Every code of up to D digits, classified and grouped
  family           Run a family of games as one batch and tabulate them
  equiv            Which codes of the census share a code's class, and how

Keep, check and share values:
  verify           Check a store or exported file against its checksums
  export           Write a store's values to a compressed sequence file
  import           Make a store from an exported file, to resume it
  certify          Write or check a certificate of a proven period
  atlas            Make a census into a static web site (index, class pages)

Figures:
  plot             Draw G(n) against n: PNG, SVG or PDF

Games built on octal games:
  cookie-cutter    Cookie Cutter: strips through the engine, boards by search
  vertex-deletion  Vertex Deletion on digraphs: directed paths as 0.6

Shell:
  completions      Print a completion script for a shell
  man              Print or write the manual pages
  help             Print this message or the help of the given command

Options:
{options}{after-help}";

#[derive(Parser)]
#[command(
    name = "octal",
    version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("OCTAL_COMMIT"), ")"),
    about = "Exact Grundy sequences of octal games",
    help_template = HELP_TEMPLATE,
    after_help = "Example:\n  octal run .161 --to 2^20     # then `octal <command> --help`"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compute G(0) … G(N−1) and print a summary.
    #[command(
        after_help = "Example:\n  octal run .161 --to 2^27               # stored in runs/0.161.octal"
    )]
    Run(run::RunArgs),
    /// Run a family of games as one batch and tabulate them.
    #[command(after_help = "Example:\n  octal family cookie-cutter --k 1..8 --to 1e5")]
    Family {
        #[command(subcommand)]
        kind: family::FamilyKind,
    },
    /// Continue a stored run from its last checkpoint.
    #[command(after_help = "Example:\n  octal resume runs/0.161.octal")]
    Resume(run::ResumeArgs),
    /// Print G(M) … G(N−1), one per line, computed for a code or read from
    /// a store or an exported file.
    #[command(
        after_help = "Example:\n  octal values .77 --to 1000 --format bfile --offset 1 > b1.txt"
    )]
    Values(values::ValuesArgs),
    /// Check a store or exported file against its checksums (and K values
    /// against the reference engine). Exit 0: ok; 1: damaged; 3: a header
    /// slot was lost, so the store opens at its older checkpoint.
    #[command(after_help = "Example:\n  octal verify runs/0.6.octal --recompute 100")]
    Verify(verify::VerifyArgs),
    /// Write a store's values to a zstd-compressed sequence file.
    #[command(after_help = "Example:\n  octal export runs/0.6.octal -o 0.6.oseq")]
    Export(export::ExportArgs),
    /// Make a store from an exported file, to continue computing with
    /// `octal resume`.
    #[command(after_help = "Example:\n  octal import 0.6.oseq --store runs/0.6.octal")]
    Import(export::ImportArgs),
    /// Compare two games: the first n where G_A(n) ≠ G_B(n + K), "equal
    /// to N", or, when both are proven periodic, equality for every n.
    #[command(
        after_help = "Example:\n  octal compare .137 .4 --shift auto       # G_0.137(n) = G_0.4(n+2)"
    )]
    Compare(compare::CompareArgs),
    /// Which codes of the census share a code's class, and how (the
    /// shift against the class' first code).
    #[command(
        after_help = "Example:\n  octal equiv .137                         # Dawson's chess: its class and shifts"
    )]
    Equiv(equiv::EquivArgs),
    /// Draw G(n) against n as a picture: PNG, SVG or PDF, by the name of
    /// -o or by --format.
    #[command(after_help = "Example:\n  octal plot 0.6 --to 30000 -o 0.6.png")]
    Plot(plot::PlotArgs),
    /// Every octal code of up to D digits, classified (periodic with its
    /// proof, open, or stopped by a cap) and grouped by equal sequences.
    #[command(after_help = "Example:\n  octal census --digits 2 --to 2^16")]
    Census(census::CensusArgs),
    /// Write a certificate of a proven period (CODE.cert.json), check one
    /// without the engines (--check), or certify a census (--census).
    #[command(
        after_help = "Example:\n  octal certify 4.344 && octal certify --check 4.344.cert.json"
    )]
    Certify(certify::CertifyArgs),
    /// Make a census directory into a static web site: an index of its
    /// classes and a page per class, browsable from file://.
    #[command(
        after_help = "Example:\n  octal atlas data/census/digits-3-2^25 -o runs/atlas   # open runs/atlas/index.html"
    )]
    Atlas(atlas::AtlasArgs),
    /// Cookie Cutter: a strip through the octal engine, a board by exact search.
    #[command(
        after_help = "Example:\n  octal cookie-cutter --k 6 --grid 1x40    # a strip: the octal game 0.333337"
    )]
    CookieCutter(games::CookieCutterArgs),
    /// Print a completion script for a shell, e.g.
    /// `octal completions bash > ~/.local/share/bash-completion/completions/octal`.
    #[command(
        after_help = "Example:\n  octal completions bash > ~/.local/share/bash-completion/completions/octal"
    )]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `octal man > octal.1; man ./octal.1`;
    /// with --dir, write it and one page per subcommand (`octal-run.1`, …)
    /// into a directory.
    #[command(after_help = "Example:\n  octal man > octal.1; man ./octal.1")]
    Man(docs::ManArgs),
    /// Vertex Deletion on digraphs: directed paths through the engine (0.6).
    #[command(after_help = "Example:\n  octal vertex-deletion --directed-paths 5,8,13")]
    VertexDeletion(games::VertexDeletionArgs),
}

/// Parses the command line, runs the command, and maps its outcome to an
/// exit code ([`exit::code`]).
pub fn main() -> ExitCode {
    // Like other Unix filters, end quietly when the reader of our output
    // goes away (`octal values … | head`) instead of failing to print.
    // SAFETY: setting a signal's disposition to the default before any
    // other thread exists.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    use clap::error::ErrorKind;
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e)
            if e.use_stderr()
                && e.kind() != ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            eprintln!("octal: {}", exit::one_line(&e));
            return ExitCode::from(exit::BAD_INPUT);
        }
        // --help and --version: clap's text, to stdout, which must take it.
        Err(e) => return docs::print_clap_output(&e),
    };
    // A bad OCTAL_ISA is bad input, reported before any work.
    if let Err(e) = octal_kernels::isa::from_env() {
        eprintln!("octal: {e}");
        return ExitCode::from(exit::BAD_INPUT);
    }
    // Whatever was printed must reach stdout: a full disk is an error.
    let result = dispatch(cli.command).and_then(|code| {
        std::io::stdout().flush().map_err(output::stdout_error)?;
        Ok(code)
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("octal: {e:#}");
            ExitCode::from(exit::code(&e))
        }
    }
}

fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Run(a) => run::run(a),
        Command::Resume(a) => run::resume(a),
        Command::Family { kind } => family::family(kind),
        Command::Values(a) => values::values(a),
        Command::Verify(a) => verify::verify(a),
        Command::Export(a) => export::export(a),
        Command::Import(a) => export::import(a),
        Command::Compare(a) => compare::compare(a),
        Command::Equiv(a) => equiv::equiv(a),
        Command::Census(a) => census::census(a),
        Command::Certify(a) => certify::certify(a),
        Command::Atlas(a) => atlas::atlas(a),
        Command::Plot(a) => plot::plot(a),
        Command::CookieCutter(a) => games::cookie_cutter(a),
        Command::VertexDeletion(a) => games::vertex_deletion(a),
        Command::Completions { shell } => docs::completions(shell),
        Command::Man(a) => docs::man(a),
    }
}
