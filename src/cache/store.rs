//! The cache of one run: each transcript's entry looked up in its group's pack
//! under `<state>/cache/<kind><variant>-v<version>/`, checked against the
//! file, and replaced where the file changed. A group's pack is rewritten
//! once, when the last of its files that the run expects is done (or at
//! [`Cache::flush`]), with the entries of this run and those of the old pack
//! whose transcripts still exist ([`super::pack`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

pub(super) use super::ident::digest;
use super::ident::whole_lines_end;
use super::ident::{absolute, edges_match, header_of, ident, newlines, path_bytes, path_of};
use super::pack::{self, Fresh, Header, Pack, Tag};
use super::{Census, Dec, Enc, Pos};
use crate::scan::source::Opened;
use crate::scan::Source;

/// What the cache did for one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The cache is off: scanned whole.
    Off,
    /// The entry covered the file.
    Hit,
    /// The file grew: only the appended bytes were scanned.
    Grew,
    /// No usable entry: scanned whole, entry written.
    Miss,
}

/// The census cache of one run.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    /// `<state>/cache`; `None` when off.
    root: Option<PathBuf>,
    counts: [AtomicU64; 4],
    /// Transcript bytes scanned (the cache's saving shows here).
    scanned: AtomicU64,
    /// Packs open in this run, by file.
    packs: Mutex<HashMap<PathBuf, Arc<Slot>>>,
    /// Files still to come per group ([`Cache::will_read`]).
    left: Mutex<HashMap<PathBuf, usize>>,
}

/// One pack in a run: loaded on first use, its new entries kept until it is
/// written.
#[derive(Debug)]
struct Slot {
    at: PathBuf,
    /// The group's directory (or file), as named by the caller.
    group: PathBuf,
    kind: String,
    version: u32,
    pack: OnceLock<Option<Pack>>,
    fresh: Mutex<HashMap<Vec<u8>, Fresh>>,
}

impl Slot {
    fn tag<'a>(&'a self, group: &'a [u8]) -> Tag<'a> {
        Tag {
            build: env!("CARGO_PKG_VERSION"),
            kind: &self.kind,
            version: self.version,
            group,
        }
    }

    fn pack(&self) -> Option<&Pack> {
        let load = || {
            let g = path_bytes(&absolute(&self.group)).into_owned();
            Pack::load(&self.at, &self.tag(&g))
        };
        self.pack.get_or_init(load).as_ref()
    }

    fn put(&self, key: Vec<u8>, f: Fresh) {
        if let Ok(mut m) = self.fresh.lock() {
            m.insert(key, f);
        }
    }

    /// Write the pack when this run made entries for it: those, and the old
    /// pack's others whose transcripts still exist.
    fn write(&self) {
        let Ok(mut fresh) = self.fresh.lock() else {
            return;
        };
        if fresh.is_empty() {
            return;
        }
        let exists = |k: &[u8]| path_of(k).is_file();
        let mut all = self
            .pack()
            .map(|p| p.carry(&fresh, exists))
            .unwrap_or_default();
        all.extend(fresh.drain());
        all.sort_by(|a, b| a.0.cmp(&b.0));
        let g = path_bytes(&absolute(&self.group)).into_owned();
        pack::write(&self.at, &pack::encode(&self.tag(&g), &all));
        super::sweep::after_write(&self.at, &self.kind, self.version);
    }
}

/// The transcript a census is read for, and its kind's context.
struct Run<'a, X: ?Sized> {
    path: &'a Path,
    key: Vec<u8>,
    ctx: &'a X,
    slot: &'a Slot,
}

impl Cache {
    /// A cache under `root` (csift's state directory), or off when `enabled`
    /// is false, there is no state directory, or it lies inside `claude_home`
    /// (csift never writes there).
    pub(crate) fn new(enabled: bool, root: Option<PathBuf>, claude_home: Option<&Path>) -> Cache {
        let root = root.filter(|_| enabled).map(|r| r.join("cache"));
        let inside = |r: &PathBuf| claude_home.is_some_and(|h| crate::outpath::inside(r, h));
        let mut c = Cache::default();
        c.root = root.filter(|r| !inside(r));
        c
    }

    /// The census of the transcript at `path`: from its entry where the file
    /// is unchanged, its entry plus the appended bytes where it grew, a whole
    /// scan otherwise. The entry is a pack of its own, written at once.
    pub(crate) fn census<C: Census<Ctx = ()>>(
        &self,
        path: &Path,
    ) -> crate::error::Result<(C, Outcome)> {
        self.census_in::<C>(path, &())
    }

    /// [`Cache::census`] for a kind whose scan needs a context.
    pub(crate) fn census_in<C: Census>(
        &self,
        path: &Path,
        ctx: &C::Ctx,
    ) -> crate::error::Result<(C, Outcome)> {
        let Some(slot) = self.slot::<C>(path, ctx) else {
            return self.off::<C>(path, ctx);
        };
        let r = self.through::<C>(path, ctx, &slot);
        slot.write();
        r
    }

    /// [`Cache::census_in`] with the entry kept in the pack of `group` (a
    /// directory of transcripts, e.g. a project's): one file per group
    /// instead of one per transcript, written once [`Cache::will_read`]'s count
    /// of its files is done, or at [`Cache::flush`].
    pub(crate) fn census_grouped<C: Census>(
        &self,
        group: &Path,
        path: &Path,
        ctx: &C::Ctx,
    ) -> crate::error::Result<(C, Outcome)> {
        let Some(slot) = self.slot::<C>(group, ctx) else {
            return self.off::<C>(path, ctx);
        };
        let r = self.through::<C>(path, ctx, &slot);
        let last = self
            .left
            .lock()
            .ok()
            .is_some_and(|mut m| match m.get_mut(group) {
                Some(n) => {
                    *n = n.saturating_sub(1);
                    *n == 0
                }
                None => false,
            });
        if last {
            self.close(group);
        }
        r
    }

    /// This run will census `files` transcripts of `group`: its packs are
    /// written when the last is done (a pack's entries are held till then).
    pub(crate) fn will_read(&self, group: &Path, files: usize) {
        if let Ok(mut m) = self.left.lock() {
            *m.entry(group.to_path_buf()).or_default() += files;
        }
    }

    /// Write every pack this run changed and has not written yet.
    pub(crate) fn flush(&self) {
        let slots: Vec<Arc<Slot>> = match self.packs.lock() {
            Ok(mut m) => m.drain().map(|(_, s)| s).collect(),
            Err(_) => return,
        };
        for s in slots {
            s.write();
        }
    }

    /// Write and forget the packs of `group`.
    fn close(&self, group: &Path) {
        let slots: Vec<Arc<Slot>> = match self.packs.lock() {
            Ok(mut m) => {
                let keys: Vec<PathBuf> = m
                    .iter()
                    .filter(|(_, s)| s.group == group)
                    .map(|(k, _)| k.clone())
                    .collect();
                keys.iter().filter_map(|k| m.remove(k)).collect()
            }
            Err(_) => return,
        };
        for s in slots {
            s.write();
        }
    }

    /// The slot of `group`'s pack of kind `C` under `ctx`'s variant; `None`
    /// when the cache is off.
    fn slot<C: Census>(&self, group: &Path, ctx: &C::Ctx) -> Option<Arc<Slot>> {
        let root = self.root.as_ref()?;
        let kind = format!("{}{}", C::KIND, C::variant(ctx));
        let h = crate::loss::fnv1a(path_bytes(&absolute(group)).as_ref());
        let name = format!("{h:016x}");
        let at = root
            .join(format!("{kind}-v{}", C::VERSION))
            .join(&name[..2])
            .join(format!("{name}.pack"));
        let mut m = self.packs.lock().ok()?;
        let slot = m.entry(at.clone()).or_insert_with(|| {
            Arc::new(Slot {
                at,
                group: group.to_path_buf(),
                kind,
                version: C::VERSION,
                pack: OnceLock::new(),
                fresh: Mutex::new(HashMap::new()),
            })
        });
        Some(Arc::clone(slot))
    }

    /// Scan a file whole with the cache off.
    fn off<C: Census>(&self, path: &Path, ctx: &C::Ctx) -> crate::error::Result<(C, Outcome)> {
        let src = Source::open(path)?;
        self.note_scanned(src.len());
        let mut census = C::scan(&src, Pos { offset: 0, line: 1 }, ctx);
        census.seal(&src, ctx, false);
        src.check()?;
        self.count(Outcome::Off);
        Ok((census, Outcome::Off))
    }

    fn through<C: Census>(
        &self,
        path: &Path,
        ctx: &C::Ctx,
        slot: &Slot,
    ) -> crate::error::Result<(C, Outcome)> {
        // Non-blocking, regular files only (a FIFO named as a transcript
        // must not hang the status line).
        let opened = crate::scan::source::open(path)?;
        let run = Run {
            path,
            key: path_bytes(&absolute(path)).into_owned(),
            ctx,
            slot,
        };
        let (c, o) = self.cached::<C>(opened, &run)?;
        self.count(o);
        Ok((c, o))
    }

    fn cached<C: Census>(
        &self,
        opened: Opened,
        run: &Run<'_, C::Ctx>,
    ) -> crate::error::Result<(C, Outcome)> {
        let ident = ident(&opened.meta);
        let found = run.slot.pack().and_then(|p| {
            let ix = p.get(&run.key)?;
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
        let census = match C::SPLIT {
            true => pack.resume(&ix).and_then(|b| decode_resume(answer, b)),
            false => Some(census),
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
        let lines = newlines(&buf[..end]);
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
        run.slot.put(run.key.clone(), fresh);
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

    fn note_scanned(&self, n: usize) {
        self.scanned.fetch_add(n as u64, Ordering::Relaxed);
    }

    fn count(&self, o: Outcome) {
        self.counts[o as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// A file a census kind keeps beside its entries, `<state>/cache/<dir>/<name>`;
    /// `None` when the cache is off (never under the Claude home).
    pub(crate) fn side_file(&self, dir: &str, name: &str) -> Option<PathBuf> {
        Some(self.root.as_ref()?.join(dir).join(name))
    }

    /// One line for stderr: what the cache did (with `CSIFT_CACHE_STATS` set).
    pub(crate) fn report(&self) -> String {
        let n = |o: Outcome| self.counts[o as usize].load(Ordering::Relaxed);
        format!(
            "cache: {} hit, {} grew, {} miss, {} off; {} bytes scanned",
            n(Outcome::Hit),
            n(Outcome::Grew),
            n(Outcome::Miss),
            n(Outcome::Off),
            self.scanned.load(Ordering::Relaxed)
        )
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        self.flush();
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
