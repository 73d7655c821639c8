//! MultiplayerReversi's contest pieces: the opponents' genetic algorithm.

pub mod evolve;
