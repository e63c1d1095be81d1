//! The elicitation sidecar: what a session asks a human while Claude Code
//! writes nothing. A pending single-question AskUserQuestion, a pending
//! ExitPlanMode and an MCP elicitation never reach the transcript while they
//! wait (ELI-008, ELI-009, ELI-010); hooks see them (ELI-015, ELI-019). The
//! recorder ([`record`], run as `csift hooks record`) appends one marker line per
//! hook event to a sidecar in csift's state directory; this module reads it back
//! for `status` (verdict `waiting-hitl` with the question) and `wait --until
//! hitl|auq`.
//!
//! Two places are read: csift's own sidecar, `<state>/elicitations/<session>.jsonl`
//! (written by [`record`]; never under the Claude home), and a
//! `<project>/<session>/elicitations.jsonl` beside a transcript where one exists
//! (where csift 0.10.1's shell recipe wrote it, TAIL-017). Both are keyed by the
//! TOP-LEVEL session id: a hook's `session_id` names it in every lane (ELI-014).
//!
//! Pairing is by key (`tool_use_id`, else `elicitation_id`, else the MCP server
//! name, ELI-011): a `pending` line with no later `resolved` line is pending.
//! Ghost guard (ELI-016): a rejected AskUserQuestion/ExitPlanMode fires no
//! PostToolUse, so its pending line is never resolved; once its id is on the
//! native transcript as a `tool_use` id or a `tool_result`'s `tool_use_id`, the
//! ask is closed. MCP keys are never cross-checked: a server name is no id.

pub(crate) mod record;

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// The sidecar's file name beside a transcript (the 0.10.1 location).
pub(crate) const BESIDE: &str = "elicitations.jsonl";

/// The kinds of ask a marker records.
pub(crate) const KIND_MCP: &str = "mcp-elicitation";

/// csift's own sidecar of `session` under the state root `state`.
pub(crate) fn state_path(state: &Path, session: &str) -> PathBuf {
    state
        .join("elicitations")
        .join(format!("{}.jsonl", file_stem(session)))
}

/// The 0.10.1 sidecar beside a session's main transcript.
pub(crate) fn beside_path(project_dir: &Path, session: &str) -> PathBuf {
    project_dir.join(session).join(BESIDE)
}

/// A session id as a file name: anything but `[A-Za-z0-9_-]` becomes `_`.
pub(crate) fn file_stem(session: &str) -> String {
    let s: String = session
        .chars()
        .take(128)
        .map(|c| match c {
            c if c.is_ascii_alphanumeric() || c == '-' || c == '_' => c,
            _ => '_',
        })
        .collect();
    if s.is_empty() {
        "unknown".into()
    } else {
        s
    }
}

/// One marker line as the recorder writes it. The reader also takes the
/// 0.10.1 recipe's `csiftKind`/`csiftPhase`/`csiftKey` spellings.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Marker {
    #[serde(rename = "type", default)]
    pub(crate) kind_tag: String,
    #[serde(alias = "csiftKind", default)]
    pub(crate) kind: String,
    #[serde(alias = "csiftPhase", default)]
    pub(crate) phase: String,
    #[serde(alias = "csiftKey", default)]
    pub(crate) key: String,
    #[serde(default)]
    pub(crate) event: String,
    #[serde(alias = "sessionId", default)]
    pub(crate) session_id: String,
    #[serde(default)]
    pub(crate) timestamp: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tool_input: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mcp_server_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) action: Option<String>,
}

impl Marker {
    /// What the ask says, in one short line: the first question, the plan's
    /// first line, the MCP message.
    pub(crate) fn detail(&self) -> Option<String> {
        let input = self.tool_input.as_ref();
        let text = input
            .and_then(|i| i.get("questions"))
            .and_then(|q| q.get(0))
            .and_then(|q| q.get("question"))
            .and_then(serde_json::Value::as_str)
            .or_else(|| {
                input
                    .and_then(|i| i.get("plan"))
                    .and_then(serde_json::Value::as_str)
                    .and_then(|p| p.lines().find(|l| !l.trim().is_empty()))
            })
            .or(self.message.as_deref())?;
        let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        Some(match one.char_indices().nth(160) {
            Some((i, _)) => format!("{}…", &one[..i]),
            None => one,
        })
    }
}

/// An ask no resolved line (and, for a tool ask, no native record) closes.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Pending {
    pub(crate) kind: String,
    pub(crate) key: String,
    #[serde(serialize_with = "crate::live::ser_ts")]
    pub(crate) since: Option<Timestamp>,
    pub(crate) detail: Option<String>,
    pub(crate) file: PathBuf,
}

/// What a session's sidecars say.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sidecar {
    /// The sidecar files that exist (none: the recorder is not installed for
    /// this session, or it never asked: nothing can be concluded).
    pub(crate) files: Vec<PathBuf>,
    pub(crate) pending: Vec<Pending>,
    /// Lines that are no marker.
    pub(crate) malformed: usize,
}

/// Read the sidecars of a top-level session: csift's own (under `state`) and
/// the one beside its transcript. `main` is the native transcript the ghost
/// guard checks.
pub(crate) fn read(
    state: Option<&Path>,
    project_dir: &Path,
    session: &str,
    main: Option<&Path>,
) -> Sidecar {
    let mut out = Sidecar::default();
    let paths = state
        .map(|s| state_path(s, session))
        .into_iter()
        .chain(std::iter::once(beside_path(project_dir, session)));
    let mut markers: Vec<(Marker, PathBuf)> = Vec::new();
    for p in paths {
        let Ok(bytes) = std::fs::read(&p) else {
            continue;
        };
        out.files.push(p.clone());
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            match serde_json::from_slice::<Marker>(line) {
                Ok(m) if !m.key.is_empty() && !m.phase.is_empty() => markers.push((m, p.clone())),
                _ => out.malformed += 1,
            }
        }
    }
    out.pending = pending(markers);
    if !out.pending.is_empty() {
        let native = main.and_then(|m| std::fs::read(m).ok()).unwrap_or_default();
        out.pending
            .retain(|p| p.kind == KIND_MCP || !native_closes(&native, &p.key));
    }
    out
}

/// Pending asks: per key, the newest `pending` line with no `resolved` line
/// after it, in file order.
pub(crate) fn pending(markers: Vec<(Marker, PathBuf)>) -> Vec<Pending> {
    let mut open: Vec<Pending> = Vec::new();
    for (m, file) in markers {
        open.retain(|p| p.key != m.key);
        if m.phase == "pending" {
            open.push(Pending {
                detail: m.detail(),
                since: crate::timefmt::parse_ts(&m.timestamp),
                kind: m.kind,
                key: m.key,
                file,
            });
        }
    }
    open
}

/// True when the native transcript `bytes` hold a record whose `tool_use`
/// block `id` or `tool_result` `tool_use_id` is `key`: structural, not a
/// substring (a key quoted in some record's text is no closure, ELI-016).
pub(crate) fn native_closes(bytes: &[u8], key: &str) -> bool {
    let finder = memchr::memmem::Finder::new(key.as_bytes());
    for at in finder.find_iter(bytes) {
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        let line = crate::scan::Line {
            no: 0,
            offset: start,
            bytes: &bytes[start..end],
            terminated: end < bytes.len(),
        };
        for (_, r) in crate::record::line_records(&line) {
            let closes = r.blocks().iter().any(|b| {
                (b.kind() == "tool_use" && b.id.as_deref() == Some(key))
                    || (b.kind() == "tool_result" && b.tool_use_id.as_deref() == Some(key))
            });
            if closes {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker(phase: &str, key: &str, kind: &str) -> (Marker, PathBuf) {
        (
            Marker {
                kind: kind.into(),
                phase: phase.into(),
                key: key.into(),
                timestamp: "2026-09-01T10:00:00.000Z".into(),
                tool_input: Some(serde_json::json!({"questions":[{"question":"which route?"}]})),
                ..Marker::default()
            },
            PathBuf::from("/s.jsonl"),
        )
    }

    /// ELI-011, ELI-015: pending and resolved pair by key; the newest
    /// pending of a key stands.
    #[test]
    fn pending_pairs_by_key_eli_011_015() {
        let p = pending(vec![
            marker("pending", "toolu_1", "AskUserQuestion"),
            marker("pending", "toolu_2", "ExitPlanMode"),
            marker("resolved", "toolu_1", "AskUserQuestion"),
            marker("pending", "srv", KIND_MCP),
        ]);
        let keys: Vec<&str> = p.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["toolu_2", "srv"]);
        assert_eq!(p[0].detail.as_deref(), Some("which route?"));
    }

    /// ELI-016: a key on the native transcript as a tool_use id closes the
    /// ask; the same key quoted in a Bash command does not.
    #[test]
    fn native_closes_on_a_structural_id_only_eli_016() {
        let quoted = br#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_9","name":"Bash","input":{"command":"grep toolu_1 x"}}]}}"#;
        assert!(!native_closes(quoted, "toolu_1"));
        let native = br#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"The user doesn't want to proceed","is_error":true}]}}"#;
        let both = [&quoted[..], b"\n", &native[..], b"\n"].concat();
        assert!(native_closes(&both, "toolu_1"));
    }
}
