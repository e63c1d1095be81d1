//! The per-file facts classification needs beyond one record: which records open
//! turns (and so every unit's turn number), which openers are superseded drafts
//! (TURN-022…024), the lane's seed record (REC-031), the ids of spawn tool_uses
//! (CLS-010) and armed ScheduleWakeup prompts (CLS-015). Built by one pass that
//! parses only lines a literal set flags, so a file is indexed at close to memchr
//! speed; search builds it only for files that have a candidate hit.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use regex::bytes::Regex;

use super::markers::SPAWN_TOOLS;
use super::turns;
use crate::record::{parse_line, Parsed, Record};
use crate::scan::Line;

#[derive(Debug, Default)]
pub struct FileIndex {
    lane: bool,
    /// Line numbers of (non-draft) turn openers, ascending.
    openers: Vec<usize>,
    /// Byte offsets of those openers' lines, parallel to `openers`.
    opener_offsets: Vec<usize>,
    drafts: HashSet<usize>,
    seed: Option<usize>,
    spawn_ids: HashSet<String>,
    wakeup_prompts: HashSet<String>,
    tool_names: HashMap<String, String>,
}

fn flags() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#""type":\s?"(?:user|fork-context-ref)"|"name":"(?:Task|Agent|Workflow|ScheduleWakeup)""#).ok()
    })
    .as_ref()
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
        let mut idx = FileIndex::empty(lane);
        let Some(re) = flags() else { return idx };
        let mut head_is_fork = false;
        // (line, uuid, parentUuid, offset) of every opener, in file order.
        let mut openers: Vec<(usize, Option<String>, Option<String>, usize)> = Vec::new();
        let mut pos = 0;
        let mut counted_to = 0;
        let mut line_no = 1;
        while let Some(m) = re.find_at(buf, pos) {
            let start = crate::scan::lines::line_start(buf, m.start());
            let end = memchr::memchr(b'\n', &buf[m.start()..]).map_or(buf.len(), |i| m.start() + i);
            line_no += memchr::memchr_iter(b'\n', &buf[counted_to..start]).count();
            counted_to = start;
            pos = end + 1;
            let line = Line {
                no: line_no,
                offset: start,
                bytes: &buf[start..end],
                terminated: end < buf.len(),
            };
            let Parsed::Record(r) = parse_line(&line) else {
                continue;
            };
            if r.kind() == "fork-context-ref" && line_no == 1 {
                head_is_fork = true;
            }
            if r.kind() == "user" && turns::opens_turn(&r, lane) {
                openers.push((
                    line_no,
                    r.uuid.as_deref().map(str::to_string),
                    r.parent_uuid.as_deref().map(str::to_string),
                    start,
                ));
            }
            if r.kind() == "assistant" {
                idx.note_tools(&r);
            }
        }
        // TURN-022/023: of openers sharing a non-empty parentUuid, all but the last
        // are superseded drafts (an identical replayed copy is not a draft).
        let mut latest: HashMap<&str, usize> = HashMap::new();
        for (i, (_, uuid, parent, _)) in openers.iter().enumerate() {
            let Some(p) = parent.as_deref().filter(|p| !p.is_empty()) else {
                continue;
            };
            if let Some(&prev) = latest.get(p) {
                if openers[prev].1 != *uuid {
                    idx.drafts.insert(openers[prev].0);
                }
            }
            latest.insert(p, i);
        }
        for o in openers.iter().filter(|o| !idx.drafts.contains(&o.0)) {
            idx.openers.push(o.0);
            idx.opener_offsets.push(o.3);
        }
        // REC-031: a lane's seed is its first opener, unless a fork head leads it.
        if lane && !head_is_fork {
            idx.seed = idx.openers.first().copied();
        }
        idx
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
    /// for a superseded draft.
    pub fn turn(&self, line: usize) -> Option<usize> {
        if self.drafts.contains(&line) {
            return None;
        }
        Some(self.openers.partition_point(|&o| o <= line))
    }

    /// Number of turns in the file.
    pub fn turns(&self) -> usize {
        self.openers.len()
    }

    /// The first line of turn `n` (1-based), when it exists.
    pub fn turn_start(&self, n: usize) -> Option<usize> {
        n.checked_sub(1).and_then(|i| self.openers.get(i)).copied()
    }

    /// `(line, byte offset)` of the record opening turn `n` (1-based).
    pub fn turn_opener(&self, n: usize) -> Option<(usize, usize)> {
        let i = n.checked_sub(1)?;
        Some((*self.openers.get(i)?, *self.opener_offsets.get(i)?))
    }

    pub fn is_draft(&self, line: usize) -> bool {
        self.drafts.contains(&line)
    }

    pub fn drafts(&self) -> usize {
        self.drafts.len()
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

    pub fn is_wakeup_prompt(&self, s: &str) -> bool {
        self.wakeup_prompts.contains(s)
    }

    /// Name of the spawn/wakeup tool_use with this id, when the index saw it.
    pub fn tool_name(&self, tool_use_id: &str) -> Option<&str> {
        self.tool_names.get(tool_use_id).map(String::as_str)
    }
}
