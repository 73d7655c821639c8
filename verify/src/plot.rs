//! Plots of reports as SVG (`--plot FILE.svg`): one mean and its 95% interval
//! per player and case, the reference ceilings as dashed lines.
//!
//! Every game's report maps its rows into a [`Plot`]; drawing is written once here.

use std::path::Path;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::scoreboard::Scoreboard;
use crate::stats::{Mean, Wdl};

/// One case of a series: a mean and its 95% interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// The case (a board size, `(N,H)`, a starting board...).
    pub case: String,
    /// The mean.
    pub mean: f64,
    /// The low end of the 95% interval.
    pub low: f64,
    /// The high end of the 95% interval.
    pub high: f64,
}

impl Point {
    /// A mean ± its 95% half-width (no bar for a single sample, which has none).
    pub fn mean(case: impl Into<String>, mean: &Mean) -> Point {
        let half = if mean.ci95.is_nan() { 0.0 } else { mean.ci95 };
        Point {
            case: case.into(),
            mean: mean.mean,
            low: mean.mean - half,
            high: mean.mean + half,
        }
    }

    /// An exact value (no interval).
    pub fn exact(case: impl Into<String>, value: f64) -> Point {
        Point {
            case: case.into(),
            mean: value,
            low: value,
            high: value,
        }
    }

    /// A win rate with its Wilson 95% interval.
    pub fn win_rate(case: impl Into<String>, wdl: &Wdl) -> Point {
        let (low, high) = wdl.win_rate_ci95();
        Point {
            case: case.into(),
            mean: wdl.win_rate(),
            low,
            high,
        }
    }
}

/// One player's points, case by case.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The player (or pairing) as the legend shows it.
    pub name: String,
    /// Its cases, in any order (the plot orders cases as first seen).
    pub points: Vec<Point>,
}

/// A plot: series of players over cases, and reference ceilings.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    /// The title.
    pub title: String,
    /// What the cases are (`board side N`).
    pub x_label: String,
    /// What is measured, with its unit (`win rate (fraction of games)`).
    pub y_label: String,
    /// The players.
    pub series: Vec<Series>,
    /// Reference ceilings (clairvoyant, oracle, optimal), drawn as dashed lines.
    pub ceilings: Vec<Series>,
    /// The value axis' range; from the data when `None`.
    pub y_range: Option<(f64, f64)>,
}

/// Why a plot could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// Nothing to draw.
    #[error("nothing to plot")]
    Empty,
    /// The drawing failed.
    #[error("drawing the plot: {0}")]
    Draw(String),
    /// The file could not be written. The message includes the OS error, so
    /// it is not also given as `source()` (which would repeat it).
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        error: std::io::Error,
    },
}

fn draw_error(e: impl std::fmt::Display) -> PlotError {
    PlotError::Draw(e.to_string())
}

/// Colours told apart also by colour-blind readers (Okabe and Ito), then greys.
const COLOURS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(120, 120, 120),
    RGBColor(0, 0, 0),
];

/// Ceilings are dark red, dashed.
const CEILING: RGBColor = RGBColor(160, 20, 40);

const FONT: &str = "sans-serif";

/// The widest plot, legend included, so that it fits a common screen.
pub const MAX_WIDTH: u32 = 1200;

/// The widest legend (longer names run past its edge rather than widen the plot).
const MAX_LEGEND_WIDTH: u32 = 400;

const LEGEND_HEADER: &str = "legend (bars: 95% interval)";

impl Plot {
    /// The cases in the order first seen over the series, then the ceilings.
    pub fn cases(&self) -> Vec<String> {
        let mut cases: Vec<String> = Vec::new();
        for point in self
            .series
            .iter()
            .chain(&self.ceilings)
            .flat_map(|s| &s.points)
        {
            if !cases.contains(&point.case) {
                cases.push(point.case.clone());
            }
        }
        cases
    }

    fn value_range(&self) -> (f64, f64) {
        if let Some(range) = self.y_range {
            return range;
        }
        let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
        for p in self
            .series
            .iter()
            .chain(&self.ceilings)
            .flat_map(|s| &s.points)
        {
            low = low.min(p.low).min(p.mean);
            high = high.max(p.high).max(p.mean);
        }
        let pad = ((high - low) * 0.08).max(0.05 * high.abs().max(1.0));
        (low - pad, high + pad)
    }

    /// The plot as an SVG document.
    pub fn to_svg(&self) -> Result<String, PlotError> {
        let cases = self.cases();
        if cases.is_empty() {
            return Err(PlotError::Empty);
        }
        // Ceilings' names get " (ceiling)" in the legend.
        let names = (self.series.iter().map(|s| s.name.chars().count()))
            .chain(self.ceilings.iter().map(|s| s.name.chars().count() + 10))
            .chain([LEGEND_HEADER.len() - 8]);
        let legend_width = (70 + 8 * names.max().unwrap_or(0) as u32).min(MAX_LEGEND_WIDTH);
        let chart_width = (560 + 38 * cases.len() as u32).clamp(760, MAX_WIDTH - legend_width);
        let width = chart_width + legend_width;
        let longest_case = cases.iter().map(String::len).max().unwrap_or(0) as u32;
        let rotated = cases.len() > 8 || longest_case > 10;
        let x_area = if rotated {
            30 + 7 * longest_case.min(30)
        } else {
            50
        };
        let height = 480 + x_area;
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
            root.fill(&WHITE).map_err(draw_error)?;
            let root = root.titled(&self.title, (FONT, 22)).map_err(draw_error)?;
            let (chart_area, legend_area) =
                root.split_horizontally(width.saturating_sub(legend_width));
            self.draw_chart(&chart_area, &cases, rotated, x_area)?;
            self.draw_legend(&legend_area)?;
            root.present().map_err(draw_error)?;
        }
        Ok(svg)
    }

    fn draw_chart(
        &self,
        area: &DrawingArea<SVGBackend<'_>, Shift>,
        cases: &[String],
        rotated: bool,
        x_area: u32,
    ) -> Result<(), PlotError> {
        let mut chart = self.draw_axes(area, cases, rotated, x_area)?;
        let index = |case: &str| cases.iter().position(|c| c == case).expect("a listed case");
        for ceiling in &self.ceilings {
            draw_ceiling(&mut chart, ceiling, &index)?;
        }
        // Series side by side within a case, so that intervals do not overlap.
        let count = self.series.len();
        let step = if count > 1 {
            (0.5 / count as f64).min(0.12)
        } else {
            0.0
        };
        for (k, series) in self.series.iter().enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            let shift = (k as f64 - (count as f64 - 1.0) / 2.0) * step;
            draw_series(&mut chart, series, colour, |case| {
                index(case) as f64 + shift
            })?;
        }
        Ok(())
    }

    /// The chart's frame: its axes, their labels (a case per tick) and the grid.
    fn draw_axes<'a, 'b>(
        &self,
        area: &'a DrawingArea<SVGBackend<'b>, Shift>,
        cases: &[String],
        rotated: bool,
        x_area: u32,
    ) -> Result<Chart<'a, 'b>, PlotError> {
        let n = cases.len();
        let (y_low, y_high) = self.value_range();
        let mut chart = ChartBuilder::on(area)
            .margin(12)
            .x_label_area_size(x_area)
            .y_label_area_size(80)
            .build_cartesian_2d(-0.5..n as f64 - 0.5, y_low..y_high)
            .map_err(draw_error)?;
        let label_of = |x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n {
                let case = &cases[i as usize];
                if rotated {
                    // Rotated labels are centred on the tick: as many no-break
                    // spaces before them put the text wholly below the axis.
                    // (A no-break space is narrower than most letters.)
                    "\u{a0}".repeat(case.chars().count() * 3 / 2 + 3) + case
                } else {
                    case.clone()
                }
            } else {
                String::new()
            }
        };
        let x_style = if rotated {
            TextStyle::from((FONT, 13).into_font()).transform(FontTransform::Rotate90)
        } else {
            TextStyle::from((FONT, 14).into_font())
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            // With at most n + 1 ticks over n cases, the ticks fall on the cases.
            .x_labels(n + 1)
            .bold_line_style(RGBColor(225, 225, 225))
            .light_line_style(TRANSPARENT)
            .y_labels(10)
            .x_label_formatter(&label_of)
            .x_label_style(x_style)
            .y_label_style((FONT, 14))
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .axis_desc_style((FONT, 16))
            .draw()
            .map_err(draw_error)?;
        Ok(chart)
    }

    fn draw_legend(&self, area: &DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), PlotError> {
        let mut y = 40;
        area.draw(&Text::new(LEGEND_HEADER, (8, y - 24), (FONT, 13)))
            .map_err(draw_error)?;
        for (k, series) in self.series.iter().enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            area.draw(&PathElement::new(
                vec![(10, y), (40, y)],
                colour.stroke_width(2),
            ))
            .map_err(draw_error)?;
            area.draw(&Circle::new((25, y), 4, colour.filled()))
                .map_err(draw_error)?;
            area.draw(&Text::new(series.name.clone(), (48, y - 8), (FONT, 15)))
                .map_err(draw_error)?;
            y += 24;
        }
        for ceiling in &self.ceilings {
            area.draw(&PathElement::new(
                vec![(10, y), (18, y)],
                CEILING.stroke_width(2),
            ))
            .map_err(draw_error)?;
            area.draw(&PathElement::new(
                vec![(24, y), (32, y)],
                CEILING.stroke_width(2),
            ))
            .map_err(draw_error)?;
            let name = format!("{} (ceiling)", ceiling.name);
            area.draw(&Text::new(name, (48, y - 8), (FONT, 15)))
                .map_err(draw_error)?;
            y += 24;
        }
        Ok(())
    }

    /// Writes the SVG to `path` (atomically).
    pub fn write_svg(&self, path: &Path) -> Result<(), PlotError> {
        let svg = self.to_svg()?;
        tabula_tables::atomic::write_file(path, |out| out.write_all(svg.as_bytes())).map_err(
            |error| PlotError::Io {
                path: path.display().to_string(),
                error,
            },
        )
    }
}

/// The chart of a plot: cases on x (at 0, 1, ...), values on y.
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A ceiling as a dashed line over its cases (a short bar for a single case).
fn draw_ceiling(
    chart: &mut Chart<'_, '_>,
    ceiling: &Series,
    index: &dyn Fn(&str) -> usize,
) -> Result<(), PlotError> {
    let mut points: Vec<(f64, f64)> = ceiling
        .points
        .iter()
        .map(|p| (index(&p.case) as f64, p.mean))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let style = CEILING.stroke_width(2);
    if points.len() == 1 {
        let (x, y) = points[0];
        points = vec![(x - 0.4, y), (x + 0.4, y)];
    }
    chart
        .draw_series(DashedLineSeries::new(points, 8, 5, style))
        .map_err(draw_error)?;
    Ok(())
}

/// A series: its means joined by a faint line, each with its 95% bar and a dot;
/// `x` places a case.
fn draw_series(
    chart: &mut Chart<'_, '_>,
    series: &Series,
    colour: RGBColor,
    x: impl Fn(&str) -> f64,
) -> Result<(), PlotError> {
    let mut points: Vec<(f64, &Point)> = series.points.iter().map(|p| (x(&p.case), p)).collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    chart
        .draw_series(LineSeries::new(
            points.iter().map(|(x, p)| (*x, p.mean)),
            colour.mix(0.5).stroke_width(1),
        ))
        .map_err(draw_error)?;
    let cap = 0.04;
    let style = colour.stroke_width(2);
    let bars = points
        .iter()
        .filter(|(_, p)| p.high > p.low)
        .flat_map(|(x, p)| {
            [
                PathElement::new(vec![(*x, p.low), (*x, p.high)], style),
                PathElement::new(vec![(x - cap, p.low), (x + cap, p.low)], style),
                PathElement::new(vec![(x - cap, p.high), (x + cap, p.high)], style),
            ]
        });
    chart.draw_series(bars).map_err(draw_error)?;
    chart
        .draw_series(
            points
                .iter()
                .map(|(x, p)| Circle::new((*x, p.mean), 4, colour.filled())),
        )
        .map_err(draw_error)?;
    Ok(())
}

/// Each entrant's win rate per case (Wilson 95% intervals), from a scoreboard.
pub fn win_rates(board: &Scoreboard) -> Vec<Series> {
    per_entrant(board, |case, tally| Point::win_rate(case, &tally.wdl))
}

/// Each entrant's draw rate per case (Wilson 95% intervals), for the
/// entrants that drew any game, as `NAME: draws`.
pub fn draw_rates(board: &Scoreboard) -> Vec<Series> {
    let series = per_entrant(board, |case, tally| {
        let (low, high) = crate::stats::wilson95(tally.wdl.draws, tally.wdl.games());
        Point {
            case: case.into(),
            mean: tally.wdl.draw_rate(),
            low,
            high,
        }
    });
    series
        .into_iter()
        .filter(|s| s.points.iter().any(|p| p.mean > 0.0))
        .map(|s| Series {
            name: format!("{}: draws", s.name),
            ..s
        })
        .collect()
}

/// Each entrant's mean score per case (± 95%), from a scoreboard.
pub fn mean_scores(board: &Scoreboard) -> Vec<Series> {
    per_entrant(board, |case, tally| {
        Point::mean(case, &Mean::of(&tally.scores))
    })
}

fn per_entrant(
    board: &Scoreboard,
    point: impl Fn(&str, &crate::scoreboard::Tally) -> Point,
) -> Vec<Series> {
    board
        .entrants()
        .iter()
        .map(|entrant| Series {
            name: entrant.clone(),
            points: board
                .cases()
                .iter()
                .filter_map(|case| board.tally(entrant, case).map(|t| point(case, t)))
                .collect(),
        })
        .collect()
}

/// Checks that `svg` is well-formed XML (every tag closed in order, quoted
/// attributes, no bare `<` or `&` in text) and returns its text content, one
/// piece a line: what the plot tests read their labels from.
pub fn svg_text(svg: &str) -> Result<String, String> {
    let mut open: Vec<&str> = Vec::new();
    let mut text = String::new();
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        let content = &rest[..start];
        if content.contains('>') {
            return Err(format!("a stray '>' before {}", short(&rest[start..])));
        }
        for (i, _) in content.match_indices('&') {
            let entity = &content[i..];
            if !["&lt;", "&gt;", "&amp;", "&quot;", "&apos;", "&#"]
                .iter()
                .any(|e| entity.starts_with(e))
            {
                return Err(format!("a bare '&' in {}", short(content)));
            }
        }
        text.push_str(content);
        text.push('\n');
        let Some(end) = rest[start..].find('>').map(|e| start + e) else {
            return Err(format!("a tag does not end: {}", short(&rest[start..])));
        };
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if !tag.matches('"').count().is_multiple_of(2) {
            return Err(format!("unbalanced quotes: {}", short(tag)));
        }
        if let Some(name) = tag.strip_prefix('/') {
            if open.pop() != Some(name.trim()) {
                return Err(format!("closing {name} out of order"));
            }
        } else if !tag.ends_with('/') {
            match tag.split_whitespace().next() {
                Some(name) => open.push(name),
                None => return Err("an empty tag".into()),
            }
        }
    }
    if !rest.trim().is_empty() {
        return Err(format!("text after the root: {}", short(rest)));
    }
    if !open.is_empty() {
        return Err(format!("unclosed: {open:?}"));
    }
    Ok(text)
}

fn short(text: &str) -> String {
    text.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn well_formed(svg: &str) -> String {
        svg_text(svg).unwrap_or_else(|e| panic!("{e}"))
    }

    fn sample() -> Plot {
        let point = |case: &str, mean: f64| Point {
            case: case.into(),
            mean,
            low: mean - 0.1,
            high: mean + 0.1,
        };
        Plot {
            title: "Win rate & <cases>".into(),
            x_label: "board side N".into(),
            y_label: "win rate (fraction of games)".into(),
            series: vec![
                Series {
                    name: "greedy".into(),
                    points: vec![point("N=6", 0.3), point("N=8", 0.4)],
                },
                Series {
                    name: "best".into(),
                    points: vec![point("N=8", 0.7), point("N=10", 0.8)],
                },
            ],
            ceilings: vec![Series {
                name: "oracle".into(),
                points: vec![Point::exact("N=6", 0.9), Point::exact("N=10", 0.95)],
            }],
            y_range: Some((0.0, 1.0)),
        }
    }

    #[test]
    fn a_small_plot_is_well_formed_svg_with_its_labels() {
        let plot = sample();
        assert_eq!(plot.cases(), ["N=6", "N=8", "N=10"]);
        for bad in [
            "<svg><g></svg>",
            "<svg a=\"1></svg>",
            "<svg>a & b</svg>",
            "<svg></svg>x",
        ] {
            assert!(svg_text(bad).is_err(), "{bad}");
        }
        let svg = plot.to_svg().unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        let text = well_formed(&svg);
        for label in [
            "Win rate &amp; &lt;cases&gt;",
            "board side N",
            "win rate (fraction of games)",
            "greedy",
            "best",
            "oracle (ceiling)",
            "N=6",
            "N=8",
            "N=10",
            "0.0",
            "1.0",
        ] {
            assert!(text.contains(label), "{label} missing from {text}");
        }
        // Two series of points, one circle each, and their interval bars.
        assert!(svg.matches("<circle").count() >= 4 + 2, "{svg}");
        // The dashed ceiling: many short segments of its colour.
        assert!(svg.matches("#A01428").count() > 4, "{svg}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plot.svg");
        plot.write_svg(&path).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), svg);
    }

    #[test]
    fn many_cases_rotate_their_labels_and_an_empty_plot_is_an_error() {
        let mut plot = sample();
        plot.series[0].points = (0..30)
            .map(|i| Point::exact(format!("case {i}"), i as f64 / 30.0))
            .collect();
        let svg = plot.to_svg().unwrap();
        well_formed(&svg);
        assert!(svg.contains("rotate(90"), "rotated labels");
        assert!(svg.contains("case 29"));
        plot.series.clear();
        plot.ceilings.clear();
        assert!(matches!(plot.to_svg(), Err(PlotError::Empty)));
    }

    #[test]
    fn scoreboard_series_follow_entrants_and_cases() {
        use crate::nim;
        let agents = vec!["optimal".to_string(), "random".to_string()];
        let board = nim::verify(
            &agents,
            &[5, 8],
            10,
            3,
            &|_| {},
            &crate::record::GameLog::off(),
        );
        let series = win_rates(&board);
        assert_eq!(series.len(), 1);
        assert_eq!(series[0].name, "optimal vs random");
        let cases: Vec<&str> = series[0].points.iter().map(|p| p.case.as_str()).collect();
        assert_eq!(cases, ["heap 5", "heap 8"]);
        for p in &series[0].points {
            assert!(p.low <= p.mean && p.mean <= p.high, "{p:?}");
        }
        assert_eq!(mean_scores(&board)[0].points.len(), 2);
    }

    #[test]
    fn a_refused_file_is_said_once() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("plot.svg");
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), &link).unwrap();
        let error = sample().write_svg(&link).unwrap_err();
        // The message holds the cause; a source would repeat it in a chain.
        assert!(std::error::Error::source(&error).is_none());
        assert_eq!(error.to_string().matches("symbolic link").count(), 1);
    }
}
