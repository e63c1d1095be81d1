//! What a census's scan becomes once its chunks are read: chunks merged in
//! file order ([`Scan::merge`]), then the whole file settled
//! ([`Scan::finalize`]): its inline lanes placed, its index built, its
//! candidates revisited, its calls joined to their answers (TAIL-001 for a
//! call left unanswered at the tail) and its token book turned into rows.

use super::super::model::Census;
use super::super::revisit;
use super::Scan;
use crate::classify::index::Piece;
use crate::classify::markers::SPAWN_TOOLS;
use crate::classify::FileIndex;
use crate::tokens::book::Book;
use crate::tokens::SYNTHETIC;

impl Scan {
    /// The census of the whole file `buf` this scan (with those merged into
    /// it) was read from: its index built, its candidates revisited, its
    /// calls joined.
    pub(in crate::cmd::stats) fn finalize(mut self, buf: &[u8]) -> (Census, Book) {
        self.c.bytes = buf.len() as u64;
        // Lanes inline in a 1.0.x main file, by the rule `agents` lists them by,
        // placed in file order once the chunks are merged.
        let mut inline = crate::classify::sidechain::InlineLanes::default();
        for (uuid, parent) in std::mem::take(&mut self.sidechain) {
            inline.place(uuid.as_deref(), parent.as_deref());
        }
        self.c.inline_lanes = inline.len() as u64;
        let piece = std::mem::replace(&mut self.piece, Piece::new(self.lane));
        let idx = piece.finish(buf);
        revisit::apply(&mut self.c, buf, &idx, self.lane, &self.cands);
        self.finish(&idx)
    }

    /// Number this scan's lines `n` further on: a later chunk, read with
    /// its own numbering, before it is merged.
    pub(in crate::cmd::stats) fn shift(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        for m in &mut self.c.malformed {
            m.line += n;
        }
        for c in &mut self.cands {
            c.no += n;
        }
        self.piece.shift(n);
        if self.calls.values().any(|c| c.idless.is_some()) {
            let calls = std::mem::take(&mut self.calls);
            self.calls = calls
                .into_iter()
                .map(|(k, c)| match c.idless {
                    Some(before) => (super::count::idless_key(c.line + n, before), c),
                    None => (k, c),
                })
                .collect();
        }
        for c in self.calls.values_mut() {
            c.line += n;
        }
    }

    pub(in crate::cmd::stats) fn merge(&mut self, o: Scan) {
        self.c.add(&o.c);
        for (k, v) in o.agents {
            self.agents.entry(k).or_insert(v);
        }
        self.piece.append(o.piece);
        self.cands.extend(o.cands);
        self.sidechain.extend(o.sidechain);
        self.book.merge(o.book);
        for (k, v) in o.calls {
            match self.calls.get_mut(&k) {
                Some(c) => c.admitted |= v.admitted,
                None => {
                    self.calls.insert(k, v);
                }
            }
        }
        for (k, v) in o.answers {
            let a = self.answers.entry(k).or_default();
            a.error |= v.error;
            a.admitted |= v.admitted;
        }
    }

    fn finish(mut self, idx: &FileIndex) -> (Census, Book) {
        let last_turn = idx.turns();
        for (id, call) in &self.calls {
            if !call.admitted {
                continue;
            }
            let row = self.c.tools.entry(call.name.clone()).or_default();
            row.calls += 1;
            self.c.spawns += u64::from(SPAWN_TOOLS.contains(&call.name.as_str()));
            match self.answers.get(id) {
                Some(a) => row.errors += u64::from(a.error),
                None => {
                    row.unanswered += 1;
                    // TAIL-001: no turn opener after the call — in flight or died.
                    if idx.turn(call.line) == Some(last_turn) {
                        row.unanswered_at_tail += 1;
                    }
                }
            }
        }
        self.c.orphan_results = self
            .answers
            .iter()
            .filter(|(id, a)| a.admitted && !self.calls.contains_key(*id))
            .count() as u64;
        self.book.notes.ids_with_differing_copies = self.book.differing();
        self.book.notes.progress_embedded_ids = {
            self.book.progress_ids.sort();
            self.book.progress_ids.dedup();
            self.book.progress_ids.len() as u64
        };
        for (model, row) in self.book.rows() {
            if model == SYNTHETIC {
                self.c.tokens_apart.insert(model, row);
            } else {
                self.c.tokens.insert(model, row);
            }
        }
        self.c.token_notes = self.book.notes;
        (self.c, self.book)
    }
}
