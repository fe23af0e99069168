//! The `octal` binary: a thin shell over the library. Its commands are the
//! files of `src/cli/`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
