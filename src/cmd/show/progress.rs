//! One readable line for a `progress` record, which holds no content unit. In
//! a 2.1.x transcript they can be half the lines: a `PreToolUse` hook starting,
//! a shell still running, an MCP call's status. `show` printed them as the
//! first 300 characters of raw JSON, cut before `data.type` said what they are.
//!
//! The kinds and what each carries, measured on the public corpus (2,796
//! progress records, Claude Code 2.1.x; no claim covers them yet):
//! - `hook_progress` (1,640): `hookEvent`, `hookName` (`PreToolUse:Bash`), `command`;
//! - `bash_progress` (734): `output` (the newest output), `fullOutput`,
//!   `elapsedTimeSeconds`, `totalLines`, at times `totalBytes`, `taskId`, `timeoutMs`;
//! - `agent_progress` (402): a subagent's record nested in `message` ([`crate::record`]);
//! - `mcp_progress` (18): `status`, `serverName`, `toolName`, at times `elapsedTimeMs`;
//! - `waiting_for_task` (2): `taskDescription`, `taskType`.
//!
//! A kind csift does not know (the set is open) shows its scalar fields.

use serde_json::{Map, Value};

use crate::record::Record;
use crate::render::cut_chars;

/// A field's text is cut here; the whole line at [`LINE_MAX`].
const FIELD_MAX: usize = 160;
const LINE_MAX: usize = 400;
/// Fields of an unknown kind shown before the rest are counted.
const FIELDS_SHOWN: usize = 8;

/// `data.type` of a progress record, when it has one.
pub(crate) fn kind(r: &Record<'_>) -> Option<String> {
    if r.kind() != "progress" {
        return None;
    }
    match data(r)?.get("type")? {
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// The line for a progress record; `None` for another record, or one whose
/// `data` is no object (its raw bytes then say what it is).
pub(crate) fn line(r: &Record<'_>) -> Option<String> {
    if r.kind() != "progress" {
        return None;
    }
    if let Some(e) = r.embedded() {
        let uuid = e.record.uuid.as_deref().unwrap_or("?");
        let agent = e.agent_id.as_deref().unwrap_or("?");
        return Some(format!(
            "agent {agent}: its {} record {uuid}",
            non_empty(e.record.kind())
        ));
    }
    let d = data(r)?;
    let s = |k: &str| {
        d.get(k)
            .and_then(Value::as_str)
            .map(|v| cut_chars(v, FIELD_MAX))
    };
    let n = |k: &str| d.get(k).and_then(Value::as_u64);
    let text = match d.get("type").and_then(Value::as_str).unwrap_or("") {
        "hook_progress" => {
            let name = s("hookName").or_else(|| s("hookEvent")).unwrap_or_default();
            match s("command") {
                Some(c) => format!("hook {name}: {c}"),
                None => format!("hook {name}"),
            }
        }
        "bash_progress" => bash(&d),
        "mcp_progress" => {
            let mut t = format!(
                "mcp {} {} {}",
                s("serverName").unwrap_or_default(),
                s("toolName").unwrap_or_default(),
                s("status").unwrap_or_default()
            );
            if let Some(ms) = n("elapsedTimeMs") {
                t.push_str(&format!(" after {ms} ms"));
            }
            t
        }
        "waiting_for_task" => format!(
            "waiting for {} task: {}",
            s("taskType").unwrap_or_else(|| "a".into()),
            s("taskDescription").unwrap_or_default()
        ),
        other => fields(non_empty(other), &d),
    };
    Some(cut_chars(&text, LINE_MAX))
}

fn data(r: &Record<'_>) -> Option<Map<String, Value>> {
    serde_json::from_str(r.data?.get()).ok()
}

fn non_empty(s: &str) -> &str {
    if s.is_empty() {
        "?"
    } else {
        s
    }
}

/// `bash running 3s, 2 lines, timeout 120s; last output: …`
fn bash(d: &Map<String, Value>) -> String {
    let n = |k: &str| d.get(k).and_then(Value::as_u64);
    let mut parts = vec![format!(
        "bash running {}s",
        n("elapsedTimeSeconds").unwrap_or(0)
    )];
    if let Some(l) = n("totalLines") {
        parts.push(format!("{l} lines"));
    }
    if let Some(b) = n("totalBytes") {
        parts.push(crate::cmd::human_bytes(b));
    }
    if let Some(t) = d.get("taskId").and_then(Value::as_str) {
        parts.push(format!("task {}", cut_chars(t, 40)));
    }
    if let Some(ms) = n("timeoutMs") {
        parts.push(format!("timeout {}s", ms / 1000));
    }
    let mut t = parts.join(", ");
    let last = d
        .get("output")
        .and_then(Value::as_str)
        .and_then(|o| o.lines().rev().find(|l| !l.trim().is_empty()));
    if let Some(l) = last {
        t.push_str(&format!(
            "; last output: {}",
            cut_chars(l.trim(), FIELD_MAX)
        ));
    }
    t
}

/// An unknown kind: `kind: key=value …` over its scalar fields.
fn fields(kind: &str, d: &Map<String, Value>) -> String {
    let mut shown = Vec::new();
    let mut more = 0;
    for (k, v) in d.iter().filter(|(k, _)| *k != "type") {
        let v = match v {
            Value::String(s) => cut_chars(s, FIELD_MAX),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Null => "null".into(),
            Value::Array(a) => format!("[{} items]", a.len()),
            Value::Object(o) => format!("{{{} keys}}", o.len()),
        };
        match shown.len() < FIELDS_SHOWN {
            true => shown.push(format!("{k}={v}")),
            false => more += 1,
        }
    }
    if more > 0 {
        shown.push(format!("(+{more} more fields)"));
    }
    format!("{kind}: {}", shown.join(" "))
}
