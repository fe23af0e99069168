//! `octal completions` and `octal man`, generated from the clap
//! definitions.

use clap::CommandFactory as _;

use super::prelude::*;
use super::Cli;

pub fn completions(shell: clap_complete::Shell) -> Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "octal", &mut script);
    std::io::stdout().write_all(&script).map_err(stdout_error)?;
    Ok(ExitCode::SUCCESS)
}

pub fn man() -> Result<ExitCode> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .context("writing the manual page")?;
    std::io::stdout().write_all(&page).map_err(stdout_error)?;
    Ok(ExitCode::SUCCESS)
}
