//! Claim pins for classification, in process: each test writes the record
//! shapes a claim measured (copied from the ledger's specimens and the corpus)
//! into one buffer, indexes and classifies it as every command does, and
//! asserts the labels, texts and turns the claim says csift must give them.
//! The claim id sits at the assertion that depends on it (docs/claims.tsv).

mod blocks;
mod notices;
mod records;
mod turns;

use serde_json::Value;

use super::{classify, FileIndex, Label};
use crate::record::line_records;
use crate::scan::Lines;

/// One unit as a test sees it: its labels (primary first) and its text.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct U {
    pub(super) labels: Vec<&'static str>,
    pub(super) text: String,
    /// A tool_use's id, or the id a tool_result answers.
    pub(super) id: Option<String>,
}

/// What the index and the classifier say about a buffer.
pub(super) struct Got {
    pub(super) idx: FileIndex,
    /// Per physical line (index 0 is line 1), the units of its records.
    pub(super) lines: Vec<Vec<U>>,
}

impl Got {
    /// The labels of line `n` (1-based), every unit's in order.
    pub(super) fn labels(&self, n: usize) -> Vec<&'static str> {
        self.lines[n - 1]
            .iter()
            .flat_map(|u| u.labels.clone())
            .collect()
    }

    /// The primary label of line `n`'s only unit; panics on any other count.
    pub(super) fn label(&self, n: usize) -> &'static str {
        let u = &self.lines[n - 1];
        assert_eq!(u.len(), 1, "line {n}: {u:?}");
        u[0].labels[0]
    }

    pub(super) fn text(&self, n: usize) -> &str {
        let u = &self.lines[n - 1];
        assert_eq!(u.len(), 1, "line {n}: {u:?}");
        &u[0].text
    }

    pub(super) fn turn(&self, n: usize) -> Option<usize> {
        self.idx.turn(n)
    }
}

/// Fill in the envelope a record type carries on disk: a uuid chain for
/// `user`/`assistant`/`system`/`attachment` lines (each the child of the one
/// before unless the test set `parentUuid`), nothing for machinery lines.
pub(super) fn thread(lines: &mut [Value]) {
    let mut last: Option<String> = None;
    for (i, v) in lines.iter_mut().enumerate() {
        let Some(o) = v.as_object_mut() else { continue };
        let kind = o.get("type").and_then(Value::as_str).unwrap_or("");
        if !matches!(kind, "user" | "assistant" | "system" | "attachment") {
            continue;
        }
        let uuid = o
            .entry("uuid")
            .or_insert_with(|| Value::String(format!("u{:04}", i + 1)))
            .as_str()
            .unwrap_or("")
            .to_string();
        o.entry("parentUuid")
            .or_insert_with(|| last.clone().map_or(Value::Null, Value::String));
        o.entry("timestamp").or_insert_with(|| {
            Value::String(format!("2026-07-01T10:{:02}:{:02}.000Z", i / 60, i % 60))
        });
        last = Some(uuid);
    }
}

/// Index and classify `lines` (threaded, one JSON value per physical line) as
/// a top-level transcript, or as a subagent lane when `lane`.
pub(super) fn run(lines: &[Value], lane: bool) -> Got {
    let mut lines = lines.to_vec();
    thread(&mut lines);
    let buf: String = lines.iter().map(|v| format!("{v}\n")).collect();
    run_bytes(buf.as_bytes(), lane)
}

/// [`run`] over bytes as written (no threading).
pub(super) fn run_bytes(buf: &[u8], lane: bool) -> Got {
    let idx = FileIndex::build(buf, lane);
    let mut out = Vec::new();
    for l in Lines::new(buf) {
        let mut units = Vec::new();
        for (_, r) in line_records(&l) {
            let mut us = Vec::new();
            classify(&r, l.no, &idx, &mut us);
            units.extend(us.iter().map(|u| U {
                labels: u.labels().map(Label::name).collect(),
                text: u.text.to_string(),
                id: u.tool_use_id.map(str::to_string),
            }));
        }
        out.push(units);
    }
    Got { idx, lines: out }
}

/// A top-level user record with string content.
pub(super) fn user(text: &str) -> Value {
    serde_json::json!({"type": "user", "userType": "external", "isSidechain": false,
        "message": {"role": "user", "content": text}})
}

/// An isMeta user record with string content.
pub(super) fn meta(text: &str) -> Value {
    serde_json::json!({"type": "user", "isMeta": true, "message": {"role": "user", "content": text}})
}

/// One assistant record holding `block` (Claude Code writes one per block).
pub(super) fn assistant(id: &str, block: Value) -> Value {
    serde_json::json!({"type": "assistant", "message": {"model": "claude-opus-4-5-20251101",
        "id": id, "type": "message", "role": "assistant", "content": [block],
        "stop_reason": null, "usage": {"input_tokens": 1, "output_tokens": 1}}})
}

pub(super) fn tool_use(id: &str, name: &str, input: Value) -> Value {
    assistant(
        &format!("msg_{id}"),
        serde_json::json!({"type": "tool_use", "id": id, "name": name, "input": input}),
    )
}

/// A tool-result carrier; `echo` is its `toolUseResult`, `is_error` absent when `None`.
pub(super) fn result(
    id: &str,
    content: &str,
    is_error: Option<bool>,
    echo: Option<Value>,
) -> Value {
    let mut block =
        serde_json::json!({"type": "tool_result", "tool_use_id": id, "content": content});
    if let Some(e) = is_error {
        block["is_error"] = Value::Bool(e);
    }
    let mut v =
        serde_json::json!({"type": "user", "message": {"role": "user", "content": [block]}});
    if let Some(e) = echo {
        v["toolUseResult"] = e;
    }
    v
}

pub(super) fn system(subtype: &str, extra: Value) -> Value {
    let mut v = serde_json::json!({"type": "system", "subtype": subtype});
    for (k, x) in extra.as_object().into_iter().flatten() {
        v[k] = x.clone();
    }
    v
}
