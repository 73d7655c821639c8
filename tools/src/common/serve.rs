//! Stdio: a built-in player served over stdin/stdout, a person's game at the terminal, capped reads.

use anyhow::{Context, bail};
use tabula_verify::terminal::PersonEnd;

/// Serves `session` on stdin/stdout until end of input.
pub fn serve_stdio<G, W, A>(
    mut session: tabula_verify::wire::Session<G, W, A>,
) -> crate::registry::Outcome
where
    G: tabula_solver::Game,
    W: tabula_verify::wire::Wire<G>,
    A: tabula_verify::agent::Agent<G>,
{
    use tabula_verify::protocol::DialogueError;
    match session.serve(std::io::stdin().lock(), crate::out::data_stdout()) {
        Ok(()) => Ok(std::process::ExitCode::SUCCESS),
        // Stdout's errors say so themselves (and a closed one ends quietly).
        Err(DialogueError::Io(e)) if crate::out::is_stdout_error(&e) => Err(e.into()),
        Err(e) => Err(anyhow::Error::new(e).context("stdin")),
    }
}

/// All of `reader` when it holds at most `max` bytes, `None` when it holds
/// more (of which only `max + 1` are read, so endless input cannot fill the
/// memory, and a file growing meanwhile cannot pass the cap).
pub fn read_at_most(reader: impl std::io::Read, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    reader.take(max + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

/// A person's game as a result: the final state, `None` after `quit`, or an
/// error for an input that ended before the game did.
pub fn person_end<G>(end: std::io::Result<PersonEnd<G>>) -> anyhow::Result<Option<G>> {
    match end.context("the terminal")? {
        PersonEnd::Finished(end) => Ok(Some(end)),
        PersonEnd::Quit => Ok(None),
        PersonEnd::InputEnded => bail!("stdin: the input ended before the game did"),
    }
}

/// Ends `tabula play <game>`: a finished game or `quit` is a success.
pub fn finish_play<G>(end: std::io::Result<PersonEnd<G>>) -> crate::registry::Outcome {
    person_end(end)?;
    Ok(std::process::ExitCode::SUCCESS)
}
