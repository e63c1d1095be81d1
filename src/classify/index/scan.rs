//! The index's own literal passes: which lines a literal set flags, which
//! flagged lines need a parse ([`may_matter`]), and how a file is cut into
//! pieces scanned in parallel and read in cache-sized blocks.

use super::*;

/// Single literals, so each pass runs at memmem speed (an alternation sharing the
/// common `"type":"` prefix is several times slower on a large file).
pub(super) fn literal(key: usize) -> &'static Regex {
    match key {
        0 => crate::scan::re!(bytes r#""type":"user""#),
        _ => crate::scan::re!(bytes r#""type": "user""#),
    }
}

/// Markers without which a tool_result carrier cannot open a turn: an answered
/// question (TURN-009, TURN-010) or a typed rejection (TURN-013). Each holds
/// `answer` or `to proceed`, which [`may_matter`] looks for first.
pub(super) fn carrier_markers() -> &'static Regex {
    crate::scan::re!(bytes
        r#""answers"|User has answered your questions|Your questions have been answered|The user answered:|To tell you how to proceed"#
    )
}

/// Whether a flagged line needs a parse. Tool-result carriers are most user lines
/// and most bytes; one that carries no answer or rejection marker cannot open a
/// turn, so it is skipped without parsing.
///
/// Only windows are read: a tool_result opens its record's content near the line
/// start, and the markers sit at the start of its text or in the `toolUseResult`
/// at the end. A carrier not recognised in its head is parsed, so a layout change
/// costs speed, never a turn.
pub(super) fn may_matter(hit: &[u8], line: &[u8]) -> bool {
    const WINDOW: usize = 4096;
    if !hit.ends_with(b"\"user\"") {
        return true;
    }
    let head = &line[..line.len().min(WINDOW)];
    if crate::scan::lit!(b"\"tool_result\"").find(head).is_none() {
        return true;
    }
    let tail = &line[line.len().saturating_sub(WINDOW)..];
    // Every marker holds `answer` or `to proceed`: two memmems rule out most
    // windows before the regex (Teddy over common English trigrams) runs,
    // and a line that fits in one window is searched once.
    let marked = |w: &[u8]| {
        (crate::scan::lit!(b"answer").find(w).is_some()
            || crate::scan::lit!(b"to proceed").find(w).is_some())
            && carrier_markers().is_match(w)
    };
    marked(head) || (line.len() > WINDOW && marked(tail))
}

/// Files at least this large are indexed in parallel pieces of about `PIECE` bytes.
pub(super) const PARALLEL_MIN: usize = 16 << 20;
pub(super) const PIECE: usize = 8 << 20;
/// Bytes of a piece every pass of the index (and search's candidate pattern)
/// reads before the next block: well inside a core's L2 cache.
pub(super) const BLOCK: usize = 256 << 10;

/// `(line, uuid, parentUuid, byte offset)` of a turn opener.
pub(super) type Opener = (usize, Option<String>, Option<String>, usize);

/// A piece's index, its newline count, and the lines [`Also`] found in it
/// (numbered within the piece).
pub(super) type Scanned<'a> = (Piece, usize, Vec<Line<'a>>);

/// A pattern searched in the index's blocks beside its own literals, from
/// byte `from` on ([`FileIndex::build_finding`]).
pub(super) struct Also<'f, F> {
    pub(super) re: &'f F,
    pub(super) from: usize,
}

/// How a file is cut: into pieces indexed in parallel, each read in blocks.
#[derive(Clone, Copy)]
pub(super) struct Sizes {
    pub(super) piece: usize,
    pub(super) block: usize,
    /// Note spawn and wakeup calls (the `"name"` pass); not for a turn count.
    pub(super) tools: bool,
    /// Number lines; a turn count keys each opener by its line's offset
    /// instead (as unique, in the same order), with no newline counted.
    pub(super) numbered: bool,
}

impl Sizes {
    /// A large file is indexed in line-aligned pieces in parallel and merged
    /// in file order: a single big transcript must not leave the other cores
    /// idle.
    pub(super) fn of(buf: &[u8]) -> Sizes {
        Sizes {
            piece: if buf.len() < PARALLEL_MIN {
                usize::MAX
            } else {
                PIECE
            },
            block: BLOCK,
            tools: true,
            numbered: true,
        }
    }
}

/// Whether a line near either end of `buf` (the first two and the last two
/// that are not blank) is written with `": "` spacing (REC-038): a file
/// re-serialised whole, or one Claude Code appended to after that (or the
/// other way round); two at each end, so a torn last line of the other form
/// does not hide it. Raw `": "` cannot occur inside a compact line's
/// strings, where every quote is escaped. A re-serialised stretch with
/// compact lines at both ends is not looked for: finding it would cost a
/// pass of its own over every file.
pub(super) fn has_spaced_end(buf: &[u8]) -> bool {
    let spaced = |l: &[u8]| memchr::memmem::find(l, b"\": \"").is_some();
    let blank = |l: &&[u8]| l.iter().all(u8::is_ascii_whitespace);
    let mut head = crate::scan::Lines::new(buf)
        .map(|l| l.bytes)
        .filter(|l| !blank(l));
    let mut end = buf.len();
    let mut tail = std::iter::from_fn(|| {
        let line_end = end.checked_sub(1)?;
        let start = memchr::memrchr(b'\n', &buf[..line_end]).map_or(0, |i| i + 1);
        let line = &buf[start..end];
        end = start;
        Some(line)
    })
    .filter(|l| !blank(l));
    head.by_ref().take(2).any(spaced) || tail.by_ref().take(2).any(spaced)
}

/// Whether an assistant record the model wrote (not a `<synthetic>` notice
/// such as the `No response requested.` a resume writes after `/exit`) lies in
/// `buf[from..to]`: a top-level one (REC-038: either spacing, and a record
/// glued on a line counts), and in a main file not an inline sidechain's.
/// Only lines holding the bare token `"assistant"` (a quote inside a string
/// is escaped) are parsed, and the walk stops at the first found.
pub(super) fn answered(buf: &[u8], from: usize, to: usize, lane: bool) -> bool {
    let to = to.min(buf.len());
    let mut at = from.min(to);
    while let Some(i) = crate::scan::lit!(b"\"assistant\"").find(&buf[at..to]) {
        let hit = at + i;
        let start = crate::scan::lines::line_start(buf, hit);
        let end = memchr::memchr(b'\n', &buf[hit..]).map_or(buf.len(), |j| hit + j);
        let line = Line {
            no: 0,
            offset: start,
            bytes: &buf[start..end],
            terminated: end < buf.len(),
        };
        let model_wrote = |r: &Record<'_>| {
            r.kind() == "assistant"
                && r.has_message()
                && (lane || !r.is_sidechain())
                && r.model() != Some("<synthetic>")
        };
        if line_records(&line).iter().any(|(_, r)| model_wrote(r)) {
            return true;
        }
        at = end.max(hit + 1);
        if at >= to {
            break;
        }
    }
    false
}

/// Whether the file's first line is a fork head (`fork-context-ref`), which
/// leads a forked lane instead of its seed (REC-031).
pub(crate) fn head_is_fork(buf: &[u8]) -> bool {
    crate::scan::Lines::new(buf)
        .next()
        .is_some_and(|l| memchr::memmem::find(l.bytes, b"\"fork-context-ref\"").is_some())
}

impl Piece {
    /// Index bytes `start..end` of `buf` (a line-aligned cut) with its lines
    /// numbered from 1; also returns the cut's newline count, so pieces are
    /// numbered in the file when merged without a separate counting pass.
    ///
    /// The literal passes run block by block ([`BLOCK`] bytes, line-aligned),
    /// so all but the first read each block from cache: a pass over a large
    /// file is bound by memory bandwidth, and whole-piece passes read it once
    /// each.
    pub(super) fn scan<'a, F: Find>(
        buf: &'a [u8],
        (start, end): (usize, usize),
        lane: bool,
        spaced: bool,
        also: Option<&Also<'_, F>>,
        sizes: Sizes,
    ) -> Scanned<'a> {
        let mut p = Piece::new(lane);
        let mut newlines = 0;
        let mut found = Vec::new();
        for (a, b) in crate::scan::cuts(&buf[start..end], sizes.block) {
            let block = (start + a, start + b);
            if let Some(also) = also.filter(|also| block.1 > also.from) {
                let part = &buf[..block.1];
                let hits = HitLines::from(part, also.re, block.0, newlines + 1);
                found.extend(hits.map(|(l, _)| l).filter(|l| l.offset >= also.from));
            }
            let part = &buf[block.0..block.1];
            newlines += p.scan_openers(part, block.0, newlines, lane, spaced, sizes.numbered);
            if sizes.tools {
                p.scan_spawns(&buf[block.0..block.1], block.0);
            }
        }
        (p, newlines, found)
    }

    /// The block's turn openers and answered-only openers (in line order, one
    /// per line); returns the block's newline count. Unless `numbered`, each
    /// opener is keyed by its line's offset in the file, not its number, and
    /// the count is 0.
    #[inline]
    fn scan_openers(
        &mut self,
        part: &[u8],
        start: usize,
        before: usize,
        lane: bool,
        spaced: bool,
        numbered: bool,
    ) -> usize {
        let mut newlines = 0;
        // REC-038: a line re-serialised with `": "` spacing is the same record.
        // The compact form is Claude Code's own and always searched; the spaced
        // one when either end of the file has it ([`has_spaced_end`]).
        let mut openers = Vec::new();
        let mut pending = Vec::new();
        for (key, re) in (0..1 + usize::from(spaced)).map(|k| (k, literal(k))) {
            let mut hits = match numbered {
                true => HitLines::from(part, re, 0, before + 1),
                false => HitLines::unnumbered(part, re, 0),
            };
            for (line, hit) in hits.by_ref() {
                let key = if numbered {
                    line.no
                } else {
                    start + line.offset
                };
                let lists = (&mut openers, &mut pending);
                take_flagged(lists, &line, hit, lane, key, start + line.offset);
            }
            if key == 0 && numbered {
                newlines = hits.newlines() - before;
            }
        }
        // A line both forms match (a hand-edited line may mix spacings) is one
        // opener.
        for list in [&mut openers, &mut pending] {
            list.sort_by_key(|o| o.0);
            list.dedup_by_key(|o| o.0);
        }
        self.openers.extend(openers);
        self.pending.extend(pending);
        newlines
    }

    /// The turn openers among lines a caller's own pass found holding the
    /// compact `"type":"user"` literal (`(start, end)` of each in `buf`, end
    /// its newline or the end of `buf`, in file order, each once): what
    /// [`Piece::scan_openers`] lists for them, keyed by offset.
    pub(super) fn take_user_lines(&mut self, buf: &[u8], lines: &[(usize, usize)]) {
        let lane = self.tools.lane;
        let (mut openers, mut pending) = (Vec::new(), Vec::new());
        for &(start, end) in lines {
            let line = Line {
                no: 0,
                offset: start,
                bytes: crate::scan::lines::trim_cr(&buf[start..end]),
                terminated: end < buf.len(),
            };
            let hit = &b"\"type\":\"user\""[..];
            take_flagged((&mut openers, &mut pending), &line, hit, lane, start, start);
        }
        // As `scan_openers` does: one opener a line.
        for list in [&mut openers, &mut pending] {
            list.sort_by_key(|o| o.0);
            list.dedup_by_key(|o| o.0);
        }
        self.openers.extend(openers);
        self.pending.extend(pending);
    }

    /// The block's Task, Agent, Workflow and ScheduleWakeup calls, noted.
    #[inline]
    fn scan_spawns(&mut self, part: &[u8], start: usize) {
        // Spawn and ScheduleWakeup calls: lines naming one of those tools. Tool
        // notes need no line numbers, so this pass only jumps between `"name"`
        // keys and frames a line only when one names such a tool, in either
        // spacing (REC-038: a re-serialised line is the same record).
        const NAME: &[u8] = b"\"name\"";
        const TOOLS: [&[u8]; 4] = [b"Task\"", b"Agent\"", b"Workflow\"", b"ScheduleWakeup\""];
        let finder = crate::scan::lit!(NAME);
        let mut pos = 0;
        while let Some(k) = finder.find(&part[pos..]) {
            let at = pos + k;
            let names_one = crate::scan::pair::value_at(part, at, NAME).is_some_and(|v| {
                part.get(v) == Some(&b'"') && TOOLS.iter().any(|n| part[v + 1..].starts_with(n))
            });
            if !names_one {
                pos = at + NAME.len();
                continue;
            }
            let line_start = memchr::memrchr(b'\n', &part[..at]).map_or(0, |i| i + 1);
            let line_end = memchr::memchr(b'\n', &part[at..]).map_or(part.len(), |i| at + i);
            let line = crate::scan::Line {
                no: 0,
                offset: start + line_start,
                bytes: &part[line_start..line_end],
                terminated: line_end < part.len(),
            };
            for (_, r) in line_records(&line) {
                if r.kind() == "assistant" {
                    self.tools.note_tools(&r);
                }
            }
            pos = line_end;
        }
    }
}

/// A line the user literal flagged (`hit` its first match), keyed `key`, at
/// byte `offset` of the file: each of its user records that opens a turn
/// goes to `lists.0`, each that opens one if answered to `lists.1`.
fn take_flagged(
    lists: (&mut Vec<Opener>, &mut Vec<Opener>),
    line: &Line<'_>,
    hit: &[u8],
    lane: bool,
    key: usize,
    offset: usize,
) {
    if !may_matter(hit, line.bytes) {
        return;
    }
    // Each record of a glued line too (a real write race): a prompt glued
    // behind another record still opens its turn.
    for (_, r) in line_records(line) {
        if r.kind() != "user" {
            continue;
        }
        let list = if turns::opens_turn(&r, lane) {
            &mut *lists.0
        } else if turns::opens_if_answered(&r, lane) {
            &mut *lists.1
        } else {
            continue;
        };
        list.push((
            key,
            r.uuid.as_deref().map(str::to_string),
            r.parent_uuid.as_deref().map(str::to_string),
            offset,
        ));
    }
}
