//! Perft: how many move sequences of each length a position has, for any
//! [`Game`], so that another program's move generation can be checked
//! against ours ply by ply and, with [`divide`], move by move.
//!
//! A ply is one entry of [`Game::moves`]: a seat's move, or one outcome of a
//! chance turn. A Dominoes draw is two: the seat's draw, then the tile, one
//! branch for every stock tile; a tile that fits both equal ends is listed
//! for each. A player who is skipped (MultiplayerReversi) makes no ply; a
//! pass that the rules make a move (Tothello, Dominoes) is one.

use rayon::prelude::*;

use crate::Game;

/// The counts of a walk `depth` plies deep: entry `k` is for ply `k + 1`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PerftCounts {
    /// The move sequences of exactly that many plies (the positions, counted
    /// once for every way of reaching them).
    pub sequences: Vec<u64>,
    /// How many of those sequences end the game.
    pub finished: Vec<u64>,
}

impl PerftCounts {
    /// Zero counts for `depth` plies.
    pub fn new(depth: u32) -> PerftCounts {
        PerftCounts {
            sequences: vec![0; depth as usize],
            finished: vec![0; depth as usize],
        }
    }

    /// Adds `other`'s counts, ply by ply.
    pub fn add(&mut self, other: &PerftCounts) {
        for (a, b) in self.sequences.iter_mut().zip(&other.sequences) {
            *a += b;
        }
        for (a, b) in self.finished.iter_mut().zip(&other.finished) {
            *a += b;
        }
    }

    /// The leaves of the tree cut `plies` deep (1 to the depth walked): the
    /// sequences of that length and the games that ended before it.
    pub fn leaves(&self, plies: usize) -> u64 {
        self.sequences[plies - 1] + self.finished[..plies - 1].iter().sum::<u64>()
    }
}

/// The counts of every ply from 1 to `depth` from `start`.
pub fn perft<G: Game>(start: &G, depth: u32) -> PerftCounts {
    let mut total = PerftCounts::new(depth);
    for (_, counts) in divide(start, depth) {
        total.add(&counts);
    }
    total
}

/// [`perft`] for each move of `start` (`depth` plies counting that move), in
/// the order of [`Game::moves`]; the subtrees are walked on rayon's threads.
pub fn divide<G: Game>(start: &G, depth: u32) -> Vec<(G::Move, PerftCounts)> {
    if depth == 0 || start.is_over() {
        return Vec::new();
    }
    let moves: Vec<G::Move> = start.moves().to_vec();
    moves
        .into_par_iter()
        .map(|mv| {
            let mut counts = PerftCounts::new(depth);
            let mut child = start.clone();
            child.apply(mv);
            walk(&child, 0, &mut counts);
            (mv, counts)
        })
        .collect()
}

/// Counts `game`, reached at ply `ply + 1`, and everything below it.
fn walk<G: Game>(game: &G, ply: usize, counts: &mut PerftCounts) {
    counts.sequences[ply] += 1;
    if game.is_over() {
        counts.finished[ply] += 1;
        return;
    }
    if ply + 1 == counts.sequences.len() {
        return;
    }
    for &mv in game.moves().iter() {
        let mut child = game.clone();
        child.apply(mv);
        walk(&child, ply + 1, counts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nim::Nim;

    /// Nim's sequences by hand: from 3, taking 1 to 3 (whoever takes the
    /// last one ends the game).
    #[test]
    fn nim_from_three_by_hand() {
        let counts = perft(&Nim::new(3), 3);
        // Ply 1: take 1, 2 or 3 (the last ends it). Ply 2: from 2, take 1 or
        // 2 (ends); from 1, take 1 (ends). Ply 3: from 1, take 1 (ends).
        assert_eq!(counts.sequences, [3, 3, 1]);
        assert_eq!(counts.finished, [1, 2, 1]);
        // The games: 3, 1+2, 2+1, 1+1+1.
        assert_eq!(counts.leaves(3), 4);
        let divided = divide(&Nim::new(3), 3);
        let by_move: Vec<(u8, Vec<u64>)> = divided
            .into_iter()
            .map(|(mv, c)| (mv, c.sequences))
            .collect();
        assert_eq!(
            by_move,
            [(1, vec![1, 2, 1]), (2, vec![1, 1, 0]), (3, vec![1, 0, 0])]
        );
        assert!(perft(&Nim::new(3), 0).sequences.is_empty());
        assert_eq!(perft(&Nim::new(0), 2), PerftCounts::new(2));
    }

    /// Whether a seat is skipped somewhere below `board` (the next mover is
    /// not the seat after the one that moved).
    fn skips_below(board: &crate::reversi::Board) -> bool {
        let Some(seat) = board.mover() else {
            return false;
        };
        board.moves().iter().any(|&mv| {
            let mut next = *board;
            next.apply(mv);
            let skipped = next
                .mover()
                .is_some_and(|m| m != (seat + 1) % board.players());
            skipped || skips_below(&next)
        })
    }

    #[test]
    fn reversi_endgames_with_skipped_players_count_as_the_plain_grid() {
        use crate::reversi::{Board, plain::Plain};
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(31);
        let mut with_skips = 0;
        for n in 7..=12 {
            for _ in 0..4 {
                // Random play to at most 7 empty squares, then every line to the end.
                let mut board = Board::start(n).unwrap();
                while board.mover().is_some() && n * n - board.occupied().count() as usize > 7 {
                    let moves = board.moves();
                    board.apply(moves[rng.random_range(0..moves.len())]);
                }
                if board.mover().is_none() {
                    continue;
                }
                let plies = (n * n - board.occupied().count() as usize) as u32;
                let counts = perft(&board, plies);
                assert_eq!(
                    counts.leaves(plies as usize),
                    Plain::of(&board).perft(plies),
                    "{board:?}"
                );
                with_skips += usize::from(skips_below(&board));
            }
        }
        assert!(with_skips > 0, "no endgame had a skipped player");
    }

    #[test]
    fn reversi_leaves_are_the_board_perft_at_every_depth() {
        for n in [7, 8] {
            let start = crate::reversi::Board::start(n).unwrap();
            let counts = perft(&start, 4);
            for depth in 1..=4 {
                assert_eq!(counts.leaves(depth), start.perft(depth as u32), "n {n}");
            }
        }
    }
}
