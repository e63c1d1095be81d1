//! Folding many transcripts' usage censuses into one [`Ledger`]: files are
//! read in parallel through the census cache and folded as each finishes
//! (every merge is commutative, so the order does not matter); each message
//! keeps the rank of the file holding its earliest copy, which names its
//! session and project.

use std::sync::Mutex;

use super::file::{FileBook, FileNotes};
use super::ledger::{Ledger, Msg, Owner, NESTED};
use crate::cache::Cache;
use crate::discovery::Transcript;

/// Every message of the files folded, and what they disclose.
#[derive(Debug, Default)]
pub(crate) struct Folded {
    pub(crate) ledger: Ledger,
    /// Messages without an id, each its own (owner rank set).
    pub(crate) idless: Vec<Msg>,
    pub(crate) notes: FileNotes,
    /// Only messages at or after this time enter the ledger (the status
    /// line's cutoff: an older one cannot be today's or in the active
    /// block); `None`: every message.
    since: Option<jiff::Timestamp>,
    /// The marked files' messages, whole and apart from the ledger, each
    /// file's sorted by key (see [`Folded::marked_messages`]).
    marked: Vec<Vec<(u64, Msg)>>,
    /// Eaten-text responses in the marked files (audit's group rule).
    pub(crate) eaten_marked: u64,
    /// Files read.
    pub(crate) files: usize,
}

impl Folded {
    /// An empty fold whose ledger takes only messages at or after `since`.
    pub(crate) fn since(since: jiff::Timestamp) -> Folded {
        Folded {
            since: Some(since),
            ..Folded::default()
        }
    }

    /// Fold one file's census in; `rank` is the file's index in the caller's
    /// list. Without `nested`, copies seen only nested in agent_progress
    /// records are left out (`--no-subagents`). A `marked` file's messages
    /// are also kept whole apart.
    pub(crate) fn add(&mut self, mut book: FileBook, rank: u32, nested: bool, marked: bool) {
        self.files += 1;
        self.notes.add(book.notes);
        if marked {
            self.eaten_marked += book.eaten.eaten();
        }
        let map: Vec<u32> = book.models.iter().map(|m| self.ledger.model(m)).collect();
        let place = |mut m: Msg| {
            m.model = map.get(m.model as usize).copied().unwrap_or(0);
            m.owner = Owner::new(m.first, rank);
            m
        };
        let since = self.since;
        let wanted = |m: &Msg| {
            (nested || m.seen != NESTED) && since.is_none_or(|s| m.first.is_some_and(|t| t >= s))
        };
        let keyed = book.take_keyed();
        for &(k, m) in &keyed {
            if wanted(&m) {
                self.ledger.admit(k, place(m));
            }
        }
        if marked {
            // Id-less messages get keys past any hash their file could share.
            let mut all: Vec<(u64, Msg)> = keyed.into_iter().map(|(k, m)| (k, place(m))).collect();
            for (i, m) in book.idless.iter().enumerate() {
                all.push((idless_key(rank, i), place(*m)));
            }
            all.sort_unstable_by_key(|x| x.0);
            self.marked.push(all);
        }
        for m in book.idless {
            if wanted(&m) {
                self.idless.push(place(m));
            }
        }
    }

    /// Each of the marked files' messages once, to `each`: copies of one key
    /// in several marked files merge by per-field MAX (a lane's replay of its
    /// session's spawning message, REC-035). One file's list is used as it is.
    pub(crate) fn marked_messages(&self, each: &mut dyn FnMut(&Msg)) {
        if let [one] = self.marked.as_slice() {
            one.iter().for_each(|(_, m)| each(m));
            return;
        }
        let mut all: Vec<(u64, Msg)> = self.marked.iter().flatten().copied().collect();
        all.sort_by_key(|x| x.0);
        let mut i = 0;
        while i < all.len() {
            let (k, mut m) = all[i];
            i += 1;
            while i < all.len() && all[i].0 == k {
                m.merge(&all[i].1);
                i += 1;
            }
            each(&m);
        }
    }

    /// Every message: keyed ones in key order, then id-less ones in owner
    /// order (the ledger settled: [`fold_into`] settles it).
    pub(crate) fn messages(&self) -> impl Iterator<Item = Msg> + '_ {
        let keyed = self.ledger.messages().map(|(_, m)| m);
        keyed.chain(self.idless.iter().copied())
    }
}

/// A key for the `i`th id-less message of file `rank`: never a key hash in
/// practice (the hash space is 2^64; these sit in a corner of it).
fn idless_key(rank: u32, i: usize) -> u64 {
    u64::MAX - ((u64::from(rank) << 32) | (i as u64 & 0xffff_ffff))
}

/// Read and fold `files` (rank = index). A file that cannot be read goes to
/// `on_error` and is left out.
pub(crate) fn fold(
    files: &[&Transcript],
    cache: &Cache,
    nested: bool,
    on_error: &(dyn Fn(&Transcript, String) + Sync),
) -> Folded {
    let items: Vec<(u32, &Transcript, bool)> = files
        .iter()
        .enumerate()
        .map(|(i, t)| (i as u32, *t, false))
        .collect();
    let mut f = Folded::default();
    fold_into(&mut f, &items, cache, nested, on_error);
    f
}

/// Read `files` — each with its rank and whether it is marked — and fold
/// them into `acc`.
pub(crate) fn fold_into(
    acc: &mut Folded,
    files: &[(u32, &Transcript, bool)],
    cache: &Cache,
    nested: bool,
    on_error: &(dyn Fn(&Transcript, String) + Sync),
) {
    let shared = Mutex::new(std::mem::take(acc));
    crate::scan::par_map(files, |&(rank, t, marked)| {
        match cache.census::<FileBook>(&t.path) {
            Ok((book, _)) => {
                let mut a = shared.lock().unwrap_or_else(|p| p.into_inner());
                a.add(book, rank, nested, marked);
            }
            Err(e) => on_error(t, e.to_string()),
        }
    });
    *acc = shared.into_inner().unwrap_or_else(|p| p.into_inner());
    acc.idless.sort_by_key(|m| m.owner);
    acc.ledger.settle();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::{Census, Pos};

    fn book(lines: &[&str]) -> FileBook {
        FileBook::scan(
            (lines.join("\n") + "\n").as_bytes(),
            Pos { offset: 0, line: 1 },
            &(),
        )
    }

    const OLD: &str = r#"{"type":"assistant","timestamp":"2026-01-01T00:00:00Z","message":{"id":"m0","model":"x","content":[],"usage":{"output_tokens":1}}}"#;
    const SPAWN: &str = r#"{"type":"assistant","timestamp":"2026-01-02T00:00:00Z","message":{"id":"m1","model":"x","content":[],"usage":{"output_tokens":5598,"cache_read_input_tokens":51101}}}"#;
    const REPLAY: &str = r#"{"type":"assistant","timestamp":"2026-01-02T00:00:02Z","message":{"id":"m1","model":"x","content":[],"usage":{"output_tokens":4,"cache_read_input_tokens":51101}}}"#;

    /// The marked (session) files' messages come out once each, a lane's
    /// replay of the spawning message merged into it (REC-035); the ledger
    /// takes only messages since the cutoff.
    #[test]
    fn marked_files_merge_and_the_ledger_keeps_only_recent_messages_rec_035() {
        let since: jiff::Timestamp = "2026-01-01T12:00:00Z".parse().unwrap();
        let mut f = Folded::since(since);
        f.add(book(&[OLD, SPAWN]), 0, true, true);
        f.add(book(&[REPLAY]), 1, true, true);
        let mut seen = Vec::new();
        f.marked_messages(&mut |m| seen.push((m.vals.output, m.records)));
        seen.sort();
        assert_eq!(seen, vec![(1, 1), (5598, 2)]);
        f.ledger.settle();
        assert_eq!(f.ledger.len(), 1, "m0 is older than the cutoff");
        let mut all = Folded::default();
        all.add(book(&[OLD, SPAWN]), 0, true, false);
        all.add(book(&[REPLAY]), 1, true, false);
        all.ledger.settle();
        assert_eq!(all.ledger.len(), 2);
    }
}
