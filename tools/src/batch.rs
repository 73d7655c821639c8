//! `query --batch`: positions from stdin, one a line, each answered with a
//! line of JSON, for every game that has a batch query.

use std::io::Write;

use anyhow::Context;
use serde::Serialize;
use tabula_tables::{LookupError, TableError};

/// A table lookup's result with anyhow's error, a damaged record's
/// [`TableError`] kept as the error itself so that [`answer_lines`] finds it.
pub trait LookedUp<T> {
    /// The value, or the lookup's error.
    fn looked_up(self) -> anyhow::Result<T>;
}

impl<T, E: std::error::Error + Send + Sync + 'static> LookedUp<T> for Result<T, LookupError<E>> {
    fn looked_up(self) -> anyhow::Result<T> {
        self.map_err(|error| match error {
            LookupError::Record(damaged) => damaged.into(),
            other => other.into(),
        })
    }
}

/// Whether `error` is a table's: a damaged record or an unreadable file.
fn is_table_failure(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| cause.is::<TableError>())
}

/// A `--batch` query: answers each non-blank line of stdin with one line of
/// JSON, `answer`'s, or `{"error":...,"input":...}` when it fails (the rest
/// are still answered). A line too long to be a position, or not UTF-8, is
/// answered with an error too, and never held whole. A damaged table is no
/// fault of a line: it ends the run with its error (status 2).
pub fn answer_lines<T: Serialize>(
    mut answer: impl FnMut(&str) -> anyhow::Result<T>,
) -> crate::registry::Outcome {
    answer_lines_from(
        std::io::stdin().lock(),
        &mut crate::out::stdout(),
        &mut answer,
    )
}

/// The longest line [`answer_lines`] reads: far above any game's position.
const MAX_LINE: usize = 1 << 16;

/// [`answer_lines`] on any input.
fn answer_lines_from<T: Serialize>(
    mut input: impl std::io::BufRead,
    output: &mut impl Write,
    answer: &mut impl FnMut(&str) -> anyhow::Result<T>,
) -> crate::registry::Outcome {
    use std::io::{BufRead, Read};
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        let limit = MAX_LINE as u64 + 1;
        if (&mut input)
            .take(limit)
            .read_until(b'\n', &mut bytes)
            .context("stdin")?
            == 0
        {
            return Ok(std::process::ExitCode::SUCCESS);
        }
        // Over the limit only when the read ended before the line did.
        let result = if bytes.len() > MAX_LINE && !bytes.ends_with(b"\n") {
            // Skip the rest of the line without keeping it; its start is shown.
            bytes.truncate(40);
            let mut rest = Vec::new();
            while !rest.ends_with(b"\n") {
                rest.clear();
                if (&mut input)
                    .take(limit)
                    .read_until(b'\n', &mut rest)
                    .context("stdin")?
                    == 0
                {
                    break;
                }
            }
            bytes.extend_from_slice(b"...");
            Err(anyhow::anyhow!(
                "a line of more than {MAX_LINE} bytes is no position"
            ))
        } else {
            match std::str::from_utf8(&bytes) {
                Ok(line) if line.trim().is_empty() => continue,
                Ok(line) => answer(line.trim_end_matches(['\n', '\r']))
                    .and_then(|found| Ok(serde_json::to_string(&found)?)),
                Err(_) => Err(anyhow::anyhow!("not UTF-8 text")),
            }
        };
        let json = match result {
            Err(e) if is_table_failure(&e) => return Err(e),
            result => result,
        };
        let json = json.unwrap_or_else(|e| {
            let shown = String::from_utf8_lossy(&bytes);
            let input = shown.trim_end_matches(['\n', '\r']);
            serde_json::json!({"input": input, "error": format!("{e:#}")}).to_string()
        });
        writeln!(output, "{json}")?;
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_LINE, answer_lines_from};

    #[test]
    fn lines_too_long_or_not_utf8_get_an_error_each_and_the_rest_are_answered() {
        let mut input = b"1 2\n\n".to_vec();
        input.extend(std::iter::repeat_n(b'7', MAX_LINE * 3));
        input.extend(b"\n\xff\xfe\r\n3 4\r\n5");
        let mut answered = Vec::new();
        let mut out = Vec::new();
        answer_lines_from(&input[..], &mut out, &mut |line: &str| {
            answered.push(line.to_string());
            Ok(line.len())
        })
        .unwrap();
        assert_eq!(answered, ["1 2", "3 4", "5"]);
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 5, "{out}");
        assert_eq!(lines[0], 3);
        let long = format!("{}...", "7".repeat(40));
        assert_eq!(lines[1]["input"], long.as_str());
        let error = lines[1]["error"].as_str().unwrap();
        assert!(error.contains("more than 65536 bytes"), "{error}");
        assert_eq!(lines[2]["error"], "not UTF-8 text");
        assert_eq!(lines[3], 3);
        assert_eq!(lines[4], 1);
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_answered_and_the_next_one_too() {
        let mut input = vec![b'8'; MAX_LINE];
        input.extend(b"\n9\n");
        let mut out = Vec::new();
        answer_lines_from(&input[..], &mut out, &mut |line: &str| Ok(line.len())).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), format!("{MAX_LINE}\n1\n"));
    }
}
