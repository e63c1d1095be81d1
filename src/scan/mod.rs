//! The scanner every command shares: open a transcript ([`source`]), frame its
//! lines ([`lines`]), parse records only where a byte prefilter says so, and fan
//! out across files with rayon while keeping output in input order ([`par_map`]).

pub mod find;
pub(crate) mod hash;
pub(crate) mod json;
pub mod lines;
pub(crate) mod pair;
mod par;
#[cfg(unix)]
pub(crate) mod sigbus;
pub(crate) mod source;
pub(crate) mod stream;

/// A `memmem` finder for a literal needle, built once per call site: a bare
/// `memchr::memmem::find` builds its searcher on every call, which on the short
/// lines of a per-line check costs more than the search (`lit!(b"x")` is a
/// `&'static memchr::memmem::Finder<'static>`).
macro_rules! lit {
    ($needle:expr) => {{
        static F: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new($needle));
        &*F
    }};
}
pub(crate) use lit;

/// A regex compiled once per call site from a pattern written in the source
/// (`re!(r"…")` is a `&'static regex::Regex`, `re!(bytes r"…")` a
/// `regex::bytes::Regex`): the one idiom for a static
/// regex. Its pattern is a literal, so a typo panics in every test that
/// reaches the site rather than silently turning a feature off, as an
/// `Option` of a failed compile did; a pattern built from input never uses it.
macro_rules! re {
    (bytes $pattern:expr) => {{
        static RE: std::sync::LazyLock<regex::bytes::Regex> = std::sync::LazyLock::new(|| {
            regex::bytes::Regex::new($pattern).expect("a static regex pattern compiles")
        });
        &*RE
    }};
    ($pattern:expr) => {{
        static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new($pattern).expect("a static regex pattern compiles")
        });
        &*RE
    }};
}
pub(crate) use re;

pub use lines::{Line, Lines};
pub use par::par_map;
pub(crate) use par::{largest_first, par_map_in};
pub use source::Source;

/// A line-aligned piece of a buffer: bytes `start..end`, whose first line is
/// line `first_no` (1-based) of the whole buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Chunk {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) first_no: usize,
}

/// Line-aligned `(start, end)` cuts of `buf` of about `size` bytes each (at least
/// one, `(0, 0)` for an empty buffer), found with one short memchr per cut.
pub(crate) fn cuts(buf: &[u8], size: usize) -> Vec<(usize, usize)> {
    let size = size.max(1);
    let mut cuts = Vec::new();
    let mut a = 0;
    while a < buf.len() {
        let want = a.saturating_add(size).min(buf.len());
        let b = match memchr::memchr(b'\n', &buf[want..]) {
            Some(i) if want < buf.len() => want + i + 1,
            _ => buf.len(),
        };
        cuts.push((a, b));
        a = b;
    }
    if cuts.is_empty() {
        cuts.push((0, 0));
    }
    cuts
}

/// Cut `buf` into line-aligned chunks of about `size` bytes (at least one chunk,
/// empty for an empty buffer). Boundaries cost one short memchr each; the
/// newlines of each chunk are counted in parallel, so numbering a large file
/// costs its share of one pass per core instead of a sequential pass.
pub(crate) fn chunks(buf: &[u8], size: usize) -> Vec<Chunk> {
    let cuts = cuts(buf, size);
    // The last chunk's own count numbers nothing: a file of one chunk costs none.
    let counted = &cuts[..cuts.len() - 1];
    let counts = par_map(counted, |&(a, b)| {
        memchr::memchr_iter(b'\n', &buf[a..b]).count()
    });
    let mut no = 1;
    cuts.iter()
        .zip(counts.into_iter().chain([0]))
        .map(|(&(start, end), n)| {
            let c = Chunk {
                start,
                end,
                first_no: no,
            };
            no += n;
            c
        })
        .collect()
}

/// The head of a buffer: whole lines within the first `max` bytes (at least one line).
pub(crate) fn head(buf: &[u8], max: usize) -> &[u8] {
    if buf.len() <= max {
        return buf;
    }
    match memchr::memrchr(b'\n', &buf[..max]) {
        Some(i) => &buf[..=i],
        None => match memchr::memchr(b'\n', &buf[max..]) {
            Some(i) => &buf[..=max + i],
            None => buf,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_line_aligned_and_numbered() {
        let buf = b"aa\nbbbb\ncc\nd\neeeee";
        for size in 1..buf.len() + 2 {
            let c = chunks(buf, size);
            assert_eq!(c[0].start, 0);
            assert_eq!(c.last().map(|c| c.end), Some(buf.len()));
            for w in c.windows(2) {
                assert_eq!(w[0].end, w[1].start);
                assert_eq!(buf[w[1].start - 1], b'\n');
                assert_eq!(w[1].first_no, lines::line_no_at(buf, w[1].start));
            }
        }
        assert_eq!(
            chunks(b"", 8),
            vec![Chunk {
                start: 0,
                end: 0,
                first_no: 1
            }]
        );
    }

    #[test]
    fn head_keeps_whole_lines() {
        let buf = b"aaaa\nbbbb\ncccc\n";
        assert_eq!(head(buf, 7), b"aaaa\n");
        assert_eq!(head(buf, 100), buf);
    }
}
