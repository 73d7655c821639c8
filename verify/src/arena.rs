//! The one match loop: any game, any seats, one record type.

use std::time::{Duration, Instant};

use rand_chacha::ChaCha8Rng;
use serde::Serialize;
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
    /// The final state.
    pub end: G,
}

/// A game's result for one seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Strictly ahead of every other seat.
    Win,
    /// Tied for first place.
    Draw,
    /// Behind some other seat, or at fault.
    Loss,
}

impl<G: Game> GameRecord<G> {
    /// The seat's outcome: a fault loses, otherwise the scores decide.
    pub fn outcome(&self, seat: Seat) -> Outcome {
        if let Some(fault) = &self.fault {
            return if fault.seat == seat {
                Outcome::Loss
            } else {
                // The other seats are ranked among themselves.
                self.outcome_among(seat, |s| s != fault.seat)
            };
        }
        self.outcome_among(seat, |_| true)
    }

    fn outcome_among(&self, seat: Seat, counts: impl Fn(Seat) -> bool) -> Outcome {
        let mine = self.scores[seat];
        let others = (0..self.scores.len()).filter(|&s| s != seat && counts(s));
        let best_other = others
            .map(|s| self.scores[s])
            .fold(f64::NEG_INFINITY, f64::max);
        if mine > best_other {
            Outcome::Win
        } else if mine == best_other {
            Outcome::Draw
        } else {
            Outcome::Loss
        }
    }

    /// The seat's rank, 1 for the best; tied seats share the better rank.
    pub fn rank(&self, seat: Seat) -> usize {
        let mine = self.scores[seat];
        1 + self.scores.iter().filter(|&&s| s > mine).count()
    }

    /// The seat's score minus the best score among the other seats.
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
                    let mv = players[p]
                        .choose(&state.view(seat), &mut clocks[p])
                        .map_err(|f| f.at(seat))?;
                    let time = started.elapsed();
                    record.time_used[seat] += time;
                    state.check_move(mv).map_err(|illegal| {
                        Failure::new(FaultKind::IllegalMove, illegal.to_string()).at(seat)
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
    mut setup: impl FnMut(usize) -> (G, ChaCha8Rng, Vec<usize>),
) -> Vec<GameRecord<G>> {
    let mut records = Vec::with_capacity(games);
    let mut dead: Vec<Option<Fault>> = vec![None; players.len()];
    for (p, player) in players.iter_mut().enumerate() {
        clocks[p].start_case();
        if let Err(failure) = player.start_case(params, &mut clocks[p]) {
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
                    end,
                }
            }
            None => play_game(start, players, &seating, clocks, &mut chance),
        };
        if let Some(fault) = record.fault.as_ref().filter(|f| f.ends_case) {
            dead[seating[fault.seat]] = Some(fault.clone());
        }
        records.push(record);
    }
    records
}
