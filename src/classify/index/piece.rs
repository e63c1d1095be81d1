//! [`Piece`]: what one line-aligned cut of a file contributes to its index,
//! how pieces append in file order, how they are written for the census cache,
//! and how the last step decides drafts and the seed.

use super::*;

/// What one line-aligned piece of a file contributes to its index. Built by
/// the index's own literal passes ([`FileIndex::build`]) or, by a caller that
/// parses every record anyway, one [`Piece::note`] per record; pieces append in
/// file order and [`Piece::finish`] decides drafts and the seed.
#[derive(Debug, Clone)]
pub(crate) struct Piece {
    pub(super) openers: Vec<Opener>,
    /// Records that open a turn only if the model answers them
    /// ([`turns::opens_if_answered`]): decided by [`Piece::finish`].
    pub(super) pending: Vec<Opener>,
    /// Only the tool maps are filled.
    pub(super) tools: FileIndex,
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

    /// Number this piece's lines `n` further on: a piece read with its own
    /// line numbers (a later chunk of a file) before it is appended.
    pub(crate) fn shift(&mut self, n: usize) {
        for o in self.openers.iter_mut().chain(self.pending.iter_mut()) {
            o.0 += n;
        }
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
