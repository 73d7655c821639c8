//! A group of members (threads here, MPI ranks in `tabula build --distributed`)
//! writes the same bytes as one process.

use std::fs;
use std::path::Path;

use std::time::Duration;
use tabula_solver::distributed::Exchange;
use tabula_solver::ioiwari::Params;
use tabula_solver::kalah::{Capture, Ending, Rules};
use tabula_tables::Records;

use tabula_tables::distributed::{
    DistributedError, Keep, Placing, ThreadGroup, Traffic, build_distributed_as, build_whole_placed,
};
use tabula_tables::ioiwari::{self, Variant};
use tabula_tables::kalah::{self, KalahEndgame, KalahGame};
use tabula_tables::typed::Tabulated;

/// How the members of a test's group keep the table.
#[derive(Clone, Copy, Debug)]
enum How {
    /// Each its share ([`Keep::Share`]).
    Share,
    /// The whole table, in member 0's file ([`Keep::Whole`]: threads of one process).
    Whole,
    /// The whole table, members other than 0 in a copy of their own.
    WholeApart,
    /// The whole table, members other than 0 in one copy in memory, as
    /// the ranks of another machine.
    WholeElsewhere,
    /// The whole table, in member 0's copy in memory.
    WholeInMemory,
}

const EVERY_WAY: [How; 5] = [
    How::Share,
    How::Whole,
    How::WholeApart,
    How::WholeElsewhere,
    How::WholeInMemory,
];

/// Builds `game`'s table at `path` as `how` says, snapshotting as `every` says.
fn build_as<T: Tabulated>(
    (game, records, how): (&T, Records, How),
    path: &Path,
    group: &ThreadGroup,
    timing: (tabula_solver::retrograde::Progress<'_>, Duration),
) -> Result<Traffic, DistributedError> {
    match how {
        How::Share => build_distributed_as(game, path, records, group, Keep::Share, timing),
        How::Whole => build_distributed_as(game, path, records, group, Keep::Whole, timing),
        How::WholeApart | How::WholeElsewhere | How::WholeInMemory => {
            let in_memory = matches!(how, How::WholeInMemory);
            let placing = Placing {
                share_copy: in_memory,
                share_machine: matches!(how, How::WholeElsewhere),
                assume_available: None,
                in_memory_from: if in_memory { 0 } else { usize::MAX },
            };
            build_whole_placed((game, path, records), group, placing, timing)
        }
    }
}

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
    build_how_in_threads((game, records, How::Share), path, members)
}

/// [`build_records_in_threads`] with the members keeping the table as `how` says.
fn build_how_in_threads<T: Tabulated>(
    (game, records, how): (&T, Records, How),
    path: &Path,
    members: usize,
) -> Vec<Result<Traffic, DistributedError>> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = ThreadGroup::new(members)
            .into_iter()
            .map(|group| {
                scope.spawn(move || {
                    let quiet = |_: u64| {};
                    let timing = (&quiet as _, Duration::from_secs(60));
                    build_as((game, records, how), path, &group, timing)
                })
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
        for (members, how) in [1, 2, 3]
            .into_iter()
            .flat_map(|m| EVERY_WAY.map(|h| (m, h)))
        {
            let shared = dir.path().join(format!("shared{members}"));
            let game = (&Variant { params }, Records::WithMoves, how);
            for result in build_how_in_threads(game, &shared, members) {
                result.unwrap();
            }
            assert_eq!(
                fs::read(&alone).unwrap(),
                fs::read(&shared).unwrap(),
                "{params}, {members} members, {how:?}"
            );
        }
    }
    // Nothing but the tables is left behind.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 4);
    // Values only.
    let params = Params::new(7, 4, 0, 0, 4).unwrap();
    let (alone, shared) = (dir.path().join("alone"), dir.path().join("shared"));
    ioiwari::build_variant_out_of_core(&alone, &params, Records::ValuesOnly, &|_| {}).unwrap();
    for how in EVERY_WAY {
        let game = (&Variant { params }, Records::ValuesOnly, how);
        for result in build_how_in_threads(game, &shared, 2) {
            result.unwrap();
        }
        assert_eq!(
            fs::read(&alone).unwrap(),
            fs::read(&shared).unwrap(),
            "{how:?}"
        );
    }
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
        for how in EVERY_WAY {
            let game = (&KalahGame { rules }, Records::WithMoves, how);
            for result in build_how_in_threads(game, &shared, 2) {
                result.unwrap();
            }
            assert_eq!(
                fs::read(&alone).unwrap(),
                fs::read(&shared).unwrap(),
                "{rules:?}, {how:?}"
            );
        }
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
        for (members, how) in (1..=3).flat_map(|m| EVERY_WAY.map(|h| (m, h))) {
            let shared = dir.path().join("shared");
            let how_game = (&game, Records::ValuesOnly, how);
            let results = build_how_in_threads(how_game, &shared, members);
            let traffic: Vec<Traffic> = results.into_iter().map(|r| r.unwrap()).collect();
            assert_eq!(
                fs::read(&alone).unwrap(),
                fs::read(&shared).unwrap(),
                "{rules:?}, {members} members, {how:?}"
            );
            // Every member reports the group's bytes; one member sends none.
            assert!(traffic.iter().all(|t| *t == traffic[0]));
            assert_eq!(traffic[0].states, game.spec().entries);
            assert_eq!(traffic[0].solving == 0, members == 1);
            let copies = traffic[0]
                .copies
                .map(|c| (c.count, c.with_member_0, c.in_memory));
            match how {
                How::Share => {
                    assert_eq!(traffic[0].gathering == 0, members == 1);
                    assert_eq!(copies, None);
                }
                How::Whole => assert_eq!(copies, Some((1, members, false))),
                How::WholeInMemory => assert_eq!(copies, Some((1, members, true))),
                How::WholeApart => assert_eq!(copies, Some((members, 1, false))),
                How::WholeElsewhere => assert_eq!(copies, Some((members.min(2), 1, false))),
            }
            // The solved states' bytes are counted also when nobody is sent them.
            if let Some(copies) = traffic[0].copies {
                assert!(copies.listed > 0);
            }
        }
    }
}

#[test]
fn an_output_member_0_cannot_write_stops_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    for how in EVERY_WAY {
        // A directory where the table should go: member 0 refuses it, nobody solves.
        let game = (&Variant::default(), Records::WithMoves, how);
        let results = build_how_in_threads(game, dir.path(), 3);
        assert!(
            matches!(results[0], Err(DistributedError::Table(_))),
            "{how:?}: {:?}",
            results[0]
        );
        for result in &results[1..] {
            assert!(
                matches!(result, Err(DistributedError::NoOutput)),
                "{how:?}: {result:?}"
            );
        }
        let missing = dir.path().join("no/such/dir/t.tab");
        let results = build_how_in_threads(game, &missing, 2);
        let message = results[0].as_ref().unwrap_err().to_string();
        assert!(message.contains("no/such/dir"), "{message}");
        assert!(matches!(results[1], Err(DistributedError::NoOutput)));
    }
}

#[test]
fn every_member_counts_the_whole_group_s_progress() {
    let dir = tempfile::tempdir().unwrap();
    let params = Params::new(7, 4, 0, 0, 4).unwrap();
    let path = dir.path().join("t.tab");
    let last = build_counting(&Variant { params }, &path, 3);
    // Every board is solved or copied from its rotation once, and all members see it.
    assert_eq!(last, vec![params.boards(); 3]);
}

/// Builds `game` at `path` with `members` threads; the last progress each member saw.
fn build_counting<T: Tabulated>(game: &T, path: &Path, members: usize) -> Vec<u64> {
    build_how_counting((game, How::Share), path, members)
}

/// [`build_counting`] with the members keeping the table as `how` says.
fn build_how_counting<T: Tabulated>(
    (game, how): (&T, How),
    path: &Path,
    members: usize,
) -> Vec<u64> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = ThreadGroup::new(members)
            .into_iter()
            .map(|group| {
                scope.spawn(move || {
                    let last = std::sync::atomic::AtomicU64::new(0);
                    let progress = |done: u64| {
                        last.fetch_max(done, std::sync::atomic::Ordering::Relaxed);
                    };
                    let timing = (&progress as _, Duration::from_secs(60));
                    build_as((game, Records::WithMoves, how), path, &group, timing).unwrap();
                    last.into_inner()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Builds `game` at `path` with `members` threads keeping the table as
/// `how` says, snapshotting after every layer, every member stopped (by a
/// panic in its progress, as a kill would stop it) once the group has
/// finished `stop` states; `None` for a member stopped.
fn build_stopped_at<T: Tabulated>(
    (game, how): (&T, How),
    path: &Path,
    members: usize,
    stop: u64,
) -> Vec<Option<Traffic>> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = ThreadGroup::new(members)
            .into_iter()
            .map(|group| {
                scope.spawn(move || {
                    let progress = |done: u64| assert!(done < stop, "stopped at {done}");
                    let timing = (&progress as _, Duration::ZERO);
                    build_as((game, Records::WithMoves, how), path, &group, timing).unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().ok()).collect()
    })
}

/// The latest layer the state file of member `rank` of `ranks` lists a snapshot of.
fn snapshot_layer(path: &Path, rank: usize, ranks: usize) -> usize {
    let state = format!("{}.rank-{rank}-of-{ranks}.state", path.display());
    let text = fs::read_to_string(state).unwrap();
    let layers = text
        .lines()
        .filter_map(|line| line.strip_prefix("snapshot "));
    let layers = layers.map(|rest| rest.split(' ').next().unwrap().parse::<usize>().unwrap());
    layers.max().unwrap()
}

#[test]
fn a_stopped_group_build_goes_on_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let params = Params::new(7, 4, 0, 0, 4).unwrap();
    let game = Variant { params };
    let alone = dir.path().join("alone");
    ioiwari::build_variant_out_of_core(&alone, &params, Records::WithMoves, &|_| {}).unwrap();
    let expected = fs::read(&alone).unwrap();
    // Stopped three quarters, half and nine tenths of the way, by 2 and 3
    // members, keeping the table each way.
    let stops = [
        (2, 4, How::Share),
        (2, 2, How::Share),
        (3, 2, How::Share),
        (3, 10, How::Share),
        (2, 4, How::Whole),
        (3, 2, How::Whole),
        (2, 2, How::WholeApart),
        (3, 10, How::WholeApart),
        (2, 4, How::WholeInMemory),
        (3, 2, How::WholeInMemory),
        (3, 4, How::WholeElsewhere),
    ];
    for (members, fraction, how) in stops {
        let path = dir
            .path()
            .join(format!("t{members}-{fraction}-{how:?}.tab"));
        let stop = params.boards() / fraction * (fraction - 1).max(1);
        let stopped = build_stopped_at((&game, how), &path, members, stop);
        assert!(stopped.iter().all(Option::is_none), "{members} members");
        assert!(!path.exists());
        let finished = snapshot_layer(&path, 0, members) + 1;
        assert!(
            finished > 1,
            "{members} members, stopped at {stop}, {how:?}"
        );
        let traffic: Vec<Traffic> =
            build_how_in_threads((&game, Records::WithMoves, how), &path, members)
                .into_iter()
                .map(|result| result.unwrap())
                .collect();
        assert_eq!(traffic[0].reused_layers, finished, "{how:?}");
        assert_eq!(
            fs::read(&path).unwrap(),
            expected,
            "{members} members, {how:?}"
        );
        // Stopped again where it was, a resumed build's progress goes on from
        // its snapshot to every board.
        build_stopped_at((&game, how), &path, members, stop);
        let last = build_how_counting((&game, how), &path, members);
        assert_eq!(
            last,
            vec![params.boards(); members],
            "{members} members, {how:?}"
        );
    }
    // Nothing but the tables is left behind.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), stops.len() + 1);
}

#[test]
fn a_damaged_snapshot_is_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let params = Params::new(7, 4, 0, 0, 4).unwrap();
    let game = Variant { params };
    let path = dir.path().join("t.tab");
    build_stopped_at((&game, How::Share), &path, 2, params.boards() / 10 * 9);
    let latest = snapshot_layer(&path, 1, 2);
    assert!(latest > 0);
    // Member 1's snapshot damaged: it is not used, and the group builds
    // every layer again (a snapshot is synced before it is listed, so only
    // another program damages one).
    let snapshot = format!("{}.rank-1-of-2.layer-{latest}", path.display());
    let mut bytes = fs::read(&snapshot).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    fs::write(&snapshot, bytes).unwrap();
    let traffic = build_in_threads(&game, &path, 2);
    assert_eq!(traffic[0].as_ref().unwrap().reused_layers, 0);
    let alone = dir.path().join("alone");
    ioiwari::build_variant_out_of_core(&alone, &params, Records::WithMoves, &|_| {}).unwrap();
    assert_eq!(fs::read(&path).unwrap(), fs::read(&alone).unwrap());
}

#[test]
fn a_share_of_another_table_is_refused_by_its_member_and_named_by_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tab");
    let other = Variant {
        params: Params::new(6, 4, 0, 0, 4).unwrap(),
    };
    build_stopped_at((&other, How::Share), &path, 2, other.params.boards() / 2);
    let game = Variant {
        params: Params::new(7, 4, 0, 0, 4).unwrap(),
    };
    // Member 0's share gone, member 1's of the other table: member 1 refuses
    // its own, and member 0 names member 1.
    fs::remove_file(format!("{}.rank-0-of-2.state", path.display())).unwrap();
    let results = build_in_threads(&game, &path, 2);
    let message = results[1].as_ref().unwrap_err().to_string();
    assert!(message.contains("another table"), "{message}");
    assert!(message.contains("rank-1-of-2.state"), "{message}");
    assert!(
        matches!(results[0], Err(DistributedError::PeerShare { member: 1 })),
        "{:?}",
        results[0]
    );
    assert!(!path.exists());
}

#[test]
fn a_machine_without_room_for_a_copy_stops_the_group_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tab");
    let game = Variant::default();
    let bytes = game.spec().entries * game.spec().layout.record_size() as u64;
    let results: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = ThreadGroup::new(3)
            .into_iter()
            .map(|group| {
                let (game, path) = (&game, &path);
                scope.spawn(move || {
                    // Members 1 and 2 as on machines of their own, member 2's too small.
                    let placing = Placing {
                        share_copy: false,
                        share_machine: false,
                        assume_available: Some(if group.rank() == 2 { bytes - 1 } else { bytes }),
                        in_memory_from: usize::MAX,
                    };
                    let quiet = |_: u64| {};
                    let timing = (&quiet as _, Duration::from_secs(60));
                    build_whole_placed((game, path, Records::WithMoves), &group, placing, timing)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let message = results[2].as_ref().unwrap_err().to_string();
    assert!(
        message.contains(&format!("needs {bytes} bytes")),
        "{message}"
    );
    assert!(message.contains("--keep share"), "{message}");
    for result in &results[..2] {
        assert!(
            matches!(result, Err(DistributedError::PeerRoom { member: 2 })),
            "{result:?}"
        );
    }
    // Nothing is left: no table, no temporary file, no snapshot.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}
