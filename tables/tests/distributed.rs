//! A group of members (threads here, MPI ranks in `tabula build --distributed`)
//! writes the same bytes as one process.

use std::fs;
use std::path::Path;

use tabula_solver::ioiwari::Params;
use tabula_solver::kalah::{Capture, Ending, Rules};
use tabula_tables::Records;
use tabula_tables::distributed::{DistributedError, ThreadGroup, Traffic, build_distributed_for};
use tabula_tables::ioiwari::{self, Variant};
use tabula_tables::kalah::{self, KalahEndgame, KalahGame};
use tabula_tables::typed::Tabulated;

/// Builds `game`'s table at `path` with `members` threads; every member's result.
fn build_in_threads<T: Tabulated>(
    game: &T,
    path: &Path,
    members: usize,
) -> Vec<Result<Traffic, DistributedError>> {
    build_records_in_threads(game, path, Records::WithMoves, members)
}

/// [`build_in_threads`] with the records chosen.
fn build_records_in_threads<T: Tabulated>(
    game: &T,
    path: &Path,
    records: Records,
    members: usize,
) -> Vec<Result<Traffic, DistributedError>> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = ThreadGroup::new(members)
            .into_iter()
            .map(|group| {
                scope.spawn(move || build_distributed_for(game, path, records, &group, &|_| {}))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn ioiwari_tables_built_by_a_group_equal_one_process_s() {
    let dir = tempfile::tempdir().unwrap();
    for params in [Params::default(), Params::new(9, 3, 18, 2, 2).unwrap()] {
        let alone = dir.path().join("alone");
        ioiwari::build_variant_out_of_core(&alone, &params, Records::WithMoves, &|_| {}).unwrap();
        for members in [1, 2, 3] {
            let shared = dir.path().join(format!("shared{members}"));
            for result in build_in_threads(&Variant { params }, &shared, members) {
                result.unwrap();
            }
            assert_eq!(
                fs::read(&alone).unwrap(),
                fs::read(&shared).unwrap(),
                "{params}, {members} members"
            );
        }
    }
    // Nothing but the tables is left behind.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 4);
    // Values only.
    let params = Params::new(7, 4, 0, 0, 4).unwrap();
    let (alone, shared) = (dir.path().join("alone"), dir.path().join("shared"));
    ioiwari::build_variant_out_of_core(&alone, &params, Records::ValuesOnly, &|_| {}).unwrap();
    for result in build_records_in_threads(&Variant { params }, &shared, Records::ValuesOnly, 2) {
        result.unwrap();
    }
    assert_eq!(fs::read(&alone).unwrap(), fs::read(&shared).unwrap());
}

/// Kalah(3, `seeds`) under every capture and end rule.
fn every_rule_of(seeds: u8) -> Vec<Rules> {
    let rules = Rules::new(3, seeds).unwrap();
    [Capture::Always, Capture::NonEmpty]
        .into_iter()
        .flat_map(|capture| {
            [Ending::AfterAnyMove, Ending::MoverStuck]
                .map(|ending| rules.with_capture(capture).with_ending(ending))
        })
        .collect()
}

#[test]
fn kalah_tables_built_by_a_group_equal_one_process_s() {
    let dir = tempfile::tempdir().unwrap();
    for rules in every_rule_of(2) {
        let (alone, shared) = (dir.path().join("alone"), dir.path().join("shared"));
        kalah::build_out_of_core(&alone, &rules, Records::WithMoves, &|_| {}).unwrap();
        for result in build_in_threads(&KalahGame { rules }, &shared, 2) {
            result.unwrap();
        }
        assert_eq!(
            fs::read(&alone).unwrap(),
            fs::read(&shared).unwrap(),
            "{rules:?}"
        );
    }
}

#[test]
fn kalah_endgame_tables_built_by_a_group_equal_one_process_s() {
    let dir = tempfile::tempdir().unwrap();
    for rules in every_rule_of(1) {
        // 74,613 boards: several blocks of 16,384 for every member.
        let game = KalahEndgame::new(rules, 16);
        let alone = dir.path().join("alone");
        kalah::build_endgame(&alone, &game, &|_| {}).unwrap();
        for members in 1..=3 {
            let shared = dir.path().join("shared");
            let results = build_records_in_threads(&game, &shared, Records::ValuesOnly, members);
            let traffic: Vec<Traffic> = results.into_iter().map(|r| r.unwrap()).collect();
            assert_eq!(
                fs::read(&alone).unwrap(),
                fs::read(&shared).unwrap(),
                "{rules:?}, {members} members"
            );
            // Every member reports the group's bytes; one member sends none.
            assert!(traffic.iter().all(|t| *t == traffic[0]));
            assert_eq!(traffic[0].states, game.spec().entries);
            assert_eq!(traffic[0].solving == 0, members == 1);
            assert_eq!(traffic[0].gathering == 0, members == 1);
        }
    }
}

#[test]
fn an_output_member_0_cannot_write_stops_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    // A directory where the table should go: member 0 refuses it, nobody solves.
    let results = build_in_threads(&Variant::default(), dir.path(), 3);
    assert!(
        matches!(results[0], Err(DistributedError::Table(_))),
        "{:?}",
        results[0]
    );
    for result in &results[1..] {
        assert!(
            matches!(result, Err(DistributedError::NoOutput)),
            "{result:?}"
        );
    }
    let missing = dir.path().join("no/such/dir/t.tab");
    let results = build_in_threads(&Variant::default(), &missing, 2);
    let message = results[0].as_ref().unwrap_err().to_string();
    assert!(message.contains("no/such/dir"), "{message}");
    assert!(matches!(results[1], Err(DistributedError::NoOutput)));
}

#[test]
fn every_member_counts_the_whole_group_s_progress() {
    let dir = tempfile::tempdir().unwrap();
    let params = Params::new(7, 4, 0, 0, 4).unwrap();
    let path = dir.path().join("t.tab");
    let game = Variant { params };
    let last: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = ThreadGroup::new(3)
            .into_iter()
            .map(|group| {
                let (game, path) = (&game, &path);
                scope.spawn(move || {
                    let last = std::sync::atomic::AtomicU64::new(0);
                    let progress = |done: u64| {
                        last.fetch_max(done, std::sync::atomic::Ordering::Relaxed);
                    };
                    build_distributed_for(game, path, Records::WithMoves, &group, &progress)
                        .unwrap();
                    last.into_inner()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // Every board is solved or copied from its rotation once, and all members see it.
    assert_eq!(last, vec![params.boards(); 3]);
}
