//! The `tabula` binary end to end for Ioiwari: real processes, real pipes.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::{
    assert_contains, build, eventually, group_of_player, json_lines, kill_group,
    player_telling_its_group, run, run_ok, run_with_input, serve_command, stderr, stdout, tabula,
    tabula_to_stop, temp_file, words,
};

use tabula_solver::ioiwari::{Board, starting_boards};
use tabula_tables::ioiwari::IoiwariTable;
use tabula_verify::process::live_group_members as live_members;

fn built_table(dir: &Path) -> PathBuf {
    let path = dir.join("ioiwari.tab");
    let out = run(&["build", "ioiwari", "-o", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    path
}

/// Exit status 2 and one stderr line that starts `error:` and names `name`.
fn assert_one_line_error(out: &Output, name: &str, problem: &str) {
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(out));
    let err = stderr(out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(name), "'{err}' does not name {name}");
    assert!(err.contains(problem), "'{err}' does not say {problem}");
}

#[test]
fn bad_table_files_give_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = fs::read(built_table(dir.path())).unwrap();
    let mut future = good.clone();
    future[8] = 9;
    let hash = xxhash_rust::xxh3::xxh3_64(&future[..120]);
    future[120..128].copy_from_slice(&hash.to_le_bytes());
    let mut flipped_payload = good.clone();
    *flipped_payload.last_mut().unwrap() ^= 1;
    let mut flipped_header = good.clone();
    flipped_header[57] ^= 1;
    let mut wrong_magic = good.clone();
    wrong_magic[1] = b'Z';
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "truncated.tab",
            good[..good.len() / 2].to_vec(),
            "truncated",
        ),
        ("payload.tab", flipped_payload, "payload checksum"),
        ("header.tab", flipped_header, "header checksum"),
        ("magic.tab", wrong_magic, "wrong magic"),
        ("future.tab", future, "version 9"),
        ("empty.tab", Vec::new(), "empty"),
    ];
    for (name, bytes, problem) in cases {
        let path = dir.path().join(name);
        fs::write(&path, bytes).unwrap();
        let p = path.to_str().unwrap();
        assert_one_line_error(&run(&["check", p]), name, problem);
        assert_one_line_error(&run(&["info", p]), name, problem);
        assert_one_line_error(
            &run(&["query", "ioiwari", "--table", p, "4 3 2 4 2 3 2"]),
            name,
            problem,
        );
    }
    let d = dir.path().to_str().unwrap();
    assert_one_line_error(&run(&["check", d]), d, "directory");
    let missing = dir.path().join("missing.tab");
    let m = missing.to_str().unwrap();
    assert_one_line_error(&run(&["check", m]), "missing.tab", "No such file");
    assert_one_line_error(
        &run(&["play", "ioiwari", "--table", m]),
        "missing.tab",
        "No such file",
    );
}

#[test]
fn a_table_for_another_game_is_refused() {
    use tabula_tables::Meta;
    use tabula_tables::format::table_bytes;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tonga.tab");
    let spec = common::table_spec("tonga", [4, 0, 0, 0], 2, 0, 2);
    fs::write(&path, table_bytes(&spec, &Meta::default(), &[0; 4])).unwrap();
    let table = path.to_str().unwrap();
    let out = run(&["query", "ioiwari", "--table", table, "1 1 1 1 1 1 1"]);
    assert_one_line_error(&out, "tonga.tab", "expected 'ioiwari'");
    // A game tabula does not know: sound checksums, but no record check.
    let path = dir.path().join("foo.tab");
    let spec = common::table_spec("foo", [4, 0, 0, 0], 2, 0, 2);
    fs::write(&path, table_bytes(&spec, &Meta::default(), &[0; 4])).unwrap();
    let out = run(&["check", path.to_str().unwrap()]);
    assert_one_line_error(&out, "foo.tab", "game 'foo', which tabula does not know");
}

#[test]
fn check_and_query_a_good_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = built_table(dir.path());
    let p = path.to_str().unwrap();
    let out = run(&["check", p]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("279936 records consistent"));
    let out = run(&["query", "ioiwari", "--table", p, "4 3 2 4 2 3 2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let table = IoiwariTable::in_memory();
    let board: Board = "4 3 2 4 2 3 2".parse().unwrap();
    assert!(
        text.contains(&format!("value: {}\n", table.value(&board).unwrap())),
        "{text}"
    );
    let labels: Vec<String> = table
        .best_moves(&board)
        .unwrap()
        .iter()
        .map(|p| (p + 1).to_string())
        .collect();
    assert!(
        text.contains(&format!("optimal moves: {}\n", labels.join(" "))),
        "{text}"
    );
}

#[test]
fn malformed_boards_are_clear_errors() {
    for (board, problem) in [
        ("4 3 2 4 2 3", "7 pits, found 6"),
        ("4 3 2 4 2 3 2 1", "7 pits, found 8"),
        ("4 3 2 4 2 3 9", "pit 7 holds 9 beads"),
        ("4 3 -2 4 2 3 2", "pit 3: '-2'"),
        ("4 3 x 4 2 3 2", "pit 3: 'x'"),
    ] {
        let out = run(&["query", "ioiwari", board]);
        assert_one_line_error(&out, board, problem);
    }
}

#[test]
fn player_beats_referee_over_pipes_on_all_357_boards_by_the_optimal_difference() {
    let dir = tempfile::tempdir().unwrap();
    let path = built_table(dir.path());
    let player = format!(
        "{} play ioiwari --table {}",
        env!("CARGO_BIN_EXE_tabula"),
        path.display()
    );
    let out = run(&[
        "referee",
        "ioiwari",
        "--rotations",
        "--timeout",
        "60",
        "--player",
        &player,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let table = IoiwariTable::in_memory();
    let boards = starting_boards();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), boards.len() + 1, "{text}");
    for (board, line) in boards.iter().zip(&lines) {
        let (shown, result) = line.split_once(": ").unwrap();
        assert_eq!(shown, board.to_string());
        let words: Vec<&str> = result.split(' ').collect();
        assert_eq!(words[0], "result");
        let difference: i32 = words[1].parse::<i32>().unwrap() - words[2].parse::<i32>().unwrap();
        assert_eq!(difference, table.value(board).unwrap(), "{line}");
        assert_eq!(words[3], "win", "{line}");
        assert_eq!(words.len(), 4, "{line}");
    }
    assert_eq!(
        lines[boards.len()],
        "tally: 357 win, 0 draw, 0 loss, 1428 IOI points of 1428"
    );
}

#[test]
fn the_tally_scores_the_instances_as_the_task_does() {
    // The official report: greedy1 wins 22 of the 51 instances and draws 7;
    // the task gives 4 points a win and 2 a tie.
    let out = run(&["referee", "ioiwari", "--agent", "greedy1", "--all"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 52, "{text}");
    let count = |outcome: &str| {
        lines[..51]
            .iter()
            .filter(|l| l.split_once(": result ").unwrap().1.split(' ').nth(2) == Some(outcome))
            .count()
    };
    assert_eq!(
        (count("win"), count("draw"), count("loss")),
        (22, 7, 22),
        "{text}"
    );
    assert_eq!(
        lines[51],
        "tally: 22 win, 7 draw, 22 loss, 102 IOI points of 204"
    );
}

#[test]
fn referee_json_has_every_game_as_its_line_says_and_the_points() {
    let text = stdout(&run(&["referee", "ioiwari", "--agent", "greedy1", "--all"]));
    let lines: Vec<&str> = text.lines().collect();
    let out = run(&[
        "referee", "ioiwari", "--agent", "greedy1", "--all", "--json", "-",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value =
        serde_json::from_str(&stdout(&out)).expect("--json - is JSON alone");
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 51);
    for (case, line) in cases.iter().zip(&lines) {
        let board = common::json_items(&case["board"]);
        let banks = &case["banks"];
        let outcome = case["outcome"].as_str().unwrap();
        let expect = format!(
            "{}: result {} {} {outcome}",
            board.join(" "),
            banks[0],
            banks[1]
        );
        assert_eq!(&expect, line);
        let points = [("win", 4), ("draw", 2), ("loss", 0)];
        assert!(
            points.contains(&(outcome, case["points"].as_u64().unwrap())),
            "{case}"
        );
        assert!(case["fault"].is_null());
        assert!(case["fault_kind"].is_null());
    }
    assert_eq!(report["total"].as_f64(), Some(102.0));
    // A player that answers nonsense loses with the reason in its case.
    let nonsense = "read board; echo x; cat > /dev/null";
    let out = run(&["referee", "ioiwari", "--player", nonsense, "--json", "-"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let fault = report["cases"][0]["fault"].as_str().unwrap();
    assert!(fault.contains("'x'"), "{fault}");
    assert_eq!(report["cases"][0]["fault_kind"], "malformed-answer");
    assert_eq!(report["cases"][0]["outcome"], "loss");
    // Over the referee's own stdout the dialogue leaves no room for JSON.
    let out = run_with_input(&["referee", "ioiwari", "--json", "-"], "2\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--json -: stdout carries the dialogue"));
}

#[test]
fn referee_over_its_own_stdin_and_stdout_plays_the_seed_example() {
    let mut child = tabula()
        .args(["referee", "ioiwari", "--board", "4 3 2 4 2 3 2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_referee = child.stdin.take().unwrap();
    let mut from_referee = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    from_referee.read_line(&mut line).unwrap();
    assert_eq!(line, "4 3 2 4 2 3 2\n");
    // The seed's example: player 1 plays 2, 5, 5; the optimal player 2 answers 3, 4, 7.
    for (mine, theirs) in [("2", "3"), ("5", "4"), ("5", "7")] {
        writeln!(to_referee, "{mine}").unwrap();
        line.clear();
        from_referee.read_line(&mut line).unwrap();
        assert_eq!(line.trim(), theirs);
    }
    line.clear();
    from_referee.read_line(&mut line).unwrap();
    assert_eq!(line, "result 11 9 win\n");
    assert!(child.wait().unwrap().success());
}

/// A player script given as a shell command, and the reason its game must end with.
fn misbehaving(script: &str, reason: &str) {
    // A short limit only for a timeout: elsewhere a loaded machine must not
    // turn the fault into one.
    let timeout = if reason == "timed out" { "0.5" } else { "60" };
    let out = run(&[
        "referee",
        "ioiwari",
        "--timeout",
        timeout,
        "--player",
        script,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("result "), "{text}");
    assert!(text.contains(" loss "), "{text}");
    assert!(text.contains(reason), "'{text}' should say {reason}");
}

#[test]
fn misbehaving_players_lose_with_the_reason() {
    misbehaving(
        "read board; echo 9",
        "malformed move: '9' is not a pit label 1..7",
    );
    misbehaving(
        "read board; echo hello",
        "malformed move: 'hello' is not a pit label 1..7",
    );
    // Pit 5 is emptied by the first move, then played again.
    misbehaving(
        "read board; echo 5; read reply; echo 5",
        "illegal move: pit 5 is empty",
    );
    // Blank lines before a move are passed over, as scanf passes them: the
    // game ends on the second 5, not on the blank line.
    misbehaving(
        "read board; echo; echo; echo 5; read reply; echo 5",
        "illegal move: pit 5 is empty",
    );
    misbehaving("read board; exit 4", "exit status: 4");
    misbehaving("read board; kill -9 $$", "signal: 9");
    misbehaving("read board; sleep 1000", "timed out");
    misbehaving("read board; exec 1>&-; sleep 1000", "closed its output");
}

#[test]
fn referee_log_records_the_dialogue() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("ioiwari.out");
    let player = format!("{} play ioiwari", env!("CARGO_BIN_EXE_tabula"));
    // The player solves the table before its first answer: a generous limit.
    let referee = ["referee", "ioiwari", "--player", &player, "--timeout", "60"];
    let results = run_ok(&referee, &["--transcript", log.to_str().unwrap()]);
    assert_eq!(results, "result 11 9 win\n");
    let text = fs::read_to_string(&log).unwrap();
    assert_eq!(
        text,
        "# game 4 3 2 4 2 3 2\n> 4 3 2 4 2 3 2\n< 2\n> 3\n< 5\n> 4\n< 5\n> 7\nresult 11 9 win\n"
    );
}

#[test]
fn verify_writes_the_results_table_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let verify = words("verify ioiwari --games 30 --json");
    let text = run_ok(&verify, &[json.to_str().unwrap()]);
    // The header line and a blank line, then the table.
    assert_eq!(text.lines().count(), 2 + 2 + 51 + 1, "{text}");
    assert!(
        text.starts_with("Ioiwari results table, seed 2001, 30 random games"),
        "{text}"
    );
    assert!(
        text.contains("| total W/D/L (51 instances) | 51/0/0"),
        "{text}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    let instances = report["instances"].as_array().unwrap();
    assert_eq!(instances.len(), 51);
    assert_eq!(report["totals"]["greedy1"]["wins"], 22);
    assert_eq!(report["totals"]["greedy1"]["draws"], 7);
    let first = &instances[0];
    for key in words("board optimal greedy1 greedy2 random_mean random_win random_draw random_loss")
    {
        assert!(!first[key].is_null(), "missing {key}");
    }
    assert!(first["optimal"].is_i64() && first["greedy1"].is_i64());
    // Same seed, same report.
    let again = run(&["verify", "ioiwari", "--games", "30"]);
    assert_eq!(stdout(&again), text);
}

fn play_with_input(input: &str) -> Output {
    run_with_input(&["play", "ioiwari"], input)
}

#[test]
fn player_rejects_bad_input_with_one_line() {
    let out = play_with_input("4 3 2 4 2 3\n");
    assert_one_line_error(&out, "4 3 2 4 2 3", "7 pits, found 6");
    let out = play_with_input("");
    assert_one_line_error(&out, "stdin", "no board line");
    // Player 1 opens with pit 2 (the lowest optimal pit); pit 2 is then empty.
    let out = play_with_input("4 3 2 4 2 3 2\n2\n");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "2\n");
    assert_one_line_error(&out, "pit 2", "empty");
    let out = play_with_input("4 3 2 4 2 3 2\nseven\n");
    assert_one_line_error(&out, "player 2's move", "'seven' is not a pit label");
    let out = play_with_input("4 3 2 4 2 3 2\n3\n");
    assert_one_line_error(&out, "stdin", "input ended");
}

#[test]
fn a_missing_table_names_the_os_error_once() {
    let (_dir, name) = temp_file("nonexist.tab");
    for args in [vec!["check", &name], vec!["info", &name]] {
        let out = run(&args);
        assert_one_line_error(&out, &name, "No such file or directory");
        assert_eq!(
            stderr(&out).matches("os error 2").count(),
            1,
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn info_refuses_a_huge_sparse_file_from_its_header_under_a_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("zeros.tab");
    // Sparse: 4 GiB of zeros that cost no disk.
    fs::File::create(&big).unwrap().set_len(4 << 30).unwrap();
    for verb in ["info", "check"] {
        // 1 GiB of address space: reading the whole file would fail.
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 1048576 && exec \"$0\" \"$1\" \"$2\"")
            .arg(env!("CARGO_BIN_EXE_tabula"))
            .arg(verb)
            .arg(&big)
            .output()
            .unwrap();
        assert_one_line_error(&out, big.to_str().unwrap(), "wrong magic");
    }
}

#[test]
fn build_refuses_to_replace_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.tab");
    common::mkfifo(&fifo);
    let out = run(&["build", "ioiwari", "-o", fifo.to_str().unwrap()]);
    assert_one_line_error(&out, fifo.to_str().unwrap(), "FIFO");
    use std::os::unix::fs::FileTypeExt;
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_table_truncated_during_play_does_not_kill_the_player() {
    let dir = tempfile::tempdir().unwrap();
    let path = built_table(dir.path());
    let play = ["play", "ioiwari", "--table", path.to_str().unwrap()];
    let mut child = common::spawn(&play, Stdio::piped(), Stdio::piped());
    let mut to_player = child.stdin.take().unwrap();
    let mut from_player = BufReader::new(child.stdout.take().unwrap());
    let mut board = Board::new([4, 3, 2, 4, 2, 3, 2]).unwrap();
    writeln!(to_player, "4 3 2 4 2 3 2").unwrap();
    let mut truncated = false;
    loop {
        let mut line = String::new();
        if from_player.read_line(&mut line).unwrap() == 0 {
            break;
        }
        board.sow_label(line.trim()).unwrap();
        if !truncated {
            // The player has opened the table and answered once: cut the file under it.
            // (Opening to write truncates the file in place, under the player's map.)
            fs::File::create(&path).unwrap();
            truncated = true;
        }
        if board.is_empty() {
            break;
        }
        let mine = (0..7).find(|&p| board.is_legal(p)).unwrap();
        board.sow(mine);
        // The player may have ended already; its exit status tells.
        if writeln!(to_player, "{}", mine + 1).is_err() || board.is_empty() {
            break;
        }
    }
    drop(to_player);
    let out = child.wait_with_output().unwrap();
    assert!(truncated);
    assert!(out.status.success(), "{:?} {}", out.status, stderr(&out));
}

/// A built table with the record of `board` replaced by `record` and both
/// checksums recomputed, so that only the record check can tell.
fn corrupted_table(dir: &Path, board: &Board, record: [u8; 2]) -> PathBuf {
    let path = built_table(dir);
    let mut bytes = fs::read(&path).unwrap();
    let start = u64::from_le_bytes(bytes[80..88].try_into().unwrap()) as usize;
    let at = start + 2 * board.index();
    bytes[at..at + 2].copy_from_slice(&record);
    let payload_hash = xxhash_rust::xxh3::xxh3_64(&bytes[start..]);
    bytes[104..112].copy_from_slice(&payload_hash.to_le_bytes());
    let header_hash = xxhash_rust::xxh3::xxh3_64(&bytes[..120]);
    bytes[120..128].copy_from_slice(&header_hash.to_le_bytes());
    fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn impossible_records_stop_play_referee_and_verify_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    // After player 1's pit 2 on the seed's board, pits 2 and 5 are empty.
    let board: Board = "4 0 3 5 0 3 2".parse().unwrap();
    let state = format!("board {board}");
    // The true record with its value off by two: in range, with legal moves,
    // so only the check against the children can tell.
    let good = fs::read(built_table(dir.path())).unwrap();
    let start = u64::from_le_bytes(good[80..88].try_into().unwrap()) as usize;
    let at = start + 2 * board.index();
    let shifted = [good[at].wrapping_add(2), good[at + 1]];
    // The shifted value may first show at a parent, so that case names no
    // particular board.
    for (record, problem, names_board) in [
        ([3u8, 1 << 1], "not legal", true),
        ([100, 1 << 0], "value 100", true),
        (shifted, "its children give", false),
    ] {
        let path = corrupted_table(dir.path(), &board, record);
        let p = path.to_str().unwrap();
        let outs = [
            run_with_input(&["play", "ioiwari", "--table", p], "4 3 2 4 2 3 2\n3\n"),
            run(&["referee", "ioiwari", "--table", p, "--agent", "optimal"]),
            run(&["verify", "ioiwari", "--table", p, "--games", "2"]),
            run(&["query", "ioiwari", "--table", p, "4 0 3 5 0 3 2"]),
            run(&["check", p]),
        ];
        for out in outs {
            assert_one_line_error(&out, p, problem);
            assert!(
                !names_board || stderr(&out).contains(&state),
                "{}",
                stderr(&out)
            );
            assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
            assert_eq!(stdout(&out), "", "nothing is played from a bad table");
        }
        // An export stops at the first record that fails, the bad one or a
        // parent that no longer agrees with it, and its file is not written.
        let exported = dir.path().join("export.jsonl");
        let out = run(&["export", p, "-o", exported.to_str().unwrap()]);
        assert_one_line_error(&out, p, "corrupted");
        assert!(!exported.exists(), "no half export");
        let litter: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|name| name.to_string_lossy().starts_with(".tabula-tmp"))
            .collect();
        assert!(litter.is_empty(), "{litter:?}");
    }
}

#[test]
fn query_says_when_the_game_is_over() {
    let out = run(&["query", "ioiwari", "0 0 0 0 0 0 0"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("value: 0\n"), "{text}");
    assert!(text.contains("the game is over"), "{text}");
    assert!(!text.contains("optimal moves"), "{text}");
}

#[test]
fn referee_limits_the_time_per_game_by_default() {
    let out = run(&["referee", "ioiwari", "--help"]);
    let help = stdout(&out);
    assert!(help.contains("--timeout"), "{help}");
    assert!(help.contains("[default: 10]"), "{help}");
}

#[test]
fn a_player_not_found_is_reported_with_its_stderr() {
    // The shell's own words differ (dash: "not found"; bash: "No such file").
    misbehaving("./no-such-player", "(exit status: 127); stderr: ");
    misbehaving("./no-such-player", "./no-such-player: ");
    misbehaving("echo oops >&2; exit 4", "exit status: 4); stderr: oops");
    // Passed through, the player's stderr is ours and not quoted.
    let out = run(&[
        "referee",
        "ioiwari",
        "--timeout",
        "60",
        "--player-stderr",
        "--player",
        "echo oops >&2; exit 4",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_contains(&stdout(&out), "(exit status: 4)\n");
    assert_eq!(stderr(&out), "oops\n");
}

#[test]
fn time_limits_are_checked() {
    common::assert_timeouts_refused("ioiwari");
}

#[test]
fn a_game_with_no_time_limit_given_still_ends() {
    let out = run(&["referee", "ioiwari", "--player", "exec sleep 1000"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("timed out"), "{}", stdout(&out));
}

#[test]
fn what_a_player_leaves_running_ends_with_its_game() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("group");
    // The game ends on the bad move, which comes after the group file, so no
    // time limit can stop the player first. The sleep holds the output open:
    // the shell's exit goes unseen and only the game's end can kill it.
    let player = player_telling_its_group(&file, "read board; sleep 300 & echo 9; exit 0");
    let out = run(&["referee", "ioiwari", "--timeout", "60", "--player", &player]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_contains(&stdout(&out), "malformed move: '9' is not a pit label 1..7");
    let group = group_of_player(&file).expect("the player started");
    let gone = eventually(|| live_members(group).is_empty().then_some(()));
    kill_group(group);
    assert!(gone.is_some(), "the player's sleep survived the referee");
}

#[test]
fn a_terminated_referee_kills_its_player_first() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("group");
    let player = player_telling_its_group(&file, "sleep 300 & wait");
    let mut referee = tabula()
        .args([
            "referee",
            "ioiwari",
            "--timeout",
            "300",
            "--player",
            &player,
        ])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let Some(group) = group_of_player(&file) else {
        let _ = referee.kill();
        panic!("the player never started");
    };
    assert!(!live_members(group).is_empty());
    let killed = Command::new("kill")
        .args(["-TERM", &referee.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = referee.wait().unwrap();
    let gone = eventually(|| live_members(group).is_empty().then_some(()));
    kill_group(group);
    assert_eq!(status.code(), Some(128 + 15), "{status}");
    assert!(gone.is_some(), "the player outlived its referee");
}

#[test]
fn a_referee_stopped_by_a_signal_keeps_its_log_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker");
    let file = dir.path().join("group");
    let log = dir.path().join("games.jsonl");
    let part = dir.path().join("games.jsonl.part");
    // The first game's player quits at once; the second's waits to be killed.
    let second = player_telling_its_group(&file, "sleep 300 & wait");
    let marker = marker.display();
    let player = format!("if [ -e '{marker}' ]; then {second}; else touch '{marker}'; exit 1; fi");
    let referee = tabula_to_stop()
        .args(["referee", "ioiwari", "--all", "--timeout", "300"])
        .args(["--player", &player, "--log", log.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let group = group_of_player(&file);
    let logged = eventually(|| fs::read_to_string(&part).ok().filter(|t| t.ends_with('\n')));
    let killed = Command::new("kill")
        .args(["-INT", &referee.id().to_string()])
        .status()
        .unwrap();
    let out = referee.wait_with_output().unwrap();
    let gone = group.and_then(|g| eventually(|| live_members(g).is_empty().then_some(())));
    if let Some(group) = group {
        kill_group(group);
    }
    assert!(killed.success() && group.is_some() && logged.is_some());
    assert_eq!(out.status.code(), Some(128 + 2), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "error: stopped by SIGINT; the records written so far are in {}\n",
            part.display()
        )
    );
    let kept = fs::read_to_string(&part).unwrap();
    assert_eq!(kept.lines().count(), 1, "{kept}");
    let game: serde_json::Value = serde_json::from_str(kept.trim_end()).unwrap();
    assert!(game.is_object(), "{kept}");
    assert!(!log.exists());
    assert!(gone.is_some(), "the player outlived its referee");
}

#[test]
fn numbers_out_of_range_are_refused_before_any_work() {
    for args in [
        &["verify", "ioiwari", "--games", "4000000000"][..],
        &words("referee dominoes --agent random --games 18446744073709551615"),
        &["verify", "reversi", "--cases", "1000001"],
        &["verify", "tothello", "--openings", "4000000000"],
        &["referee", "tothello", "--cases", "1000001"],
        &["query", "tothello", "--exact", "65"],
        &["verify", "tothello", "--opening-plies", "99999999999"],
        &["sweep", "ioiwari", "--min-win-share", "nan"],
        &["sweep", "ioiwari", "--max-greedy-share", "1.5"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        let says = ["at most", "0..=64", "0..=60", "from 0 to 1"];
        assert!(says.iter().any(|s| err.contains(s)), "{args:?}: {err}");
        assert_eq!(stdout(&out), "", "{args:?}");
    }
}

#[test]
fn variants_too_large_to_solve_in_memory_are_refused_at_once() {
    let board = vec!["1"; 13].join(" ");
    for out in [
        run(&["query", "ioiwari", "--pits", "13", "--cap", "9", &board]),
        run_with_input(&["play", "ioiwari", "--pits", "13", "--cap", "9"], ""),
    ] {
        assert_one_line_error(&out, "13 pits", "10000000000000 boards");
    }
    // The board is read first: a bad one is named without any solving.
    let out = run(&["query", "ioiwari", "--pits", "11", "--cap", "5", "1 1"]);
    assert_one_line_error(&out, "'1 1'", "a board has 11 pits, found 2");
}

#[test]
fn list_options_refuse_an_item_given_twice() {
    for line in [
        "verify tonga --sizes 4,4",
        "verify tonga --players random,random",
        "verify dominoes --players random,random",
        "verify reversi --players greedy,greedy",
        "verify tothello --depths 1,1",
    ] {
        // The option is the third word, its repeated item the list's first.
        let args = words(line);
        let (flag, list) = (args[2], args[3]);
        let item = list.split(',').next().unwrap();
        let out = run(&args);
        assert_one_line_error(&out, flag, &format!("'{item}' is given twice"));
    }
}

/// The small variant of the variant tests: 5 pits of at most 4 beads, 10 beads, 1 to 3 a pit.
const SMALL: [&str; 10] = [
    "--pits", "5", "--cap", "4", "--beads", "10", "--low", "1", "--high", "3",
];

fn small_params() -> tabula_solver::ioiwari::Params {
    tabula_solver::ioiwari::Params::new(5, 4, 10, 1, 3).unwrap()
}

/// Player 1's exact value on `ring` by plain memoized negamax over the rules, no table.
fn ring_value(
    ring: tabula_solver::ioiwari::Ring,
    memo: &mut std::collections::HashMap<tabula_solver::ioiwari::Ring, i32>,
) -> i32 {
    if ring.is_empty() {
        return 0;
    }
    if let Some(&value) = memo.get(&ring) {
        return value;
    }
    let best = (0..ring.pits().len() as u8)
        .filter(|&pit| ring.is_legal(pit))
        .map(|pit| {
            let mut child = ring;
            let gain = child.sow(pit).difference();
            gain - ring_value(child, memo)
        })
        .max()
        .unwrap();
    memo.insert(ring, best);
    best
}

/// The value of the board a result line or a JSON case shows, by [`ring_value`].
fn small_value(board: &str) -> i32 {
    let ring = tabula_solver::ioiwari::Ring::parse(&small_params(), board).unwrap();
    ring_value(ring, &mut std::collections::HashMap::new())
}

#[test]
fn verify_on_a_variant_gives_exact_values_and_greedy_never_above_them() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("small.json");
    let mut args = vec!["verify", "ioiwari", "--games", "20"];
    args.extend(SMALL);
    args.extend(["--json", json.to_str().unwrap()]);
    let text = run_ok(&args, &[]);
    let title =
        "Ioiwari (pits 5 cap 4 beads 10 start 1..3) results table, seed 2001, 20 random games";
    assert!(text.starts_with(title), "{text}");
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["variant"]["beads"], 10);
    let rows = report["instances"].as_array().unwrap();
    let instances = small_params().instances();
    assert_eq!(rows.len(), instances.len());
    let n = instances.len();
    assert!(
        text.contains(&format!("| total W/D/L ({n} instances) |")),
        "{text}"
    );
    for (ring, row) in instances.iter().zip(rows) {
        // The board is the test data: the instance itself, pit 1 first.
        let board = common::json_items(&row["board"]);
        assert_eq!(board.join(" "), ring.to_string());
        assert!(
            text.contains(&format!("\n| {ring} ")),
            "{ring} not in {text}"
        );
        let optimal = row["optimal"].as_i64().unwrap();
        assert_eq!(optimal, i64::from(small_value(&ring.to_string())), "{row}");
        assert!(row["greedy1"].as_i64().unwrap() <= optimal, "{row}");
        assert!(row["greedy2"].as_i64().unwrap() <= optimal, "{row}");
    }
    // --rotations: every starting ring, one row each.
    let mut args = words("verify ioiwari --games 1 --rotations --json -");
    args.extend(SMALL);
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let rings = small_params().starting_rings();
    let rows = report["instances"].as_array().unwrap();
    assert_eq!(rows.len(), rings.len());
    assert!(rings.len() > n);
}

/// The result lines of a referee run on the small variant: board, banks, outcome.
fn small_referee_results(extra: &[&str]) -> Vec<(String, i32, String)> {
    let mut args = vec!["referee", "ioiwari", "--timeout", "60"];
    args.extend(SMALL);
    args.extend(extra);
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let (tally, games) = lines.split_last().unwrap();
    let results: Vec<(String, i32, String)> = games
        .iter()
        .map(|line| {
            let (board, result) = line.split_once(": result ").unwrap();
            let words: Vec<&str> = result.split(' ').collect();
            assert_eq!(words.len(), 3, "{line}");
            let difference = words[0].parse::<i32>().unwrap() - words[1].parse::<i32>().unwrap();
            (board.to_string(), difference, words[2].to_string())
        })
        .collect();
    let count = |o: &str| results.iter().filter(|r| r.2 == o).count();
    let (w, d, l) = (count("win"), count("draw"), count("loss"));
    assert_eq!(
        *tally,
        format!(
            "tally: {w} win, {d} draw, {l} loss, {} IOI points of {}",
            4 * w + 2 * d,
            4 * results.len()
        )
    );
    results
}

#[test]
fn referee_on_a_variant_ends_each_optimal_game_as_its_value_says() {
    let instances = small_params().instances();
    let results = small_referee_results(&["--agent", "optimal", "--all"]);
    assert_eq!(results.len(), instances.len());
    for (ring, (board, difference, outcome)) in instances.iter().zip(&results) {
        assert_eq!(board, &ring.to_string());
        let value = small_value(board);
        assert_eq!(*difference, value, "{board}");
        let expected = match value {
            v if v > 0 => "win",
            0 => "draw",
            _ => "loss",
        };
        assert_eq!(outcome, expected, "{board}");
    }
    // The same over pipes, the variant's player on every starting ring,
    // pit labels 1..5 on the wire.
    let player = format!(
        "{} play ioiwari --pits 5 --cap 4",
        env!("CARGO_BIN_EXE_tabula")
    );
    let rings = small_params().starting_rings();
    let results = small_referee_results(&["--rotations", "--player", &player]);
    assert_eq!(results.len(), rings.len());
    for (ring, (board, difference, _)) in rings.iter().zip(&results) {
        assert_eq!(board, &ring.to_string());
        assert_eq!(*difference, small_value(board), "{board}");
    }
    // JSON shows each case's board, of the variant's 5 pits.
    let mut args = vec![
        "referee", "ioiwari", "--agent", "greedy1", "--all", "--json", "-",
    ];
    args.extend(SMALL);
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), instances.len());
    for (ring, case) in instances.iter().zip(cases) {
        let board: Vec<u8> = serde_json::from_value(case["board"].clone()).unwrap();
        assert_eq!(board, ring.pits());
    }
    // A variant's own dialogue: a pit label beyond its 5 pits is refused.
    let mut args = vec!["referee", "ioiwari", "--player", "read board; echo 6"];
    args.extend(SMALL);
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_contains(&stdout(&out), "malformed move: '6' is not a pit label 1..5");
}

#[test]
fn a_bad_variant_is_one_line_and_status_2() {
    for verb in [
        &["verify", "ioiwari"][..],
        &["referee", "ioiwari", "--agent", "greedy1", "--all"],
    ] {
        for (extra, name, problem) in [
            (&["--pits", "14"][..], "14 pits", "a ring has 2 to 13"),
            (&["--high", "6"], "2 to 6 beads", "within 0..=5"),
            (&["--cap", "10"], "capacity 10", "2 to 9"),
            (
                &["--pits", "3"],
                "20 beads cannot fill 3 pits",
                "2 to 4 each",
            ),
        ] {
            let mut args = verb.to_vec();
            args.extend(extra);
            let out = run(&args);
            assert_one_line_error(&out, name, problem);
            assert_eq!(stdout(&out), "", "{args:?}");
        }
    }
    let mut args = vec![
        "referee", "ioiwari", "--agent", "optimal", "--board", "1 2 3",
    ];
    args.extend(SMALL);
    assert_one_line_error(&run(&args), "'1 2 3'", "5 pits, found 3");
    let mut args = vec![
        "referee",
        "ioiwari",
        "--agent",
        "optimal",
        "--board",
        "0 0 0 0 0",
    ];
    args.extend(SMALL);
    assert_one_line_error(&run(&args), "'0 0 0 0 0'", "every pit is empty");
}

#[test]
fn a_variants_table_file_is_checked_as_play_checks_it() {
    let (_dir, p) = temp_file("small.tab");
    build("ioiwari --pits 5 --cap 4", &p);
    let mut args = vec!["verify", "ioiwari", "--games", "5", "--table", &p];
    args.extend(SMALL);
    let with_file = run(&args);
    assert!(with_file.status.success(), "{}", stderr(&with_file));
    let mut args = vec!["verify", "ioiwari", "--games", "5"];
    args.extend(SMALL);
    assert_eq!(stdout(&with_file), stdout(&run(&args)));
    // Another variant's table is refused, by verify and by the referee.
    let other = ["--pits", "6", "--beads", "18"];
    let wrong = "parameters [5, 4, 0, 0], expected 'ioiwari' with parameters [6, 4, 0, 0]";
    let mut args = vec!["verify", "ioiwari", "--table", &p];
    args.extend(other);
    assert_one_line_error(&run(&args), &p, wrong);
    let mut args = vec!["referee", "ioiwari", "--agent", "optimal", "--table", &p];
    args.extend(other);
    assert_one_line_error(&run(&args), &p, wrong);
}

#[test]
fn a_batch_query_answers_each_line_as_the_single_query_does() {
    for (variant, boards) in [
        (
            &[][..],
            &["4 3 2 4 2 3 2", "1 0 0 0 0 0 5", "0 0 0 0 0 0 0"][..],
        ),
        (&["--pits", "5", "--cap", "4"], &["1 2 3 0 4", "4 4 4 4 4"]),
    ] {
        let mut input = boards.join("\n");
        input.push_str("\n\nnot a board\n");
        let out = run_with_input(
            &[&["query", "ioiwari", "--batch"], variant].concat(),
            &input,
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        let lines = json_lines(&text);
        // One line a board, the blank line passed over, the bad one an error.
        assert_eq!(lines.len(), boards.len() + 1, "{text}");
        let bad = &lines[boards.len()];
        assert_eq!(bad["input"], "not a board");
        assert!(
            bad["error"].as_str().unwrap().contains("bad board"),
            "{bad}"
        );
        for (board, json) in boards.iter().zip(&lines) {
            let single = stdout(&run(&[&["query", "ioiwari"], variant, &[board]].concat()));
            let value = format!("value: {}\n", json["value"]);
            assert!(single.contains(&value), "{single} / {json}");
            let optimal = common::json_items(&json["optimal"]);
            if !optimal.is_empty() {
                assert!(
                    single.contains(&format!("optimal moves: {}\n", optimal.join(" "))),
                    "{single} / {json}"
                );
            }
            for m in json["moves"].as_array().unwrap() {
                let line = format!(
                    "move {}: value {} (gains {},",
                    m["pit"], m["value"], m["gains"]
                );
                assert!(single.contains(&line), "{single} / {m}");
            }
            assert_eq!(
                single.matches("\nmove ").count(),
                json["moves"].as_array().unwrap().len()
            );
        }
    }
}

#[test]
fn the_optimal_line_plays_the_first_optimal_pit_each_turn_to_the_end() {
    for (variant, board) in [
        (&[][..], "4 3 2 4 2 3 2"),
        (&[][..], "1 0 0 0 0 0 5"),
        (&["--pits", "5", "--cap", "4"][..], "1 2 3 0 4"),
    ] {
        let query = [&["query", "ioiwari", "--batch"], variant].concat();
        let answer = |board: &str| json_lines(&stdout(&run_with_input(&query, board))).remove(0);
        let with_line = [&query[..], &["--line"]].concat();
        let start = json_lines(&stdout(&run_with_input(&with_line, board))).remove(0);
        let line = start["line"].as_array().unwrap().clone();
        assert!(!line.is_empty(), "{start}");
        // Replayed through the query's own moves: each step is the first
        // optimal pit of the board it is played on, and gains what it says.
        let mut current = answer(board);
        let mut difference = 0;
        for (ply, step) in line.iter().enumerate() {
            assert_eq!(
                step["by_mover"],
                ply % 2 == 0,
                "the players alternate: {step}"
            );
            assert_eq!(step["pit"], current["optimal"][0], "{current} / {step}");
            let played = current["moves"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["pit"] == step["pit"])
                .unwrap()
                .clone();
            assert_eq!(step["gains"], played["gains"]);
            let gains = step["gains"].as_i64().unwrap();
            difference += if ply % 2 == 0 { gains } else { -gains };
            let leaves = common::json_items(&played["leaves"]);
            current = answer(&leaves.join(" "));
        }
        assert!(
            current["moves"].as_array().unwrap().is_empty(),
            "ends with the game: {current}"
        );
        assert_eq!(difference, start["value"].as_i64().unwrap(), "{start}");
        // The text says the same.
        let text = stdout(&run(
            &[&["query", "ioiwari", "--line"], variant, &[board]].concat()
        ));
        let first = format!(
            "A{} {:+}",
            line[0]["pit"],
            line[0]["gains"].as_i64().unwrap()
        );
        assert!(text.contains(&format!("): {first}, ")), "{text}");
        let total = format!("the line's difference for the mover: {}\n", start["value"]);
        assert!(text.ends_with(&total), "{text}");
    }
}

#[test]
fn export_writes_every_board_as_the_batch_query_answers_it() {
    let dir = tempfile::tempdir().unwrap();
    let table = built_table(dir.path());
    let table = table.to_str().unwrap();
    let text = run_ok(&["export", table], &[]);
    let lines = json_lines(&text);
    assert_eq!(lines.len(), 279_936, "every board, in index order");
    for (index, line) in lines.iter().enumerate().step_by(4099) {
        let board: Vec<u8> = serde_json::from_value(line["board"].clone()).unwrap();
        assert_eq!(board, Board::from_index(index).pits(), "{line}");
    }
    // A sample through the query: the same value and optimal pits.
    let sample: Vec<&serde_json::Value> = lines.iter().step_by(997).collect();
    let boards: Vec<String> = sample
        .iter()
        .map(|line| {
            let pits = common::json_items(&line["board"]);
            pits.join(" ")
        })
        .collect();
    let keys = ["value", "optimal"];
    common::assert_batch_answers(["ioiwari", table], &boards.join("\n"), &sample, keys);
    // To a file: the same bytes, written whole, and a line on stdout.
    let file = dir.path().join("ioiwari.jsonl");
    let file = file.to_str().unwrap();
    let out = run(&["export", table, "-o", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), format!("wrote {file} (279936 positions)\n"));
    assert_eq!(fs::read_to_string(file).unwrap(), text);
    // The table itself is never the output; a reader that goes away ends it quietly.
    let out = run(&["export", table, "-o", table]);
    common::assert_one_line_error(&out, "the export would replace the table it reads");
    // So is another name of it: a hard link.
    let link = dir.path().join("link.tab");
    fs::hard_link(table, &link).unwrap();
    let out = run(&["export", table, "-o", link.to_str().unwrap()]);
    common::assert_one_line_error(&out, "the export would replace the table it reads");
    assert_eq!(common::first_lines(&["export", table], 2).len(), 2);
    // A file that is no table, or no file, is one line naming it.
    let out = run(&["export", file]);
    common::assert_one_line_error(&out, file);
    let missing = dir.path().join("missing.tab");
    let out = run(&["export", missing.to_str().unwrap()]);
    common::assert_one_line_error(&out, "missing.tab");
}

#[test]
fn a_served_built_in_player_plays_the_referee_s_games_as_in_process() {
    // A small variant, every instance: each game a new `serve` process, which
    // knows only its seed, so the referee gives its in-process agent that stream.
    let ring = ["--pits", "5", "--cap", "4"];
    let games = [&ring[..], &["--beads", "16", "--low", "2", "--high", "4"]].concat();
    for agent in ["random", "greedy2", "optimal"] {
        let served = serve_command(&format!(
            "ioiwari --agent {agent} --seed 3 --pits 5 --cap 4"
        ));
        let referee = ["referee", "ioiwari", "--all", "--seed", "3"];
        let in_process = run(&[&referee[..], &games, &["--agent", agent]].concat());
        let over_pipes = run(&[&referee[..], &games, &["--player", &served]].concat());
        assert!(in_process.status.success(), "{}", stderr(&in_process));
        let text = stdout(&in_process);
        assert!(text.contains("tally:") && !text.contains("fault"), "{text}");
        assert_eq!(text, stdout(&over_pipes), "{agent}");
    }
    // An unknown player is one line, before any table is built.
    let out = run(&["serve", "ioiwari", "--agent", "perfect"]);
    assert_one_line_error(&out, "--agent", "unknown agent");
}
