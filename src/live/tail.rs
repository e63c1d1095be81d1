//! The tail of one transcript: a window read backward from EOF (never the whole
//! file), framed on complete lines and walked from the end. It answers what
//! liveness needs and nothing else:
//!
//! - the tail instant: the newest timestamped record of ANY type, in file order
//!   (TAIL-014) - the file's mtime is never read as activity (TAIL-006);
//! - the newest assistant record and its `stop_reason` (trustworthy on a main
//!   lane, null mid-message on a subagent, TAIL-002);
//! - the unreturned calls: `tool_use` ids no later `tool_result` answers
//!   (TAIL-001), each with its plausible life ([`super::calls`]).
//!
//! The window starts at [`WINDOW`] (512 KB) and doubles, up to [`WINDOW_MAX`],
//! while it holds no timestamped or no assistant record and the file has more.
//! A torn final line is held, not parsed and not an error (TAIL-012); a line
//! that is no record is counted. Line numbers cost a count of the newlines
//! before the window, so they are resolved only for what is printed.

use std::fs::File;
use std::path::{Path, PathBuf};

use jiff::Timestamp;

use super::calls::{self, Call};
use crate::record::{line_records, parse_line, MalformedKind, Parsed, Record};
use crate::scan::Line;

/// First window (TAIL-001's 512 KB), and the most it grows to.
pub(crate) const WINDOW: usize = 512 * 1024;
pub(crate) const WINDOW_MAX: usize = 64 * 1024 * 1024;

/// A record found at the tail: its time, its type and where it starts.
#[derive(Debug, Clone)]
pub(crate) struct At {
    pub(crate) time: Option<Timestamp>,
    /// The record's `type` (with the subtype of a system record).
    pub(crate) record: String,
    pub(crate) offset: u64,
    /// 1-based line, once [`Tail::number`] has counted it.
    pub(crate) line: Option<usize>,
}

/// Where the conversation stands at the tail: the newest conversational record
/// (a user or assistant record that is not meta, not a slash command's
/// echo). On the main lane a message is written only when it ends (TAIL-003),
/// so a prompt or tool result with no assistant record after it is a reply
/// the model still owes - being written, or never to come.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Turn {
    /// The newest is an assistant record.
    Replied,
    /// The newest is a prompt, a tool result or a notification the model
    /// answers (`what`), at `time`.
    Owed {
        what: &'static str,
        time: Option<Timestamp>,
    },
    /// The newest is the user's interrupt (TURN-005): no reply follows.
    Interrupted { time: Option<Timestamp> },
}

/// The liveness-relevant shape of a transcript's tail.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tail {
    pub(crate) path: PathBuf,
    /// File length the window was read against.
    pub(crate) len: u64,
    /// Offset of the first byte the window framed (a line start).
    pub(crate) window_start: u64,
    /// Records parsed in the window.
    pub(crate) records: usize,
    /// Lines in the window that are no record (a torn final line is not one).
    pub(crate) malformed: usize,
    /// The final line had no newline: held for the next read (TAIL-012).
    pub(crate) torn: bool,
    /// The newest timestamped record (TAIL-014).
    pub(crate) last: Option<At>,
    /// The newest assistant record, and its `stop_reason`.
    pub(crate) assistant: Option<At>,
    pub(crate) stop_reason: Option<String>,
    /// The newest assistant record holds text and no tool call: its message
    /// ended the turn even where no `stop_reason` was written (Claude Code
    /// before 2.1.1xx writes null on most records).
    pub(crate) text_final: bool,
    /// Where the conversation stands; `None` when the window holds no
    /// conversational record.
    pub(crate) turn: Option<Turn>,
    /// Unreturned calls, newest first (TAIL-001).
    pub(crate) pending: Vec<Call>,
}

impl Tail {
    /// The tail instant.
    pub(crate) fn time(&self) -> Option<Timestamp> {
        self.last.as_ref().and_then(|a| a.time)
    }

    /// The newest unreturned call.
    pub(crate) fn newest_pending(&self) -> Option<&Call> {
        self.pending.first()
    }

    /// Number the lines of the records found, with one newline count over the
    /// file up to the newest of them (done only for what is printed).
    pub(crate) fn number(&mut self) {
        let mut offsets: Vec<u64> = self
            .last
            .iter()
            .chain(&self.assistant)
            .map(|a| a.offset)
            .chain(self.pending.iter().map(|c| c.offset))
            .collect();
        if offsets.is_empty() {
            return;
        }
        offsets.sort_unstable();
        offsets.dedup();
        let Some(lines) = lines_at(&self.path, &offsets) else {
            return;
        };
        let find = |o: u64| offsets.binary_search(&o).ok().map(|i| lines[i]);
        for a in self.last.iter_mut().chain(self.assistant.iter_mut()) {
            a.line = find(a.offset);
        }
        for c in &mut self.pending {
            c.line = find(c.offset);
        }
    }
}

/// Read the tail of `path`. `main` leaves an old main file's inline sidechain
/// records (1.0.x, `isSidechain:true`) out of the main lane's shape.
pub(crate) fn read(path: &Path, main: bool) -> std::io::Result<Tail> {
    // Stat before opening: a FIFO would block the open, and a tail is read by
    // position, which only a regular file has.
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::other(
            "not a regular file: a tail is read from a file's end",
        ));
    }
    let file = File::open(path)?;
    let meta = file.metadata()?;
    let len = meta.len();
    let mut size = WINDOW.min(len as usize);
    loop {
        let start = len - size as u64;
        let mut buf = vec![0u8; size];
        crate::scan::source::read_exact_at(&file, &mut buf, start)?;
        let tail = shape(path, &buf, start, len, main);
        let whole = start == 0;
        if whole || size >= WINDOW_MAX || (tail.last.is_some() && tail.assistant.is_some()) {
            return Ok(tail);
        }
        size = (size * 2).min(WINDOW_MAX).min(len as usize);
    }
}

/// The shape of a window `buf` that starts at byte `start` of a `len`-byte file.
fn shape(path: &Path, buf: &[u8], start: u64, len: u64, main: bool) -> Tail {
    let mut t = Tail {
        path: path.to_path_buf(),
        len,
        ..Tail::default()
    };
    // A window that starts mid-file starts mid-line: frame from the first newline.
    let from = if start == 0 {
        0
    } else {
        memchr::memchr(b'\n', buf).map_or(buf.len(), |i| i + 1)
    };
    t.window_start = start + from as u64;
    let body = &buf[from..];
    // Complete lines only: the final unterminated segment is held (TAIL-012).
    let end = match memchr::memrchr(b'\n', body) {
        Some(i) => i + 1,
        None => 0,
    };
    t.torn = end < body.len();
    let mut lines: Vec<Line<'_>> = crate::scan::Lines::new(&body[..end]).collect();
    let mut answered: std::collections::HashSet<String> = std::collections::HashSet::new();
    while let Some(line) = lines.pop() {
        if line.bytes.is_empty() {
            continue;
        }
        let recs = line_records(&line);
        if recs.is_empty() {
            if !matches!(parse_line(&line), Parsed::Malformed(m) if m.kind == MalformedKind::Blank)
            {
                t.malformed += 1;
            }
            continue;
        }
        for (sub, rec) in recs.iter().rev() {
            t.records += 1;
            if main && rec.is_sidechain() {
                continue;
            }
            let offset = t.window_start + sub.offset as u64;
            note(&mut t, rec, offset, &mut answered);
        }
    }
    t
}

/// Fold one record, met walking backward, into the tail shape.
fn note(
    t: &mut Tail,
    rec: &Record<'_>,
    offset: u64,
    answered: &mut std::collections::HashSet<String>,
) {
    let time = rec.timestamp.as_deref().and_then(crate::timefmt::parse_ts);
    if t.last.is_none() && time.is_some() {
        t.last = Some(At {
            time,
            record: record_name(rec),
            offset,
            line: None,
        });
    }
    match rec.kind() {
        "user" => {
            for b in rec.blocks() {
                if b.kind() == "tool_result" {
                    if let Some(id) = b.tool_use_id.as_deref() {
                        answered.insert(id.to_string());
                    }
                }
            }
            if t.turn.is_none() {
                t.turn = owed(rec, time);
            }
        }
        "assistant" => {
            if t.turn.is_none() {
                t.turn = Some(Turn::Replied);
            }
            if t.assistant.is_none() {
                let blocks = rec.blocks();
                t.text_final = blocks.iter().any(|b| b.kind() == "text")
                    && !blocks.iter().any(|b| b.kind() == "tool_use");
                t.assistant = Some(At {
                    time,
                    record: "assistant".into(),
                    offset,
                    line: None,
                });
                t.stop_reason = rec
                    .message
                    .as_ref()
                    .and_then(|m| m.stop_reason.as_deref())
                    .map(str::to_string);
            }
            for b in rec.blocks() {
                if b.kind() != "tool_use" {
                    continue;
                }
                let Some(id) = b.id.as_deref() else { continue };
                if answered.contains(id) || t.pending.iter().any(|c| c.id == id) {
                    continue;
                }
                t.pending.push(calls::call(
                    id,
                    b.name.as_deref().unwrap_or("(unnamed)"),
                    b.input_json(),
                    time,
                    offset,
                ));
            }
        }
        _ => {}
    }
}

/// A user record's place in the conversation, or `None` when it is no turn
/// of its own (meta, a slash command's echo, a compaction summary, an orphan
/// notice that asks for no reply, BG-023).
fn owed(rec: &Record<'_>, time: Option<Timestamp>) -> Option<Turn> {
    use crate::classify::markers as mk;
    if rec.is_meta() || rec.is_compact_summary() {
        return None;
    }
    let results: Vec<_> = rec
        .blocks()
        .iter()
        .filter(|b| b.kind() == "tool_result")
        .collect();
    if !results.is_empty() {
        if results
            .iter()
            .any(|b| b.result_starts_with(&[mk::INTERRUPT_TOOL, mk::INTERRUPT_USER]))
        {
            return Some(Turn::Interrupted { time });
        }
        return Some(Turn::Owed {
            what: "a tool result",
            time,
        });
    }
    let text = rec.user_text()?;
    let t = text.trim();
    if t.starts_with(mk::INTERRUPT_USER) {
        return Some(Turn::Interrupted { time });
    }
    let notes = super::ledger::notice::sections(t);
    if !notes.is_empty() {
        if notes.iter().all(|n| n.orphan) {
            return None;
        }
        return Some(Turn::Owed {
            what: "a task notification",
            time,
        });
    }
    if crate::classify::turns::is_genuine_user(rec) {
        return Some(Turn::Owed {
            what: "a prompt",
            time,
        });
    }
    None
}

fn record_name(rec: &Record<'_>) -> String {
    match (rec.kind(), rec.subtype()) {
        ("", _) => "(untyped)".to_string(),
        (k, "") => k.to_string(),
        (k, s) => format!("{k}:{s}"),
    }
}

/// The 1-based line numbers of the lines starting at the (sorted) byte
/// `offsets` of `path`: one newline count over the bytes before the last.
pub(crate) fn lines_at(path: &Path, offsets: &[u64]) -> Option<Vec<usize>> {
    let src = crate::scan::Source::open(path).ok()?;
    let mut out = Vec::with_capacity(offsets.len());
    let (mut at, mut no) = (0usize, 1usize);
    for &o in offsets {
        let upto = usize::try_from(o).ok()?.min(src.len()).max(at);
        no += memchr::memchr_iter(b'\n', &src[at..upto]).count();
        at = upto;
        out.push(no);
    }
    Some(out)
}

#[cfg(test)]
mod tests;
