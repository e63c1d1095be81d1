//! How one transcript's census is read through its entry: a hit decoded, a
//! grown file's appended lines folded into the decoded state, anything else
//! scanned whole; and the entry a scan leaves, with an unterminated final
//! line folded in after (split kinds: into the answer). The run's packs and
//! counts are [`super`]'s.

use std::path::Path;

use super::{Cache, Outcome, Slot};
use crate::cache::ident::{edges_match, header_of, ident, newlines, whole_lines_end};
use crate::cache::pack::{self, Fresh, Header};
use crate::cache::{Census, Dec, Enc, Pos};
use crate::scan::source::Opened;
use crate::scan::Source;

/// The transcript a census is read for, and its kind's context.
pub(super) struct Run<'a, X: ?Sized> {
    pub(super) path: &'a Path,
    pub(super) key: &'a [u8],
    pub(super) ctx: &'a X,
    pub(super) slot: &'a Slot,
}

impl Cache {
    pub(super) fn cached<C: Census>(
        &self,
        opened: Opened,
        run: &Run<'_, C::Ctx>,
    ) -> crate::error::Result<(C, Outcome)> {
        let ident = ident(&opened.meta);
        let found = run.slot.pack().and_then(|p| {
            let ix = p.get(run.key)?;
            let answer = p.answer(ix)?;
            let c = decode_all::<C>(answer)?;
            c.valid(run.ctx).then_some((p, *ix, answer, c))
        });
        let Some((pack, ix, answer, census)) = found else {
            return Ok((self.whole(opened, run)?, Outcome::Miss));
        };
        let h = ix.header;
        let same_file = h.ident.dev == ident.dev && h.ident.ino == ident.ino;
        let unchanged = same_file && h.ident == ident;
        let grew = same_file && ident.size > h.ident.size;
        if !(unchanged || grew) || !edges_match(&opened.file, &h, unchanged && C::SPLIT) {
            return Ok((self.whole(opened, run)?, Outcome::Miss));
        }
        if unchanged && (C::SPLIT || ident.size == h.consumed) {
            return Ok((census, Outcome::Hit));
        }
        let census = match (C::RESUMES, C::SPLIT) {
            (false, _) => None,
            (true, true) => pack.resume(&ix).and_then(|b| decode_resume(answer, b)),
            (true, false) => Some(census),
        };
        let Some(census) = census else {
            return Ok((self.whole(opened, run)?, Outcome::Miss));
        };
        let c = self.grow(census, opened, run, &h)?;
        Ok((
            c,
            if unchanged {
                Outcome::Hit
            } else {
                Outcome::Grew
            },
        ))
    }

    /// Fold in what follows the entry's lines (it grew, or, for a kind that
    /// does not split its entry, an unterminated tail the entry never covers),
    /// with the file at hand.
    fn grow<C: Census>(
        &self,
        mut census: C,
        opened: Opened,
        run: &Run<'_, C::Ctx>,
        h: &Header,
    ) -> crate::error::Result<C> {
        let (path, ctx) = (run.path, run.ctx);
        let ident = ident(&opened.meta);
        let src = Source::from_opened(opened, path)?;
        let buf: &[u8] = &src;
        let start = (h.consumed as usize).min(buf.len());
        let end = whole_lines_end(buf, start);
        self.note_scanned(buf.len() - start);
        let lines = h.lines + newlines(&buf[start..end]);
        if end > start {
            let from = Pos {
                offset: start as u64,
                line: h.lines + 1,
            };
            census.extend(C::scan(&buf[start..end], from, ctx));
        }
        if end > start || C::SPLIT {
            self.keep(&mut census, &src, end, lines, run, ident)?;
        } else {
            self.tail(&mut census, buf, end, lines, ctx);
        }
        src.check()?;
        Ok(census)
    }

    /// Scan a file whole and make its entry.
    fn whole<C: Census>(&self, opened: Opened, run: &Run<'_, C::Ctx>) -> crate::error::Result<C> {
        let ident = ident(&opened.meta);
        let src = Source::from_opened(opened, run.path)?;
        let buf: &[u8] = &src;
        self.note_scanned(buf.len());
        let end = whole_lines_end(buf, 0);
        let lines = if C::RESUMES { newlines(&buf[..end]) } else { 0 };
        let mut census = C::scan(&buf[..end], Pos { offset: 0, line: 1 }, run.ctx);
        self.keep(&mut census, &src, end, lines, run, ident)?;
        src.check()?;
        Ok(census)
    }

    /// Finish `census` of the file's whole lines `src[..end]` and put its
    /// entry in the pack: a kind that splits its entry keeps the state of
    /// those lines to resume from and, as its answer, the census of the whole
    /// file (an unterminated final line folded in); another keeps the census
    /// of the whole lines and folds the unterminated line in after.
    fn keep<C: Census>(
        &self,
        census: &mut C,
        src: &Source,
        end: usize,
        lines: u64,
        run: &Run<'_, C::Ctx>,
        ident: pack::Ident,
    ) -> crate::error::Result<()> {
        let (buf, ctx): (&[u8], _) = (src, run.ctx);
        let mut resume = Enc::default();
        if C::SPLIT && end < buf.len() {
            if C::SEAL_RESUME {
                census.seal(&buf[..end], ctx, true);
            }
            census.encode_resume(&mut resume);
            self.tail(census, buf, end, lines, ctx);
        } else {
            census.seal(&buf[..end], ctx, true);
            if C::SPLIT {
                census.encode_resume(&mut resume);
            }
        }
        let mut answer = Enc::default();
        census.encode(&mut answer);
        // A file cut while read is reported, and its census never cached.
        src.check()?;
        let fresh = Fresh {
            header: header_of(buf, ident, end, lines),
            answer: answer.buf,
            resume: resume.buf,
        };
        run.slot.put(run.key.to_vec(), fresh);
        if !C::SPLIT {
            self.tail(census, buf, end, lines, ctx);
        }
        Ok(())
    }

    /// Fold in the unterminated end of `buf`.
    fn tail<C: Census>(&self, census: &mut C, buf: &[u8], end: usize, lines: u64, ctx: &C::Ctx) {
        if end < buf.len() {
            let at = Pos {
                offset: end as u64,
                line: lines + 1,
            };
            census.extend(C::scan(&buf[end..], at, ctx));
            census.seal(buf, ctx, false);
        }
    }
}

/// A census from an entry's answer, when it decodes exactly.
fn decode_all<C: Census>(b: &[u8]) -> Option<C> {
    let mut d = Dec::new(b);
    let c = C::decode(&mut d)?;
    d.done().then_some(c)
}

/// The state a grown file resumes from: an answer and its resume part.
fn decode_resume<C: Census>(answer: &[u8], b: &[u8]) -> Option<C> {
    let mut d = Dec::new(b);
    let c = C::resume(answer, &mut d)?;
    d.done().then_some(c)
}
