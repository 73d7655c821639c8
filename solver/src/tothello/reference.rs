//! Test support: a deliberately simple grid implementation of the statement's
//! rule, and boards for the tests.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::board::{Board, square_name};

/// A cell: 0 empty, 1 mover, 2 opponent.
pub type Grid = [[u8; 8]; 8];

/// The grid of two masks (mover = 1, opponent = 2).
pub fn grid(mover: u64, opponent: u64) -> Grid {
    let mut grid = [[0; 8]; 8];
    for (bit, cell) in grid.iter_mut().flatten().enumerate() {
        if mover >> bit & 1 == 1 {
            *cell = 1;
        } else if opponent >> bit & 1 == 1 {
            *cell = 2;
        }
    }
    grid
}

/// The masks of a grid.
pub fn masks(grid: &Grid) -> (u64, u64) {
    let (mut mover, mut opponent) = (0, 0);
    for (bit, &cell) in grid.iter().flatten().enumerate() {
        match cell {
            1 => mover |= 1 << bit,
            2 => opponent |= 1 << bit,
            _ => {}
        }
    }
    (mover, opponent)
}

/// Whether the opponent piece at (row, col) lies between two mover pieces.
pub fn between(grid: &Grid, row: i32, col: i32) -> bool {
    let first_other = |dr: i32, dc: i32| {
        let (mut r, mut c) = (row + dr, col + dc);
        while (0..8).contains(&r) && (0..8).contains(&c) {
            if grid[r as usize][c as usize] != 2 {
                return grid[r as usize][c as usize];
            }
            r += dr;
            c += dc;
        }
        0
    };
    [(0, 1), (1, 0), (1, 1), (1, -1)]
        .iter()
        .any(|&(dr, dc)| first_other(dr, dc) == 1 && first_other(-dr, -dc) == 1)
}

/// Places a mover piece at (row, col), then flips until nothing is between.
pub fn place(grid: &mut Grid, row: usize, col: usize) {
    grid[row][col] = 1;
    loop {
        let mut flips = Vec::new();
        for r in 0..8 {
            for c in 0..8 {
                if grid[r][c] == 2 && between(grid, r as i32, c as i32) {
                    flips.push((r, c));
                }
            }
        }
        if flips.is_empty() {
            return;
        }
        for (r, c) in flips {
            grid[r][c] = 1;
        }
    }
}

/// The most mover pieces after one placement, trying every empty square.
pub fn best_move(grid: &Grid) -> Option<usize> {
    let mut best = None;
    for r in 0..8 {
        for c in 0..8 {
            if grid[r][c] == 0 {
                let mut next = *grid;
                place(&mut next, r, c);
                let count = next.iter().flatten().filter(|&&x| x == 1).count();
                best = best.max(Some(count));
            }
        }
    }
    best
}

/// Parses a drawing: rows of `-`, `R`, `B` separated by spaces, row 1 first.
pub fn drawing(text: &str) -> Board {
    let mut board = Board::default();
    for (row, line) in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        for (col, cell) in line.split_whitespace().enumerate() {
            let bit = 1u64 << (row * 8 + col);
            match cell {
                "R" => board.red |= bit,
                "B" => board.black |= bit,
                _ => assert_eq!(cell, "-"),
            }
        }
    }
    board
}

/// The names of the squares of a mask, in order.
pub fn squares(mask: u64) -> Vec<String> {
    (0..64u8)
        .filter(|&s| mask >> s & 1 == 1)
        .map(square_name)
        .collect()
}

/// A random board: each square empty, mover or opponent with random odds.
pub fn random_board(rng: &mut ChaCha8Rng) -> (u64, u64) {
    let fill = rng.random_range(0.05..1.0);
    let share = rng.random_range(0.2..0.8);
    let (mut mover, mut opponent) = (0u64, 0u64);
    for bit in 0..64 {
        if rng.random_bool(fill) {
            if rng.random_bool(share) {
                mover |= 1 << bit;
            } else {
                opponent |= 1 << bit;
            }
        }
    }
    (mover, opponent)
}
