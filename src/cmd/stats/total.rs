//! Totals (and `--by` groups): per-transcript censuses summed, with tokens
//! deduplicated ACROSS files by the same (model, message.id) key and per-field
//! MAX, in the engine's [`Ledger`] (REC-035: a subagent's opening context
//! replays the parent's spawning message under the same id; clones carry the
//! origin's records, REC-041).

use std::collections::BTreeMap;

use super::census::Census;
use crate::tokens::book::Book;
use crate::tokens::ledger::{KeySet, Ledger, Msg, TOP};
use crate::tokens::{Row, SYNTHETIC};

/// A running total over transcripts.
#[derive(Debug, Default)]
pub(crate) struct Acc {
    /// Everything summed; `tokens` here is the Σ of per-file rows until [`Acc::finish`].
    pub(crate) census: Census,
    pub(crate) transcripts: u64,
    lane_files: u64,
    ledger: Ledger,
    /// Hashes of bare message ids seen top-level (for the progress disclosure).
    ids: KeySet,
    progress: KeySet,
    idless: BTreeMap<String, Row>,
}

/// What a finished total adds to the summed census.
#[derive(Debug, Default, Clone)]
pub(crate) struct Finished {
    pub(crate) census: Census,
    pub(crate) transcripts: u64,
    /// The per-file rows summed, before the cross-file dedupe.
    pub(crate) tokens_sum_of_rows: BTreeMap<String, Row>,
    /// Keys present in more than one file.
    pub(crate) shared_ids: u64,
    /// agent_progress-embedded ids never seen as a top-level assistant record.
    pub(crate) progress_only_ids: u64,
}

impl Acc {
    /// Fold one transcript in (`lane`: it is a subagent/compaction lane).
    pub(crate) fn fold(&mut self, c: &Census, book: &Book, lane: bool) {
        self.census.add(c);
        self.transcripts += 1;
        self.lane_files += u64::from(lane);
        let models: Vec<u32> = book.models.iter().map(|m| self.ledger.model(m)).collect();
        for (&key, e) in &book.keyed {
            let Some(&model) = models.get(e.model as usize) else {
                continue;
            };
            self.ids.insert(e.id);
            let m = Msg {
                records: e.records,
                ..Msg::new(model, e.vals, None, TOP)
            };
            self.ledger.admit(key, m);
        }
        for &p in &book.progress_ids {
            self.progress.insert(p);
        }
        for (m, r) in &book.idless {
            self.idless.entry(m.clone()).or_default().add(r);
        }
    }

    /// Fold in another running total (of other transcripts): as if each of
    /// its transcripts had been folded here.
    pub(crate) fn absorb(&mut self, o: Acc) {
        if o.transcripts == 0 {
            return; // nothing folded (and `add` would give an empty total labels)
        }
        self.census.add(&o.census);
        self.transcripts += o.transcripts;
        self.lane_files += o.lane_files;
        self.ledger.absorb(o.ledger);
        self.ids.absorb(o.ids);
        self.progress.absorb(o.progress);
        for (m, r) in &o.idless {
            self.idless.entry(m.clone()).or_default().add(r);
        }
    }

    /// Sort and merge the ledger and key sets now (on a worker), so an
    /// [`Acc::absorb`] of this total merges sorted runs.
    pub(crate) fn settle(&mut self) {
        self.ledger.settle();
        self.ids.settle();
        self.progress.settle();
    }

    pub(crate) fn finish(self) -> Finished {
        let mut census = self.census;
        let mut sum_of_rows = std::mem::take(&mut census.tokens);
        for (m, r) in std::mem::take(&mut census.tokens_apart) {
            sum_of_rows.insert(m, r);
        }
        let (mut ledger, mut ids, mut progress) = (self.ledger, self.ids, self.progress);
        ledger.settle();
        ids.settle();
        progress.settle();
        let mut rows = self.idless;
        let mut shared = 0;
        // Summed by model index first: one name per model, not per message.
        let mut by_model = vec![Row::default(); ledger.models() as usize];
        for (_, s) in ledger.messages() {
            shared += u64::from(s.files > 1);
            let one = Row {
                messages: 1,
                records: s.records,
                vals: s.vals,
            };
            match by_model.get_mut(s.model as usize) {
                Some(row) => row.add(&one),
                None => rows.entry(String::new()).or_default().add(&one),
            }
        }
        for (i, row) in by_model.iter().enumerate() {
            if row.messages > 0 {
                let name = ledger.model_name(i as u32).to_string();
                rows.entry(name).or_default().add(row);
            }
        }
        for (m, r) in rows {
            if m == SYNTHETIC {
                census.tokens_apart.insert(m, r);
            } else {
                census.tokens.insert(m, r);
            }
        }
        census.token_notes.progress_embedded_ids = progress.len() as u64;
        // A total's `lanes` counts lane files, whether or not their main file
        // is here, and the lanes inline in the main files it holds.
        census.lanes = self.lane_files + census.inline_lanes;
        Finished {
            census,
            transcripts: self.transcripts,
            tokens_sum_of_rows: sum_of_rows,
            shared_ids: shared,
            progress_only_ids: progress.count_not_in(&ids) as u64,
        }
    }
}
