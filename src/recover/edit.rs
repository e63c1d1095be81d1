//! Replaying an Edit or MultiEdit onto the reconstruction.
//!
//! The replacement is Claude Code's own: the echo's `oldString`/`newString`
//! (what was actually applied, REC-059), one occurrence unless `replaceAll`
//! (REC-061), and an empty `newString` also taking the newline after the old
//! text when there is one (verified on every such corpus edit). An edit whose
//! old text is not found exactly once (unless `replaceAll`) is refused: the
//! base was not the file Claude Code edited.
//!
//! `structuredPatch` is a DISPLAY diff: its lines carry tabs expanded to two
//! spaces (137 of 139 corpus edits of tab-indented files), so it is never the
//! source of bytes. It checks a whole-file replay (whitespace aside) and
//! places an edit whose old text lies in unknown lines; a patch line with no
//! double space cannot have held a tab, so only those are taken as text.

use super::doc::{split, Cell, Doc, Seg, Why};
use crate::files::echo::{Hunk, Step};

/// What happened to one edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Applied {
    /// Applied to known text exactly.
    Exact,
    /// Applied by the patch's positions; some lines stay unknown.
    Placed,
    /// Applied where it could be; lines next to unknown ones were dropped.
    Partial,
    /// The base disagrees with what was edited: everything is unknown now.
    Refused,
}

/// Claude Code's replacement on a whole text, or `None` when the old text is
/// not there exactly once (and not `replaceAll`).
pub(crate) fn replace(text: &str, step: &Step) -> Option<String> {
    if step.old.is_empty() {
        // REC-086: an empty old_string only creates (an empty file).
        return text.is_empty().then(|| step.new.clone());
    }
    let widened = format!("{}\n", step.old);
    let old = if step.new.is_empty() && !step.old.ends_with('\n') && text.contains(&widened) {
        widened.as_str()
    } else {
        step.old.as_str()
    };
    let n = text.matches(old).take(2).count();
    match (n, step.all) {
        (0, _) => None,
        (_, true) => Some(text.replace(old, &step.new)),
        (1, false) => Some(text.replacen(old, &step.new, 1)),
        _ => None,
    }
}

/// Re-split `new_text` keeping the evidence of the lines the edit did not
/// touch (a common prefix and suffix), giving the rest to `src`.
fn respan(old: &[Cell], new_text: &str, src: u32) -> Vec<Cell> {
    let mut new = split(new_text, src);
    let pre = old
        .iter()
        .zip(&new)
        .take_while(|(a, b)| a.text == b.text)
        .count();
    let max_suf = old.len().min(new.len()) - pre;
    let suf = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(max_suf)
        .take_while(|(a, b)| a.text == b.text)
        .count();
    for (n, o) in new.iter_mut().zip(old).take(pre) {
        n.src = o.src;
    }
    let (nl, ol) = (new.len(), old.len());
    for i in 0..suf {
        new[nl - 1 - i].src = old[ol - 1 - i].src;
    }
    new
}

fn cells_text(v: &[Cell]) -> String {
    v.iter()
        .map(|c| c.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Apply an edit's steps to `doc`, checking against its patch when the doc
/// is whole.
pub(crate) fn apply(
    doc: &mut Doc,
    steps: &[Step],
    hunks: &[Hunk],
    src: u32,
    boundary: u32,
) -> Applied {
    if doc.is_whole() {
        for step in steps {
            let Some(Seg::Known(cells)) = doc.segs.first() else {
                break;
            };
            let text = cells_text(cells);
            match replace(&text, step) {
                Some(t) => {
                    let cells = respan(cells, &t, src);
                    doc.segs = vec![Seg::Known(cells)];
                }
                None => {
                    *doc = Doc::unknown(Why::Boundary(boundary));
                    return Applied::Refused;
                }
            }
        }
        if !hunks.is_empty() && !agrees(doc, hunks) {
            *doc = Doc::unknown(Why::Boundary(boundary));
            return Applied::Refused;
        }
        return Applied::Exact;
    }
    if let [step] = steps {
        match in_known(doc, step, src) {
            Found::Done => return Applied::Exact,
            Found::Contradiction => {
                *doc = Doc::unknown(Why::Boundary(boundary));
                return Applied::Refused;
            }
            Found::No => {}
        }
    }
    if !hunks.is_empty() && doc.total().is_some() {
        if let Some(done) = by_patch(doc, hunks, src, boundary) {
            return done;
        }
    }
    for step in steps {
        blur(doc, step, src);
    }
    Applied::Partial
}

enum Found {
    Done,
    No,
    /// The old text occurs twice in known text: the file Claude Code edited
    /// (where it was unique) is not this one.
    Contradiction,
}

/// A non-global step whose old text occurs exactly once in known text: it is
/// the one occurrence the file had (Claude Code required uniqueness), so it
/// applies there, whatever the gaps hold.
fn in_known(doc: &mut Doc, step: &Step, src: u32) -> Found {
    if step.all || step.old.is_empty() {
        return Found::No;
    }
    let mut hit = None;
    for (i, s) in doc.segs.iter().enumerate() {
        if let Seg::Known(v) = s {
            let n = cells_text(v).matches(step.old.as_str()).take(2).count();
            if n > 1 || (n == 1 && hit.is_some()) {
                return Found::Contradiction;
            }
            if n == 1 {
                hit = Some(i);
            }
        }
    }
    let Some(i) = hit else { return Found::No };
    let Seg::Known(v) = &doc.segs[i] else {
        return Found::No;
    };
    let text = cells_text(v);
    // At a known run's end, a deletion's widened newline may lie in the gap.
    if step.new.is_empty()
        && !step.old.ends_with('\n')
        && text.ends_with(step.old.as_str())
        && i + 1 < doc.segs.len()
    {
        return Found::No;
    }
    let Some(t) = replace(&text, step) else {
        return Found::No;
    };
    doc.segs[i] = Seg::Known(respan(v, &t, src));
    doc.tidy();
    Found::Done
}

/// Whether the replayed lines agree with the patch's new side, whitespace
/// aside (the patch expands tabs).
fn agrees(doc: &Doc, hunks: &[Hunk]) -> bool {
    let Some(flat) = doc.flat() else { return false };
    let squash = |s: &str| {
        s.chars()
            .filter(|c| !matches!(c, ' ' | '\t'))
            .collect::<String>()
    };
    hunks.iter().all(|h| {
        let new: Vec<&str> = new_side(h);
        let at = h.new_start.saturating_sub(1);
        new.iter().enumerate().all(|(k, line)| {
            flat.get(at + k)
                .and_then(|c| c.as_ref())
                .is_some_and(|c| squash(&c.text) == squash(line))
        })
    })
}

fn new_side(h: &Hunk) -> Vec<&str> {
    h.lines
        .iter()
        .filter_map(|l| l.strip_prefix('+').or_else(|| l.strip_prefix(' ')))
        .collect()
}

fn old_side(h: &Hunk) -> Vec<&str> {
    h.lines
        .iter()
        .filter_map(|l| l.strip_prefix('-').or_else(|| l.strip_prefix(' ')))
        .collect()
}

/// Replace each hunk's old region by its new side, by position. A context
/// line keeps the known line it repeats; a new line is taken from the patch
/// only when it has no double space (it cannot have held a tab).
fn by_patch(doc: &mut Doc, hunks: &[Hunk], src: u32, boundary: u32) -> Option<Applied> {
    let mut flat = doc.flat()?;
    let squash = |s: &str| {
        s.chars()
            .filter(|c| !matches!(c, ' ' | '\t'))
            .collect::<String>()
    };
    let mut order: Vec<&Hunk> = hunks.iter().collect();
    order.sort_by_key(|h| std::cmp::Reverse(h.old_start));
    for h in order {
        // jsdiff numbers a pure insertion's empty old range from the line before it.
        let at = if h.old_lines == 0 {
            h.old_start
        } else {
            h.old_start.saturating_sub(1)
        };
        let old = old_side(h);
        if at + old.len() > flat.len() || old.len() != h.old_lines {
            return None;
        }
        for (k, line) in old.iter().enumerate() {
            if let Some(c) = &flat[at + k] {
                if squash(&c.text) != squash(line) {
                    *doc = Doc::unknown(Why::Boundary(boundary));
                    return Some(Applied::Refused);
                }
            }
        }
        let mut repl = Vec::new();
        let mut oi = 0;
        for l in &h.lines {
            if let Some(t) = l.strip_prefix(' ') {
                repl.push(flat[at + oi].clone().or_else(|| exact(t, src)));
                oi += 1;
            } else if l.starts_with('-') {
                oi += 1;
            } else if let Some(t) = l.strip_prefix('+') {
                repl.push(exact(t, src));
            }
        }
        flat.splice(at..at + old.len(), repl);
    }
    *doc = Doc::from_flat(flat, Why::Straddle);
    Some(Applied::Placed)
}

/// A patch line as text, when it cannot have held a tab.
fn exact(t: &str, src: u32) -> Option<Cell> {
    (!t.contains("  ")).then(|| Cell {
        text: t.to_string(),
        src,
    })
}

/// An edit that could not be placed: a global one applies inside known runs;
/// either may have reached lines next to a gap, which become unknown, and
/// when it changes the line count no gap's length is known any more.
fn blur(doc: &mut Doc, step: &Step, src: u32) {
    let reach = step.old.matches('\n').count() + usize::from(step.new.is_empty());
    let changes_count = step.old.matches('\n').count() != step.new.matches('\n').count()
        || (step.new.is_empty() && !step.old.ends_with('\n'));
    let n = doc.segs.len();
    let mut out = Vec::with_capacity(n + 2);
    for i in 0..n {
        let gap_before = i > 0 && matches!(doc.segs[i - 1], Seg::Gap { .. });
        let gap_after = i + 1 < n && matches!(doc.segs[i + 1], Seg::Gap { .. });
        match doc.segs[i].clone() {
            Seg::Known(mut v) => {
                if step.all {
                    if let Some(t) = replace(&cells_text(&v), step) {
                        v = respan(&v, &t, src);
                    }
                }
                let head = if gap_before { reach.min(v.len()) } else { 0 };
                let tail = if gap_after {
                    reach.min(v.len() - head)
                } else {
                    0
                };
                let keep_to = v.len() - tail;
                out.push(Seg::Gap {
                    len: Some(head),
                    why: Why::Straddle,
                });
                out.push(Seg::Known(v[head..keep_to].to_vec()));
                out.push(Seg::Gap {
                    len: Some(tail),
                    why: Why::Straddle,
                });
            }
            Seg::Gap { len, .. } => out.push(Seg::Gap {
                len: if changes_count { None } else { len },
                why: Why::Straddle,
            }),
        }
    }
    doc.segs = out;
    doc.tidy();
}
