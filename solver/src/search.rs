//! Deliberately simple reference searches over any [`ZeroSum`] game.
//!
//! They are slow on purpose: every faster solver of the project is tested
//! against them (full-width negamax, and negamax memoized in a `HashMap`).

use std::collections::HashMap;
use std::hash::Hash;

use crate::ZeroSum;

/// Exact value for the player to move by plain full-width negamax to the end.
pub fn negamax<G: ZeroSum>(game: &G) -> i32 {
    let moves = game.legal_moves();
    if moves.is_empty() {
        return game.final_value();
    }
    moves
        .iter()
        .map(|&mv| {
            let (child, reward) = game.after(mv);
            game.move_value(mv, reward, negamax(&child))
        })
        .max()
        .expect("non-empty move list")
}

/// Exact value for the player to move by negamax memoized in a `HashMap`.
pub fn memo_negamax<G: ZeroSum + Eq + Hash>(game: &G, memo: &mut HashMap<G, i32>) -> i32 {
    if let Some(&value) = memo.get(game) {
        return value;
    }
    let moves = game.legal_moves();
    let value = if moves.is_empty() {
        game.final_value()
    } else {
        moves
            .iter()
            .map(|&mv| {
                let (child, reward) = game.after(mv);
                game.move_value(mv, reward, memo_negamax(&child, memo))
            })
            .max()
            .expect("non-empty move list")
    };
    memo.insert(game.clone(), value);
    value
}

/// The moves that attain the exact value, in move-generation order, with that value.
pub fn best_moves_memo<G: ZeroSum + Eq + Hash>(
    game: &G,
    memo: &mut HashMap<G, i32>,
) -> (i32, Vec<G::Move>) {
    let scored: Vec<(G::Move, i32)> = game
        .legal_moves()
        .iter()
        .map(|&mv| {
            let (child, reward) = game.after(mv);
            (mv, game.move_value(mv, reward, memo_negamax(&child, memo)))
        })
        .collect();
    let Some(best) = scored.iter().map(|&(_, v)| v).max() else {
        return (game.final_value(), Vec::new());
    };
    let moves = scored
        .into_iter()
        .filter(|&(_, v)| v == best)
        .map(|(mv, _)| mv)
        .collect();
    (best, moves)
}
