//! The two-player agent trait the games used before the general core (being retired).

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use tabula_solver::ZeroSum;

/// Something that picks a move for the player to move.
pub trait Agent<G: ZeroSum> {
    /// Short name used in reports.
    fn name(&self) -> String;
    /// A legal move of `game`, which is not over.
    fn choose(&mut self, game: &G) -> G::Move;
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

impl<G: ZeroSum> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(&mut self, game: &G) -> G::Move {
        let moves = game.legal_moves();
        moves[self.rng.random_range(0..moves.len())]
    }
}
