//! `sweep kalah`: the first player's optimal margin from the start of every
//! Kalah(m, n) of a family, with the search's cost: rows for JSON, a Markdown
//! table and a plot (the Ioiwari sweep's counterpart, `ioiwari::sweep`).

use std::time::{Duration, Instant};

use serde::Serialize;
use tabula_solver::kalah::{
    Bounds, Capture, Endgame, ExactSolver, Limits, Rules, SearchOptions, SearchProgress,
};

use crate::plot::{Plot, Point, Series};
use crate::report::Table;
use crate::tournament::Progress;

/// One variant of the sweep.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Row {
    /// Pits a side (m).
    pub pits: u8,
    /// Seeds a pit at the start (n).
    pub seeds: u8,
    /// The first player's final margin under optimal play; absent when a
    /// limit stopped the search (see `unproven`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<i32>,
    /// The bounds proven when a limit stopped the search.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unproven: Option<Unproven>,
    /// W, D or L for the first player, as far as the bounds settle it (W
    /// once the lower bound is above 0, even with the value unproven); `?`
    /// when they allow two.
    pub outcome: &'static str,
    /// Positions searched.
    pub nodes: u64,
    /// Seconds the search took, when timings are asked for: the report is
    /// otherwise the same on every run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
}

/// The bounds a limit left on a value (a sweep's variant, a query's board or move).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Unproven {
    /// The value is at least this.
    pub lower: i32,
    /// The value is at most this.
    pub upper: i32,
}

/// W, D or L: the first player's result under optimal play from its margin.
pub fn outcome_letter(value: i32) -> &'static str {
    outcome_within(value, value)
}

/// The first player's result as far as `lower <= value <= upper` settles
/// it: W, D or L, or `?` when the bounds allow more than one.
pub fn outcome_within(lower: i32, upper: i32) -> &'static str {
    match (lower.signum(), upper.signum()) {
        (1, _) => "W",
        (_, -1) => "L",
        (0, 0) => "D",
        _ => "?",
    }
}

/// The measured runs a search's length is predicted from (docs/results/kalah.md, release):
/// the default search of Kalah(6, 4) from the start without an endgame table
/// (48 seeds): 63,177,814 nodes in 40.6 CPU seconds (1.56 M a second); nodes grow
/// 1.361 times a seed more on the board (Kalah(6, 3) to (6, 4): 1.56 M to 63.2 M
/// for 12 seeds) and shrink 1.066 times a seed more in the table (Kalah(6, 4):
/// 63.2 M without one, 20.2 M with S = 18).
const MEASURED: [f64; 5] = [63_177_814.0, 48.0, 1.361, 1.066, 1.56e6];
/// A search predicted to take longer than this many seconds is noted at its start.
const LONG_SECONDS: f64 = 600.0;

/// The nodes a search of a board of `seeds` seeds with an endgame table of
/// `max_seeds` (0: none) is predicted to take: an extrapolation of the
/// measured runs above, rough (it predicts Kalah(5, 4)'s 4.5 M nodes as 5.6 M).
pub fn predicted_nodes(seeds: u32, max_seeds: u32) -> f64 {
    let [nodes, measured_seeds, growth, shrink, _] = MEASURED;
    let more = seeds as i32 - measured_seeds as i32;
    nodes * growth.powi(more) / shrink.powi(max_seeds as i32)
}

/// A one-line note for the start of a search predicted to take more than
/// ten minutes ([`predicted_nodes`] at the measured nodes a second), else `None`.
pub fn long_search_note(seeds: u32, max_seeds: u32) -> Option<String> {
    let nodes = predicted_nodes(seeds, max_seeds);
    let hours = nodes / MEASURED[4] / 3600.0;
    (hours * 3600.0 > LONG_SECONDS).then(|| {
        format!(
            "this search of {seeds} seeds (endgame table: {max_seeds}) may take some {nodes:.0e} \
             nodes, {hours:.1} CPU-hours at 1.6 M nodes a second (extrapolated from Kalah(6, 3) \
             and (6, 4), docs/results/kalah.md); --time-limit stops it with proven bounds"
        )
    })
}

/// The sweep's rows, in the order the variants were given.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SweepReport {
    /// One row per variant.
    pub rows: Vec<Row>,
}

/// How the sweep searches each variant.
#[derive(Clone, Default)]
pub struct SweepOptions {
    /// The transposition table has 2^`table_bits` slots.
    pub table_bits: u32,
    /// Search threads (0 counts as 1).
    pub threads: usize,
    /// The endgame table to probe, of every variant's pits and rules (see
    /// [`tabula_solver::kalah::check_endgame`]).
    pub endgame: Option<Endgame>,
    /// Time each search (the report then differs from run to run).
    pub timings: bool,
    /// Stop each variant's search after this long, with the bounds proven.
    pub time_limit: Option<Duration>,
    /// Stop each variant's search after this many nodes (tests: no clock).
    pub node_limit: Option<u64>,
}

/// Solves each variant's start as `options` say; `progress` counts
/// variants, `searching` hears how each search goes (its bounds and nodes).
pub fn sweep(
    sets: &[Rules],
    options: &SweepOptions,
    progress: Progress<'_>,
    searching: &mut dyn FnMut(&SearchProgress),
) -> SweepReport {
    let rows = sets
        .iter()
        .enumerate()
        .map(|(done, rules)| {
            let row = sweep_one(rules, options, searching);
            progress(done + 1);
            row
        })
        .collect();
    SweepReport { rows }
}

/// One variant's row: its start searched with a fresh solver.
fn sweep_one(
    rules: &Rules,
    options: &SweepOptions,
    searching: &mut dyn FnMut(&SearchProgress),
) -> Row {
    let started = Instant::now();
    let threads = options.threads.max(1);
    let mut solver =
        ExactSolver::with_threads(options.table_bits, SearchOptions::default(), threads)
            .with_endgame(options.endgame.clone());
    let mut limits = Limits {
        // A limit beyond any clock is no limit.
        deadline: options.time_limit.and_then(|t| started.checked_add(t)),
        max_nodes: options.node_limit,
        stop: None,
        progress: Some(searching),
    };
    let Bounds { lower, upper, .. } = solver.bounds(&rules.start(), &mut limits);
    let value = (lower == upper).then_some(lower);
    Row {
        pits: rules.pits,
        seeds: rules.seeds,
        value,
        unproven: value.is_none().then_some(Unproven { lower, upper }),
        outcome: outcome_within(lower, upper),
        nodes: solver.nodes,
        seconds: options.timings.then(|| started.elapsed().as_secs_f64()),
    }
}

impl SweepReport {
    /// The rows as a Markdown table under a one-line caption.
    pub fn to_markdown(&self) -> String {
        let timed = self.rows.iter().any(|r| r.seconds.is_some());
        let mut headers = vec!["m", "n", "value", "result", "nodes"];
        if timed {
            headers.push("seconds");
        }
        let mut table = Table::new(&headers);
        for r in &self.rows {
            let value = match (r.value, r.unproven) {
                (Some(v), _) => v.to_string(),
                (None, Some(b)) => format!("{:+} to {:+} (stopped)", b.lower, b.upper),
                (None, None) => unreachable!("a row has a value or bounds"),
            };
            let mut cells = vec![
                r.pits.to_string(),
                r.seeds.to_string(),
                value,
                r.outcome.to_string(),
                r.nodes.to_string(),
            ];
            if let Some(seconds) = r.seconds {
                cells.push(format!("{seconds:.2}"));
            }
            table.row(&cells);
        }
        let stopped = if self.rows.iter().any(|r| r.value.is_none()) {
            "; a stopped search gives the bounds it proved, ? = not settled"
        } else {
            ""
        };
        format!(
            "Kalah(m, n) from the start: the first player's final store margin under optimal \
             play (W = first player wins{stopped}).\n\n{}",
            table.to_markdown()
        )
    }

    /// The margins as a plot: seeds per pit along the axis, a line per pit
    /// count; `rules` gives the capture and end rules the title names. A
    /// stopped variant is left out: its bounds are often the whole range.
    pub fn plot(&self, rules: &Rules) -> Plot {
        let mut series: Vec<Series> = Vec::new();
        for r in &self.rows {
            let Some(value) = r.value else { continue };
            let name = format!("m = {} pits", r.pits);
            let point = Point::exact(format!("n = {}", r.seeds), f64::from(value));
            match series.iter_mut().find(|s| s.name == name) {
                Some(s) => s.points.push(point),
                None => series.push(Series {
                    name,
                    points: vec![point],
                }),
            }
        }
        let capture = match rules.capture {
            Capture::NonEmpty => "captures from non-empty pits",
            Capture::Always => "empty captures",
        };
        Plot {
            title: format!(
                "Kalah(m, n): the first player's optimal margin ({capture}, {:?})",
                rules.ending
            ),
            x_label: "seeds per pit at the start (n)".into(),
            y_label: "first player's final store margin under optimal play (seeds)".into(),
            series,
            ceilings: Vec::new(),
            y_range: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_solver::search::memo_negamax;

    /// One thread, a 2^12-slot table, no endgame, no limit.
    fn options(timings: bool) -> SweepOptions {
        SweepOptions {
            table_bits: 12,
            threads: 1,
            timings,
            ..SweepOptions::default()
        }
    }

    /// A node limit stops a variant with bounds that hold its value, and
    /// the outcome is only what the bounds settle.
    #[test]
    fn a_stopped_variant_gives_bounds_that_hold_its_value() {
        let sets = [Rules::new(3, 3).unwrap(), Rules::new(4, 3).unwrap()];
        let limited = SweepOptions {
            node_limit: Some(1),
            ..options(false)
        };
        let report = sweep(&sets, &limited, &|_| {}, &mut |_| {});
        for (row, rules) in report.rows.iter().zip(&sets) {
            let value = memo_negamax(&rules.start(), &mut std::collections::HashMap::new());
            let b = row.unproven.expect("one node does not solve Kalah(3, 3)");
            assert!(
                row.value.is_none() && b.lower <= value && value <= b.upper,
                "{row:?}"
            );
            assert!(
                ["?", outcome_letter(value)].contains(&row.outcome),
                "{row:?}"
            );
        }
        let markdown = report.to_markdown();
        assert!(markdown.contains("(stopped)") && markdown.contains("not settled"));
        assert!(
            report.plot(&sets[0]).series.is_empty(),
            "stopped rows are not plotted"
        );
        let json = serde_json::to_string(&report).unwrap();
        assert!(json.contains("\"unproven\":{\"lower\":") && !json.contains("\"value\""));
    }

    #[test]
    fn outcomes_are_what_the_bounds_settle() {
        let cases = [((1, 5), "W"), ((-3, -1), "L"), ((0, 0), "D"), ((0, 2), "?")];
        for ((lower, upper), letter) in cases {
            assert_eq!(outcome_within(lower, upper), letter, "{lower}..{upper}");
        }
        assert_eq!(outcome_within(-1, 1), "?");
    }

    /// The prediction gives the measured run back, and notes only searches
    /// far beyond it.
    #[test]
    fn long_searches_are_predicted_from_the_measured_runs() {
        assert!((predicted_nodes(48, 0) - 63_177_814.0).abs() < 1.0);
        assert!(predicted_nodes(48, 18) < predicted_nodes(48, 0));
        assert!(long_search_note(48, 18).is_none() && long_search_note(40, 0).is_none());
        let note = long_search_note(72, 18).expect("Kalah(6, 6) is long");
        assert!(note.contains("72 seeds (endgame table: 18)"), "{note}");
    }

    #[test]
    fn each_row_is_the_plain_negamax_value_of_its_start() {
        let sets: Vec<Rules> = [(1, 1), (1, 3), (2, 2), (2, 3)]
            .iter()
            .map(|&(m, n)| Rules::new(m, n).unwrap())
            .collect();
        let report = sweep(&sets, &options(false), &|_| {}, &mut |_| {});
        assert_eq!(report.rows.len(), sets.len());
        for (row, rules) in report.rows.iter().zip(&sets) {
            let value = memo_negamax(&rules.start(), &mut std::collections::HashMap::new());
            assert_eq!(
                (row.pits, row.seeds, row.value, row.unproven),
                (rules.pits, rules.seeds, Some(value), None)
            );
            let sign = ["L", "D", "W"][(value.signum() + 1) as usize];
            assert_eq!(row.outcome, sign);
        }
        let markdown = report.to_markdown();
        assert_eq!(markdown.lines().count(), 2 + 2 + sets.len(), "{markdown}");
        let plot = report.plot(&sets[0]);
        assert_eq!(plot.series.len(), 2, "one line per pit count");
        // The same report on every run; the seconds only when asked for.
        assert_eq!(
            sweep(&sets, &options(false), &|_| {}, &mut |_| {}).to_markdown(),
            markdown
        );
        assert!(!markdown.contains("seconds"));
        let timed = sweep(&sets, &options(true), &|_| {}, &mut |_| {});
        assert!(timed.to_markdown().contains("| nodes | seconds |"));
        assert!(
            serde_json::to_string(&timed)
                .unwrap()
                .contains("\"seconds\":")
        );
    }

    #[test]
    fn a_sweep_probing_an_endgame_table_gives_the_plain_values_in_fewer_nodes() {
        use tabula_tables::kalah::{EndgameTable, KalahEndgame};
        for capture in [Capture::Always, Capture::NonEmpty] {
            let sets: Vec<Rules> = (1..=4)
                .map(|n| Rules::new(3, n).unwrap().with_capture(capture))
                .collect();
            let table = EndgameTable::in_memory_for(KalahEndgame::new(sets[0], 8));
            let plain = sweep(&sets, &options(false), &|_| {}, &mut |_| {});
            let probing = SweepOptions {
                endgame: Some(std::sync::Arc::new(table)),
                ..options(false)
            };
            let probed = sweep(&sets, &probing, &|_| {}, &mut |_| {});
            for (p, q) in plain.rows.iter().zip(&probed.rows) {
                assert_eq!((p.seeds, p.value), (q.seeds, q.value), "{capture:?}");
                assert!(q.nodes <= p.nodes, "{capture:?} {p:?} {q:?}");
            }
            assert!(probed.rows[3].nodes < plain.rows[3].nodes, "{capture:?}");
        }
    }
}
