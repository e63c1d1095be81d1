//! Uuid-bearing lines folded into the duplicate-uuid table a few at a time.
//!
//! The table of a large file is probed at random, once per line, and each
//! probe missed the caches (`Dups::uuid` 2.2% of a big-home audit's samples,
//! half of them on the probe's first load). Between two lines' probes lies a
//! whole line's serde walk, so no two misses overlapped. Kept for
//! [`BATCH`] lines and folded in one loop, the probes' loads are independent
//! and the processor issues them together. The lines are folded in order,
//! as one at a time would fold them; a repeat's [`At`] is built at the fold
//! from the record's time and version, kept as ranges of the buffer.

use super::{Dups, Seen};
use crate::cmd::audit::finding::At;
use crate::scan::hash::key;

/// Lines kept before they are folded.
const BATCH: usize = 16;

/// A line waiting to be folded: its uuid's key and length, its place, and
/// its record's sidechain flag, time and version (ranges of the buffer).
#[derive(Debug)]
pub(super) struct Pending {
    h: u64,
    seen: Seen,
    len: usize,
    side: bool,
    ts: Option<(usize, usize)>,
    ver: Option<(usize, usize)>,
}

/// The place of `part` in `buf`, when it lies there.
fn range(buf: &[u8], part: &[u8]) -> Option<(usize, usize)> {
    let at = (part.as_ptr() as usize).checked_sub(buf.as_ptr() as usize)?;
    (at + part.len() <= buf.len()).then_some((at, at + part.len()))
}

/// A record's [`At`] beside its line number: sidechain flag, time and version.
pub(crate) type Env<'a> = (bool, Option<&'a [u8]>, Option<&'a [u8]>);

impl Dups {
    /// [`Dups::uuid`] with the record's [`At`] given as its parts, so the line
    /// can wait in a batch (a file read from its start; any other run, or a
    /// part that does not lie in `buf`, takes `uuid` at once). The caller
    /// folds the last batch with [`Dups::flush`] before the rule is read.
    pub(crate) fn uuid_batched(
        &mut self,
        (buf, base): (&[u8], usize),
        uuid: &[u8],
        (line, start, end): (usize, usize, usize),
        (side, ts, ver): Env<'_>,
    ) {
        let opt = |p: Option<&[u8]>| match p {
            None => Some(None),
            Some(p) => range(buf, p).map(Some),
        };
        let parts = (range(buf, uuid), opt(ts), opt(ver));
        let (Some((u, _)), Some(ts_at), Some(ver_at), None) =
            (parts.0, parts.1, parts.2, &self.log)
        else {
            let at = || At::new(line, side, ts, ver);
            return self.uuid((buf, base), uuid, (line, start, end), at);
        };
        let seen = Seen {
            line,
            start,
            end,
            uuid_at: base + u,
        };
        self.pending.push(Pending {
            h: key(uuid),
            seen,
            len: uuid.len(),
            side,
            ts: ts_at,
            ver: ver_at,
        });
        if self.pending.len() >= BATCH {
            self.flush((buf, base));
        }
    }

    /// Fold the waiting lines, in order; `buf` (from file byte `base`) is the
    /// buffer they were given with.
    pub(crate) fn flush(&mut self, (buf, base): (&[u8], usize)) {
        if self.pending.is_empty() {
            return;
        }
        let mut pending = std::mem::take(&mut self.pending);
        for p in &pending {
            let get = |r: Option<(usize, usize)>| r.and_then(|(a, b)| buf.get(a..b));
            let from = p.seen.uuid_at.saturating_sub(base);
            // The parts were placed in this buffer when the line was kept.
            let Some(uuid) = buf.get(from..from + p.len) else {
                continue;
            };
            let at = || At::new(p.seen.line, p.side, get(p.ts), get(p.ver));
            self.fold(buf, uuid, p.h, p.seen, at);
        }
        pending.clear();
        self.pending = pending;
    }
}
