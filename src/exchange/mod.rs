//! Completing an exchange around a hit, lazily and only for hits: a tool_use
//! with its tool_result (and the reverse), found by a memmem of the id in the
//! same file (REC-094: ids and lines belong to their transcript); a turn opener
//! with the agent's last reply text of that turn; an agent message or thinking
//! block with the prompt that opened its turn.

use crate::classify::{classify, FileIndex, Label, Unit};
use crate::discovery::Transcript;
use crate::record::{line_records, parse_line, Parsed};
use crate::scan::{lines, lit, pair, Line, Lines};

pub(crate) mod print;
pub(crate) mod unit;

use unit::UnitOut;

/// A line start and its number, from which other lines are numbered by
/// counting only the newlines between (not from the top of the file).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Near {
    pub(crate) offset: usize,
    pub(crate) no: usize,
}

/// The record on the line containing `offset`, classified; `f` picks a unit.
fn unit_at<F>(
    t: &Transcript,
    buf: &[u8],
    idx: &FileIndex,
    offset: usize,
    near: Near,
    mut f: F,
) -> Option<UnitOut>
where
    F: FnMut(&Unit<'_>) -> Option<Label>,
{
    let start = lines::line_start(buf, offset);
    let no = lines::line_no_near(buf, start, near.offset, near.no);
    let line = lines::line_at(buf, start, no);
    // The record the offset falls in (of a glued line, one of several).
    let (_, r) = line_records(&line)
        .into_iter()
        .find(|(s, _)| s.offset <= offset && offset < s.offset + s.bytes.len())?;
    let mut units = Vec::new();
    classify(&r, no, idx, &mut units);
    units
        .iter()
        .find_map(|u| f(u).map(|label| UnitOut::new(t, &r, u, label, no, idx.turn(no))))
}

/// The tool_use a result answers: the nearest `"id": "<id>"` (either spacing,
/// REC-038) before the result's line `near`.
pub(crate) fn tool_use_for(
    t: &Transcript,
    buf: &[u8],
    idx: &FileIndex,
    id: &str,
    near: Near,
) -> Option<UnitOut> {
    const KEY: &[u8] = b"\"id\"";
    let before = near.offset;
    let needle = format!("\"{id}\"");
    // The call under its own label, as a match of it is printed: a Task spawn
    // is agent.communication.sent, not its secondary agent.tool.use.
    let is_use = |u: &crate::classify::Unit<'_>| {
        (u.tool_use_id == Some(id) && u.labels().any(|l| l == Label::AgentToolUse))
            .then_some(u.label)
    };
    let finder = memchr::memmem::FinderRev::new(needle.as_bytes());
    let mut end = before.min(buf.len());
    while let Some(at) = finder.rfind(&buf[..end]) {
        if pair::keyed_by(buf, at, KEY) {
            if let Some(found) = unit_at(t, buf, idx, at, near, is_use) {
                return Some(found);
            }
        }
        end = at;
    }
    // A result can precede its use in a resumed or replayed file: look after too.
    let fwd = memchr::memmem::Finder::new(needle.as_bytes());
    let mut from = before.min(buf.len());
    while let Some(at) = fwd.find(&buf[from..]).map(|i| from + i) {
        if pair::keyed_by(buf, at, KEY) {
            if let Some(found) = unit_at(t, buf, idx, at, near, is_use) {
                return Some(found);
            }
        }
        from = at + needle.len();
    }
    None
}

/// The result answering tool_use `id`: the first `"tool_use_id": "<id>"`
/// (either spacing, REC-038) after byte `after` (the end of the use's line,
/// which `near` numbers).
pub(crate) fn tool_result_for(
    t: &Transcript,
    buf: &[u8],
    idx: &FileIndex,
    id: &str,
    after: usize,
    near: Near,
) -> Option<UnitOut> {
    const KEY: &[u8] = b"\"tool_use_id\"";
    let needle = format!("\"{id}\"");
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut from = after.min(buf.len());
    let mut pass = 0;
    loop {
        while let Some(at) = finder.find(&buf[from..]).map(|i| from + i) {
            if pair::keyed_by(buf, at, KEY) {
                let found = unit_at(t, buf, idx, at, near, |u| {
                    (u.tool_use_id == Some(id) && u.labels().any(|l| l == Label::AgentToolResult))
                        .then_some(u.label)
                });
                if found.is_some() {
                    return found;
                }
            }
            from = at + needle.len();
        }
        pass += 1;
        if pass > 1 || after == 0 {
            return None;
        }
        from = 0;
    }
}

/// The record that opened turn `turn`, as its first unit.
/// An opener that is a tool result (an answered question, a typed rejection)
/// names its tool through the call it answers, as a match of it does.
pub(crate) fn turn_prompt(
    t: &Transcript,
    buf: &[u8],
    idx: &FileIndex,
    turn: usize,
) -> Option<UnitOut> {
    let (no, offset) = idx.turn_opener(turn)?;
    let near = Near { offset, no };
    let mut out = unit_at(t, buf, idx, offset, near, |u| Some(u.label))?;
    if out.tool_name.is_none() {
        if let Some(id) = out.tool_use_id.clone() {
            out.tool_name = tool_use_for(t, buf, idx, &id, near).and_then(|p| p.tool_name);
        }
    }
    Some(out)
}

/// The agent's last text in the hit's turn, scanning from `from_offset` (line
/// `from_no`, after the hit) to the next opener, which for a hit in a
/// replayed copy of the history (REC-091) is the copy's next opener.
pub(crate) fn turn_reply(
    t: &Transcript,
    buf: &[u8],
    idx: &FileIndex,
    from_offset: usize,
    from_no: usize,
) -> Option<UnitOut> {
    let end = idx.next_opener_from(from_no).unwrap_or(buf.len());
    let region = &buf[..end.min(buf.len())];
    let mut last: Option<UnitOut> = None;
    for line in Lines::from(region, from_offset, from_no) {
        // REC-038: either spacing of `"type": "assistant"`.
        if !pair::has_pair(line.bytes, b"\"type\"", lit!(b"\"assistant\""))
            || lit!(b"\"text\"").find(line.bytes).is_none()
        {
            continue;
        }
        let l = Line { ..line };
        let Parsed::Record(r) = parse_line(&l) else {
            continue;
        };
        if r.is_sidechain() && !t.is_lane() {
            continue;
        }
        let mut units = Vec::new();
        classify(&r, l.no, idx, &mut units);
        if let Some(u) = units
            .iter()
            .rev()
            .find(|u| u.label == Label::AgentMessage && !u.text.trim().is_empty())
        {
            last = Some(UnitOut::new(
                t,
                &r,
                u,
                Label::AgentMessage,
                l.no,
                idx.turn(l.no),
            ));
        }
    }
    last
}

/// The unit of the record starting at byte `offset` of `t` (the unit of call
/// `tool_use_id` when given), and the units completing its exchange: a call's
/// result when it is already there, a result's call. What a watcher prints
/// for an event it read at that offset.
pub(crate) fn at_offset(
    t: &Transcript,
    offset: u64,
    tool_use_id: Option<&str>,
) -> Option<(UnitOut, Vec<UnitOut>)> {
    let src = crate::scan::Source::open(&t.path).ok()?;
    let buf: &[u8] = &src;
    let offset = usize::try_from(offset)
        .ok()?
        .min(buf.len().saturating_sub(1));
    let idx = FileIndex::build(buf, t.is_lane());
    let no = 1 + memchr::memchr_iter(b'\n', &buf[..offset]).count();
    let near = Near { offset, no };
    let unit = tool_use_id
        .and_then(|id| {
            unit_at(t, buf, &idx, offset, near, |u| {
                (u.tool_use_id == Some(id)).then_some(u.label)
            })
        })
        .or_else(|| unit_at(t, buf, &idx, offset, near, |u| Some(u.label)))?;
    let mut partners = Vec::new();
    if let Some(id) = unit.tool_use_id.as_deref() {
        let partner = if unit.label == Label::AgentToolResult.name() {
            tool_use_for(t, buf, &idx, id, near)
        } else {
            let end = memchr::memchr(b'\n', &buf[offset..]).map_or(buf.len(), |i| offset + i);
            tool_result_for(t, buf, &idx, id, end, near)
        };
        partners.extend(partner);
    }
    Some((unit, partners))
}
