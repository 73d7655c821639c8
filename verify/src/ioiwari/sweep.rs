//! The designer's sweep over Ioiwari variants: for each parameter set, the
//! starting instances, optimal results, how greedy and random play fare
//! against the optimal player 2, and the table's cost, with the five
//! requirements of the IOI 2001 designers checked against thresholds.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use tabula_solver::ioiwari::{Params, Ring};
use tabula_tables::ioiwari::{Variant, VariantTable, variant_in_memory, variant_spec};

use crate::ioiwari::OptimalAgent;
use crate::record::GameLog;
use crate::stats::Wdl;
use crate::tournament::Progress;

/// Plays a variant table's optimal move, the lowest optimal pit on ties: the
/// IOI game's optimal agent on the variant's table.
pub type RingOptimal = OptimalAgent<Variant>;

/// What a parameter set must achieve to be marked as meeting the designers' requirements.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Thresholds {
    /// Winnable: at least this share of the instances are first-player wins.
    pub min_win_share: f64,
    /// Not easy: greedy1 (as player 1 against the optimal player 2) wins at most this share.
    pub max_greedy_share: f64,
    /// Efficiently solvable: the table has at most this many bytes (its
    /// boards, so its build's work; a time would make the report depend on the machine).
    pub max_table_bytes: u64,
    /// Drawable: at least this many instances end drawn with greedy1 or under optimal play.
    pub min_draws: usize,
    /// Enough instances: at least this many starting boards modulo rotation.
    pub min_instances: usize,
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds {
            min_win_share: 1.0,
            max_greedy_share: 0.5,
            max_table_bytes: 64 << 20,
            min_draws: 1,
            min_instances: 20,
        }
    }
}

/// One parameter set's results.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SweepRow {
    /// Pits around the ring.
    pub pits: u8,
    /// Pit capacity.
    pub cap: u8,
    /// Beads on a starting board.
    pub beads: u32,
    /// Fewest beads in a starting pit.
    pub low: u8,
    /// Most beads in a starting pit.
    pub high: u8,
    /// Starting boards modulo rotation.
    pub instances: usize,
    /// Instances won, drawn and lost by player 1 under optimal play.
    pub optimal: Wdl,
    /// Optimal value for player 1 -> number of instances.
    pub margins: BTreeMap<i32, usize>,
    /// Instances greedy1 (player 1) wins against the optimal player 2.
    pub greedy1_wins: u64,
    /// Instances greedy1 draws against it.
    pub greedy1_draws: u64,
    /// Random games per instance, written `games` as every report's games per case.
    #[serde(rename = "games")]
    pub random_games: usize,
    /// Share of the random player 1's games won against the optimal player 2.
    pub random_win_rate: f64,
    /// The random player 1's games won, drawn and lost against it.
    pub random: Wdl,
    /// Size of the table's records in bytes.
    pub table_bytes: u64,
    /// Time to build the table in milliseconds (shared by the rows of one
    /// ring), when timings are asked for: the report is otherwise the same on every run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build_ms: Option<f64>,
    /// The requirements missed (empty: the set meets all five).
    pub missed: Vec<String>,
}

impl SweepRow {
    /// Whether the set meets every requirement.
    pub fn meets(&self) -> bool {
        self.missed.is_empty()
    }
}

/// The sweep's report.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SweepReport {
    /// The seed of the random games.
    // Written once, as `run.seed` (CHANGELOG: the top-level `seed` is gone).
    #[serde(skip_serializing)]
    pub seed: u64,
    /// The thresholds of the five requirements.
    pub thresholds: Thresholds,
    /// One row per parameter set, in the order given.
    pub rows: Vec<SweepRow>,
}

/// Player 1's final differences when `name` plays player 1 against the
/// optimal player 2, `games` per instance, in instance-then-game order: the
/// results table's games, unlogged.
fn against_optimal(
    rings: &[Ring],
    table: &Arc<VariantTable>,
    name: &str,
    games: usize,
    seed: u64,
) -> Vec<i32> {
    crate::ioiwari::against_optimal(rings, table, name, games, seed, &|_| {}, &GameLog::off())
}

/// A built table and how long it took.
pub struct Built {
    /// The table.
    pub table: Arc<VariantTable>,
    /// Build time in milliseconds.
    pub build_ms: f64,
}

/// Builds the table of `params`' ring in memory, timed.
pub fn build_timed(params: &Params) -> Built {
    let started = Instant::now();
    let table = variant_in_memory(params, &|_| {});
    Built {
        table: Arc::new(table),
        build_ms: started.elapsed().as_secs_f64() * 1e3,
    }
}

/// The row of one parameter set, with `built` the table of its ring.
///
/// The random player 1 of game `g` on instance `i` draws from the named
/// stream (seed, agent, i, g, 0): the same seed gives the same row.
pub fn sweep_row(
    params: &Params,
    built: &Built,
    games: usize,
    seed: u64,
    thresholds: &Thresholds,
) -> SweepRow {
    let rings = params.instances();
    let table = &built.table;
    let mut optimal = Wdl::default();
    let mut margins = BTreeMap::new();
    for ring in &rings {
        let value = table.value(ring).expect("a table built in memory");
        optimal.add(value.into());
        *margins.entry(value).or_insert(0) += 1;
    }
    let greedy = against_optimal(&rings, table, "greedy1", 1, seed);
    let mut greedy_wdl = Wdl::default();
    for &d in &greedy {
        greedy_wdl.add(d.into());
    }
    let mut random = Wdl::default();
    if games > 0 {
        for d in against_optimal(&rings, table, "random", games, seed) {
            random.add(d.into());
        }
    }
    let spec = variant_spec(params);
    let table_bytes = spec.entries * spec.layout.record_size() as u64;
    let n = rings.len();
    let mut missed = Vec::new();
    if n == 0 || (optimal.wins as f64) < thresholds.min_win_share * n as f64 {
        missed.push("winnable".to_string());
    }
    if greedy_wdl.wins as f64 > thresholds.max_greedy_share * n as f64 {
        missed.push("not easy".to_string());
    }
    if table_bytes > thresholds.max_table_bytes {
        missed.push("efficient".to_string());
    }
    if (greedy_wdl.draws + optimal.draws) < thresholds.min_draws as u64 {
        missed.push("drawable".to_string());
    }
    if n < thresholds.min_instances {
        missed.push("instances".to_string());
    }
    SweepRow {
        pits: params.pits,
        cap: params.cap,
        beads: params.beads,
        low: params.low,
        high: params.high,
        instances: n,
        optimal,
        margins,
        greedy1_wins: greedy_wdl.wins,
        greedy1_draws: greedy_wdl.draws,
        random_games: games,
        random_win_rate: if games > 0 { random.win_rate() } else { 0.0 },
        random,
        table_bytes,
        build_ms: Some(built.build_ms),
        missed,
    }
}

/// Sweeps `sets` in order, building each ring's table once (sets sharing
/// pits and capacity share it); `progress` counts finished sets. The rows
/// keep their build times only with `timings`.
pub fn sweep(
    sets: &[Params],
    games: usize,
    seed: u64,
    thresholds: &Thresholds,
    timings: bool,
    progress: Progress<'_>,
) -> SweepReport {
    let mut tables: BTreeMap<(u8, u8), Built> = BTreeMap::new();
    let mut rows = Vec::with_capacity(sets.len());
    for (i, params) in sets.iter().enumerate() {
        let built = tables
            .entry((params.pits, params.cap))
            .or_insert_with(|| build_timed(params));
        let mut row = sweep_row(params, built, games, seed, thresholds);
        row.build_ms = row.build_ms.filter(|_| timings);
        rows.push(row);
        progress(i + 1);
    }
    SweepReport {
        seed,
        thresholds: thresholds.clone(),
        rows,
    }
}

impl SweepReport {
    /// The header line, the table as Markdown, and what the marks mean.
    pub fn to_markdown(&self) -> String {
        let timed = self.rows.iter().any(|r| r.build_ms.is_some());
        let mut headers = vec![
            "pits",
            "cap",
            "beads",
            "start",
            "instances",
            "O W/D/L",
            "margins (value×count)",
            "G1 wins",
            "G1 draws",
            "R win",
            "table bytes",
            "meets all",
        ];
        // The timings, when asked for, just before the verdict.
        if timed {
            headers.insert(headers.len() - 1, "build ms");
        }
        let mut table = crate::report::Table::new(&headers);
        for r in &self.rows {
            let margins: Vec<String> = r.margins.iter().map(|(v, c)| format!("{v}×{c}")).collect();
            let mut cells = vec![
                r.pits.to_string(),
                r.cap.to_string(),
                r.beads.to_string(),
                format!("{}..{}", r.low, r.high),
                r.instances.to_string(),
                format!(
                    "{}/{}/{}",
                    r.optimal.wins, r.optimal.draws, r.optimal.losses
                ),
                margins.join(" "),
                r.greedy1_wins.to_string(),
                r.greedy1_draws.to_string(),
                format!("{:.4}", r.random_win_rate),
                r.table_bytes.to_string(),
                if r.meets() {
                    "yes".to_string()
                } else {
                    format!("no: {}", r.missed.join(", "))
                },
            ];
            if let Some(ms) = r.build_ms {
                cells.insert(cells.len() - 1, format!("{ms:.1}"));
            }
            table.row(&cells);
        }
        let t = &self.thresholds;
        format!(
            "Ioiwari variant sweep, seed {}, {} random games per instance. O = player 1's \
             optimal result per instance; G1 = greedy1 as player 1 against the optimal player 2; \
             R = random player 1 against it.\n\n{}\nRequirements: winnable (≥ {:.0}% first-player \
             wins), not easy (greedy1 wins ≤ {:.0}%), efficient (table ≤ {} bytes), drawable (≥ {} drawn instance(s), greedy1 or optimal), instances (≥ {}).\n",
            self.seed,
            self.rows.first().map_or(0, |r| r.random_games),
            table.to_markdown(),
            t.min_win_share * 100.0,
            t.max_greedy_share * 100.0,
            t.max_table_bytes,
            t.min_draws,
            t.min_instances,
        )
    }
}

impl SweepReport {
    /// Per parameter set: player 1's optimal win share (the dashed ceiling),
    /// greedy1's (one deterministic game per instance) and random's win rate
    /// with its Wilson 95% interval, all as player 1 against the optimal player 2.
    pub fn plot(&self) -> crate::plot::Plot {
        use crate::plot::{Plot, Point, Series};
        let case = |r: &SweepRow| {
            format!(
                "{} pits, cap {}, {} beads {}..{}",
                r.pits, r.cap, r.beads, r.low, r.high
            )
        };
        let share = |k: u64, n: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
        let mut series = vec![Series {
            name: "greedy1".into(),
            points: (self.rows.iter())
                .map(|r| Point::exact(case(r), share(r.greedy1_wins, r.instances)))
                .collect(),
        }];
        if self.rows.iter().any(|r| r.random_games > 0) {
            series.push(Series {
                name: "random".into(),
                points: (self.rows.iter())
                    .filter(|r| r.random_games > 0)
                    .map(|r| Point::win_rate(case(r), &r.random))
                    .collect(),
            });
        }
        Plot {
            title: format!(
                "Ioiwari variants: player 1 against the optimal player 2 ({} random games per instance, seed {})",
                self.rows.first().map_or(0, |r| r.random_games),
                self.seed
            ),
            x_label: "parameter set".into(),
            y_label: "player 1's wins (fraction of instances or games)".into(),
            series,
            ceilings: vec![Series {
                name: "optimal".into(),
                points: (self.rows.iter())
                    .map(|r| Point::exact(case(r), share(r.optimal.wins, r.instances)))
                    .collect(),
            }],
            y_range: Some((0.0, 1.0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_parameters_give_the_ioi_figures() {
        let params = Params::default();
        let report = sweep(&[params], 20, 2001, &Thresholds::default(), false, &|_| {});
        let row = &report.rows[0];
        assert_eq!(row.instances, 51);
        assert_eq!(
            (row.optimal.wins, row.optimal.draws, row.optimal.losses),
            (51, 0, 0)
        );
        assert_eq!((row.greedy1_wins, row.greedy1_draws), (22, 7));
        assert_eq!(row.margins.values().sum::<usize>(), 51);
        assert_eq!(row.table_bytes, 2 * 279_936);
        assert!(row.meets(), "{:?}", row.missed);
        // Reproducible: the same seed gives the same report, to the byte.
        let again = sweep(&[params], 20, 2001, &Thresholds::default(), false, &|_| {});
        assert_eq!(again.to_markdown(), report.to_markdown());
        let json = |r: &SweepReport| serde_json::to_string(r).unwrap();
        assert_eq!(json(&again), json(&report));
        assert!(!json(&report).contains("build_ms"));
        // Timings only when asked for, in the JSON and before the verdict.
        let timed = sweep(&[params], 20, 2001, &Thresholds::default(), true, &|_| {});
        assert!(timed.rows[0].build_ms.is_some_and(|ms| ms >= 0.0));
        assert!(json(&timed).contains("\"build_ms\":"));
        assert!(timed.to_markdown().contains("| build ms | meets all |"));
        assert!(!report.to_markdown().contains("build ms"));
    }

    #[test]
    fn the_plot_shows_each_set_with_optimal_as_ceiling() {
        let sets = [Params::default(), Params::new(5, 4, 10, 1, 3).unwrap()];
        let report = sweep(&sets, 3, 1, &Thresholds::default(), false, &|_| {});
        let plot = report.plot();
        let names: Vec<&str> = plot.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["greedy1", "random"]);
        assert_eq!(plot.cases().len(), 2);
        let row = &report.rows[0];
        assert_eq!(plot.ceilings[0].points[0].mean, 1.0);
        assert_eq!(plot.series[0].points[0].mean, 22.0 / 51.0);
        let random = &plot.series[1].points[0];
        assert_eq!(random.mean, row.random_win_rate);
        assert_eq!(row.random.games(), 51 * 3);
        assert!(random.low < random.high);
        let text = crate::plot::svg_text(&plot.to_svg().unwrap()).unwrap();
        for label in [
            "Ioiwari variants",
            "parameter set",
            "wins (fraction of instances or games)",
            "greedy1",
            "random",
            "optimal (ceiling)",
            "7 pits, cap 5, 20 beads 2..4",
            "5 pits, cap 4, 10 beads 1..3",
        ] {
            assert!(text.contains(label), "{label} missing from {text}");
        }
    }

    #[test]
    fn greedy1_on_rings_plays_as_on_the_ioi_board() {
        use crate::agent::Agent;
        use tabula_solver::Game;
        use tabula_solver::ioiwari::{Match, RingMatch};
        let params = Params::default();
        let mut moves = 0;
        for ring in params.instances() {
            // Whole games of greedy1 against itself, move by move.
            let mut ioi = Match::new(ring.to_board().unwrap());
            let mut ours = RingMatch::new(ring);
            while !ioi.is_over() {
                let mv = Agent::<Match>::choose(&mut crate::ioiwari::Greedy1, &ioi);
                let greedy1 = &mut crate::ioiwari::Greedy1;
                assert_eq!(Agent::<RingMatch>::choose(greedy1, &ours), mv, "{ring:?}");
                ioi.apply(mv);
                ours.apply(mv);
                moves += 1;
            }
            assert!(ours.is_over());
            assert_eq!(ours.scores(), ioi.scores(), "{ring:?}");
        }
        assert!(moves > 51 * 5, "{moves} moves");
    }

    #[test]
    fn a_set_failing_thresholds_says_which() {
        let params = Params::new(5, 4, 10, 1, 3).unwrap();
        let strict = Thresholds {
            min_instances: 1000,
            max_table_bytes: 10,
            ..Thresholds::default()
        };
        let report = sweep(&[params], 0, 1, &strict, false, &|_| {});
        let row = &report.rows[0];
        assert!(row.missed.contains(&"instances".to_string()));
        assert!(row.missed.contains(&"efficient".to_string()));
        assert!(!row.meets());
        assert!(report.to_markdown().contains("no: "));
    }
}
