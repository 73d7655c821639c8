//! `--log FILE` of every referee and verify: JSON Lines that read back and
//! replay through the rules to the logged final scores.

mod common;

use std::path::Path;

use common::{
    assert_contains, assert_one_line_error, assert_refused, output_or_kill, replay_page,
    serve_command, stderr, stdout, tabula, words,
};
use tabula_solver::nim::Nim;
use tabula_solver::reversi::Board as Reversi;
use tabula_solver::{dominoes, ioiwari, kalah, tonga, tothello};
use tabula_verify::record::{GameLine, Notation, read_log, replay};

/// Runs `tabula ARGS --log FILE`, which must succeed; returns stdout and the log's games.
fn logged(args: &[&str]) -> (String, Vec<GameLine>) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.jsonl");
    let out = tabula().args(args).arg("--log").arg(&log).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    (stdout(&out), read(&log))
}

fn read(path: &Path) -> Vec<GameLine> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'), "one object per line");
    read_log(&text).unwrap()
}

/// Replays every game of `lines` as a game of `G`; returns the final states.
fn replay_all<G: Notation>(lines: &[GameLine]) -> Vec<G> {
    assert!(!lines.is_empty());
    lines
        .iter()
        .map(|line| {
            assert_eq!(line.game, G::NAME);
            assert_eq!(line.scores.len(), line.seats.len());
            let states = replay::<G>(line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
            states.last().unwrap().clone()
        })
        .collect()
}

#[test]
fn nim_referee_and_verify_logs_replay() {
    let (out, lines) = logged(&[
        "referee", "nim", "--agent", "random", "--heaps", "5,8", "--games", "3",
    ]);
    replay_all::<Nim>(&lines);
    assert_eq!(lines.len(), 6);
    // The tested player (first in even games) wins what the referee printed.
    let won: f64 = lines.iter().map(|l| l.scores[l.game_index % 2]).sum();
    assert!(out.contains(&format!("total {won} of 6")), "{out}");
    assert_eq!(lines[3].params["heap"], 8);
    assert_eq!(lines[3].case_label, "heap 8");
    assert_eq!(lines[4].stream, "none");
    let (_, lines) = logged(&["verify", "nim", "--games", "2", "--heaps", "5,9"]);
    replay_all::<Nim>(&lines);
    // One pair, two heaps, two games, both seatings.
    assert_eq!(lines.len(), 8);
    assert_eq!(lines[0].seats, ["optimal", "random"]);
    assert_eq!(lines[1].seats, ["random", "optimal"]);
}

#[test]
fn kalah_referee_logs_replay_and_name_the_seats() {
    let (_, lines) = logged(&[
        "referee", "kalah", "--pits", "2", "--seeds", "3", "--agent", "greedy",
    ]);
    let ends = replay_all::<kalah::Match>(&lines);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].case_label, "Kalah(2, 3)");
    assert!(
        lines[0].seats[1] == "optimal" && lines[1].seats[0] == "optimal",
        "{lines:?}"
    );
    for end in &ends {
        assert!(tabula_solver::Game::is_over(end));
    }
}

#[test]
fn kalah_verify_logs_replay() {
    let (_, lines) = logged(&words(
        "verify kalah --pits 2 --seeds 2,3 --games 2 --no-empty-capture",
    ));
    let ends = replay_all::<kalah::Match>(&lines);
    // Three pairs, two variants, two games, both seatings.
    assert_eq!(lines.len(), 24);
    assert_eq!(lines[0].seats, ["optimal", "greedy"]);
    assert_eq!(lines[1].seats, ["greedy", "optimal"]);
    assert_eq!(lines[4].case_label, "Kalah(2, 3)");
    assert_eq!(lines[4].params["seeds"], 3);
    assert_eq!(lines[4].params["capture"], "non-empty");
    assert_eq!(lines[4].start["board"], "3 3 / 3 3");
    assert_eq!(lines[23].seats, ["random", "greedy"]);
    for (line, end) in lines.iter().zip(&ends) {
        assert!(tabula_solver::Game::is_over(end), "{line:?}");
        assert_eq!(
            end.stores.iter().sum::<u32>(),
            4 * line.params["seeds"].as_u64().unwrap() as u32
        );
    }
}

#[test]
fn ioiwari_referee_and_verify_logs_replay() {
    let (out, lines) = logged(&["referee", "ioiwari", "--agent", "random", "--all"]);
    let ends = replay_all::<ioiwari::Match>(&lines);
    assert_eq!(lines.len(), 51);
    assert!(ends.iter().all(|e| e.board.is_empty()));
    assert_eq!(lines[0].seats[1], "optimal");
    // Each board's printed result is the logged one.
    for line in &lines {
        let scores = format!("{} {}", line.scores[0], line.scores[1]);
        let board = line.params["board"].as_str().unwrap();
        assert!(
            out.contains(&format!("{board}: result {scores} ")),
            "{board} {scores}: {out}"
        );
    }
    let (_, lines) = logged(&["verify", "ioiwari", "--games", "2"]);
    replay_all::<ioiwari::Match>(&lines);
    // greedy1, greedy2 and two random games per instance.
    assert_eq!(lines.len(), 51 * 4);
}

#[test]
fn tonga_logs_replay_with_the_forfeit_rule() {
    let (_, lines) = logged(&[
        "referee", "tonga", "--agent", "random", "--sizes", "6", "--games", "2",
    ]);
    let ends = replay_all::<tonga::Position>(&lines);
    assert!(ends.iter().all(|e| e.board.is_full()));
    assert_eq!(lines[0].moves.len(), 36);
    // A player that dies: the fault is logged and the server fills the board.
    let (_, lines) = logged(&[
        "referee", "tonga", "--player", "exit 3", "--sizes", "6", "--games", "2",
    ]);
    replay_all::<tonga::Position>(&lines);
    for line in &lines {
        let fault = line.fault.as_ref().expect("a fault");
        assert_eq!(line.seats[fault.seat], "exit 3");
        assert!(line.moves.len() < 36);
        let lost = tabula_verify::arena::Outcome::Loss;
        let outcomes = line.outcomes.as_ref().expect("outcomes are logged");
        assert_eq!(outcomes[fault.seat], lost);
        assert_ne!(outcomes[1 - fault.seat], lost);
    }
    let (_, lines) = logged(&words(
        "verify tonga --agents random,greedy --sizes 6 --games 2",
    ));
    replay_all::<tonga::Position>(&lines);
    assert_eq!(lines.len(), 4);
}

#[test]
fn tothello_verify_logs_replay() {
    let (_, lines) = logged(&words("verify tothello --openings 2 --depths 1 --exact 6"));
    let ends = replay_all::<tothello::Position>(&lines);
    assert!(ends.iter().all(|e| e.is_finished()));
    // Three players, three pairs, two openings, both colours.
    assert_eq!(lines.len(), 12);
    // An opening's random placements are in the start, not the moves.
    assert_ne!(lines[0].start["position"], lines[2].start["position"]);
    assert_eq!(lines[0].start, lines[1].start);
}

#[test]
fn dominoes_logs_replay_with_every_draw() {
    let served = serve_command("dominoes --agent random --seed 5");
    for tested in [["--agent", "random"], ["--player", served.as_str()]] {
        let (_, lines) = logged(
            &[
                &["referee", "dominoes", "--opponent", "heaviest"][..],
                &tested,
                &["--cases", "5:4,9:7", "--games", "6", "--seed", "5"],
            ]
            .concat(),
        );
        replay_all::<dominoes::Match>(&lines);
        assert_eq!(lines.len(), 12);
        assert_eq!(lines[0].seats[0], tested[1]);
        assert_eq!(lines[1].seats[1], tested[1]);
        // Cases are named as `verify dominoes` names them.
        assert_eq!(
            (&*lines[0].case_label, &*lines[6].case_label),
            ("N=5 H=4", "N=9 H=7")
        );
        // Draws are followed by chance's tile.
        let draws = lines
            .iter()
            .flat_map(|l| l.moves.windows(2))
            .filter(|w| w[0].mv == "DRAW")
            .inspect(|w| assert!(w[1].seat.is_none() && w[1].mv.starts_with("drawn ")))
            .count();
        assert!(draws > 0);
        // The referee draws case (N,H)'s tiles from stream 10N+H, deal by deal.
        for (i, line) in lines.iter().enumerate() {
            let case = if i < 6 { 54 } else { 97 };
            assert_eq!(line.stream, format!("chance/{case}/{}/0", i % 6));
        }
    }
    let (_, lines) = logged(&words(
        "verify dominoes --players random --opponents heaviest --cases 5:4 --games 4",
    ));
    replay_all::<dominoes::Match>(&lines);
    assert_eq!(lines.len(), 4);
    // Both seatings of a deal meet the same draws.
    for line in &lines {
        assert_eq!(line.stream, format!("chance/0/{}/0", line.game_index / 2));
    }
}

#[test]
fn reversi_referee_logs_replay() {
    let (_, lines) = logged(&words(
        "referee reversi --agent greedy --sizes 7,8 --cases 1 --generations 2 --ga-games 10",
    ));
    let ends = replay_all::<Reversi>(&lines);
    assert_eq!(lines.len(), 2);
    assert_eq!((ends[0].players(), ends[1].players()), (3, 4));
    assert_eq!(lines[1].params["n"], 8);
}

#[test]
fn replay_writes_one_self_contained_page_of_the_logged_games() {
    let dir = tempfile::tempdir().unwrap();
    let log = common::random_ioiwari_log(dir.path());
    let lines = read(&log);
    let page = dir.path().join("replay.html");
    let out = replay_page(&log, &[], Some(&page));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("(51 games)"), "{}", stdout(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    // No network: nothing is fetched, scripts and styles are inline.
    for outside in ["http://", "https://", "src=", "<link"] {
        assert!(!html.contains(outside), "{outside}");
    }
    for line in &lines {
        let title = format!("\"title\":\"ioiwari, {}, game 0\"", line.case_label);
        assert!(html.contains(&title), "{title}");
    }
    // One game only, and a game the log does not have.
    let out = replay_page(&log, &["--game", "3"], Some(&page));
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("\"title\":").count(), 1);
    assert!(html.contains(&lines[3].case_label));
    let out = replay_page(&log, &["--game", "51"], None);
    assert!(!out.status.success());
    assert_contains(&stderr(&out), "the log has 51 games");
    // A log without games makes no page.
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "\n").unwrap();
    let out = replay_page(&empty, &[], Some(&page));
    assert_refused(&out, "empty.jsonl: the log holds no game");
    // Games are written as they are replayed: one that cannot be, late in the
    // log, leaves the page that was there whole and names itself.
    let before = std::fs::read(&page).unwrap();
    let mut broken = lines.clone();
    broken[40].moves[1].mv = "9".into();
    let bad = dir.path().join("bad.jsonl");
    write_log(&bad, &broken);
    let nonsense = dir.path().join("nonsense.jsonl");
    let text = std::fs::read_to_string(&log).unwrap() + "nonsense\n";
    std::fs::write(&nonsense, text).unwrap();
    // With --game too, a log with a line that is no game is refused whole.
    let bad_game = "bad.jsonl: game 40: move 1 '9': '9' is not a pit label 1..7";
    let no_game = "nonsense.jsonl: not a game log: line 52: expected ident";
    for (path, problem, game) in [
        (&bad, bad_game, None),
        (&bad, bad_game, Some("40")),
        (&nonsense, no_game, None),
        (&nonsense, no_game, Some("0")),
    ] {
        let mut replay = tabula();
        replay.arg("replay").arg(path).arg("-o").arg(&page);
        if let Some(game) = game {
            replay.args(["--game", game]);
        }
        let out = replay.output().unwrap();
        assert_one_line_error(&out, problem);
        assert_eq!(std::fs::read(&page).unwrap(), before);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            5,
            "no file left over"
        );
    }
}

/// Writes `lines` as a log at `path`.
fn write_log(path: &Path, lines: &[GameLine]) {
    let text: String = lines
        .iter()
        .map(|l| serde_json::to_string(l).unwrap() + "\n")
        .collect();
    std::fs::write(path, text).unwrap();
}

/// The scores of a Dominoes N=5 H=4 start, built without the log's checks.
fn dominoes_scores(start: &serde_json::Value) -> Vec<f64> {
    use tabula_solver::Game;
    let placed = |list: &serde_json::Value| -> Vec<(u8, u8)> {
        let list = list.as_array().unwrap().iter();
        list.map(|t| dominoes::tiles::parse_oriented(t.as_str().unwrap(), 5).unwrap())
            .collect()
    };
    let hand = |seat: usize| -> Vec<dominoes::Tile> {
        let tiles = placed(&start["hands"][seat]).into_iter();
        tiles.map(|(a, b)| dominoes::Tile::new(a, b)).collect()
    };
    let seat = |name: &str| start[name].as_u64().unwrap() as usize;
    let game = dominoes::Match::from_parts(
        dominoes::Rules::new(5, 4).unwrap(),
        [&hand(0), &hand(1)],
        &placed(&start["line"]),
        seat("mover"),
        seat("opener"),
    );
    game.scores().to_vec()
}

#[test]
fn replay_refuses_impossible_dominoes_starts_and_faults_after_the_end() {
    let (_, lines) = logged(&[
        "referee", "dominoes", "--agent", "random", "--cases", "5:4", "--games", "2", "--seed", "5",
    ]);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("bad.jsonl");
    let page = dir.path().join("replay.html");
    let refused = |bad: GameLine, problem: &str| {
        // The tampered game is the log's second: both runs must name it so.
        write_log(&log, &[lines[0].clone(), bad]);
        for only in [&[][..], &["--game", "1"]] {
            let mut command = tabula();
            command
                .arg("replay")
                .arg(&log)
                .args(only)
                .arg("-o")
                .arg(&page);
            let out = command.output().unwrap();
            assert_one_line_error(&out, &format!("{}: game 1: {problem}", log.display()));
        }
    };
    let opener = lines[1].start["opener"].as_u64().unwrap() as usize;
    // The opener's hand emptied, no moves: over at once, scores as the start gives them.
    let mut bad = lines[1].clone();
    bad.start["hands"][opener] = serde_json::json!([]);
    bad.moves.clear();
    bad.scores = dominoes_scores(&bad.start);
    refused(
        bad,
        &format!(
            "bad start: seat {opener}, the opener, holds 0 tiles, but a deal at H=4 leaves it 3"
        ),
    );
    // Four tiles of the stock added to the other hand: 8 at H=4.
    let mut bad = lines[1].clone();
    let start = &lines[1].start;
    let dealt: Vec<&str> = [&start["hands"][0], &start["hands"][1], &start["line"]]
        .iter()
        .flat_map(|l| l.as_array().unwrap())
        .map(|t| t.as_str().unwrap())
        .collect();
    let stock = (0..5u8)
        .flat_map(|a| (a..5).map(move |b| format!("{a}-{b}")))
        .filter(|t| {
            !dealt.contains(&t.as_str())
                && !dealt.contains(&t.chars().rev().collect::<String>().as_str())
        });
    let other = &mut bad.start["hands"][1 - opener];
    for tile in stock.take(4) {
        other.as_array_mut().unwrap().push(tile.into());
    }
    refused(
        bad,
        &format!(
            "bad start: seat {} holds 8 tiles, but a deal at H=4 leaves it 4",
            1 - opener
        ),
    );
    // The opener to move again.
    let mut bad = lines[1].clone();
    bad.start["mover"] = opener.into();
    refused(
        bad,
        &format!("bad start: seat {opener} opened, but it is also to move"),
    );
    // The opening tile exchanged for a lower one of the other hand.
    let mut bad = lines[1].clone();
    let opening = bad.start["line"][0].clone();
    let lower = bad.start["hands"][1 - opener][0].clone();
    bad.start["line"][0] = lower.clone();
    bad.start["hands"][1 - opener][0] = opening.clone();
    refused(
        bad,
        &format!(
            "bad start: the line opens with {}, but the deal's opening tile is {}",
            lower.as_str().unwrap(),
            opening.as_str().unwrap()
        ),
    );
    // The params are another case's.
    let mut bad = lines[1].clone();
    bad.params = serde_json::json!({"n": 6, "h": 4});
    refused(
        bad,
        "bad start: a deal of N=5 H=4, but the case's params are {\"h\":4,\"n\":6}",
    );
    // A fault on a game that ended by the rules (Dominoes' forfeit changes no score).
    assert!(lines[1].fault.is_none());
    let mut bad = lines[1].clone();
    bad.fault = Some(tabula_verify::seat::Fault {
        seat: 0,
        kind: tabula_verify::seat::FaultKind::IllegalMove,
        reason: "made up".into(),
        ends_case: false,
    });
    refused(
        bad,
        "a fault is logged, but the game is over after its last move",
    );
    assert!(!page.exists());
}

#[test]
fn replay_reads_only_a_regular_file_of_at_most_1_gib() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("replay.html");
    let fifo = dir.path().join("fifo");
    common::mkfifo(&fifo);
    // A sparse file: over the cap without taking the disk.
    let big = dir.path().join("big.jsonl");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len((1 << 30) + 1).unwrap();
    for (log, problem) in [
        (Path::new("/dev/null"), "not a regular file"),
        (fifo.as_path(), "not a regular file"),
        (dir.path(), "not a regular file"),
        (big.as_path(), "the log is over 1 GiB"),
    ] {
        let out = output_or_kill(
            tabula().arg("replay").arg(log).arg("-o").arg(&page),
            std::time::Duration::from_secs(30),
        )
        .unwrap()
        .unwrap_or_else(|| panic!("replay {} hangs", log.display()));
        assert_one_line_error(&out, &format!("{}: {problem}", log.display()));
    }
    assert!(!page.exists());
}

#[test]
fn a_log_on_stdout_has_stdout_to_itself_and_the_report_goes_to_stderr() {
    let runs: [&[&str]; 6] = [
        &["referee", "nim", "--agent", "random", "--games", "2"],
        &["referee", "ioiwari", "--agent", "random"],
        &["referee", "kalah", "--agent", "random"],
        &[
            "referee", "tonga", "--agent", "random", "--sizes", "6", "--games", "2",
        ],
        &[
            "referee", "dominoes", "--agent", "random", "--cases", "5:4", "--games", "2",
        ],
        &[
            "referee", "reversi", "--agent", "random", "--sizes", "7", "--cases", "1",
        ],
    ];
    for args in runs {
        let out = tabula().args(args).args(["--log", "-"]).output().unwrap();
        // Ioiwari's referee ends with status 1 when the tested player loses.
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            stderr(&out)
        );
        let lines = read_log(&stdout(&out)).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert!(!lines.is_empty(), "{args:?}");
        // The report: a total, or one game's result.
        let report = stderr(&out);
        assert!(
            report.contains("total ") || report.contains("result "),
            "{args:?}: {report}"
        );
    }
}

#[test]
fn replay_names_the_line_of_a_log_that_is_not_a_game() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("g.jsonl");
    let (_, lines) = logged(&["referee", "nim", "--agent", "random", "--heaps", "5"]);
    write_log(&log, &lines);
    // A line torn short, as a killed writer could leave it.
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str("{\"game\":\"ni");
    std::fs::write(&log, text).unwrap();
    let out = tabula()
        .args(["replay", log.to_str().unwrap(), "-o"])
        .arg(dir.path().join("page.html"))
        .output()
        .unwrap();
    let says = format!(
        "{}: not a game log: line {}: EOF",
        log.display(),
        lines.len() + 1
    );
    assert_one_line_error(&out, &says);
}

#[test]
fn a_timed_out_wait_counts_in_the_seats_time() {
    // The referee waits at least the limit before it gives up, so the time
    // logged for the silent seat is at least that (it was 0 before).
    let (text, lines) = logged(&[
        "referee",
        "ioiwari",
        "--player",
        "exec sleep 100",
        "--timeout",
        "0.5",
        "--board",
        "4 3 2 4 2 3 2",
    ]);
    assert!(text.contains("timed out"), "{text}");
    assert_eq!(lines.len(), 1);
    assert!(lines[0].time_ms[0] >= 500.0, "{:?}", lines[0].time_ms);
}
