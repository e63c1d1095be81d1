//! Edits to plan files, for `plan --audit`. A session may `Write`/`Edit`
//! another session's plan file as freely as its own: the tool call looks the
//! same (PLAN-015). After a compaction only the session's BOUND plan comes back
//! in full (PLAN-016), so content parked in a plan it does not bind is lost to
//! it. Plan files are identified by joining each edited path against every
//! session's binding, never by guessing a plans directory (it is configurable,
//! PLAN-008). Structured mutations only: the four tools' path keys are quoted
//! JSON keys in the raw line, safe needles (PLAN-017); shell edits are not read.

use regex::bytes::Regex;

use crate::record::{parse_line, Parsed};
use crate::scan::json;
use crate::scan::lines::HitLines;

/// The file-mutation tools and their path key (PLAN-017).
const TOOLS: [(&str, &[u8]); 4] = [
    ("Write", b"file_path"),
    ("Edit", b"file_path"),
    ("MultiEdit", b"file_path"),
    ("NotebookEdit", b"notebook_path"),
];

fn path_keys() -> &'static Regex {
    crate::scan::re!(bytes r#""file_path"|"notebook_path""#)
}

/// One structured mutation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mutation {
    pub(crate) line: usize,
    pub(crate) tool: String,
    pub(crate) path: String,
}

/// Every structured file mutation the transcript `buf` made, in file order.
pub(crate) fn mutations(buf: &[u8]) -> Vec<Mutation> {
    let mut out = Vec::new();
    for (line, _) in HitLines::new(buf, path_keys()) {
        let Parsed::Record(rec) = parse_line(&line) else {
            continue;
        };
        if rec.kind() != "assistant" {
            continue;
        }
        for b in rec.blocks() {
            let name = b.name.as_deref().unwrap_or("");
            let Some((_, key)) = TOOLS.iter().find(|(t, _)| *t == name) else {
                continue;
            };
            if b.kind() != "tool_use" {
                continue;
            }
            let path = b
                .input
                .and_then(|i| json::field(i.get().as_bytes(), key))
                .and_then(json::string);
            if let Some(p) = path.filter(|p| !p.is_empty()) {
                out.push(Mutation {
                    line: line.no,
                    tool: name.to_string(),
                    path: p.into_owned(),
                });
            }
        }
    }
    out
}
