//! Rebuilding a file's content from a transcript: the engine under `csift
//! recover` (and `export`, which will reuse it).
//!
//! Every piece of evidence the touch engine ([`crate::files`]) finds for the
//! path — Write bodies, Read echoes, Edit replays, `originalFile` pre-images,
//! clean `cat` stdout, literal heredocs, `edited_text_file` snippets, and
//! Claude Code's own checkpoint backups when their mtime vouches for them
//! ([`store`]) — is ordered into one timeline ([`events`]) and replayed up to
//! a point ([`replay`]) into known lines and marked gaps ([`doc`]): newest
//! evidence wins, and a line no evidence covers is never filled in.

pub(crate) mod dest;
pub(crate) mod doc;
pub(crate) mod edit;
#[cfg(test)]
mod edit_tests;
pub(crate) mod events;
pub(crate) mod point;
pub(crate) mod replay;
pub(crate) mod reread;
pub(crate) mod sha256;
pub(crate) mod store;

use std::collections::BTreeMap;

use crate::discovery::Transcript;
use crate::files::history::Sighting;
use crate::files::{Class, FileTouches, Kind};
use doc::{Seg, Why};
use events::{Backup, Event};
use replay::{Cut, Rebuilt};

/// A line range of the reconstruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Range {
    /// First and last line, when the position is known.
    pub(crate) from: Option<usize>,
    pub(crate) to: Option<usize>,
    /// How many lines, when known.
    pub(crate) lines: Option<usize>,
    pub(crate) known: bool,
    /// The timeline step the lines came from (known), or that made them unknown.
    pub(crate) step: Option<usize>,
    pub(crate) why: Option<Why>,
}

/// The coverage map of a reconstruction.
pub(crate) fn ranges(doc: &doc::Doc) -> Vec<Range> {
    let mut out = Vec::new();
    let mut line = 1usize;
    let mut placed = true;
    for s in &doc.segs {
        match s {
            Seg::Known(cells) => {
                let mut i = 0;
                while i < cells.len() {
                    let src = cells[i].src;
                    let n = cells[i..].iter().take_while(|c| c.src == src).count();
                    out.push(Range {
                        from: placed.then_some(line),
                        to: placed.then_some(line + n - 1),
                        lines: Some(n),
                        known: true,
                        step: (src != u32::MAX).then_some(src as usize),
                        why: None,
                    });
                    line += n;
                    i += n;
                }
            }
            Seg::Gap { len, why } => {
                out.push(Range {
                    from: placed.then_some(line),
                    to: match (placed, len) {
                        (true, Some(n)) => Some(line + n - 1),
                        _ => None,
                    },
                    lines: *len,
                    known: false,
                    step: match why {
                        Why::Boundary(s) => Some(*s as usize),
                        _ => None,
                    },
                    why: Some(*why),
                });
                match len {
                    Some(n) => line += n,
                    None => placed = false,
                }
            }
        }
    }
    out
}

/// The trusted backups of `path` named by its sightings, and the verdict on
/// every backup the store holds for it (`--list-backups`).
pub(crate) fn backups(
    store: &store::Store,
    path: &str,
    idx: &events::Index<'_>,
) -> (Vec<Backup>, Vec<(store::Blob, store::Verdict)>) {
    let mut trusted = Vec::new();
    let mut listing = Vec::new();
    if !crate::files::path::is_absolute(path) {
        return (trusted, listing);
    }
    for blob in store.blobs(path) {
        let named: Vec<&Sighting> = idx
            .sightings(path)
            .iter()
            .filter(|(f, s)| {
                idx.session(*f) == Some(blob.session.as_str())
                    && s.backup.as_deref() == Some(blob.name.as_str())
            })
            .map(|(_, s)| *s)
            .collect();
        let v = store::verdict(&blob, &named);
        if let store::Verdict::Trusted { backup_time, .. } = &v {
            let content = std::fs::read(&blob.path)
                .ok()
                .and_then(|b| String::from_utf8(b).ok());
            if let (Some(content), Some(bt)) = (content, crate::timefmt::parse_ts(backup_time)) {
                trusted.push(Backup {
                    content,
                    backup_time: bt,
                    name: blob.name.clone(),
                    version: blob.version.unwrap_or(0),
                });
            }
        }
        listing.push((blob, v));
    }
    (trusted, listing)
}

/// The timeline of `path` and its replay to `cut`.
pub(crate) fn rebuild(
    path: &str,
    idx: &events::Index<'_>,
    backups: Vec<Backup>,
    cut: Cut,
) -> (Vec<Event>, Rebuilt) {
    let timeline = events::timeline(path, idx, backups);
    let rebuilt = replay::replay(&timeline, cut);
    (timeline, rebuilt)
}

/// Commands that may have changed the file without naming it, after the
/// last step that gave content and up to the cut: class markers (BASH-020)
/// and bash writes whose path is unresolved, in the sessions that touched
/// the path. Counted, never applied (FH-013: absence of a signal proves nothing).
pub(crate) fn opaque_after(
    path: &str,
    timeline: &[Event],
    rebuilt: &Rebuilt,
    all: &[FileTouches],
    transcripts: &[Transcript],
    cut: Cut,
) -> BTreeMap<String, usize> {
    let last_content = rebuilt
        .applied
        .iter()
        .rev()
        .find(|&&i| {
            !matches!(
                timeline[i].action,
                events::Action::Nothing | events::Action::Delete
            )
        })
        .and_then(|&i| timeline[i].order);
    let mut sessions: Vec<&str> = Vec::new();
    for (t, ft) in transcripts.iter().zip(all) {
        if ft.touches.iter().any(|x| *x.path == *path) {
            sessions.push(&t.session_id);
        }
    }
    let mut out = BTreeMap::new();
    for (f, (t, ft)) in transcripts.iter().zip(all).enumerate() {
        if !sessions.contains(&t.session_id.as_str()) {
            continue;
        }
        for x in &ft.touches {
            let opaque =
                x.kind == Kind::Opaque || (x.class == Class::Unresolved && x.kind.is_bash_write());
            if !opaque {
                continue;
            }
            let ts = x
                .landed
                .as_deref()
                .or(x.ts.as_deref())
                .and_then(crate::timefmt::parse_ts);
            let probe = Event {
                action: events::Action::Nothing,
                file: f,
                line: x.line,
                sub: x.sub,
                ts,
                order: ts,
                tool: x.tool,
                kind: x.kind.name(),
                agent: None,
                backup: None,
            };
            let after = match (ts, last_content) {
                (Some(a), Some(b)) => a > b,
                (_, None) => true,
                (None, Some(_)) => false,
            };
            if after && cut.includes(&probe) {
                let key = if x.class == Class::Marker {
                    x.path.to_string()
                } else {
                    "unresolved bash write".to_string()
                };
                *out.entry(key).or_insert(0) += 1;
            }
        }
    }
    out
}
