//! The record model: one JSON object per physical line, deserialised lazily into
//! borrowed types. Only the fields csift reads are named; every other field is
//! skipped by serde, and large payloads (`toolUseResult`, attachment payloads,
//! tool inputs and results) stay as `RawValue` slices until someone asks.
//! Unknown record types and block types never fail: they are kept by name so the
//! census can count them (REC-001, CLS-020).

pub(crate) mod content;
pub(crate) mod echo;
pub(crate) mod embedded;
pub mod fast;
pub(crate) mod parse;
pub(crate) mod surrogate;

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

pub(crate) use content::{Block, Content, BLOCK_TYPES, RECORD_TYPES};
pub(crate) use embedded::Embedded;
pub use parse::{
    glued_parsed, glued_records, line_records, parse_line, Malformed, MalformedKind, Parsed,
};

/// An optional string field, borrowed from the line unless it holds escapes.
/// Every field of this type needs `deserialize_with = "opt_str"`:
/// serde's derive borrows only a bare `Cow<str>`, so an `Option<Cow<str>>`
/// (or this alias) would otherwise copy every string it reads into a `String`.
pub(crate) type Str<'a> = Option<Cow<'a, str>>;

/// Deserialise a [`Str`] field without copying an unescaped string.
pub(crate) fn opt_str<'de: 'a, 'a, D>(d: D) -> Result<Str<'a>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    struct Borrowed<'b>(#[serde(borrow)] Cow<'b, str>);
    Ok(Option::<Borrowed<'a>>::deserialize(d)?.map(|b| b.0))
}
pub(crate) type Raw<'a> = Option<&'a RawValue>;

/// Memoised answers about a tool-result carrier record (never deserialised).
#[derive(Debug, Default)]
pub(crate) struct CarrierMemo {
    pub(crate) answer: std::cell::OnceCell<bool>,
    pub(crate) rejection: std::cell::OnceCell<Option<usize>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "opt_str")]
    pub(crate) kind: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) subtype: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) uuid: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) parent_uuid: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) timestamp: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) session_id: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) cwd: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) version: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) git_branch: Str<'a>,
    #[serde(default)]
    pub(crate) is_sidechain: Option<bool>,
    #[serde(default)]
    pub(crate) is_meta: Option<bool>,
    #[serde(default)]
    pub(crate) is_compact_summary: Option<bool>,
    #[serde(borrow, default)]
    pub(crate) message: Option<Message<'a>>,
    /// `toolUseResult`, with the keys its readers ask about when the line
    /// was read by [`parse_line`] ([`echo`]); [`Record::tool_use_result`].
    #[serde(
        rename = "toolUseResult",
        borrow,
        default,
        deserialize_with = "echo::read"
    )]
    pub(crate) echo: Option<echo::Echo<'a>>,
    /// Carrier verdicts computed once per record: turn detection and
    /// classification both ask (TURN-009/010/013), see `classify::turns`.
    #[serde(skip)]
    pub(crate) carrier_memo: CarrierMemo,
    /// Attachment records' payload (`{"type": <payload kind>, …}`, CLS-020).
    #[serde(borrow, default)]
    pub(crate) attachment: Raw<'a>,
    /// System records' text (string) or other payload.
    #[serde(borrow, default)]
    pub(crate) content: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) compact_metadata: Raw<'a>,
    /// `durationMs` as written (a turn_duration's text quotes it as on disk);
    /// [`Record::duration_ms`] reads its number.
    #[serde(borrow, default, rename = "durationMs")]
    pub(crate) duration_ms_raw: Raw<'a>,
    /// queue-operation: `enqueue`, `dequeue`, `remove`, `popAll`.
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) operation: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) ai_title: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) custom_title: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) summary: Str<'a>,
    /// A `summary` line's `leafUuid`: the last record of the conversation it
    /// summarises (list titles a session by it only when that record is there).
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) leaf_uuid: Str<'a>,
    /// A progress record's payload; an `agent_progress` one nests a subagent
    /// record ([`Record::embedded`]).
    #[serde(borrow, default)]
    pub(crate) data: Raw<'a>,
    #[serde(skip)]
    embedded: std::cell::OnceCell<embedded::Nested<'a>>,
    /// Whether the record could be read only by reading a lone surrogate
    /// escape in its line as U+FFFD ([`surrogate`]); set by [`parse_line`].
    #[serde(skip)]
    pub(crate) repaired: bool,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct Message<'a> {
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) id: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) model: Str<'a>,
    #[serde(borrow, default)]
    pub(crate) content: Option<Content<'a>>,
    #[serde(borrow, default)]
    pub(crate) usage: Raw<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) stop_reason: Str<'a>,
}

impl<'a> Record<'a> {
    /// Top-level `type`, or `""` when absent.
    pub(crate) fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("")
    }

    /// `durationMs` as a number; `None` when absent or not a number.
    pub(crate) fn duration_ms(&self) -> Option<f64> {
        self.duration_ms_raw
            .and_then(|r| r.get().parse::<f64>().ok())
    }

    pub(crate) fn subtype(&self) -> &str {
        self.subtype.as_deref().unwrap_or("")
    }

    pub(crate) fn is_sidechain(&self) -> bool {
        self.is_sidechain == Some(true)
    }

    pub(crate) fn is_meta(&self) -> bool {
        self.is_meta == Some(true)
    }

    pub(crate) fn is_compact_summary(&self) -> bool {
        self.is_compact_summary == Some(true)
    }

    /// `toolUseResult` as written.
    pub(crate) fn tool_use_result(&self) -> Raw<'a> {
        self.echo.as_ref().and_then(echo::Echo::raw)
    }

    /// The keys of an object `toolUseResult` its readers ask about, when the
    /// record's walk read them ([`echo`]).
    pub(crate) fn echo_keys(&self) -> Option<echo::EchoKeys> {
        self.echo.as_ref().and_then(|e| e.keys)
    }

    pub(crate) fn model(&self) -> Option<&str> {
        self.message.as_ref().and_then(|m| m.model.as_deref())
    }

    pub(crate) fn message_id(&self) -> Option<&str> {
        self.message.as_ref().and_then(|m| m.id.as_deref())
    }

    pub(crate) fn content(&self) -> Option<&Content<'a>> {
        self.message.as_ref().and_then(|m| m.content.as_ref())
    }

    /// Content blocks, empty for string content or no message.
    pub(crate) fn blocks(&self) -> &[Block<'a>] {
        match self.content() {
            Some(Content::Blocks(b)) => b,
            _ => &[],
        }
    }

    /// Blocks of a type csift does not model ([`content::BLOCK_TYPES`]), with
    /// their index: classify gives them no unit, so a printer says they are
    /// there rather than drop them silently.
    pub(crate) fn unknown_blocks(&self) -> impl Iterator<Item = (usize, &Block<'a>)> {
        self.blocks()
            .iter()
            .enumerate()
            .filter(|(_, b)| !content::BLOCK_TYPES.contains(&b.kind()))
    }

    /// String content, when the message content is a plain string.
    pub(crate) fn text_content(&self) -> Option<&str> {
        match self.content() {
            Some(Content::Text(s)) => Some(s),
            _ => None,
        }
    }

    /// The text of the message: its string content, or its text blocks joined
    /// by `\n` (R-U0). Every text block counts, never only the first. Read by
    /// the turn rules (`classify::turns`) and the unit classifier alike, so it
    /// lives with the record rather than in either.
    pub(crate) fn user_text(&self) -> Option<Cow<'_, str>> {
        if let Some(s) = self.text_content() {
            return Some(Cow::Borrowed(s));
        }
        let texts: Vec<&str> = self
            .blocks()
            .iter()
            .filter(|b| b.kind() == "text")
            .filter_map(|b| b.text.as_deref())
            .collect();
        match texts.len() {
            0 => None,
            1 => Some(Cow::Borrowed(texts[0])),
            _ => Some(Cow::Owned(texts.join("\n"))),
        }
    }

    /// Attachment payload kind (`hook_success`, `hook_additional_context`, …).
    pub(crate) fn attachment_kind(&self) -> Option<String> {
        self.attachment_type().map(Cow::into_owned)
    }

    /// [`Record::attachment_kind`], borrowed from the line unless escaped
    /// (the census asks it of every attachment record, up to three times).
    pub(crate) fn attachment_type(&self) -> Option<Cow<'a, str>> {
        // `type` leads the payload; a skim stops there instead of parsing the
        // whole attachment (hook output, file bodies).
        let raw = self.attachment.filter(|r| r.get().starts_with('{'))?;
        let v = crate::scan::json::field(raw.get().as_bytes(), b"type")?;
        crate::scan::json::string(v)
    }

    /// A system record's `content` when it is a string.
    pub(crate) fn system_text(&self) -> Option<Cow<'a, str>> {
        let raw = self.content?;
        serde_json::from_str::<Cow<'a, str>>(raw.get())
            .ok()
            .or_else(|| surrogate::string(raw.get()).map(Cow::Owned))
    }

    /// The subagent record an `agent_progress` record nests, read once.
    pub(crate) fn embedded(&self) -> Option<&Embedded<'a>> {
        match self.nested() {
            embedded::Nested::Record(e) => Some(e),
            _ => None,
        }
    }

    /// Whether this is an `agent_progress` record whose nested record csift
    /// cannot read ([`embedded::Nested::Unreadable`]).
    pub(crate) fn nested_unreadable(&self) -> bool {
        matches!(self.nested(), embedded::Nested::Unreadable)
    }

    fn nested(&self) -> &embedded::Nested<'a> {
        self.embedded.get_or_init(|| match self.data {
            Some(data) if self.kind() == "progress" => embedded::read(data),
            _ => embedded::Nested::None,
        })
    }

    /// Whether the record carries a `message{}` at all: the one measured
    /// LLM-visibility instrument (CLS-002).
    pub(crate) fn has_message(&self) -> bool {
        self.message.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serde's derive borrows only a bare `Cow<str>`; without `opt_str` every
    /// optional string (uuids, block text, thinking) was copied per record.
    #[test]
    fn string_fields_borrow_from_the_line_unless_escaped() {
        let line = r#"{"type":"assistant","uuid":"u-1","message":{"id":"m1","model":"x","content":[{"type":"text","text":"plain body"},{"type":"text","text":"a \"quoted\" body"}]}}"#;
        let r: Record<'_> = serde_json::from_str(line).unwrap();
        assert!(matches!(r.kind, Some(Cow::Borrowed("assistant"))));
        assert!(matches!(r.uuid, Some(Cow::Borrowed("u-1"))));
        let m = r.message.as_ref().unwrap();
        assert!(matches!(m.id, Some(Cow::Borrowed("m1"))));
        let blocks = r.blocks();
        assert!(matches!(blocks[0].text, Some(Cow::Borrowed("plain body"))));
        // An escaped string cannot borrow; it is decoded, not dropped.
        assert!(matches!(&blocks[1].text, Some(Cow::Owned(s)) if s == "a \"quoted\" body"));
        assert_eq!(r.parent_uuid, None);
        // A null is absent, as before.
        let r: Record<'_> = serde_json::from_str(r#"{"type":null,"uuid":"x"}"#).unwrap();
        assert_eq!(r.kind, None);
    }
}
