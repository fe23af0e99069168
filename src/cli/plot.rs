//! `octal plot`: G(n) against n as a PNG, SVG or PDF picture.

use octal::plot::{Format, Overlays, PlotOptions};

use super::prelude::*;

#[derive(clap::Args)]
pub struct PlotArgs {
    /// An octal code to compute (e.g. 0.6), or a store or exported
    /// sequence file to draw from.
    pub source: String,
    /// One past the last n drawn: required for a code; for a store or
    /// an exported file, all its values by default.
    #[arg(long, allow_hyphen_values = true)]
    pub to: Option<String>,
    /// First n drawn, to zoom in on a range.
    #[arg(long, default_value = "0", allow_hyphen_values = true)]
    pub from: String,
    /// The picture file: NAME.png, NAME.svg or NAME.pdf; `-` writes
    /// it to standard output (then --format is required).
    #[arg(long, short)]
    pub output: PathBuf,
    /// The picture format, instead of the one -o's name ends in.
    #[arg(long, value_parser = ["png", "svg", "pdf"])]
    pub format: Option<String>,
    /// Width in pixels (points in a PDF).
    #[arg(long, default_value_t = 1200)]
    pub width: u32,
    /// Height in pixels (points in a PDF).
    #[arg(long, default_value_t = 600)]
    pub height: u32,
    /// Logarithmic n axis (from n = 1).
    #[arg(long)]
    pub log_x: bool,
    #[command(flatten)]
    pub figure: FigureOpts,
    /// No progress display and no closing line.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub engine: EngineOpts,
}

/// What a figure for a paper needs: labels, sizes in inches, fonts in
/// points.
#[derive(clap::Args, Debug, Clone)]
pub struct FigureOpts {
    /// The title (default: the code and the range drawn); `--title ""`
    /// draws none.
    #[arg(long)]
    title: Option<String>,
    /// The n axis' label.
    #[arg(long, default_value = "n")]
    xlabel: String,
    /// The value axis' label.
    #[arg(long, default_value = "G(n)")]
    ylabel: String,
    /// Tick-label size (title and axis labels in proportion): pixels, or
    /// points with --width-in/--height-in.
    #[arg(long, default_value_t = 13)]
    font_size: u32,
    /// Side of each value's mark when every value is drawn: pixels, or
    /// points with --width-in/--height-in; fractions such as 0.3 are
    /// drawn at least one pixel (one point in a PDF) wide.
    #[arg(long, default_value_t = 2.0)]
    point_size: f64,
    /// How rare positions are marked: `rings` (red rings, sized with the
    /// picture and the points) or `none`.
    #[arg(long, default_value = "rings", value_parser = ["rings", "none"])]
    rare: String,
    /// Width in inches (replaces --width): PNG at --dpi, SVG at 96 px an
    /// inch, PDF at 72 points an inch.
    #[arg(long, requires = "height_in")]
    width_in: Option<f64>,
    /// Height in inches (replaces --height).
    #[arg(long, requires = "width_in")]
    height_in: Option<f64>,
    /// Pixels an inch of a PNG sized in inches.
    #[arg(long, default_value_t = 300)]
    dpi: u32,
}

impl FigureOpts {
    /// The picture's size in its format's units, and how many of them
    /// make a point (fonts and marks are given in points when sized in
    /// inches, in units otherwise).
    fn size(&self, format: Format, width: u32, height: u32) -> Result<(u32, u32, f64)> {
        let (Some(w), Some(h)) = (self.width_in, self.height_in) else {
            return Ok((width, height, 1.0));
        };
        let per_inch = match format {
            Format::Png => self.dpi as f64,
            Format::Svg => 96.0,
            Format::Pdf => 72.0,
        };
        let side = |inches: f64, flag: &str| -> Result<u32> {
            let units = (inches * per_inch).round();
            // NaN fails both tests.
            if !(inches > 0.0 && (1.0..=u32::MAX as f64).contains(&units)) {
                return Err(input(format!("--{flag} {inches}: not a usable size")));
            }
            Ok(units as u32)
        };
        Ok((side(w, "width-in")?, side(h, "height-in")?, per_inch / 72.0))
    }
}

/// The picture format: `--format`, else the one `-o`'s name ends in; a
/// binary picture is never written to a terminal.
fn format_of(format: Option<String>, output: &Path) -> Result<Format> {
    let format = match format {
        Some(f) => Format::from_name(&f).expect("clap checked the format"),
        None if is_stdout(output) => return Err(input("-o - needs --format png, svg or pdf")),
        None => Format::from_path(output)?,
    };
    if is_stdout(output) && format != Format::Svg && std::io::stdout().is_terminal() {
        return Err(input(
            "refusing to write a binary picture to a terminal; redirect standard output",
        ));
    }
    Ok(format)
}

pub fn plot(args: PlotArgs) -> Result<ExitCode> {
    let PlotArgs {
        source,
        to,
        from,
        output,
        format,
        width,
        height,
        log_x,
        figure,
        quiet,
        engine,
    } = args;
    let format = format_of(format, &output)?;
    let source = parse_source(&source)?;
    let (width, height, per_point) = figure.size(format, width, height)?;
    let scaled = |x: u32| ((x as f64 * per_point).round() as u32).max(1);
    let default_title = figure.title.is_none();
    let to = to.map(|t| parse_to("to", &t)).transpose()?;
    if to.is_none() && matches!(source, Source::Code(_)) {
        return Err(input("--to is required when plotting a code"));
    }
    let mut opts = PlotOptions {
        width,
        height,
        from: parse_to("from", &from)?,
        // 0 until a file says how many values it holds.
        to: to.unwrap_or(0),
        log_x,
        title: figure.title.clone().unwrap_or_default(),
        xlabel: figure.xlabel.clone(),
        ylabel: figure.ylabel.clone(),
        font_size: scaled(figure.font_size),
        point_size: figure.point_size * per_point,
        rings: figure.rare == "rings",
        max_value: None,
    };
    if to.is_some() {
        octal::plot::check(&opts, u64::MAX)?;
    } else {
        // Size and range are checked once the file's length is known
        // (two values at least, for a log axis from n = 1).
        octal::plot::check(
            &PlotOptions {
                to: opts.from + 2,
                ..opts.clone()
            },
            u64::MAX,
        )?;
    }
    if is_stdout(&output) {
        let p = plot_source(source, &mut opts, default_title, format, quiet, &engine)?;
        let mut out = std::io::stdout().lock();
        out.write_all(&p.bytes)
            .and_then(|()| out.flush())
            .map_err(stdout_error)?;
        return Ok(ExitCode::SUCCESS);
    }
    // Fail on an unwritable path before computing anything: the
    // picture goes to a temporary file next to it, put in place once
    // complete, so a full disk leaves no empty picture. An existing
    // picture is replaced; the file drawn from, a device, a directory or
    // a symbolic link never is.
    let input = match &source {
        Source::File(p) => Some(p.clone()),
        Source::Code(_) => None,
    };
    let inputs: Vec<&Path> = input.iter().map(PathBuf::as_path).collect();
    let mut out = octal::store::output::Output::create(&output, true, &inputs).map_err(|e| {
        let io = matches!(e, StoreError::Io { .. });
        let e = anyhow::Error::from(e);
        if io {
            e.context(format!("cannot write {}", output.display()))
        } else {
            e
        }
    })?;
    let picture = plot_source(source, &mut opts, default_title, format, quiet, &engine)?;
    out.file()
        .write_all(&picture.bytes)
        .with_context(|| format!("writing {}", output.display()))?;
    out.commit()?;
    if !quiet {
        outln!(
            "wrote {} ({}x{}, G({}..{}), {})",
            output.display(),
            width,
            height,
            opts.from,
            opts.to,
            if picture.every_point {
                "every value"
            } else {
                "density per pixel column"
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Most values of a run in memory copied to find their rare positions as
/// a store of them would (32 to 64 MiB).
const COPY_MAX: u64 = 1 << 24;

/// The rare positions of G(0..to) of `code` (a run's, a store's or a
/// file's values), for the plot's rings: the rare list of the summary a
/// fresh sparse engine makes of those values (as `octal run` on a store
/// gives it), so that a store and its code draw the same rings.
fn rare_overlays(code: &Code, g: SeqRef<'_>) -> Overlays {
    let rare = match run::rare_of_values(code, g) {
        Ok(summary) => summary.rare_list.unwrap_or_default(),
        // A game the sparse engine does not take has no rare positions.
        Err(_) => Vec::new(),
    };
    Overlays {
        rare: rare.into_iter().map(|(n, _)| n).collect(),
        period: None,
    }
}

/// Gets the values of a plot and draws them.
fn plot_source(
    source: Source,
    opts: &mut PlotOptions,
    default_title: bool,
    format: Format,
    quiet: bool,
    engine: &EngineOpts,
) -> Result<octal::plot::Picture> {
    match source {
        Source::Code(code) => {
            let job = engine.job(code, opts.to)?;
            let bar = progress_bar(job.to, quiet);
            let outcome = run::run(&job, &mut |p| update(&bar, p))?;
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            if default_title {
                opts.title = format!("{}: G(n) for {} ≤ n < {}", job.code, opts.from, opts.to);
            }
            if opts.from == 0 {
                opts.max_value = Some(outcome.summary.max_value);
            }
            // Rings as for a store of the same values (the mask chosen
            // from them all), so that both pictures are one; past
            // COPY_MAX values, the run's own list, rather than a copy of
            // them all.
            let rare = if opts.to <= COPY_MAX {
                rare_overlays(&job.code, outcome.seq.view(0, opts.to as usize)).rare
            } else {
                let list = outcome.summary.rare_list.clone().unwrap_or_default();
                list.into_iter().map(|(n, _)| n).collect()
            };
            let overlays = Overlays {
                rare,
                period: outcome
                    .summary
                    .period
                    .as_ref()
                    .map(|p| octal::plot::Period {
                        preperiod: p.preperiod,
                        period: p.period,
                    }),
            };
            draw(&outcome.seq, opts, &overlays, format, quiet)
        }
        Source::File(path) => {
            let opened = open_saved(&path)?;
            if opts.to == 0 {
                opts.to = opened.len();
            }
            check_range(&path, opts.from, Some(opts.to), opened.len())?;
            // All the checksums at once, before drawing.
            opened.view(opts.from, opts.to)?;
            if default_title {
                opts.title = format!(
                    "{}: G(n) for {} ≤ n < {}",
                    opened.code(),
                    opts.from,
                    opts.to
                );
            }
            if opts.from == 0 && opened.len() == opts.to {
                opts.max_value = Some(opened.max_value());
            }
            // The rare positions of all the values held, as the file's
            // summary gives them (its mask is chosen from them all).
            let overlays = match opened.view(0, opened.len())? {
                Some(g) => rare_overlays(opened.code(), g),
                None => {
                    let g = opened.read(0, opened.len())?;
                    rare_overlays(opened.code(), g.view(0, g.len()))
                }
            };
            draw(&opened, opts, &overlays, format, quiet)
        }
    }
}

/// Draws `values` as `opts` says, with a progress bar on a terminal when
/// the range is long (10^7 values or more).
fn draw(
    values: &dyn octal::plot::Values,
    opts: &PlotOptions,
    overlays: &Overlays,
    format: Format,
    quiet: bool,
) -> Result<octal::plot::Picture> {
    let span = opts.to - opts.from;
    let bar = progress_bar(span, quiet || span < 10_000_000);
    let picture = octal::plot::render(values, opts, overlays, format, &|done| {
        if let Some(bar) = &bar {
            bar.set_position(done);
        }
    })?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(picture)
}
