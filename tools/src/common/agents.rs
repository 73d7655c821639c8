//! Agent lookup: the tested player (built-in or external) and the checks of players' names.

use super::*;

pub use tabula_verify::tournament::served_rng;

/// The player of the tested seat: `--player CMD` over the game's wire, or `--agent NAME`.
pub fn tested_player<G, W>(
    seat: &SeatArgs,
    wire: W,
    agent: impl FnOnce(&str) -> Option<Box<dyn tabula_verify::agent::Agent<G>>>,
    known: &[&str],
    log: &Log,
) -> anyhow::Result<Box<dyn tabula_verify::seat::Player<G>>>
where
    G: tabula_solver::Game + 'static,
    W: tabula_verify::wire::Wire<G> + 'static,
{
    use tabula_verify::process::ExternalPlayer;
    use tabula_verify::seat::{Local, Remote};
    match (&seat.player, &seat.agent) {
        (Some(command), _) => {
            let memory = seat.memory.map(|mib| mib << 20);
            let stderr = stderr_mode(seat.player_stderr);
            let peer = ExternalPlayer::spawn_limited(command, stderr, memory)?;
            let again = command.clone();
            Ok(Box::new(
                Remote::new(command.clone(), Box::new(peer), wire)
                    .with_transcript(log.transcript())
                    .restarting(Box::new(move || {
                        let peer = ExternalPlayer::spawn_limited(&again, stderr, memory)?;
                        Ok(Box::new(peer) as Box<dyn tabula_verify::process::Peer + Send>)
                    })),
            ))
        }
        (None, Some(name)) => Ok(Box::new(Local(known_agent(name, agent, known)?))),
        (None, None) => anyhow::bail!("give --player CMD or --agent NAME"),
    }
}

/// The built-in player that `serve` runs, and its seed.
#[derive(clap::Args)]
pub struct ServedAgentArgs {
    /// The built-in player.
    #[arg(long, value_name = "NAME")]
    pub agent: String,
    #[command(flatten)]
    pub seed: SeedArgs,
}

impl ServedAgentArgs {
    /// The `--agent` player among `known`, made by `make` on the random
    /// stream of `--seed` that a referee's `--agent` draws too, so that
    /// `--agent NAME` and `--player "tabula serve GAME --agent NAME"` play alike.
    pub fn built_in<G>(
        &self,
        make: impl FnOnce(
            &str,
            rand_chacha::ChaCha8Rng,
        ) -> Option<Box<dyn tabula_verify::agent::Agent<G>>>,
        known: &[&str],
    ) -> anyhow::Result<Box<dyn tabula_verify::agent::Agent<G>>> {
        known_agent(
            &self.agent,
            |name| make(name, served_rng(self.seed.seed)),
            known,
        )
    }
}

/// The built-in agent `name`, or an error listing the known ones.
pub fn known_agent<T>(
    name: &str,
    agent: impl FnOnce(&str) -> Option<T>,
    known: &[&str],
) -> anyhow::Result<T> {
    agent(name).ok_or_else(|| unknown_agent("--agent", name, known))
}

/// Checks that `name`, given to `option`, is one of the `known` agents.
pub fn check_agent(option: &str, name: &str, known: &[&str]) -> anyhow::Result<()> {
    if known.contains(&name) {
        Ok(())
    } else {
        Err(unknown_agent(option, name, known))
    }
}

fn unknown_agent(option: &str, name: &str, known: &[&str]) -> anyhow::Error {
    anyhow::anyhow!(
        "{option} {name}: unknown agent (known: {})",
        known.join(", ")
    )
}
