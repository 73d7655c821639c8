//! Kalah's contest pieces on the shared core: agents (optimal from a table or
//! by search, greedy, random), the line dialogue of `tabula play kalah` as a
//! wire, and the check a patient seat uses.
//!
//! The dialogue, from the referee (tabula) to the seat (a person or program):
//! - `kalah <m> <n> you are player <k>: ...` once, before anything else;
//! - `tabula plays <pit>` or `tabula plays <pit> and moves again` for each
//!   move of the other seat;
//! - `your move: <your pits> / <tabula's pits> stores <yours> <tabula's>` (or
//!   `your move again: ...` after a move that ended in the seat's own store),
//!   answered by one pit label `1..m`; each side's pits are in its sowing
//!   order, so the board reads like `tabula query kalah`'s;
//! - `result <your store> <tabula's store> <win|draw|loss>` when the game is over.
//!
//! [`verify`] plays every pair of the built-in players on Kalah(m, n)
//! variants, each variant solved in memory first ([`Variant`]).

pub mod analysis;
pub mod contest;
pub mod draw;
pub mod notation;
pub mod players;
pub mod report;
pub mod sweep;
pub mod wire;

pub use contest::KalahContest;
pub use players::*;
pub use report::*;
pub use wire::*;

#[cfg(test)]
mod tests {
    use crate::agent::{Agent, RandomAgent};
    use crate::record::GameLog;
    use crate::scoreboard::Scoreboard;
    use crate::wire::Wire;
    use std::collections::HashMap;
    use std::sync::Arc;
    use tabula_solver::kalah::{Capture, Kalah, Match, Pit, Rules};
    use tabula_solver::{Game, Turn, ZeroSum};
    use tabula_tables::kalah::KalahTable;

    use super::*;
    use crate::protocol::Reply;
    use crate::wire::Session;
    use tabula_solver::search::memo_negamax;
    use tabula_tables::kalah::KalahGame;

    fn rules(m: u8, n: u8) -> Rules {
        Rules::new(m, n).unwrap()
    }

    /// Plain negamax over the move values: what an optimal pit is worth.
    fn plain_values(position: &Kalah) -> Vec<(Pit, i32)> {
        let mut memo = HashMap::new();
        position
            .legal_moves()
            .iter()
            .map(|&pit| {
                let mut child = *position;
                let reward = ZeroSum::play(&mut child, pit);
                let value = memo_negamax(&child, &mut memo);
                let keeps = position.keeps_turn(pit);
                (
                    pit,
                    if keeps {
                        reward + value
                    } else {
                        reward - value
                    },
                )
            })
            .collect()
    }

    #[test]
    fn table_and_search_agents_give_the_plain_negamax_values() {
        let r = rules(2, 3);
        let table = Arc::new(KalahTable::in_memory_for(KalahGame { rules: r }));
        let mut by_table = OptimalAgent::from_table(table);
        let mut by_search = OptimalAgent::by_search(12);
        // Sized at its first move, telling how its searches go.
        let told = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counter = Arc::clone(&told);
        let progress: SearchProgress = Arc::new(move |_| {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        let mut sized = OptimalAgent::searching().with_progress(Some(progress));
        // Every position of a few games of greedy against random.
        let mut game = Match::new(r);
        let mut random = RandomAgent::new(crate::tournament::stream(
            1,
            crate::tournament::Purpose::Agent,
            0,
            0,
            0,
        ));
        let mut seen = 0;
        for _ in 0..5 {
            game = Match::new(r);
            while !game.is_over() {
                let expected = plain_values(&game.position);
                assert_eq!(by_table.move_values(&game.position), expected, "{game:?}");
                assert_eq!(by_search.move_values(&game.position), expected, "{game:?}");
                assert_eq!(sized.move_values(&game.position), expected, "{game:?}");
                let best = best_lowest(&expected);
                assert_eq!(by_search.best_move(&game.position), best, "{game:?}");
                assert_eq!(by_table.best_move(&game.position), best, "{game:?}");
                let pit = if game.mover == 0 {
                    Greedy.choose(&game)
                } else {
                    Agent::<Match>::choose(&mut random, &game)
                };
                Game::apply(&mut game, pit);
                seen += 1;
            }
        }
        assert!(seen > 10 && game.is_over());
        // Kalah(2, 3)'s searches are far shorter than a tick.
        assert_eq!(told.load(std::sync::atomic::Ordering::Relaxed), 0);
    }

    #[test]
    fn a_searching_agent_keeps_no_values_across_rules() {
        // Positions of different rules share indices, so a table kept from a
        // game of other rules would hand out that game's values.
        let mut agent = OptimalAgent::searching();
        let mut fixed = OptimalAgent::by_search(12);
        for (m, n) in [(2, 3), (3, 2), (2, 3), (3, 3), (2, 2)] {
            let mut game = Match::new(rules(m, n));
            while !game.is_over() {
                let expected = plain_values(&game.position);
                assert_eq!(agent.move_values(&game.position), expected, "{game:?}");
                assert_eq!(fixed.move_values(&game.position), expected, "{game:?}");
                let pit = Greedy.choose(&game);
                Game::apply(&mut game, pit);
            }
        }
    }

    #[test]
    fn a_timed_search_that_reaches_every_end_plays_and_proves_the_exact_move() {
        // Kalah(3, 3) deepens to its end well within an hour: the move and
        // value are the exact search's, and the last search says it is exact.
        let hour = Some(std::time::Duration::from_secs(3600));
        let mut timed = OptimalAgent::searching().thinking(hour);
        let mut every = OptimalAgent::by_search(16);
        let mut game = Match::new(rules(3, 3));
        while !game.is_over() {
            let values = every.move_values(&game.position);
            let best = best_lowest(&values);
            assert_eq!(timed.choose(&game), best, "{game:?}");
            let searched = timed.last_search().expect("a timed search");
            assert!(searched.exact && searched.depth > 0, "{searched:?}");
            let value = values.iter().find(|(p, _)| *p == best).unwrap().1;
            assert_eq!(searched.value, value, "{game:?}");
            let pit = Greedy.choose(&game);
            Game::apply(&mut game, pit);
        }
    }

    #[test]
    fn a_timed_search_with_no_time_still_plays_a_legal_move() {
        // The first depth always finishes (the clock is read only every
        // few thousand positions), so even no time gives a searched move.
        let mut timed = OptimalAgent::searching().thinking(Some(std::time::Duration::ZERO));
        let game = Match::new(rules(6, 10));
        let pit = timed.choose(&game);
        assert!(game.position.legal_moves().contains(&pit), "{pit}");
        let searched = timed.last_search().expect("a timed search");
        assert!(!searched.exact && searched.depth >= 1, "{searched:?}");
    }

    #[test]
    fn the_null_window_choice_is_the_lowest_pit_of_every_pit_s_value() {
        // Larger variants than the plain negamax reaches: every pit's exact
        // value (another agent) against the choice that tests most pits only.
        for (m, n) in [(3, 3), (3, 4), (4, 3), (4, 4)] {
            let r = rules(m, n);
            let mut every = OptimalAgent::by_search(16);
            let mut chooser = OptimalAgent::searching();
            let mut random = RandomAgent::new(crate::tournament::stream(
                u64::from(m * 10 + n),
                crate::tournament::Purpose::Agent,
                0,
                0,
                0,
            ));
            let mut checked = 0;
            for _ in 0..4 {
                let mut game = Match::new(r);
                while !game.is_over() {
                    let values = every.move_values(&game.position);
                    let best = best_lowest(&values);
                    assert_eq!(
                        chooser.best_move(&game.position),
                        best,
                        "{game:?} {values:?}"
                    );
                    checked += 1;
                    let pit = Agent::<Match>::choose(&mut random, &game);
                    Game::apply(&mut game, pit);
                }
            }
            assert!(checked > 20, "Kalah({m}, {n}): {checked}");
        }
    }

    #[test]
    fn an_agent_probing_an_endgame_table_values_moves_as_the_plain_search() {
        use tabula_tables::kalah::{EndgameTable, KalahEndgame};
        for capture in [Capture::Always, Capture::NonEmpty] {
            let r = rules(3, 4).with_capture(capture);
            let table: tabula_solver::kalah::Endgame =
                Arc::new(EndgameTable::in_memory_for(KalahEndgame::new(r, 7)));
            let mut plain = OptimalAgent::by_search(14);
            let mut probed = OptimalAgent::by_search(14).with_endgame(Some(table.clone()));
            let mut timed = OptimalAgent::searching()
                .thinking(Some(std::time::Duration::from_secs(3600)))
                .with_endgame(Some(table.clone()));
            let mut position = r.start();
            while !position.is_finished() {
                let values = plain.move_values(&position);
                assert_eq!(probed.move_values(&position), values, "{position}");
                let best = probed.best_move(&position);
                assert_eq!(timed.best_move(&position), best, "{position}");
                assert!(timed.last_search().is_some_and(|s| s.exact));
                position = position.child(best).0;
            }
            // A table of other pits is not probed: the agent searches plain.
            let other = rules(2, 4).with_capture(capture);
            let mut unfit = OptimalAgent::by_search(14).with_endgame(Some(table));
            assert_eq!(
                unfit.move_values(&other.start()),
                plain.move_values(&other.start())
            );
        }
    }

    #[test]
    fn served_and_played_optimal_answers_are_the_plain_negamax_values() {
        // The agents `serve kalah` and `referee kalah` make (exact, and timed
        // with time to prove every move) and `play kalah`'s, with and without
        // an endgame table, both capture rules: their values and moves are
        // plain negamax's, at every position of a few games.
        use tabula_tables::kalah::{EndgameTable, KalahEndgame};
        let hour = Some(std::time::Duration::from_secs(3600));
        for capture in [Capture::Always, Capture::NonEmpty] {
            for (m, n) in [(2, 3), (3, 2), (3, 3)] {
                let r = rules(m, n).with_capture(capture);
                let table: tabula_solver::kalah::Endgame =
                    Arc::new(EndgameTable::in_memory_for(KalahEndgame::new(r, 6)));
                for endgame in [None, Some(table)] {
                    let rng =
                        || crate::tournament::stream(3, crate::tournament::Purpose::Agent, 0, 0, 0);
                    let mut served =
                        agent("optimal", &[], rng(), None, None, endgame.clone()).unwrap();
                    let mut timed =
                        agent("optimal", &[], rng(), None, hour, endgame.clone()).unwrap();
                    let mut exact = OptimalAgent::searching().with_endgame(endgame.clone());
                    let mut played = OptimalAgent::searching()
                        .thinking(hour)
                        .with_endgame(endgame);
                    let mut random = RandomAgent::new(rng());
                    for _ in 0..3 {
                        let mut game = Match::new(r);
                        while !game.is_over() {
                            let expected = plain_values(&game.position);
                            let best = best_lowest(&expected);
                            let value = expected.iter().find(|(p, _)| *p == best).unwrap().1;
                            assert_eq!(exact.move_values(&game.position), expected, "{game:?}");
                            assert_eq!(served.choose(&game), best, "{game:?}");
                            assert_eq!(timed.choose(&game), best, "{game:?}");
                            assert_eq!(played.choose(&game), best, "{game:?}");
                            let searched = played.last_search().expect("a timed search");
                            assert!(searched.exact && searched.value == value, "{searched:?}");
                            let pit = Agent::<Match>::choose(&mut random, &game);
                            Game::apply(&mut game, pit);
                        }
                    }
                    assert!(exact.nodes() > 0 && played.nodes() > 0);
                }
            }
        }
    }

    #[test]
    fn a_long_search_tells_its_progress_then_its_end_and_finds_the_same_value() {
        // Kalah(4, 5) from the start: about 4 million positions.
        let r = rules(4, 5);
        let plain = OptimalAgent::by_search(16).move_values(&r.start());
        let told = Arc::new(std::sync::Mutex::new(Vec::new()));
        let list = Arc::clone(&told);
        let progress: SearchProgress = Arc::new(move |nodes| list.lock().unwrap().push(nodes));
        let mut agent = OptimalAgent::by_search(16).with_progress(Some(progress));
        assert_eq!(agent.move_values(&r.start()), plain);
        let mut told = told.lock().unwrap().clone();
        assert_eq!(told.pop(), Some(None), "the end is told last");
        assert!(!told.is_empty(), "no progress told");
        // One search for the whole decision: every tick a whole step on.
        let told: Vec<u64> = told
            .into_iter()
            .map(|n| n.expect("only the end is None"))
            .inspect(|tick| assert_eq!(tick.deepening, None, "an exact search"))
            .map(|tick| tick.nodes)
            .collect();
        for pair in told.windows(2) {
            assert_eq!(
                pair[1],
                pair[0] + tabula_solver::alphabeta::TICK_NODES,
                "{pair:?}"
            );
        }
    }

    #[test]
    fn a_timed_search_tells_its_depth_and_best_so_far_and_sizes_its_table_to_its_time() {
        // Kalah(4, 5), with time to deepen until a search proves the value:
        // millions of positions in all, so the ticks come (at fixed counts).
        let r = rules(4, 5);
        let told = Arc::new(std::sync::Mutex::new(Vec::new()));
        let list = Arc::clone(&told);
        let progress: SearchProgress = Arc::new(move |tick| list.lock().unwrap().push(tick));
        let mut timed = OptimalAgent::searching()
            .with_progress(Some(progress))
            .thinking(Some(std::time::Duration::from_secs(3600)));
        timed.best_move(&r.start());
        let searched = timed.last_search().unwrap();
        assert!(searched.exact, "{searched:?}");
        let ticks: Vec<SearchTick> = told.lock().unwrap().iter().flatten().copied().collect();
        let last = ticks.last().expect("millions of positions: ticks");
        // The last tick tells the proved value.
        let deepening = last.deepening.expect("a timed search says its depth");
        let proved = Deepening {
            depth: searched.depth,
            best: Some(searched.value),
            proved: true,
        };
        assert_eq!(deepening, proved);
        assert!(last.done && ticks[..ticks.len() - 1].iter().all(|t| !t.done));
        let text = last.describe();
        let says = format!(
            "timed search proved {:+} at depth {}: ",
            searched.value, searched.depth
        );
        assert!(text.starts_with(&says), "{text}");
        // The ticks before it tell the depth being searched and the best so far.
        let before = ticks[ticks.len() - 2];
        let deepening = before.deepening.expect("a timed search says its depth");
        assert!(
            deepening.depth <= searched.depth && !deepening.proved,
            "{deepening:?}"
        );
        assert!(deepening.best.is_some(), "{deepening:?}");
        assert!(
            before.describe().starts_with("timed search at depth "),
            "{}",
            before.describe()
        );
        assert!(
            before.describe().contains(", best so far "),
            "{}",
            before.describe()
        );
        let exact = SearchTick {
            nodes: 3_100_000,
            deepening: None,
            done: false,
        };
        assert_eq!(exact.describe(), "exact search: 3.1 million positions");
        // The table: what a second allows (2^24), not more than the game needs.
        let second = std::time::Duration::from_secs(1);
        assert_eq!(timed_search_bits(&r, second), 24.min(search_bits(&r)));
        let quarter = std::time::Duration::from_millis(250);
        assert_eq!(timed_search_bits(&r, quarter), 22);
        assert_eq!(
            timed_search_bits(&rules(2, 2), quarter),
            search_bits(&rules(2, 2))
        );
        assert_eq!(timed_search_bits(&r, std::time::Duration::ZERO), 10);
    }

    #[test]
    fn the_greeting_reaches_the_player_as_the_game_starts() {
        use crate::process::StreamPeer;
        use crate::seat::{Clock, Player, Remote};
        // A person playing second sees the greeting before tabula's first
        // move is searched (minutes on a large variant), not with it.
        let r = rules(3, 3);
        let out = crate::record::MemoryLog::default();
        let peer = StreamPeer::for_person(std::io::empty(), out.clone());
        let mut person = Remote::new("person", Box::new(peer), KalahWire::new(r));
        let game = Match::new(r);
        person
            .start_game(1, &game.view(1), &mut Clock::default())
            .unwrap();
        let text = out.text();
        assert!(
            text.starts_with("kalah 3 3 you are player 2:") && text.ends_with('\n'),
            "{text}"
        );
        assert_eq!(text.lines().count(), 1, "{text}");
    }

    #[test]
    fn the_wire_round_trips_through_both_ends() {
        let r = rules(2, 2);
        let mut referee = KalahWire::new(r);
        let mut player = Session::new(KalahWire::new(r), OptimalAgent::by_search(10));
        let mut game = Match::new(r);
        // The player is seat 1: tabula (seat 0) moves first, pit 1 ends in its store.
        // The greeting is sent as the game starts, before tabula's first move.
        assert_eq!(referee.game_request(1, &game.view(1)), None);
        let greeting = referee.game_notice(1, &game.view(1)).expect("a greeting");
        assert!(greeting.starts_with("kalah 2 2 you are player 2:"));
        for pit in [0, 1] {
            referee.observe(Turn::Seat(0), &pit);
            Game::apply(&mut game, pit);
        }
        let lines =
            |request: String| -> Vec<String> { request.lines().map(|l| l.to_string()).collect() };
        // Seat 0 sowed pit 1 (pit 2 and its store), then pit 2's 3 seeds: its side
        // is empty, so the game is over before seat 1 moves.
        assert!(game.is_over());
        let mut end = vec![greeting];
        end.extend(referee.end_lines(&game.view(1)));
        assert_eq!(end.len(), 4, "{end:?}");
        assert_eq!(
            &end[1..],
            &[
                "tabula plays 1 and moves again",
                "tabula plays 2",
                "result 6 2 win"
            ]
        );
        for line in &end[..3] {
            assert_eq!(player.handle(line).unwrap(), Reply::Silent, "{line}");
        }
        assert_eq!(player.handle(&end[3]).unwrap(), Reply::Last(None));

        // Again, tabula playing pit 2 (one seed to its store, one to seat 1's pit 1).
        let mut referee = KalahWire::new(r);
        let mut player = Session::new(KalahWire::new(r), OptimalAgent::by_search(10));
        let mut game = Match::new(r);
        referee.game_request(1, &game.view(1));
        let greeting = referee.game_notice(1, &game.view(1)).expect("a greeting");
        referee.observe(Turn::Seat(0), &1);
        Game::apply(&mut game, 1);
        let mut request = vec![greeting];
        request.extend(lines(referee.move_request(&game.view(1))));
        assert_eq!(
            request[1..],
            ["tabula plays 2", "your move: 3 2 / 2 0 stores 0 1"]
        );
        let mut answer = None;
        for line in &request {
            match player.handle(line).unwrap() {
                Reply::Silent => {}
                Reply::Line(a) => answer = Some(a),
                other => panic!("{other:?}"),
            }
        }
        let pit = referee.decode_answer(&game, &answer.unwrap()).unwrap();
        let mut optimal = OptimalAgent::by_search(10);
        assert_eq!(pit, optimal.choose(&game));
        assert!(referee.decode_answer(&game, "3").is_err());
        assert!(referee.decode_answer(&game, "").is_err());
        assert_eq!(referee.decode_answer(&game, " 2 "), Ok(1));
        // Asked again without a move of tabula in between: the seat moves again.
        assert!(
            referee
                .move_request(&game.view(1))
                .starts_with("your move again: ")
        );
        assert!(player.handle("your move: 1 1 / 1 stores 0 0").is_err());
        assert!(player.handle("your move: 9 9 / 9 9 stores 0 0").is_err());
        assert!(player.handle("kalah 3 3 you are player 1:").is_err());
        assert!(check(&game, 3).is_err());
        // A side empty ends the game (the default rule): no move is asked of it.
        let over = player
            .handle("your move: 2 2 / 0 0 stores 2 2")
            .unwrap_err();
        assert!(
            over.contains("a side is empty, so the game is over"),
            "{over}"
        );
        assert!(player.handle("your move: 0 0 / 2 2 stores 2 2").is_err());
        assert!(player.handle("your move: 2 2 / 2 2 stores 0 0").is_ok());
    }

    fn variants(sizes: &[(u8, u8)]) -> Vec<Variant> {
        sizes
            .iter()
            .map(|&(m, n)| Variant::solved(rules(m, n), &|_| {}))
            .collect()
    }

    fn names(agents: &[&str]) -> Vec<String> {
        agents.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn optimal_never_loses_from_the_side_the_exact_value_says_wins() {
        // Kalah(2, 2) is a second-player win, (3, 3) and (1, 3) first-player wins.
        let variants = variants(&[(2, 2), (3, 3), (1, 3)]);
        let kept = crate::record::MemoryLog::default();
        let log = kept.log();
        let most = std::sync::atomic::AtomicUsize::new(0);
        let progress = |done: usize| {
            most.fetch_max(done, std::sync::atomic::Ordering::Relaxed);
        };
        let agents = names(&AGENTS);
        let board = verify(&agents, &variants, 8, 11, &progress, &log);
        log.flush().unwrap();
        // 3 pairs × 3 variants × 8 games × 2 seatings, counted across the pairs.
        assert_eq!(most.into_inner(), 144);
        let text = kept.text();
        let lines = crate::record::read_log(&text).unwrap();
        assert_eq!(lines.len(), 144);
        let mut checked = 0;
        for variant in &variants {
            // The exact value by alpha-beta, independent of the retrograde table.
            let exact = tabula_solver::kalah::start_value(&variant.rules, 16);
            assert_eq!(variant.value(), exact, "{}", variant.name());
            assert_ne!(exact, 0, "{}", variant.name());
            for line in lines.iter().filter(|l| l.case_label == variant.name()) {
                crate::record::replay::<Match>(line).unwrap();
                let Some(seat) = line.seats.iter().position(|s| s == "optimal") else {
                    continue;
                };
                let margin = line.scores[seat] - line.scores[1 - seat];
                let owed = if seat == 0 { exact } else { -exact };
                // Optimal play keeps at least the value against anyone.
                assert!(margin >= f64::from(owed), "{line:?}");
                if owed > 0 {
                    assert_eq!(
                        line.outcomes.as_ref().unwrap()[seat],
                        crate::arena::Outcome::Win
                    );
                    checked += 1;
                }
            }
            for opponent in ["greedy", "random"] {
                let tally = board
                    .tally(&format!("optimal vs {opponent}"), &variant.name())
                    .unwrap();
                assert_eq!(tally.wdl.games(), 16);
                // At least the 8 games it plays from the winning side.
                assert!(tally.wdl.wins >= 8, "{opponent}: {:?}", tally.wdl);
            }
        }
        // Per variant, 8 games from the winning side against each of 2 opponents.
        assert_eq!(checked, 3 * 2 * 8);
    }

    #[test]
    fn the_report_is_reproducible_and_follows_its_seed() {
        use crate::scoreboard::wins_and_half_draws;
        let variants = variants(&[(3, 3)]);
        let agents = names(&["greedy", "random"]);
        let lines = |seed| {
            verify(&agents, &variants, 20, seed, &|_| {}, &GameLog::off())
                .lines(&wins_and_half_draws)
        };
        let first = lines(3);
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].entrant, "greedy vs random");
        assert_eq!(first[0].games, 40);
        assert_eq!(lines(3), first);
        assert_ne!(lines(4), first);
    }

    #[test]
    fn a_variant_plays_the_same_games_alone_as_beside_others() {
        use crate::scoreboard::wins_and_half_draws;
        let agents = names(&["greedy", "random"]);
        let alone = verify(
            &agents,
            &variants(&[(2, 3)]),
            10,
            5,
            &|_| {},
            &GameLog::off(),
        );
        let beside = verify(
            &agents,
            &variants(&[(1, 2), (2, 3)]),
            10,
            5,
            &|_| {},
            &GameLog::off(),
        );
        let of = |board: &Scoreboard| {
            board
                .lines(&wins_and_half_draws)
                .into_iter()
                .filter(|l| l.case == "Kalah(2, 3)")
                .collect::<Vec<_>>()
        };
        assert_eq!(of(&alone), of(&beside));
    }

    #[test]
    fn a_logged_start_reads_back_whoever_moves() {
        use crate::record::Notation;
        let r = rules(3, 2).with_capture(tabula_solver::kalah::Capture::NonEmpty);
        let mut game = Match::new(r);
        // Pit 2 (two seeds) ends in the store, pit 1 does not: seat 1 to move.
        for pit in [1, 0] {
            Game::apply(&mut game, pit);
        }
        assert_eq!(game.mover, 1);
        let start = game.start_json();
        assert_eq!(start["rules"]["capture"], "non-empty");
        assert_eq!(Match::from_start_json(&start), Ok(game));
        assert_eq!(game.check_params(&Match::params_json(&r)), Ok(()));
        assert!(
            game.check_params(&Match::params_json(&rules(3, 2)))
                .is_err()
        );
        let mut tampered = start.clone();
        tampered["stores"][0] = serde_json::json!(5);
        assert!(Match::from_start_json(&tampered).is_err());
        assert_eq!(game.parse_move(&game.move_text(2)), Ok(2));
        assert!(game.parse_move("4").is_err());
    }
}
