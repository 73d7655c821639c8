//! The agent trait: an in-process player that sees only its own seat's view.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use tabula_solver::{Game, Seat, Turn};

/// A built-in player. It is told when a case and a game start, sees every
/// move as its seat may see it, and chooses from its view; it never receives
/// the hidden state.
pub trait Agent<G: Game>: Send {
    /// Short name used in reports (`random`, `greedy1`, `solver-d4-e12`).
    fn name(&self) -> String;

    /// A new test case starts with these parameters.
    fn start_case(&mut self, _params: &G::Params) {}

    /// A new game starts; this agent sits in `seat`.
    fn start_game(&mut self, _seat: Seat, _view: &G::View) {}

    /// The next game's random stream, from a runner that keeps the agent for
    /// a whole case: the agent's play then depends on earlier games only
    /// through what it chose to learn from them (caches that would change its
    /// choices are dropped too).
    fn reseed(&mut self, _rng: ChaCha8Rng) {}

    /// A move was played (by another seat or by chance), as this seat sees it.
    fn observe(&mut self, _mover: Turn, _observation: &G::Observation) {}

    /// A legal move for this seat, whose turn it is.
    fn choose(&mut self, view: &G::View) -> G::Move;
}

impl<G: Game, A: Agent<G> + ?Sized> Agent<G> for Box<A> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn start_case(&mut self, params: &G::Params) {
        (**self).start_case(params)
    }
    fn start_game(&mut self, seat: Seat, view: &G::View) {
        (**self).start_game(seat, view)
    }
    fn reseed(&mut self, rng: ChaCha8Rng) {
        (**self).reseed(rng)
    }
    fn observe(&mut self, mover: Turn, observation: &G::Observation) {
        (**self).observe(mover, observation)
    }
    fn choose(&mut self, view: &G::View) -> G::Move {
        (**self).choose(view)
    }
}

impl<G: Game, A: Agent<G> + ?Sized> Agent<G> for &mut A {
    fn name(&self) -> String {
        (**self).name()
    }
    fn start_case(&mut self, params: &G::Params) {
        (**self).start_case(params)
    }
    fn start_game(&mut self, seat: Seat, view: &G::View) {
        (**self).start_game(seat, view)
    }
    fn reseed(&mut self, rng: ChaCha8Rng) {
        (**self).reseed(rng)
    }
    fn observe(&mut self, mover: Turn, observation: &G::Observation) {
        (**self).observe(mover, observation)
    }
    fn choose(&mut self, view: &G::View) -> G::Move {
        (**self).choose(view)
    }
}

/// Plays uniformly at random among the legal moves, from a seeded stream.
pub struct RandomAgent {
    rng: ChaCha8Rng,
}

impl RandomAgent {
    /// A random agent drawing from `rng`.
    pub fn new(rng: ChaCha8Rng) -> RandomAgent {
        RandomAgent { rng }
    }
}

impl<G: Game> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }

    fn reseed(&mut self, rng: ChaCha8Rng) {
        self.rng = rng;
    }

    fn choose(&mut self, view: &G::View) -> G::Move {
        let moves = G::view_moves(view);
        moves[self.rng.random_range(0..moves.len())]
    }
}
