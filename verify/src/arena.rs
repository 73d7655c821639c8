//! The one match loop: any game, any seats, one record type.

use std::time::{Duration, Instant};

use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use tabula_solver::{Game, Scores, Seat, Turn};

use crate::seat::{Clock, Failure, Fault, FaultKind, Player};

/// One move of a game: who made it, what it was, how long the seat took.
#[derive(Clone, Debug, PartialEq)]
pub struct Ply<M> {
    /// The seat that moved, or chance.
    pub turn: Turn,
    /// The move.
    pub mv: M,
    /// Time the seat took to answer (zero for chance).
    pub time: Duration,
}

/// How one game went, whatever the game.
#[derive(Clone, Debug)]
pub struct GameRecord<G: Game> {
    /// The player in each seat, by name.
    pub players: Vec<String>,
    /// Every move in order.
    pub plies: Vec<Ply<G::Move>>,
    /// The final per-seat scores, after the forfeit rule when there was a fault.
    pub scores: Scores,
    /// The fault that ended the game, if one did.
    pub fault: Option<Fault>,
    /// Time each seat spent answering.
    pub time_used: Vec<Duration>,
    /// The state the game started from (to replay it).
    pub start: G,
    /// The final state.
    pub end: G,
}

/// A game's result for one seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Strictly ahead of every other seat.
    Win,
    /// Tied for first place.
    Draw,
    /// Behind some other seat, or at fault.
    Loss,
}

impl Outcome {
    /// Its points in a contest that counts a win 1 and a draw 1/2.
    pub fn points(self) -> f64 {
        match self {
            Outcome::Win => 1.0,
            Outcome::Draw => 0.5,
            Outcome::Loss => 0.0,
        }
    }
}

/// The outcome of `seat` in a game that ended with `scores`, `faulted`
/// naming the seat whose fault ended it: that seat loses, and the others are
/// ranked among themselves by their scores.
pub fn outcome(scores: &[f64], faulted: Option<Seat>, seat: Seat) -> Outcome {
    if faulted == Some(seat) {
        return Outcome::Loss;
    }
    let mine = scores[seat];
    let best_other = (0..scores.len())
        .filter(|&s| s != seat && Some(s) != faulted)
        .map(|s| scores[s])
        .fold(f64::NEG_INFINITY, f64::max);
    if mine > best_other {
        Outcome::Win
    } else if mine == best_other {
        Outcome::Draw
    } else {
        Outcome::Loss
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Outcome::Win => "win",
            Outcome::Draw => "draw",
            Outcome::Loss => "loss",
        })
    }
}

impl<G: Game> GameRecord<G> {
    /// The seat's outcome: a fault loses, otherwise the scores decide.
    pub fn outcome(&self, seat: Seat) -> Outcome {
        outcome(&self.scores, self.fault.as_ref().map(|f| f.seat), seat)
    }

    /// The seat's rank, 1 for the best; tied seats share the better rank. As
    /// with [`GameRecord::outcome`], a seat at fault is last and the others are
    /// ranked among themselves by their scores.
    pub fn rank(&self, seat: Seat) -> usize {
        let faulted = self.fault.as_ref().map(|f| f.seat);
        if faulted == Some(seat) {
            return self.scores.len();
        }
        let mine = self.scores[seat];
        let ahead = (0..self.scores.len())
            .filter(|&s| Some(s) != faulted && self.scores[s] > mine)
            .count();
        1 + ahead
    }

    /// The seat's score minus the best score among the other seats, as the
    /// scores stand (after the forfeit rule when a seat faulted).
    pub fn margin(&self, seat: Seat) -> f64 {
        let best_other = (0..self.scores.len())
            .filter(|&s| s != seat)
            .map(|s| self.scores[s])
            .fold(f64::NEG_INFINITY, f64::max);
        self.scores[seat] - best_other
    }
}

/// Plays one game from `start` to its end.
///
/// `players[seating[seat]]` sits in `seat`, and `clocks` is indexed like
/// `players`. Chance draws from `chance`. A seat that fails or plays an illegal
/// move loses: the game's forfeit rule ([`Game::forfeit`]) ends it and the
/// fault is recorded.
pub fn play_game<G: Game>(
    start: G,
    players: &mut [&mut dyn Player<G>],
    seating: &[usize],
    clocks: &mut [Clock],
    chance: &mut ChaCha8Rng,
) -> GameRecord<G> {
    let seats = start.seats();
    assert_eq!(seating.len(), seats, "one player per seat");
    let mut state = start;
    let mut record = GameRecord {
        players: seating.iter().map(|&p| players[p].name()).collect(),
        plies: Vec::new(),
        scores: Scores::new(),
        fault: None,
        time_used: vec![Duration::ZERO; seats],
        start: state.clone(),
        end: state.clone(),
    };
    let fault = (|| -> Result<(), Fault> {
        for (seat, &p) in seating.iter().enumerate() {
            clocks[p].start_game();
            players[p]
                .start_game(seat, &state.view(seat), &mut clocks[p])
                .map_err(|f| f.at(seat))?;
        }
        loop {
            let (turn, mv, time) = match state.turn() {
                Turn::Over => return Ok(()),
                Turn::Chance => (Turn::Chance, state.sample_chance(chance), Duration::ZERO),
                Turn::Seat(seat) => {
                    let p = seating[seat];
                    let started = Instant::now();
                    let chosen = players[p].choose(&state.view(seat), &mut clocks[p]);
                    // Counted before a failure returns: a time-out's wait is time used.
                    let time = started.elapsed();
                    record.time_used[seat] += time;
                    let mv = chosen.map_err(|f| f.at(seat))?;
                    state.check_move(mv).map_err(|illegal| {
                        let reason = match players[p].last_answer() {
                            Some(answer) => format!("{illegal} (answer {answer})"),
                            None => illegal.to_string(),
                        };
                        Failure::new(FaultKind::IllegalMove, reason).at(seat)
                    })?;
                    (Turn::Seat(seat), mv, time)
                }
            };
            for (seat, &p) in seating.iter().enumerate() {
                if turn != Turn::Seat(seat) {
                    players[p]
                        .observe(turn, &state.observe(mv, seat))
                        .map_err(|f| f.at(seat))?;
                }
            }
            state.apply(mv);
            record.plies.push(Ply { turn, mv, time });
        }
    })()
    .err();
    if let Some(fault) = &fault {
        state.forfeit(fault.seat);
        players[seating[fault.seat]].faulted();
    }
    for (seat, &p) in seating.iter().enumerate() {
        players[p].end_game(&state.view(seat));
    }
    record.scores = state.scores();
    record.fault = fault;
    record.end = state;
    record
}

/// Plays the games of one test case with the same players.
///
/// `setup(game)` gives each game's start, its chance stream and its seating.
/// A fault that ends the case (a dead player, a spent case budget) loses the
/// remaining games of the case for that player: they are recorded unplayed,
/// with the forfeit rule applied to their start and the same fault.
pub fn play_case<G: Game>(
    params: &G::Params,
    games: usize,
    players: &mut [&mut dyn Player<G>],
    clocks: &mut [Clock],
    setup: impl FnMut(usize) -> (G, ChaCha8Rng, Vec<usize>),
) -> Vec<GameRecord<G>> {
    play_case_each(params, games, players, clocks, setup, &mut |_, _| {})
}

/// [`play_case`], handing each game's record to `each` as soon as the game
/// ends (to write a log as the games come).
pub fn play_case_each<G: Game>(
    params: &G::Params,
    games: usize,
    players: &mut [&mut dyn Player<G>],
    clocks: &mut [Clock],
    mut setup: impl FnMut(usize) -> (G, ChaCha8Rng, Vec<usize>),
    each: &mut dyn FnMut(usize, &GameRecord<G>),
) -> Vec<GameRecord<G>> {
    let mut records = Vec::with_capacity(games);
    let mut dead: Vec<Option<Fault>> = vec![None; players.len()];
    for (p, player) in players.iter_mut().enumerate() {
        clocks[p].start_case();
        if let Err(failure) = player.start_case(params, &mut clocks[p]) {
            player.faulted();
            dead[p] = Some(
                Failure {
                    ends_case: true,
                    ..failure
                }
                .at(usize::MAX),
            );
        }
    }
    for game in 0..games {
        let (start, mut chance, seating) = setup(game);
        let dead_seat = seating
            .iter()
            .enumerate()
            .find_map(|(seat, &p)| dead[p].clone().map(|f| Fault { seat, ..f }));
        let record = match dead_seat {
            Some(fault) => {
                let mut end = start.clone();
                end.forfeit(fault.seat);
                GameRecord {
                    players: seating.iter().map(|&p| players[p].name()).collect(),
                    plies: Vec::new(),
                    scores: end.scores(),
                    fault: Some(fault),
                    time_used: vec![Duration::ZERO; seating.len()],
                    start,
                    end,
                }
            }
            None => play_game(start, players, &seating, clocks, &mut chance),
        };
        if let Some(fault) = record.fault.as_ref().filter(|f| f.ends_case) {
            dead[seating[fault.seat]] = Some(fault.clone());
        }
        each(game, &record);
        records.push(record);
    }
    records
}

#[cfg(test)]
mod tests {
    //! A toy game with chance and hidden information checks what the loop
    //! shows to whom: each seat rolls a die that only it sees, then both
    //! seats in turn keep or reroll once; the higher roll wins.

    use super::*;
    use crate::agent::Agent;
    use crate::seat::Local;
    use crate::tournament::{Purpose, stream};
    use rand::RngExt;
    use tabula_solver::game::Determinize;
    use tabula_solver::{IllegalMove, MoveList};

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum DiceMove {
        Roll(u8),
        Keep,
        Reroll,
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Dice {
        rolls: [Option<u8>; 2],
        decided: [bool; 2],
        rolling: Option<Seat>,
    }

    /// What a seat sees: its own roll, and whether the other has rolled.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct DiceView {
        seat: Seat,
        mine: Option<u8>,
        other_rolled: bool,
        decided: [bool; 2],
    }

    impl Dice {
        fn new() -> Dice {
            Dice {
                rolls: [None; 2],
                decided: [false; 2],
                rolling: Some(0),
            }
        }
    }

    impl Game for Dice {
        type Move = DiceMove;
        type Moves = MoveList<DiceMove, 6>;
        type View = DiceView;
        type Observation = Option<DiceMove>;
        type Params = ();

        fn seats(&self) -> usize {
            2
        }

        fn turn(&self) -> Turn {
            if self.rolling.is_some() {
                Turn::Chance
            } else if let Some(seat) = (0..2).find(|&s| !self.decided[s]) {
                Turn::Seat(seat)
            } else {
                Turn::Over
            }
        }

        fn moves(&self) -> Self::Moves {
            match self.turn() {
                Turn::Chance => (1..=6).map(DiceMove::Roll).collect(),
                Turn::Seat(_) => [DiceMove::Keep, DiceMove::Reroll].into_iter().collect(),
                Turn::Over => MoveList::new(),
            }
        }

        fn apply(&mut self, mv: DiceMove) {
            match (mv, self.rolling) {
                (DiceMove::Roll(r), Some(seat)) => {
                    self.rolls[seat] = Some(r);
                    let next = seat + 1;
                    self.rolling = (next < 2 && self.rolls[next].is_none()).then_some(next);
                }
                (DiceMove::Keep, None) => {
                    let seat = (0..2).find(|&s| !self.decided[s]).expect("a seat decides");
                    self.decided[seat] = true;
                }
                (DiceMove::Reroll, None) => {
                    let seat = (0..2).find(|&s| !self.decided[s]).expect("a seat decides");
                    self.decided[seat] = true;
                    self.rolls[seat] = None;
                    self.rolling = Some(seat);
                }
                _ => unreachable!("checked moves only"),
            }
        }

        fn scores(&self) -> Scores {
            self.rolls
                .iter()
                .map(|r| f64::from(r.unwrap_or(0)))
                .collect()
        }

        fn view(&self, seat: Seat) -> DiceView {
            DiceView {
                seat,
                mine: self.rolls[seat],
                other_rolled: self.rolls[1 - seat].is_some(),
                decided: self.decided,
            }
        }

        fn observe(&self, mv: DiceMove, seat: Seat) -> Option<DiceMove> {
            // Another seat's roll is hidden; decisions are public.
            match (mv, self.rolling) {
                (DiceMove::Roll(_), Some(roller)) if roller != seat => None,
                _ => Some(mv),
            }
        }

        fn view_moves(_view: &DiceView) -> Self::Moves {
            [DiceMove::Keep, DiceMove::Reroll].into_iter().collect()
        }

        fn chance_weight(&self, mv: DiceMove) -> f64 {
            // A loaded die: six comes up three times as often.
            if mv == DiceMove::Roll(6) { 3.0 } else { 1.0 }
        }

        fn check_move(&self, mv: DiceMove) -> Result<(), IllegalMove> {
            if self.moves().contains(&mv) {
                Ok(())
            } else {
                Err(IllegalMove(format!("{mv:?} now")))
            }
        }
    }

    impl Determinize for Dice {
        fn sample(view: &DiceView, seat: Seat, rng: &mut impl rand::Rng) -> Dice {
            let mut rolls = [None; 2];
            rolls[seat] = view.mine;
            if view.other_rolled {
                rolls[1 - seat] = Some(rng.random_range(1..=6));
            }
            Dice {
                rolls,
                decided: view.decided,
                rolling: None,
            }
        }
    }

    /// Rerolls a low die; remembers everything it was shown.
    struct Cautious {
        seen: Vec<Option<DiceMove>>,
        views: Vec<DiceView>,
    }

    impl Agent<Dice> for Cautious {
        fn name(&self) -> String {
            "cautious".into()
        }
        fn observe(&mut self, _mover: Turn, observation: &Option<DiceMove>) {
            self.seen.push(*observation);
        }
        fn choose(&mut self, view: &DiceView) -> DiceMove {
            self.views.push(*view);
            if view.mine.unwrap_or(0) <= 3 {
                DiceMove::Reroll
            } else {
                DiceMove::Keep
            }
        }
    }

    /// Answers with an illegal move.
    struct Cheat;

    impl Agent<Dice> for Cheat {
        fn name(&self) -> String {
            "cheat".into()
        }
        fn choose(&mut self, _view: &DiceView) -> DiceMove {
            DiceMove::Roll(6)
        }
    }

    fn cautious() -> Local<Cautious> {
        Local(Cautious {
            seen: Vec::new(),
            views: Vec::new(),
        })
    }

    #[test]
    fn seats_see_only_their_own_dice_and_chance_follows_the_weights() {
        let mut sixes = 0;
        let mut rolls = 0;
        for game in 0..300 {
            let (mut a, mut b) = (cautious(), cautious());
            let mut clocks = vec![Clock::default(); 2];
            let mut chance = stream(5, Purpose::Chance, 0, game, 0);
            let record = {
                let mut players: Vec<&mut dyn Player<Dice>> = vec![&mut a, &mut b];
                play_game(Dice::new(), &mut players, &[0, 1], &mut clocks, &mut chance)
            };
            assert_eq!(record.fault, None);
            assert_eq!(record.end.turn(), Turn::Over);
            for (seat, agent) in [(0, &a.0), (1, &b.0)] {
                // Every roll of the other seat reached this one as None.
                let other_rolls = record
                    .plies
                    .iter()
                    .filter(|p| p.turn == Turn::Chance)
                    .count();
                let hidden = agent.seen.iter().filter(|o| o.is_none()).count();
                let own_rolls = agent
                    .seen
                    .iter()
                    .filter(|o| matches!(o, Some(DiceMove::Roll(_))))
                    .count();
                assert_eq!(hidden + own_rolls, other_rolls, "seat {seat}");
                assert!(hidden >= 1, "seat {seat} saw the other's roll");
                assert!(agent.views.iter().all(|v| v.seat == seat));
                // A sampled state agrees with everything the seat saw.
                let view = record.end.view(seat);
                let sampled = Dice::sample(&view, seat, &mut stream(1, Purpose::Agent, 0, game, 0));
                assert_eq!(sampled.view(seat), view);
            }
            for ply in &record.plies {
                if let DiceMove::Roll(r) = ply.mv {
                    rolls += 1;
                    sixes += usize::from(r == 6);
                }
            }
        }
        // Six has weight 3 of 8: expect 37.5%, far from the fair 16.7%.
        let share = sixes as f64 / rolls as f64;
        assert!((0.30..0.45).contains(&share), "{share}");
    }

    #[test]
    fn an_illegal_move_loses_with_the_reason_and_the_forfeit_rule() {
        let mut cheat = Local(Cheat);
        let mut other = cautious();
        let mut clocks = vec![Clock::default(); 2];
        let mut chance = stream(5, Purpose::Chance, 0, 0, 0);
        let mut players: Vec<&mut dyn Player<Dice>> = vec![&mut other, &mut cheat];
        // The cheat sits in seat 0 (player index 1).
        let record = play_game(Dice::new(), &mut players, &[1, 0], &mut clocks, &mut chance);
        let fault = record.fault.clone().expect("a fault");
        assert_eq!((fault.seat, fault.kind), (0, FaultKind::IllegalMove));
        assert!(fault.reason.contains("Roll(6)"), "{}", fault.reason);
        assert_eq!(record.outcome(0), Outcome::Loss);
        assert_eq!(record.players, vec!["cheat", "cautious"]);
    }

    #[test]
    fn a_seat_at_fault_ranks_last_whatever_the_scores() {
        // Three seats; seat 1 leads on the scores but faulted.
        let mut record = play_game(
            Dice::new(),
            &mut [&mut cautious(), &mut cautious()],
            &[0, 1],
            &mut [Clock::default(), Clock::default()],
            &mut stream(5, Purpose::Chance, 0, 0, 0),
        );
        record.scores = [3.0, 9.0, 5.0].into_iter().collect();
        assert_eq!((record.rank(0), record.rank(1), record.rank(2)), (3, 1, 2));
        record.fault = Some(Failure::new(FaultKind::IllegalMove, "test").at(1));
        assert_eq!((record.rank(0), record.rank(1), record.rank(2)), (2, 3, 1));
        assert_eq!(record.outcome(1), Outcome::Loss);
        assert_eq!(record.outcome(2), Outcome::Win);
    }
}
