//! Sessions minted as copies of another. A transcript whose FIRST timestamped
//! record is a `system`/`compact_boundary` was made by copying another session
//! at that compaction (CMP-012): the copy keeps the origin's record uuids and
//! times and rewrites the rest (REC-041, CMP-014), so its records predate its
//! own file; no file time tells it (CMP-013), and `sessionKind` stamps the
//! writer, not the copy (CMP-016). The probe reads head lines only up to the
//! first timestamped record: near-free on an ordinary transcript, where a few
//! bookkeeping lines lead.
//!
//! The origin is the sibling transcript where that boundary record lives
//! natively: a record whose OWN uuid it is, itself a compact_boundary, in a
//! file whose head is not that boundary (a co-clone's is). A prose mention of
//! the uuid, or a `logicalParentUuid` naming it, is not the record. The sweep
//! is paid only for a clone.
//!
//! A `--fork-session` fork leaves its trace in the ORIGIN: a `continued-in`
//! record naming the successor (MISC-028). The successor's own records do not
//! say it, so a fork is told apart where the origin is read: for a clone, in
//! the sweep; for any row, where the origin's own row was read (its `continued-in`
//! lines are collected with its titles).

use std::collections::HashMap;
use std::path::Path;

use crate::record::{opt_str, Str};

/// The few fields the probe reads of a head line.
#[derive(serde::Deserialize)]
struct Head<'a> {
    #[serde(borrow, default, rename = "type", deserialize_with = "opt_str")]
    kind: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    subtype: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    uuid: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    timestamp: Str<'a>,
}

/// A `continued-in` record (MISC-028).
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContinuedIn<'a> {
    #[serde(borrow, default, rename = "type", deserialize_with = "opt_str")]
    kind: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    pub(crate) continued_in_session_id: Str<'a>,
}

/// What the head says: the uuid of the compact_boundary that is the first
/// timestamped record (a clone), `Some(None)` when another record is (not a
/// clone), `None` when no timestamped record is in `head` (unknown).
pub(crate) fn head_boundary(head: &[u8]) -> Option<Option<String>> {
    // Framed by memchr (a byte-wise split cost 1–2 µs a file).
    let mut rest = Some(head);
    while let Some(r) = rest {
        let (line, next) = match memchr::memchr(b'\n', r) {
            Some(i) => (&r[..i], Some(&r[i + 1..])),
            None => (r, None),
        };
        rest = next;
        if crate::scan::lit!(b"\"timestamp\"").find(line).is_none() {
            continue;
        }
        let Ok(h) = serde_json::from_slice::<Head<'_>>(line) else {
            continue;
        };
        if h.timestamp.is_none() {
            continue; // a nested time, not the record's
        }
        let boundary =
            h.kind.as_deref() == Some("system") && h.subtype.as_deref() == Some("compact_boundary");
        return Some(
            h.uuid
                .filter(|u| boundary && !u.is_empty())
                .map(|u| u.into_owned()),
        );
    }
    None
}

/// The session a `continued-in` line names, when `line` is one.
pub(crate) fn continued_in(line: &[u8]) -> Option<String> {
    let c: ContinuedIn<'_> = serde_json::from_slice(line).ok()?;
    (c.kind.as_deref() == Some("continued-in"))
        .then_some(c.continued_in_session_id)
        .flatten()
        .filter(|s| !s.is_empty())
        .map(|s| s.into_owned())
}

/// What a sweep of a clone's siblings found.
#[derive(Debug, Default)]
pub(crate) struct Origin {
    /// The session where the head boundary lives natively.
    pub(crate) session_id: Option<String>,
    /// The origin names the clone in a `continued-in` record.
    pub(crate) names_it: bool,
}

/// Find the origin of the clone `path` (session `id`) whose head is the
/// boundary `uuid`, among the top-level transcripts beside it.
pub(crate) fn origin(path: &Path, id: &str, uuid: &str) -> Origin {
    let Some(dir) = path.parent() else {
        return Origin::default();
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Origin::default();
    };
    let mut siblings: Vec<std::path::PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p != path && p.extension().is_some_and(|x| x == "jsonl") && p.is_file())
        .collect();
    siblings.sort();
    let finder = memchr::memmem::Finder::new(uuid.as_bytes());
    for p in siblings {
        let Ok(src) = crate::scan::Source::open(&p) else {
            continue;
        };
        let buf: &[u8] = &src;
        let native = finder
            .find_iter(buf)
            .any(|at| is_boundary_record(line_at(buf, at), uuid));
        // A co-clone's head is the same boundary: not where it lives.
        if !native || head_boundary(crate::scan::head(buf, 1 << 20)) == Some(Some(uuid.into())) {
            continue;
        }
        let names_it = memchr::memmem::find_iter(buf, b"\"continued-in\"")
            .any(|at| continued_in(line_at(buf, at)).as_deref() == Some(id));
        let session = p.file_stem().map(|s| s.to_string_lossy().into_owned());
        return Origin {
            session_id: session,
            names_it,
        };
    }
    Origin::default()
}

/// The line holding byte `at`.
fn line_at(buf: &[u8], at: usize) -> &[u8] {
    let start = memchr::memrchr(b'\n', &buf[..at]).map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &buf[at..]).map_or(buf.len(), |i| at + i);
    &buf[start..end]
}

/// Whether `line` is the compact_boundary record whose own uuid is `uuid`.
fn is_boundary_record(line: &[u8], uuid: &str) -> bool {
    serde_json::from_slice::<Head<'_>>(line).is_ok_and(|h| {
        h.uuid.as_deref() == Some(uuid)
            && h.kind.as_deref() == Some("system")
            && h.subtype.as_deref() == Some("compact_boundary")
    })
}

/// Links between the rows of one listing: each successor a row's
/// `continued-in` records name gets that row as `forked_from`.
pub(crate) fn successors(rows: &[(String, Vec<String>)]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for (origin, named) in rows {
        for s in named {
            out.entry(s.clone()).or_insert_with(|| origin.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CMP-012: the first TIMESTAMPED record decides; untimed bookkeeping
    /// lines lead a clone's head (the corpus's clone has 27), and a
    /// queue-operation first is no clone.
    #[test]
    fn the_first_timestamped_record_decides_cmp_012() {
        let clone = b"{\"type\":\"ai-title\",\"aiTitle\":\"x\",\"sessionId\":\"c\"}\n{\"type\":\"mode\",\"mode\":\"normal\"}\n{\"parentUuid\":null,\"logicalParentUuid\":\"p1\",\"type\":\"system\",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\",\"timestamp\":\"2026-08-31T11:41:41.866Z\",\"uuid\":\"b1\",\"compactMetadata\":{\"trigger\":\"auto\"}}\n";
        assert_eq!(head_boundary(clone), Some(Some("b1".into())));
        let queued = b"{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"sessionId\":\"q\"}\n{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"uuid\":\"b2\"}\n";
        assert_eq!(head_boundary(queued), Some(None));
        // A time nested in a payload is not the record's.
        let nested = b"{\"type\":\"file-history-snapshot\",\"snapshot\":{\"timestamp\":\"2026-01-01T00:00:00Z\"}}\n";
        assert_eq!(head_boundary(nested), None);
        assert_eq!(
            continued_in(br#"{"type":"continued-in","timestamp":"2026-09-02T09:54:22.256Z","sessionId":"o","continuedInSessionId":"s"}"#),
            Some("s".into())
        );
        assert_eq!(
            continued_in(br#"{"type":"user","continuedInSessionId":"s"}"#),
            None
        );
    }
}
