//! The plain read of a line: serde's walk keeping only the raw top-level values
//! the skim reads ([`RawTop`]), for a line the fused read cannot place exactly
//! (an escaped key) or refuses (a message `LiteMessage` will not take); the
//! detectors then parse what they need themselves.

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use crate::loss::skim::{truthy, Top};

fn b(v: Option<&RawValue>) -> Option<&[u8]> {
    v.map(|v| v.get().as_bytes())
}

fn s(v: Option<&RawValue>) -> Option<&[u8]> {
    b(v).and_then(|v| (v.len() >= 2 && v[0] == b'"').then(|| &v[1..v.len() - 1]))
}

fn object(v: Option<&RawValue>) -> Option<&[u8]> {
    b(v).filter(|v| v.starts_with(b"{"))
}

/// The raw top-level values [`checked`] reads; `null` is kept as a value, as
/// the skim keeps it.
#[derive(Deserialize, Default)]
pub(super) struct RawTop<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "raw")]
    pub(super) kind: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "raw")]
    pub(super) subtype: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "raw")]
    pub(super) uuid: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "raw")]
    pub(super) timestamp: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "raw")]
    pub(super) version: Option<&'a RawValue>,
    #[serde(rename = "agentId", borrow, default, deserialize_with = "raw")]
    pub(super) agent_id: Option<&'a RawValue>,
    #[serde(rename = "isSidechain", borrow, default, deserialize_with = "raw")]
    pub(super) is_sidechain: Option<&'a RawValue>,
    #[serde(rename = "isMeta", borrow, default, deserialize_with = "raw")]
    pub(super) is_meta: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "raw")]
    pub(super) message: Option<&'a RawValue>,
    #[serde(rename = "toolUseResult", borrow, default, deserialize_with = "raw")]
    pub(super) tool_use_result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "raw")]
    pub(super) data: Option<&'a RawValue>,
}

fn raw<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

impl<'a> RawTop<'a> {
    pub(super) fn top(&self) -> Top<'a> {
        Top {
            kind: s(self.kind),
            subtype: s(self.subtype),
            uuid: s(self.uuid),
            timestamp: s(self.timestamp),
            version: s(self.version),
            agent_id: s(self.agent_id),
            is_sidechain: b(self.is_sidechain).is_some_and(truthy),
            is_meta: b(self.is_meta).is_some_and(truthy),
            message: object(self.message),
            tool_use_result: b(self.tool_use_result),
            data: object(self.data),
            eaten: None,
        }
    }
}
