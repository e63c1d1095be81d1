//! Classifying one record into units. A unit is one content block, one section of
//! a batched harness record (CLS-006), or the whole record where there are no
//! blocks. Each unit has a primary label (counted by the census) and at most one
//! secondary label (a spawn tool_use is both `agent.communication.sent` and
//! `agent.tool.use`, CLS-010); a selector matches either.

use std::borrow::Cow;

use super::index::FileIndex;
use super::markers::{self as mk, SectionKind};
use super::{narration, turns, Label};
use crate::record::{Block, Record};
use user::classify_user;
pub(crate) use user::{image_only_text, signal_type};

mod user;

#[derive(Debug, Clone)]
pub struct Unit<'r> {
    pub(crate) label: Label,
    pub(crate) also: Option<Label>,
    /// Index of the content block this unit is, when it is one.
    pub(crate) block: Option<usize>,
    /// The unit's decoded text: what a pattern matches.
    pub text: Cow<'r, str>,
    pub(crate) tool_name: Option<&'r str>,
    /// tool_use id (for a use) or the id a result answers.
    pub(crate) tool_use_id: Option<&'r str>,
    pub(crate) is_error: bool,
    /// The subagent whose record, nested in an `agent_progress` record of this
    /// file, the unit is ([`crate::record::embedded`]); `None` for the file's own.
    pub(crate) via: Option<&'r str>,
}

impl<'r> Unit<'r> {
    fn new(label: Label, text: Cow<'r, str>) -> Self {
        Unit {
            label,
            also: None,
            block: None,
            text,
            tool_name: None,
            tool_use_id: None,
            is_error: false,
            via: None,
        }
    }

    pub(crate) fn labels(&self) -> impl Iterator<Item = Label> {
        std::iter::once(self.label).chain(self.also)
    }
}

/// All units of `r` (physical line `line`), appended to `out`.
pub fn classify<'r>(r: &'r Record<'_>, line: usize, idx: &'r FileIndex, out: &mut Vec<Unit<'r>>) {
    classify_with(r, line, idx, true, out);
}

/// [`classify`] for callers that need labels only (censuses): a tool_result
/// unit's `text` is left empty instead of decoding what may be megabytes, and
/// a tool call's instead of compacting its input (its name and input still
/// decide the label).
pub fn classify_labels<'r>(
    r: &'r Record<'_>,
    line: usize,
    idx: &'r FileIndex,
    out: &mut Vec<Unit<'r>>,
) {
    classify_with(r, line, idx, false, out);
}

/// Whether `classify` may ask the file index about `r` more than whether
/// its line is a superseded draft ([`FileIndex::is_draft`]) or a lane's seed
/// ([`FileIndex::is_seed`]): anything but a user message, a meta text (an
/// armed wakeup prompt), a bare slash command (whether it opened a turn), a
/// tool result (spawn ids, tool names). A user record for which this is
/// false is labelled alike under an empty index and a finished one unless
/// its line is a draft or a seed (`is_legacy_seed` reads the index's lane
/// only, which both share): the census re-reads a turn opener only then.
pub(crate) fn index_bound(r: &Record<'_>) -> bool {
    !(r.kind() == "user" && r.has_message())
        || r.is_meta()
        || turns::is_bare_slash(r)
        || r.blocks().iter().any(|b| b.kind() == "tool_result")
}

fn classify_with<'r>(
    r: &'r Record<'_>,
    line: usize,
    idx: &'r FileIndex,
    text: bool,
    out: &mut Vec<Unit<'r>>,
) {
    if idx.is_draft(line) {
        if let Some(t) = r.user_text().or_else(|| image_only_text(r)) {
            out.push(Unit::new(Label::UserUnsent, t));
        }
        return;
    }
    match r.kind() {
        "user" if r.has_message() => classify_user(r, line, idx, text, out),
        "assistant" if r.has_message() => classify_assistant(r, idx, text, out),
        "progress" => classify_embedded(r, line, idx, text, out),
        _ => classify_other(r, out),
    }
}

/// The units of the subagent record an `agent_progress` record nests, when
/// the index wants them: classified as the lane record it copies, with its
/// spawn prompt as the lane's seed (inbox, REC-031). A user text there is
/// never the human's: what the parent or harness sent the child is inbox. A
/// nested record with no agent id is still the work of a subagent, of one
/// the record does not name.
fn classify_embedded<'r>(
    r: &'r Record<'_>,
    line: usize,
    idx: &'r FileIndex,
    text: bool,
    out: &mut Vec<Unit<'r>>,
) {
    if !idx.embeds_any() {
        return;
    }
    let Some(e) = r.embedded() else { return };
    let agent = e.agent_id.as_deref().unwrap_or("");
    if !idx.embeds(agent) {
        return;
    }
    let n = &e.record;
    let from = out.len();
    match n.kind() {
        "user" if n.has_message() => match n.user_text().filter(|t| e.is_seed(t)) {
            Some(t) if n.blocks().iter().all(|b| b.kind() != "tool_result") => {
                out.push(Unit::new(Label::AgentCommunicationInbox, t));
            }
            _ => classify_user(n, line, idx, text, out),
        },
        "assistant" if n.has_message() => classify_assistant(n, idx, text, out),
        // A subagent's own progress would nest again: not followed.
        "progress" => {}
        _ => classify_other(n, out),
    }
    for u in &mut out[from..] {
        if u.label == Label::UserMessage {
            u.label = Label::AgentCommunicationInbox;
        }
        u.via = Some(agent);
    }
}

fn classify_assistant<'r>(r: &'r Record<'_>, idx: &FileIndex, text: bool, out: &mut Vec<Unit<'r>>) {
    let _ = idx;
    if let Some(s) = r.text_content() {
        if !s.trim().is_empty() {
            out.push(Unit::new(Label::AgentMessage, Cow::Borrowed(s)));
        }
        return;
    }
    for (i, b) in r.blocks().iter().enumerate() {
        let unit = match b.kind() {
            "text" => Unit::new(
                Label::AgentMessage,
                Cow::Borrowed(b.text.as_deref().unwrap_or("")),
            ),
            "thinking" => {
                let narr = b.signature.as_deref().is_some_and(narration::is_narration);
                let label = if narr {
                    Label::AgentThinkingNarration
                } else {
                    Label::AgentThinking
                };
                Unit::new(label, Cow::Borrowed(b.thinking.as_deref().unwrap_or("")))
            }
            // CLS-018: redacted thinking is thinking with opaque content.
            "redacted_thinking" => Unit::new(Label::AgentThinking, Cow::Borrowed("")),
            k @ ("tool_use" | "server_tool_use" | "mcp_tool_use") => {
                let name = b.name.as_deref().unwrap_or("");
                let (label, also) = if k == "tool_use" && mk::SPAWN_TOOLS.contains(&name) {
                    (Label::AgentCommunicationSent, Some(Label::AgentToolUse))
                } else if k == "tool_use" && name == "SendMessage" {
                    let sig = b.input.and_then(|i| signal_type(i.get()));
                    let l = if sig.is_some() {
                        Label::AgentCommunicationSignal
                    } else {
                        Label::AgentCommunicationSent
                    };
                    (l, Some(Label::AgentToolUse))
                } else {
                    (Label::AgentToolUse, None)
                };
                // REC-037: a tool_use matches as its name plus its input JSON,
                // compact however the line was written (REC-038).
                let unit_text = if text {
                    Cow::Owned(format!("{name} {}", b.input_text()))
                } else {
                    Cow::Borrowed("")
                };
                Unit {
                    label,
                    also,
                    block: None,
                    text: unit_text,
                    tool_name: Some(name),
                    tool_use_id: b.id.as_deref(),
                    is_error: false,
                    via: None,
                }
            }
            k if k == "mcp_tool_result" || k.ends_with("_tool_result") => Unit {
                tool_use_id: b.tool_use_id.as_deref(),
                ..Unit::new(
                    Label::AgentToolResult,
                    if text {
                        b.result_text()
                    } else {
                        Cow::Borrowed("")
                    },
                )
            },
            _ => continue,
        };
        out.push(Unit {
            block: Some(i),
            ..unit
        });
    }
}

fn classify_other<'r>(r: &'r Record<'_>, out: &mut Vec<Unit<'r>>) {
    match r.kind() {
        "system" => {
            let label = match r.subtype() {
                // No subtype (older Claude Code's notices: `"content": "Claude
                // Opus 4 limit reached…"`) is one more system notice (QT-SYS-001).
                "compact_boundary" => Label::HarnessCompactionBoundary,
                "turn_duration" => Label::HarnessMetaTurn,
                "away_summary" => Label::HarnessMetaAway,
                "stop_hook_summary" => Label::HarnessMetaStop,
                _ => Label::HarnessMetaSystem,
            };
            out.push(Unit::new(label, system_text(r)));
        }
        "attachment" => {
            let Some(raw) = r.attachment else { return };
            if !raw.get().starts_with('{') {
                return;
            }
            let label = if r.attachment_type().as_deref() == Some("hook_additional_context") {
                Label::HarnessMetaHook
            } else {
                Label::HarnessMetaAttachment
            };
            out.push(Unit::new(label, attachment_text(raw.get())));
        }
        "file-history-snapshot" | "file-history-delta" => {
            out.push(Unit::new(
                Label::HarnessMetaSnapshot,
                Cow::Borrowed(r.kind()),
            ));
        }
        "queue-operation" => {
            if let Some(t) = queued_text(r) {
                out.push(Unit::new(Label::UserQueued, t));
            }
        }
        _ => {}
    }
}

/// A system record's text: its string content, else its subtype and any
/// duration, written as on disk (`turn_duration "durationMs":264098`) so that
/// the raw-byte prefilter finds what the text holds.
fn system_text<'r>(r: &'r Record<'_>) -> Cow<'r, str> {
    if let Some(t) = r.system_text() {
        return Cow::Owned(t.into_owned());
    }
    let mut s = r.subtype().to_string();
    // The number as written (`2.5e3` stays `2.5e3`), so it is on disk as read.
    if let Some(d) = r.duration_ms_raw.filter(|_| r.duration_ms().is_some()) {
        s.push_str(&format!(" \"durationMs\":{}", d.get()));
    }
    if let Some(m) = r.compact_metadata {
        s.push(' ');
        s.push_str(&crate::scan::json::compact(m.get()));
    }
    Cow::Owned(s)
}

/// An attachment's searchable text: hook context strings joined, else its JSON
/// (compact however the line was spaced, REC-038).
fn attachment_text(raw: &str) -> Cow<'_, str> {
    #[derive(serde::Deserialize)]
    struct Hook<'a> {
        #[serde(borrow, default)]
        content: Option<&'a serde_json::value::RawValue>,
    }
    if let Ok(Hook { content: Some(c) }) = serde_json::from_str::<Hook<'_>>(raw) {
        // Decode by the first byte: a failed parse builds an error message.
        match c.get().as_bytes().first() {
            Some(b'[') => {
                let fixed = || crate::record::surrogate::repaired_str(c.get());
                let v = serde_json::from_str::<Vec<String>>(c.get())
                    .ok()
                    .or_else(|| serde_json::from_str(&fixed()?).ok());
                if let Some(v) = v {
                    return Cow::Owned(v.join("\n"));
                }
            }
            Some(b'"') => {
                if let Some(s) = crate::record::surrogate::string(c.get()) {
                    return Cow::Owned(s);
                }
            }
            _ => {}
        }
    }
    crate::scan::json::compact(raw)
}

/// A queue-operation's typed text, unless it is a queued notification (R-Q).
fn queued_text<'r>(r: &'r Record<'_>) -> Option<Cow<'r, str>> {
    let c = r.system_text()?;
    let t = c.trim_start();
    if c.trim().is_empty()
        || t.starts_with("<task-notification>")
        || t.starts_with("<agent-notification>")
        || mk::has_peer_section(&c)
    {
        return None;
    }
    if t.starts_with('{')
        && serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&c)
            .is_ok_and(|m| m.contains_key("task_id"))
    {
        return None;
    }
    Some(Cow::Owned(c.into_owned()))
}
