//! Nim's line protocol, both ends.

use tabula_solver::nim::Nim;

use crate::protocol::Request;
use crate::wire::{Incoming, Wire};

/// The line protocol: `take <heap>` asks for a move, answered by the count taken.
#[derive(Clone, Copy, Debug, Default)]
pub struct NimWire;

impl Wire<Nim> for NimWire {
    fn move_request(&mut self, view: &Nim) -> String {
        format!("take {}", view.heap)
    }

    fn decode_answer(&mut self, _view: &Nim, line: &str) -> Result<u8, String> {
        line.trim().parse().map_err(|_| {
            format!(
                "expected a count of stones, got '{}'",
                crate::wire::short(line)
            )
        })
    }

    fn decode_request(&mut self, line: &str) -> Result<Incoming<Nim>, String> {
        let mut req = Request::parse(line)?;
        match req.method {
            "take" => {
                let heap = req.int("heap")?;
                req.finish()?;
                let heap = u32::try_from(heap)
                    .ok()
                    .filter(|&h| h > 0)
                    .ok_or_else(|| format!("bad heap {heap}"))?;
                Ok(Incoming::Move {
                    start: None,
                    observed: Vec::new(),
                    view: Nim::new(heap),
                })
            }
            other => Err(format!("unknown method '{}'", crate::wire::short(other))),
        }
    }

    fn encode_answer(&mut self, _view: &Nim, mv: u8) -> String {
        mv.to_string()
    }
}
