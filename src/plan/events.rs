//! What happened to a session's plan, from its records: ExitPlanMode approvals
//! (PLAN-009) and rejections (PLAN-010), and the bound plan re-injected after
//! a compaction (PLAN-016). Only lines holding one of the markers are parsed.

use regex::bytes::Regex;
use std::collections::HashMap;

use crate::classify::markers::{REJ_DELIM, REJ_MARKER};
use crate::record::{parse_line, Parsed};
use crate::scan::json;
use crate::scan::lines::HitLines;

/// The lines worth parsing: the tool, both result shapes, the re-injection.
fn markers() -> &'static Regex {
    crate::scan::re!(bytes r"ExitPlanMode|User has approved|doesn't want to proceed|plan_file_reference")
}

/// PLAN-009: the two approval texts (plan saved; empty plan).
const APPROVED: [&str; 2] = [
    "User has approved your plan",
    "User has approved exiting plan mode",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Approval {
    pub(crate) line: usize,
    /// `plan` (names where it was saved) or `empty` (no plan content).
    pub(crate) variant: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rejection {
    pub(crate) line: usize,
    /// The rejected ExitPlanMode call's `input.planFilePath` (absent before
    /// Claude Code wrote it, PLAN-010).
    pub(crate) plan_file: Option<String>,
    /// What the user typed with the rejection, when anything.
    pub(crate) message: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reinjection {
    pub(crate) line: usize,
    pub(crate) plan_file: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Events {
    pub(crate) approvals: Vec<Approval>,
    pub(crate) rejections: Vec<Rejection>,
    pub(crate) reinjections: Vec<Reinjection>,
    /// ExitPlanMode calls seen.
    pub(crate) exits: usize,
}

impl Events {
    pub(crate) fn is_empty(&self) -> bool {
        self.approvals.is_empty()
            && self.rejections.is_empty()
            && self.reinjections.is_empty()
            && self.exits == 0
    }
}

/// The plan events of the transcript `buf`.
pub(crate) fn scan(buf: &[u8]) -> Events {
    let mut ev = Events::default();
    // ExitPlanMode tool_use id → its planFilePath.
    let mut exits: HashMap<String, Option<String>> = HashMap::new();
    for (line, _) in HitLines::new(buf, markers()) {
        let Parsed::Record(rec) = parse_line(&line) else {
            continue;
        };
        if rec.kind() == "attachment" {
            reinjection(rec.attachment.map(|r| r.get().as_bytes()), line.no, &mut ev);
            continue;
        }
        for b in rec.blocks() {
            match b.kind() {
                "tool_use" if b.name.as_deref() == Some("ExitPlanMode") => {
                    let path = b
                        .input
                        .and_then(|i| json::field(i.get().as_bytes(), b"planFilePath"))
                        .and_then(json::string)
                        .map(|s| s.into_owned());
                    if let Some(id) = b.id.as_deref() {
                        exits.insert(id.to_string(), path);
                    }
                    ev.exits += 1;
                }
                "tool_result" => {
                    let Some(id) = b.tool_use_id.as_deref() else {
                        continue;
                    };
                    let text = b.result_text();
                    let text = text.trim_start();
                    if b.is_error() {
                        // A hook's error on ExitPlanMode is not the user's "no".
                        if let Some(path) = exits.get(id).filter(|_| text.starts_with(REJ_MARKER)) {
                            ev.rejections.push(Rejection {
                                line: line.no,
                                plan_file: path.clone(),
                                message: text
                                    .split_once(REJ_DELIM)
                                    .map(|(_, m)| m.trim().to_string())
                                    .filter(|m| !m.is_empty()),
                            });
                        }
                    } else if let Some(i) = APPROVED.iter().position(|p| text.starts_with(p)) {
                        ev.approvals.push(Approval {
                            line: line.no,
                            variant: ["plan", "empty"][i],
                        });
                    }
                }
                _ => {}
            }
        }
    }
    ev
}

fn reinjection(att: Option<&[u8]>, line: usize, ev: &mut Events) {
    let Some(att) = att else { return };
    if json::field(att, b"type").and_then(json::plain_str) != Some("plan_file_reference") {
        return;
    }
    ev.reinjections.push(Reinjection {
        line,
        plan_file: json::field(att, b"planFilePath")
            .and_then(json::string)
            .map(|s| s.into_owned()),
    });
}
