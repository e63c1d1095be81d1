//! Replaying a path's timeline up to a point, newest evidence best: each step
//! replaces what it contradicts, and whatever a step cannot account for
//! becomes unknown. Read windows place lines where their echo says (REC-042,
//! REC-050, REC-051); a read cut by the token cap loses its last line, which
//! may be cut mid-line (FH-042, FH-043); an `edited_text_file` snippet is
//! placed only where its numbers are the new file's (FH-034).

use jiff::Timestamp;

use super::doc::{split, Cell, Doc, Seg, Why};
use super::edit::{self, Applied};
use super::events::{Action, Event};

/// The point to rebuild the file at.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Cut {
    /// After every event.
    End,
    /// After every event at or before `line` of transcript `file`, and every
    /// other event not later than that line's time.
    Line {
        file: usize,
        line: usize,
        ts: Option<Timestamp>,
    },
    /// After every event not later than this time.
    Time(Timestamp),
}

impl Cut {
    pub(crate) fn includes(&self, e: &Event) -> bool {
        match *self {
            Cut::End => true,
            Cut::Line { file, line, ts } => {
                if e.file == file {
                    e.line <= line
                } else {
                    matches!((e.ts.or(e.order), ts), (Some(t), Some(c)) if t <= c)
                }
            }
            Cut::Time(c) => e.ts.or(e.order).is_some_and(|t| t <= c),
        }
    }
}

/// Something the replay noticed, tied to the step (index) that caused it.
#[derive(Debug, Clone)]
pub(crate) struct Note {
    pub(crate) step: usize,
    pub(crate) text: String,
}

/// The file as of the cut.
#[derive(Debug)]
pub(crate) struct Rebuilt {
    pub(crate) doc: Doc,
    /// The step that deleted it, when that is the last word.
    pub(crate) deleted: Option<usize>,
    pub(crate) notes: Vec<Note>,
    /// Steps applied (indices into the timeline).
    pub(crate) applied: Vec<usize>,
    /// Whether any step gave content.
    pub(crate) evidence: bool,
}

/// The bash stdout normal form (BASH-010): leading whitespace-only lines and
/// trailing whitespace dropped.
pub(crate) fn bash_trim(text: &str) -> &str {
    let mut s = text;
    // `^(\s*\n)+`: up to the last newline of the leading whitespace run.
    let ws = s.len() - s.trim_start().len();
    if let Some(nl) = s[..ws].rfind('\n') {
        s = &s[nl + 1..];
    }
    s.trim_end()
}

/// Replay `timeline` up to `cut`.
pub(crate) fn replay(timeline: &[Event], cut: Cut) -> Rebuilt {
    let mut r = Rebuilt {
        doc: Doc::unknown(Why::NoEvidence),
        deleted: None,
        notes: Vec::new(),
        applied: Vec::new(),
        evidence: false,
    };
    let mut anchored_edit = false;
    for (i, e) in timeline.iter().enumerate() {
        if !cut.includes(e) {
            continue;
        }
        let src = i as u32;
        r.applied.push(i);
        match &e.action {
            Action::Full(text) => {
                r.doc = Doc::full(text, src);
                r.deleted = None;
                r.evidence = true;
            }
            Action::Read {
                start,
                num,
                total,
                content,
                truncated,
            } => {
                read(&mut r, i, *start, *num, *total, content, *truncated);
            }
            Action::Edit {
                steps,
                original,
                hunks,
            } => {
                anchored_edit = original.is_some();
                if let Some(o) = original {
                    if r.doc.is_whole() && r.doc.text().as_deref() != Some(o.as_str()) {
                        note(&mut r, i, "the edit's pre-image differs from the replay: the file had changed outside the transcript");
                    }
                    r.doc = Doc::full(o, src);
                    r.evidence = true;
                }
                match edit::apply(&mut r.doc, steps, hunks, src, src) {
                    Applied::Refused => note(&mut r, i, "edit refused: its old text is not in the replayed file exactly as edited; the file is unknown from here"),
                    Applied::Partial => note(&mut r, i, "edit applied into unknown lines: lines it may have reached are unknown"),
                    Applied::Exact | Applied::Placed => r.evidence = true,
                }
                r.deleted = None;
            }
            Action::Append(text) => {
                append(&mut r.doc, text, src);
                r.evidence = true;
            }
            Action::Cat(stdout) => cat(&mut r, i, stdout),
            Action::Snippet(lines) => snippet(&mut r, i, lines),
            Action::Boundary => {
                if !r.doc.is_blank() {
                    r.doc = Doc::unknown(Why::Boundary(src));
                }
                r.deleted = None;
            }
            Action::Delete => r.deleted = Some(i),
            Action::StaleRecovered => {
                if !anchored_edit {
                    r.doc = Doc::unknown(Why::Boundary(src));
                    note(&mut r, i, "the edit applied to a file that had changed on disk (staleRecovered): the rest of the file is unknown");
                }
            }
            Action::Nothing => {}
        }
    }
    r
}

fn note(r: &mut Rebuilt, step: usize, text: &str) {
    r.notes.push(Note {
        step,
        text: text.to_string(),
    });
}

/// Place a Read window; a full uncapped read is the whole file.
fn read(
    r: &mut Rebuilt,
    i: usize,
    start: usize,
    num: usize,
    total: usize,
    content: &str,
    truncated: bool,
) {
    let src = i as u32;
    if content.is_empty() && num == 0 && start <= 1 && total <= 1 {
        // An empty file, read whole.
        r.doc = Doc::full("", src);
        r.evidence = true;
        r.deleted = None;
        return;
    }
    let mut lines = split(content, src);
    if lines.len() != num || start == 0 || start + lines.len() > total + 1 {
        // REC-048: startLine 0 does not say where the window sits.
        note(
            r,
            i,
            "read window not placed: its startLine/numLines/totalLines disagree with its content",
        );
        return;
    }
    if truncated {
        // FH-042/043: the capped page's last line may be cut mid-line.
        lines.pop();
    }
    r.evidence = true;
    if start == 1 && !truncated && lines.len() == total {
        if r.doc.is_whole() && r.doc.text().as_deref() != Some(content) {
            note(
                r,
                i,
                "this read differs from the replay: the file had changed outside the transcript",
            );
        }
        r.doc = Doc::full(content, src);
        r.deleted = None;
        return;
    }
    let mut flat = match r.doc.flat() {
        Some(f) if f.len() == total => f,
        _ => {
            if !r.doc.is_blank() {
                note(r, i, "this read's file length differs from the replay: earlier lines are unknown from here");
            }
            vec![None; total]
        }
    };
    let at = start - 1;
    let drift = lines
        .iter()
        .enumerate()
        .any(|(k, c)| matches!(&flat[at + k], Some(old) if old.text != c.text));
    if drift {
        note(
            r,
            i,
            "this read differs from the replay: the other lines are unknown from here",
        );
        flat = vec![None; total];
    }
    for (k, c) in lines.into_iter().enumerate() {
        flat[at + k] = Some(c);
    }
    r.doc = Doc::from_flat(flat, Why::NoEvidence);
    r.deleted = None;
}

/// Bytes appended: the first joins the last line.
fn append(doc: &mut Doc, text: &str, src: u32) {
    let mut add = split(text, src);
    let first = add.remove(0);
    // After a gap, the gap's last line takes the first appended bytes: still unknown.
    if let Some(Seg::Known(v)) = doc.segs.last_mut() {
        if let Some(last) = v.last_mut() {
            last.text.push_str(&first.text);
            last.src = src;
        }
    }
    doc.segs.push(Seg::Known(add));
    doc.tidy();
}

/// A clean `cat` stdout: the file up to trimmed edges (BASH-010).
fn cat(r: &mut Rebuilt, i: usize, stdout: &str) {
    if let Some(text) = r.doc.text() {
        if bash_trim(&text) == stdout {
            return; // It confirms the replay, which knows the edges too.
        }
        note(
            r,
            i,
            "this cat differs from the replay: the file had changed outside the transcript",
        );
    }
    r.evidence = true;
    let src = i as u32;
    let mut segs = vec![Seg::Gap {
        len: None,
        why: Why::TrimmedHead,
    }];
    if !stdout.is_empty() {
        segs.push(Seg::Known(split(stdout, src)));
    }
    segs.push(Seg::Gap {
        len: None,
        why: Why::TrimmedTail,
    });
    r.doc = Doc { segs };
    r.doc.tidy();
    r.deleted = None;
}

/// An `edited_text_file` snippet: a boundary, then its first run placed — at
/// most 17 lines. The gutter counts from each hunk's OLD start (FH-034), which
/// is the new file's line only for the first hunk; a second hunk's numbers
/// can continue the first run only after a hunk that added 17 or more lines
/// (2 x 8 context + 1), so the first 17 lines of a run are the first hunk's.
fn snippet(r: &mut Rebuilt, i: usize, lines: &[(usize, String)]) {
    let src = i as u32;
    r.doc = Doc::unknown(Why::Boundary(src));
    r.deleted = None;
    let Some(&(first, _)) = lines.first() else {
        note(r, i, "edited_text_file with no snippet (over its budget, FH-007): the file is unknown from here");
        return;
    };
    let run: Vec<Cell> = lines
        .iter()
        .enumerate()
        .take_while(|(k, (n, _))| *n == first + k)
        .take(17)
        .map(|(_, (_, t))| Cell {
            text: t.clone(),
            src,
        })
        .collect();
    r.evidence = true;
    r.doc = Doc {
        segs: vec![
            Seg::Gap {
                len: Some(first.saturating_sub(1)),
                why: Why::Boundary(src),
            },
            Seg::Known(run),
            Seg::Gap {
                len: None,
                why: Why::Boundary(src),
            },
        ],
    };
    r.doc.tidy();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BASH-010: the stored stdout's normal form.
    #[test]
    fn bash_trim_matches_the_harness() {
        assert_eq!(bash_trim("\n\n  a\nb\n\n"), "  a\nb");
        assert_eq!(bash_trim("a \t\n"), "a");
        assert_eq!(bash_trim(" \n"), "");
    }

    fn read(start: usize, num: usize, total: usize, content: &str) -> Event {
        Event {
            action: Action::Read {
                start,
                num,
                total,
                content: content.into(),
                truncated: false,
            },
            file: 0,
            line: 1,
            sub: 0,
            ts: None,
            order: None,
            tool: "Read",
            kind: "read_partial",
            agent: None,
            backup: None,
        }
    }

    /// REC-048: a `startLine` of 0 does not say where the window sits: not
    /// placed. REC-050: a window ending at the file's end holds the empty
    /// last line; two windows that meet make the whole file.
    #[test]
    fn windows_place_by_start_line() {
        let r = replay(&[read(0, 2, 5, "a\nb")], Cut::End);
        assert!(r.doc.is_blank() && !r.evidence && r.notes.len() == 1);
        let r = replay(&[read(3, 2, 4, "c\n"), read(1, 2, 4, "a\nb")], Cut::End);
        assert_eq!(r.doc.text().as_deref(), Some("a\nb\nc\n"));
    }
}
