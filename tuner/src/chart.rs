//! The chart of a batch table: for each requested number of digits, a stacked bar of how many
//! knobs ended in each format (half at the bottom, then single, then double), and the tuning time
//! as a line on a second axis. Drawn with plotters, as SVG and as PNG.
//!
//! The PNG needs a font that does not depend on the machine: the Ubuntu typeface (Ubuntu Font
//! Licence) that `epaint_default_fonts` embeds is registered with plotters' `ab_glyph` text
//! renderer. The SVG names a generic sans-serif family and leaves the font to its viewer.

use std::path::Path;
use std::sync::Once;

use anyhow::{anyhow, Context, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::batch::{CrateTable, Row};

/// The font family the chart's text asks for.
const FAMILY: &str = "sans-serif";

/// Pixel size of the PNG (the SVG has the same size in user units).
const SIZE: (u32, u32) = (960, 600);

/// Colours of half, single and double, and of the time line.
const HALF: RGBColor = RGBColor(0x2c, 0x7b, 0xb6);
const SINGLE: RGBColor = RGBColor(0xfd, 0xae, 0x61);
const DOUBLE: RGBColor = RGBColor(0xd7, 0x19, 0x1c);
const TIME: RGBColor = RGBColor(0x33, 0x33, 0x33);

/// A tick of the time axis, whose range is `0..max`: with a decimal when the range is short, so
/// that ticks half a second apart do not print the same whole number.
fn time_label(t: f64, max: f64) -> String {
    if max < 10.0 {
        format!("{t:.1}")
    } else {
        format!("{t:.0}")
    }
}

/// Where a format's layer of a stacked bar starts and ends, given (#half, #single, #double).
type Span = fn((usize, usize, usize)) -> (usize, usize);

fn register_font() -> Result<()> {
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(|| {
        result = plotters::style::register_font(FAMILY, FontStyle::Normal, epaint_default_fonts::UBUNTU_LIGHT)
            .map_err(|_| anyhow!("the embedded font cannot be read"));
    });
    result
}

/// Draws the chart of `table` to `svg` and `png`.
///
/// # Errors
///
/// When a file cannot be written or the drawing fails.
pub fn draw(table: &CrateTable, svg: &Path, png: &Path) -> Result<()> {
    register_font()?;
    {
        let root = SVGBackend::new(svg, SIZE).into_drawing_area();
        plot(&root, table).with_context(|| format!("drawing {}", svg.display()))?;
        root.present().map_err(|e| anyhow!("{e}")).with_context(|| format!("writing {}", svg.display()))?;
    }
    let root = BitMapBackend::new(png, SIZE).into_drawing_area();
    plot(&root, table).with_context(|| format!("drawing {}", png.display()))?;
    root.present().map_err(|e| anyhow!("{e}")).with_context(|| format!("writing {}", png.display()))?;
    Ok(())
}

/// The rows that found a configuration, with their census and time.
fn tuned_rows(table: &CrateTable) -> Vec<(&Row, (usize, usize, usize), f64)> {
    table.rows.iter().filter_map(|r| Some((r, r.census?, r.seconds?))).collect()
}

fn plot<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, table: &CrateTable) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e}");
    root.fill(&WHITE).map_err(err)?;
    let rows = tuned_rows(table);
    let digits: Vec<f64> = table.rows.iter().map(|r| r.digits).collect();
    let (lo, hi) = digits.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &d| (lo.min(d), hi.max(d)));
    let (lo, hi) = if lo.is_finite() { (lo - 0.7, hi + 0.7) } else { (0.0, 1.0) };
    let knobs = table.knobs.max(1) as f64;
    // Headroom above the bars and the line for the legend, top left.
    let max_time = rows.iter().map(|(_, _, t)| *t).fold(0.0_f64, f64::max).max(1.0) * 1.4;

    let title = format!("{}: knobs per format and tuning time, by required digits", table.package);
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FAMILY, 26).into_font())
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .right_y_label_area_size(70)
        .build_cartesian_2d(lo..hi, 0.0..knobs * 1.4)
        .map_err(err)?
        .set_secondary_coord(lo..hi, 0.0..max_time);
    let label = (FAMILY, 18).into_font();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .x_labels(digits.len().max(2))
        .y_labels(table.knobs.min(12) + 1)
        .x_label_formatter(&|x| if (x - x.round()).abs() < 1e-9 { format!("{x:.0}") } else { String::new() })
        .y_label_formatter(&|y| if (y - y.round()).abs() < 1e-9 { format!("{y:.0}") } else { String::new() })
        .x_desc("required correct digits")
        .y_desc("knobs")
        .label_style(label.clone())
        .axis_desc_style(label.clone())
        .draw()
        .map_err(err)?;
    chart
        .configure_secondary_axes()
        .y_desc("tuning time (s)")
        .y_label_formatter(&|t| time_label(*t, max_time))
        .label_style(label.clone())
        .axis_desc_style(label.clone())
        .draw()
        .map_err(err)?;

    let bar = |d: f64, y0: f64, y1: f64, color: RGBColor| Rectangle::new([(d - 0.32, y0), (d + 0.32, y1)], color.filled());
    let layers: [(&str, RGBColor, Span); 3] = [
        ("half", HALF, |(h, _, _)| (0, h)),
        ("single", SINGLE, |(h, s, _)| (h, h + s)),
        ("double", DOUBLE, |(h, s, d)| (h + s, h + s + d)),
    ];
    for (name, color, span) in layers {
        chart
            .draw_series(rows.iter().map(|(row, census, _)| {
                let (y0, y1) = span(*census);
                bar(row.digits, y0 as f64, y1 as f64, color)
            }))
            .map_err(err)?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
    }
    let times: Vec<(f64, f64)> = rows.iter().map(|(row, _, t)| (row.digits, *t)).collect();
    chart
        .draw_secondary_series(LineSeries::new(times.clone(), TIME.stroke_width(2)))
        .map_err(err)?
        .label("tuning time")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 14, y)], TIME.stroke_width(2)));
    chart
        .draw_secondary_series(times.iter().map(|&p| Circle::new(p, 4, TIME.filled())))
        .map_err(err)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(label)
        .draw()
        .map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::time_label;

    #[test]
    fn time_ticks_of_a_short_range_are_distinct() {
        // control's requirements take 1.5 to 1.8 s: ticks every half second.
        let short: Vec<String> = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5].map(|t| time_label(t, 2.5)).to_vec();
        assert_eq!(short, ["0.0", "0.5", "1.0", "1.5", "2.0", "2.5"]);
        assert_eq!(time_label(150.0, 308.0), "150");
    }
}
