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

mod piece;
mod scan;

pub(crate) use piece::Piece;
pub(crate) use scan::head_is_fork;
use scan::*;

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
    /// calls, which number no turn, and without numbering lines: openers are
    /// keyed by their lines' offsets, which order and tell them apart as
    /// their numbers do, so the count is the same.
    pub(crate) fn count_turns(buf: &[u8], lane: bool) -> usize {
        let sizes = Sizes {
            tools: false,
            numbered: false,
            ..Sizes::of(buf)
        };
        let none = None::<&Also<'_, regex::bytes::Regex>>;
        Self::build_inner(buf, lane, none, sizes).0.turns()
    }

    /// [`FileIndex::count_turns`] from the lines a caller's own pass found
    /// holding the compact `"type":"user"` literal (`(start, end)` of each,
    /// end its newline or the end of `buf`, in file order, each once): the
    /// same count without the index's literal pass. `None` when the index
    /// would search more than those lines (a file with a `": "` spaced end,
    /// REC-038) or cut the file in pieces.
    pub(crate) fn count_turns_of(
        buf: &[u8],
        lane: bool,
        lines: &[(usize, usize)],
    ) -> Option<usize> {
        if buf.len() >= PARALLEL_MIN || has_spaced_end(buf) {
            return None;
        }
        let mut p = Piece::new(lane);
        p.take_user_lines(buf, lines);
        Some(p.finish(buf).turns())
    }

    /// [`FileIndex::build`] for the turns only ([`FileIndex::turn`],
    /// [`FileIndex::turns`], drafts, openers): without the pass that notes
    /// spawn and wakeup calls and tool names, whose maps stay empty.
    pub(crate) fn build_turns(buf: &[u8], lane: bool) -> FileIndex {
        let sizes = Sizes {
            tools: false,
            ..Sizes::of(buf)
        };
        let none = None::<&Also<'_, regex::bytes::Regex>>;
        Self::build_inner(buf, lane, none, sizes).0
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
        let scan = |&c: &(usize, usize)| Piece::scan(buf, c, lane, spaced, also, sizes);
        // Most files are one piece: no parallel collect for it.
        let pieces = match cuts.as_slice() {
            [one] => vec![scan(one)],
            _ => crate::scan::par_map(&cuts, scan),
        };
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
        self.is_legacy_seed_of(legacy_seed_shape(r))
    }

    /// [`FileIndex::is_legacy_seed`] of a record whose
    /// [`legacy_seed_shape`] is `shape`.
    pub(crate) fn is_legacy_seed_of(&self, shape: bool) -> bool {
        !self.lane && shape
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

/// The record half of [`FileIndex::is_legacy_seed`]; the index adds only
/// that the file is no lane.
pub(crate) fn legacy_seed_shape(r: &Record<'_>) -> bool {
    r.is_sidechain() && r.parent_uuid.is_none() && r.text_content().is_some() && !r.is_meta()
}

#[cfg(test)]
mod tests;
