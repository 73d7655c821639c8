//! The Ioiwari table against an independent HashMap-memoized negamax.

use std::collections::HashMap;

use tabula_solver::ZeroSum;
use tabula_solver::ioiwari::{Board, NUM_BOARDS, starting_boards};
use tabula_solver::search::{best_moves_memo, memo_negamax};
use tabula_tables::ioiwari::{IoiwariTable, solve};

#[test]
fn values_and_moves_match_memoized_negamax_on_all_357_starting_boards() {
    let table = IoiwariTable::in_memory();
    let mut memo = HashMap::new();
    for board in starting_boards() {
        let (value, moves) = best_moves_memo(&board, &mut memo);
        assert_eq!(table.value(&board).unwrap(), value, "value of {board}");
        assert_eq!(
            table.best_moves(&board).unwrap(),
            moves,
            "optimal moves of {board}"
        );
    }
    // The starting player always wins, as the task says.
    for board in starting_boards() {
        assert!(
            memo_negamax(&board, &mut memo) > 0,
            "{board} is not a first-player win"
        );
    }
}

#[test]
fn every_stored_optimal_move_attains_the_stored_value() {
    let table = IoiwariTable::in_memory();
    for index in 0..NUM_BOARDS {
        let board = Board::from_index(index);
        let value = table.value(&board).unwrap();
        let mask = table.best_mask(&board).unwrap();
        if board.is_over() {
            assert_eq!((value, mask), (0, 0));
            continue;
        }
        for &pit in board.legal_moves().iter() {
            let (child, reward) = board.after(pit);
            let attained = reward - table.value(&child).unwrap();
            assert!(
                attained <= value,
                "{board}: pit {} beats the value",
                pit + 1
            );
            assert_eq!(
                attained == value,
                mask >> pit & 1 == 1,
                "{board}: pit {}",
                pit + 1
            );
        }
        assert_ne!(mask, 0, "{board} has moves but no optimal one");
    }
}

#[test]
fn sequential_and_parallel_builds_agree() {
    assert_eq!(solve(false, &|_| {}), solve(true, &|_| {}));
}
