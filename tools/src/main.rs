//! `tabula`: build game tables, query them, play, referee and verify.
//!
//! Thin wiring over the library crates. Each game registers what it offers in
//! its own module ([`registry::GameEntry`]); the verbs `tabula <verb> <game>`
//! and the extras `tabula <game> <extra>` are built from [`GAMES`].

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, Command, FromArgMatches};
use tabula_verify::agent::RunAborted;

mod analyze;
mod batch;
mod common;
mod dominoes;
mod explore;
mod export;
mod ioiwari;
mod kalah;
mod line;
mod man;
mod memory;
mod nim;
mod out;
mod perft;
mod progress;
mod registry;
mod replay;
mod reversi;
mod schemas;
mod table_build;
mod table_cmds;
mod tonga;
mod tothello;

use registry::{GameEntry, Outcome};

/// Every game, one registration each.
const GAMES: &[fn() -> GameEntry] = &[
    ioiwari::entry,
    kalah::entry,
    kalah::endgame::entry,
    tothello::entry,
    tonga::entry,
    dominoes::entry,
    reversi::entry,
    nim::entry,
];

/// Arguments of `tabula completions`.
#[derive(Args)]
struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    shell: clap_complete::Shell,
}

/// Arguments of `tabula games`.
#[derive(Args)]
struct GamesArgs {}

fn cli(games: &[GameEntry]) -> Command {
    let root = Command::new("tabula")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Exact solvers, tables, players and referees for small competition games.")
        .propagate_version(true)
        .subcommand_required(true)
        .arg_required_else_help(true);
    registry::commands(root, games)
        .subcommand(
            table_cmds::InfoArgs::augment_args(Command::new("info"))
                .about("Print a table file's header and metadata"),
        )
        .subcommand(
            table_cmds::CheckArgs::augment_args(Command::new("check"))
                .about("Verify a table file's header, checksums and records"),
        )
        .subcommand(
            export::ExportArgs::augment_args(Command::new("export")).about(
                "Write every position of a table file with its value and optimal moves, \
                 a line of JSON each",
            ),
        )
        .subcommand(
            replay::ReplayArgs::augment_args(Command::new("replay"))
                .about("Replay a game log (--log) as one self-contained HTML page"),
        )
        .subcommand(
            analyze::AnalyzeArgs::augment_args(Command::new("analyze"))
                .about("Mark each move of a game log with its exact value, the best and the loss"),
        )
        .subcommand(
            explore::ExploreArgs::augment_args(Command::new("explore")).about(
                "Serve an analysis board on a local web page: every move with its exact value",
            ),
        )
        .subcommand(
            GamesArgs::augment_args(Command::new("games"))
                .about("List the games, the verbs and the built-in players each offers"),
        )
        .subcommand(
            CompletionsArgs::augment_args(Command::new("completions"))
                .about("Print a shell completion script"),
        )
        .subcommand(
            man::ManArgs::augment_args(Command::new("man"))
                .about("Print the man page tabula(1), as roff")
                .hide(true),
        )
        .subcommand(
            schemas::SchemasArgs::augment_args(Command::new("schemas"))
                .about("Write the JSON Schema of every command's --json report")
                .hide(true),
        )
}

fn run(games: &[GameEntry]) -> Outcome {
    let command = cli(games);
    let matches = match command.clone().try_get_matches() {
        Ok(matches) => matches,
        Err(error) => return parse_failure(error, games),
    };
    common::check_outputs(&command, &matches)?;
    if let Some(outcome) = registry::dispatch(games, &matches) {
        return outcome;
    }
    match matches.subcommand() {
        Some(("info", m)) => table_cmds::info(table_cmds::InfoArgs::from_arg_matches(m)?, games),
        Some(("check", m)) => table_cmds::check(table_cmds::CheckArgs::from_arg_matches(m)?, games),
        Some(("export", m)) => export::export(export::ExportArgs::from_arg_matches(m)?, games),
        Some(("replay", m)) => replay::replay(replay::ReplayArgs::from_arg_matches(m)?, games),
        Some(("analyze", m)) => analyze::analyze(analyze::AnalyzeArgs::from_arg_matches(m)?, games),
        Some(("explore", m)) => explore::explore(explore::ExploreArgs::from_arg_matches(m)?, games),
        Some(("games", _)) => {
            out::out!("{}", registry::listing(games))?;
            Ok(ExitCode::SUCCESS)
        }
        Some(("completions", m)) => {
            let args = CompletionsArgs::from_arg_matches(m)?;
            // Rendered first: clap_complete panics when its writer fails.
            let mut script = Vec::new();
            clap_complete::generate(
                args.shell,
                &mut cli(&visible_games()),
                "tabula",
                &mut script,
            );
            out::stdout().write_all(&script)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(("man", m)) => {
            let args = man::ManArgs::from_arg_matches(m)?;
            match args.dir {
                Some(dir) => man::write_pages(cli(&visible_games()), &dir)?,
                None => out::stdout().write_all(&man::top_page(cli(&visible_games()))?)?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(("schemas", m)) => {
            schemas::write(schemas::SchemasArgs::from_arg_matches(m)?)?;
            Ok(ExitCode::SUCCESS)
        }
        _ => unreachable!("clap requires a known subcommand"),
    }
}

/// The games but the hidden ones, which stay out of completions and the man
/// page as they do of help and listings.
fn visible_games() -> Vec<GameEntry> {
    GAMES
        .iter()
        .map(|entry| entry())
        .filter(|game| !game.hidden)
        .collect()
}

/// A command line clap did not take: help and version shown as clap shows
/// them, an error as one line (clap's first, without the usage and the hint).
fn parse_failure(error: clap::Error, games: &[GameEntry]) -> Outcome {
    use clap::error::ErrorKind;
    match error.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            if let Err(e) = error.print() {
                // Help goes to stdout (the missing-subcommand help to stderr,
                // whose failure there is no one to tell).
                if !error.use_stderr() {
                    return Err(out::stdout_error(e).into());
                }
            }
            Ok(ExitCode::from(error.exit_code() as u8))
        }
        kind => {
            let line = first_error_line(&with_arguments_escaped(&error.render().to_string()));
            Err(anyhow::anyhow!(match kind {
                ErrorKind::MissingSubcommand => without_hidden_games(&line, games),
                ErrorKind::InvalidSubcommand => with_game_names(line, games),
                _ => line,
            }))
        }
    }
}

/// Clap's message with each command-line argument (or value after `=`, or
/// element of a list) that holds control characters written escaped, as the other errors quote them:
/// a newline in a value would otherwise end the message's first line.
fn with_arguments_escaped(text: &str) -> String {
    use tabula_verify::protocol::escape_controls;
    let mut text = text.to_string();
    for arg in std::env::args_os().skip(1) {
        let arg = arg.to_string_lossy();
        let value = arg.split_once('=').map_or(&*arg, |(_, value)| value);
        // Lists (`--heaps 5,8`) are quoted element by element.
        for quoted in [&*arg, value].into_iter().chain(value.split(',')) {
            let escaped = escape_controls(quoted);
            if escaped != quoted && !quoted.is_empty() {
                text = text.replace(quoted, &escaped);
            }
        }
    }
    text
}

/// An unknown game after a verb (`tabula verify pseudotonga`), or as
/// `tabula <game> <extra>`'s first word: the message ends with the games' names.
fn with_game_names(line: String, games: &[GameEntry]) -> String {
    let first = std::env::args().nth(1).unwrap_or_default();
    let second = std::env::args().nth(2).unwrap_or_default();
    let quoted = |word: &str| line.contains(&format!("'{word}'"));
    if registry::VERBS.iter().any(|(verb, _)| *verb == first) && quoted(&second) {
        let names = registry::game_names(games, Some(&first));
        format!("{line}; the games of `tabula {first}`: {names}")
    } else if quoted(&first) {
        let names = registry::game_names(games, None);
        format!("{line}; `tabula --help` lists the verbs, and the games are {names}")
    } else {
        line
    }
}

/// Clap's list of the subcommands a verb needs names hidden ones and aliases
/// too; they are taken out of it.
fn without_hidden_games(line: &str, games: &[GameEntry]) -> String {
    let Some((head, rest)) = line.split_once("[subcommands: ") else {
        return line.to_string();
    };
    let Some((list, tail)) = rest.split_once(']') else {
        return line.to_string();
    };
    // Aliases too: the list names each game once, by its name.
    let hidden = |name: &str| {
        games
            .iter()
            .any(|g| (g.hidden && g.name == name) || g.aliases.contains(&name))
    };
    let shown: Vec<&str> = list.split(", ").filter(|name| !hidden(name)).collect();
    format!("{head}[subcommands: {}]{tail}", shown.join(", "))
}

/// Clap's message without `error: `, the usage and the hint: its first line,
/// with the indented lines right under it (`[possible values: ...]`) and its
/// tip (`a similar argument exists: '--games'`).
fn first_error_line(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    let mut line = first.strip_prefix("error: ").unwrap_or(first).to_string();
    for more in lines.by_ref().take_while(|l| l.starts_with(' ')) {
        line.push(' ');
        line.push_str(more.trim());
    }
    if let Some(tip) = lines.find_map(|l| l.trim().strip_prefix("tip: ")) {
        line.push_str(&format!(" ({tip})"));
    }
    line
}

/// The most characters of an error message (before its control characters
/// are escaped), after which its middle is cut.
const ERROR_CHARS_AT_MOST: usize = 1000;

/// `error: MESSAGE` as one printable line of bounded length: the arguments,
/// file names and file contents a message quotes may hold newlines, terminal
/// escapes or megabytes. Its middle is cut, since the start says which input
/// it is and the end what is wrong with it.
fn error_line(message: &str) -> String {
    format!("error: {}\n", one_line(message))
}

/// `message` escaped and, past [`ERROR_CHARS_AT_MOST`], cut in the middle.
fn one_line(message: &str) -> String {
    use tabula_verify::protocol::escape_controls;
    let chars = message.chars().count();
    if chars <= ERROR_CHARS_AT_MOST {
        return escape_controls(message);
    }
    // Cut before escaping, so that no escape is cut in two.
    let (head, tail) = (ERROR_CHARS_AT_MOST * 2 / 3, ERROR_CHARS_AT_MOST / 3);
    let cut = chars - head - tail;
    let start: String = message.chars().take(head).collect();
    let end: String = message.chars().skip(head + cut).collect();
    format!(
        "{}…({cut} characters)…{}",
        escape_controls(&start),
        escape_controls(&end)
    )
}

/// For a run that stopped early: where its records so far are, as the end
/// of its error line, or nothing.
fn where_the_records_are() -> String {
    let kept: Vec<String> = tabula_tables::atomic::kept_partials()
        .iter()
        .map(|path| path.display().to_string())
        .collect();
    match kept.is_empty() {
        true => String::new(),
        false => format!("; the records written so far are in {}", kept.join(", ")),
    }
}

/// The last words of a run stopped by a signal that leaves records behind
/// (said after the cleanups have left the files unfinished).
fn say_where_the_records_are(signal: i32) {
    let kept = where_the_records_are();
    if !kept.is_empty() {
        let name = tabula_tables::stop::signal_name(signal);
        let line = error_line(&format!("stopped by {name}{kept}"));
        let _ = std::io::stderr().write_all(line.as_bytes());
    }
}

fn main() -> ExitCode {
    // A write past the file size limit (`ulimit -f`) is then an error (EFBIG)
    // that names the file, not a signal that kills the run.
    #[cfg(unix)]
    // SAFETY: setting a signal to be ignored, before any thread is started.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    tabula_tables::stop::last_words(say_where_the_records_are);
    let games: Vec<GameEntry> = GAMES.iter().map(|entry| entry()).collect();
    // What is still buffered must reach stdout too, or the run failed.
    // A damaged table found in the middle of a game stops the run from deep
    // inside an agent; it ends here like any other error.
    let outcome = RunAborted::catch(|| run(&games));
    let outcome = outcome.unwrap_or_else(|aborted| Err(aborted.into()));
    let outcome = outcome.and_then(|code| {
        out::data_stdout().flush()?;
        Ok(code)
    });
    let kept = where_the_records_are();
    let line = match outcome {
        Ok(code) => return code,
        Err(error) if out::reader_went_away(&error) && kept.is_empty() => {
            return ExitCode::SUCCESS;
        }
        Err(error) if out::reader_went_away(&error) => {
            error_line(&format!("stdout was closed before the run ended{kept}"))
        }
        // One line: the whole context chain, joined by colons.
        Err(error) => error_line(&format!("{error:#}{kept}")),
    };
    // Written in one call: `eprintln!` writes a line in pieces, and MPI ranks
    // sharing a stderr then interleave them.
    let _ = std::io::stderr().write_all(line.as_bytes());
    ExitCode::from(2)
}
