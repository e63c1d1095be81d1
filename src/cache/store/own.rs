//! Entries a command computes by reading the file its own way, not as a
//! census of its lines: `list`'s row of a file it reads as a head and a tail
//! window. Such an entry covers the whole file at one identity: a hit needs
//! the same device, inode, size and modification time and the same first and
//! last 4 KB; anything else (a file that grew included) is read again the
//! caller's way. The caller hands back the digests of the two edges with its
//! census ([`edge_digests`], from the bytes it read), so the file is never
//! read for the cache's sake. A kind (with its variant) is read either
//! through [`Cache::census_grouped`] or through [`Cache::read_own`], never
//! both: an own entry has no resume state, and its `consumed` is the size.

use std::path::Path;

use super::{Cache, Outcome};
use crate::cache::ident::{absolute, digest, edges, edges_match, ident, path_bytes};
use crate::cache::pack::{Fresh, Header};
use crate::cache::{Census, Dec, Enc};
use crate::scan::source::Opened;

/// The digests of a file's first and last (up to) 4 KB, as an entry's
/// header keeps them, from bytes a caller read: `head` from offset 0 and
/// `tail` ending at `len` (either may be longer; `tail` may be empty when
/// `head` holds the whole file). `None` when they do not hold both edges.
pub(crate) fn edge_digests(head: &[u8], tail: &[u8], len: u64) -> Option<[u64; 2]> {
    let [(_, hn), (t0, tn)] = edges(len);
    let h = head.get(..usize::try_from(hn).ok()?)?;
    let tn = usize::try_from(tn).ok()?;
    let t = match tail.len().checked_sub(tn) {
        Some(from) => &tail[from..],
        None if head.len() as u64 == len => head.get(usize::try_from(t0).ok()?..)?,
        None => return None,
    };
    Some([digest(h), digest(t)])
}

impl Cache {
    /// The census of the transcript at `path` from its entry in `group`'s
    /// pack where the file is unchanged, else from `read`, given the opened
    /// file, which returns the census and the [`edge_digests`] of the bytes
    /// it read (`None`: nothing is cached). Counted as [`Cache::will_read`]
    /// and [`Cache::census_grouped`] count, but for the bytes scanned: the
    /// caller's reads are its own (a head and a tail window), not a scan.
    pub(crate) fn read_own<C: Census>(
        &self,
        group: &Path,
        path: &Path,
        ctx: &C::Ctx,
        read: impl FnOnce(Opened) -> crate::error::Result<(C, Option<[u64; 2]>)>,
    ) -> crate::error::Result<(C, Outcome)> {
        let opened = crate::scan::source::open(path)?;
        let Some(slot) = self.slot::<C>(group, ctx) else {
            let (c, _) = read(opened)?;
            self.count(Outcome::Off);
            return Ok((c, Outcome::Off));
        };
        let abs = absolute(path);
        let key = path_bytes(&abs);
        let now = ident(&opened.meta);
        let hit = slot.pack().and_then(|p| {
            let ix = p.get(&key)?;
            let mut d = Dec::new(p.answer(ix)?);
            let c = C::decode(&mut d).filter(|c| d.done() && c.valid(ctx))?;
            let h = ix.header;
            (h.ident == now && h.consumed == now.size && edges_match(&opened.file, &h, true))
                .then_some(c)
        });
        let r = match hit {
            Some(c) => Ok((c, Outcome::Hit)),
            None => read(opened).map(|(c, sums)| {
                if let Some([head, tail]) = sums {
                    let mut answer = Enc::default();
                    c.encode(&mut answer);
                    let header = Header {
                        ident: now,
                        consumed: now.size,
                        lines: 0,
                        head,
                        tail,
                        end: tail,
                    };
                    let resume = Vec::new();
                    slot.put(
                        key.into_owned(),
                        Fresh {
                            header,
                            answer: answer.buf,
                            resume,
                        },
                    );
                }
                (c, Outcome::Miss)
            }),
        };
        if let Ok((_, o)) = &r {
            self.count(*o);
        }
        self.one_done(&slot);
        r
    }
}

#[cfg(test)]
mod tests;
