//! `octal atlas`: a census directory made into a static web site (see the
//! library's `atlas` module and docs/atlas.md).

use octal::atlas::{self, Options};

use super::prelude::*;

#[derive(clap::Args)]
pub struct AtlasArgs {
    /// A census directory (`octal census --out DIR`): its census.jsonl,
    /// and its certificates/ when there are any.
    pub census: PathBuf,
    /// Where the site goes: a new or empty directory, or a previous atlas
    /// (only the files it made are replaced; nothing else is touched).
    #[arg(long, short, value_name = "SITE")]
    pub out: PathBuf,
    /// The most values computed, plotted and listed per class: 2^16, 1e5, …
    #[arg(long, allow_hyphen_values = true, default_value = "2^16")]
    pub plot: String,
    /// Threads computing the classes (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print nothing when done.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn atlas(args: AtlasArgs) -> Result<ExitCode> {
    let plot = parse_to("plot", &args.plot)?;
    if plot == 0 {
        return Err(input("--plot must be at least 1"));
    }
    let opts = Options {
        plot,
        threads: threads(args.threads)?,
    };
    let built = atlas::build(&args.census, &args.out, &opts)?;
    if !args.quiet {
        outln!(
            "atlas of {} classes in {}: {} files, {} KiB (index.html {} KiB), in {:.1} s; open {}",
            built.classes,
            args.out.display(),
            built.files,
            built.site_bytes.div_ceil(1024),
            built.index_bytes.div_ceil(1024),
            built.seconds,
            args.out.join("index.html").display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
