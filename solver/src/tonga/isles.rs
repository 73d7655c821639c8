//! Isles kept incrementally: union-find over isle ids, with the server's
//! evaluation (Σ ± area²·perimeter) updated on every stone and taken back on undo.

use super::{Bits, Board, Cell, Colour, MAX_CELLS};
use crate::grid::Geometry;

const NONE: u16 = u16::MAX;

/// What [`Isles::apply`] changed, for [`Isles::undo`].
#[derive(Clone, Copy, Debug)]
struct Undo {
    cell: Cell,
    merged: [u16; 4],
    merged_len: u8,
    touched: [u16; 4],
    touched_len: u8,
    total: i64,
}

/// Isles kept incrementally (union-find over isle ids) with the server's evaluation.
#[derive(Clone, Debug)]
pub struct Isles<'g> {
    geo: &'g Geometry,
    server: Colour,
    empty: Bits,
    label: [u16; MAX_CELLS],
    parent: Vec<u16>,
    colour: Vec<Colour>,
    area: Vec<u32>,
    perimeter: Vec<Bits>,
    total: i64,
    undo: Vec<Undo>,
}

/// The distinct live isles next to a cell.
struct Adjacent {
    ids: [u16; 4],
    len: usize,
}

impl<'g> Isles<'g> {
    /// The isles of a board, with the evaluation seen by `server`.
    pub fn new(geo: &'g Geometry, board: &Board, server: Colour) -> Isles<'g> {
        debug_assert_eq!(geo.n(), board.n());
        let mut isles = Isles {
            geo,
            server,
            empty: board.empty(),
            label: [NONE; MAX_CELLS],
            parent: Vec::with_capacity(MAX_CELLS + 8),
            colour: Vec::with_capacity(MAX_CELLS + 8),
            area: Vec::with_capacity(MAX_CELLS + 8),
            perimeter: Vec::with_capacity(MAX_CELLS + 8),
            total: 0,
            undo: Vec::with_capacity(8),
        };
        for isle in board.isles() {
            let id = isles.parent.len() as u16;
            isles.parent.push(id);
            isles.colour.push(isle.colour);
            isles.area.push(isle.area());
            isles.perimeter.push(isle.perimeter);
            for cell in isle.cells.iter() {
                isles.label[cell] = id;
            }
            isles.total += isles.term(id);
        }
        isles
    }

    /// The current evaluation for the server.
    #[inline]
    pub fn total(&self) -> i64 {
        self.total
    }

    /// The empty cells.
    #[inline]
    pub fn empty(&self) -> Bits {
        self.empty
    }

    #[inline]
    fn term(&self, id: u16) -> i64 {
        let a = i64::from(self.area[id as usize]);
        let t = a * a * i64::from(self.perimeter[id as usize].count());
        if self.colour[id as usize] == self.server {
            t
        } else {
            -t
        }
    }

    #[inline]
    fn find(&self, mut id: u16) -> u16 {
        while self.parent[id as usize] != id {
            id = self.parent[id as usize];
        }
        id
    }

    #[inline]
    fn adjacent(&self, cell: Cell) -> Adjacent {
        let mut adj = Adjacent {
            ids: [0; 4],
            len: 0,
        };
        for &nb in self.geo.neighbours(cell) {
            let label = self.label[nb as usize];
            if label == NONE {
                continue;
            }
            let id = self.find(label);
            if !adj.ids[..adj.len].contains(&id) {
                adj.ids[adj.len] = id;
                adj.len += 1;
            }
        }
        adj
    }

    /// The change of the evaluation if `colour` played the empty `cell`.
    #[inline]
    pub fn delta(&self, cell: Cell, colour: Colour) -> i64 {
        let adj = self.adjacent(cell);
        let mut area = 1u32;
        let mut perimeter = self.geo.neighbour_mask(cell).and(self.empty);
        let mut old_same = 0i64;
        let mut other = 0i64;
        for &id in &adj.ids[..adj.len] {
            let i = id as usize;
            let a = i64::from(self.area[i]);
            if self.colour[i] == colour {
                area += self.area[i];
                perimeter = perimeter.or(self.perimeter[i]);
                old_same += a * a * i64::from(self.perimeter[i].count());
            } else {
                // An isle of the other colour loses `cell` from its perimeter.
                other += a * a;
            }
        }
        perimeter.clear(cell as usize);
        let a = i64::from(area);
        let change = a * a * i64::from(perimeter.count()) - old_same + other;
        if colour == self.server {
            change
        } else {
            -change
        }
    }

    /// The change of `colour`'s points (sum of squared isle sizes) if it played `cell`.
    #[inline]
    pub fn points_gain(&self, cell: Cell, colour: Colour) -> i64 {
        let adj = self.adjacent(cell);
        let mut area = 1i64;
        let mut old = 0i64;
        for &id in &adj.ids[..adj.len] {
            if self.colour[id as usize] == colour {
                let a = i64::from(self.area[id as usize]);
                area += a;
                old += a * a;
            }
        }
        area * area - old
    }

    /// Plays `colour` on the empty `cell`.
    pub fn apply(&mut self, cell: Cell, colour: Colour) {
        let adj = self.adjacent(cell);
        let new = self.parent.len() as u16;
        let mut undo = Undo {
            cell,
            merged: [0; 4],
            merged_len: 0,
            touched: [0; 4],
            touched_len: 0,
            total: self.total,
        };
        let mut area = 1u32;
        let mut perimeter = self.geo.neighbour_mask(cell).and(self.empty);
        for &id in &adj.ids[..adj.len] {
            let i = id as usize;
            self.total -= self.term(id);
            if self.colour[i] == colour {
                area += self.area[i];
                perimeter = perimeter.or(self.perimeter[i]);
                self.parent[i] = new;
                undo.merged[undo.merged_len as usize] = id;
                undo.merged_len += 1;
            } else {
                self.perimeter[i].clear(cell as usize);
                self.total += self.term(id);
                undo.touched[undo.touched_len as usize] = id;
                undo.touched_len += 1;
            }
        }
        perimeter.clear(cell as usize);
        self.parent.push(new);
        self.colour.push(colour);
        self.area.push(area);
        self.perimeter.push(perimeter);
        self.total += self.term(new);
        self.label[cell as usize] = new;
        self.empty.clear(cell as usize);
        self.undo.push(undo);
    }

    /// Takes back the last [`Isles::apply`].
    pub fn undo(&mut self) {
        let undo = self.undo.pop().expect("a move to take back");
        self.parent.pop();
        self.colour.pop();
        self.area.pop();
        self.perimeter.pop();
        for &id in &undo.merged[..undo.merged_len as usize] {
            self.parent[id as usize] = id;
        }
        for &id in &undo.touched[..undo.touched_len as usize] {
            self.perimeter[id as usize].set(undo.cell as usize);
        }
        self.label[undo.cell as usize] = NONE;
        self.empty.set(undo.cell as usize);
        self.total = undo.total;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tonga::opponents::tests::random_board;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn incremental_eval_matches_scratch() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for n in [4, 6, 8, 16] {
            let geo = Geometry::new(n);
            for _ in 0..30 {
                let stones = rng.random_range(0..n * n - 3);
                let board = random_board(&mut rng, n, stones);
                let server = if rng.random_range(0..2) == 0 {
                    Colour::Black
                } else {
                    Colour::White
                };
                let mut isles = Isles::new(&geo, &board, server);
                assert_eq!(isles.total(), board.server_eval(server));
                let mut b = board;
                let mut played = Vec::new();
                for step in 0..3 {
                    let empties: Vec<usize> = b.empty().iter().collect();
                    let cell = empties[rng.random_range(0..empties.len())] as Cell;
                    let colour = if step % 2 == 0 {
                        server
                    } else {
                        server.other()
                    };
                    let before = isles.total();
                    let delta = isles.delta(cell, colour);
                    isles.apply(cell, colour);
                    b.place(cell, colour);
                    played.push(cell);
                    assert_eq!(isles.total(), b.server_eval(server));
                    assert_eq!(isles.total(), before + delta);
                }
                for cell in played.into_iter().rev() {
                    isles.undo();
                    b.remove(cell);
                    assert_eq!(isles.total(), b.server_eval(server));
                }
            }
        }
    }
}
