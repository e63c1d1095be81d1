//! The cache of one run: each transcript's entry looked up in its group's pack
//! under `<state>/cache/<kind><variant>-v<version>/`, checked against the
//! file, and replaced where the file changed. A group's pack is rewritten
//! once, when the last of its files that the run expects is done (or at
//! [`Cache::flush`]), with the entries of this run and those of the old pack
//! whose transcripts still exist ([`super::pack`]).

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};

pub(super) use super::ident::digest;
use super::ident::{absolute, path_bytes, path_of};
use super::pack::{self, Fresh, Pack, Tag};
use super::{Census, Pos};
use crate::scan::hash::FxMap;
use crate::scan::Source;
use read::Run;

mod own;
pub(crate) use own::edge_digests;
mod read;

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
    /// Packs open in this run, by group, then by kind and variant. Groups
    /// are keyed by their bytes, not as paths (a path hashes and compares
    /// component by component), and hashed by [`FxMap`]'s hasher: both
    /// maps are looked up for every file of a warm `list`, by every thread
    /// at once, so under a read lock (a mutex made them wait on each other).
    packs: RwLock<FxMap<OsString, Vec<Arc<Slot>>>>,
    /// This run's number: a slot is only ever found again by its own run.
    run: u64,
    /// Files still to come per group ([`Cache::will_read`]), a counter each
    /// slot of the group holds too, so a file done touches no map.
    left: RwLock<FxMap<OsString, Arc<AtomicUsize>>>,
}

/// One pack in a run: loaded on first use, its new entries kept until it is
/// written.
#[derive(Debug)]
struct Slot {
    at: PathBuf,
    /// The group's directory (or file), as named by the caller.
    group: PathBuf,
    kind: String,
    /// The census kind and variant `kind` is made of (a run finds its slot
    /// by them, without building the pack's path).
    of: (&'static str, &'static str),
    version: u32,
    pack: OnceLock<Option<Pack>>,
    fresh: Mutex<HashMap<Vec<u8>, Fresh>>,
    /// The group's count of files still to come, when the run gave one.
    left: Option<Arc<AtomicUsize>>,
    /// The run ([`Cache::run`]) it belongs to, and whether the run has
    /// written and forgotten it: a thread's memo ([`LAST`]) holds neither.
    run: u64,
    closed: AtomicBool,
}

thread_local! {
    /// The slot this thread found last. Files come grouped, so most
    /// lookups are the one before; the memo spares them the run's shared
    /// map and its lock, which each file's lookup took on every thread
    /// (1-2 ms of a warm 5,000-file `list`). Weak: a run's packs are freed
    /// when it ends.
    static LAST: RefCell<Weak<Slot>> = const { RefCell::new(Weak::new()) };
}

/// Each run's number, for [`Slot::run`].
static RUNS: AtomicU64 = AtomicU64::new(1);

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

impl Cache {
    /// A cache under `root` (csift's state directory), or off when `enabled`
    /// is false, there is no state directory, or it lies inside `claude_home`
    /// (csift never writes there).
    pub(crate) fn new(enabled: bool, root: Option<PathBuf>, claude_home: Option<&Path>) -> Cache {
        let root = root.filter(|_| enabled).map(|r| r.join("cache"));
        let inside = |r: &PathBuf| claude_home.is_some_and(|h| crate::outpath::inside(r, h));
        let mut c = Cache::default();
        c.root = root.filter(|r| !inside(r));
        c.run = RUNS.fetch_add(1, Ordering::Relaxed);
        c
    }

    /// Whether entries are read and written (not `--no-cache`, a state
    /// directory outside the Claude home).
    pub(crate) fn is_on(&self) -> bool {
        self.root.is_some()
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
        self.one_done(&slot);
        r
    }

    /// One of the files [`Cache::will_read`] counted for `slot`'s group is
    /// done: after the last, the group's packs are written.
    fn one_done(&self, slot: &Slot) {
        let last = slot.left.as_ref().is_some_and(|n| {
            n.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1)) == Ok(1)
        });
        if last {
            self.close(&slot.group);
        }
    }

    /// This run will census `files` transcripts of `group`: its packs are
    /// written when the last is done (a pack's entries are held till then).
    pub(crate) fn will_read(&self, group: &Path, files: usize) {
        if let Ok(mut m) = self.left.write() {
            let n = m.entry(group.as_os_str().to_owned()).or_default();
            n.fetch_add(files, Ordering::AcqRel);
        }
    }

    /// Write every pack this run changed and has not written yet.
    pub(crate) fn flush(&self) {
        let slots: Vec<Arc<Slot>> = match self.packs.write() {
            Ok(mut m) => m.drain().flat_map(|(_, s)| s).collect(),
            Err(_) => return,
        };
        for s in slots {
            s.closed.store(true, Ordering::Release);
            s.write();
        }
    }

    /// Write and forget the packs of `group`.
    fn close(&self, group: &Path) {
        let slots: Vec<Arc<Slot>> = match self.packs.write() {
            Ok(mut m) => m.remove(group.as_os_str()).unwrap_or_default(),
            Err(_) => return,
        };
        for s in slots {
            s.closed.store(true, Ordering::Release);
            s.write();
        }
    }

    /// The slot of `group`'s pack of kind `C` under `ctx`'s variant; `None`
    /// when the cache is off.
    fn slot<C: Census>(&self, group: &Path, ctx: &C::Ctx) -> Option<Arc<Slot>> {
        let root = self.root.as_ref()?;
        let of = (C::KIND, C::variant(ctx));
        let same = |s: &Slot| {
            s.run == self.run
                && s.of == of
                && !s.closed.load(Ordering::Acquire)
                && s.group.as_os_str() == group.as_os_str()
        };
        let last = LAST.with(|l| l.borrow().upgrade()).filter(|s| same(s));
        if last.is_some() {
            return last;
        }
        let found = self.slot_shared::<C>(root, group, of)?;
        LAST.with(|l| *l.borrow_mut() = Arc::downgrade(&found));
        Some(found)
    }

    /// [`Cache::slot`] from the run's shared map, made there when new.
    fn slot_shared<C: Census>(
        &self,
        root: &Path,
        group: &Path,
        of: (&'static str, &'static str),
    ) -> Option<Arc<Slot>> {
        let find = |m: &FxMap<OsString, Vec<Arc<Slot>>>| {
            m.get(group.as_os_str())
                .and_then(|v| v.iter().find(|s| s.of == of))
                .map(Arc::clone)
        };
        if let Some(s) = find(&*self.packs.read().ok()?) {
            return Some(s);
        }
        let mut m = self.packs.write().ok()?;
        if let Some(s) = find(&m) {
            return Some(s);
        }
        let kind = format!("{}{}", of.0, of.1);
        let h = crate::loss::fnv1a(path_bytes(&absolute(group)).as_ref());
        let name = format!("{h:016x}");
        let at = root
            .join(format!("{kind}-v{}", C::VERSION))
            .join(&name[..2])
            .join(format!("{name}.pack"));
        let slot = Arc::new(Slot {
            at,
            group: group.to_path_buf(),
            kind,
            of,
            version: C::VERSION,
            pack: OnceLock::new(),
            fresh: Mutex::new(HashMap::new()),
            left: self.left.read().ok()?.get(group.as_os_str()).cloned(),
            run: self.run,
            closed: AtomicBool::new(false),
        });
        let slots = m.entry(group.as_os_str().to_owned()).or_default();
        slots.push(Arc::clone(&slot));
        Some(slot)
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
        let abs = absolute(path);
        let run = Run {
            path,
            key: &path_bytes(&abs),
            ctx,
            slot,
        };
        let (c, o) = self.cached::<C>(opened, &run)?;
        self.count(o);
        Ok((c, o))
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
