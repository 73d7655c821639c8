//! Value parsers of the options: counts, shares, seconds, spans, and the checks of lists.

use std::time::Duration;

/// The most a count may ask for: the schedule of a run is held in memory, and
/// a million games of a case is already days of play.
pub const MAX_COUNT: usize = 1_000_000;

/// Parses a positive count (`--games`, `--cases`): zero work is an error, and
/// so is more than [`MAX_COUNT`].
pub fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) if n > MAX_COUNT => Err(format!("must be at most {MAX_COUNT}")),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("'{text}': {e}")),
    }
}

/// Parses a count that may be zero (`referee tothello --cases 0`: the
/// statement's examples alone), and at most [`MAX_COUNT`].
pub fn count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n > MAX_COUNT => Err(format!("must be at most {MAX_COUNT}")),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("'{text}': {e}")),
    }
}

/// Refuses a list option that names an item twice (`--players a,a`): the
/// report would count the item's games twice under one name.
pub fn given_once<T: PartialEq + std::fmt::Display>(flag: &str, items: &[T]) -> anyhow::Result<()> {
    match items
        .iter()
        .enumerate()
        .find(|(i, item)| items[..*i].contains(item))
    {
        Some((_, twice)) => anyhow::bail!("{flag}: '{twice}' is given twice"),
        None => Ok(()),
    }
}

/// Checks a list of players given to `flag`: each one known, none twice.
pub fn known_players<T: AsRef<str>>(flag: &str, names: &[T], known: &[&str]) -> anyhow::Result<()> {
    for name in names {
        let name = name.as_ref();
        if !known.contains(&name) {
            anyhow::bail!(
                "{flag}: unknown player '{name}' (known: {})",
                known.join(", ")
            );
        }
    }
    let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    given_once(flag, &names)
}

/// Parses a share of instances or games: a number from 0 to 1.
pub fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        Ok(_) => Err("must be a share from 0 to 1".into()),
        Err(e) => Err(format!("'{text}': {e}")),
    }
}

/// Parses a time limit in seconds: positive, finite, at most a day.
pub fn seconds(text: &str) -> Result<Duration, String> {
    tabula_verify::process::parse_seconds(text)
}

/// Parses a search's time limit in seconds: any number from 0 up, with no
/// cap (an exact search may be given days); one beyond any clock (`inf`)
/// is no limit.
pub fn search_limit(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs >= 0.0 => Ok(Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX)),
        Ok(_) => Err("must be a number of seconds from 0 up".into()),
        Err(e) => Err(format!("'{text}': {e}")),
    }
}

/// An inclusive range of whole numbers on the command line: `5..9` or `7`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The first value.
    pub first: u32,
    /// The last value (at least `first`).
    pub last: u32,
}

impl Span {
    /// The values, in order.
    pub fn values(self) -> std::ops::RangeInclusive<u32> {
        self.first..=self.last
    }

    /// How many values.
    pub fn len(self) -> u64 {
        u64::from(self.last - self.first) + 1
    }
}

/// Parses `a..b` (inclusive, `a <= b`) or a single number.
pub fn span(text: &str) -> Result<Span, String> {
    let number = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|e| format!("'{}': {e}", t.trim()))
    };
    let (first, last) = match text.split_once("..") {
        Some((a, b)) => (number(a)?, number(b.trim_start_matches('='))?),
        None => {
            let n = number(text)?;
            (n, n)
        }
    };
    if first > last {
        return Err(format!("'{text}': the range is empty ({first} > {last})"));
    }
    Ok(Span { first, last })
}
