//! Measured runs (no criterion: one build takes seconds): the out-of-core
//! builder on a whole Ioiwari ring against the plain HashMap-memoized negamax
//! on the ring's boards of at most a few beads, per board, in the same run.
//!
//! `OOC_PITS` (10), `OOC_CAP` (5), `OOC_BASELINE_BEADS` (15) choose the ring
//! and the baseline's share; the table goes to a temporary directory (or
//! `OOC_DIR`) and is deleted at the end.

use std::collections::HashMap;
use std::time::Instant;

use tabula_solver::ioiwari::{Params, Ring};
use tabula_solver::retrograde::Images;
use tabula_solver::search::memo_negamax;
use tabula_tables::ioiwari::{Variant, VariantTable};
use tabula_tables::typed;
use tabula_tables::{Records, Table};

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// User plus system CPU seconds of this process so far.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let (pits, cap) = (env("OOC_PITS", 10) as u8, env("OOC_CAP", 5) as u8);
    let beads = env("OOC_BASELINE_BEADS", 15) as u32;
    let params = Params::new(pits, cap, 0, 0, cap).expect("valid ring");
    let dir = match std::env::var("OOC_DIR") {
        Ok(dir) => tempfile::tempdir_in(dir),
        Err(_) => tempfile::tempdir(),
    }
    .unwrap();
    let path = dir.path().join("ring.tab");
    let boards = params.boards();

    // Both ways of copying the symmetric images; the second file stays for the check below.
    let mut out_of_core = Vec::new();
    for images in [Images::LastPass, Images::WhenSolved] {
        let (cpu, wall) = (cpu_seconds(), Instant::now());
        let variant = Variant { params };
        typed::build_out_of_core_for(&variant, &path, Records::WithMoves, images, &|_| {}).unwrap();
        let (ooc_wall, ooc_cpu) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
        let bytes = std::fs::metadata(&path).unwrap().len();
        println!(
            "out of core ({images:?}), {pits} pits cap {cap}: {boards} boards, {bytes} bytes \
             ({:.2} bytes/board), {ooc_wall:.2} s wall, {ooc_cpu:.2} s CPU, {:.1} M boards/s, \
             {:.1} M boards per CPU second",
            bytes as f64 / boards as f64,
            boards as f64 / ooc_wall / 1e6,
            boards as f64 / ooc_cpu / 1e6,
        );
        out_of_core.push((images, ooc_wall, ooc_cpu));
    }

    // The baseline memoizes every board it reaches from the boards of at most `beads` beads.
    let (cpu, wall) = (cpu_seconds(), Instant::now());
    let mut memo = HashMap::new();
    for index in 0..boards {
        let ring = Ring::from_index(&params, index);
        if ring.beads() <= beads {
            memo_negamax(&ring, &mut memo);
        }
    }
    let (base_wall, base_cpu) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    let memoized = memo.len() as f64;
    println!(
        "baseline, HashMap-memoized negamax, one thread: {memoized} boards (at most {beads} beads), \
         {base_wall:.2} s wall, {base_cpu:.2} s CPU, {:.2} M boards/s",
        memoized / base_wall / 1e6
    );
    for (images, ooc_wall, ooc_cpu) in out_of_core {
        println!(
            "per board: out of core ({images:?}) {:.1} ns wall ({:.1} ns CPU), baseline {:.1} ns \
             wall ({:.1} ns CPU): {:.1}x faster per board, {:.1}x per CPU second",
            ooc_wall / boards as f64 * 1e9,
            ooc_cpu / boards as f64 * 1e9,
            base_wall / memoized * 1e9,
            base_cpu / memoized * 1e9,
            (base_wall / memoized) / (ooc_wall / boards as f64),
            (base_cpu / memoized) / (ooc_cpu / boards as f64),
        );
    }

    // Both must agree on every board the baseline solved.
    let table = VariantTable::new_for(Variant { params }, Table::open(&path).unwrap()).unwrap();
    for (ring, &value) in &memo {
        assert_eq!(table.value(ring).unwrap(), value, "board {ring}");
    }
    println!("the table agrees with the baseline on all {memoized} boards");
}
