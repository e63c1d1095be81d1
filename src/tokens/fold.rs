//! Folding many transcripts' usage censuses into one [`Ledger`]: files are
//! read in parallel through the census cache and folded as each finishes
//! (every merge is commutative, so the order does not matter); each message
//! keeps the rank of the file holding its earliest copy, which names its
//! session and project.

use std::sync::Mutex;

use super::file::{FileBook, FileNotes};
use super::ledger::{Ledger, Msg, Owner, MARKED, NESTED};
use crate::cache::Cache;
use crate::discovery::Transcript;

/// Every message of the files folded, and what they disclose.
#[derive(Debug, Default)]
pub(crate) struct Folded {
    pub(crate) ledger: Ledger,
    /// Messages without an id, each its own (owner rank set).
    pub(crate) idless: Vec<Msg>,
    pub(crate) notes: FileNotes,
    /// Eaten-text responses over the files (audit's group rule), and over
    /// the marked files alone.
    pub(crate) eaten: u64,
    pub(crate) eaten_marked: u64,
    /// Files read.
    pub(crate) files: usize,
}

impl Folded {
    /// Fold one file's census in; `rank` is the file's index in the caller's
    /// list. Without `nested`, copies seen only nested in agent_progress
    /// records are left out (`--no-subagents`). A `marked` file's messages
    /// carry [`MARKED`].
    pub(crate) fn add(&mut self, book: FileBook, rank: u32, nested: bool, marked: bool) {
        self.files += 1;
        self.notes.add(book.notes);
        let eaten = book.eaten.eaten();
        self.eaten += eaten;
        if marked {
            self.eaten_marked += eaten;
        }
        let map: Vec<u32> = book.models.iter().map(|m| self.ledger.model(m)).collect();
        let place = |mut m: Msg| {
            m.model = map.get(m.model as usize).copied().unwrap_or(0);
            m.owner = Owner::new(m.first, rank);
            if marked {
                m.seen |= MARKED;
            }
            m
        };
        for (k, m) in book.keyed {
            if nested || m.seen != NESTED {
                self.ledger.admit(k, place(m));
            }
        }
        for m in book.idless {
            if nested || m.seen != NESTED {
                self.idless.push(place(m));
            }
        }
    }

    /// Every message: keyed ones, then id-less ones in owner order.
    pub(crate) fn messages(&self) -> impl Iterator<Item = &Msg> {
        self.ledger.keys.values().chain(self.idless.iter())
    }
}

/// Read and fold `files` (rank = index; `marked(rank)` marks a file). A file
/// that cannot be read goes to `on_error` and is left out.
pub(crate) fn fold(
    files: &[&Transcript],
    cache: &Cache,
    nested: bool,
    marked: &(dyn Fn(usize) -> bool + Sync),
    on_error: &(dyn Fn(&Transcript, String) + Sync),
) -> Folded {
    let acc = Mutex::new(Folded::default());
    let items: Vec<(usize, &&Transcript)> = files.iter().enumerate().collect();
    crate::scan::par_map(&items, |&(i, t)| match cache.census::<FileBook>(&t.path) {
        Ok((book, _)) => {
            let mut a = acc.lock().unwrap_or_else(|p| p.into_inner());
            a.add(book, i as u32, nested, marked(i));
        }
        Err(e) => on_error(t, e.to_string()),
    });
    let mut f = acc.into_inner().unwrap_or_else(|p| p.into_inner());
    f.idless.sort_by_key(|m| m.owner);
    f
}
