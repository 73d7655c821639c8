//! The argument groups every game flattens into its verbs: the tested seat, seed, games, time-out, timings, `--strict`, `--json`.

use std::io::Write;
use std::time::Duration;

use clap::Args;

use super::*;

/// Who plays the tested seat: an external program or a built-in agent.
#[derive(Args, Clone, Debug)]
pub struct SeatArgs {
    /// The player's command, run with `sh -c` and spoken to over pipes in the game's protocol.
    #[arg(long, value_name = "CMD", conflicts_with = "agent", value_parser = command)]
    pub player: Option<String>,
    /// A built-in player instead (see `tabula games` and each game's section of the README).
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Pass the player's stderr through instead of keeping its last lines for the fault reason.
    #[arg(long)]
    pub player_stderr: bool,
    /// Limit the player's memory to MIB mebibytes, as `ulimit -v` does: its address space,
    /// and that of each process it starts, each on its own; the statements' limits:
    /// PseudoTonga 64, Dominoes and MultiplayerReversi 1024. No limit unless given.
    #[arg(long, value_name = "MIB", conflicts_with = "agent",
          value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    pub memory: Option<u64>,
}

impl SeatArgs {
    /// Checks, before any game, that a player is given and that a named
    /// built-in one is among `known`, so that a typo costs no player run.
    pub fn check(&self, known: &[&str]) -> anyhow::Result<()> {
        match (&self.player, &self.agent) {
            (None, None) => anyhow::bail!("give --player CMD or --agent NAME"),
            (None, Some(name)) => check_agent("--agent", name, known),
            _ => Ok(()),
        }
    }
}

/// Parses a player's command: anything `sh -c` runs, but not nothing.
pub fn command(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        Err("an empty command runs no player".into())
    } else {
        Ok(text.to_string())
    }
}

/// How an external player's stderr is handled: captured for fault reasons, or passed through.
pub fn stderr_mode(pass_through: bool) -> tabula_verify::process::StderrMode {
    use tabula_verify::process::StderrMode;
    if pass_through {
        StderrMode::Inherit
    } else {
        StderrMode::Capture
    }
}

/// The seed of a run.
#[derive(Args, Clone, Debug)]
pub struct SeedArgs {
    /// Seed of every random stream of the run; the same seed gives the same report.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// How many games.
#[derive(Args, Clone, Debug)]
pub struct GamesArgs {
    /// Games to play (per case, per player, as the game's help says).
    #[arg(long, value_parser = positive, default_value = "1")]
    pub games: usize,
}

/// A time limit.
#[derive(Args, Clone, Debug)]
pub struct TimeoutArgs {
    /// Time limit in seconds (what it covers is the game's own rule: see its help). A player that closes its output, or exits, is seen at once; one that closes its output and runs on is given up to 5 s more to exit before it is said to have closed it.
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value = "10", allow_negative_numbers = true)]
    pub timeout: Duration,
}

/// `--timings`: a sweep's measured times, left out by default so that the
/// same options give the same report on every run and machine.
#[derive(Args, Clone, Debug)]
pub struct TimingsArgs {
    /// Add the time each table build or search took (a column before the
    /// verdict, and in the JSON); the report then differs from run to run.
    #[arg(long)]
    pub timings: bool,
}

/// `--strict`: a referee's exit status tells a faulting player from a weak one.
#[derive(Args, Clone, Debug)]
pub struct StrictArgs {
    /// Exit with status 1 when the tested player lost any game to a fault of its
    /// own (a crash, a time-out, a malformed or illegal answer), as Tothello's
    /// checker does on a wrong answer; without it the status is 0 whenever the
    /// games were refereed.
    #[arg(long)]
    pub strict: bool,
}

impl StrictArgs {
    /// The status of a run whose report is written: 1 with `--strict` and a
    /// fault (said on stderr), else `reported`.
    pub fn status(
        &self,
        reported: crate::registry::Outcome,
        faults: usize,
    ) -> crate::registry::Outcome {
        let status = reported?;
        if self.strict && faults > 0 {
            let games = if faults == 1 { "game" } else { "games" };
            // A closed stderr must not turn the status into a panic.
            let line = format!("--strict: the tested player lost {faults} {games} to faults\n");
            let _ = std::io::stderr().write_all(line.as_bytes());
            return Ok(std::process::ExitCode::from(1));
        }
        Ok(status)
    }
}

/// A report's JSON.
#[derive(Args, Clone, Debug)]
pub struct JsonArgs {
    /// Also write the report as JSON to this file; `-` writes the JSON alone to stdout.
    #[arg(long, value_name = "FILE", value_parser = output_path)]
    pub json: Option<OutputPath>,
}

/// The options that end every referee's command line, in this order:
/// `--seed`, `--timeout`, `--log` and `--transcript`, `--json`, `--strict`.
#[derive(Args, Clone, Debug)]
pub struct RefereeRunArgs {
    #[command(flatten)]
    pub seed: SeedArgs,
    #[command(flatten)]
    pub timeout: TimeoutArgs,
    #[command(flatten)]
    pub log: super::LogArgs,
    #[command(flatten)]
    pub json: JsonArgs,
    #[command(flatten)]
    pub strict: StrictArgs,
}
