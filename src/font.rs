//! The one font every picture measures and draws text with. It is its own
//! leaf so that the plots ([`crate::plot`]) and the PDF backend
//! ([`crate::pdf`]), which anchors its text with the same metrics, both
//! use it without importing each other.

use std::sync::OnceLock;

use plotters::style::FontStyle;

/// Registers the font shipped with the `dejavu` crate, once: plotters draws
/// text with it, so no system font libraries are needed.
pub fn font() -> &'static str {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .map_err(|_| ())
            .expect("the DejaVu Sans font parses");
    });
    "sans-serif"
}
