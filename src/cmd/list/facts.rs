//! What one `csift list` row says about a transcript, computed from the bytes
//! `read` fetched. Head lines answer cwd, branch, first version, start and
//! the first genuine prompt; the last records answer last activity, last version
//! and branch; a literal-set pass answers models, titles and glued records; and
//! a [`FileIndex`] answers genuine-user turns.
//!
//! A file read whole gets every fact exactly. A file read as a head and a tail
//! window gets only what those windows hold: models, titles and malformed lines
//! seen in them, and no turn count (`None`), which cannot be had without every
//! line. Nothing here guesses a fact from a part of the file. The tail still
//! answers the usual title: Claude Code rewrites `ai-title` every turn (QT-030,
//! TAIL-006), so the newest one sits among the last records. A `summary` titles
//! the row only when its `leafUuid` is a record of the file; when the windows
//! hold such a summary but not its leaf, and nothing outranks it, the file is
//! read whole to decide rather than guess (so `--full` gives the same title).
//!
//! The pieces: [`head`](super::head) (the first records), [`tail`](super::tail)
//! (the last ones, and the envelope both read), [`literals`](super::literals)
//! (models, titles, glue and inline lanes).

use super::head::HeadScan;
use super::literals::{literal_pass, titling_summary, Undecided};
use super::read::{Bytes, Windows, HEAD_MAX, TAIL_MAX};
use super::summary::{ReadMode, Summary};
use super::tail::TailFacts;
use crate::classify::sidechain::InlineLanes;
use crate::classify::FileIndex;
use crate::discovery::Transcript;
use crate::scan::source::Opened;

/// Summarise one transcript: read whole when `whole`, else head and tail windows
/// (whole anyway when the file fits in them).
pub(crate) fn summarize(t: &Transcript, whole: bool) -> crate::error::Result<Summary> {
    let o = crate::scan::source::open(&t.path)?;
    summarize_opened(o, t, whole, false).map(|(s, _)| s)
}

/// [`summarize`] of the file `o` opened, and with `edges` the digests of its
/// first and last 4 KB ([`crate::cache::edge_digests`]) from the first bytes
/// read, for the census cache's entry of the row.
pub(crate) fn summarize_opened(
    o: Opened,
    t: &Transcript,
    whole: bool,
    edges: bool,
) -> crate::error::Result<(Summary, Option<[u64; 2]>)> {
    let lane = t.is_lane();
    let mut bytes = Bytes::of(o, &t.path, whole)?;
    let sums = edges.then(|| bytes.edge_digests()).flatten();
    if let Bytes::Windows(w) = &mut bytes {
        if let Some(s) = from_windows(w, lane, &t.path)? {
            return Ok((s, sums));
        }
    }
    let s = of_whole(bytes.whole().unwrap_or_default(), lane);
    bytes.check()?;
    Ok((s, sums))
}

/// The summary of a transcript read whole (`buf`, every byte of it): what
/// [`summarize`] computes for a file it read whole, and what the census cache
/// keeps of one ([`cached`](super::cached)).
pub(crate) fn of_whole(buf: &[u8], lane: bool) -> Summary {
    let mut s = Summary::default();
    let mut head = HeadScan::default();
    let head_lines = head_of(buf);
    head.feed(head_lines, lane, &mut s);
    s.clone_boundary = clone_probe(head_lines, lane);
    // The scan walks back from EOF over whole lines only: a byte window could
    // cut a long last record and miss the last records before it (REC-089).
    let end = TailFacts::scan(buf, 0, buf.len() as u64, Some(buf));
    let mut inline = (!lane).then(InlineLanes::default);
    // The turn count's user lines come from the literal pass when it looked
    // for them.
    let mut users = Vec::new();
    let listed = literal_pass(buf, 0, true, &mut s, inline.as_mut(), Some(&mut users));
    s.inline_lanes = Some(inline.map_or(0, |l| l.len()));
    s.summary = titling_summary(&s, &[buf]).ok().flatten();
    end.merge(&mut s);
    let turns = listed.then(|| FileIndex::count_turns_of(buf, lane, &users));
    s.turns = Some(
        turns
            .flatten()
            .unwrap_or_else(|| FileIndex::count_turns(buf, lane)),
    );
    s.read = ReadMode::Whole;
    s.bytes = buf.len() as u64;
    s
}

/// Summarise from windows, growing them while facts are missing; `None` when they
/// grew to cover the file (the caller then reads it as whole).
fn from_windows(
    w: &mut Windows,
    lane: bool,
    path: &std::path::Path,
) -> crate::error::Result<Option<Summary>> {
    if w.is_whole() {
        return Ok(None); // small enough to have been read whole
    }
    let mut s = Summary::default();
    let mut head = HeadScan::default();
    loop {
        let lines = complete_head(w.head());
        head.feed(lines, lane, &mut s);
        let found = s.first_prompt.is_some() && s.cwd.is_some();
        // At least one whole line, as `scan::head`, even past HEAD_MAX; and
        // HEAD_MAX of lines other than payloads.
        let partial = w.head().len() - lines.len();
        let max = if lines.is_empty() || partial >= PAYLOAD_LINE {
            usize::MAX
        } else {
            HEAD_MAX + payload_bytes(lines)
        };
        if found || !w.grow_head(max, path)? {
            break;
        }
        if w.is_whole() {
            return Ok(None);
        }
    }
    s.clone_boundary = clone_probe(complete_head(w.head()), lane);
    let end = loop {
        let (at, win) = w.tail();
        // The window starts inside a line: its first whole line follows a newline.
        let skip = memchr::memchr(b'\n', win).map_or(win.len(), |i| i + 1);
        let end = TailFacts::scan(&win[skip..], at + skip as u64, w.file_len(), None);
        // A last record longer than the window leaves no whole line in it: grow
        // past TAIL_MAX until one is whole (to the whole file at worst), or the
        // last activity would be some older record's, or none.
        let whole_line = memchr::memchr(b'\n', &win[..win.len().saturating_sub(1)]).is_some();
        let max = if whole_line { TAIL_MAX } else { usize::MAX };
        if end.last.is_some() || !w.grow_tail(max, path)? {
            break end;
        }
        if w.is_whole() {
            return Ok(None);
        }
    };
    literal_pass(complete_head(w.head()), 0, true, &mut s, None, None);
    let (at, win) = w.tail();
    let skip = memchr::memchr(b'\n', win).map_or(win.len(), |i| i + 1);
    literal_pass(&win[skip..], at + skip as u64, false, &mut s, None, None);
    let titled = titling_summary(&s, &[w.head(), w.tail().1]);
    match titled {
        Ok(found) => s.summary = found,
        // A summary's leaf may lie between the windows: read it all to decide.
        Err(Undecided) => {
            w.read_whole(path)?;
            return Ok(None);
        }
    }
    end.merge(&mut s);
    s.turns = None;
    s.read = ReadMode::HeadTail;
    s.bytes = w.file_len();
    Ok(Some(s))
}

/// The head boundary of a main transcript minted as a clone (CMP-012).
fn clone_probe(head: &[u8], lane: bool) -> Option<String> {
    match lane {
        true => None,
        false => super::clones::head_boundary(head).flatten(),
    }
}

/// A line this long is a payload (a pasted screenshot, a large attachment or
/// snapshot): the head's budget does not count it.
const PAYLOAD_LINE: usize = 256 * 1024;

/// Bytes of the payload lines among `lines`: one ahead of the first prompt
/// (a 3 MB attachment line, a prompt behind a 3 MB image) used up the head's
/// budget, and the session lost its title, with `--full` too.
fn payload_bytes(lines: &[u8]) -> usize {
    let mut total = 0;
    let mut at = 0;
    while at < lines.len() {
        let end = memchr::memchr(b'\n', &lines[at..]).map_or(lines.len(), |i| at + i + 1);
        if end - at >= PAYLOAD_LINE {
            total += end - at;
        }
        at = end;
    }
    total
}

/// The head of a file read whole: whole lines while those other than
/// payloads ([`payload_bytes`]) fit in [`HEAD_MAX`]; at least one.
fn head_of(buf: &[u8]) -> &[u8] {
    if buf.len() <= HEAD_MAX {
        return buf; // all of it fits: no line walk
    }
    let mut small = 0;
    let mut at = 0;
    while at < buf.len() {
        let end = memchr::memchr(b'\n', &buf[at..]).map_or(buf.len(), |i| at + i + 1);
        if end - at < PAYLOAD_LINE {
            small += end - at;
            if small > HEAD_MAX && at > 0 {
                break;
            }
        }
        at = end;
    }
    &buf[..at]
}

/// The whole lines of a head window (which may end inside a line).
fn complete_head(head: &[u8]) -> &[u8] {
    memchr::memrchr(b'\n', head).map_or(&[], |i| &head[..=i])
}
