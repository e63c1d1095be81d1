//! Turns: which records open one (TURN-003) and the genuine-user rule (manual
//! §6.4, TURN-001…004). Every command numbers turns through here.

use std::borrow::Cow;

use crate::record::Record;

/// Whether a raw line could be a turn-opening user record (cheap byte test, no
/// false negatives): it must be a user record.
pub fn may_open_turn(line: &[u8]) -> bool {
    memchr::memmem::find(line, b"\"type\":\"user\"").is_some()
        || memchr::memmem::find(line, b"\"type\": \"user\"").is_some()
}

/// Whether `r` is a genuine user record: typed by the operator (manual §6.4).
pub fn is_genuine_user(r: &Record<'_>) -> bool {
    if r.kind() != "user" || r.role() != "user" || r.is_compact_summary() || r.is_meta() {
        return false;
    }
    if let Some(s) = r.text_content() {
        return !s.trim().is_empty();
    }
    let b = r.blocks();
    b.iter().any(|b| b.kind() == "text") && !b.iter().any(|b| b.kind() == "tool_result")
}

/// Whether `r` opens a turn (TURN-003).
pub fn opens_turn(r: &Record<'_>) -> bool {
    is_genuine_user(r)
}

/// The prompt text of a genuine user record.
pub fn prompt_text<'a>(r: &'a Record<'_>) -> Option<Cow<'a, str>> {
    if !is_genuine_user(r) {
        return None;
    }
    if let Some(s) = r.text_content() {
        return Some(Cow::Borrowed(s));
    }
    let t: Vec<&str> = r
        .blocks()
        .iter()
        .filter(|b| b.kind() == "text")
        .filter_map(|b| b.text.as_deref())
        .collect();
    Some(Cow::Owned(t.join("\n")))
}
