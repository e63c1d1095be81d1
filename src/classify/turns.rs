//! Turns: which records open one and the genuine-user rule. A turn opens on any of
//! four shapes (TURN-003): a genuine user record, an answered AskUserQuestion
//! carrier (TURN-010), a rejection carrying a typed instruction (TURN-013), or an
//! inbound peer message (TURN-015). A slash command with non-empty
//! `<command-args>` also opens one: the args are what the user typed (TURN-008).
//! Compaction summaries are turn members, never openers (CMP-011, TURN-020).
//! Turn numbers are 1-based; records before the first opener are turn 0; a
//! superseded draft has no turn (TURN-022…024). Every command numbers turns here.
//!
//! Two shapes open a turn only when the model answers them
//! ([`opens_if_answered`]): a slash command with no arguments (TURN-007), and a
//! prompt that is only images (a pasted screenshot, IMG-001). A bare
//! `/plugin:command` or skill is work the user asked for, and a session
//! started by one would otherwise be all turn 0; a built-in that only prints
//! (`/model`, `/clear`, its output in `<local-command-stdout>`, TURN-006) gets
//! no answer and opens none. Whether an assistant record follows before the
//! next prompt is decided once the index's single pass is done, by a memmem
//! over the bytes up to that prompt (see `index::Piece::finish`): no second
//! pass over the file.
//!
//! A tool_result carrier that also holds text blocks (text the user typed
//! while a tool ran, delivered beside its result) opens no turn. Its text is a
//! `user.message` unit of the turn it arrives in: Claude Code hands it to the
//! model inside the running turn, as it does a queued prompt absorbed mid-turn
//! (QT-003's `absorbed_mid_turn` / `delivered_as_tool_result`), and the agent
//! goes on with that turn's work rather than starting another; the genuine-user
//! shape gate excludes every carrier (TURN-001, REC-030). Opening a turn there
//! would cut the running turn in two and give its first half no reply.

use std::borrow::Cow;

use super::markers as mk;
use crate::record::{opt_str, Record};

fn is_user(r: &Record<'_>) -> bool {
    r.kind() == "user" && r.has_message()
}

fn has_result(r: &Record<'_>) -> bool {
    r.blocks().iter().any(|b| b.kind() == "tool_result")
}

/// The genuine-user shape gate (manual §6.4; TURN-001, 004, 005, 006, 007, 019, 020):
/// typed by the operator, not harness text, not a tool_result carrier.
pub(crate) fn is_genuine_user(r: &Record<'_>) -> bool {
    if !is_user(r) || r.is_compact_summary() || r.is_meta() || has_result(r) {
        return false;
    }
    match r.user_text() {
        Some(s) => !mk::synthetic(&s) && !mk::has_peer_section(&s),
        None => false,
    }
}

/// A genuine-user opener the operator typed: not an automation pulse. A
/// `<task-notification>` passes every genuine-user gate and opens a turn, but
/// no one typed it and its units are `harness.notification.*` (TURN-018), so a
/// count of the operator's turns leaves it out.
pub(crate) fn is_operator_prose(r: &Record<'_>) -> bool {
    (is_genuine_user(r) && r.user_text().is_none_or(|s| mk::sections(&s).is_empty()))
        || is_image_prompt(r)
}

/// A user record whose content is only images (a pasted screenshot sent with
/// no words, IMG-001): not meta, not a carrier. It opens a turn when the
/// model answers it ([`opens_if_answered`]).
pub(crate) fn is_image_prompt(r: &Record<'_>) -> bool {
    is_user(r)
        && !r.is_meta()
        && !r.is_compact_summary()
        && !r.blocks().is_empty()
        && r.blocks().iter().all(|b| b.kind() == "image")
}

/// A non-meta slash-command wrapper with no `<command-args>` (TURN-007).
pub(crate) fn is_bare_slash(r: &Record<'_>) -> bool {
    if !is_user(r) || r.is_meta() || r.is_compact_summary() || has_result(r) {
        return false;
    }
    r.user_text().is_some_and(|s| {
        mk::SLASH_PREFIXES.iter().any(|p| s.starts_with(p)) && mk::slash_args(&s).is_none()
    })
}

/// Whether `r` opens a turn if, and only if, an assistant record follows it
/// before the next prompt (see the module doc): a bare slash command or an
/// image-only prompt. The index decides; a record out of context opens none.
pub(crate) fn opens_if_answered(r: &Record<'_>, lane: bool) -> bool {
    if !lane && r.is_sidechain() {
        return false;
    }
    is_bare_slash(r) || is_image_prompt(r)
}

/// TURN-010: a non-errored tool_result carrier with a non-empty
/// `toolUseResult.answers`, or text opening with an answered phrasing (TURN-009).
pub(crate) fn is_answer_carrier(r: &Record<'_>) -> bool {
    *r.carrier_memo.answer.get_or_init(|| answer_carrier(r))
}

fn answer_carrier(r: &Record<'_>) -> bool {
    if !is_user(r) {
        return false;
    }
    // Every result that did not fail: a failed call answered beside the
    // question (parallel calls) does not unmake its answer.
    let results: Vec<_> = r
        .blocks()
        .iter()
        .filter(|b| b.kind() == "tool_result" && !b.is_error())
        .collect();
    if results.is_empty() {
        return false;
    }
    // serde would read a struct from an array too: only an object can carry answers.
    // The record's walk says when the echo has no top-level `answers`.
    let may_answer = r
        .echo_keys()
        .is_none_or(|k| k.has(crate::record::echo::Key::Answers));
    let echo = r.tool_use_result().filter(|_| may_answer);
    if let Some(raw) = echo.filter(|raw| raw.get().starts_with('{')) {
        // A skim for the one top-level key: results echo whole files.
        let raw = raw.get().as_bytes();
        if crate::scan::lit!(b"\"answers\"").find(raw).is_some() {
            if let Some(a) = crate::scan::json::field(raw, b"answers") {
                if a.starts_with(b"{") && crate::scan::json::Fields::new(a, 0).next().is_some() {
                    return true;
                }
            }
        }
    }
    results
        .iter()
        .any(|b| b.result_starts_with(&mk::AUQ_MARKERS))
}

/// TURN-013: the index of a tool_result block carrying a typed rejection.
pub(crate) fn rejection_block(r: &Record<'_>) -> Option<usize> {
    *r.carrier_memo.rejection.get_or_init(|| find_rejection(r))
}

fn find_rejection(r: &Record<'_>) -> Option<usize> {
    if !is_user(r) {
        return None;
    }
    r.blocks().iter().enumerate().find_map(|(i, b)| {
        if b.kind() != "tool_result" {
            return None;
        }
        if !b.result_starts_with(&[mk::REJ_MARKER]) {
            return None;
        }
        let t = b.result_text();
        let typed = t
            .split_once(mk::REJ_DELIM)
            .is_some_and(|(_, said)| !said.trim().is_empty());
        typed.then_some(i)
    })
}

/// CLS-009: an async spawn's launch acknowledgement (not the child's report).
pub(crate) fn is_async_ack(r: &Record<'_>) -> bool {
    let Some(raw) = r.tool_use_result().filter(|raw| raw.get().starts_with('{')) else {
        return false;
    };
    #[derive(serde::Deserialize)]
    struct Ack<'a> {
        #[serde(borrow, default, deserialize_with = "opt_str")]
        status: Option<Cow<'a, str>>,
        #[serde(default, rename = "isAsync")]
        is_async: Option<bool>,
    }
    match serde_json::from_str::<Ack<'_>>(raw.get()) {
        Ok(a) => {
            a.is_async == Some(true)
                || matches!(
                    a.status.as_deref(),
                    Some("async_launched" | "teammate_spawned")
                )
        }
        Err(_) => false,
    }
}

/// TURN-015…017: a user record whose text holds an inbound peer section.
pub(crate) fn is_peer_record(r: &Record<'_>) -> bool {
    if !is_user(r) || r.is_compact_summary() || has_result(r) {
        return false;
    }
    r.user_text().is_some_and(|s| mk::has_peer_section(&s))
}

/// A non-meta slash-command wrapper with non-empty `<command-args>` (TURN-008).
pub(crate) fn is_slash_with_args(r: &Record<'_>) -> bool {
    if !is_user(r) || r.is_meta() || r.is_compact_summary() || has_result(r) {
        return false;
    }
    r.user_text().is_some_and(|s| {
        mk::SLASH_PREFIXES.iter().any(|p| s.starts_with(p)) && mk::slash_args(&s).is_some()
    })
}

/// Whether `r` opens a turn. `lane` says whether the file is a subagent lane:
/// inline sidechain records in a top-level file (1.0.x) never open a main turn.
pub(crate) fn opens_turn(r: &Record<'_>, lane: bool) -> bool {
    if !lane && r.is_sidechain() {
        return false;
    }
    is_genuine_user(r)
        || is_answer_carrier(r)
        || rejection_block(r).is_some()
        || is_peer_record(r)
        || is_slash_with_args(r)
}

/// The prompt text of a genuine user record (or a slash command's typed args).
pub(crate) fn prompt_text<'a>(r: &'a Record<'_>) -> Option<Cow<'a, str>> {
    if is_genuine_user(r) {
        return r.user_text();
    }
    if is_slash_with_args(r) {
        let s = r.user_text()?;
        let name = mk::xml_tag(&s, "command-name")
            .unwrap_or("")
            .trim()
            .to_string();
        let args = mk::slash_args(&s).unwrap_or("").to_string();
        return Some(Cow::Owned(format!("{name} {args}")));
    }
    None
}
