//! Layered retrograde analysis over an indexable state space.
//!
//! A game plugs in by implementing [`StateSpace`]: states are dense `u64`
//! indices, each state lies in a layer, and every move leads to a state of the
//! same or a lower layer (fewer beads, fewer empty squares, fewer tiles...).
//! [`solve`] then computes the exact negamax value and the set of optimal moves
//! of every state, layer by layer, with each layer split across rayon's threads.
//!
//! Moves that stay in their layer (a pass in a blocked game) are allowed as long
//! as they form no cycle inside the layer: a layer is solved by first solving
//! the states whose children are all known, then, again and again, the states
//! whose same-layer children just became known. A cycle inside a layer makes
//! [`solve`] return [`SolveError::Cycle`].
//!
//! The builder keeps no per-state index list: it walks a layer's index range
//! when the space gives one ([`StateSpace::layer_range`]), and otherwise marks
//! each unsolved state's layer in the value array itself (see [`SolveError`]
//! for the value range this leaves), with the lowest and highest layer of each
//! block of 64 states (4 bytes a block) so a layer's scan skips most blocks.

use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU8, AtomicU64};

use rayon::prelude::*;

/// One move out of a state: its slot (below 64), its reward and the child state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Move slot, used as the bit number in the optimal-move mask.
    pub slot: u8,
    /// The mover's gain minus the opponent's by this move.
    pub reward: i32,
    /// Index of the state reached, in the same or a lower layer.
    pub child: u64,
    /// Whether the mover moves again in the child (Kalah's extra turn): the
    /// move is then worth `reward + value(child)`, else `reward - value(child)`,
    /// as in [`crate::ZeroSum::move_value`].
    pub keeps_turn: bool,
}

impl Edge {
    /// The move's value for its mover, given the child's value for the child's mover.
    #[inline]
    pub fn value(&self, child_value: i32) -> i32 {
        if self.keeps_turn {
            self.reward + child_value
        } else {
            self.reward - child_value
        }
    }
}

/// A finite game state space with dense indices, solvable by [`solve`].
pub trait StateSpace: Sync {
    /// Number of states; the states are the indices `0..len()`.
    fn len(&self) -> u64;

    /// Whether the space has no state.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of layers; layers are `0..num_layers()`.
    fn num_layers(&self) -> usize;

    /// The layer of a state; every child of a state lies in the same or a lower layer,
    /// and the same-layer moves form no cycle.
    fn layer(&self, index: u64) -> usize;

    /// The indices of `layer` when they form one contiguous range (else `None`).
    ///
    /// A space answers `Some` for every layer or for none; the ranges then cover
    /// `0..len()` and agree with [`StateSpace::layer`]. It spares [`solve`] a pass
    /// over the whole space to find each layer's states.
    fn layer_range(&self, _layer: usize) -> Option<Range<u64>> {
        None
    }

    /// Whether the index names a real state (dense spaces answer `true` always).
    fn is_state(&self, _index: u64) -> bool {
        true
    }

    /// Whether this state is the one solved for its symmetry class (default: all are).
    ///
    /// Spaces with symmetries solve one state per class and copy its result to
    /// the others through [`StateSpace::for_each_image`].
    fn is_canonical(&self, _index: u64) -> bool {
        true
    }

    /// Calls `visit(image, image_best)` for every other state symmetric to the
    /// canonical state `index`, with its optimal-move mask `best` carried over.
    fn for_each_image(&self, _index: u64, _best: u64, _visit: impl FnMut(u64, u64)) {}

    /// The canonical state of `index`'s symmetry class, and the symmetry that
    /// carries it back to `index` (`0` when `index` is canonical), for
    /// [`StateSpace::image_mask`].
    ///
    /// A space that overrides [`StateSpace::is_canonical`] overrides this too:
    /// [`solve_records`] reads children at their canonical states, so that it
    /// touches only the records of canonical states until its last pass.
    fn canonical(&self, index: u64) -> (u64, u32) {
        (index, 0)
    }

    /// Number of states in the symmetry class of the canonical state `index`
    /// (itself and its images); [`solve_records`]' progress counts a solved state for its class.
    fn class_size(&self, index: u64) -> u64 {
        let mut images = 0;
        self.for_each_image(index, 0, |_, _| images += 1);
        1 + images
    }

    /// Like [`StateSpace::for_each_edge`], with each child named by its canonical state.
    fn for_each_edge_to_canonical(&self, index: u64, mut visit: impl FnMut(Edge)) {
        self.for_each_edge(index, |edge| {
            visit(Edge {
                child: self.canonical(edge.child).0,
                ..edge
            })
        })
    }

    /// Calls `visit(index, canonical, symmetry)` with [`StateSpace::canonical`]'s
    /// answer for every index of `indices`, in order.
    fn for_each_canonical(&self, indices: Range<u64>, mut visit: impl FnMut(u64, u64, u32)) {
        for index in indices {
            let (canonical, symmetry) = self.canonical(index);
            visit(index, canonical, symmetry);
        }
    }

    /// The optimal-move mask of the image of a canonical state under
    /// `symmetry` (as [`StateSpace::canonical`] names it), from the canonical state's `best`.
    fn image_mask(&self, _symmetry: u32, best: u64) -> u64 {
        best
    }

    /// Calls `visit` for every legal move of the state, in slot order.
    fn for_each_edge(&self, index: u64, visit: impl FnMut(Edge));

    /// Value for the player to move of a state without moves.
    fn terminal_value(&self, index: u64) -> i32;

    /// Whether some move may keep its layer (default `true`, the safe answer).
    ///
    /// [`solve_records`] marks and revisits a layer's states only when it does.
    fn has_same_layer_edges(&self) -> bool {
        true
    }

    /// A good number of indices per parallel chunk of a layer's scan in [`solve_records`].
    fn layer_chunk(&self) -> u64 {
        1 << 14
    }

    /// Calls `visit` for every state of `layer` whose index lies in `indices`, in index order.
    ///
    /// The default walks [`StateSpace::layer_range`] when there is one, else
    /// every index of `indices`; spaces without ranges override it to skip the
    /// other layers' indices cheaply.
    fn for_each_in_layer(&self, layer: usize, indices: Range<u64>, mut visit: impl FnMut(u64)) {
        match self.layer_range(layer) {
            Some(range) => {
                for index in indices.start.max(range.start)..indices.end.min(range.end) {
                    if self.is_state(index) {
                        visit(index);
                    }
                }
            }
            None => {
                for index in indices {
                    if self.is_state(index) && self.layer(index) == layer {
                        visit(index);
                    }
                }
            }
        }
    }
}

/// Exact values and optimal moves of every state of a space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Negamax value of each state for the player to move (0 for a non-state).
    pub values: Vec<i16>,
    /// Bit `slot` is set for every move that attains the value.
    pub best: Vec<u64>,
}

/// How [`solve`] reports progress: called with the number of states finished so far.
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

/// Why [`solve`] could not solve a space.
///
/// Unsolved states carry a marker below every value in the value array, so a
/// state's value must lie in `floor..=i16::MAX`, where `floor` is
/// `i16::MIN + 1` for a space with [`StateSpace::layer_range`] and
/// `i16::MIN + 1 + num_layers()` otherwise.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// Some states of a layer wait on each other: a cycle of same-layer moves
    /// (or a move to a higher layer, or to an index that is no state).
    #[error(
        "layer {layer}: {states} states cannot be solved, e.g. state {index} waits on state {child} (a cycle inside the layer?)"
    )]
    Cycle {
        /// The layer being solved.
        layer: usize,
        /// How many of its states are stuck.
        states: usize,
        /// One stuck state.
        index: u64,
        /// A child of `index` that is still unknown.
        child: u64,
    },
    /// A state's value does not fit the value range.
    #[error("state {index}: value {value} is outside {floor}..={max}", max = i16::MAX)]
    ValueOutOfRange {
        /// The state.
        index: u64,
        /// Its value.
        value: i32,
        /// The lowest value allowed.
        floor: i32,
    },
    /// The space is too big for memory, or has too many layers to mark them in the values.
    #[error("the space is too large: {0}")]
    TooLarge(&'static str),
    /// [`StateSpace::layer`] gave a layer outside `0..num_layers()`.
    #[error("state {index} is in layer {layer}, but the space has {layers} layers")]
    BadLayer {
        /// The state.
        index: u64,
        /// Its layer.
        layer: usize,
        /// The number of layers.
        layers: usize,
    },
    /// Another member of a group solving the space together failed (see [`crate::distributed`]).
    #[error("member {member} of the group solving the space failed")]
    Peer {
        /// The member that failed first.
        member: usize,
    },
}

/// Marks a state not yet solved (or no state at all) in the value array.
const UNSOLVED: i16 = i16::MIN;
/// Bytes [`solve`] holds per state: its value and its optimal-move mask.
pub const SOLVE_BYTES_PER_STATE: u64 = (size_of::<i16>() + size_of::<u64>()) as u64;
/// States per block; a layer's scan skips the blocks whose span of layers misses it.
const SCAN_BLOCK: usize = u64::BITS as usize;
/// Result of a state that still waits on an unknown child.
pub(crate) const WAITING: i32 = i32::MIN;

/// Solves every state of the space; `parallel` spreads each layer over rayon's pool.
///
/// Each layer first solves all its canonical states whose children are known;
/// a layer without same-layer moves is then done. Otherwise the waiting states
/// are retried until none is left (each round solving at least one), or none
/// can progress: [`SolveError::Cycle`]. A round revisits every waiting state,
/// so a layer whose longest chain of same-layer moves has k moves costs k + 1
/// passes over its waiting states (passes in games come in short chains).
pub fn solve<S: StateSpace>(
    space: &S,
    parallel: bool,
    progress: Progress<'_>,
) -> Result<Solution, SolveError> {
    let len =
        usize::try_from(space.len()).map_err(|_| SolveError::TooLarge("more states than usize"))?;
    let num_layers = space.num_layers();
    let ranges: Option<Vec<Range<u64>>> = (0..num_layers).map(|l| space.layer_range(l)).collect();
    // Without ranges, an unsolved canonical state of layer l holds UNSOLVED + 1 + l.
    let floor = if ranges.is_some() {
        i32::from(UNSOLVED) + 1
    } else {
        if num_layers > 1 << 14 {
            return Err(SolveError::TooLarge("more than 16384 layers"));
        }
        i32::from(UNSOLVED) + 1 + num_layers as i32
    };
    let mut values = vec![UNSOLVED; len];
    let mut best = vec![0u64; len];
    // The lowest and highest layer marked in each block of SCAN_BLOCK values.
    let mut spans = Vec::new();
    if ranges.is_none() {
        spans = mark_layers(space, &mut values, parallel)?;
    }
    let mut done = 0u64;
    // One buffer for every layer's results, so big layers allocate once.
    let mut first: Vec<(u64, (i32, u64))> = Vec::new();
    for layer in 0..num_layers {
        let scan = match &ranges {
            Some(ranges) => LayerScan::Range(ranges[layer].clone()),
            None => LayerScan::Marked(&spans),
        };
        first_pass(space, layer, scan, &values, floor, parallel, &mut first);
        let waiting = store(space, &mut first, &mut values, &mut best, &mut done, floor)?;
        let mut solved = Solved {
            values: &mut values,
            best: &mut best,
            done: &mut done,
        };
        retry_waiting(space, layer, waiting, &mut solved, floor, parallel)?;
        progress(done);
    }
    clear_unsolved(&mut values, floor, parallel);
    Ok(Solution { values, best })
}

/// How a layer's canonical states are found: by the layer's range of
/// indices, or by the layer marks that [`mark_layers`] wrote in the values
/// (with each block's span of layers).
enum LayerScan<'a> {
    Range(Range<u64>),
    Marked(&'a [(u16, u16)]),
}

/// Solves every canonical state of `layer` whose children are known (the
/// others come out [`WAITING`]), into `first`, which is emptied first.
fn first_pass<S: StateSpace>(
    space: &S,
    layer: usize,
    scan: LayerScan<'_>,
    values: &[i16],
    floor: i32,
    parallel: bool,
    first: &mut Vec<(u64, (i32, u64))>,
) {
    let solve_one = |index: u64| (index, solve_state(space, index, values, floor));
    first.clear();
    match scan {
        LayerScan::Range(range) => {
            let wanted = |&index: &u64| space.is_state(index) && space.is_canonical(index);
            if parallel {
                first.par_extend(range.into_par_iter().filter(wanted).map(solve_one))
            } else {
                first.extend(range.filter(wanted).map(solve_one))
            }
        }
        LayerScan::Marked(spans) => {
            let mark = (UNSOLVED as i32 + 1 + layer as i32) as i16;
            let layer = layer as u16;
            // Block number `block`'s marked states, scanned only when its span holds the layer.
            let in_block = |block: usize| {
                let (low, high) = spans[block];
                let start = block * SCAN_BLOCK;
                let chunk = &values[start..values.len().min(start + SCAN_BLOCK)];
                marked(block, chunk, mark, low <= layer && layer <= high)
            };
            let blocks = spans.len().min(values.len().div_ceil(SCAN_BLOCK));
            if parallel {
                first.par_extend(
                    (0..blocks)
                        .into_par_iter()
                        .flat_map_iter(in_block)
                        .map(solve_one),
                )
            } else {
                first.extend((0..blocks).flat_map(in_block).map(solve_one))
            }
        }
    }
}

/// What [`solve`] has found so far: the values, the optimal-move masks and
/// the count of states stored.
struct Solved<'a> {
    values: &'a mut [i16],
    best: &'a mut [u64],
    done: &'a mut u64,
}

/// Retries the `waiting` states of `layer` until none is left, or fails with
/// [`SolveError::Cycle`] when a round solves none of them.
fn retry_waiting<S: StateSpace>(
    space: &S,
    layer: usize,
    mut waiting: Vec<u64>,
    solved: &mut Solved<'_>,
    floor: i32,
    parallel: bool,
) -> Result<(), SolveError> {
    while !waiting.is_empty() {
        let before = waiting.len();
        let values: &[i16] = solved.values;
        let retry = |&index: &u64| (index, solve_state(space, index, values, floor));
        let mut results: Vec<(u64, (i32, u64))> = if parallel {
            waiting.par_iter().map(retry).collect()
        } else {
            waiting.iter().map(retry).collect()
        };
        waiting = store(
            space,
            &mut results,
            solved.values,
            solved.best,
            solved.done,
            floor,
        )?;
        if waiting.len() == before {
            let index = waiting[0];
            let mut child = index;
            space.for_each_edge(index, |edge| {
                if child == index && i32::from(solved.values[edge.child as usize]) < floor {
                    child = edge.child;
                }
            });
            return Err(SolveError::Cycle {
                layer,
                states: before,
                index,
                child,
            });
        }
    }
    Ok(())
}

/// Indices that are no state (or a symmetry nobody copied to) read 0.
fn clear_unsolved(values: &mut [i16], floor: i32, parallel: bool) {
    let clear = |v: &mut i16| {
        if i32::from(*v) < floor {
            *v = 0;
        }
    };
    if parallel {
        values.par_iter_mut().for_each(clear);
    } else {
        values.iter_mut().for_each(clear);
    }
}

/// The indices holding `mark` in block number `block` of the values (none unless `scan`).
#[inline]
fn marked(block: usize, chunk: &[i16], mark: i16, scan: bool) -> impl Iterator<Item = u64> {
    // One bit per value (SCAN_BLOCK is 64): the comparisons vectorize, the hits are bit walks.
    let mut bits = 0u64;
    if scan {
        for (i, &v) in chunk.iter().enumerate() {
            bits |= u64::from(v == mark) << i;
        }
    }
    let base = (block * SCAN_BLOCK) as u64;
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            base + u64::from(i)
        })
    })
}

/// Writes the layer marks of the canonical states into `values`; returns each
/// block's lowest and highest marked layer (`(u16::MAX, 0)` for none).
fn mark_layers<S: StateSpace>(
    space: &S,
    values: &mut [i16],
    parallel: bool,
) -> Result<Vec<(u16, u16)>, SolveError> {
    let layers = space.num_layers();
    let mark = |(block, chunk): (usize, &mut [i16])| {
        let mut span = (u16::MAX, 0);
        for (i, v) in chunk.iter_mut().enumerate() {
            let index = (block * SCAN_BLOCK + i) as u64;
            if space.is_state(index) && space.is_canonical(index) {
                let layer = space.layer(index);
                if layer >= layers {
                    return Err(SolveError::BadLayer {
                        index,
                        layer,
                        layers,
                    });
                }
                *v = (i32::from(UNSOLVED) + 1 + layer as i32) as i16;
                span = (span.0.min(layer as u16), span.1.max(layer as u16));
            }
        }
        Ok(span)
    };
    if parallel {
        values
            .par_chunks_mut(SCAN_BLOCK)
            .enumerate()
            .map(mark)
            .collect()
    } else {
        values
            .chunks_mut(SCAN_BLOCK)
            .enumerate()
            .map(mark)
            .collect()
    }
}

/// Stores solved results (and their images); returns the states still waiting.
fn store<S: StateSpace>(
    space: &S,
    results: &mut Vec<(u64, (i32, u64))>,
    values: &mut [i16],
    best: &mut [u64],
    done: &mut u64,
    floor: i32,
) -> Result<Vec<u64>, SolveError> {
    let mut waiting = Vec::new();
    // Counted locally: a count behind `&mut` would be stored at every image.
    let mut stored = 0u64;
    for (index, (value, mask)) in results.drain(..) {
        if value == WAITING {
            waiting.push(index);
            continue;
        }
        if value < floor || value > i32::from(i16::MAX) {
            return Err(SolveError::ValueOutOfRange {
                index,
                value,
                floor,
            });
        }
        let value = value as i16;
        values[index as usize] = value;
        best[index as usize] = mask;
        stored += 1;
        space.for_each_image(index, mask, |image, image_mask| {
            values[image as usize] = value;
            best[image as usize] = image_mask;
            stored += 1;
        });
    }
    *done += stored;
    Ok(waiting)
}

/// The value and optimal-move mask of a state, or `WAITING` if a child is unknown.
#[inline]
fn solve_state<S: StateSpace>(space: &S, index: u64, values: &[i16], floor: i32) -> (i32, u64) {
    best_edges(space, index, |child| {
        let value = i32::from(values[child as usize]);
        (value >= floor).then_some(value)
    })
}

/// A state's value and optimal-move mask from its children's known values
/// (the terminal value and no move for a state without moves): what a table
/// of values only gives for its moves.
pub fn best_from_children<S: StateSpace>(
    space: &S,
    index: u64,
    child_value: impl Fn(u64) -> i32,
) -> (i32, u64) {
    best_edges(space, index, |child| Some(child_value(child)))
}

/// A state's value and optimal-move mask from its children's values
/// (`None`: a child not solved yet, so the state waits).
#[inline]
fn best_edges<S: StateSpace>(
    space: &S,
    index: u64,
    child_value: impl Fn(u64) -> Option<i32>,
) -> (i32, u64) {
    let mut best_value = i32::MIN;
    let mut mask = 0u64;
    let mut waiting = false;
    space.for_each_edge(index, |edge| {
        let Some(child) = child_value(edge.child) else {
            waiting = true;
            return;
        };
        let value = edge.value(child);
        if value > best_value {
            best_value = value;
            mask = 1 << edge.slot;
        } else if value == best_value {
            mask |= 1 << edge.slot;
        }
    });
    if waiting {
        return (WAITING, 0);
    }
    if best_value == i32::MIN {
        best_value = space.terminal_value(index);
    }
    (best_value, mask)
}

/// Marks a state not yet solved in the one-byte values of [`solve_records`].
pub(crate) const MARK: i8 = i8::MIN;

/// The value byte of a solved state's record, or why it cannot be stored:
/// a value outside `i8` or equal to [`MARK`], or a mask wider than
/// `mask_bytes` (8 holds every mask, 0 stores none).
pub(crate) fn record_byte(
    index: u64,
    value: i32,
    mask: u64,
    mask_bytes: usize,
) -> Result<i8, SolveError> {
    let fits = matches!(mask_bytes, 0 | 8) || mask >> (8 * mask_bytes) == 0;
    i8::try_from(value)
        .ok()
        .filter(|&v| v != MARK && fits)
        .ok_or(SolveError::ValueOutOfRange {
            index,
            value,
            floor: i32::from(MARK) + 1,
        })
}

/// Solves every state of the space straight into fixed-width records: record
/// `i` is `records[i * (1 + mask_bytes)..]`, an i8 value then the optimal-move
/// mask in `mask_bytes` little-endian bytes (the table format's layout; no
/// mask at all for 0 bytes, a table of values only), every byte zero on entry.
///
/// Nothing is held per state beyond the records: the records may be a memory
/// map of the output file. Each layer is scanned in index order, in parallel
/// chunks of [`StateSpace::layer_chunk`] indices, and a state's children are
/// read from the records of lower layers (and of its own, when
/// [`StateSpace::has_same_layer_edges`]: the layer's states are then first
/// marked with -128, and the layer is scanned again until no mark is left, or
/// a scan solves nothing: [`SolveError::Cycle`]). Only canonical states are
/// solved layer by layer, reading their children at the children's canonical
/// states ([`StateSpace::canonical`]); a last pass in index order copies them
/// to the other states, so a space with symmetries keeps a working set of
/// about its canonical states' records. The records end up equal to
/// [`solve`]'s values and masks encoded in that layout. Values must lie in
/// `-127..=127`; `progress` gets the states solved after each chunk, a
/// canonical state counting for its class: it reaches `len` before the last pass.
pub fn solve_records<S: StateSpace>(
    space: &S,
    records: &[AtomicU8],
    mask_bytes: usize,
    progress: Progress<'_>,
) -> Result<(), SolveError> {
    solve_records_with(
        space,
        records,
        mask_bytes,
        Images::LastPass,
        progress,
        &|_| {},
    )
}

/// When [`solve_records_with`] writes the records of symmetric images.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Images {
    /// As each canonical state is solved, reading children where they are:
    /// the fastest while the whole table fits in memory, but every page of
    /// it is in use all the time.
    WhenSolved,
    /// In a last pass in index order, reading children at their canonical
    /// states: until then only the canonical states' pages are in use.
    LastPass,
}

/// Told a range of record bytes that [`solve_records_with`] has written for good.
pub type Release<'a> = &'a (dyn Fn(Range<usize>) + Sync);

/// [`solve_records`] with the images written as `images` says, calling
/// `release` with each piece of the records the last pass has finished (from
/// the last piece down), which no later step reads: a memory map can write
/// such pieces back and drop them, so that they do not crowd out the
/// canonical states' pages still being read.
pub fn solve_records_with<S: StateSpace>(
    space: &S,
    records: &[AtomicU8],
    mask_bytes: usize,
    images: Images,
    progress: Progress<'_>,
    release: Release<'_>,
) -> Result<(), SolveError> {
    let run = RecordRun::new(space, records, mask_bytes, images, progress)?;
    for layer in 0..space.num_layers() {
        run.solve_layer(layer)?;
    }
    if run.last_pass {
        run.copy_images(release);
    }
    Ok(())
}

/// Solves one layer of [`solve_records_with`]'s records with
/// [`Images::WhenSolved`], every lower layer being solved already: a build
/// that keeps its records between runs can go on from its last finished
/// layer. Whatever the layer's records hold on entry (a run stopped in the
/// middle of it) is overwritten, except for the bytes of non-states, which
/// must be zero as on the first run. `progress` gets the states of this layer
/// solved so far.
pub fn solve_records_layer<S: StateSpace>(
    space: &S,
    records: &[AtomicU8],
    mask_bytes: usize,
    layer: usize,
    progress: Progress<'_>,
) -> Result<(), SolveError> {
    solve_records_layer_as(
        space,
        records,
        mask_bytes,
        Images::WhenSolved,
        layer,
        progress,
    )
}

/// [`solve_records_layer`] with the images written as `images` says: with
/// [`Images::LastPass`] only the layer's canonical states are solved (a
/// canonical state counting for its class in `progress`), reading children at
/// their canonical states, and [`copy_records_images`] writes the rest once
/// every layer is solved.
pub fn solve_records_layer_as<S: StateSpace>(
    space: &S,
    records: &[AtomicU8],
    mask_bytes: usize,
    images: Images,
    layer: usize,
    progress: Progress<'_>,
) -> Result<(), SolveError> {
    if layer >= space.num_layers() {
        return Err(SolveError::TooLarge("no such layer"));
    }
    RecordRun::new(space, records, mask_bytes, images, progress)?.solve_layer(layer)
}

/// The last pass of [`solve_records_with`] with [`Images::LastPass`] alone,
/// every layer's canonical states being solved: copies them to the other
/// states, calling `release` as that does. It writes every non-canonical
/// state's record whole from its canonical one, so running it again (after a
/// run stopped during it) writes the same bytes.
pub fn copy_records_images<S: StateSpace>(
    space: &S,
    records: &[AtomicU8],
    mask_bytes: usize,
    release: Release<'_>,
) -> Result<(), SolveError> {
    RecordRun::new(space, records, mask_bytes, Images::LastPass, &|_| {})?.copy_images(release);
    Ok(())
}

/// One run of [`solve_records_with`]: the space, its records, and what the
/// threads of a scan share.
pub(crate) struct RecordRun<'a, S> {
    space: &'a S,
    records: &'a [AtomicU8],
    /// Bytes per record: the value and `mask_bytes` of mask.
    size: usize,
    mask_bytes: usize,
    /// States in the space.
    len: u64,
    /// States per piece of a layer's scan.
    chunk: u64,
    /// Whether images wait for the last pass ([`Images::LastPass`]).
    last_pass: bool,
    /// Whether moves stay within a layer, so that a layer may take several scans.
    same_layer: bool,
    /// States stored so far, for `progress`.
    done: AtomicU64,
    /// The first error of a scan's threads.
    error: Mutex<Option<SolveError>>,
    progress: Progress<'a>,
}

impl<'a, S: StateSpace> RecordRun<'a, S> {
    /// A run over `records`, which must hold one record of `1 + mask_bytes` bytes a state.
    pub(crate) fn new(
        space: &'a S,
        records: &'a [AtomicU8],
        mask_bytes: usize,
        images: Images,
        progress: Progress<'a>,
    ) -> Result<Self, SolveError> {
        let size = 1 + mask_bytes;
        let len = space.len();
        if u64::try_from(records.len()).ok() != len.checked_mul(size as u64) || mask_bytes > 8 {
            return Err(SolveError::TooLarge("the records do not match the space"));
        }
        Ok(RecordRun {
            space,
            records,
            size,
            mask_bytes,
            len,
            chunk: space.layer_chunk().max(1),
            last_pass: images == Images::LastPass,
            same_layer: space.has_same_layer_edges(),
            done: AtomicU64::new(0),
            error: Mutex::new(None),
            progress,
        })
    }

    /// The value in the record of `index`.
    pub(crate) fn value_at(&self, index: u64) -> i8 {
        self.records[index as usize * self.size].load(Relaxed) as i8
    }

    /// A child's value: with a last pass, its canonical state's (only those
    /// are solved until then).
    pub(crate) fn child_value_at(&self, index: u64) -> i8 {
        match self.last_pass {
            true => self.value_at(self.space.canonical(index).0),
            false => self.value_at(index),
        }
    }

    /// Asks the cache for the line of `index`'s record.
    #[inline(always)]
    pub(crate) fn prefetch(&self, index: u64) {
        prefetch(self.records[index as usize * self.size].as_ptr());
    }

    /// Writes the value byte of `index`'s record alone.
    pub(crate) fn write_value(&self, index: u64, value: i8) {
        self.records[index as usize * self.size].store(value as u8, Relaxed);
    }

    /// Writes the record of `index`.
    pub(crate) fn write(&self, index: u64, value: i8, mask: u64) {
        let at = index as usize * self.size;
        self.records[at].store(value as u8, Relaxed);
        for (byte, &b) in mask.to_le_bytes()[..self.mask_bytes].iter().enumerate() {
            self.records[at + 1 + byte].store(b, Relaxed);
        }
    }

    /// The first error a batch met since the last call, if any.
    pub(crate) fn take_error(&self) -> Option<SolveError> {
        self.error.lock().expect("no panic holds it").take()
    }

    /// The layer's pieces, each scanned by one task.
    pub(crate) fn chunks(&self, layer: usize) -> Vec<Range<u64>> {
        let chunk = self.chunk;
        let scan = self.space.layer_range(layer).unwrap_or(0..self.len);
        (scan.start / chunk..scan.end.div_ceil(chunk))
            .map(|c| (c * chunk).max(scan.start)..((c + 1) * chunk).min(scan.end))
            .collect()
    }

    /// Solves every canonical state of `layer`, scanning it again while
    /// same-layer moves leave states waiting and each scan solves some.
    fn solve_layer(&self, layer: usize) -> Result<(), SolveError> {
        let chunks = self.chunks(layer);
        if self.same_layer {
            chunks.par_iter().for_each(|indices| {
                self.space
                    .for_each_in_layer(layer, indices.clone(), |index| {
                        self.records[index as usize * self.size].store(MARK as u8, Relaxed)
                    })
            });
        }
        let mut left = u64::MAX;
        loop {
            // One scan: solve every waiting canonical state whose children are known.
            let waiting: u64 = chunks
                .par_iter()
                .map(|indices| self.scan_piece(layer, indices))
                .sum();
            if let Some(error) = self.error.lock().expect("no panic holds it").take() {
                return Err(error);
            }
            if waiting == 0 {
                break;
            }
            if waiting == left || !self.same_layer {
                let child_value_at = |index| self.child_value_at(index);
                return Err(stuck(self.space, layer, waiting, &chunks, &child_value_at));
            }
            left = waiting;
        }
        if self.same_layer {
            // A state left marked reads 0, as in `solve`.
            chunks.par_iter().for_each(|indices| {
                self.space
                    .for_each_in_layer(layer, indices.clone(), |index| {
                        if self.value_at(index) == MARK {
                            self.records[index as usize * self.size].store(0, Relaxed);
                        }
                    })
            });
        }
        Ok(())
    }

    /// Solves the waiting canonical states of one piece of `layer` whose
    /// children are known, a batch at a time; returns how many still wait.
    fn scan_piece(&self, layer: usize, indices: &Range<u64>) -> u64 {
        let (mut waiting, mut stored) = (0u64, 0u64);
        let mut batch = [0u64; BATCH];
        let mut filled = 0;
        self.space
            .for_each_in_layer(layer, indices.clone(), |index| {
                if !self.space.is_canonical(index)
                    || (self.same_layer && self.value_at(index) != MARK)
                {
                    return;
                }
                batch[filled] = index;
                filled += 1;
                if filled == BATCH {
                    self.solve_batch(&batch, &mut waiting, &mut stored, &mut |_, _, _| {});
                    filled = 0;
                }
            });
        let batch = &batch[..filled];
        self.solve_batch(batch, &mut waiting, &mut stored, &mut |_, _, _| {});
        (self.progress)(self.done.fetch_add(stored, Relaxed) + stored);
        waiting
    }

    /// Solves a batch of states: all their children are asked for first, so
    /// the misses on the mapped records overlap. Counts the states left
    /// waiting and the records stored, and tells `wrote` of each state
    /// solved (its index, value byte and mask; not its images).
    #[inline(never)]
    pub(crate) fn solve_batch(
        &self,
        batch: &[u64],
        waiting: &mut u64,
        stored: &mut u64,
        wrote: &mut impl FnMut(u64, i8, u64),
    ) {
        let (space, size) = (self.space, self.size);
        let mut edges = [[NO_EDGE; BATCH_EDGES]; BATCH];
        let mut counts = [0usize; BATCH];
        for (b, &index) in batch.iter().enumerate() {
            let mut gather = |edge: Edge| {
                if counts[b] < BATCH_EDGES {
                    edges[b][counts[b]] = edge;
                    prefetch(self.records[edge.child as usize * size].as_ptr());
                }
                counts[b] += 1;
            };
            match self.last_pass {
                true => space.for_each_edge_to_canonical(index, &mut gather),
                false => space.for_each_edge(index, &mut gather),
            }
        }
        for (b, &index) in batch.iter().enumerate() {
            let (value, mask) = if counts[b] <= BATCH_EDGES {
                best_of(space, index, &edges[b][..counts[b]], |_, edge| {
                    self.value_at(edge.child)
                })
            } else {
                solve_record(space, index, &|child| self.child_value_at(child))
            };
            if value == WAITING {
                *waiting += 1;
                continue;
            }
            let byte = match record_byte(index, value, mask, self.mask_bytes) {
                Ok(byte) => byte,
                Err(e) => {
                    self.error
                        .lock()
                        .expect("no panic holds it")
                        .get_or_insert(e);
                    continue;
                }
            };
            self.write(index, byte, mask);
            wrote(index, byte, mask);
            if self.last_pass {
                *stored += space.class_size(index);
            } else {
                *stored += 1;
                space.for_each_image(index, mask, |image, image_mask| {
                    self.write(image, byte, image_mask);
                    *stored += 1;
                });
            }
        }
    }

    /// The last pass: fills every other state from its canonical one, in
    /// index order, so that it writes the records once, front to back, and
    /// calls `release` with each window written. The canonical records are
    /// read a batch at a time, asked for first, so their misses overlap.
    fn copy_images(&self, release: Release<'_>) {
        let (size, len) = (self.size, self.len);
        // Windows go from the last down: a canonical state precedes its images,
        // so once a window is written no later window needs its records, and it
        // can be released.
        let pass = self.chunk.max(MIN_PASS);
        let window = pass * (RELEASE_BYTES / (pass as usize * size)).max(1) as u64;
        for w in (0..len.div_ceil(window)).rev() {
            let start = w * window;
            let end = (start + window).min(len);
            (start / pass..end.div_ceil(pass))
                .into_par_iter()
                .for_each(|c| self.copy_images_in(c * pass..((c + 1) * pass).min(end)));
            release(start as usize * size..end as usize * size);
        }
    }

    /// The last pass over `indices` alone: fills each state there that is
    /// not canonical from its canonical one.
    fn copy_images_in(&self, indices: Range<u64>) {
        let (space, size) = (self.space, self.size);
        let copy = |(index, canonical, symmetry): (u64, u64, u32)| {
            let at = canonical as usize * size;
            let mut mask = [0u8; 8];
            for (byte, m) in mask[..self.mask_bytes].iter_mut().enumerate() {
                *m = self.records[at + 1 + byte].load(Relaxed);
            }
            let mask = space.image_mask(symmetry, u64::from_le_bytes(mask));
            self.write(index, self.records[at].load(Relaxed) as i8, mask);
        };
        let mut batch = [(0, 0, 0); COPY_BATCH];
        let mut filled = 0;
        space.for_each_canonical(indices, |index, canonical, symmetry| {
            if canonical != index && space.is_state(index) {
                prefetch(self.records[canonical as usize * size].as_ptr());
                batch[filled] = (index, canonical, symmetry);
                filled += 1;
                if filled == COPY_BATCH {
                    batch.iter().copied().for_each(copy);
                    filled = 0;
                }
            }
        });
        batch[..filled].iter().copied().for_each(copy);
    }
}

/// The error for a layer whose `waiting` states cannot be solved: names the first one.
pub(crate) fn stuck<S: StateSpace>(
    space: &S,
    layer: usize,
    waiting: u64,
    chunks: &[Range<u64>],
    value_at: &(impl Fn(u64) -> i8 + Sync),
) -> SolveError {
    let mut found = None;
    for indices in chunks {
        space.for_each_in_layer(layer, indices.clone(), |index| {
            if found.is_none()
                && space.is_canonical(index)
                && solve_record(space, index, value_at).0 == WAITING
            {
                let mut child = index;
                space.for_each_edge(index, |edge| {
                    if child == index && value_at(edge.child) == MARK {
                        child = edge.child;
                    }
                });
                found = Some((index, child));
            }
        });
        if found.is_some() {
            break;
        }
    }
    let (index, child) = found.unwrap_or((0, 0));
    SolveError::Cycle {
        layer,
        states: waiting as usize,
        index,
        child,
    }
}

/// Bytes of records [`solve_records_with`]' last pass writes before releasing
/// them, and the fewest states of a parallel piece of it (small in unit tests,
/// so that their small spaces take many pieces and windows).
const RELEASE_BYTES: usize = if cfg!(test) { 1 << 9 } else { 32 << 20 };
const MIN_PASS: u64 = if cfg!(test) { 1 << 5 } else { 1 << 16 };

/// Copies [`solve_records`]' last pass makes together.
const COPY_BATCH: usize = 16;

/// States solved together by [`solve_records`], and the moves a state may have for that.
pub(crate) const BATCH: usize = 8;
const BATCH_EDGES: usize = 16;
const NO_EDGE: Edge = Edge {
    slot: 0,
    reward: 0,
    child: 0,
    keeps_turn: false,
};

/// Asks the cache for the line holding `byte`; only a hint.
#[inline(always)]
pub(crate) fn prefetch(byte: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing the program sees.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(byte as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = byte;
}

/// The value and mask of a state from its moves gathered beforehand (like
/// [`solve_record`]); `child_value(k, edge)` is the value of the `k`th move's child.
#[inline]
pub(crate) fn best_of<S: StateSpace>(
    space: &S,
    index: u64,
    edges: &[Edge],
    child_value: impl Fn(usize, &Edge) -> i8,
) -> (i32, u64) {
    let mut best_value = i32::MIN;
    let mut mask = 0u64;
    for (k, edge) in edges.iter().enumerate() {
        let child = child_value(k, edge);
        if child == MARK {
            return (WAITING, 0);
        }
        let value = edge.value(i32::from(child));
        if value > best_value {
            best_value = value;
            mask = 1 << edge.slot;
        } else if value == best_value {
            mask |= 1 << edge.slot;
        }
    }
    if best_value == i32::MIN {
        best_value = space.terminal_value(index);
    }
    (best_value, mask)
}

/// [`solve_state`] over one-byte values, where [`MARK`] is a child not yet known.
#[inline]
fn solve_record<S: StateSpace>(space: &S, index: u64, value_at: &impl Fn(u64) -> i8) -> (i32, u64) {
    best_edges(space, index, |child| {
        let value = value_at(child);
        (value != MARK).then_some(i32::from(value))
    })
}

/// A record that breaks the negamax equation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("entry {index}: {problem}")]
pub struct Inconsistency {
    /// The state index.
    pub index: u64,
    /// What is wrong with it.
    pub problem: String,
}

/// Checks stored values and optimal-move masks of every state against their children.
///
/// Every state is checked on its own, symmetric images included, so a wrong
/// symmetry shows up here.
///
/// Each state's value must be the best [`Edge::value`] over its moves
/// (`reward - value(child)`, or `reward + value(child)` for a move that keeps
/// the turn), and its mask must hold exactly the moves attaining it (a terminal
/// state: its terminal value and no moves); no move may lead to a higher layer.
/// These local equations pin every value only when the same-layer moves form no
/// cycle, which [`solve`] requires of the space anyway. Returns the number of
/// states checked, or the bad one of the lowest index.
pub fn check<S: StateSpace>(
    space: &S,
    value: impl Fn(u64) -> i32 + Sync,
    best: impl Fn(u64) -> u64 + Sync,
) -> Result<u64, Inconsistency> {
    check_with_progress(space, value, best, &|_| {})
}

/// Indices checked between two reports of [`check_with_progress`].
const CHECK_CHUNK: u64 = 1 << 14;

/// [`check`], reporting the indices done (of `space.len()`) as it goes.
pub fn check_with_progress<S: StateSpace>(
    space: &S,
    value: impl Fn(u64) -> i32 + Sync,
    best: impl Fn(u64) -> u64 + Sync,
    progress: Progress<'_>,
) -> Result<u64, Inconsistency> {
    let check_one = |index: u64| -> Result<(), Inconsistency> {
        let layer = space.layer(index);
        let mut computed = i32::MIN;
        let mut mask = 0u64;
        let mut higher = None;
        space.for_each_edge(index, |edge| {
            if space.layer(edge.child) > layer {
                higher = Some(edge.child);
            }
            let v = edge.value(value(edge.child));
            if v > computed {
                (computed, mask) = (v, 1 << edge.slot);
            } else if v == computed {
                mask |= 1 << edge.slot;
            }
        });
        if let Some(child) = higher {
            return Err(Inconsistency {
                index,
                problem: format!("a move leads to state {child} of a higher layer"),
            });
        }
        if computed == i32::MIN {
            computed = space.terminal_value(index);
        }
        let stored = (value(index), best(index));
        if stored != (computed, mask) {
            return Err(Inconsistency {
                index,
                problem: format!(
                    "stored value {} with moves {:#b}, its children give {computed} with {mask:#b}",
                    stored.0, stored.1
                ),
            });
        }
        Ok(())
    };
    let len = space.len();
    let done = AtomicU64::new(0);
    let states = || (0..len).into_par_iter().filter(|&i| space.is_state(i));
    match (0..len.div_ceil(CHECK_CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let indices = chunk * CHECK_CHUNK..((chunk + 1) * CHECK_CHUNK).min(len);
            let size = indices.end - indices.start;
            let mut checked = 0;
            for index in indices.filter(|&i| space.is_state(i)) {
                check_one(index)?;
                checked += 1;
            }
            progress(done.fetch_add(size, Relaxed) + size);
            Ok(checked)
        })
        .try_reduce(|| 0, |a, b| Ok(a + b))
    {
        Ok(count) => Ok(count),
        // Whichever thread met an inconsistency first: name the one of the
        // lowest index, the same on every run.
        Err(met) => Err(states()
            .find_map_first(|index| check_one(index).err())
            .unwrap_or(met)),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ZeroSum;
    use crate::search::negamax;

    /// Stones in the toy's pile at the start.
    const PILE: u32 = 14;

    /// A toy take-away game with a pass and an extra turn.
    ///
    /// The mover takes 1 to 3 stones (taking 2 from an odd pile keeps the turn),
    /// or, once per player, passes (same pile, the opponent moves), or, once per
    /// player and on a pile divisible by 3, spends that pass for a bonus point
    /// and moves again. Rewards depend on the pile; at the end an unused pass
    /// is worth 2 to the next mover and 1 to the other player.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Toy {
        pile: u32,
        mover_pass: bool,
        other_pass: bool,
    }

    /// Moves: 0..=2 take 1..=3 stones, 3 pass, 4 bonus.
    const PASS: u8 = 3;
    const BONUS: u8 = 4;

    impl Toy {
        fn from_index(index: u64) -> Toy {
            Toy {
                pile: (index / 4) as u32,
                mover_pass: index & 2 != 0,
                other_pass: index & 1 != 0,
            }
        }

        fn index(&self) -> u64 {
            u64::from(self.pile) * 4 + u64::from(self.mover_pass) * 2 + u64::from(self.other_pass)
        }
    }

    impl ZeroSum for Toy {
        type Move = u8;
        type Moves = Vec<u8>;

        fn legal_moves(&self) -> Vec<u8> {
            let mut moves: Vec<u8> = (0..self.pile.min(3) as u8).collect();
            if self.pile > 0 && self.mover_pass {
                moves.push(PASS);
                if self.pile.is_multiple_of(3) {
                    moves.push(BONUS);
                }
            }
            moves
        }

        fn play(&mut self, mv: u8) -> i32 {
            let keeps = self.keeps_turn(mv);
            let reward = match mv {
                PASS => 0,
                BONUS => 1,
                take => {
                    let k = u32::from(take) + 1;
                    let reward = ((self.pile * 7 + k * 3) % 5) as i32 - 2;
                    self.pile -= k;
                    reward
                }
            };
            if mv >= PASS {
                self.mover_pass = false;
            }
            if !keeps {
                (self.mover_pass, self.other_pass) = (self.other_pass, self.mover_pass);
            }
            reward
        }

        fn keeps_turn(&self, mv: u8) -> bool {
            mv == BONUS || (mv == 1 && self.pile % 2 == 1)
        }

        fn final_value(&self) -> i32 {
            2 * i32::from(self.mover_pass) - i32::from(self.other_pass)
        }
    }

    /// The toy as a state space; `ranged` says whether it gives its layer ranges.
    pub(crate) struct ToySpace {
        pub(crate) ranged: bool,
    }

    impl StateSpace for ToySpace {
        fn len(&self) -> u64 {
            u64::from(PILE + 1) * 4
        }

        fn num_layers(&self) -> usize {
            PILE as usize + 1
        }

        fn layer(&self, index: u64) -> usize {
            (index / 4) as usize
        }

        fn layer_range(&self, layer: usize) -> Option<Range<u64>> {
            self.ranged
                .then(|| layer as u64 * 4..(layer as u64 + 1) * 4)
        }

        /// A full pile with only the opponent's pass left cannot arise: a hole.
        fn is_state(&self, index: u64) -> bool {
            let toy = Toy::from_index(index);
            !(toy.pile == PILE && !toy.mover_pass && toy.other_pass)
        }

        fn for_each_edge(&self, index: u64, mut visit: impl FnMut(Edge)) {
            let toy = Toy::from_index(index);
            for &mv in toy.legal_moves().iter() {
                let (child, reward) = toy.after(mv);
                visit(Edge {
                    slot: mv,
                    reward,
                    child: child.index(),
                    keeps_turn: toy.keeps_turn(mv),
                });
            }
        }

        fn terminal_value(&self, index: u64) -> i32 {
            Toy::from_index(index).final_value()
        }
    }

    /// Value and optimal-move mask by plain recursive negamax.
    fn reference(toy: &Toy) -> (i32, u64) {
        let value = negamax(toy);
        let mut mask = 0;
        for &mv in toy.legal_moves().iter() {
            let (child, reward) = toy.after(mv);
            if toy.move_value(mv, reward, negamax(&child)) == value {
                mask |= 1 << mv;
            }
        }
        (value, mask)
    }

    #[test]
    fn toy_with_passes_and_extra_turns_matches_negamax() {
        // The space really has both kinds of edge, inside a layer too.
        let (mut same_layer, mut keeps, mut same_layer_keeps) = (0, 0, 0);
        let space = ToySpace { ranged: false };
        for index in 0..space.len() {
            space.for_each_edge(index, |e| {
                let same = space.layer(e.child) == space.layer(index);
                same_layer += usize::from(same);
                keeps += usize::from(e.keeps_turn);
                same_layer_keeps += usize::from(same && e.keeps_turn);
            });
        }
        assert!(same_layer > 0 && keeps > same_layer_keeps && same_layer_keeps > 0);
        let expected: Vec<(i32, u64)> = (0..space.len())
            .map(|i| match space.is_state(i) {
                true => reference(&Toy::from_index(i)),
                false => (0, 0),
            })
            .collect();
        assert!(expected.iter().any(|&(v, _)| v > 0) && expected.iter().any(|&(v, _)| v < 0));
        for ranged in [false, true] {
            for parallel in [false, true] {
                let space = ToySpace { ranged };
                let solution = solve(&space, parallel, &|_| {}).unwrap();
                for index in 0..space.len() {
                    let got = (
                        i32::from(solution.values[index as usize]),
                        solution.best[index as usize],
                    );
                    let toy = Toy::from_index(index);
                    assert_eq!(got, expected[index as usize], "{toy:?}, ranged {ranged}");
                }
            }
        }
    }

    #[test]
    fn check_accepts_the_solution_and_rejects_a_corrupted_record() {
        let space = ToySpace { ranged: true };
        let solution = solve(&space, true, &|_| {}).unwrap();
        let states = (0..space.len()).filter(|&i| space.is_state(i)).count() as u64;
        let value = |values: &[i16], i: u64| i32::from(values[i as usize]);
        let checked = check(
            &space,
            |i| value(&solution.values, i),
            |i| solution.best[i as usize],
        );
        assert_eq!(checked, Ok(states));
        // A state with a pass, whose parent in the same layer then disagrees too:
        // the check reports some bad entry either way.
        let target = Toy {
            pile: 9,
            mover_pass: true,
            other_pass: true,
        }
        .index();
        let mut values = solution.values.clone();
        values[target as usize] += 1;
        let bad = check(&space, |i| value(&values, i), |i| solution.best[i as usize]);
        assert!(bad.is_err());
        // Of several bad entries, the one of the lowest index, on every run.
        let named = bad.unwrap_err().index;
        for _ in 0..20 {
            let again = check(&space, |i| value(&values, i), |i| solution.best[i as usize]);
            assert_eq!(again.map_err(|e| e.index), Err(named));
        }
        // Only the mask wrong: exactly that entry is reported.
        let mut best = solution.best.clone();
        best[target as usize] ^= 1 << PASS;
        let bad = check(&space, |i| value(&solution.values, i), |i| best[i as usize]);
        assert_eq!(bad.map_err(|e| e.index), Err(target));
    }

    /// Encodes a solution as [`solve_records`] lays it out.
    pub(crate) fn encoded(solution: &Solution, mask_bytes: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for (&v, &m) in solution.values.iter().zip(&solution.best) {
            out.push(i8::try_from(v).unwrap() as u8);
            out.extend_from_slice(&m.to_le_bytes()[..mask_bytes]);
        }
        out
    }

    /// Runs [`solve_records`] on zeroed records and returns their bytes.
    pub(crate) fn records_of<S: StateSpace>(
        space: &S,
        mask_bytes: usize,
    ) -> Result<Vec<u8>, SolveError> {
        let states = (0..space.len()).filter(|&i| space.is_state(i)).count();
        let mut solved = Vec::new();
        // The third way: layer by layer, images in a last pass run alone.
        for (images, by_layer) in [
            (Images::WhenSolved, false),
            (Images::LastPass, false),
            (Images::LastPass, true),
        ] {
            let records: Vec<AtomicU8> = (0..space.len() as usize * (1 + mask_bytes))
                .map(|_| AtomicU8::new(0))
                .collect();
            let reported = AtomicU64::new(0);
            if by_layer {
                for layer in 0..space.num_layers() {
                    let (before, in_layer) = (reported.load(Relaxed), AtomicU64::new(0));
                    let progress = |done| {
                        in_layer.fetch_max(done, Relaxed);
                    };
                    solve_records_layer_as(space, &records, mask_bytes, images, layer, &progress)?;
                    reported.store(before + in_layer.into_inner(), Relaxed);
                }
                copy_records_images(space, &records, mask_bytes, &|_| {})?;
            } else {
                let progress = |done| {
                    reported.fetch_max(done, Relaxed);
                };
                solve_records_with(space, &records, mask_bytes, images, &progress, &|_| {})?;
            }
            // Every state is counted once, images with their canonical state.
            assert_eq!(reported.into_inner(), states as u64, "{images:?}");
            solved.push(
                records
                    .into_iter()
                    .map(AtomicU8::into_inner)
                    .collect::<Vec<u8>>(),
            );
        }
        // Every way of writing the images gives the same records.
        assert!(solved[0] == solved[1] && solved[1] == solved[2]);
        Ok(solved.pop().expect("two solutions"))
    }

    #[test]
    fn records_equal_the_in_memory_solution() {
        for ranged in [false, true] {
            let space = ToySpace { ranged };
            let solution = solve(&space, false, &|_| {}).unwrap();
            for mask_bytes in [1, 2] {
                let got = records_of(&space, mask_bytes).unwrap();
                assert_eq!(got, encoded(&solution, mask_bytes), "ranged {ranged}");
            }
        }
        // No mask bytes: the values alone.
        let space = ToySpace { ranged: true };
        let values: Vec<u8> = solve(&space, false, &|_| {})
            .unwrap()
            .values
            .iter()
            .map(|&v| v as i8 as u8)
            .collect();
        assert_eq!(records_of(&space, 0).unwrap(), values);
        // A mask that does not fit is refused (Wide's slots go past 8).
        assert!(matches!(
            records_of(&Wide, 1),
            Err(SolveError::ValueOutOfRange { .. })
        ));
    }

    /// A chain of states, each with more moves than a batch gathers (`BATCH_EDGES`).
    pub(crate) struct Wide;

    impl StateSpace for Wide {
        fn len(&self) -> u64 {
            40
        }

        fn num_layers(&self) -> usize {
            40
        }

        fn layer(&self, index: u64) -> usize {
            index as usize
        }

        fn for_each_edge(&self, index: u64, mut visit: impl FnMut(Edge)) {
            // State i moves to each lower state j; some moves keep the turn.
            for j in 0..index.min(30) {
                visit(Edge {
                    slot: j as u8,
                    reward: ((index * 7 + j * 3) % 5) as i32 - 2,
                    child: j,
                    keeps_turn: (index + j).is_multiple_of(4),
                });
            }
        }

        fn terminal_value(&self, _index: u64) -> i32 {
            1
        }
    }

    #[test]
    fn records_of_states_with_many_moves_equal_the_in_memory_solution() {
        let solution = solve(&Wide, false, &|_| {}).unwrap();
        assert!(solution.values.iter().all(|v| v.abs() < 100));
        assert_eq!(records_of(&Wide, 4).unwrap(), encoded(&solution, 4));
    }

    #[test]
    fn records_refuse_a_cycle() {
        for ranged in [false, true] {
            let err = records_of(&Cyclic { ranged }, 1).unwrap_err();
            assert_eq!(err, cyclic_error());
        }
    }

    /// How solving [`Cyclic`] fails: at its first state of layer 1.
    fn cyclic_error() -> SolveError {
        SolveError::Cycle {
            layer: 1,
            states: 2,
            index: 1,
            child: 2,
        }
    }

    /// Layer 1 holds two states that pass to each other: a cycle.
    pub(crate) struct Cyclic {
        pub(crate) ranged: bool,
    }

    impl StateSpace for Cyclic {
        fn len(&self) -> u64 {
            3
        }

        fn num_layers(&self) -> usize {
            2
        }

        fn layer(&self, index: u64) -> usize {
            usize::from(index > 0)
        }

        fn layer_range(&self, layer: usize) -> Option<Range<u64>> {
            self.ranged.then_some(if layer == 0 { 0..1 } else { 1..3 })
        }

        fn for_each_edge(&self, index: u64, mut visit: impl FnMut(Edge)) {
            if index > 0 {
                visit(Edge {
                    slot: 0,
                    reward: 1,
                    child: 0,
                    keeps_turn: false,
                });
                visit(Edge {
                    slot: 1,
                    reward: 0,
                    child: 3 - index,
                    keeps_turn: false,
                });
            }
        }

        fn terminal_value(&self, _index: u64) -> i32 {
            0
        }
    }

    #[test]
    fn a_cycle_inside_a_layer_is_an_error() {
        for ranged in [false, true] {
            for parallel in [false, true] {
                let err = solve(&Cyclic { ranged }, parallel, &|_| {}).unwrap_err();
                assert_eq!(err, cyclic_error());
            }
        }
    }
}
