//! The per-file facts classification needs beyond one record: which records open
//! turns (and so every unit's turn number), which openers are superseded drafts
//! (TURN-022…024), the lane's seed record (REC-031), the ids of spawn tool_uses
//! (CLS-010) and armed ScheduleWakeup prompts (CLS-015). Built by one pass that
//! parses only lines a literal set flags, so a file is indexed at close to memchr
//! speed; search builds it only for files that have a candidate hit.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use regex::bytes::Regex;

use super::markers::SPAWN_TOOLS;
use super::turns;
use crate::record::{parse_line, Parsed, Record};

#[derive(Debug, Default)]
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
fn literal(key: usize) -> Option<&'static Regex> {
    static RE: [OnceLock<Option<Regex>>; 2] = [OnceLock::new(), OnceLock::new()];
    const PATS: [&str; 2] = [r#""type":"user""#, r#""type": "user""#];
    RE[key]
        .get_or_init(|| Regex::new(&regex::escape(PATS[key])).ok())
        .as_ref()
}

/// Markers without which a tool_result carrier cannot open a turn: an answered
/// question (TURN-009, TURN-010) or a typed rejection (TURN-013).
fn carrier_markers() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r#""answers"|User has answered your questions|Your questions have been answered|The user answered:|To tell you how to proceed"#,
        )
        .ok()
    })
    .as_ref()
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
    carrier_markers().is_none_or(|re| re.is_match(head) || re.is_match(tail))
}

/// Files at least this large are indexed in parallel pieces of about `PIECE` bytes.
const PARALLEL_MIN: usize = 16 << 20;
const PIECE: usize = 8 << 20;

/// `(line, uuid, parentUuid, byte offset)` of a turn opener.
type Opener = (usize, Option<String>, Option<String>, usize);

/// What one line-aligned piece of a file contributes to its index. Built by
/// the index's own literal passes ([`FileIndex::build`]) or, by a caller that
/// parses every record anyway, one [`Piece::note`] per record; pieces append in
/// file order and [`Piece::finish`] decides drafts and the seed.
pub struct Piece {
    openers: Vec<Opener>,
    /// Only the tool maps are filled.
    tools: FileIndex,
}

impl Piece {
    pub fn new(lane: bool) -> Piece {
        Piece {
            openers: Vec::new(),
            tools: FileIndex::empty(lane),
        }
    }

    /// Take what record `r` on `line` (at byte `offset`) tells the index; true
    /// when it is a turn opener.
    pub fn note(&mut self, r: &Record<'_>, line: usize, offset: usize) -> bool {
        match r.kind() {
            "user" if turns::opens_turn(r, self.tools.lane) => {
                self.openers.push((
                    line,
                    r.uuid.as_deref().map(str::to_string),
                    r.parent_uuid.as_deref().map(str::to_string),
                    offset,
                ));
                true
            }
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

    /// Append the piece that follows this one in the file.
    pub fn append(&mut self, next: Piece) {
        self.openers.extend(next.openers);
        self.tools.spawn_ids.extend(next.tools.spawn_ids);
        self.tools.wakeup_prompts.extend(next.tools.wakeup_prompts);
        self.tools.tool_names.extend(next.tools.tool_names);
    }

    /// The index of the whole file; `head_is_fork` from [`head_is_fork`].
    pub fn finish(self, head_is_fork: bool) -> FileIndex {
        let Piece { openers, mut tools } = self;
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

/// Whether the file's first line is a fork head (`fork-context-ref`), which
/// leads a forked lane instead of its seed (REC-031).
pub fn head_is_fork(buf: &[u8]) -> bool {
    crate::scan::Lines::new(buf)
        .next()
        .is_some_and(|l| memchr::memmem::find(l.bytes, b"\"fork-context-ref\"").is_some())
}

impl Piece {
    /// Index bytes `start..end` of `buf` (a line-aligned cut) with its lines
    /// numbered from 1; also returns the cut's newline count, so pieces are
    /// numbered in the file when merged without a separate counting pass.
    fn scan(buf: &[u8], (start, end): (usize, usize), lane: bool, spaced: bool) -> (Piece, usize) {
        let part = &buf[start..end];
        let mut newlines = 0;
        let mut p = Piece::new(lane);
        if let Some(re) = literal(usize::from(spaced)) {
            let mut hits = crate::scan::lines::HitLines::new(part, re);
            for (line, hit) in hits.by_ref() {
                if !may_matter(hit, line.bytes) {
                    continue;
                }
                let Parsed::Record(r) = parse_line(&line) else {
                    continue;
                };
                if r.kind() == "user" && turns::opens_turn(&r, lane) {
                    p.openers.push((
                        line.no,
                        r.uuid.as_deref().map(str::to_string),
                        r.parent_uuid.as_deref().map(str::to_string),
                        start + line.offset,
                    ));
                }
            }
            newlines = hits.newlines();
        }
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
            if let Parsed::Record(r) = parse_line(&line) {
                if r.kind() == "assistant" {
                    p.tools.note_tools(&r);
                }
            }
            pos = line_end;
        }
        (p, newlines)
    }
}

impl FileIndex {
    /// An index with no openers: every unit is turn 0. For callers that classify
    /// a single record out of context.
    pub fn empty(lane: bool) -> FileIndex {
        FileIndex {
            lane,
            ..FileIndex::default()
        }
    }

    pub fn build(buf: &[u8], lane: bool) -> FileIndex {
        let first = crate::scan::Lines::new(buf).next();
        // REC-038: a file written with `": "` spacing uses the spaced key form.
        let spaced = first.is_some_and(|l| memchr::memmem::find(l.bytes, b"\": \"").is_some());
        // A large file is indexed in line-aligned pieces in parallel and merged in
        // file order: a single big transcript must not leave the other cores idle.
        let cuts = if buf.len() < PARALLEL_MIN {
            vec![(0, buf.len())]
        } else {
            crate::scan::cuts(buf, PIECE)
        };
        let pieces = crate::scan::par_map(&cuts, |&c| Piece::scan(buf, c, lane, spaced));
        let mut all = Piece::new(lane);
        let mut before = 0;
        for (mut p, newlines) in pieces {
            for o in &mut p.openers {
                o.0 += before;
            }
            before += newlines;
            all.append(p);
        }
        all.finish(head_is_fork(buf))
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
    pub fn turn_start(&self, n: usize) -> Option<usize> {
        self.turn_opener(n).map(|(line, _)| line)
    }

    /// `(line, byte offset)` of the record opening turn `n` (1-based): its
    /// first opener, not a replayed copy.
    pub fn turn_opener(&self, n: usize) -> Option<(usize, usize)> {
        let i = *self.firsts.get(n.checked_sub(1)?)?;
        Some((self.openers[i], self.opener_offsets[i]))
    }

    /// Byte offset where turn `n`'s first stretch ends: the next opener in
    /// the file after its first one (a replayed copy included), `None` at
    /// the end of the file. Turn 0 ends at the first opener.
    pub fn turn_end(&self, n: usize) -> Option<usize> {
        let next = match n {
            0 => 0,
            _ => self.firsts.get(n - 1)? + 1,
        };
        self.opener_offsets.get(next).copied()
    }

    /// Byte offset of the first opener on line `line` or after it.
    pub fn next_opener_from(&self, line: usize) -> Option<usize> {
        let i = self.openers.partition_point(|&o| o < line);
        self.opener_offsets.get(i).copied()
    }

    /// Whether the record on `line` opens a turn (a replayed copy included).
    pub fn is_opener(&self, line: usize) -> bool {
        self.openers.binary_search(&line).is_ok()
    }

    pub fn is_draft(&self, line: usize) -> bool {
        self.drafts.contains(&line)
    }

    pub fn drafts(&self) -> usize {
        self.drafts.len()
    }

    /// Classify the subagent records nested in `agent_progress` records, except
    /// those of agents in `lane_files` (whose lane file is searched instead).
    pub fn with_embeds(mut self, lane_files: Arc<crate::discovery::LaneFiles>) -> FileIndex {
        self.embeds = Some(lane_files);
        self
    }

    /// Whether any agent's nested records are units (before reading any).
    pub fn embeds_any(&self) -> bool {
        self.embeds.is_some()
    }

    /// Whether agent `agent`'s records nested in progress records are units.
    pub fn embeds(&self, agent: &str) -> bool {
        self.embeds.as_ref().is_some_and(|l| !l.contains(agent))
    }

    pub fn is_seed(&self, line: usize) -> bool {
        self.seed == Some(line)
    }

    /// A 1.0.x inline sidechain seed in a top-level file: a parentless, non-meta,
    /// string-content sidechain user record (the Task prompt).
    pub fn is_legacy_seed(&self, r: &Record<'_>) -> bool {
        !self.lane
            && r.is_sidechain()
            && r.parent_uuid.is_none()
            && r.text_content().is_some()
            && !r.is_meta()
    }

    pub fn is_spawn(&self, tool_use_id: &str) -> bool {
        self.spawn_ids.contains(tool_use_id)
    }

    /// Whether the file arms any ScheduleWakeup prompt at all.
    pub fn has_wakeup_prompts(&self) -> bool {
        !self.wakeup_prompts.is_empty()
    }

    pub fn is_wakeup_prompt(&self, s: &str) -> bool {
        self.wakeup_prompts.contains(s)
    }

    /// Name of the spawn/wakeup tool_use with this id, when the index saw it.
    pub fn tool_name(&self, tool_use_id: &str) -> Option<&str> {
        self.tool_names.get(tool_use_id).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(uuid: &str, parent: &str, text: &str) -> String {
        format!(
            r#"{{"type":"user","uuid":"{uuid}","parentUuid":"{parent}","message":{{"role":"user","content":"{text}"}}}}"#
        )
    }

    /// TURN-022/023 with REC-091: a draft `d` superseded by `p`, then a resume
    /// replaying both under the same parent. The replayed draft must not turn
    /// the kept prompt before it into a draft, and the copies reopen turn 1.
    #[test]
    fn a_replayed_draft_leaves_the_kept_prompt_a_turn_turn_022_rec_091() {
        let lines = [
            user("d", "x", "draft"),
            user("p", "x", "kept"),
            user("d", "x", "draft"),
            user("p", "x", "kept"),
            user("q", "p", "next"),
        ];
        let buf = lines.join("\n") + "\n";
        let idx = FileIndex::build(buf.as_bytes(), false);
        assert_eq!(idx.drafts(), 2, "both copies of the draft");
        assert!(idx.is_draft(1) && idx.is_draft(3));
        assert_eq!(idx.turns(), 2);
        assert_eq!([2, 4, 5].map(|l| idx.turn(l)), [Some(1), Some(1), Some(2)]);
        assert_eq!(idx.turn_start(1), Some(2));
        assert_eq!(idx.turn_start(2), Some(5));
        // Turn 1's first stretch ends at the replayed copy's line.
        let third = buf.match_indices('\n').nth(2).map(|(i, _)| i + 1);
        assert_eq!(idx.turn_end(1), third);
        assert!(idx.is_opener(4) && !idx.is_opener(3));
    }
}
