//! `octal completions` and `octal man`, generated from the clap
//! definitions, and the help and version texts clap prints.

use clap::CommandFactory as _;

use super::prelude::*;
use super::Cli;

pub fn completions(shell: clap_complete::Shell) -> Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "octal", &mut script);
    std::io::stdout().write_all(&script).map_err(stdout_error)?;
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args)]
pub struct ManArgs {
    /// Write `octal.1` and one page per subcommand (`octal-run.1`, …, the
    /// pages the main one refers to) into this directory, made if missing,
    /// instead of printing the main page.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// The command the pages describe: without the `help` subcommand, whose
/// page nothing would write.
fn documented() -> clap::Command {
    Cli::command().disable_help_subcommand(true)
}

pub fn man(a: ManArgs) -> Result<ExitCode> {
    if let Some(dir) = a.dir {
        std::fs::create_dir_all(&dir)
            .map_err(|e| input(format!("{}: making the directory: {e}", dir.display())))?;
        let mut cmd = documented();
        cmd.build();
        write_pages(cmd, &dir)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(documented())
        .render(&mut page)
        .context("writing the manual page")?;
    std::io::stdout().write_all(&page).map_err(stdout_error)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes the page of `cmd` and of each of its visible subcommands into
/// `dir` (`octal.1`, `octal-run.1`, …), each through the one safe writer
/// (never through a link, never over a store or a device).
fn write_pages(cmd: clap::Command, dir: &std::path::Path) -> Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub.clone(), dir)?;
    }
    let man = clap_mangen::Man::new(cmd);
    let path = dir.join(man.get_filename());
    let mut page = Vec::new();
    man.render(&mut page)
        .context("rendering the manual pages")?;
    octal::store::output::write_file_io(&path, &page)
        .with_context(|| format!("{}: writing the manual page", path.display()))
}

/// Prints what clap stops at without an error (`--help`, `--version`) and
/// ends with its exit code, or with 1 when stdout cannot take it.
pub fn print_clap_output(e: &clap::Error) -> ExitCode {
    match e.print().and_then(|()| std::io::stdout().flush()) {
        Ok(()) => ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(FAILED)),
        Err(err) => {
            eprintln!("octal: {}", stdout_error(err));
            ExitCode::from(FAILED)
        }
    }
}
