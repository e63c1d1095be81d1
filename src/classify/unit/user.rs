//! The units of a user record: its typed text (batched sections, CLS-006, and
//! the string rules R-U4…R-U11), a tool-result carrier's results and the text
//! typed beside them, an image-only prompt, a teammate control signal.

use super::*;

pub(super) fn classify_user<'r>(
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
