//! The record model: one JSON object per physical line, deserialised lazily into
//! borrowed types. Only the fields csift reads are named; every other field is
//! skipped by serde, and large payloads (`toolUseResult`, attachment payloads,
//! tool inputs and results) stay as `RawValue` slices until someone asks.
//! Unknown record types and block types never fail: they are kept by name so the
//! census can count them (REC-001, CLS-020).

pub mod content;
pub mod parse;

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

pub use content::{Block, Content};
pub use parse::{parse_line, Malformed, MalformedKind, Parsed};

pub type Str<'a> = Option<Cow<'a, str>>;
pub type Raw<'a> = Option<&'a RawValue>;

/// Memoised answers about a tool-result carrier record (never deserialised).
#[derive(Debug, Default)]
pub struct CarrierMemo {
    pub answer: std::cell::OnceCell<bool>,
    pub rejection: std::cell::OnceCell<Option<usize>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record<'a> {
    #[serde(rename = "type", borrow, default)]
    pub kind: Str<'a>,
    #[serde(borrow, default)]
    pub subtype: Str<'a>,
    #[serde(borrow, default)]
    pub uuid: Str<'a>,
    #[serde(borrow, default)]
    pub parent_uuid: Str<'a>,
    #[serde(borrow, default)]
    pub logical_parent_uuid: Str<'a>,
    #[serde(borrow, default)]
    pub timestamp: Str<'a>,
    #[serde(borrow, default)]
    pub session_id: Str<'a>,
    #[serde(borrow, default)]
    pub agent_id: Str<'a>,
    #[serde(borrow, default)]
    pub cwd: Str<'a>,
    #[serde(borrow, default)]
    pub version: Str<'a>,
    #[serde(borrow, default)]
    pub git_branch: Str<'a>,
    #[serde(default)]
    pub is_sidechain: Option<bool>,
    #[serde(default)]
    pub is_meta: Option<bool>,
    #[serde(default)]
    pub is_compact_summary: Option<bool>,
    #[serde(default)]
    pub is_visible_in_transcript_only: Option<bool>,
    #[serde(default)]
    pub is_api_error_message: Option<bool>,
    #[serde(borrow, default)]
    pub user_type: Str<'a>,
    #[serde(borrow, default)]
    pub message: Option<Message<'a>>,
    #[serde(borrow, default)]
    pub tool_use_result: Raw<'a>,
    /// Carrier verdicts computed once per record: turn detection and
    /// classification both ask (TURN-009/010/013), see `classify::turns`.
    #[serde(skip)]
    pub carrier_memo: CarrierMemo,
    /// Attachment records' payload (`{"type": <payload kind>, …}`, CLS-020).
    #[serde(borrow, default)]
    pub attachment: Raw<'a>,
    /// System records' text (string) or other payload.
    #[serde(borrow, default)]
    pub content: Raw<'a>,
    #[serde(borrow, default)]
    pub compact_metadata: Raw<'a>,
    #[serde(default)]
    pub duration_ms: Option<f64>,
    #[serde(borrow, default, rename = "toolUseID")]
    pub tool_use_id: Str<'a>,
    #[serde(borrow, default, rename = "sourceToolUseID")]
    pub source_tool_use_id: Str<'a>,
    #[serde(borrow, default, rename = "sourceToolAssistantUUID")]
    pub source_tool_assistant_uuid: Str<'a>,
    #[serde(borrow, default)]
    pub origin: Raw<'a>,
    /// queue-operation: `enqueue`, `dequeue`, `remove`, `popAll`.
    #[serde(borrow, default)]
    pub operation: Str<'a>,
    #[serde(borrow, default)]
    pub ai_title: Str<'a>,
    #[serde(borrow, default)]
    pub custom_title: Str<'a>,
    #[serde(borrow, default)]
    pub summary: Str<'a>,
    #[serde(borrow, default)]
    pub leaf_uuid: Str<'a>,
    #[serde(borrow, default)]
    pub agent_name: Str<'a>,
    #[serde(borrow, default)]
    pub last_prompt: Str<'a>,
    #[serde(borrow, default)]
    pub level: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Message<'a> {
    #[serde(borrow, default)]
    pub role: Str<'a>,
    #[serde(borrow, default)]
    pub id: Str<'a>,
    #[serde(borrow, default)]
    pub model: Str<'a>,
    #[serde(borrow, default)]
    pub content: Option<Content<'a>>,
    #[serde(borrow, default)]
    pub usage: Raw<'a>,
    #[serde(borrow, default)]
    pub stop_reason: Str<'a>,
}

impl<'a> Record<'a> {
    /// Top-level `type`, or `""` when absent.
    pub fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("")
    }

    pub fn subtype(&self) -> &str {
        self.subtype.as_deref().unwrap_or("")
    }

    pub fn is_sidechain(&self) -> bool {
        self.is_sidechain == Some(true)
    }

    pub fn is_meta(&self) -> bool {
        self.is_meta == Some(true)
    }

    pub fn is_compact_summary(&self) -> bool {
        self.is_compact_summary == Some(true)
    }

    pub fn role(&self) -> &str {
        self.message
            .as_ref()
            .and_then(|m| m.role.as_deref())
            .unwrap_or("")
    }

    pub fn model(&self) -> Option<&str> {
        self.message.as_ref().and_then(|m| m.model.as_deref())
    }

    pub fn message_id(&self) -> Option<&str> {
        self.message.as_ref().and_then(|m| m.id.as_deref())
    }

    pub fn content(&self) -> Option<&Content<'a>> {
        self.message.as_ref().and_then(|m| m.content.as_ref())
    }

    /// Content blocks, empty for string content or no message.
    pub fn blocks(&self) -> &[Block<'a>] {
        match self.content() {
            Some(Content::Blocks(b)) => b,
            _ => &[],
        }
    }

    /// String content, when the message content is a plain string.
    pub fn text_content(&self) -> Option<&str> {
        match self.content() {
            Some(Content::Text(s)) => Some(s),
            _ => None,
        }
    }

    /// Attachment payload kind (`hook_success`, `hook_additional_context`, …).
    pub fn attachment_kind(&self) -> Option<String> {
        // `type` leads the payload; a skim stops there instead of parsing the
        // whole attachment (hook output, file bodies).
        let raw = self.attachment.filter(|r| r.get().starts_with('{'))?;
        let v = crate::scan::json::field(raw.get().as_bytes(), b"type")?;
        crate::scan::json::string(v).map(Cow::into_owned)
    }

    /// A system record's `content` when it is a string.
    pub fn system_text(&self) -> Option<Cow<'a, str>> {
        let raw = self.content?;
        serde_json::from_str::<Cow<'a, str>>(raw.get()).ok()
    }

    /// Whether the record carries a `message{}` at all: the one measured
    /// LLM-visibility instrument (CLS-002).
    pub fn has_message(&self) -> bool {
        self.message.is_some()
    }
}
