//! The one result type every detector produces, and the per-record context
//! (where, when, which build) a detector stamps on it.

use serde::Serialize;

use crate::cache::{Dec, Enc};
use crate::cli::audit::Kind;

/// One detected loss or anomaly. `line` is 1-based; 0 when the finding is about
/// a file or folder rather than a line, written `null` in JSON (no line 0 exists).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Finding {
    #[serde(rename = "type")]
    pub(crate) record: &'static str,
    #[serde(serialize_with = "kind_name")]
    pub(crate) kind: Kind,
    pub(crate) file: String,
    #[serde(serialize_with = "line_or_null")]
    pub(crate) line: usize,
    pub(crate) session_id: String,
    pub(crate) message_id: Option<String>,
    pub(crate) sidechain: bool,
    pub(crate) timestamp: Option<String>,
    pub(crate) version: Option<String>,
    pub(crate) detail: String,
}

fn kind_name<S: serde::Serializer>(k: &Kind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(k.name())
}

fn line_or_null<S: serde::Serializer>(line: &usize, s: S) -> Result<S::Ok, S::Error> {
    match line {
        0 => s.serialize_none(),
        n => s.serialize_u64(*n as u64),
    }
}

/// Where a record sits and what its envelope says; detectors copy it into findings.
#[derive(Debug, Clone, Default)]
pub(crate) struct At {
    pub(crate) line: usize,
    pub(crate) sidechain: bool,
    pub(crate) timestamp: Option<String>,
    pub(crate) version: Option<String>,
}

impl At {
    pub(crate) fn new(line: usize, sidechain: bool, ts: Option<&[u8]>, ver: Option<&[u8]>) -> At {
        let s = |b: Option<&[u8]>| {
            b.filter(|b| !b.is_empty())
                .map(|b| String::from_utf8_lossy(b).into_owned())
        };
        At {
            line,
            sidechain,
            timestamp: s(ts),
            version: s(ver),
        }
    }
}

/// The file a detector is reading, for stamping findings.
#[derive(Debug, Clone)]
pub(crate) struct FileCtx {
    pub(crate) file: String,
    pub(crate) session_id: String,
    pub(crate) is_lane: bool,
}

impl FileCtx {
    pub(crate) fn finding(
        &self,
        kind: Kind,
        at: &At,
        message_id: Option<String>,
        detail: String,
    ) -> Finding {
        Finding {
            record: "finding",
            kind,
            file: self.file.clone(),
            line: at.line,
            session_id: self.session_id.clone(),
            message_id,
            sidechain: at.sidechain,
            timestamp: at.timestamp.clone(),
            version: at.version.clone(),
            detail,
        }
    }
}

impl At {
    /// Write this place for the census cache.
    pub(crate) fn encode(&self, e: &mut Enc) {
        e.u64(self.line as u64);
        e.bool(self.sidechain);
        e.opt_str(self.timestamp.as_deref());
        e.opt_str(self.version.as_deref());
    }

    pub(crate) fn decode(d: &mut Dec<'_>) -> Option<At> {
        Some(At {
            line: d.usize()?,
            sidechain: d.bool()?,
            timestamp: d.opt_str()?.map(str::to_string),
            version: d.opt_str()?.map(str::to_string),
        })
    }
}

impl Finding {
    /// Write a finding for the census cache, without its file and session
    /// (the entry's own path gives both back: [`Finding::decode`]).
    pub(crate) fn encode(&self, e: &mut Enc) {
        let kind = Kind::ALL.iter().position(|k| *k == self.kind).unwrap_or(0);
        e.u8(kind as u8);
        e.u64(self.line as u64);
        e.opt_str(self.message_id.as_deref());
        e.bool(self.sidechain);
        e.opt_str(self.timestamp.as_deref());
        e.opt_str(self.version.as_deref());
        e.str(&self.detail);
    }

    pub(crate) fn decode(d: &mut Dec<'_>, ctx: &FileCtx) -> Option<Finding> {
        let kind = *Kind::ALL.get(usize::from(d.u8()?))?;
        let line = d.usize()?;
        let message_id = d.opt_str()?.map(str::to_string);
        let at = At {
            line,
            sidechain: d.bool()?,
            timestamp: d.opt_str()?.map(str::to_string),
            version: d.opt_str()?.map(str::to_string),
        };
        Some(ctx.finding(kind, &at, message_id, d.str()?.to_string()))
    }
}
