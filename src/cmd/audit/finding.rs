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
    pub(super) env: Env,
}

/// Bytes of a record's time and version kept in place (a time is 24 bytes,
/// a version under 10).
const INLINE: usize = 46;

/// An [`At`]'s time and version: in place when both are UTF-8 and fit
/// ([`INLINE`] bytes together), else as two strings. Every tool call and
/// eaten group takes one; two heap strings each showed 1.4% of a full
/// audit's profile on real bytes.
#[derive(Debug, Clone)]
pub(super) enum Env {
    /// `ts` then `ver` in `bytes`; a length of `u8::MAX` is an absent field.
    Inline {
        ts: u8,
        ver: u8,
        bytes: [u8; INLINE],
    },
    Heap(Option<String>, Option<String>),
}

impl Default for Env {
    fn default() -> Env {
        Env::Inline {
            ts: u8::MAX,
            ver: u8::MAX,
            bytes: [0; INLINE],
        }
    }
}

impl Env {
    /// The fields as [`String::from_utf8_lossy`] reads them.
    fn new(ts: Option<&[u8]>, ver: Option<&[u8]>) -> Env {
        let len = |b: Option<&[u8]>| b.map_or(0, <[u8]>::len);
        let utf8 = |b: Option<&[u8]>| b.is_none_or(|b| std::str::from_utf8(b).is_ok());
        let (t, v) = (len(ts), len(ver));
        if t + v > INLINE || !utf8(ts) || !utf8(ver) {
            let s = |b: Option<&[u8]>| b.map(|b| String::from_utf8_lossy(b).into_owned());
            return Env::Heap(s(ts), s(ver));
        }
        let mut bytes = [0; INLINE];
        bytes[..t].copy_from_slice(ts.unwrap_or_default());
        bytes[t..t + v].copy_from_slice(ver.unwrap_or_default());
        // Both lengths are at most INLINE, below u8::MAX.
        let n = |b: Option<&[u8]>, l: usize| b.map_or(u8::MAX, |_| l as u8);
        Env::Inline {
            ts: n(ts, t),
            ver: n(ver, v),
            bytes,
        }
    }

    fn get(&self) -> (Option<&str>, Option<&str>) {
        match self {
            Env::Inline { ts, ver, bytes } => {
                let len = |n: u8| (n != u8::MAX).then_some(usize::from(n));
                let field = |from: usize, n: Option<usize>| {
                    std::str::from_utf8(bytes.get(from..from + n?)?).ok()
                };
                let (t, v) = (len(*ts), len(*ver));
                (field(0, t), field(t.unwrap_or(0), v))
            }
            Env::Heap(t, v) => (t.as_deref(), v.as_deref()),
        }
    }
}

impl At {
    /// A record's place; an empty time or version is taken as absent.
    pub(crate) fn new(line: usize, sidechain: bool, ts: Option<&[u8]>, ver: Option<&[u8]>) -> At {
        At {
            line,
            sidechain,
            env: Env::new(ts.filter(|b| !b.is_empty()), ver.filter(|b| !b.is_empty())),
        }
    }

    /// A place with exactly this time and version.
    pub(crate) fn with(line: usize, sidechain: bool, ts: Option<&str>, ver: Option<&str>) -> At {
        At {
            line,
            sidechain,
            env: Env::new(ts.map(str::as_bytes), ver.map(str::as_bytes)),
        }
    }

    /// The record's `timestamp`, when it had a non-empty one.
    pub(crate) fn timestamp(&self) -> Option<&str> {
        self.env.get().0
    }

    /// The record's `version`, when it had a non-empty one.
    pub(crate) fn version(&self) -> Option<&str> {
        self.env.get().1
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
            timestamp: at.timestamp().map(str::to_string),
            version: at.version().map(str::to_string),
            detail,
        }
    }
}

impl At {
    /// Write this place for the census cache.
    pub(crate) fn encode(&self, e: &mut Enc) {
        e.u64(self.line as u64);
        e.bool(self.sidechain);
        e.opt_str(self.timestamp());
        e.opt_str(self.version());
    }

    pub(crate) fn decode(d: &mut Dec<'_>) -> Option<At> {
        let (line, sidechain) = (d.usize()?, d.bool()?);
        Some(At::with(line, sidechain, d.opt_str()?, d.opt_str()?))
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
        let sidechain = d.bool()?;
        let at = At::with(line, sidechain, d.opt_str()?, d.opt_str()?);
        Some(ctx.finding(kind, &at, message_id, d.str()?.to_string()))
    }
}
