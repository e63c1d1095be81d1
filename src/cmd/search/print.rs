//! Printing search results: complete exchanges under one-line headers (human),
//! JSON Lines, per-file counts, file lists and `--count-by` tables. Transcript text
//! is sanitised before it reaches a terminal; long bodies are cut around the match
//! with an explicit count of what was left out.

use std::collections::HashMap;
use std::io::{self, Write};

use super::hit::{Hit, JsonHit, Sub, UnitKey, UnitOut};
pub(crate) use crate::exchange::print::header;
use crate::output::{sanitize, Out};

pub(crate) struct Cut {
    pub(crate) no_truncate: bool,
    /// Lines kept around each match.
    pub(crate) context: usize,
}

/// Chars kept on each side of a match inside one very long line.
const LONG_LINE_SIDE: usize = 200;
/// Lines shown of a partner unit (one without a match) when truncating.
const PARTNER_LINES: usize = 12;
const PARTNER_CHARS: usize = 1500;

/// An exchange: the hit and its partners in file order; a partner that is
/// itself a hit of this file (`hits`, by unit key) is printed as that hit.
pub(crate) fn exchange(
    out: &mut Out,
    h: &Hit,
    hits: &HashMap<UnitKey, &UnitOut>,
    cut: &Cut,
) -> io::Result<()> {
    let mut units: Vec<(&UnitOut, bool)> = h
        .exchange
        .iter()
        .map(|u| match hits.get(&u.key()) {
            Some(hit) => (*hit, true),
            None => (u, false),
        })
        .collect();
    units.insert(h.position.min(units.len()), (&h.unit, true));
    let paired = units.len() > 1;
    for (i, (u, matched)) in units.iter().enumerate() {
        header(out, u, i > 0, paired && *matched)?;
        body(out, u, *matched, cut)?;
        if u.submatches_omitted > 0 {
            let st = out.style;
            writeln!(
                out,
                "{}[… {} more matches in this unit, not listed]{}",
                st.dim, u.submatches_omitted, st.reset
            )?;
        }
    }
    if h.unanswered {
        let st = out.style;
        writeln!(
            out,
            "{}  ↳ (no tool_result in this file answers this call){}",
            st.dim, st.reset
        )?;
    }
    Ok(())
}

fn body(out: &mut Out, u: &UnitOut, matched: bool, cut: &Cut) -> io::Result<()> {
    let text = u.text.trim_end_matches('\n');
    if text.is_empty() {
        return writeln!(out, "(empty)");
    }
    if cut.no_truncate {
        return write_highlighted(out, text, 0, &u.submatches, true);
    }
    if !matched || u.submatches.iter().all(|s| s.start == s.end) {
        return partner(out, u.shown.as_deref().unwrap_or(text));
    }
    // A matched unit no longer than a partner is kept is printed whole: cutting
    // a 5-line prompt around its match hid the question it asked.
    if text.len() <= PARTNER_CHARS && text.matches('\n').count() < PARTNER_LINES {
        return write_highlighted(out, text, 0, &u.submatches, true);
    }
    // Keep lines holding a match, ±context; say how much lies between.
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    let line_of = |off: usize| starts.partition_point(|&s| s <= off) - 1;
    let n = starts.len();
    let mut keep = vec![false; n];
    for s in &u.submatches {
        let (a, b) = (
            line_of(s.start),
            line_of(s.end.saturating_sub(1).max(s.start)),
        );
        keep[a.saturating_sub(cut.context)..=(b + cut.context).min(n - 1)].fill(true);
    }
    let mut i = 0;
    while i < n {
        if !keep[i] {
            let j = (i..n).find(|&k| keep[k]).unwrap_or(n);
            let from = starts[i];
            let to = if j < n { starts[j] } else { text.len() };
            let st = out.style;
            writeln!(
                out,
                "{}[… {} lines, {} chars omitted]{}",
                st.dim,
                j - i,
                text[from..to].chars().count(),
                st.reset
            )?;
            i = j;
            continue;
        }
        let from = starts[i];
        let to = if i + 1 < n {
            starts[i + 1] - 1
        } else {
            text.len()
        };
        // Submatches are sorted by start: hand each line only its own, so a body of
        // many lines with many matches stays linear.
        let lo = u.submatches.partition_point(|s| s.start < from);
        let hi = u.submatches.partition_point(|s| s.start < to.max(from + 1));
        write_line(out, &text[from..to], from, &u.submatches[lo..hi])?;
        i += 1;
    }
    Ok(())
}

/// One body line; a very long line is cut to windows around its matches.
fn write_line(out: &mut Out, line: &str, base: usize, subs: &[Sub]) -> io::Result<()> {
    let local: Vec<Sub> = subs
        .iter()
        .filter(|s| s.start >= base && s.start < base + line.len().max(1))
        .map(|s| Sub {
            start: s.start - base,
            end: (s.end - base).min(line.len()),
        })
        .collect();
    if line.chars().count() <= 2 * LONG_LINE_SIDE + 100 || local.is_empty() {
        if line.chars().count() > 2 * LONG_LINE_SIDE + 100 {
            let kept: String = line.chars().take(2 * LONG_LINE_SIDE).collect();
            let st = out.style;
            return writeln!(
                out,
                "{}{}[… {} chars omitted]{}",
                sanitize::clean(&kept),
                st.dim,
                line.chars().count() - 2 * LONG_LINE_SIDE,
                st.reset
            );
        }
        return write_highlighted(out, line, 0, &local, true);
    }
    let st = out.style;
    let mut pos = 0;
    // `local` is sorted by start; `next` is the first submatch not yet printed, so
    // each is visited once however many windows the line has.
    let mut next = 0;
    while next < local.len() {
        let s = &local[next];
        if s.start < pos {
            next += 1;
            continue;
        }
        let a = floor(line, s.start.saturating_sub(LONG_LINE_SIDE).max(pos));
        let b = ceil(line, (s.end + LONG_LINE_SIDE).min(line.len()));
        if a > pos {
            write!(
                out,
                "{}[… {} chars omitted]{}",
                st.dim,
                line[pos..a].chars().count(),
                st.reset
            )?;
        }
        let mut inner: Vec<Sub> = Vec::new();
        while next < local.len() && local[next].start < b {
            let x = &local[next];
            if x.start >= a && x.end <= b {
                inner.push(Sub {
                    start: x.start - a,
                    end: x.end - a,
                });
            }
            next += 1;
        }
        write_highlighted(out, &line[a..b], 0, &inner, false)?;
        pos = b;
    }
    if pos < line.len() {
        write!(
            out,
            "{}[… {} chars omitted]{}",
            st.dim,
            line[pos..].chars().count(),
            st.reset
        )?;
    }
    writeln!(out)
}

fn floor(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

fn write_highlighted(
    out: &mut Out,
    text: &str,
    base: usize,
    subs: &[Sub],
    newline: bool,
) -> io::Result<()> {
    let st = out.style;
    let mut pos = 0;
    for s in subs {
        let (a, b) = (s.start.saturating_sub(base), s.end.saturating_sub(base));
        if a < pos
            || b > text.len()
            || a >= b
            || !text.is_char_boundary(a)
            || !text.is_char_boundary(b)
        {
            continue;
        }
        write!(
            out,
            "{}{}{}{}",
            sanitize::clean(&text[pos..a]),
            st.hit,
            sanitize::clean(&text[a..b]),
            st.reset
        )?;
        pos = b;
    }
    write!(out, "{}", sanitize::clean(&text[pos..]))?;
    if newline {
        writeln!(out)?;
    }
    Ok(())
}

/// A partner unit: its first lines, and how much was left out.
fn partner(out: &mut Out, text: &str) -> io::Result<()> {
    let mut shown = 0;
    let mut chars = 0;
    for (i, line) in text.lines().enumerate() {
        if i >= PARTNER_LINES || chars >= PARTNER_CHARS {
            break;
        }
        let room = PARTNER_CHARS - chars;
        if line.chars().count() > room {
            let kept: String = line.chars().take(room).collect();
            writeln!(out, "{}", sanitize::clean(&kept))?;
            shown += kept.len();
            break;
        }
        writeln!(out, "{}", sanitize::clean(line))?;
        chars += line.chars().count() + 1;
        shown += line.len() + 1;
    }
    if shown < text.len() {
        let rest = &text[floor(text, shown.min(text.len()))..];
        crate::output::omitted(out, rest)?;
    }
    Ok(())
}

pub(crate) fn json_hit(out: &mut Out, h: &Hit) -> io::Result<()> {
    out.json(&JsonHit {
        kind: "match",
        unit: &h.unit,
        exchange: &h.exchange,
        unanswered: h.unanswered,
    })
}
