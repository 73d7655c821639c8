//! `best`: learns its opponents from the boards it is shown and searches
//! against what it learnt.
//!
//! Over the protocol a player sees only boards, so everything comes from
//! successive boards: between two of its boards, [`reconstruct`] recovers the
//! others' moves (ambiguous turns, rare, teach nothing); each move is first
//! predicted (counted in [`Predictions`]) and then added to the [`Model`],
//! which then learns for a while ([`LEARN_STEPS`] proposals).
//!
//! The move: Best-Reply Search (the `brs` player's search, with a larger
//! node budget) rates the moves. While the model's recent predictions are
//! right less often than [`Tuning::trust`], its move is played. Once they
//! are, the moves within [`Tuning::margin`] cells of BRS's best value are
//! rated by the lookahead (which solves the last empties exactly) against the
//! model's best fit per opponent and the [`ALTERNATIVES`] best-fitting
//! candidates, half by the mean value over these guesses and half by the
//! worst, and the best of them is played: the model chooses only among moves
//! BRS finds nearly as good, which bounds the cost of a wrong model. While it
//! holds few cells, a move after which some one-round replies take every cell
//! is avoided among them.

use std::collections::VecDeque;
use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use tabula_solver::grid::Square;
use tabula_solver::reversi::board::MAX_CELLS;
use tabula_solver::reversi::lookahead::{self, Lookahead, Policies, fewest_after_round};
use tabula_solver::reversi::model::{Model, reconstruct};
use tabula_solver::reversi::search::{Evaluation, Kind, Limits, PIECE, decide_near};
use tabula_solver::reversi::{Board, Rule, Weights};
use tabula_solver::{Game, Seat};

use super::Predictions;
use crate::agent::Agent;

/// Local-search proposals after each batch of observed moves.
pub const LEARN_STEPS: usize = 4000;
/// Lookahead nodes per decision.
pub const BUDGET: u64 = 6_000;
/// Up to this many cells, moves after which some replies take them all are avoided.
pub const SAFETY_CELLS: u32 = 12;
/// Positions the safety check may visit per move.
const SAFETY_BUDGET: u64 = 20_000;
/// The penalty of a move after which every cell may be lost.
const WIPED_OUT: f64 = 1000.0;
/// Best-fitting candidates searched against besides the main guess.
pub const ALTERNATIVES: usize = 2;
/// Recent predictions that decide whether the model is trusted.
const RECENT: usize = 12;

/// The knobs of `best`'s decision (see the module's notes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    /// The share of recent predictions that must be right to use the model.
    pub trust: f64,
    /// How far below BRS's best value (in cells) a move the model prefers may be.
    pub margin: f64,
    /// Best-Reply Search's limits.
    pub search: Limits,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            trust: 0.3,
            margin: 2.0,
            search: Limits {
                depth: 16,
                nodes: 24_000,
            },
        }
    }
}

/// The learning player (see the module's notes).
pub struct Best {
    rng: ChaCha8Rng,
    predictions: Arc<Predictions>,
    /// The rule the opponents are assumed to follow: the statement's reading.
    rule: Rule,
    tuning: Tuning,
    game: Option<Game1>,
}

/// What one game taught.
struct Game1 {
    me: Seat,
    eval: Evaluation,
    model: Model,
    /// The board just after this player's last move.
    after: Option<Board>,
    recent: VecDeque<bool>,
}

impl Best {
    /// A fresh player counting its predictions in `predictions`.
    pub fn new(rng: ChaCha8Rng, predictions: Arc<Predictions>) -> Best {
        Best::tuned(rng, predictions, Tuning::default())
    }

    /// [`Best::new`] with other knobs.
    pub fn tuned(rng: ChaCha8Rng, predictions: Arc<Predictions>, tuning: Tuning) -> Best {
        Best {
            rng,
            predictions,
            rule: Rule::default(),
            tuning,
            game: None,
        }
    }

    fn fresh(&mut self, me: Seat, view: &Board) -> Game1 {
        Game1 {
            me,
            eval: Evaluation::new(view.n()),
            model: Model::new(view.n(), self.rule, &mut self.rng),
            after: None,
            recent: VecDeque::new(),
        }
    }

    /// Learns from the others' moves since this player's last board.
    fn catch_up(&mut self, view: &Board) {
        let me = view.mover().expect("asked only when it can move");
        let sequences = match &self.game {
            Some(game) if game.me == me => match game.after {
                Some(after) => reconstruct(&after, view, me, 2),
                // The game's first board: nothing to learn yet.
                None => return,
            },
            _ => Vec::new(),
        };
        if sequences.is_empty() {
            // A new game, or a board that does not follow: start afresh.
            self.game = Some(self.fresh(me, view));
            return;
        }
        let game = self.game.as_mut().expect("checked above");
        if sequences.len() == 1 {
            for (board, mv) in &sequences[0] {
                if !game.model.choices().is_empty() {
                    let right = game.model.predict(board) == Some(*mv);
                    self.predictions.record(right);
                    game.recent.push_back(right);
                    if game.recent.len() > RECENT {
                        game.recent.pop_front();
                    }
                }
                game.model.observe(board, *mv);
            }
            game.model.learn(LEARN_STEPS, &mut self.rng);
        }
    }

    /// Whether the model's recent predictions are right often enough to use it.
    fn trusted(&self) -> bool {
        let game = self.game.as_ref().expect("a game is on");
        let right = game.recent.iter().filter(|&&r| r).count();
        game.recent.len() >= RECENT / 2
            && right as f64 >= self.tuning.trust * game.recent.len() as f64
    }

    /// The opponents' policies to search against: first the model's best
    /// fit per opponent, then the best-fitting candidates as alternatives.
    fn policies(&self) -> Vec<Policies> {
        let game = self.game.as_ref().expect("a game is on");
        let mut main = [Weights([1.0; MAX_CELLS]); 4];
        for (seat, w) in main.iter_mut().enumerate() {
            if seat != game.me {
                *w = game.model.best_for(seat);
            }
        }
        let mut all = vec![Policies {
            weights: main,
            rule: self.rule,
        }];
        for w in game.model.ranked(ALTERNATIVES) {
            all.push(Policies {
                weights: [w; 4],
                rule: self.rule,
            });
        }
        all
    }

    /// Among `moves`, the one the lookahead against the model rates best.
    fn by_model(&self, view: &Board, me: Seat, moves: &[Square]) -> Square {
        let all = self.policies();
        let limits = lookahead::Limits {
            budget: BUDGET / all.len() as u64,
            ..lookahead::Limits::default()
        };
        // Each move's value under every guess: half the mean, half the worst.
        let mut scores: Vec<(Square, f64, f64)> = Vec::new();
        for policies in &all {
            let (_, values) = Lookahead::new(me, policies, limits).decide_all(view);
            if scores.is_empty() {
                scores = values.iter().map(|&(m, v)| (m, 0.0, v)).collect();
            }
            for (s, &(m, v)) in scores.iter_mut().zip(&values) {
                debug_assert_eq!(s.0, m);
                s.1 += v / all.len() as f64;
                s.2 = s.2.min(v);
            }
        }
        scores.retain(|s| moves.contains(&s.0));
        // Few cells can all be lost in one round: such moves come last.
        if view.pieces(me).count() <= SAFETY_CELLS {
            for s in scores.iter_mut() {
                let mut after = *view;
                after.play(s.0);
                if fewest_after_round(&after, me, SAFETY_BUDGET) == Some(0) {
                    s.1 -= WIPED_OUT;
                    s.2 -= WIPED_OUT;
                }
            }
        }
        let rated = |&(_, mean, worst): &(Square, f64, f64)| 0.5 * mean + 0.5 * worst;
        // Ties go to the earlier move of `moves` (BRS's best comes first).
        let rank = |m: Square| moves.iter().position(|&x| x == m).expect("kept");
        scores
            .iter()
            .fold(None::<(Square, f64)>, |best, s| match best {
                Some((b, v)) if rated(s) < v || (rated(s) == v && rank(b) < rank(s.0)) => best,
                _ => Some((s.0, rated(s))),
            })
            .expect("the mover has a move")
            .0
    }
}

impl Agent<Board> for Best {
    fn name(&self) -> String {
        "best".into()
    }

    fn start_game(&mut self, seat: Seat, view: &Board) {
        self.game = Some(self.fresh(seat, view));
    }

    fn choose(&mut self, view: &Board) -> Square {
        self.catch_up(view);
        let me = view.mover().expect("asked only when it can move");
        // Best-Reply Search names the moves within the margin of its best;
        // a trusted model picks among them, else BRS's move is played.
        let margin = if self.trusted() {
            (self.tuning.margin * f64::from(PIECE)).round() as i32
        } else {
            0
        };
        let game = self.game.as_ref().expect("a game is on");
        let (decision, near) = decide_near(
            Kind::BestReply,
            view,
            me,
            &game.eval,
            self.tuning.search,
            margin,
        )
        .expect("the mover has a move");
        let mv = if near.len() > 1 {
            let moves: Vec<Square> = near.iter().map(|&(m, _)| m).collect();
            self.by_model(view, me, &moves)
        } else {
            decision.square
        };
        let mut after = *view;
        Game::apply(&mut after, mv);
        if let Some(game) = self.game.as_mut() {
            game.after = Some(after);
        }
        mv
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reversi::evolve::Settings;
    use crate::reversi::referee::opponents;
    use crate::reversi::{Opponent, case_agent};
    use crate::tournament::{Purpose, stream};
    use tabula_solver::reversi::{MAX_N, MIN_N};

    fn case(n: usize, seed: u64) -> Vec<Opponent> {
        let settings = Settings {
            generations: Some(2),
            games: 10,
            ..Settings::new(n)
        };
        let (weights, _) = opponents(seed, &settings, 0, &|_, _| {});
        weights
            .into_iter()
            .map(|weights| Opponent {
                weights,
                rule: Rule::default(),
            })
            .collect()
    }

    /// Plays `name` in seat 0 against `opp`; returns the predictions' counts
    /// and the chance of guessing each predicted move at random.
    fn play(name: &str, n: usize, opp: &[Opponent]) -> (Arc<Predictions>, f64, usize) {
        let predictions = Arc::new(Predictions::default());
        let mut player = case_agent(name, stream(1, Purpose::Agent, 0, 0, 0), opp, &predictions)
            .expect("a known player");
        assert_eq!(player.name(), name);
        let mut board = Board::start(n).unwrap();
        player.start_game(0, &board);
        let (mut chance, mut turns) = (0.0, 0);
        while let Some(seat) = board.mover() {
            let mv = if seat == 0 {
                let mv = player.choose(&board);
                assert!(board.check(mv).is_ok(), "{name} n {n}");
                mv
            } else {
                chance += 1.0 / board.moves().len() as f64;
                turns += 1;
                opp[seat - 1]
                    .weights
                    .choose(&board, Rule::default())
                    .unwrap()
            };
            board.play(mv);
        }
        (predictions, chance, turns)
    }

    #[test]
    fn best_and_the_oracle_play_legal_moves_to_the_end_on_every_size() {
        for n in MIN_N..=MAX_N {
            let opp = case(n, 3);
            for name in ["best", "oracle"] {
                let (predictions, _, turns) = play(name, n, &opp);
                let (_, asked) = predictions.counts();
                if name == "best" {
                    // Every opponent move but the very first ones is predicted.
                    assert!(asked > 0 && asked as usize <= turns, "n {n}");
                } else {
                    assert_eq!(asked, 0);
                }
            }
        }
    }

    /// Near-clones of one strategy, as a long evolution leaves them.
    fn clones(n: usize, seed: u64) -> Vec<Opponent> {
        use rand::RngExt;
        let mut rng = stream(seed, Purpose::Setup, 0, 0, 0);
        let mut base = Weights([0.0; MAX_CELLS]);
        for x in base.0.iter_mut() {
            *x = rng.random_range(-50.0..50.0);
        }
        (1..Board::players_for(n))
            .map(|_| {
                let mut weights = base;
                for x in weights.0.iter_mut() {
                    *x += rng.random_range(-2.0..2.0);
                }
                Opponent {
                    weights,
                    rule: Rule::default(),
                }
            })
            .collect()
    }

    #[test]
    fn best_predicts_the_opponents_far_better_than_a_random_guess() {
        let (mut right, mut asked, mut chance, mut turns) = (0, 0, 0.0, 0);
        // Two games per size: one game's rate depends on the positions reached.
        for (n, seed) in [9, 10, 11, 12].into_iter().flat_map(|n| [(n, 4), (n, 6)]) {
            let opp = clones(n, seed);
            let (predictions, c, t) = play("best", n, &opp);
            let (r, a) = predictions.counts();
            right += r;
            asked += a;
            chance += c;
            turns += t;
        }
        let rate = right as f64 / asked as f64;
        let guess = chance / turns as f64;
        // About twice a random guess in two games per size (weights never seen stay unknown).
        assert!(rate > 1.5 * guess, "rate {rate} vs a random guess {guess}");
    }

    #[test]
    fn an_untrusted_model_plays_best_reply_search() {
        use tabula_solver::reversi::search::decide;
        for n in MIN_N..=MAX_N {
            let tuning = Tuning::default();
            let mut best = Best::new(stream(2, Purpose::Agent, 0, 0, 0), Arc::default());
            let board = Board::start(n).unwrap();
            // Nothing observed yet: the model is not trusted.
            let expect = decide(
                Kind::BestReply,
                &board,
                0,
                &Evaluation::new(n),
                tuning.search,
            );
            assert_eq!(Some(best.choose(&board)), expect.map(|d| d.square));
        }
    }

    #[test]
    fn a_new_game_or_a_board_that_does_not_follow_starts_afresh() {
        let n = 7;
        let opp = case(n, 5);
        let mut best = Best::new(stream(1, Purpose::Agent, 0, 0, 0), Arc::default());
        let start = Board::start(n).unwrap();
        // No start_game: the first board starts a game.
        let first = best.choose(&start);
        assert!(start.check(first).is_ok());
        let mut board = start;
        board.play(first);
        Policies::for_seat_zero(&[opp[0].weights, opp[1].weights], Rule::default())
            .advance(&mut board, 0);
        best.choose(&board);
        assert_eq!(best.game.as_ref().unwrap().model.choices().len(), 2);
        // The start again: a new game, nothing learnt.
        best.choose(&start);
        assert!(best.game.as_ref().unwrap().model.choices().is_empty());
    }
}

#[cfg(test)]
mod wire_tests {
    use super::*;
    use crate::process::StreamPeer;
    use crate::reversi::ReversiWire;
    use crate::reversi::evolve::Settings;
    use crate::reversi::referee::{opponents, referee_case};
    use crate::seat::{Limits, Local, Remote};
    use crate::tournament::{Purpose, stream};
    use crate::wire::Session;

    #[test]
    fn served_best_plays_exactly_as_in_process() {
        // One fresh player per case on each side, as the tester runs it.
        for n in [7, 10] {
            let agent = || Best::new(stream(9, Purpose::Agent, 0, 0, 0), Arc::default());
            let (requests, to_player) = std::io::pipe().unwrap();
            let (from_player, answers) = std::io::pipe().unwrap();
            let server = std::thread::spawn(move || {
                let mut session = Session::new(ReversiWire::default(), agent());
                session.serve(std::io::BufReader::new(requests), answers)
            });
            let peer = StreamPeer::new(from_player, to_player);
            let mut remote = Remote::new("served", Box::new(peer), ReversiWire::default());
            let mut local = Local(agent());
            let settings = Settings {
                generations: Some(2),
                games: 10,
                ..Settings::new(n)
            };
            let (opp, _) = opponents(9, &settings, 0, &|_, _| {});
            let limits = Limits::default();
            let (a, served) = referee_case(n, &opp, Rule::default(), &mut remote, limits);
            let (b, in_process) = referee_case(n, &opp, Rule::default(), &mut local, limits);
            assert_eq!(a, b);
            assert_eq!(a.fault, None);
            let moves = |r: &crate::arena::GameRecord<Board>| {
                r.plies.iter().map(|p| p.mv).collect::<Vec<_>>()
            };
            assert_eq!(moves(&served), moves(&in_process));
            drop(remote);
            server.join().unwrap().unwrap();
        }
    }
}
