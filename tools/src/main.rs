//! `tabula`: build game tables, query them, play, referee and verify.
//!
//! Thin wiring over the library crates: each verb is a subcommand whose own
//! subcommand names the game, and each game's arguments and run functions live
//! in that game's module here.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod ioiwari;
mod progress;
mod table_cmds;
mod tonga;
mod tothello;

/// Exact solvers, tables, players and referees for small competition games.
#[derive(Parser)]
#[command(name = "tabula", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve a game's state space and write its table file.
    #[command(subcommand)]
    Build(BuildGame),
    /// Look up positions in a game's table.
    #[command(subcommand)]
    Query(QueryGame),
    /// Print a table file's header and metadata.
    Info(table_cmds::InfoArgs),
    /// Verify a table file's header, checksums and records.
    Check(table_cmds::CheckArgs),
    /// Play a game over its dialogue (stdin/stdout) or against a person.
    #[command(subcommand)]
    Play(PlayGame),
    /// Referee games against a player over its original protocol.
    #[command(subcommand)]
    Referee(RefereeGame),
    /// Answer requests of the line protocol on stdin/stdout.
    #[command(subcommand)]
    Serve(ServeGame),
    /// Measure how the built-in agents fare and print a report.
    #[command(subcommand)]
    Verify(VerifyGame),
    /// PseudoTonga rules: score a board, list the server's moves.
    #[command(subcommand)]
    Tonga(tonga::TongaCommand),
}

#[derive(Subcommand)]
enum BuildGame {
    /// Every one of the 6^7 Ioiwari boards.
    Ioiwari(ioiwari::BuildArgs),
    /// Every PseudoTonga 4x4 position reachable with Black first.
    Tonga(tonga::BuildArgs),
}

#[derive(Subcommand)]
enum QueryGame {
    /// Value and optimal moves of an Ioiwari board.
    Ioiwari(ioiwari::QueryArgs),
    /// Exact value and optimal squares of a PseudoTonga 4x4 board read on stdin.
    Tonga(tonga::QueryArgs),
    /// bestMove and the solver's value and move for a Tothello position.
    Tothello(tothello::QueryArgs),
}

#[derive(Subcommand)]
enum PlayGame {
    /// Ioiwari's player 1 over the IOI dialogue on stdin/stdout.
    Ioiwari(ioiwari::PlayArgs),
    /// Play Tothello against the solver in the terminal.
    Tothello(tothello::PlayArgs),
}

#[derive(Subcommand)]
enum RefereeGame {
    /// Ioiwari's optimal player 2 (ioiwari2) against player 1.
    Ioiwari(ioiwari::RefereeArgs),
    /// The PseudoTonga server against a player, with the TopCoder scoring.
    Tonga(tonga::RefereeArgs),
    /// Check a Tothello bestMove program over the line protocol.
    Tothello(tothello::RefereeArgs),
}

#[derive(Subcommand)]
enum ServeGame {
    /// A built-in PseudoTonga player over the init/move/end line protocol.
    Tonga(tonga::ServeArgs),
    /// Tothello's bestMove requests.
    Tothello(tothello::ServeArgs),
}

#[derive(Subcommand)]
enum VerifyGame {
    /// The official results table: optimal, greedy and random play per instance.
    Ioiwari(ioiwari::VerifyArgs),
    /// Mean case score per board side of each built-in player against the server.
    Tonga(tonga::VerifyArgs),
    /// Tournament of the built-in Tothello players from seeded random openings.
    Tothello(tothello::VerifyArgs),
}

/// How a referee treats its player's stderr: `--player-stderr` lets it through.
fn stderr_mode(pass_through: bool) -> tabula_verify::process::StderrMode {
    use tabula_verify::process::StderrMode;
    if pass_through {
        StderrMode::Inherit
    } else {
        StderrMode::Capture
    }
}

/// Prints a report's Markdown on stdout and, when asked, writes it as JSON too.
fn emit_report(
    markdown: &str,
    json: Option<&std::path::Path>,
    report: &impl serde::Serialize,
) -> anyhow::Result<()> {
    print!("{markdown}");
    if let Some(path) = json {
        tabula_verify::report::write_json(path, report)?;
    }
    Ok(())
}

/// What a finished command tells the shell.
pub type Outcome = anyhow::Result<ExitCode>;

fn run(cli: Cli) -> Outcome {
    match cli.command {
        Command::Build(BuildGame::Ioiwari(args)) => ioiwari::build(args),
        Command::Query(QueryGame::Ioiwari(args)) => ioiwari::query(args),
        Command::Query(QueryGame::Tothello(args)) => tothello::query(args),
        Command::Info(args) => table_cmds::info(args),
        Command::Check(args) => table_cmds::check(args),
        Command::Play(PlayGame::Ioiwari(args)) => ioiwari::play(args),
        Command::Play(PlayGame::Tothello(args)) => tothello::play(args),
        Command::Referee(RefereeGame::Ioiwari(args)) => ioiwari::referee(args),
        Command::Serve(ServeGame::Tonga(args)) => tonga::serve(args),
        Command::Build(BuildGame::Tonga(args)) => tonga::build(args),
        Command::Query(QueryGame::Tonga(args)) => tonga::query(args),
        Command::Referee(RefereeGame::Tonga(args)) => tonga::referee(args),
        Command::Verify(VerifyGame::Tonga(args)) => tonga::verify(args),
        Command::Tonga(command) => tonga::tonga(command),
        Command::Referee(RefereeGame::Tothello(args)) => tothello::referee(args),
        Command::Serve(ServeGame::Tothello(args)) => tothello::serve(args),
        Command::Verify(VerifyGame::Ioiwari(args)) => ioiwari::verify(args),
        Command::Verify(VerifyGame::Tothello(args)) => tothello::verify(args),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(error) => {
            // One line: the whole context chain, joined by colons.
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}
