//! The timeline of one path: every touch and file-history sighting of it, and
//! every trusted backup, as replay steps in the order they happened.
//!
//! Within a transcript, line order is the truth; across transcripts (a
//! session's lanes, other sessions) and for backups, time is: each step takes
//! the time its result landed (a tool call) or was recorded, made monotone
//! along its file, and the streams merge on it. A backup stands at its
//! `backupTime`, when the bytes were copied (FH-019).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use jiff::Timestamp;

use crate::discovery::Transcript;
use crate::files::echo::Evidence;
use crate::files::history::{self, Sighting};
use crate::files::place::{Kept, Place};
use crate::files::{Class, FileTouches, Kind, Touch};
use crate::scan::source::Seen;

/// What a step does to the reconstruction.
#[derive(Debug, Clone)]
pub(crate) enum Action {
    /// The whole file is this text (a write, a full read, a trusted backup).
    Full(String),
    /// A Read window (REC-042…051).
    Read {
        start: usize,
        num: usize,
        total: usize,
        content: String,
        truncated: bool,
    },
    Edit {
        steps: Vec<crate::files::echo::Step>,
        original: Option<String>,
        hunks: Vec<crate::files::echo::Hunk>,
    },
    Append(String),
    /// A clean `cat` stdout (BASH-010: edges trimmed).
    Cat(String),
    /// An `edited_text_file` snippet (FH-007).
    Snippet(Vec<(usize, String)>),
    /// The file changed and what it holds now is not in the transcript.
    Boundary,
    /// Removed (or moved away).
    Delete,
    /// An Edit applied over drift (FH-006): unless its pre-image re-anchored
    /// the replay, the rest of the file is unknown.
    StaleRecovered,
    /// Touched without content (a read with no echo, a failed call).
    Nothing,
}

/// One step of the timeline.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub(crate) action: Action,
    /// The transcript index, or `usize::MAX` for a backup.
    pub(crate) file: usize,
    pub(crate) line: usize,
    pub(crate) sub: u32,
    /// The step's own time (its result's for a tool call).
    pub(crate) ts: Option<Timestamp>,
    /// The time it is ordered by (monotone along its file).
    pub(crate) order: Option<Timestamp>,
    pub(crate) tool: &'static str,
    pub(crate) kind: &'static str,
    /// The subagent whose step it is (a lane's, or a nested record's).
    pub(crate) agent: Option<String>,
    /// For a backup: the store file.
    pub(crate) backup: Option<String>,
}

fn action(t: &Touch, ev: Option<Evidence>) -> Action {
    match (t.kind, ev) {
        (
            Kind::Create | Kind::Update | Kind::Write | Kind::BashWrite,
            Some(Evidence::Write { content }),
        ) => Action::Full(content),
        (Kind::NotebookEdit, Some(Evidence::Notebook { updated: Some(u) })) => Action::Full(u),
        (
            Kind::Edit | Kind::MultiEdit,
            Some(Evidence::Edit {
                steps,
                original,
                hunks,
            }),
        ) => Action::Edit {
            steps,
            original,
            hunks,
        },
        (
            Kind::ReadFull | Kind::ReadPartial | Kind::ReadTruncated,
            Some(Evidence::Read {
                start,
                num,
                total,
                content,
                truncated,
            }),
        ) => Action::Read {
            start,
            num,
            total,
            content,
            truncated,
        },
        (Kind::BashRead, Some(Evidence::Cat { stdout })) => Action::Cat(stdout),
        (Kind::BashAppend, Some(Evidence::Append { content })) => Action::Append(content),
        (Kind::EditedTextFile, Some(Evidence::Snippet { lines })) => Action::Snippet(lines),
        (Kind::EditedTextFile, None) => Action::Snippet(Vec::new()),
        (Kind::BashDelete | Kind::BashMoveFrom, _) => Action::Delete,
        (Kind::StaleRecovered, _) => Action::StaleRecovered,
        (k, _) if k.is_structured_write() || k.is_bash_write() || k.is_signal() => Action::Boundary,
        _ => Action::Nothing,
    }
}

/// Whether a touch can change the file (so explains a version jump).
fn writes(k: Kind) -> bool {
    k.is_structured_write() || k.is_bash_write() || k == Kind::HintModified
}

/// A trusted backup's bytes, placed at its `backupTime`.
pub(crate) struct Backup {
    pub(crate) content: String,
    pub(crate) backup_time: Timestamp,
    pub(crate) name: String,
    pub(crate) version: u64,
}

/// Every touch and sighting, grouped by path once: a timeline reads only its
/// path's entries (`recover --all` rebuilds every path in one pass).
#[derive(Default)]
pub(crate) struct Index<'a> {
    /// `(transcript, touch)` per path, in transcript then file order.
    touches: HashMap<&'a str, Vec<(usize, &'a Touch)>>,
    sightings: HashMap<&'a str, Vec<(usize, &'a Sighting)>>,
    /// Each transcript's session id.
    sessions: Vec<&'a str>,
    /// Each transcript's path and identity as scanned: evidence kept as a
    /// place ([`crate::files::place`]) is read there again.
    files: Vec<(&'a Path, Option<Seen>)>,
    reader: RefCell<super::reread::Reader>,
}

impl<'a> Index<'a> {
    pub(crate) fn new(all: &'a [FileTouches], transcripts: &'a [Transcript]) -> Index<'a> {
        let mut idx = Index {
            sessions: transcripts.iter().map(|t| t.session_id.as_str()).collect(),
            files: transcripts
                .iter()
                .zip(all)
                .map(|(t, ft)| (t.path.as_path(), ft.seen))
                .collect(),
            ..Index::default()
        };
        for (f, ft) in all.iter().enumerate() {
            for t in &ft.touches {
                idx.touches.entry(&*t.path).or_default().push((f, t));
            }
            for s in &ft.sightings {
                idx.sightings
                    .entry(s.path.as_str())
                    .or_default()
                    .push((f, s));
            }
        }
        idx
    }

    fn touches(&self, path: &str) -> &[(usize, &'a Touch)] {
        self.touches.get(path).map_or(&[], Vec::as_slice)
    }

    /// The sightings of `path` in each transcript, by transcript.
    pub(crate) fn sightings(&self, path: &str) -> &[(usize, &'a Sighting)] {
        self.sightings.get(path).map_or(&[], Vec::as_slice)
    }

    pub(crate) fn session(&self, f: usize) -> Option<&'a str> {
        self.sessions.get(f).copied()
    }

    /// The evidence of touch `t` of transcript `f`: decoded in the pass, or
    /// read again from its place. A transcript that cannot be read again as
    /// scanned gives none, and a problem ([`Index::problems`]).
    fn evidence(&self, f: usize, t: &Touch) -> Option<Evidence> {
        match t.evidence.as_deref()? {
            Kept::Now(e) => Some(e.clone()),
            Kept::At(p) => self.read(f, p),
        }
    }

    fn read(&self, f: usize, p: &Place) -> Option<Evidence> {
        let (path, seen) = *self.files.get(f)?;
        self.reader.borrow_mut().read((f, path, seen), p)
    }

    /// The transcripts whose evidence could not be read again since the
    /// last call, each with why (once per transcript).
    pub(crate) fn problems(&self) -> Vec<(PathBuf, String)> {
        std::mem::take(&mut self.reader.borrow_mut().problems)
    }
}

/// The ordered timeline of `path`, plus `backups`.
pub(crate) fn timeline(path: &str, idx: &Index<'_>, backups: Vec<Backup>) -> Vec<Event> {
    let mut by_file: BTreeMap<usize, Vec<Event>> = BTreeMap::new();
    for &(f, t) in idx.touches(path) {
        if matches!(t.class, Class::Unresolved | Class::Marker) {
            continue;
        }
        by_file.entry(f).or_default().push(Event {
            action: action(t, idx.evidence(f, t)),
            file: f,
            line: t.line,
            sub: t.sub,
            ts: t
                .landed
                .as_deref()
                .or(t.ts.as_deref())
                .and_then(crate::timefmt::parse_ts),
            order: None,
            tool: t.tool,
            kind: t.kind.name(),
            agent: t.agent_id.as_deref().map(str::to_string),
            backup: None,
        });
    }
    let mut files: Vec<usize> = idx.sightings(path).iter().map(|(f, _)| *f).collect();
    files.dedup();
    for f in files {
        by_file.entry(f).or_default().extend(jumps(path, f, idx));
    }
    let mut out = Vec::new();
    for (_, mut evs) in by_file {
        evs.sort_by_key(|e| (e.line, e.sub));
        let mut last: Option<Timestamp> = None;
        for e in &mut evs {
            e.order = match (last, e.ts) {
                (Some(l), Some(t)) => Some(l.max(t)),
                (l, t) => t.or(l),
            };
            last = e.order;
        }
        out.extend(evs);
    }
    for b in backups {
        out.push(Event {
            action: Action::Full(b.content),
            file: usize::MAX,
            line: 0,
            sub: 0,
            ts: Some(b.backup_time),
            order: Some(b.backup_time),
            tool: "file-history",
            kind: "backup",
            agent: None,
            backup: Some(format!("{} (v{})", b.name, b.version)),
        });
    }
    // A total order that keeps each file's line order: `order` is monotone
    // along a file, and a file's untimed head sorts first.
    out.sort_by_key(|e| (e.order.unwrap_or(Timestamp::MIN), e.file, e.line, e.sub));
    out
}

/// Version jumps of `path` in transcript `f` that no write in their interval
/// explains: the file changed on disk outside the tool stream (FH-015,
/// FH-018 aside). Any tracked path, not only settings: here a jump is a
/// boundary, never a row.
fn jumps(path: &str, f: usize, idx: &Index<'_>) -> Vec<Event> {
    let mine: Vec<Sighting> = idx
        .sightings(path)
        .iter()
        .filter(|(g, _)| *g == f)
        .map(|(_, s)| (*s).clone())
        .collect();
    let mut out = Vec::new();
    for (prev, cur) in history::jumps(&mine) {
        let explained = idx.touches(path).iter().any(|&(j, t)| {
            idx.session(j) == idx.session(f)
                && writes(t.kind)
                && history::in_interval(
                    t.line,
                    t.landed.as_deref().or(t.ts.as_deref()),
                    j == f,
                    prev,
                    cur,
                )
        });
        if !explained {
            out.push(Event {
                action: Action::Boundary,
                file: f,
                line: cur.line,
                sub: 0,
                ts: cur.ts.as_deref().and_then(crate::timefmt::parse_ts),
                order: None,
                tool: "file-history",
                kind: "version_jump",
                agent: None,
                backup: None,
            });
        }
    }
    out
}
