//! `tabula explore GAME`: a local web server with an analysis board. The
//! page (`page.html`, self-contained) asks the JSON API (`docs/formats/explore-api.md`)
//! for each position's value and its moves' values.
//!
//! The server is a few lines over `std::net` and a fixed pool of threads
//! rather than a framework: the API is three small routes, and no new crate
//! (tiny_http, or axum with tokio and hyper) is added to every CI build.

mod http;

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use anyhow::{Context, anyhow};
use clap::Args;
use tabula_verify::analysis::Analyst;

use crate::out::outln;
use crate::registry::{GameEntry, Outcome};

/// Arguments of `tabula explore`.
#[derive(Args)]
pub struct ExploreArgs {
    /// The game (`tabula games` lists them).
    game: String,
    /// A table file to take exact values from (repeat for several variants).
    #[arg(long, value_name = "FILE")]
    table: Vec<PathBuf>,
    /// The port to listen on (0: any free port).
    #[arg(long, default_value_t = 8765)]
    port: u16,
    /// The address to listen on; loopback unless given.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    listen: std::net::IpAddr,
    /// A game log (`--log FILE` of a referee or verify) whose games the page opens, with analyze's marks.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Seconds of search a request may take; the answer then says what it did not prove.
    #[arg(long, default_value = "2", value_name = "SECONDS", value_parser = crate::common::seconds)]
    time_limit: Duration,
    /// Built-in players choosing at once, at most (a test's knob: with 0 every
    /// reply is refused as busy).
    #[arg(long, hide = true, default_value_t = http::CHOOSING)]
    max_choosing: usize,
}

/// What every request handler shares.
pub struct Server {
    /// The game's name.
    pub game: &'static str,
    /// Its analyst.
    pub analyst: Box<dyn Analyst>,
    /// The lines of `--log`, read once at the start.
    pub log: Vec<String>,
    /// The time limit of a request.
    pub time_limit: Duration,
    /// The game's built-in players, as registered.
    pub players: Vec<&'static str>,
    /// Built-in players choosing now (some perhaps past their request's time limit).
    pub choosing: AtomicUsize,
    /// The most built-in players choosing at once.
    pub max_choosing: usize,
}

/// Serves the page and the API until killed.
pub fn explore(args: ExploreArgs, games: &[GameEntry]) -> Outcome {
    let entry = games
        .iter()
        .find(|g| g.name == args.game || g.aliases.contains(&args.game.as_str()))
        .ok_or_else(|| {
            anyhow!(
                "'{}': no such game; the games are {}",
                tabula_verify::protocol::escape_controls(&args.game),
                crate::registry::game_names(games, None)
            )
        })?;
    let make = entry
        .analyst
        .ok_or_else(|| anyhow!("{}: no analysis board", entry.name))?;
    let analyst = make(&args.table)?;
    let log = match &args.log {
        Some(path) => {
            let (file, metadata) = crate::replay::open_log(path)?;
            let text = crate::replay::read_capped(file, &metadata, path)?;
            let lines: Vec<String> = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(String::from)
                .collect();
            // Refused whole at the start, as `analyze` refuses it.
            for (k, line) in tabula_verify::record::log_lines(&text).enumerate() {
                line.map_err(|e| anyhow!(e).context(format!("{}: not a game log", path.display())))
                    .with_context(|| format!("game {k}"))?;
            }
            lines
        }
        None => Vec::new(),
    };
    let address = SocketAddr::new(args.listen, args.port);
    let listener = TcpListener::bind(address).with_context(|| format!("--listen {address}"))?;
    let bound = listener.local_addr()?;
    outln!("tabula explore {}: http://{bound}/", entry.name)?;
    std::io::Write::flush(&mut crate::out::data_stdout())?;
    let server = Arc::new(Server {
        game: entry.name,
        analyst,
        log,
        time_limit: args.time_limit,
        players: entry.agents.clone(),
        choosing: AtomicUsize::new(0),
        max_choosing: args.max_choosing,
    });
    http::serve(listener, server);
    Ok(ExitCode::SUCCESS)
}
