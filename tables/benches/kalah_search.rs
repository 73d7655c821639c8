//! The exact Kalah search's changes of issue 49, measured in one run: each
//! variant's start searched with every step of [`SearchOptions`] (nodes,
//! seconds), then every opening move's value as `tabula query kalah` asks
//! for them. Not a criterion benchmark: one run of each is minutes at most.
//!
//! `cargo bench -p tabula-tables --bench kalah_search -- [--endgame FILE]
//! [--no-empty-capture] [--bits B] [--quick] M,N...` (`--quick`: only the
//! baseline, MTD(f) with and without ETC and aspiration windows).

use std::sync::Arc;
use std::time::Instant;

use tabula_solver::ZeroSum;
use tabula_solver::kalah::{
    Capture, Endgame, ExactSolver, Root, Rules, SearchOptions, check_endgame,
};
use tabula_tables::kalah::open_endgame;

/// Each step adds one change to the one before.
fn steps(quick: bool) -> Vec<(&'static str, SearchOptions)> {
    let none = SearchOptions {
        generic: false,
        seed_bounds: false,
        two_tier: false,
        etc: false,
        root: Root::Full,
    };
    let bounds = SearchOptions {
        seed_bounds: true,
        ..none
    };
    let two_tier = SearchOptions {
        two_tier: true,
        ..bounds
    };
    let etc = SearchOptions {
        etc: true,
        ..two_tier
    };
    let mtdf = SearchOptions {
        root: Root::Mtdf,
        ..etc
    };
    let no_etc = SearchOptions { etc: false, ..mtdf };
    let aspiration = SearchOptions {
        root: Root::Aspiration,
        ..no_etc
    };
    let all = vec![
        ("generic (before)", SearchOptions::GENERIC),
        ("own search, same steps", none),
        ("+ seed bounds", bounds),
        ("+ two-slot buckets", two_tier),
        ("+ ETC", etc),
        ("+ MTD(f) root", mtdf),
        ("MTD(f) without ETC (default)", no_etc),
        ("aspiration windows without ETC", aspiration),
    ];
    match quick {
        true => vec![all[0], all[5], all[6], all[7]],
        false => all,
    }
}

/// Every opening move's value as `query` asks: the start, then each child.
fn opening_values(solver: &mut ExactSolver, rules: &Rules) -> Vec<i32> {
    let start = rules.start();
    solver.value(&start);
    start
        .legal_moves()
        .iter()
        .map(|&pit| {
            let (child, sowing) = start.child(pit);
            let gains = sowing.mover as i32 - sowing.opponent as i32;
            start.move_value(pit, gains, solver.value(&child))
        })
        .collect()
}

/// CPU seconds of this process so far: the machine is shared, wall time is loose.
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a plain system call filling `t`.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let (mut endgame, mut capture, mut bits, mut quick) = (None, Capture::Always, 24, false);
    let mut games = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--endgame" => endgame = args.next(),
            "--no-empty-capture" => capture = Capture::NonEmpty,
            "--bits" => bits = args.next().and_then(|b| b.parse().ok()).expect("--bits B"),
            "--quick" => quick = true,
            game => {
                let (m, n) = game.split_once(',').expect("M,N");
                games.push((m.parse::<u8>().unwrap(), n.parse::<u8>().unwrap()));
            }
        }
    }
    let table: Option<Endgame> =
        endgame.map(|path| Arc::new(open_endgame(path.as_ref()).unwrap()) as Endgame);
    println!("| game | search | what | value | nodes | CPU s | wall s | M nodes/CPU s |");
    println!("|---|---|---|---|---|---|---|---|");
    for (m, n) in games {
        let rules = Rules::new(m, n).unwrap().with_capture(capture);
        if let Some(table) = &table {
            check_endgame(table.as_ref(), &rules).unwrap();
        }
        let mut answers = Vec::new();
        for what in ["start", "opening moves"] {
            for (name, options) in steps(quick) {
                let mut solver =
                    ExactSolver::with_options(bits, options).with_endgame(table.clone());
                let (started, cpu) = (Instant::now(), cpu_seconds());
                let values = match what {
                    "start" => vec![solver.value(&rules.start())],
                    _ => opening_values(&mut solver, &rules),
                };
                let (wall, seconds) = (started.elapsed().as_secs_f64(), cpu_seconds() - cpu);
                println!(
                    "| Kalah({m},{n}) | {name} | {what} | {values:?} | {} | {seconds:.2} | {wall:.2} | {:.2} |",
                    solver.nodes,
                    solver.nodes as f64 / seconds / 1e6
                );
                answers.push((what, values));
            }
        }
        for pair in answers.windows(2) {
            if pair[0].0 == pair[1].0 {
                assert_eq!(
                    pair[0].1, pair[1].1,
                    "Kalah({m},{n}): the searches disagree"
                );
            }
        }
    }
}
