//! Cache entries on disk: one file per (census kind, transcript path) under
//! `<state>/cache/<kind>-v<version>/`, read, checked against the transcript
//! and rewritten by rename (a reader never sees half an entry, and two runs
//! writing at once leave one whole entry).

use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Census, Dec, Enc, Pos};
use crate::scan::Source;

const MAGIC: &[u8] = b"csift-census-2\0";
/// Bytes hashed at each end of the covered prefix.
const EDGE: u64 = 4096;

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
}

/// A file's identity and the prefix an entry covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ident {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, u32),
}

struct Header {
    ident: Ident,
    /// Bytes covered (whole lines) and the number of lines in them.
    consumed: u64,
    lines: u64,
    head: u64,
    tail: u64,
}

impl Cache {
    /// A cache under `root` (csift's state directory), or off when `enabled`
    /// is false, there is no state directory, or it lies inside `claude_home`
    /// (csift never writes there).
    pub(crate) fn new(enabled: bool, root: Option<PathBuf>, claude_home: Option<&Path>) -> Cache {
        let root = root.filter(|_| enabled).map(|r| r.join("cache"));
        let inside = |r: &PathBuf| claude_home.is_some_and(|h| crate::outpath::inside(r, h));
        Cache {
            root: root.filter(|r| !inside(r)),
            ..Cache::default()
        }
    }

    /// The census of the transcript at `path`: from its entry where the file
    /// is unchanged, its entry plus the appended bytes where it grew, a whole
    /// scan otherwise.
    pub(crate) fn census<C: Census>(&self, path: &Path) -> crate::error::Result<(C, Outcome)> {
        let io_err = |e| crate::error::Error::io(path, e);
        // Non-blocking, regular files only (a FIFO named as a transcript
        // must not hang the status line).
        let file = crate::scan::source::open(path)?.file;
        let meta = file.metadata().map_err(io_err)?;
        let (c, o) = match self.entry_path::<C>(path) {
            None => (self.whole::<C>(file, &meta, path, None)?, Outcome::Off),
            Some(at) => self.cached::<C>(file, &meta, path, &at)?,
        };
        self.counts[o as usize].fetch_add(1, Ordering::Relaxed);
        Ok((c, o))
    }

    fn cached<C: Census>(
        &self,
        file: File,
        meta: &Metadata,
        path: &Path,
        at: &Path,
    ) -> crate::error::Result<(C, Outcome)> {
        let ident = ident(meta);
        // A large entry is mapped, not copied (entries are replaced by rename,
        // never rewritten in place, so a mapped one stays whole).
        let old = Source::open(at).ok();
        let found = old.as_deref().and_then(|b| read_entry::<C>(b, path));
        let Some((h, mut census)) = found else {
            return Ok((self.whole(file, meta, path, Some(at))?, Outcome::Miss));
        };
        let same_file = h.ident.dev == ident.dev && h.ident.ino == ident.ino;
        let unchanged = same_file && h.ident == ident;
        let grew = same_file && ident.size > h.ident.size;
        if !(unchanged || grew) || !edges_match(&file, &h) {
            return Ok((self.whole(file, meta, path, Some(at))?, Outcome::Miss));
        }
        if unchanged {
            if ident.size > h.consumed {
                let tail = read_at(&file, h.consumed, ident.size - h.consumed)
                    .map_err(|e| crate::error::Error::io(path, e))?;
                self.note_scanned(tail.len());
                census.extend(C::scan(
                    &tail,
                    Pos {
                        offset: h.consumed,
                        line: h.lines + 1,
                    },
                ));
            }
            return Ok((census, Outcome::Hit));
        }
        let src = Source::from_opened(
            crate::scan::source::Opened {
                file,
                len: meta.len(),
            },
            path,
        )?;
        let buf: &[u8] = &src;
        let start = (h.consumed as usize).min(buf.len());
        let end = whole_lines_end(buf, start);
        self.note_scanned(buf.len() - start);
        let added = newlines(&buf[start..end]);
        census.extend(C::scan(
            &buf[start..end],
            Pos {
                offset: start as u64,
                line: h.lines + 1,
            },
        ));
        let header = header_of(buf, ident, end, h.lines + added);
        write_entry(at, path, &header, &census);
        self.tail(&mut census, buf, end, h.lines + added);
        Ok((census, Outcome::Grew))
    }

    /// Scan a file whole; with `at`, write its entry.
    fn whole<C: Census>(
        &self,
        file: File,
        meta: &Metadata,
        path: &Path,
        at: Option<&Path>,
    ) -> crate::error::Result<C> {
        let src = Source::from_opened(
            crate::scan::source::Opened {
                file,
                len: meta.len(),
            },
            path,
        )?;
        let buf: &[u8] = &src;
        self.note_scanned(buf.len());
        let Some(at) = at else {
            return Ok(C::scan(buf, Pos { offset: 0, line: 1 }));
        };
        let end = whole_lines_end(buf, 0);
        let lines = newlines(&buf[..end]);
        let mut census = C::scan(&buf[..end], Pos { offset: 0, line: 1 });
        write_entry(at, path, &header_of(buf, ident(meta), end, lines), &census);
        self.tail(&mut census, buf, end, lines);
        Ok(census)
    }

    /// Fold in the unterminated end of `buf` (never cached).
    fn tail<C: Census>(&self, census: &mut C, buf: &[u8], end: usize, lines: u64) {
        if end < buf.len() {
            census.extend(C::scan(
                &buf[end..],
                Pos {
                    offset: end as u64,
                    line: lines + 1,
                },
            ));
        }
    }

    fn note_scanned(&self, n: usize) {
        self.scanned.fetch_add(n as u64, Ordering::Relaxed);
    }

    fn entry_path<C: Census>(&self, path: &Path) -> Option<PathBuf> {
        let root = self.root.as_ref()?;
        let h = crate::loss::fnv1a(path_bytes(&absolute(path)).as_ref());
        let name = format!("{h:016x}");
        Some(
            root.join(format!("{}-v{}", C::KIND, C::VERSION))
                .join(&name[..2])
                .join(format!("{name}.bin")),
        )
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

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    }
}

fn path_bytes(p: &Path) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::borrow::Cow::Borrowed(p.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        std::borrow::Cow::Owned(p.to_string_lossy().into_owned().into_bytes())
    }
}

fn ident(meta: &Metadata) -> Ident {
    #[cfg(unix)]
    let (dev, ino) = {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    };
    #[cfg(not(unix))]
    let (dev, ino) = (0, 0);
    let mtime =
        meta.modified()
            .ok()
            .map_or((0, 0), |t| match t.duration_since(std::time::UNIX_EPOCH) {
                Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
                Err(e) => (
                    -(e.duration().as_secs() as i64),
                    e.duration().subsec_nanos(),
                ),
            });
    Ident {
        dev,
        ino,
        size: meta.len(),
        mtime,
    }
}

/// The end of the last whole line of `buf` at or after `start` (`start` when
/// no newline follows it).
fn whole_lines_end(buf: &[u8], start: usize) -> usize {
    memchr::memrchr(b'\n', &buf[start..]).map_or(start, |i| start + i + 1)
}

fn newlines(b: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', b).count() as u64
}

/// The edge ranges hashed for a prefix of `consumed` bytes.
fn edges(consumed: u64) -> [(u64, u64); 2] {
    let head = consumed.min(EDGE);
    let tail_start = consumed.saturating_sub(EDGE);
    [(0, head), (tail_start, consumed - tail_start)]
}

/// A 64-bit digest of `b`, eight bytes a step, for checking bytes against
/// accidents (an entry's payload, a file's edges), not adversaries: FNV-1a's
/// byte a step took 10 ms over a 3 MB entry, which the status line reads on
/// every prompt.
fn digest(b: &[u8]) -> u64 {
    let mut h: u64 = 0x9e37_79b9_7f4a_7c15 ^ b.len() as u64;
    let mut words = b.chunks_exact(8);
    let step = |h: u64, w: &[u8]| {
        let mut a = [0u8; 8];
        a[..w.len()].copy_from_slice(w);
        (h ^ u64::from_le_bytes(a))
            .wrapping_mul(0xff51_afd7_ed55_8ccd)
            .rotate_left(29)
    };
    for w in &mut words {
        h = step(h, w);
    }
    h = step(h, words.remainder()).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

fn header_of(buf: &[u8], ident: Ident, consumed: usize, lines: u64) -> Header {
    let [(h0, hn), (t0, tn)] = edges(consumed as u64);
    let hash = |a: u64, n: u64| digest(&buf[a as usize..(a + n) as usize]);
    Header {
        ident,
        consumed: consumed as u64,
        lines,
        head: hash(h0, hn),
        tail: hash(t0, tn),
    }
}

/// Whether the file still holds, at the same offsets, the bytes the entry's
/// two edge hashes were taken of.
fn edges_match(file: &File, h: &Header) -> bool {
    let [(h0, hn), (t0, tn)] = edges(h.consumed);
    let same = |a: u64, n: u64, want: u64| read_at(file, a, n).is_ok_and(|b| digest(&b) == want);
    same(h0, hn, h.head) && same(t0, tn, h.tail)
}

fn read_at(file: &File, offset: u64, len: u64) -> io::Result<Vec<u8>> {
    let mut buf = vec![0; usize::try_from(len).map_err(io::Error::other)?];
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(&mut buf, offset)?;
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = file;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(&mut buf)?;
    }
    Ok(buf)
}

fn build_tag() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

fn write_entry<C: Census>(at: &Path, path: &Path, h: &Header, census: &C) {
    let mut payload = Enc::default();
    census.encode(&mut payload);
    let mut e = Enc::default();
    e.buf.extend_from_slice(MAGIC);
    e.str(build_tag());
    e.str(C::KIND);
    e.u32(C::VERSION);
    e.bytes(&path_bytes(&absolute(path)));
    let i = h.ident;
    for v in [i.dev, i.ino, i.size] {
        e.u64(v);
    }
    e.i64(i.mtime.0);
    e.u32(i.mtime.1);
    for v in [h.consumed, h.lines, h.head, h.tail] {
        e.u64(v);
    }
    e.u64(digest(&payload.buf));
    e.bytes(&payload.buf);
    // Best effort: a cache that cannot be written only costs the next run time.
    let Some(dir) = at.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = at.with_extension(format!("{}.{nonce}.tmp", std::process::id()));
    if std::fs::write(&tmp, &e.buf).is_ok() && std::fs::rename(&tmp, at).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// An entry's header and census, when it is whole, of this build, kind and
/// version, and for this path; `None` otherwise (never trusted, rewritten).
fn read_entry<C: Census>(b: &[u8], path: &Path) -> Option<(Header, C)> {
    let rest = b.strip_prefix(MAGIC)?;
    let mut d = Dec::new(rest);
    if d.str()? != build_tag() || d.str()? != C::KIND || d.u32()? != C::VERSION {
        return None;
    }
    if d.bytes()? != path_bytes(&absolute(path)).as_ref() {
        return None; // another path with the same hash
    }
    let ident = Ident {
        dev: d.u64()?,
        ino: d.u64()?,
        size: d.u64()?,
        mtime: (d.i64()?, d.u32()?),
    };
    let h = Header {
        ident,
        consumed: d.u64()?,
        lines: d.u64()?,
        head: d.u64()?,
        tail: d.u64()?,
    };
    if h.consumed > h.ident.size {
        return None;
    }
    let sum = d.u64()?;
    let payload = d.bytes()?;
    if !d.done() || digest(payload) != sum {
        return None;
    }
    let mut p = Dec::new(payload);
    let c = C::decode(&mut p)?;
    p.done().then_some((h, c))
}
