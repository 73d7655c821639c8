//! What every game's [`Notation`](crate::record::Notation) shares: reading
//! the fields of a log's start and parameters. Each game's own notation is
//! `notation.rs` in its folder.

use serde_json::Value;

/// The field `name` of a log object.
pub(crate) fn field<'a>(value: &'a Value, name: &str) -> Result<&'a Value, String> {
    value.get(name).ok_or_else(|| format!("no field '{name}'"))
}

/// The count in field `name`.
pub(crate) fn uint(value: &Value, name: &str) -> Result<u64, String> {
    field(value, name)?
        .as_u64()
        .ok_or_else(|| format!("'{name}' is not a count"))
}

/// The string in field `name`.
pub(crate) fn text<'a>(value: &'a Value, name: &str) -> Result<&'a str, String> {
    field(value, name)?
        .as_str()
        .ok_or_else(|| format!("'{name}' is not a string"))
}

/// The list of strings in field `name`.
pub(crate) fn strings<'a>(value: &'a Value, name: &str) -> Result<Vec<&'a str>, String> {
    field(value, name)?
        .as_array()
        .and_then(|a| a.iter().map(Value::as_str).collect::<Option<Vec<_>>>())
        .ok_or_else(|| format!("'{name}' is not a list of strings"))
}
