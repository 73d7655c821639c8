//! What a player can infer of the other hand from the views it is shown, and
//! an exact sampler of the other hand given all of it.
//!
//! [`Knowledge`] is fed only the successive [`View`]s of one seat (over the
//! protocol a player gets nothing else) and reconstructs what the opponent did
//! between two of them: the tile it placed and where, how many tiles it drew
//! (the stock shrank), whether it passed. Each draw says that its hand then
//! held no tile of either end's number, the tiles it drew before the last one
//! did not fit either, and the tile it placed after drawing is the last one it
//! drew. The opening tile says that no tile ranked above it was dealt.
//!
//! Where a tile of the opponent came from matters: a constraint at some time
//! binds only tiles it already held. So every opponent tile (the unknown ones
//! in hand and the ones it has played) gets an *epoch*: dealt, or drawn in the
//! k-th run of draws. A deal and stock order drawn uniformly make every
//! consistent assignment of tiles to epochs (and to the stock) equally likely,
//! so [`Sampler`] counts assignments exactly by a dynamic programme over
//! classes of tiles with the same allowed epochs and samples them exactly.
//!
//! The opponent's choices are then weighed by a simple model of it: among
//! its legal placements it picks tile `t` with probability proportional to
//! `exp(beta * pips(t))` (a soft heaviest-first player). [`Sample::weight`] is
//! the likelihood of its observed placements under that model (1 with
//! `beta = 0`), to be used as an importance weight. A richer
//! [`OpponentModel`] (a few component policies mixed over the game, replayed
//! on each placement's [`Decision`] with the sampled hand then) may take its
//! place ([`Knowledge::sampler_with`]).

use std::collections::HashMap;

use rand::{Rng, RngExt};

use super::rules::{Placed, Rules, Side, View};
use super::tiles::{MAX_TILES, Tile, Tiles};

/// The order of the opening rule: doubles first, then pip sum, then the greater number.
fn rank(t: Tile) -> (bool, u32, u8) {
    (t.is_double(), t.pips(), t.high())
}

/// The tiles ranked above `opening` by the opening rule (none of them was dealt).
pub fn above_opening(rules: Rules, opening: Tile) -> Tiles {
    rules
        .tiles()
        .iter()
        .filter(|&t| rank(t) > rank(opening))
        .collect()
}

/// One thing the opponent did, as read from two consecutive views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// A run of `count` draws at ends whose suits are `forbidden`: its hand
    /// then held none of those tiles, nor did the drawn tiles except the last
    /// when `placed_last` (the run ended with that tile placed).
    Draws {
        /// The tiles showing either end's number at the time.
        forbidden: Tiles,
        /// Tiles drawn in the run.
        count: u32,
        /// Whether the run ended with a placement (of the last drawn tile).
        placed_last: bool,
    },
    /// A pass (the stock was empty): its hand held none of `forbidden`.
    Pass {
        /// The tiles showing either end's number at the time.
        forbidden: Tiles,
    },
    /// It placed `tile` at `side` when the ends were `ends`.
    Place {
        /// The tile placed.
        tile: Tile,
        /// The end it went to.
        side: Side,
        /// The open numbers (left, right) before it was placed.
        ends: (u8, u8),
    },
}

/// What the opponent saw when it placed a tile: enough to replay a model
/// of it (its own hand comes from the sampled deal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The tile it placed.
    pub tile: Tile,
    /// The end it went to.
    pub side: Side,
    /// The open numbers (left, right) before it was placed.
    pub ends: (u8, u8),
    /// The tiles on the line before it was placed.
    pub line: Tiles,
    /// The stock when it placed (after its draws).
    pub stock: u32,
    /// The numbers it had read us to lack from our draws and passes (as the
    /// ladder's `Reading` does: a draw sets them to the ends we faced, a pass adds them).
    pub read: u16,
    /// Every tile of the case.
    pub all: Tiles,
}

impl Decision {
    /// The placement `(tile, side, ends)` in its context `(line, stock, read)`.
    fn new(
        (tile, side, ends): (Tile, Side, (u8, u8)),
        (line, stock, read): (Tiles, u32, u16),
        all: Tiles,
    ) -> Decision {
        Decision {
            tile,
            side,
            ends,
            line,
            stock,
            read,
            all,
        }
    }
}

/// A model of the opponent's placements, made of a few component policies
/// mixed over a whole game (so the views tell which one it follows).
pub trait OpponentModel: std::fmt::Debug + Send + Sync {
    /// The components' prior weights (at most [`MAX_MODELS`], summing to 1).
    fn priors(&self) -> &[f64];
    /// Per component, the probability that an opponent holding `held` made `decision`.
    fn placement(&self, decision: &Decision, held: Tiles, out: &mut [f64; MAX_MODELS]);
}

/// The most components of an [`OpponentModel`].
pub const MAX_MODELS: usize = 6;

/// Likelihoods with `first` for the first component (the only one without a model).
const fn first_part(first: f64) -> [f64; MAX_MODELS] {
    let mut parts = [0.0; MAX_MODELS];
    parts[0] = first;
    parts
}

/// Why a view does not follow from the previous one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("inconsistent views: {0}")]
pub struct InferenceError(pub String);

/// What one seat knows of a game: built only from its successive views.
#[derive(Clone, Debug)]
pub struct Knowledge {
    rules: Rules,
    opening: Option<Tile>,
    /// Whether the opponent opened (known at the first view).
    opponent_opened: Option<bool>,
    /// The opponent's acts, in order.
    acts: Vec<Act>,
    /// Per act: the line, the stock and the numbers it had read us to lack then.
    contexts: Vec<(Tiles, u32, u16)>,
    /// The numbers the opponent has read us to lack (see [`Decision::read`]).
    read: u16,
    /// The last view seen: hand set, line tiles, ends, stock.
    last: Option<Seen>,
    /// Set when a view could not be explained; the sampler then ignores the acts.
    confused: bool,
}

#[derive(Clone, Copy, Debug)]
struct Seen {
    hand: Tiles,
    line: Tiles,
    ends: (u8, u8),
    stock: u32,
}

fn line_tiles(line: &[Placed]) -> Tiles {
    line.iter().map(|&(a, b)| Tile::new(a, b)).collect()
}

impl Knowledge {
    /// Nothing known yet of a game of `rules`.
    pub fn new(rules: Rules) -> Knowledge {
        Knowledge {
            rules,
            opening: None,
            opponent_opened: None,
            acts: Vec::new(),
            contexts: Vec::new(),
            read: 0,
            last: None,
            confused: false,
        }
    }

    /// A new game whose opening tile is `opening` (from `reset`, or the view at the start).
    pub fn start(&mut self, rules: Rules, opening: Option<Tile>) {
        *self = Knowledge::new(rules);
        self.opening = opening;
    }

    /// The case.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The opponent's acts so far.
    pub fn acts(&self) -> &[Act] {
        &self.acts
    }

    /// Whether the opponent placed the opening tile (once a view was seen).
    pub fn opponent_opened(&self) -> Option<bool> {
        self.opponent_opened
    }

    /// The numbers the opponent has read us to lack (see [`Decision::read`]).
    pub fn read_of_us(&self) -> u16 {
        self.read
    }

    /// The opponent's placements so far with what it saw then (see [`Decision`]).
    pub fn decisions(&self) -> Vec<Decision> {
        self.acts
            .iter()
            .zip(&self.contexts)
            .filter_map(|(act, &context)| match *act {
                Act::Place { tile, side, ends } => Some(Decision::new(
                    (tile, side, ends),
                    context,
                    self.rules.tiles(),
                )),
                _ => None,
            })
            .collect()
    }

    /// Whether some view could not be explained (the acts are then ignored).
    pub fn confused(&self) -> bool {
        self.confused
    }

    /// Takes the view of a new call to `play`; on an error the knowledge
    /// falls back to what the view alone shows.
    pub fn update(&mut self, view: &View) -> Result<(), InferenceError> {
        let result = self.read(view);
        if result.is_err() {
            self.confused = true;
        }
        let hand: Tiles = view.hand.iter().copied().collect();
        self.last = Some(Seen {
            hand,
            line: line_tiles(&view.line),
            ends: view.ends(),
            stock: view.stock,
        });
        result
    }

    fn bad<T>(why: impl Into<String>) -> Result<T, InferenceError> {
        Err(InferenceError(why.into()))
    }

    fn read(&mut self, view: &View) -> Result<(), InferenceError> {
        if view.line.is_empty() {
            return Self::bad("empty line");
        }
        self.rules = view.rules;
        let hand: Tiles = view.hand.iter().copied().collect();
        let line = line_tiles(&view.line);
        let Some(last) = self.last else {
            return self.read_first(view, hand, line);
        };
        let gained = hand.minus(last.hand);
        let lost = last.hand.minus(hand);
        if gained.len() > 1 || lost.len() > 1 || !gained.and(lost).is_empty() {
            return Self::bad("the hand changed by more than one tile");
        }
        let faced = (1u16 << last.ends.0) | (1u16 << last.ends.1);
        if gained.len() == 1 {
            // Our draw: nothing else happened.
            if !lost.is_empty() || line != last.line || view.stock + 1 != last.stock {
                return Self::bad("a draw changed more than hand and stock");
            }
            self.read = faced;
            return Ok(());
        }
        if lost.is_empty() {
            // Our pass.
            self.read |= faced;
        }
        // Our placement (or pass), then the opponent's turn.
        let mine = match lost.iter().next() {
            Some(t) => our_placement(last, t, view)?,
            None => last,
        };
        self.opponent_turn(mine, view, line)
    }

    /// Reads the first view of a game, holding `hand` with `line` on the line:
    /// the opener's, after the other seat's first turn, or the other seat's,
    /// right after the opening tile.
    fn read_first(&mut self, view: &View, hand: Tiles, line: Tiles) -> Result<(), InferenceError> {
        let h = u32::from(self.rules.hand);
        let dealt_stock = self.rules.tile_count() - 2 * h;
        let first = Tile::new(view.line[0].0, view.line[0].1);
        if hand.len() == h {
            if view.line.len() != 1 || view.stock != dealt_stock {
                return Self::bad("the replier's first view shows moves");
            }
            self.opponent_opened = Some(true);
            if self.opening.is_some_and(|o| o != first) {
                return Self::bad("the line does not start with the opening tile");
            }
            self.opening = Some(first);
            return Ok(());
        }
        if hand.len() + 1 != h || view.stock > dealt_stock {
            return Self::bad("the opener's first view has a wrong hand or stock");
        }
        self.opponent_opened = Some(false);
        let opening = match (self.opening, view.line.len()) {
            (Some(o), _) => o,
            (None, 1) => first,
            (None, _) => {
                // The opener's tile is one of the two; the other fits it.
                let last_tile = Tile::new(view.line[1].0, view.line[1].1);
                if rank(first) > rank(last_tile) {
                    first
                } else {
                    last_tile
                }
            }
        };
        self.opening = Some(opening);
        if !line.contains(opening) {
            return Self::bad("the opening tile is not on the line");
        }
        let before = Seen {
            hand,
            line: Tiles(opening.bit()),
            ends: (opening.low(), opening.high()),
            stock: dealt_stock,
        };
        self.opponent_turn(before, view, line)
    }

    /// Reads the opponent's turn: from `before` (the ends and stock after our
    /// move) to `view`, whose line holds `line`.
    fn opponent_turn(
        &mut self,
        before: Seen,
        view: &View,
        line: Tiles,
    ) -> Result<(), InferenceError> {
        let new = line.minus(before.line);
        if new.len() > 1 || !before.line.minus(line).is_empty() {
            return Self::bad("the line changed by more than one tile");
        }
        if view.stock > before.stock {
            return Self::bad("the stock grew");
        }
        let drawn = before.stock - view.stock;
        let forbidden = Tiles::matching(before.ends.0, before.ends.1);
        let placed = new.iter().next();
        let context = (before.line, view.stock, self.read);
        if drawn > 0 {
            self.contexts.push(context);
            self.acts.push(Act::Draws {
                forbidden,
                count: drawn,
                placed_last: placed.is_some(),
            });
        }
        match placed {
            Some(tile) => {
                let first = Tile::new(view.line[0].0, view.line[0].1);
                let side = if first == tile && view.line.len() > 1 {
                    Side::Left
                } else {
                    Side::Right
                };
                let (l, r) = before.ends;
                let fits = match side {
                    Side::Left => tile.has(l) && view.line[0].1 == l,
                    Side::Right => tile.has(r) && view.line[view.line.len() - 1].0 == r,
                };
                if !fits {
                    return Self::bad(format!("the opponent's tile {tile} does not fit"));
                }
                self.contexts.push(context);
                self.acts.push(Act::Place {
                    tile,
                    side,
                    ends: before.ends,
                });
            }
            None => {
                if view.stock != 0 {
                    return Self::bad("the opponent passed with tiles in the stock");
                }
                self.contexts.push(context);
                self.acts.push(Act::Pass { forbidden });
            }
        }
        Ok(())
    }

    /// The exact sampler of the opponent's hand at `view` (the latest view
    /// given to [`Knowledge::update`]), with the model's `beta`.
    pub fn sampler(&self, view: &View, beta: f64) -> Sampler {
        Sampler::new(self, view, beta, MAX_STATES)
    }

    /// The exact sampler of the opponent's hand at `view`, its placements
    /// weighed by `model`.
    pub fn sampler_with(&self, view: &View, model: std::sync::Arc<dyn OpponentModel>) -> Sampler {
        let mut s = Sampler::new(self, view, 1.0, MAX_STATES);
        s.model = Some(model);
        if self.confused {
            s.contexts.clear();
        }
        s
    }

    /// The sampler with the draw runs merged past `max_states` DP states
    /// (a relaxation; [`Knowledge::sampler`] uses a default that keeps it rare).
    pub fn sampler_within(&self, view: &View, beta: f64, max_states: usize) -> Sampler {
        Sampler::new(self, view, beta, max_states)
    }
}

/// Time "never" for a tile still in hand.
const NEVER: usize = usize::MAX;

/// One tile whose place must be guessed: in the opponent's hand (or played by
/// it, from an unknown epoch), or in the stock.
#[derive(Clone, Copy, Debug)]
struct Item {
    tile: Tile,
    /// Index of the act that placed it, or [`NEVER`] for an unseen tile.
    played_at: usize,
    /// Allowed slots (bit i = slot i of [`Sampler::slots`]).
    slots: u32,
    /// Whether it may be in the stock (unseen tiles only).
    stock_ok: bool,
}

/// A class of items with the same allowed places.
#[derive(Clone, Debug)]
struct Class {
    items: Vec<usize>,
    slots: u32,
    stock_ok: bool,
}

impl Class {
    /// The items grouped by allowed places, most constrained classes first
    /// (which keeps the DP small).
    fn group(items: &[Item]) -> Vec<Class> {
        let mut classes: Vec<Class> = Vec::new();
        for (i, it) in items.iter().enumerate() {
            match classes
                .iter_mut()
                .find(|c| c.slots == it.slots && c.stock_ok == it.stock_ok)
            {
                Some(c) => c.items.push(i),
                None => classes.push(Class {
                    items: vec![i],
                    slots: it.slots,
                    stock_ok: it.stock_ok,
                }),
            }
        }
        classes.sort_by_key(|c| (c.slots.count_ones() + u32::from(c.stock_ok), c.slots));
        classes
    }
}

/// A sampled opponent hand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The opponent's hand now.
    pub hand: Tiles,
    /// The likelihood of its observed placements under the model (an importance weight).
    pub weight: f64,
    /// Per component of an [`OpponentModel`], the likelihood under it alone
    /// (`weight` is their mix by the priors; the `beta` model is component 0).
    pub parts: [f64; MAX_MODELS],
}

impl Sample {
    /// A hand with a weight and no per-component likelihoods.
    pub fn new(hand: Tiles, weight: f64) -> Sample {
        Sample {
            hand,
            weight,
            parts: first_part(weight),
        }
    }
}

/// Up to this many epoch assignments of a hand, [`Sampler::enumerate`]
/// averages the model's likelihood over all of them instead of samples.
const EXACT_LIKELIHOOD: f64 = 5000.0;

/// The partial assignments [`Sampler::enumerate`] may visit per hand to
/// average the likelihood exactly before it falls back to samples.
const ENUMERATION_STEPS: u32 = 20_000;

/// The most DP states before the draw epochs are merged into one (a relaxation).
const MAX_STATES: usize = 1 << 12;

/// Per (act, the opponent's hand then): the model's components' probabilities of the act.
type PartsCache = HashMap<(usize, u64), [f64; MAX_MODELS]>;

/// The exact sampler of the opponent's hand given a [`Knowledge`] and the current view.
#[derive(Clone, Debug)]
pub struct Sampler {
    acts: Vec<Act>,
    beta: f64,
    /// A model replacing `beta`'s, with the acts' contexts and the case's tiles.
    model: Option<std::sync::Arc<dyn OpponentModel>>,
    contexts: Vec<(Tiles, u32, u16)>,
    all: Tiles,
    /// Per (act, hand then): the components' probabilities of the act.
    /// (Shared by the samplers [`Sampler::forced`] derives.)
    cache: std::rc::Rc<std::cell::RefCell<PartsCache>>,
    /// Tiles the opponent holds for sure (none unless the views were incomplete).
    unseen: Tiles,
    /// The size of the opponent's hand now.
    in_hand: u32,
    stock: u32,
    items: Vec<Item>,
    /// Per slot: its epoch (0 = dealt, k = the k-th run of draws) and capacity.
    slots: Vec<(usize, u32)>,
    /// Per epoch k ≥ 1: the index of its draw act.
    epoch_act: Vec<usize>,
    /// Tiles whose epoch is known: (tile, epoch, act placing it or NEVER).
    fixed: Vec<Fixed>,
    classes: Vec<Class>,
    /// Mixed radix of the DP state, one digit per slot.
    radix: Vec<usize>,
    memo: std::cell::RefCell<HashMap<(usize, usize), f64>>,
    /// The number of consistent assignments.
    total: f64,
    /// False when the draw runs were merged (a relaxation: a superset of the consistent hands).
    exact: bool,
}

fn factorial(n: usize) -> f64 {
    (1..=n).map(|k| k as f64).product()
}

/// What we saw after placing `t` from `last`: `t` on the line, next to
/// the old line on the side where `view` shows it, and the ends it opened.
fn our_placement(last: Seen, t: Tile, view: &View) -> Result<Seen, InferenceError> {
    let (l, r) = last.ends;
    let pos = view
        .line
        .iter()
        .position(|&(a, b)| Tile::new(a, b) == t)
        .ok_or_else(|| InferenceError(format!("our tile {t} is not on the line")))?;
    // The old line is one block of the new one; our tile lies next to it.
    let first_old = view
        .line
        .iter()
        .position(|&(a, b)| last.line.contains(Tile::new(a, b)))
        .unwrap_or(0);
    let side = if pos < first_old {
        Side::Left
    } else {
        Side::Right
    };
    if !(t.has(l) && side == Side::Left || t.has(r) && side == Side::Right) {
        return Err(InferenceError(format!(
            "our tile {t} does not fit where it lies"
        )));
    }
    let mut mine = last;
    mine.ends = match side {
        Side::Left => (t.other(l), r),
        Side::Right => (l, t.other(r)),
    };
    mine.line.insert(t);
    Ok(mine)
}

/// A tile whose epoch is known: (tile, epoch, act placing it or [`NEVER`]).
type Fixed = (Tile, usize, usize);

/// The opponent's hand through time: epoch 0 is the deal, epoch k ≥ 1 the
/// k-th run of draws.
struct Epochs {
    /// Per epoch k ≥ 1: the index of its draw act (`usize::MAX` for the deal).
    act: Vec<usize>,
    /// Per epoch: the tiles of it the hand may still hold.
    caps: Vec<u32>,
    /// Per act: the epoch in force (after the runs of draws so far).
    at: Vec<usize>,
}

impl Epochs {
    /// The epochs of `acts`, with `hand` tiles dealt (one of them the opening
    /// tile when the opponent opened).
    fn new(acts: &[Act], hand: u8, opened: bool) -> Epochs {
        let mut act = vec![usize::MAX];
        let mut caps = vec![u32::from(hand) - u32::from(opened)];
        let mut at = Vec::with_capacity(acts.len());
        for (i, a) in acts.iter().enumerate() {
            if let Act::Draws {
                count, placed_last, ..
            } = *a
            {
                act.push(i);
                caps.push(count - u32::from(placed_last));
            }
            at.push(act.len() - 1);
        }
        Epochs { act, caps, at }
    }

    /// The tiles the opponent placed: those known to close a run of draws
    /// (tile, epoch, act), and the others (tile, act), the opening tile left out.
    fn placed(
        &self,
        acts: &[Act],
        opening: Option<Tile>,
        opened: bool,
    ) -> (Vec<Fixed>, Vec<(Tile, usize)>) {
        let (mut fixed, mut played) = (Vec::new(), Vec::new());
        for (i, act) in acts.iter().enumerate() {
            if let Act::Place { tile, .. } = *act {
                // The tile placed right after a run is that run's last tile.
                let after_run = i > 0
                    && matches!(
                        acts[i - 1],
                        Act::Draws {
                            placed_last: true,
                            ..
                        }
                    );
                if after_run {
                    fixed.push((tile, self.at[i], i));
                } else if !(opened && Some(tile) == opening) {
                    played.push((tile, i));
                }
            }
        }
        (fixed, played)
    }

    /// The epochs `tile` may come from, given the act `until` at which it
    /// left the hand ([`NEVER`]: it is unseen): none whose later draws or
    /// passes before `until` rule it out, nor the deal for a tile `above` the
    /// opening.
    fn allowed(&self, acts: &[Act], above: Tiles, tile: Tile, until: usize) -> Vec<usize> {
        let last_epoch = if until == NEVER {
            self.act.len() - 1
        } else {
            self.at[until]
        };
        (0..=last_epoch)
            .filter(|&e| {
                if e == 0 && above.contains(tile) {
                    return false;
                }
                acts.iter().enumerate().all(|(c, act)| {
                    if c >= until || self.at[c] < e {
                        return true;
                    }
                    match *act {
                        Act::Draws { forbidden, .. } | Act::Pass { forbidden } => {
                            !forbidden.contains(tile)
                        }
                        Act::Place { .. } => true,
                    }
                })
            })
            .collect()
    }
}

/// The DP's slots for the epochs' `caps`: (epoch, capacity) per epoch with
/// room, the slot of each epoch (`usize::MAX`: none), and whether they are
/// exact. Past `max_states` DP states the runs of draws are merged into one
/// slot (a relaxation: the union of what they allow).
fn slots(caps: &[u32], max_states: usize) -> (Vec<(usize, u32)>, Vec<usize>, bool) {
    let mut slot_of = vec![usize::MAX; caps.len()];
    let mut slots = Vec::new();
    for (e, &c) in caps.iter().enumerate() {
        if c > 0 {
            slot_of[e] = slots.len();
            slots.push((e, c));
        }
    }
    let states: usize = slots.iter().map(|&(_, c)| c as usize + 1).product();
    let exact = states <= max_states && slots.len() <= 31;
    if !exact {
        let merged: u32 = slots.iter().filter(|s| s.0 > 0).map(|s| s.1).sum();
        let dealt = caps[0];
        slots.clear();
        slot_of.iter_mut().for_each(|s| *s = usize::MAX);
        if dealt > 0 {
            slot_of[0] = slots.len();
            slots.push((0, dealt));
        }
        if merged > 0 {
            let at = slots.len();
            for (e, &c) in caps.iter().enumerate().skip(1) {
                if c > 0 {
                    slot_of[e] = at;
                }
            }
            slots.push((1, merged));
        }
    }
    (slots, slot_of, exact)
}

impl Sampler {
    fn new(k: &Knowledge, view: &View, beta: f64, max_states: usize) -> Sampler {
        let rules = view.rules;
        let unseen = view.unseen();
        let acts: Vec<Act> = if k.confused {
            Vec::new()
        } else {
            k.acts.clone()
        };
        let opening = if k.confused { None } else { k.opening };
        let above = opening.map_or(Tiles::EMPTY, |o| above_opening(rules, o));
        let opened = k.opponent_opened == Some(true) && !k.confused;
        let epochs = Epochs::new(&acts, rules.hand, opened);
        let (fixed, played) = epochs.placed(&acts, opening, opened);
        let (slots, slot_of, exact) = slots(&epochs.caps, max_states);
        let placed = played.iter().map(|&(tile, at)| (tile, at, false));
        let items: Vec<Item> = placed
            .chain(unseen.iter().map(|tile| (tile, NEVER, true)))
            .map(|(tile, at, stock_ok)| Item {
                tile,
                played_at: at,
                slots: epochs
                    .allowed(&acts, above, tile, at)
                    .iter()
                    .filter(|&&e| slot_of[e] != usize::MAX)
                    .fold(0, |m, &e| m | 1 << slot_of[e]),
                stock_ok,
            })
            .collect();
        let classes = Class::group(&items);
        let radix: Vec<usize> = slots.iter().map(|&(_, c)| c as usize + 1).collect();
        let mut sampler = Sampler {
            acts,
            beta,
            model: None,
            contexts: k.contexts.clone(),
            all: rules.tiles(),
            cache: Default::default(),
            unseen,
            in_hand: view.opponent_count(),
            stock: view.stock,
            items,
            slots,
            epoch_act: epochs.act,
            fixed,
            classes,
            radix,
            memo: Default::default(),
            total: 0.0,
            exact,
        };
        let start = sampler.encode(&sampler.slots.iter().map(|s| s.1).collect::<Vec<_>>());
        sampler.total = sampler.count(0, start);
        sampler
    }

    fn encode(&self, caps: &[u32]) -> usize {
        caps.iter()
            .zip(&self.radix)
            .rev()
            .fold(0, |acc, (&c, &r)| acc * r + c as usize)
    }

    fn decode(&self, mut state: usize) -> Vec<u32> {
        self.radix
            .iter()
            .map(|&r| {
                let d = state % r;
                state /= r;
                d as u32
            })
            .collect()
    }

    /// Items placed in classes before `class`.
    fn done_before(&self, class: usize) -> usize {
        self.classes[..class].iter().map(|c| c.items.len()).sum()
    }

    /// The stock's room left at `class` with slot rooms `caps`.
    fn stock_left(&self, class: usize, caps: &[u32]) -> Option<u32> {
        let in_slots: u32 = self.slots.iter().map(|s| s.1).sum::<u32>() - caps.iter().sum::<u32>();
        let used = self.done_before(class) as u32 - in_slots;
        self.stock.checked_sub(used)
    }

    /// Every way to spread `n` items over the allowed slots and the stock:
    /// calls `f(counts per slot, count in stock, multinomial ways)`.
    fn spreads(&self, class: usize, caps: &[u32], f: &mut dyn FnMut(&[u32], u32, f64)) {
        let c = &self.classes[class];
        let n = c.items.len() as u32;
        let Some(stock_room) = self.stock_left(class, caps) else {
            return;
        };
        let allowed: Vec<usize> = (0..self.slots.len())
            .filter(|&s| c.slots >> s & 1 == 1)
            .collect();
        /// What stays fixed while the counts of one class are enumerated.
        struct Spread<'a> {
            allowed: Vec<usize>,
            caps: &'a [u32],
            stock_ok: bool,
            stock_room: u32,
            n: u32,
        }
        fn rec(
            sp: &Spread<'_>,
            i: usize,
            left: u32,
            counts: &mut Vec<u32>,
            f: &mut dyn FnMut(&[u32], u32, f64),
        ) {
            if i == sp.allowed.len() {
                if left == 0 || (sp.stock_ok && left <= sp.stock_room) {
                    let ways = factorial(sp.n as usize)
                        / counts
                            .iter()
                            .map(|&x| factorial(x as usize))
                            .product::<f64>()
                        / factorial(left as usize);
                    f(counts, left, ways);
                }
                return;
            }
            let s = sp.allowed[i];
            for x in 0..=left.min(sp.caps[s]) {
                counts[s] = x;
                rec(sp, i + 1, left - x, counts, f);
            }
            counts[s] = 0;
        }
        let sp = Spread {
            allowed,
            caps,
            stock_ok: c.stock_ok,
            stock_room,
            n,
        };
        let mut counts = vec![0u32; self.slots.len()];
        rec(&sp, 0, n, &mut counts, f);
    }

    /// The number of assignments of classes `class..` given the rooms in `state`.
    fn count(&self, class: usize, state: usize) -> f64 {
        if class == self.classes.len() {
            return if state == 0 { 1.0 } else { 0.0 };
        }
        if let Some(&v) = self.memo.borrow().get(&(class, state)) {
            return v;
        }
        let caps = self.decode(state);
        let mut total = 0.0;
        self.spreads(class, &caps, &mut |counts, _, ways| {
            let rest: Vec<u32> = caps.iter().zip(counts).map(|(c, x)| c - x).collect();
            total += ways * self.count(class + 1, self.encode(&rest));
        });
        self.memo.borrow_mut().insert((class, state), total);
        total
    }

    /// The number of consistent assignments of tiles to epochs and the stock
    /// (0 when the knowledge is contradictory).
    pub fn assignments(&self) -> f64 {
        self.total
    }

    /// Whether the counts are exact (else the draw runs were merged into one
    /// epoch, which admits a superset of the consistent hands).
    pub fn is_exact(&self) -> bool {
        self.exact
    }

    /// One exact sample of the opponent's hand with its model weight.
    ///
    /// With no consistent assignment (views that contradict the rules), a
    /// uniform hand among the unseen tiles.
    pub fn sample(&self, rng: &mut impl Rng) -> Sample {
        if self.total <= 0.0 {
            return self.uniform(rng);
        }
        let mut epochs = vec![usize::MAX; self.items.len()];
        let mut caps: Vec<u32> = self.slots.iter().map(|s| s.1).collect();
        for class in 0..self.classes.len() {
            let here = self.count(class, self.encode(&caps));
            let mut pick = rng.random::<f64>() * here;
            let mut chosen: Option<(Vec<u32>, u32)> = None;
            let mut last: Option<(Vec<u32>, u32)> = None;
            self.spreads(class, &caps, &mut |counts, stock, ways| {
                if chosen.is_some() {
                    return;
                }
                let rest: Vec<u32> = caps.iter().zip(counts).map(|(c, x)| c - x).collect();
                let w = ways * self.count(class + 1, self.encode(&rest));
                if w > 0.0 {
                    last = Some((counts.to_vec(), stock));
                    pick -= w;
                    if pick < 0.0 {
                        chosen = last.clone();
                    }
                }
            });
            let (counts, _) = chosen.or(last).expect("a class with weight has a spread");
            // Which items of the class go where: a uniformly random split.
            let mut items = self.classes[class].items.clone();
            for i in (1..items.len()).rev() {
                items.swap(i, rng.random_range(0..=i));
            }
            let mut at = 0;
            for (s, &x) in counts.iter().enumerate() {
                for &it in &items[at..at + x as usize] {
                    epochs[it] = self.slots[s].0;
                }
                at += x as usize;
                caps[s] -= x;
            }
        }
        let hand: Tiles = self
            .items
            .iter()
            .zip(&epochs)
            .filter(|(it, e)| it.played_at == NEVER && **e != usize::MAX)
            .map(|(it, _)| it.tile)
            .collect();
        let parts = self.likelihoods(&epochs);
        Sample {
            hand,
            weight: self.mix(&parts),
            parts,
        }
    }

    fn uniform(&self, rng: &mut impl Rng) -> Sample {
        let mut tiles: Vec<Tile> = self.unseen.iter().collect();
        for i in (1..tiles.len()).rev() {
            tiles.swap(i, rng.random_range(0..=i));
        }
        Sample::new(tiles.into_iter().take(self.in_hand as usize).collect(), 1.0)
    }

    /// The model's probability of the opponent's observed placements, given
    /// every item's epoch (`usize::MAX` = in the stock).
    /// The priors' mix of per-component likelihoods.
    fn mix(&self, parts: &[f64; MAX_MODELS]) -> f64 {
        match &self.model {
            Some(m) => m.priors().iter().zip(parts).map(|(p, l)| p * l).sum(),
            None => parts[0],
        }
    }

    /// Per component, the probability of the opponent's observed placements
    /// given every item's epoch (`usize::MAX` = in the stock).
    fn likelihoods(&self, epochs: &[usize]) -> [f64; MAX_MODELS] {
        if let Some(model) = &self.model {
            return self.model_likelihoods(&**model, epochs);
        }
        first_part(self.beta_likelihood(epochs))
    }

    /// [`Sampler::likelihoods`] under an [`OpponentModel`].
    fn model_likelihoods(&self, model: &dyn OpponentModel, epochs: &[usize]) -> [f64; MAX_MODELS] {
        let mut held: Vec<(Tile, usize, usize)> = self.fixed.clone();
        for (it, &e) in self.items.iter().zip(epochs) {
            if e != usize::MAX {
                held.push((it.tile, e, it.played_at));
            }
        }
        let mut parts = [1.0; MAX_MODELS];
        let mut epoch = 0;
        for (i, act) in self.acts.iter().enumerate() {
            match *act {
                Act::Draws { .. } => epoch += 1,
                Act::Pass { .. } => {}
                Act::Place { tile, side, ends } => {
                    let Some(&context) = self.contexts.get(i) else {
                        continue;
                    };
                    let hand: Tiles = held
                        .iter()
                        .filter(|&&(_, e, out)| e <= epoch && out >= i)
                        .map(|&(t, _, _)| t)
                        .collect();
                    let key = (i, hand.0);
                    let cached = self.cache.borrow().get(&key).copied();
                    let p = cached.unwrap_or_else(|| {
                        let decision = Decision::new((tile, side, ends), context, self.all);
                        let mut out = [0.0; MAX_MODELS];
                        model.placement(&decision, hand, &mut out);
                        self.cache.borrow_mut().insert(key, out);
                        out
                    });
                    parts.iter_mut().zip(p).for_each(|(a, b)| *a *= b);
                }
            }
        }
        parts
    }

    /// The `beta` model's likelihood (a soft heaviest-first player).
    fn beta_likelihood(&self, epochs: &[usize]) -> f64 {
        if self.beta == 0.0 {
            return 1.0;
        }
        // (tile, epoch, act that placed it or NEVER)
        let mut held: Vec<(Tile, usize, usize)> = self.fixed.clone();
        for (it, &e) in self.items.iter().zip(epochs) {
            if e != usize::MAX {
                held.push((it.tile, e, it.played_at));
            }
        }
        let mut weight = 1.0;
        let mut epoch = 0;
        for (i, act) in self.acts.iter().enumerate() {
            match *act {
                Act::Draws { .. } => epoch += 1,
                Act::Pass { .. } => {}
                Act::Place { tile, ends, .. } => {
                    let fits = Tiles::matching(ends.0, ends.1);
                    let mut total = 0.0;
                    let mut mine = 0.0;
                    for &(t, e, out) in &held {
                        // Epoch of a merged slot reads as 1: only exact when not merged.
                        if e <= epoch && out >= i && fits.contains(t) {
                            let sides = if ends.0 != ends.1 && t.has(ends.0) && t.has(ends.1) {
                                2.0
                            } else {
                                1.0
                            };
                            let w = sides * (self.beta * f64::from(t.pips())).exp();
                            total += w;
                            if t == tile {
                                mine = w / sides;
                            }
                        }
                    }
                    if total > 0.0 && mine > 0.0 {
                        weight *= mine / total;
                    }
                }
            }
        }
        let _ = &self.epoch_act;
        weight
    }

    /// Every consistent opponent hand with its probability (model weights
    /// included), when there are at most `limit` candidate hands; else `None`.
    ///
    /// The probability of a hand is the number of its consistent epoch
    /// assignments times the model's likelihood averaged over them: exactly
    /// when they are few, else over `draws` exact samples of them.
    pub fn enumerate(&self, limit: usize, draws: usize, rng: &mut impl Rng) -> Option<Vec<Sample>> {
        let tiles: Vec<Tile> = self.unseen.iter().collect();
        let m = self.in_hand as usize;
        if binomial(tiles.len(), m) > limit as f64 || self.total <= 0.0 {
            return None;
        }
        let mut out = Vec::new();
        let mut chosen = Vec::with_capacity(m);
        subsets(&tiles, m, 0, &mut chosen, &mut |hand: Tiles| {
            let forced = self.forced(hand);
            if forced.total > 0.0 {
                let plain = self.beta == 0.0 && self.model.is_none();
                let exact = plain.then_some(first_part(1.0)).or_else(|| {
                    (forced.total <= EXACT_LIKELIHOOD)
                        .then(|| forced.mean_likelihood())
                        .flatten()
                });
                let like = if let Some(like) = exact {
                    like
                } else {
                    let mut sum = [0.0; MAX_MODELS];
                    for _ in 0..draws.max(1) {
                        let p = forced.sample(rng).parts;
                        sum.iter_mut()
                            .zip(p)
                            .for_each(|(a, b)| *a += b / draws.max(1) as f64);
                    }
                    sum
                };
                let parts = like.map(|l| forced.total * l);
                out.push(Sample {
                    hand,
                    weight: self.mix(&parts),
                    parts,
                });
            }
        });
        let sum: f64 = out.iter().map(|s| s.weight).sum();
        if sum > 0.0 {
            for s in &mut out {
                s.weight /= sum;
                s.parts.iter_mut().for_each(|p| *p /= sum);
            }
        }
        Some(out)
    }

    /// The number of consistent assignments in which the opponent holds `hand` now.
    pub fn assignments_with(&self, hand: Tiles) -> f64 {
        if hand.len() != self.in_hand || !hand.minus(self.unseen).is_empty() {
            return 0.0;
        }
        self.forced(hand).total
    }

    /// The model's likelihood averaged over every consistent assignment (few).
    fn mean_likelihood(&self) -> Option<[f64; MAX_MODELS]> {
        let mut epochs = vec![usize::MAX; self.items.len()];
        let mut caps: Vec<u32> = self.slots.iter().map(|s| s.1).collect();
        let (mut sum, mut count) = ([0.0; MAX_MODELS], 0.0);
        let mut steps = ENUMERATION_STEPS;
        self.each_assignment(
            0,
            &mut epochs,
            &mut caps,
            self.stock,
            &mut steps,
            &mut |e| {
                let p = self.likelihoods(e);
                sum.iter_mut().zip(p).for_each(|(a, b)| *a += b);
                count += 1.0;
            },
        );
        (steps > 0).then(|| sum.map(|x| if count > 0.0 { x / count } else { 0.0 }))
    }

    /// Calls `f` with every consistent assignment of items `i..`, giving up
    /// (with `steps` at 0) after that many partial assignments.
    fn each_assignment(
        &self,
        i: usize,
        epochs: &mut Vec<usize>,
        caps: &mut Vec<u32>,
        stock: u32,
        steps: &mut u32,
        f: &mut dyn FnMut(&[usize]),
    ) {
        if *steps == 0 {
            return;
        }
        *steps -= 1;
        if i == self.items.len() {
            if caps.iter().all(|&c| c == 0) {
                f(epochs);
            }
            return;
        }
        // The slots' room must still fit in the items left.
        if caps.iter().sum::<u32>() as usize > self.items.len() - i {
            return;
        }
        let it = self.items[i];
        if it.stock_ok && stock > 0 {
            epochs[i] = usize::MAX;
            self.each_assignment(i + 1, epochs, caps, stock - 1, steps, f);
        }
        for s in 0..self.slots.len() {
            if it.slots >> s & 1 == 1 && caps[s] > 0 {
                caps[s] -= 1;
                epochs[i] = self.slots[s].0;
                self.each_assignment(i + 1, epochs, caps, stock, steps, f);
                caps[s] += 1;
            }
        }
        epochs[i] = usize::MAX;
    }

    /// The same sampler with the opponent's hand fixed to `hand`.
    fn forced(&self, hand: Tiles) -> Sampler {
        let mut s = self.clone();
        s.memo = Default::default();
        for it in &mut s.items {
            if it.played_at == NEVER {
                if hand.contains(it.tile) {
                    it.stock_ok = false;
                } else {
                    it.slots = 0;
                }
            }
        }
        s.classes = Class::group(&s.items);
        let start = s.encode(&s.slots.iter().map(|x| x.1).collect::<Vec<_>>());
        s.total = s.count(0, start);
        s
    }
}

fn binomial(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

fn subsets(
    tiles: &[Tile],
    m: usize,
    from: usize,
    chosen: &mut Vec<Tile>,
    f: &mut dyn FnMut(Tiles),
) {
    if chosen.len() == m {
        f(chosen.iter().copied().collect());
        return;
    }
    for i in from..tiles.len() {
        if tiles.len() - i < m - chosen.len() {
            break;
        }
        chosen.push(tiles[i]);
        subsets(tiles, m, i + 1, chosen, f);
        chosen.pop();
    }
}

const _: () = assert!(MAX_TILES <= 64);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dominoes::rules::{Deal, Match, Move};
    use crate::game::{Game, Turn};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// One step of a game's history with the ends before it.
    type Step = (Turn, Move, (u8, u8));

    /// A check run at every call of seat 0.
    type Check<'a> = &'a mut dyn FnMut(&Deal, &[Step], &Match, &Knowledge, &View);

    /// Brute force: every opponent deal and every tile it could have drawn,
    /// replayed against what seat 0 saw; the count of histories by the
    /// opponent's hand now.
    fn brute(deal: &Deal, history: &[Step]) -> HashMap<Tiles, f64> {
        let rules = deal.rules;
        let mine: Tiles = deal.hands[0].iter().copied().collect();
        let (opener, opening) = deal.opening();
        let rest: Vec<Tile> = rules.tiles().minus(mine).iter().collect();
        let mut out = HashMap::new();
        let mut chosen = Vec::new();
        subsets(
            &rest,
            usize::from(rules.hand),
            0,
            &mut chosen,
            &mut |dealt: Tiles| {
                let Some(open) = super::super::rules::opening_tile(dealt.or(mine)) else {
                    return;
                };
                if open != opening || dealt.contains(opening) != (opener == 1) {
                    return;
                }
                let mut hand = dealt;
                if opener == 1 {
                    hand.remove(opening);
                }
                let stock = rules.tiles().minus(mine).minus(dealt);
                walk(history, 0, hand, stock, &mut out);
            },
        );
        out
    }

    fn walk(history: &[Step], i: usize, hand: Tiles, stock: Tiles, out: &mut HashMap<Tiles, f64>) {
        let Some(&(turn, mv, ends)) = history.get(i) else {
            *out.entry(hand).or_default() += 1.0;
            return;
        };
        let fits = !hand.and(Tiles::matching(ends.0, ends.1)).is_empty();
        match (turn, mv) {
            (Turn::Seat(1), Move::Draw) | (Turn::Seat(1), Move::Pass) if fits => {}
            (Turn::Seat(1), Move::Draw) => {
                let (_, Move::Drawn(_), _) = history[i + 1] else {
                    unreachable!()
                };
                for t in stock.iter() {
                    let mut h = hand;
                    h.insert(t);
                    let mut s = stock;
                    s.remove(t);
                    walk(history, i + 2, h, s, out);
                }
            }
            (Turn::Seat(1), Move::Place(t, _)) => {
                if hand.contains(t) {
                    let mut h = hand;
                    h.remove(t);
                    walk(history, i + 1, h, stock, out);
                }
            }
            (Turn::Chance, Move::Drawn(t)) => {
                // Our own draw: the tile must still be in the stock.
                if stock.contains(t) {
                    let mut s = stock;
                    s.remove(t);
                    walk(history, i + 1, hand, s, out);
                }
            }
            _ => walk(history, i + 1, hand, stock, out),
        }
    }

    fn normalized(map: &HashMap<Tiles, f64>) -> HashMap<Tiles, f64> {
        let sum: f64 = map.values().sum();
        map.iter().map(|(&k, &v)| (k, v / sum)).collect()
    }

    /// Plays random games; at every call of seat 0 runs `check` with the
    /// deal, the history so far, the true game and seat 0's knowledge.
    fn random_games(rules: Rules, games: usize, seed: u64, check: Check<'_>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..games {
            let deal = Deal::random(rules, &mut rng);
            let mut game = Match::new(&deal);
            let mut know = Knowledge::new(rules);
            know.start(rules, Some(Tile::new(game.line()[0].0, game.line()[0].1)));
            let mut history: Vec<Step> = Vec::new();
            while game.turn() != Turn::Over {
                let turn = game.turn();
                if turn == Turn::Seat(0) {
                    let view = game.view(0);
                    know.update(&view)
                        .expect("views from a real game are consistent");
                    check(&deal, &history, &game, &know, &view);
                }
                let moves = game.moves();
                let mv = moves[rng.random_range(0..moves.len())];
                history.push((turn, mv, game.ends()));
                game.apply(mv);
            }
        }
    }

    #[test]
    fn the_acts_read_from_views_are_the_opponents_moves() {
        for rules in [Rules::new(5, 7).unwrap(), Rules::new(9, 4).unwrap()] {
            random_games(rules, 40, 3, &mut |deal, history, _, know, _| {
                let mut truth = Vec::new();
                let mut run = 0;
                for (k, &(turn, mv, ends)) in history.iter().enumerate() {
                    let forbidden = Tiles::matching(ends.0, ends.1);
                    match (turn, mv) {
                        (Turn::Seat(1), Move::Draw) => run += 1,
                        (Turn::Seat(1), Move::Place(tile, side)) => {
                            if run > 0 {
                                let f = Tiles::matching(history[k - 2].2.0, history[k - 2].2.1);
                                truth.push(Act::Draws {
                                    forbidden: f,
                                    count: run,
                                    placed_last: true,
                                });
                            }
                            run = 0;
                            truth.push(Act::Place { tile, side, ends });
                        }
                        (Turn::Seat(1), Move::Pass) => {
                            if run > 0 {
                                truth.push(Act::Draws {
                                    forbidden,
                                    count: run,
                                    placed_last: false,
                                });
                            }
                            run = 0;
                            truth.push(Act::Pass { forbidden });
                        }
                        _ => {}
                    }
                }
                // A placement at equal ends may be read at either side.
                let norm = |acts: &[Act]| -> Vec<Act> {
                    acts.iter()
                        .map(|a| match *a {
                            Act::Place { tile, ends, .. } if ends.0 == ends.1 => Act::Place {
                                tile,
                                side: Side::Left,
                                ends,
                            },
                            other => other,
                        })
                        .collect()
                };
                assert_eq!(norm(know.acts()), norm(&truth), "deal {deal:?}");
                assert_eq!(know.opponent_opened(), Some(deal.opening().0 == 1));
            });
        }
    }

    #[test]
    fn exact_counts_match_brute_force_on_small_games() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut checked = 0;
        for (rules, games) in [
            (Rules::new(5, 4).unwrap(), 25),
            (Rules::new(5, 6).unwrap(), 25),
        ] {
            random_games(rules, games, 5, &mut |deal, history, game, know, view| {
                let truth = brute(deal, history);
                let sampler = know.sampler(view, 0.0);
                assert!(truth.contains_key(&game.hand_set(1)));
                assert!(sampler.assignments_with(game.hand_set(1)) > 0.0);
                let exact = sampler.enumerate(100_000, 1, &mut rng).unwrap();
                let ours: HashMap<Tiles, f64> = exact.iter().map(|s| (s.hand, s.weight)).collect();
                let truth = normalized(&truth);
                assert_eq!(ours.len(), truth.len(), "support, history {history:?}");
                for (hand, p) in &truth {
                    let q = ours.get(hand).copied().unwrap_or(0.0);
                    assert!(
                        (p - q).abs() < 1e-9,
                        "{hand:?}: {p} vs {q}, history {history:?}"
                    );
                }
                checked += 1;
            });
        }
        assert!(checked > 100, "{checked}");
    }

    #[test]
    fn samples_follow_the_exact_distribution() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let mut checked = 0;
        random_games(
            Rules::new(6, 5).unwrap(),
            10,
            8,
            &mut |_, _, _, know, view| {
                for beta in [0.0, 0.4] {
                    let sampler = know.sampler(view, beta);
                    // The model's likelihood varies with the epochs: average it well.
                    let size = sampler.enumerate(400, 1, &mut rng).map_or(0, |e| e.len());
                    if !(2..=60).contains(&size) {
                        continue;
                    }
                    let exact = sampler.enumerate(400, 1000, &mut rng).unwrap();
                    let mut weights = Vec::new();
                    let draws = 20_000;
                    let mut freq: HashMap<Tiles, f64> = HashMap::new();
                    let mut total = 0.0;
                    for _ in 0..draws {
                        let s = sampler.sample(&mut rng);
                        *freq.entry(s.hand).or_default() += s.weight;
                        total += s.weight;
                        weights.push(s.weight);
                    }
                    let tv: f64 = exact
                        .iter()
                        .map(|s| {
                            (s.weight - freq.get(&s.hand).copied().unwrap_or(0.0) / total).abs()
                        })
                        .sum::<f64>()
                        / 2.0;
                    assert!(freq.keys().all(|h| exact.iter().any(|s| s.hand == *h)));
                    // Sampling noise alone gives about 0.4 * sqrt(hands / n) for an
                    // effective sample size n (importance weights shrink it).
                    let ess = total * total / weights.iter().map(|w| w * w).sum::<f64>();
                    let tolerance = 1.2 * (exact.len() as f64 / ess).sqrt() + 0.01;
                    assert!(
                        tv < tolerance,
                        "beta {beta}: total variation {tv} over {} hands: {exact:?} vs {freq:?} / {total}",
                        exact.len()
                    );
                    checked += 1;
                }
            },
        );
        assert!(checked > 5, "{checked}");
    }

    #[test]
    fn the_true_hand_is_always_possible_and_samples_fit_the_constraints() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let (mut relaxed, mut passes, mut draws) = (0, 0, 0);
        for rules in [Rules::new(7, 7).unwrap(), Rules::new(9, 4).unwrap()] {
            random_games(rules, 40, 9, &mut |_, _, game, know, view| {
                // A small state limit exercises the merged epochs too.
                let max_states = if view.stock % 2 == 0 { 16 } else { MAX_STATES };
                let sampler = know.sampler_within(view, 0.3, max_states);
                relaxed += usize::from(!sampler.is_exact());
                assert!(sampler.assignments() > 0.0);
                assert!(sampler.assignments_with(game.hand_set(1)) > 0.0);
                // The last pass or run of draws: the hand then held none of its
                // tiles (nor did the tiles drawn and kept), and the placements
                // since only took tiles away.
                let last = know
                    .acts()
                    .iter()
                    .rev()
                    .find(|a| !matches!(a, Act::Place { .. }));
                let forbidden = match last {
                    Some(&Act::Pass { forbidden }) => {
                        passes += 1;
                        forbidden
                    }
                    Some(&Act::Draws { forbidden, .. }) => {
                        draws += 1;
                        forbidden
                    }
                    _ => Tiles::EMPTY,
                };
                assert!(game.hand_set(1).and(forbidden).is_empty());
                for _ in 0..20 {
                    let s = sampler.sample(&mut rng);
                    assert_eq!(s.hand.len(), game.hand_set(1).len());
                    assert!(s.hand.minus(view.unseen()).is_empty());
                    assert!(sampler.assignments_with(s.hand) > 0.0);
                    assert!(s.weight > 0.0 && s.weight <= 1.0);
                    assert!(s.hand.and(forbidden).is_empty(), "{:?}", know.acts());
                }
            });
        }
        // The merged epochs, and both kinds of last act, were exercised too
        // (after a pass the stock is empty and the hand is all the unseen
        // tiles, so only the draws test the sampler; the passes test the reading).
        assert!(relaxed > 0, "{relaxed}");
        assert!(passes > 0 && draws > 0, "{passes} passes, {draws} draws");
    }
}
