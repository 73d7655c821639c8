//! The toy game's contest pieces: its wire, agents, the referee's results, and its verify run and report.

pub mod analysis;
pub mod contest;
pub mod draw;
pub mod notation;
pub mod players;
pub mod report;
pub mod wire;

pub use contest::NimContest;
pub use players::*;
pub use report::*;
pub use wire::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{Agent, RandomAgent};
    use crate::record::GameLog;
    use crate::scoreboard::wins_and_half_draws;
    use crate::tournament::{Purpose, stream};
    use crate::wire::Session;
    use crate::wire::Wire;
    use tabula_solver::Game;
    use tabula_solver::nim::Nim;

    #[test]
    fn the_wire_round_trips_through_both_ends() {
        let mut referee = NimWire;
        let mut player = Session::new(NimWire, Optimal);
        let view = Nim::new(7);
        let request = referee.move_request(&view);
        let crate::protocol::Reply::Line(answer) = player.handle(&request).unwrap() else {
            panic!("a move is answered");
        };
        assert_eq!(referee.decode_answer(&view, &answer), Ok(3));
        assert!(player.handle("take 0").is_err());
        assert!(player.handle("give 3").is_err());
        assert!(referee.decode_answer(&view, "three").is_err());
    }

    #[test]
    fn optimal_wins_every_winnable_heap_against_random() {
        // Winnable: heap 5 moving first, heap 8 (a multiple of four) moving second.
        let mut won = 0;
        for (heap, optimal_seat) in [(5, 0), (8, 1), (9, 0), (12, 1)] {
            for g in 0..20 {
                let mut random = RandomAgent::new(stream(g, Purpose::Agent, 0, 0, 0));
                let mut game = Nim::new(heap);
                while !game.is_over() {
                    let tabula_solver::Turn::Seat(seat) = game.turn() else {
                        panic!("Nim has no chance moves");
                    };
                    let mv = if seat == optimal_seat {
                        Optimal.choose(&game)
                    } else {
                        Agent::<Nim>::choose(&mut random, &game)
                    };
                    game.apply(mv);
                }
                assert_eq!(game.scores()[optimal_seat], 1.0, "heap {heap}, game {g}");
                won += 1;
            }
        }
        assert_eq!(won, 80);
    }

    #[test]
    fn the_report_is_reproducible() {
        let agents = vec!["optimal".to_string(), "random".to_string()];
        let board = verify(&agents, &[5, 8], 20, 3, &|_| {}, &GameLog::off());
        let winnable = board.tally("optimal vs random", "heap 5").unwrap();
        assert_eq!(winnable.wdl.games(), 40);
        // At least the 20 games where it moves first.
        assert!(winnable.wdl.wins >= 20, "{:?}", winnable.wdl);
        let again = verify(&agents, &[5, 8], 20, 3, &|_| {}, &GameLog::off());
        assert_eq!(
            board.lines(&wins_and_half_draws),
            again.lines(&wins_and_half_draws)
        );
    }
}
