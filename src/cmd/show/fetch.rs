//! Resolving `show`'s addresses against one transcript's bytes: which physical
//! lines to print, which uuid copies they are, and every address that missed.
//! Lines are framed with memchr; a uuid is found by memmem and confirmed
//! structurally (the record's OWN `uuid` must equal it, a body quoting it does not
//! count, REC-092); a turn is the span between FileIndex openers, so its numbers
//! are search's. Nothing here prints.

use std::collections::BTreeMap;

use crate::address::{self, Item};
use crate::classify::FileIndex;
use crate::record::line_records;
use crate::scan::{lines, Line, Lines};

/// What the user asked for (empty everywhere = the whole transcript).
#[derive(Debug, Default)]
pub(crate) struct Want {
    pub(crate) lines: Vec<Item>,
    pub(crate) turns: Vec<Item>,
    pub(crate) uuids: Vec<String>,
}

impl Want {
    pub(crate) fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.turns.is_empty() && self.uuids.is_empty()
    }
}

/// Which copy of a duplicated uuid a line is (REC-091/092): `(k, n, every line)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Copy {
    pub(crate) k: usize,
    pub(crate) n: usize,
    pub(crate) lines: Vec<usize>,
}

/// One line to print, in file order.
#[derive(Debug, Clone)]
pub(crate) struct Pick<'a> {
    pub(crate) line: Line<'a>,
    pub(crate) copy: Option<Copy>,
}

#[derive(Debug, Default)]
pub(crate) struct Picked<'a> {
    pub(crate) picks: Vec<Pick<'a>>,
    /// Every address that resolved to nothing, spelled for the error.
    pub(crate) misses: Vec<String>,
}

/// The exact bytes of a line as written (a trailing `\r` kept), without its `\n`.
pub(crate) fn raw_bytes<'a>(buf: &'a [u8], line: &Line<'a>) -> &'a [u8] {
    let from = line.offset.min(buf.len());
    let rest = &buf[from..];
    let len = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    // A record glued inside a longer line: its own bytes only.
    if line.bytes.len() + 1 < len {
        return line.bytes;
    }
    &rest[..len]
}

/// Whether a turn fetch admits this line: a user or assistant record (QT-024),
/// or a subagent's record nested in an agent_progress record when the index
/// classifies it (search numbers it by that turn), whose turn, by the index,
/// lies in `turns`.
fn turn_member(line: &Line<'_>, idx: &FileIndex, turns: &[(usize, usize)]) -> bool {
    let Some(t) = idx.turn(line.no) else {
        return false;
    };
    if !turns.iter().any(|&(a, b)| a <= t && t <= b) {
        return false;
    }
    let member = |r: &crate::record::Record<'_>| {
        (matches!(r.kind(), "user" | "assistant") && r.has_message())
            || (idx.embeds_any()
                && r.embedded()
                    .is_some_and(|e| idx.embeds(e.agent_id.as_deref().unwrap_or(""))))
    };
    // A glued line holds records too (search finds them there).
    line_records(line).iter().any(|(_, r)| member(r))
}

/// Lines holding `uuid` as their record's own uuid (or its nested subagent
/// record's), in file order.
pub(crate) fn uuid_lines<'a>(buf: &'a [u8], uuid: &str) -> Vec<Line<'a>> {
    let mut out: Vec<Line<'a>> = Vec::new();
    if uuid.is_empty() {
        return out;
    }
    let finder = memchr::memmem::Finder::new(uuid.as_bytes());
    let (mut counted_to, mut no) = (0, 1);
    for at in finder.find_iter(buf) {
        let start = lines::line_start(buf, at);
        if out.last().is_some_and(|l| l.offset == start) {
            continue;
        }
        no += memchr::memchr_iter(b'\n', &buf[counted_to..start]).count();
        counted_to = start;
        let line = lines::line_at(buf, start, no);
        // A copy inside a glued line is a copy too.
        // A subagent record nested in an agent_progress record is found by
        // its own uuid too (the one its lane file, where there is one, uses).
        let found = line_records(&line).iter().any(|(_, r)| {
            r.uuid.as_deref() == Some(uuid)
                || r.embedded()
                    .is_some_and(|e| e.record.uuid.as_deref() == Some(uuid))
        });
        if found {
            out.push(line);
        }
    }
    out
}

/// Line number -> copy marker (None when not addressed by a duplicated uuid),
/// and each chosen line's frame.
#[derive(Default)]
struct Chosen<'a> {
    marks: BTreeMap<usize, Option<Copy>>,
    framed: BTreeMap<usize, Line<'a>>,
}

/// Resolve `want` against `buf`. `idx` is needed only when turns are asked for.
pub(crate) fn pick<'a>(buf: &'a [u8], want: &Want, idx: Option<&FileIndex>) -> Picked<'a> {
    let mut out = Picked::default();
    if want.is_empty() {
        out.picks = Lines::new(buf)
            .map(|line| Pick { line, copy: None })
            .collect();
        return out;
    }
    let mut chosen = Chosen::default();
    let wanted_lines = line_spans(buf, &want.lines, &mut out.misses);
    let wanted_turns = match idx {
        Some(idx) => turn_spans(idx, &want.turns, &mut out.misses),
        None => Vec::new(),
    };
    if !wanted_lines.is_empty() || !wanted_turns.is_empty() {
        by_line_or_turn(buf, idx, &wanted_lines, &wanted_turns, &mut chosen);
        empty_turn_misses(idx, &wanted_turns, &chosen, &mut out.misses);
    }
    for u in &want.uuids {
        by_uuid(buf, u, &mut chosen, &mut out.misses);
    }
    let Chosen { marks, mut framed } = chosen;
    out.picks = marks
        .into_iter()
        .filter_map(|(no, copy)| framed.remove(&no).map(|line| Pick { line, copy }))
        .collect();
    out
}

/// `--line` addresses as inclusive spans of the file's lines; a miss is named.
fn line_spans(buf: &[u8], items: &[Item], misses: &mut Vec<String>) -> Vec<(usize, usize)> {
    let count = lines::count(buf);
    let mut spans = Vec::new();
    for item in items {
        match address::resolve(item, 1, count) {
            Some(r) => spans.push((*r.start(), *r.end())),
            None => misses.push(format!("L{} (file has {count} lines)", item.token)),
        }
    }
    spans
}

/// `--turn` addresses as inclusive spans of the index's turns; a miss is named.
fn turn_spans(idx: &FileIndex, items: &[Item], misses: &mut Vec<String>) -> Vec<(usize, usize)> {
    let n = idx.turns();
    let mut spans = Vec::new();
    for item in items {
        match address::resolve(item, 0, n) {
            Some(r) => spans.push((*r.start(), *r.end())),
            None => misses.push(format!("turn {} (file has turns 0..{n})", item.token)),
        }
    }
    spans
}

/// One framing pass from the first line any address can reach, choosing the
/// lines a line span holds or a turn span admits.
fn by_line_or_turn<'a>(
    buf: &'a [u8],
    idx: Option<&FileIndex>,
    wanted_lines: &[(usize, usize)],
    wanted_turns: &[(usize, usize)],
    chosen: &mut Chosen<'a>,
) {
    let first_turn_line = wanted_turns
        .iter()
        .map(|&(a, _)| idx.and_then(|i| i.turn_opener(a)).unwrap_or((1, 0)))
        .min();
    let first_line = wanted_lines.iter().map(|&(a, _)| a).min();
    let (from_no, from_off) = match (first_line, first_turn_line) {
        (Some(l), Some(t)) if t.0 <= l => t,
        (None, Some(t)) => t,
        _ => (1, 0),
    };
    for line in Lines::from(buf, from_off, from_no) {
        let by_line = wanted_lines
            .iter()
            .any(|&(a, b)| a <= line.no && line.no <= b);
        let by_turn = !by_line
            && !wanted_turns.is_empty()
            && idx.is_some_and(|i| turn_member(&line, i, wanted_turns));
        if by_line || by_turn {
            chosen.marks.insert(line.no, None);
            chosen.framed.insert(line.no, line);
        }
    }
}

/// A single turn asked for that chose no line has no user or assistant record.
fn empty_turn_misses(
    idx: Option<&FileIndex>,
    wanted_turns: &[(usize, usize)],
    chosen: &Chosen<'_>,
    misses: &mut Vec<String>,
) {
    for (a, b) in wanted_turns {
        let hit = chosen.marks.keys().any(|&no| {
            idx.and_then(|i| i.turn(no))
                .is_some_and(|t| *a <= t && t <= *b)
        });
        if !hit && a == b {
            misses.push(format!("turn {a} (no user or assistant record)"));
        }
    }
}

/// Every line holding `uuid`, each marked with its copy number when there
/// are several (REC-091/092).
fn by_uuid<'a>(buf: &'a [u8], uuid: &str, chosen: &mut Chosen<'a>, misses: &mut Vec<String>) {
    let found = uuid_lines(buf, uuid);
    if found.is_empty() {
        misses.push(format!("uuid {uuid}"));
        return;
    }
    let all: Vec<usize> = found.iter().map(|l| l.no).collect();
    let n = found.len();
    for (k, line) in found.into_iter().enumerate() {
        let mark = (n > 1).then(|| Copy {
            k: k + 1,
            n,
            lines: all.clone(),
        });
        let slot = chosen.marks.entry(line.no).or_insert(None);
        if mark.is_some() {
            *slot = mark;
        }
        chosen.framed.insert(line.no, line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUF: &[u8] = b"{\"type\":\"user\",\"uuid\":\"u1\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n\
{\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":\"u1\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"u1 quoted\"}]}}\n\
{\"type\":\"system\",\"uuid\":\"s1\"}\r\n\
{\"type\":\"user\",\"uuid\":\"u1\",\"slug\":\"x\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";

    fn want_lines(s: &str) -> Want {
        Want {
            lines: address::parse(&[s.to_string()]).unwrap(),
            ..Want::default()
        }
    }

    #[test]
    fn raw_bytes_keep_carriage_returns() {
        let p = pick(BUF, &want_lines("3"), None);
        assert_eq!(
            raw_bytes(BUF, &p.picks[0].line),
            b"{\"type\":\"system\",\"uuid\":\"s1\"}\r"
        );
    }

    #[test]
    fn uuid_every_copy_own_field_only_rec_092() {
        let w = Want {
            uuids: vec!["u1".into()],
            ..Want::default()
        };
        let p = pick(BUF, &w, None);
        // Line 2 quotes u1 in its body but is not a copy.
        let nos: Vec<usize> = p.picks.iter().map(|x| x.line.no).collect();
        assert_eq!(nos, vec![1, 4]);
        assert_eq!(p.picks[1].copy.as_ref().map(|c| (c.k, c.n)), Some((2, 2)));
    }

    #[test]
    fn misses_are_named_rec_093() {
        let w = Want {
            lines: address::parse(&["9,2..3,7..8".to_string()]).unwrap(),
            uuids: vec!["nope".into()],
            ..Want::default()
        };
        let p = pick(BUF, &w, None);
        assert_eq!(p.picks.len(), 2);
        assert_eq!(p.misses.len(), 3, "{:?}", p.misses);
        assert!(p.misses[0].starts_with("L9 "));
    }
}
