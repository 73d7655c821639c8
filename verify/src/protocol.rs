//! The line protocol shared by the TopCoder-style games.
//!
//! A request is one line: the method name, then its arguments separated by
//! spaces. An int is written in decimal, a String as itself, and a String[] or
//! int[] as its length followed by its elements. An answer is one line: an int
//! in decimal, an int[] as its elements separated by spaces, a String as itself.
//! A request that cannot be answered gets one line starting `error:`.

use std::io::{self, BufRead, Write};
use std::str::SplitAsciiWhitespace;

/// Longest request line [`serve`] reads, in bytes; longer ones are refused unread.
pub const MAX_REQUEST: usize = 64 * 1024;

/// Characters of a bad input that an error quotes.
pub const QUOTED_CHARS: usize = 40;

/// Longest error message [`serve`] writes, in characters.
pub const MAX_ERROR_CHARS: usize = 200;

/// What [`read_line_at_most`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRead {
    /// A line, in the buffer without its newline (a last line may have none).
    Line,
    /// A line longer than the limit; the rest of it is still unread.
    TooLong,
    /// The end of the input.
    End,
}

/// Reads one line of at most `max` bytes (besides its newline) into `line`,
/// which is cleared first. Never reads more than `max + 1` bytes, so a line
/// without end cannot fill the memory.
pub fn read_line_at_most(
    input: &mut impl BufRead,
    max: usize,
    line: &mut Vec<u8>,
) -> io::Result<LineRead> {
    use std::io::Read;
    line.clear();
    if input.take(max as u64 + 1).read_until(b'\n', line)? == 0 {
        return Ok(LineRead::End);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        Ok(LineRead::Line)
    } else if line.len() > max {
        Ok(LineRead::TooLong)
    } else {
        Ok(LineRead::Line)
    }
}

/// `text`, or its first `max` characters and `…` if it is longer, with
/// control characters escaped, so that a message stays one printable line.
fn cut(text: &str, max: usize) -> String {
    let (kept, more) = match text.char_indices().nth(max) {
        Some((end, _)) => (&text[..end], "…"),
        None => (text, ""),
    };
    let mut out = escape_controls(kept);
    out.push_str(more);
    out
}

/// Untrusted text whole, its control characters escaped (`\n`, `\u{1b}`), so
/// that it prints as it is: no line of its own, no terminal escape, and no
/// invisible or reordering character (line separators, zero widths,
/// right-to-left overrides).
pub fn escape_controls(text: &str) -> String {
    text.chars()
        .map(|c| match is_hidden(c) {
            true => c.escape_default().to_string(),
            false => c.to_string(),
        })
        .collect()
}

/// Whether `c` does not show as itself: a control, a line or paragraph
/// separator, a zero-width or direction-formatting character, a byte-order mark.
pub(crate) fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{2028}' | '\u{2029}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

/// An error message as [`serve`] writes it: at most [`MAX_ERROR_CHARS`]
/// characters, control characters escaped.
pub fn error_text(message: &str) -> String {
    cut(message, MAX_ERROR_CHARS)
}

/// At most [`QUOTED_CHARS`] characters of `text` (and `…`), to quote it in an error.
pub fn excerpt(text: &str) -> String {
    cut(text, QUOTED_CHARS)
}

/// Why a request line could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// The line holds nothing.
    #[error("empty request")]
    Empty,
    /// An argument is missing.
    #[error("missing argument {0}")]
    Missing(String),
    /// An int argument is not a decimal number.
    #[error("argument {name}: '{text}' is not an int")]
    NotAnInt {
        /// The argument.
        name: String,
        /// What was there instead.
        text: String,
    },
    /// An array length is negative or larger than the line.
    #[error("argument {name}: bad array length '{text}'")]
    BadLength {
        /// The argument.
        name: String,
        /// What was there instead.
        text: String,
    },
    /// An array's length is more than the words left on the line.
    #[error("argument {name}: length {len}, but {left} {follow}")]
    TooShort {
        /// The argument.
        name: String,
        /// The length given.
        len: usize,
        /// The words left on the line.
        left: usize,
        /// `word follows` or `words follow`.
        follow: &'static str,
    },
    /// Words are left after the last argument.
    #[error("unexpected extra argument '{0}'")]
    Extra(String),
}

/// The wires report their errors as text, so a request's error converts
/// with `?` where a wire decodes.
impl From<ProtocolError> for String {
    fn from(error: ProtocolError) -> String {
        error.to_string()
    }
}

/// One request line, read argument by argument.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    /// The method name.
    pub method: &'a str,
    words: SplitAsciiWhitespace<'a>,
}

impl<'a> Request<'a> {
    /// Splits a request line into its method and arguments.
    pub fn parse(line: &'a str) -> Result<Request<'a>, ProtocolError> {
        let mut words = line.split_ascii_whitespace();
        let method = words.next().ok_or(ProtocolError::Empty)?;
        Ok(Request { method, words })
    }

    /// The next argument as a String.
    pub fn string(&mut self, name: &str) -> Result<&'a str, ProtocolError> {
        self.words
            .next()
            .ok_or_else(|| ProtocolError::Missing(name.to_string()))
    }

    /// The next argument as an int.
    pub fn int(&mut self, name: &str) -> Result<i64, ProtocolError> {
        let text = self.string(name)?;
        text.parse().map_err(|_| ProtocolError::NotAnInt {
            name: name.to_string(),
            text: excerpt(text),
        })
    }

    fn length(&mut self, name: &str) -> Result<usize, ProtocolError> {
        let text = self.string(name)?;
        let bad = || ProtocolError::BadLength {
            name: name.to_string(),
            text: excerpt(text),
        };
        let len: usize = text.parse().map_err(|_| bad())?;
        // No array can be longer than what is left of the line.
        let left = self.words.clone().count();
        if len > left {
            return Err(ProtocolError::TooShort {
                name: name.to_string(),
                len,
                left,
                follow: if left == 1 {
                    "word follows"
                } else {
                    "words follow"
                },
            });
        }
        Ok(len)
    }

    /// The next argument as a String[]: its length, then its elements.
    pub fn strings(&mut self, name: &str) -> Result<Vec<&'a str>, ProtocolError> {
        let len = self.length(name)?;
        // `length` checked that enough words are left.
        Ok(self.words.by_ref().take(len).collect())
    }

    /// The next argument as an int[]: its length, then its elements.
    pub fn ints(&mut self, name: &str) -> Result<Vec<i64>, ProtocolError> {
        let len = self.length(name)?;
        let mut values = Vec::with_capacity(len);
        for (i, text) in self.words.by_ref().take(len).enumerate() {
            // The element's name is only spelled out when it is wrong.
            let value = text.parse().map_err(|_| ProtocolError::NotAnInt {
                name: format!("{name}[{i}]"),
                text: excerpt(text),
            })?;
            values.push(value);
        }
        Ok(values)
    }

    /// Checks that no argument is left over.
    pub fn finish(mut self) -> Result<(), ProtocolError> {
        match self.words.next() {
            Some(extra) => Err(ProtocolError::Extra(excerpt(extra))),
            None => Ok(()),
        }
    }
}

/// Formats an int[] answer: the elements separated by spaces.
pub fn format_ints(values: &[i64]) -> String {
    let words: Vec<String> = values.iter().map(i64::to_string).collect();
    words.join(" ")
}

/// What a handler does with one request line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Answer with this line.
    Line(String),
    /// No answer (a move that is only noted).
    Silent,
    /// The dialogue is over after this answer, if any.
    Last(Option<String>),
}

/// Why a dialogue stopped early.
#[derive(Debug, thiserror::Error)]
pub enum DialogueError {
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A request was refused and the dialogue treats that as the end.
    #[error("{0}")]
    Refused(String),
}

/// Answers every request line of `input` on `output` until end of input.
///
/// Each line gets the handler's answer, or `error: <message>` when the handler
/// refuses it; the output is flushed after every answer, and a bad line never
/// stops the service. A blank line is answered `error: empty request`. A line
/// longer than [`MAX_REQUEST`] bytes is answered with an error as soon as that
/// is known, and the rest of it is skipped without being kept. Error messages
/// are cut to [`MAX_ERROR_CHARS`] characters.
pub fn serve<R: BufRead, W: Write>(
    input: R,
    output: W,
    mut handler: impl FnMut(&str) -> Result<String, String>,
) -> io::Result<()> {
    match serve_dialogue(input, output, false, false, |line| {
        handler(line).map(Reply::Line)
    }) {
        Ok(()) => Ok(()),
        Err(DialogueError::Io(e)) => Err(e),
        // Without stop_on_error every refusal is answered, never returned.
        Err(DialogueError::Refused(message)) => Err(io::Error::other(message)),
    }
}

/// [`serve`] for any dialogue: answers may be silent or last, and with
/// `stop_on_error` a refused request (an overlong or blank line too) ends the
/// dialogue with that error instead of an `error:` line. With `skip_blank` a
/// blank line is passed over unanswered, as `scanf("%d")` would.
pub fn serve_dialogue<R: BufRead, W: Write>(
    mut input: R,
    mut output: W,
    stop_on_error: bool,
    skip_blank: bool,
    mut handler: impl FnMut(&str) -> Result<Reply, String>,
) -> Result<(), DialogueError> {
    let mut line = Vec::new();
    loop {
        match read_line_at_most(&mut input, MAX_REQUEST, &mut line)? {
            LineRead::End => return Ok(()),
            // A last line without its newline is still a request.
            LineRead::Line => {
                if answer(&line, &mut output, stop_on_error, skip_blank, &mut handler)? {
                    return Ok(());
                }
            }
            LineRead::TooLong => {
                let message = format!("request line longer than {MAX_REQUEST} bytes");
                if stop_on_error {
                    return Err(DialogueError::Refused(message));
                }
                writeln!(output, "error: {message}")?;
                output.flush()?;
                input.skip_until(b'\n')?;
            }
        }
    }
}

/// Answers one request line (without its newline); returns whether it was the last.
fn answer(
    line: &[u8],
    output: &mut impl Write,
    stop_on_error: bool,
    skip_blank: bool,
    handler: &mut impl FnMut(&str) -> Result<Reply, String>,
) -> Result<bool, DialogueError> {
    let reply = match std::str::from_utf8(line) {
        Err(_) => Err("request is not valid UTF-8".to_string()),
        Ok(text) => {
            let text = text.trim_end_matches('\r');
            if text.trim().is_empty() && skip_blank {
                Ok(Reply::Silent)
            } else if text.trim().is_empty() {
                Err(ProtocolError::Empty.to_string())
            } else {
                handler(text)
            }
        }
    };
    let (answer, last) = match reply {
        Ok(Reply::Line(answer)) => (Some(answer), false),
        Ok(Reply::Silent) => (None, false),
        Ok(Reply::Last(answer)) => (answer, true),
        Err(message) if stop_on_error => return Err(DialogueError::Refused(message)),
        Err(message) => (Some(format!("error: {}", error_text(&message))), false),
    };
    if let Some(answer) = answer {
        writeln!(output, "{answer}")?;
        output.flush()?;
    }
    Ok(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ints_strings_and_arrays() {
        let mut req = Request::parse("bestMove 2 C2 C3 0 Black 3 1 -2 3 7").unwrap();
        assert_eq!(req.method, "bestMove");
        assert_eq!(req.strings("red").unwrap(), vec!["C2", "C3"]);
        assert_eq!(req.strings("black").unwrap(), Vec::<&str>::new());
        assert_eq!(req.string("turn").unwrap(), "Black");
        assert_eq!(req.ints("xs").unwrap(), vec![1, -2, 3]);
        assert_eq!(req.int("n").unwrap(), 7);
        req.finish().unwrap();
    }

    #[test]
    fn rejects_malformed_arguments() {
        assert_eq!(Request::parse("   ").unwrap_err(), ProtocolError::Empty);
        let mut req = Request::parse("m 3 a b").unwrap();
        let short = req.strings("xs").unwrap_err();
        assert!(matches!(
            short,
            ProtocolError::TooShort {
                len: 3,
                left: 2,
                ..
            }
        ));
        assert_eq!(
            short.to_string(),
            "argument xs: length 3, but 2 words follow"
        );
        let mut req = Request::parse("m x").unwrap();
        assert!(matches!(req.int("n"), Err(ProtocolError::NotAnInt { .. })));
        let mut req = Request::parse("m -1").unwrap();
        assert!(matches!(
            req.ints("xs"),
            Err(ProtocolError::BadLength { .. })
        ));
        let mut req = Request::parse("m").unwrap();
        assert_eq!(req.int("n"), Err(ProtocolError::Missing("n".into())));
        let req = Request::parse("m extra").unwrap();
        assert_eq!(req.finish(), Err(ProtocolError::Extra("extra".into())));
    }

    /// Serves `input` with a handler that adds two ints (`add A B`), showing
    /// `seen` each line it is given; the answers, one a line.
    fn serve_adding(input: impl io::BufRead, mut seen: impl FnMut(&str)) -> Vec<String> {
        let mut output = Vec::new();
        serve(input, &mut output, |line| {
            seen(line);
            let mut req = Request::parse(line)?;
            let a = req.int("a")?;
            let b = req.int("b")?;
            req.finish()?;
            Ok((a + b).to_string())
        })
        .unwrap();
        let text = String::from_utf8(output).unwrap();
        text.lines().map(String::from).collect()
    }

    #[test]
    fn serve_answers_every_line_and_keeps_going_after_errors() {
        let input = "add 1 2\nadd x\n\nadd 2 3 4\n \r\nadd -5 5\n";
        let lines = serve_adding(input.as_bytes(), |_| {});
        assert_eq!(
            lines,
            vec![
                "3",
                "error: argument a: 'x' is not an int",
                "error: empty request",
                "error: unexpected extra argument '4'",
                "error: empty request",
                "0"
            ]
        );
    }

    #[test]
    fn formats_int_arrays() {
        assert_eq!(format_ints(&[3, -1, 0]), "3 -1 0");
        assert_eq!(format_ints(&[]), "");
    }

    #[test]
    fn serve_refuses_an_overlong_line_without_echoing_it() {
        use std::io::Read;
        let long = io::repeat(b'7').take(10 * MAX_REQUEST as u64);
        let exact = format!("\nadd 1 2\nadd {} 0\n", "0".repeat(MAX_REQUEST - 6));
        let input = io::BufReader::new(long.chain(exact.as_bytes()));
        let mut longest = 0;
        let lines = serve_adding(input, |line| longest = longest.max(line.len()));
        assert_eq!(
            lines,
            vec!["error: request line longer than 65536 bytes", "3", "0"]
        );
        assert_eq!(longest, MAX_REQUEST);
    }

    #[test]
    fn lines_are_read_up_to_their_limit_and_no_further() {
        let mut input = io::Cursor::new(&b"abcd\nabcde\nrest\nxy"[..]);
        let mut line = Vec::new();
        let mut next = || {
            let read = read_line_at_most(&mut input, 4, &mut line).unwrap();
            (read, String::from_utf8(line.clone()).unwrap())
        };
        // Exactly the limit, then one byte over it (its rest left unread).
        assert_eq!(next(), (LineRead::Line, "abcd".into()));
        assert_eq!(next(), (LineRead::TooLong, "abcde".into()));
        assert_eq!(next(), (LineRead::Line, "".into()));
        assert_eq!(next(), (LineRead::Line, "rest".into()));
        // A last line without its newline, then the end.
        assert_eq!(next(), (LineRead::Line, "xy".into()));
        assert_eq!(next(), (LineRead::End, "".into()));
    }

    #[test]
    fn serve_errors_escape_control_characters() {
        // A handler that quotes the request raw, as a game's parser may.
        let input = "bestMove A\x1b[31m1\0 x\x07\n".as_bytes();
        let mut output = Vec::new();
        serve(input, &mut output, |line| {
            Err(format!("'{line}' is not a square"))
        })
        .unwrap();
        let text = String::from_utf8(output).unwrap();
        assert_eq!(
            text,
            "error: 'bestMove A\\u{1b}[31m1\\u{0} x\\u{7}' is not a square\n"
        );
        assert_eq!(excerpt("a\tb"), "a\\tb");
        // Characters that hide or reorder text are escaped too; others are kept.
        assert_eq!(
            escape_controls("\u{202e}x\u{2028}\u{200b}\u{feff}é→"),
            "\\u{202e}x\\u{2028}\\u{200b}\\u{feff}é→"
        );
    }

    #[test]
    fn errors_quote_only_a_prefix_of_bad_input() {
        let word = "é".repeat(1000);
        let line = format!("m {word} 1 {word}");
        let mut req = Request::parse(&line).unwrap();
        let error = req.int("n").unwrap_err().to_string();
        assert_eq!(
            error,
            format!("argument n: '{}…' is not an int", "é".repeat(40))
        );
        let mut req = Request::parse(&line).unwrap();
        let error = req.strings("xs").unwrap_err().to_string();
        assert!(error.chars().count() < 80, "{error}");
        let mut req = Request::parse(&line).unwrap();
        req.string("s").unwrap();
        req.int("n").unwrap();
        let error = req.finish().unwrap_err().to_string();
        assert!(error.chars().count() < 80, "{error}");
        let mut output = Vec::new();
        serve(line.as_bytes(), &mut output, |line| {
            Err(format!("bad '{line}'"))
        })
        .unwrap();
        let text = String::from_utf8(output).unwrap();
        assert!(text.chars().count() < 300, "{text}");
    }
}
