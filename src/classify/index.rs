//! The per-file facts classification needs beyond one record: which records open
//! turns (and so every unit's turn number), which openers are superseded drafts
//! (TURN-022…024), the lane's seed record (REC-031), the ids of spawn tool_uses
//! (CLS-010) and armed ScheduleWakeup prompts (CLS-015). Built by one pass that
//! parses only lines a literal set flags, so a file is indexed at close to memchr
//! speed; search builds it only for files that have a candidate hit.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use regex::bytes::Regex;

use super::markers::SPAWN_TOOLS;
use super::turns;
use crate::record::{line_records, Record};
use crate::scan::find::Find;
use crate::scan::lines::HitLines;
use crate::scan::Line;

#[derive(Debug, Default, Clone)]
pub struct FileIndex {
    lane: bool,
    /// Line numbers of (non-draft) turn openers, ascending.
    openers: Vec<usize>,
    /// Byte offsets of those openers' lines, parallel to `openers`.
    opener_offsets: Vec<usize>,
    /// The turn each opener opens, parallel to `openers`: a replayed copy of
    /// an earlier opener (the same uuid, REC-091) opens that opener's turn
    /// again, so numbers repeat and `openers.len()` is not the turn count.
    numbers: Vec<usize>,
    /// Index into `openers` of each turn's first opener: turn `n` is `firsts[n - 1]`.
    firsts: Vec<usize>,
    drafts: HashSet<usize>,
    seed: Option<usize>,
    spawn_ids: HashSet<String>,
    wakeup_prompts: HashSet<String>,
    tool_names: HashMap<String, String>,
    /// Whether `agent_progress` records yield their subagent's units, and the
    /// agents left out because their lane file holds the same records
    /// ([`crate::record::embedded`]). `None`: progress records yield nothing.
    embeds: Option<Arc<crate::discovery::LaneFiles>>,
}

/// Single literals, so each pass runs at memmem speed (an alternation sharing the
/// common `"type":"` prefix is several times slower on a large file).
fn literal(key: usize) -> &'static Regex {
    match key {
        0 => crate::scan::re!(bytes r#""type":"user""#),
        _ => crate::scan::re!(bytes r#""type": "user""#),
    }
}

/// Markers without which a tool_result carrier cannot open a turn: an answered
/// question (TURN-009, TURN-010) or a typed rejection (TURN-013). Each holds
/// `answer` or `to proceed`, which [`may_matter`] looks for first.
fn carrier_markers() -> &'static Regex {
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
fn may_matter(hit: &[u8], line: &[u8]) -> bool {
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
const PARALLEL_MIN: usize = 16 << 20;
const PIECE: usize = 8 << 20;
/// Bytes of a piece every pass of the index (and search's candidate pattern)
/// reads before the next block: well inside a core's L2 cache.
const BLOCK: usize = 256 << 10;

/// `(line, uuid, parentUuid, byte offset)` of a turn opener.
type Opener = (usize, Option<String>, Option<String>, usize);

/// A piece's index, its newline count, and the lines [`Also`] found in it
/// (numbered within the piece).
type Scanned<'a> = (Piece, usize, Vec<Line<'a>>);

/// A pattern searched in the index's blocks beside its own literals, from
/// byte `from` on ([`FileIndex::build_finding`]).
struct Also<'f, F> {
    re: &'f F,
    from: usize,
}

/// How a file is cut: into pieces indexed in parallel, each read in blocks.
#[derive(Clone, Copy)]
struct Sizes {
    piece: usize,
    block: usize,
    /// Note spawn and wakeup calls (the `"name"` pass); not for a turn count.
    tools: bool,
}

impl Sizes {
    /// A large file is indexed in line-aligned pieces in parallel and merged
    /// in file order: a single big transcript must not leave the other cores
    /// idle.
    fn of(buf: &[u8]) -> Sizes {
        Sizes {
            piece: if buf.len() < PARALLEL_MIN {
                usize::MAX
            } else {
                PIECE
            },
            block: BLOCK,
            tools: true,
        }
    }
}

/// What one line-aligned piece of a file contributes to its index. Built by
/// the index's own literal passes ([`FileIndex::build`]) or, by a caller that
/// parses every record anyway, one [`Piece::note`] per record; pieces append in
/// file order and [`Piece::finish`] decides drafts and the seed.
#[derive(Debug, Clone)]
pub(crate) struct Piece {
    openers: Vec<Opener>,
    /// Records that open a turn only if the model answers them
    /// ([`turns::opens_if_answered`]): decided by [`Piece::finish`].
    pending: Vec<Opener>,
    /// Only the tool maps are filled.
    tools: FileIndex,
}

impl Piece {
    /// Write this piece for the census cache (`stats` keeps its unfinished
    /// index, so a file that grew appends the piece of its new lines).
    pub(crate) fn encode(&self, e: &mut crate::cache::Enc) {
        e.bool(self.tools.lane);
        for list in [&self.openers, &self.pending] {
            e.u64(list.len() as u64);
            for (line, uuid, parent, offset) in list {
                e.u64(*line as u64);
                e.opt_str(uuid.as_deref());
                e.opt_str(parent.as_deref());
                e.u64(*offset as u64);
            }
        }
        for set in [&self.tools.spawn_ids, &self.tools.wakeup_prompts] {
            e.u64(set.len() as u64);
            for v in set {
                e.str(v);
            }
        }
        e.u64(self.tools.tool_names.len() as u64);
        for (id, name) in &self.tools.tool_names {
            e.str(id);
            e.str(name);
        }
    }

    /// Read back what [`Piece::encode`] wrote; `None` when it is not that.
    pub(crate) fn decode(d: &mut crate::cache::Dec<'_>) -> Option<Piece> {
        let mut p = Piece::new(d.bool()?);
        for i in 0..2 {
            for _ in 0..d.len(18)? {
                let o = (
                    d.usize()?,
                    d.opt_str()?.map(str::to_string),
                    d.opt_str()?.map(str::to_string),
                    d.usize()?,
                );
                if i == 0 {
                    &mut p.openers
                } else {
                    &mut p.pending
                }
                .push(o);
            }
        }
        for i in 0..2 {
            for _ in 0..d.len(8)? {
                let v = d.str()?.to_string();
                let set = if i == 0 {
                    &mut p.tools.spawn_ids
                } else {
                    &mut p.tools.wakeup_prompts
                };
                set.insert(v);
            }
        }
        for _ in 0..d.len(16)? {
            let id = d.str()?.to_string();
            p.tools.tool_names.insert(id, d.str()?.to_string());
        }
        Some(p)
    }

    pub(crate) fn new(lane: bool) -> Piece {
        Piece {
            openers: Vec::new(),
            pending: Vec::new(),
            tools: FileIndex::empty(lane),
        }
    }

    /// Take what record `r` on `line` (at byte `offset`) tells the index; true
    /// when it is a turn opener, or one if the model answers it.
    pub(crate) fn note(&mut self, r: &Record<'_>, line: usize, offset: usize) -> bool {
        match r.kind() {
            "user" => self.note_user(r, line, offset),
            "assistant" => {
                let named = r.blocks().iter().any(|b| {
                    b.kind() == "tool_use"
                        && b.name.as_deref().is_some_and(|n| {
                            matches!(n, "Task" | "Agent" | "Workflow" | "ScheduleWakeup")
                        })
                });
                if named {
                    self.tools.note_tools(r);
                }
                false
            }
            _ => false,
        }
    }

    /// A user record: an opener, a pending one, or neither (false).
    fn note_user(&mut self, r: &Record<'_>, line: usize, offset: usize) -> bool {
        let lane = self.tools.lane;
        let list = if turns::opens_turn(r, lane) {
            &mut self.openers
        } else if turns::opens_if_answered(r, lane) {
            &mut self.pending
        } else {
            return false;
        };
        list.push((
            line,
            r.uuid.as_deref().map(str::to_string),
            r.parent_uuid.as_deref().map(str::to_string),
            offset,
        ));
        true
    }

    /// Append the piece that follows this one in the file.
    pub(crate) fn append(&mut self, next: Piece) {
        self.openers.extend(next.openers);
        self.pending.extend(next.pending);
        self.tools.spawn_ids.extend(next.tools.spawn_ids);
        self.tools.wakeup_prompts.extend(next.tools.wakeup_prompts);
        self.tools.tool_names.extend(next.tools.tool_names);
    }

    /// The index of the whole file `buf` this piece (with those appended to
    /// it) was read from. A pending opener opens its turn when an assistant
    /// record follows it before the next opener or pending one ([`answered`]).
    pub(crate) fn finish(self, buf: &[u8]) -> FileIndex {
        let Piece {
            mut openers,
            pending,
            mut tools,
        } = self;
        if !pending.is_empty() {
            let mut bounds: Vec<usize> = openers.iter().chain(&pending).map(|o| o.3).collect();
            bounds.sort_unstable();
            for p in pending {
                let from = memchr::memchr(b'\n', buf.get(p.3..).unwrap_or_default())
                    .map_or(buf.len(), |i| p.3 + i + 1);
                let to = bounds
                    .get(bounds.partition_point(|&b| b <= p.3))
                    .copied()
                    .unwrap_or(buf.len());
                if answered(buf, from, to, tools.lane) {
                    openers.push(p);
                }
            }
            openers.sort_by_key(|o| o.0);
        }
        let head_is_fork = head_is_fork(buf);
        let idx = &mut tools;
        // TURN-022/023: of openers sharing a non-empty parentUuid, those whose
        // uuid differs from the last one's are superseded drafts. A replayed
        // copy (the same uuid, REC-091) is not a draft, nor does a replayed
        // draft make the kept opener before it one.
        let mut last: HashMap<&str, Option<&str>> = HashMap::new();
        for (_, uuid, parent, _) in &openers {
            if let Some(p) = parent.as_deref().filter(|p| !p.is_empty()) {
                last.insert(p, uuid.as_deref());
            }
        }
        for (line, uuid, parent, _) in &openers {
            let parent = parent.as_deref().filter(|p| !p.is_empty());
            if parent.is_some_and(|p| last.get(p).is_some_and(|l| *l != uuid.as_deref())) {
                idx.drafts.insert(*line);
            }
        }
        // REC-091: a resume replays the history into the same file, openers
        // and all; a copy reopens its original's turn instead of a new one.
        let mut number_of: HashMap<&str, usize> = HashMap::new();
        for o in openers.iter().filter(|o| !idx.drafts.contains(&o.0)) {
            let known = o.1.as_deref().and_then(|u| number_of.get(u)).copied();
            let n = known.unwrap_or_else(|| {
                idx.firsts.push(idx.openers.len());
                let n = idx.firsts.len();
                if let Some(u) = o.1.as_deref() {
                    number_of.insert(u, n);
                }
                n
            });
            idx.openers.push(o.0);
            idx.opener_offsets.push(o.3);
            idx.numbers.push(n);
        }
        // REC-031: a lane's seed is its first opener, unless a fork head leads it.
        if idx.lane && !head_is_fork {
            idx.seed = idx.openers.first().copied();
        }
        tools
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
fn has_spaced_end(buf: &[u8]) -> bool {
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
fn answered(buf: &[u8], from: usize, to: usize, lane: bool) -> bool {
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
    fn scan<'a, F: Find>(
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
            newlines += p.scan_openers(&buf[block.0..block.1], block.0, newlines, lane, spaced);
            if sizes.tools {
                p.scan_spawns(&buf[block.0..block.1], block.0);
            }
        }
        (p, newlines, found)
    }

    /// The block's turn openers and answered-only openers (in line order, one
    /// per line); returns the block's newline count.
    #[inline]
    fn scan_openers(
        &mut self,
        part: &[u8],
        start: usize,
        before: usize,
        lane: bool,
        spaced: bool,
    ) -> usize {
        let mut newlines = 0;
        // REC-038: a line re-serialised with `": "` spacing is the same record.
        // The compact form is Claude Code's own and always searched; the spaced
        // one when either end of the file has it ([`has_spaced_end`]).
        let mut openers = Vec::new();
        let mut pending = Vec::new();
        for (key, re) in (0..1 + usize::from(spaced)).map(|k| (k, literal(k))) {
            let mut hits = HitLines::from(part, re, 0, before + 1);
            for (line, hit) in hits.by_ref() {
                if !may_matter(hit, line.bytes) {
                    continue;
                }
                // Each record of a glued line too (a real write race): a
                // prompt glued behind another record still opens its turn.
                for (_, r) in line_records(&line) {
                    if r.kind() != "user" {
                        continue;
                    }
                    let list = if turns::opens_turn(&r, lane) {
                        &mut openers
                    } else if turns::opens_if_answered(&r, lane) {
                        &mut pending
                    } else {
                        continue;
                    };
                    list.push((
                        line.no,
                        r.uuid.as_deref().map(str::to_string),
                        r.parent_uuid.as_deref().map(str::to_string),
                        start + line.offset,
                    ));
                }
            }
            if key == 0 {
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

impl FileIndex {
    /// An index with no openers: every unit is turn 0. For callers that classify
    /// a single record out of context.
    pub(crate) fn empty(lane: bool) -> FileIndex {
        FileIndex {
            lane,
            ..FileIndex::default()
        }
    }

    pub fn build(buf: &[u8], lane: bool) -> FileIndex {
        Self::build_inner(
            buf,
            lane,
            None::<&Also<'_, regex::bytes::Regex>>,
            Sizes::of(buf),
        )
        .0
    }

    /// The number of turns in `buf` ([`FileIndex::turns`] of its
    /// [`FileIndex::build`]), without the pass that notes spawn and wakeup
    /// calls, which number no turn.
    pub(crate) fn count_turns(buf: &[u8], lane: bool) -> usize {
        let sizes = Sizes {
            tools: false,
            ..Sizes::of(buf)
        };
        let none = None::<&Also<'_, regex::bytes::Regex>>;
        Self::build_inner(buf, lane, none, sizes).0.turns()
    }

    /// [`FileIndex::build`], also finding the lines at or after byte `from`
    /// (a line start) that `re` matches, in file order: search's candidate
    /// lines, found in the same pass, while each block is in cache, instead of
    /// in a pass of their own over a large file.
    pub(crate) fn build_finding<'a, F: Find + Sync>(
        buf: &'a [u8],
        lane: bool,
        re: &F,
        from: usize,
    ) -> (FileIndex, Vec<Line<'a>>) {
        Self::build_inner(buf, lane, Some(&Also { re, from }), Sizes::of(buf))
    }

    fn build_inner<'a, F: Find + Sync>(
        buf: &'a [u8],
        lane: bool,
        also: Option<&Also<'_, F>>,
        sizes: Sizes,
    ) -> (FileIndex, Vec<Line<'a>>) {
        let spaced = has_spaced_end(buf);
        let cuts = crate::scan::cuts(buf, sizes.piece);
        let pieces =
            crate::scan::par_map(&cuts, |&c| Piece::scan(buf, c, lane, spaced, also, sizes));
        let mut all = Piece::new(lane);
        let mut found = Vec::new();
        let mut before = 0;
        for (mut p, newlines, lines) in pieces {
            for o in p.openers.iter_mut().chain(&mut p.pending) {
                o.0 += before;
            }
            found.extend(lines.into_iter().map(|l| Line {
                no: l.no + before,
                ..l
            }));
            before += newlines;
            all.append(p);
        }
        (all.finish(buf), found)
    }

    fn note_tools(&mut self, r: &Record<'_>) {
        for b in r.blocks() {
            if b.kind() != "tool_use" {
                continue;
            }
            let (Some(id), Some(name)) = (b.id.as_deref(), b.name.as_deref()) else {
                continue;
            };
            self.tool_names.insert(id.to_string(), name.to_string());
            if SPAWN_TOOLS.contains(&name) {
                self.spawn_ids.insert(id.to_string());
            }
            if name == "ScheduleWakeup" {
                #[derive(serde::Deserialize)]
                struct P {
                    prompt: Option<String>,
                }
                if let Some(p) = b
                    .input
                    .and_then(|i| serde_json::from_str::<P>(i.get()).ok())
                    .and_then(|p| p.prompt)
                {
                    if !p.trim().is_empty() {
                        self.wakeup_prompts.insert(p.trim().to_string());
                    }
                }
            }
        }
    }

    /// The turn a record on `line` belongs to: 0 before the first opener, `None`
    /// for a superseded draft. A record after a replayed opener belongs to the
    /// original's turn (REC-091).
    pub fn turn(&self, line: usize) -> Option<usize> {
        if self.drafts.contains(&line) {
            return None;
        }
        let i = self.openers.partition_point(|&o| o <= line);
        Some(i.checked_sub(1).map_or(0, |i| self.numbers[i]))
    }

    /// Number of turns in the file (replayed openers do not add one).
    pub fn turns(&self) -> usize {
        self.firsts.len()
    }

    /// The first line of turn `n` (1-based), when it exists.
    pub(crate) fn turn_start(&self, n: usize) -> Option<usize> {
        self.turn_opener(n).map(|(line, _)| line)
    }

    /// `(line, byte offset)` of the record opening turn `n` (1-based): its
    /// first opener, not a replayed copy.
    pub(crate) fn turn_opener(&self, n: usize) -> Option<(usize, usize)> {
        let i = *self.firsts.get(n.checked_sub(1)?)?;
        Some((self.openers[i], self.opener_offsets[i]))
    }

    /// Byte offset where turn `n`'s first stretch ends: the next opener in
    /// the file after its first one (a replayed copy included), `None` at
    /// the end of the file. Turn 0 ends at the first opener.
    pub(crate) fn turn_end(&self, n: usize) -> Option<usize> {
        let next = match n {
            0 => 0,
            _ => self.firsts.get(n - 1)? + 1,
        };
        self.opener_offsets.get(next).copied()
    }

    /// Byte offset of the first opener on line `line` or after it.
    pub(crate) fn next_opener_from(&self, line: usize) -> Option<usize> {
        let i = self.openers.partition_point(|&o| o < line);
        self.opener_offsets.get(i).copied()
    }

    /// Whether the record on `line` opens a turn (a replayed copy included).
    pub(crate) fn is_opener(&self, line: usize) -> bool {
        self.openers.binary_search(&line).is_ok()
    }

    pub(crate) fn is_draft(&self, line: usize) -> bool {
        self.drafts.contains(&line)
    }

    #[cfg(test)]
    pub(crate) fn drafts(&self) -> usize {
        self.drafts.len()
    }

    /// Classify the subagent records nested in `agent_progress` records, except
    /// those of agents in `lane_files` (whose lane file is searched instead).
    pub(crate) fn with_embeds(mut self, lane_files: Arc<crate::discovery::LaneFiles>) -> FileIndex {
        self.embeds = Some(lane_files);
        self
    }

    /// Whether any agent's nested records are units (before reading any).
    pub(crate) fn embeds_any(&self) -> bool {
        self.embeds.is_some()
    }

    /// Whether agent `agent`'s records nested in progress records are units.
    pub(crate) fn embeds(&self, agent: &str) -> bool {
        self.embeds.as_ref().is_some_and(|l| !l.contains(agent))
    }

    pub(crate) fn is_seed(&self, line: usize) -> bool {
        self.seed == Some(line)
    }

    /// A 1.0.x inline sidechain seed in a top-level file: a parentless, non-meta,
    /// string-content sidechain user record (the Task prompt).
    pub(crate) fn is_legacy_seed(&self, r: &Record<'_>) -> bool {
        !self.lane
            && r.is_sidechain()
            && r.parent_uuid.is_none()
            && r.text_content().is_some()
            && !r.is_meta()
    }

    pub(crate) fn is_spawn(&self, tool_use_id: &str) -> bool {
        self.spawn_ids.contains(tool_use_id)
    }

    /// Whether the file arms any ScheduleWakeup prompt at all.
    pub(crate) fn has_wakeup_prompts(&self) -> bool {
        !self.wakeup_prompts.is_empty()
    }

    pub(crate) fn is_wakeup_prompt(&self, s: &str) -> bool {
        self.wakeup_prompts.contains(s)
    }

    /// Name of the spawn/wakeup tool_use with this id, when the index saw it.
    pub(crate) fn tool_name(&self, tool_use_id: &str) -> Option<&str> {
        self.tool_names.get(tool_use_id).map(String::as_str)
    }
}

#[cfg(test)]
mod tests;
