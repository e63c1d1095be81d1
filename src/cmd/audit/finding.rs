//! The one result type every detector produces, and the per-record context
//! (where, when, which build) a detector stamps on it.

use serde::Serialize;

use crate::cli::audit::Kind;

/// One detected loss or anomaly. `line` is 1-based; 0 when the finding is about
/// a file or folder rather than a line, written `null` in JSON (no line 0 exists).
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    #[serde(rename = "type")]
    pub record: &'static str,
    #[serde(serialize_with = "kind_name")]
    pub kind: Kind,
    pub file: String,
    #[serde(serialize_with = "line_or_null")]
    pub line: usize,
    pub session_id: String,
    pub message_id: Option<String>,
    pub sidechain: bool,
    pub timestamp: Option<String>,
    pub version: Option<String>,
    pub detail: String,
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
pub struct At {
    pub line: usize,
    pub sidechain: bool,
    pub timestamp: Option<String>,
    pub version: Option<String>,
}

impl At {
    pub fn new(line: usize, sidechain: bool, ts: Option<&[u8]>, ver: Option<&[u8]>) -> At {
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
pub struct FileCtx {
    pub file: String,
    pub session_id: String,
    pub is_lane: bool,
}

impl FileCtx {
    pub fn finding(
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
