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

fn classify_user<'r>(
    r: &'r Record<'_>,
    line: usize,
    idx: &'r FileIndex,
    text: bool,
    out: &mut Vec<Unit<'r>>,
) {
    if r.is_compact_summary() {
        // TURN-020: a compaction summary is a user record, never a human turn.
        if let Some(t) = r.user_text() {
            out.push(Unit::new(Label::HarnessCompactionSummary, t));
        }
        return;
    }
    let blocks = r.blocks();
    if blocks.iter().any(|b| b.kind() == "tool_result") {
        carrier_units(r, blocks, line, idx, text, out);
        return;
    }
    match r.user_text() {
        Some(s) => text_units(r, s, None, line, idx, out),
        // IMG-001: a prompt of images only (a pasted screenshot) is the
        // user's message too; its text is what a tool result's image part
        // reads, `[image]`, so search finds it where the bytes say `image`.
        None => out.extend(image_only_text(r).map(|t| Unit::new(Label::UserMessage, t))),
    }
}

/// `[image]` once per image of an image-only user prompt
/// ([`turns::is_image_prompt`]); `None` for any other record.
pub(crate) fn image_only_text(r: &Record<'_>) -> Option<Cow<'static, str>> {
    if !turns::is_image_prompt(r) {
        return None;
    }
    Some(match r.blocks().len() {
        1 => Cow::Borrowed("[image]"),
        n => Cow::Owned(vec!["[image]"; n].join("\n")),
    })
}

/// The units of user text `s` (the record's whole text, or its text block
/// `block` beside a tool_result): one per batched section (CLS-006), else one
/// labelled by [`user_string_label`].
fn text_units<'r>(
    r: &'r Record<'_>,
    s: Cow<'r, str>,
    block: Option<usize>,
    line: usize,
    idx: &FileIndex,
    out: &mut Vec<Unit<'r>>,
) {
    let secs = mk::sections(&s);
    if !secs.is_empty() {
        for (kind, a, e) in secs {
            let (label, also) = section_labels(&s[a..e], kind);
            let text = match &s {
                Cow::Borrowed(b) => Cow::Borrowed(&b[a..e]),
                Cow::Owned(o) => Cow::Owned(o[a..e].to_string()),
            };
            out.push(Unit {
                also,
                block,
                ..Unit::new(label, text)
            });
        }
        return;
    }
    let label = user_string_label(r, &s, line, idx);
    if let Some((label, also)) = label {
        out.push(Unit {
            also,
            block,
            ..Unit::new(label, s)
        });
    }
}

/// The label of a non-carrier, non-sectioned user text (R-U4…R-U11).
fn user_string_label(
    r: &Record<'_>,
    s: &str,
    line: usize,
    idx: &FileIndex,
) -> Option<(Label, Option<Label>)> {
    if s == mk::INTERRUPT_USER {
        return Some((Label::HarnessInterruptUser, None));
    }
    if s == mk::INTERRUPT_TOOL {
        return Some((Label::HarnessInterruptTool, None));
    }
    if mk::STDOUT_PREFIXES.iter().any(|p| s.starts_with(p)) {
        return Some((Label::HarnessCommandStdout, None));
    }
    if mk::SLASH_PREFIXES.iter().any(|p| s.starts_with(p)) {
        // TURN-008: typed prose after a slash command rides in <command-args>.
        // A bare command the model answered opened a turn: the user asked
        // for that work, so `-t user` reaches it too (turns module doc).
        return Some(match mk::slash_args(s) {
            Some(_) => (Label::UserMessage, Some(Label::HarnessCommandInvocation)),
            None if idx.is_opener(line) && turns::is_bare_slash(r) => {
                (Label::HarnessCommandInvocation, Some(Label::UserMessage))
            }
            None => (Label::HarnessCommandInvocation, None),
        });
    }
    if mk::agents_stopped(s) {
        return Some((Label::HarnessNotificationSubagent, None));
    }
    let meta = r.is_meta();
    if meta {
        let t = s.trim_start();
        if t.starts_with(mk::CONTINUATION) {
            return Some((Label::HarnessScheduleContinuation, None));
        }
        if mk::WAKEUP_SENTINELS.iter().any(|w| s.contains(w))
            || t.starts_with(mk::WAKEUP_HEADER)
            || s.contains(mk::WAKEUP_BODY)
            || idx.is_wakeup_prompt(s.trim())
        {
            return Some((Label::HarnessScheduleWakeup, None));
        }
        if t.starts_with(mk::LOOP_HEADER) || s.contains(mk::LOOP_BODY) {
            return Some((Label::HarnessMetaLoop, None));
        }
        if mk::HOOK_PREFIXES.iter().any(|p| t.starts_with(p))
            || s.contains(mk::HOOK_ANYWHERE)
            || (t.starts_with("<system-reminder>") && s.contains("hook additional context"))
        {
            return Some((Label::HarnessMetaHook, None));
        }
        if mk::IMAGE_PREFIXES.iter().any(|p| t.starts_with(p))
            && s.trim_end().ends_with(']')
            && !s.trim().contains('\n')
        {
            return None;
        }
    }
    if idx.is_seed(line) || idx.is_legacy_seed(r) {
        // REC-031: a lane's first record is the spawn prompt, delivered to the child.
        return Some((Label::AgentCommunicationInbox, None));
    }
    if !meta {
        return Some((Label::UserMessage, None));
    }
    // isMeta text blocks are the prompt a slash command or skill expanded to
    // (`# /erk:plan-implement …`, `Base directory for this skill: …`), written
    // right after its wrapper: the instructions the model ran under, so they
    // must be findable. R-U11: other isMeta text (a string the rules above
    // miss) is harness-authored and carries no leaf of its own.
    r.text_content()
        .is_none()
        .then_some((Label::HarnessCommandInvocation, None))
}

fn section_labels(body: &str, kind: SectionKind) -> (Label, Option<Label>) {
    match kind {
        SectionKind::Task | SectionKind::AgentNote => {
            let summary = mk::xml_tag(body, "summary")
                .unwrap_or("")
                .trim_start()
                .to_lowercase();
            // CLS-004: the leading phrase of <summary> is the class.
            let leaf = if summary.starts_with("background command") {
                Label::HarnessNotificationBackground
            } else if summary.starts_with("dynamic workflow")
                || summary.starts_with("workflow")
                || summary.starts_with("agent")
            {
                Label::HarnessNotificationSubagent
            } else if summary.starts_with("monitor")
                || summary.starts_with("scheduled")
                || summary.starts_with("cron")
            {
                Label::HarnessNotificationMonitor
            } else {
                Label::HarnessNotificationTask
            };
            // SUB-018: an async child's <result> is its return, delivered to the parent.
            (
                leaf,
                body.contains("<result>")
                    .then_some(Label::AgentCommunicationInbox),
            )
        }
        SectionKind::Teammate => {
            let inner = body.find('>').map_or("", |g| &body[g + 1..]);
            let inner = inner
                .strip_suffix("</teammate-message>")
                .unwrap_or(inner)
                .trim();
            if inner.starts_with('{') && signal_type(inner).is_some() {
                (Label::AgentCommunicationSignal, None)
            } else {
                (Label::AgentCommunicationInbox, None)
            }
        }
        SectionKind::AgentMsg => (Label::AgentCommunicationInbox, None),
    }
}

/// A teammate control signal's type: `{"type":"idle_notification",…}` (CLS-011).
pub(crate) fn signal_type(json: &str) -> Option<String> {
    if !json.trim_start().starts_with('{') {
        return None;
    }
    #[derive(serde::Deserialize)]
    struct Sig {
        #[serde(rename = "type")]
        kind: Option<String>,
        message: Option<Box<SigInner>>,
    }
    #[derive(serde::Deserialize)]
    struct SigInner {
        #[serde(rename = "type")]
        kind: Option<String>,
    }
    let s: Sig = serde_json::from_str(json).ok()?;
    let t = s.kind.or_else(|| s.message.and_then(|m| m.kind))?;
    (t != "message" && t != "direct").then_some(t)
}

/// The units of a tool-result carrier, in block order: each tool_result, and
/// each text block beside them (text the user typed while a tool ran: its
/// own unit, labelled as the same text alone would be; turns module doc).
fn carrier_units<'r>(
    r: &'r Record<'_>,
    blocks: &'r [Block<'_>],
    line: usize,
    idx: &'r FileIndex,
    want_text: bool,
    out: &mut Vec<Unit<'r>>,
) {
    let answered = turns::is_answer_carrier(r);
    let rejection = turns::rejection_block(r);
    // TURN-009/010: the answer is the result that reads as one; with no such
    // text (a structured `answers` only), the first result that did not fail.
    let answer = answered
        .then(|| {
            let ok = |b: &&Block<'_>| b.kind() == "tool_result" && !b.is_error();
            let mut results = blocks.iter().enumerate().filter(|(_, b)| ok(b));
            let first = results.clone().next().map(|(i, _)| i);
            results
                .find(|(_, b)| b.result_starts_with(&mk::AUQ_MARKERS))
                .map(|(i, _)| i)
                .or(first)
        })
        .flatten();
    // Parsed only when a spawn's result is met.
    let ack = std::cell::OnceCell::new();
    for (i, b) in blocks.iter().enumerate() {
        if b.kind() == "text" {
            if let Some(t) = b.text.as_deref() {
                text_units(r, Cow::Borrowed(t), Some(i), line, idx, out);
            }
            continue;
        }
        if b.kind() != "tool_result" {
            continue;
        }
        let text = if want_text {
            b.result_text()
        } else {
            Cow::Borrowed("")
        };
        let id = b.tool_use_id.as_deref();
        let (label, also) = if rejection == Some(i) {
            (Label::UserRejection, Some(Label::AgentToolResult))
        } else if answer == Some(i) {
            (Label::UserAnswer, Some(Label::AgentToolResult))
        } else if id.is_some_and(|id| idx.is_spawn(id))
            && !b.is_error()
            && !*ack.get_or_init(|| turns::is_async_ack(r))
            && !b.result_starts_with(&[mk::ASYNC_ACK])
        {
            (Label::AgentCommunicationInbox, Some(Label::AgentToolResult))
        } else {
            (Label::AgentToolResult, None)
        };
        out.push(Unit {
            label,
            also,
            block: Some(i),
            text,
            tool_name: id.and_then(|id| idx.tool_name(id)),
            tool_use_id: id,
            is_error: b.is_error(),
            via: None,
        });
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
            let label = if r.attachment_kind().as_deref() == Some("hook_additional_context") {
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
