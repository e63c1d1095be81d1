//! `message.content`: a plain string or an array of blocks (REC-002). A block is
//! one flat struct rather than a tagged enum, so an unknown block type still
//! deserialises and keeps its `type` name for the census.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Raw, Str};

#[derive(Debug)]
pub enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
    /// Neither a string nor an array (counted as an unknown content shape).
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element::<Block<'a>>()? {
                    out.push(b);
                }
                Ok(Content::Blocks(out))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map
                    .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Content::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// One content block. `kind` is `text`, `thinking`, `redacted_thinking`,
/// `tool_use`, `tool_result`, `image`, `document`, or anything newer.
#[derive(Debug, Default, Deserialize)]
pub struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    pub kind: Str<'a>,
    #[serde(borrow, default)]
    pub text: Str<'a>,
    #[serde(borrow, default)]
    pub thinking: Str<'a>,
    #[serde(borrow, default)]
    pub signature: Str<'a>,
    #[serde(borrow, default)]
    pub id: Str<'a>,
    #[serde(borrow, default)]
    pub name: Str<'a>,
    #[serde(borrow, default)]
    pub input: Raw<'a>,
    #[serde(borrow, default)]
    pub tool_use_id: Str<'a>,
    /// tool_result content: a string or an array of text/image parts.
    #[serde(borrow, default)]
    pub content: Raw<'a>,
    #[serde(default)]
    pub is_error: Option<bool>,
    #[serde(borrow, default)]
    pub source: Raw<'a>,
}

impl<'a> Block<'a> {
    pub fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("")
    }

    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }

    /// The decoded text of a tool_result's content: the string itself, or its text
    /// parts joined by newlines (image parts become `[image]`).
    pub fn result_text(&self) -> Cow<'a, str> {
        match self.content {
            Some(raw) => raw_text(raw),
            None => Cow::Borrowed(""),
        }
    }

    /// A tool_use's input exactly as written (compact JSON), `{}` when absent.
    pub fn input_json(&self) -> &'a str {
        self.input.map_or("{}", RawValue::get)
    }

    /// Number of image parts inside a tool_result's content array.
    pub fn result_images(&self) -> usize {
        // Only an array can hold image parts; a string costs nothing to rule out.
        match self
            .content
            .filter(|r| r.get().starts_with('['))
            .map(|r| serde_json::from_str::<Vec<Part<'_>>>(r.get()))
        {
            Some(Ok(parts)) => parts
                .iter()
                .filter(|p| p.kind.as_deref() == Some("image"))
                .count(),
            _ => 0,
        }
    }
}

#[derive(Deserialize)]
struct Part<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Str<'a>,
    #[serde(borrow, default)]
    text: Str<'a>,
}

/// Decode a string-or-parts JSON value into text (REC-002, REC-036: the text a
/// user means, with JSON escapes undone).
pub fn raw_text<'a>(raw: &'a RawValue) -> Cow<'a, str> {
    let s = raw.get();
    match s.as_bytes().first() {
        Some(b'"') => {
            // Borrow when no escapes, else one owned decode.
            #[derive(Deserialize)]
            struct W<'b>(#[serde(borrow)] Cow<'b, str>);
            match serde_json::from_str::<W<'a>>(s) {
                Ok(W(c)) => c,
                Err(_) => Cow::Borrowed(""),
            }
        }
        Some(b'[') => match serde_json::from_str::<Vec<Part<'a>>>(s) {
            Ok(parts) => {
                if parts.len() == 1 && parts[0].kind.as_deref() == Some("text") {
                    if let Some(t) = &parts[0].text {
                        return t.clone();
                    }
                }
                let mut out = String::new();
                for p in &parts {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    match (p.kind.as_deref(), &p.text) {
                        (_, Some(t)) => out.push_str(t),
                        (Some("image"), None) => out.push_str("[image]"),
                        (Some(k), None) => {
                            out.push('[');
                            out.push_str(k);
                            out.push(']');
                        }
                        (None, None) => {}
                    }
                }
                Cow::Owned(out)
            }
            Err(_) => Cow::Borrowed(s),
        },
        Some(b'n') => Cow::Borrowed(""),
        _ => Cow::Borrowed(s),
    }
}
