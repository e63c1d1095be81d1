//! Text search cannot reach: a record type or a content block type csift does
//! not model ([`crate::record::RECORD_TYPES`], [`crate::record::BLOCK_TYPES`])
//! gives no unit, so a pattern in its text matches nothing. Claude Code adds
//! such types from one version to the next (REC-010: the binary registers 22
//! block types, most never observed). Rather than answer "no hit" in silence,
//! search matches the pattern against the unmodelled part's values, as written
//! in the line, and says where it matched, so the line can be read with
//! `show --line N --raw`. Only lines the prefilter flagged and search parsed are looked
//! at, and only when no unit of the record was a hit. A subagent record nested
//! in an `agent_progress` record is looked at the same way, one level in, and
//! so is one csift cannot read at all.

use std::borrow::Cow;

use regex::Regex;

use crate::record::content::RESULT_PART_TYPES;
use crate::record::{Record, BLOCK_TYPES, RECORD_TYPES};
use crate::scan::json::{self, Fields};

/// Envelope keys every record carries: ids, times and places, not content. A
/// pattern matching a session id or a working directory is not content the
/// record's type hides.
const ENVELOPE: &[&[u8]] = &[
    b"type",
    b"uuid",
    b"parentUuid",
    b"logicalParentUuid",
    b"sessionId",
    b"agentId",
    b"timestamp",
    b"cwd",
    b"version",
    b"gitBranch",
    b"userType",
    b"isSidechain",
    b"requestId",
    b"slug",
    b"entrypoint",
];

/// Where the pattern matched in `line` (record `r`'s bytes) that no unit holds,
/// as the phrase stderr says after "matches only in": ``a block type `y` csift
/// does not model`` and the like; `None` when the record is modelled or the
/// pattern is not in its unmodelled values.
pub(crate) fn matched(r: &Record<'_>, line: &[u8], re: &Regex) -> Option<String> {
    let kind = r.kind();
    if kind == "progress" {
        if let Some(what) = nested(r, line, re) {
            return Some(what);
        }
    }
    if !RECORD_TYPES.contains(&kind) {
        let found = Fields::new(line, 0)
            .map_while(Result::ok)
            .filter(|(k, _)| !ENVELOPE.contains(k))
            .any(|(_, v)| value_matches(v, re));
        return found.then(|| match kind {
            "" => "a record with no type, which csift does not model".to_string(),
            k => format!("a record type `{k}` csift does not model"),
        });
    }
    let content = || json::field(line, b"message").and_then(|m| json::field(m, b"content"));
    if r.unknown_blocks().next().is_some() {
        let found = json::elements(content()?)
            .filter_map(|block| {
                let kind = json::field(block, b"type").and_then(json::string)?;
                (!BLOCK_TYPES.contains(&kind.as_ref())).then_some((kind, block))
            })
            .find(|(_, block)| fields_match(block, &[b"type"], re))
            .map(|(kind, _)| format!("a block type `{kind}` csift does not model"));
        if found.is_some() {
            return found;
        }
    }
    // A tool_result part of a type csift does not model (a `document` part's
    // title and source): its `text`, if any, is searched; its other fields not.
    let mut odd_part = false;
    for b in r.blocks().iter().filter(|b| b.kind() == "tool_result") {
        b.result_part_kinds(|k| odd_part |= !RESULT_PART_TYPES.contains(&k));
    }
    if !odd_part {
        return None;
    }
    json::elements(content()?)
        .filter(|block| {
            json::field(block, b"type")
                .and_then(json::string)
                .as_deref()
                == Some("tool_result")
        })
        .filter_map(|block| json::field(block, b"content"))
        .flat_map(json::elements)
        .filter_map(|part| {
            let kind = json::field(part, b"type")
                .and_then(json::string)
                .unwrap_or_default();
            (!RESULT_PART_TYPES.contains(&kind.as_ref())).then_some((kind, part))
        })
        .find(|(_, part)| fields_match(part, &[b"type", b"text"], re))
        .map(|(kind, _)| match kind.as_ref() {
            "" => "a tool_result part with no type, which csift does not model".to_string(),
            k => format!("a tool_result part type `{k}` csift does not model"),
        })
}

/// Whether `re` matches a value of object `obj` outside the keys `skip`.
fn fields_match(obj: &[u8], skip: &[&[u8]], re: &Regex) -> bool {
    Fields::new(obj, 0)
        .map_while(Result::ok)
        .filter(|(k, _)| !skip.contains(k))
        .any(|(_, v)| value_matches(v, re))
}

/// The same for the subagent record an `agent_progress` record nests
/// ([`crate::record::embedded`]): one of a type csift does not model, or one
/// csift cannot read at all, whose `data` is then searched but for its type,
/// its agent id and its `prompt` (the spawn prompt, which the parent's call
/// holds as a unit).
fn nested(r: &Record<'_>, line: &[u8], re: &Regex) -> Option<String> {
    if r.nested_unreadable() {
        let data = json::field(line, b"data")?;
        let found = Fields::new(data, 0)
            .map_while(Result::ok)
            .filter(|(k, _)| !matches!(*k, b"type" | b"agentId" | b"prompt"))
            .any(|(_, v)| value_matches(v, re));
        return found
            .then(|| "an agent_progress record whose nested record csift cannot read".into());
    }
    let e = r.embedded()?;
    // Most nested records are modelled: the line is walked only for one that is not.
    let inner = &e.record;
    if RECORD_TYPES.contains(&inner.kind()) && inner.unknown_blocks().next().is_none() {
        return None;
    }
    let raw = json::field(line, b"data").and_then(|d| json::field(d, b"message"))?;
    matched(inner, raw, re).map(|what| format!("{what}, nested in an agent_progress record"))
}

/// Whether `re` matches a value: a string decoded, an object or array with its
/// strings decoded (keys included), a scalar as written.
fn value_matches(v: &[u8], re: &Regex) -> bool {
    let Ok(raw) = std::str::from_utf8(v) else {
        return false;
    };
    let text = match v.first() {
        Some(b'"') => json::string(v).unwrap_or(Cow::Borrowed(raw)),
        Some(b'{' | b'[') => json::decode_strings(raw).map_or(Cow::Borrowed(raw), Cow::Owned),
        _ => Cow::Borrowed(raw),
    };
    re.is_match(&text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{parse_line, Parsed};
    use crate::scan::Line;

    fn check(line: &str, pat: &str) -> Option<String> {
        let l = Line {
            no: 1,
            offset: 0,
            bytes: line.as_bytes(),
            terminated: true,
        };
        let Parsed::Record(r) = parse_line(&l) else {
            panic!("{line}")
        };
        matched(&r, line.as_bytes(), &Regex::new(pat).unwrap())
    }

    #[test]
    fn an_unknown_block_or_record_says_what_hid_the_match_rec_010() {
        let block = r#"{"type":"assistant","uuid":"zebra-id","message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"brand_block","body":{"note":"the \"zebra\" said"}}]}}"#;
        assert_eq!(
            check(block, r#""zebra""#).as_deref(),
            Some("a block type `brand_block` csift does not model")
        );
        // In the envelope or a modelled block only: nothing hidden.
        assert_eq!(check(block, "zebra-id"), None);
        assert_eq!(check(block, "^hi$"), None);
        let rec = r#"{"type":"brand_record","uuid":"u","cwd":"/tmp/zebra","content":"a zebra"}"#;
        assert_eq!(
            check(rec, "a zebra").as_deref(),
            Some("a record type `brand_record` csift does not model")
        );
        assert_eq!(check(rec, "tmp/zebra"), None);
        let untyped = r#"{"uuid":"u","payload":["x", "zebra"]}"#;
        assert_eq!(
            check(untyped, "zebra").as_deref(),
            Some("a record with no type, which csift does not model")
        );
        // Modelled types are never reported, whatever their text.
        let known = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"zebra"}]}}"#;
        assert_eq!(check(known, "zebra"), None);
        // A subagent record nested in agent_progress: the same, one level in.
        let nested = r#"{"type":"progress","uuid":"zebra-p","data":{"type":"agent_progress","agentId":"a1","message":{"type":"assistant","uuid":"zebra-n","message":{"content":[{"type":"brand_block","text":"a zebra"}]}}}}"#;
        assert_eq!(
            check(nested, "a zebra").as_deref(),
            Some("a block type `brand_block` csift does not model, nested in an agent_progress record")
        );
        assert_eq!(check(nested, "zebra-"), None, "envelopes at either level");
        let nested_rec = r#"{"type":"progress","data":{"type":"agent_progress","message":{"type":"brand_record","text":"a zebra"}}}"#;
        assert_eq!(
            check(nested_rec, "zebra").as_deref(),
            Some("a record type `brand_record` csift does not model, nested in an agent_progress record")
        );
        let unreadable = r#"{"type":"progress","data":{"type":"agent_progress","agentId":"zebra","prompt":"find the zebra herd","message":"a zebra ran"}}"#;
        assert_eq!(
            check(unreadable, "zebra ran").as_deref(),
            Some("an agent_progress record whose nested record csift cannot read")
        );
        assert_eq!(
            check(unreadable, "^zebra$"),
            None,
            "the agent id is envelope"
        );
        assert_eq!(
            check(unreadable, "zebra herd"),
            None,
            "the spawn prompt is the parent's call"
        );
        let shell = r#"{"type":"progress","data":{"type":"bash_progress","output":"a zebra"}}"#;
        assert_eq!(check(shell, "zebra"), None, "other progress is modelled");
        // REC-038: a re-spaced line reads the same.
        let spaced = r#"{"type": "assistant", "message": {"content": [{"type": "brand_block", "text": "zebra"}]}}"#;
        assert_eq!(
            check(spaced, "zebra").as_deref(),
            Some("a block type `brand_block` csift does not model")
        );
    }
}
