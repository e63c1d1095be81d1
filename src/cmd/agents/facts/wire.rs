//! The JSON shapes of the carriers [`super`]'s scan reads beside the shared
//! record (an `agent_progress` record's pair, a `queued_command` attachment, a
//! `SendMessage` call's input, a `TaskOutput` result), and the readers that
//! turn each into a fact.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::super::carriers;
use super::{FileFacts, Sent, TaskOutput};
use crate::record::{opt_str, Block, Record, Str};

#[derive(Deserialize)]
struct Progress<'a> {
    #[serde(
        borrow,
        default,
        rename = "parentToolUseID",
        deserialize_with = "opt_str"
    )]
    parent: Str<'a>,
    #[serde(borrow, default)]
    data: Option<ProgressData<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProgressData<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "opt_str")]
    kind: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    agent_id: Str<'a>,
}

#[derive(Deserialize)]
struct Queued<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "opt_str")]
    kind: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    prompt: Str<'a>,
}

#[derive(Deserialize)]
struct TaskWrap {
    #[serde(default)]
    task: Option<TaskRaw>,
}

#[derive(Deserialize)]
struct TaskRaw {
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    task_type: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    result: Option<serde_json::Value>,
    #[serde(default)]
    output: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct SendInput<'a> {
    #[serde(borrow, default, deserialize_with = "opt_str")]
    to: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    recipient: Str<'a>,
    #[serde(rename = "type", borrow, default, deserialize_with = "opt_str")]
    kind: Str<'a>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Typed<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "opt_str")]
    kind: Str<'a>,
}

/// An `agent_progress` record's (child agentId, parentToolUseID).
pub(super) fn progress_pair(bytes: &[u8]) -> Option<(String, String)> {
    let p = serde_json::from_slice::<Progress<'_>>(bytes).ok()?;
    let (d, parent) = (p.data?, p.parent?);
    if d.kind.as_deref() != Some("agent_progress") {
        return None;
    }
    Some((d.agent_id?.into_owned(), parent.into_owned()))
}

/// The prompt of a `queued_command` attachment (where a notification may
/// ride, SUB-025).
pub(super) fn queued_command<'r>(rec: &Record<'r>) -> Option<Cow<'r, str>> {
    let q = serde_json::from_str::<Queued<'r>>(rec.attachment?.get()).ok()?;
    q.prompt
        .filter(|_| q.kind.as_deref() == Some("queued_command"))
}

/// A `SendMessage` call's recipient and signal type (SUB-017).
pub(super) fn sent(b: &Block<'_>) -> Option<Sent> {
    let i = serde_json::from_str::<SendInput<'_>>(b.input_json()).ok()?;
    let nested = i
        .message
        .filter(|m| m.get().starts_with('{'))
        .and_then(|m| serde_json::from_str::<Typed<'_>>(m.get()).ok())
        .and_then(|t| t.kind.map(|k| k.into_owned()));
    let to = i.to.or(i.recipient)?;
    Some(Sent {
        to: to.into_owned(),
        signal: carriers::send_signal(i.kind.as_deref(), nested.as_deref()),
    })
}

pub(super) fn task_output(f: &mut FileFacts, raw: &str, n: usize) {
    let Some(t) = serde_json::from_str::<TaskWrap>(raw)
        .ok()
        .and_then(|w| w.task)
    else {
        return;
    };
    if t.task_type.as_deref() != Some("local_agent") {
        return;
    }
    let Some(task_id) = t.task_id else { return };
    let text = |v: Option<serde_json::Value>| match v {
        Some(serde_json::Value::String(s)) => Some(s),
        Some(serde_json::Value::Null) | None => None,
        Some(v) => Some(v.to_string()),
    };
    // Both fields hold the child's tool log, then `--- RESULT ---` and its answer.
    let after_marker = |o: String| match o.rsplit_once("--- RESULT ---") {
        Some((_, r)) => r.trim().to_string(),
        None => o,
    };
    let result = text(t.result).or_else(|| text(t.output)).map(after_marker);
    f.task_outputs.push(TaskOutput {
        task_id,
        status: t.status,
        result,
        line: n,
    });
}
