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
pub(crate) use par::par_map_larger_first;
pub use source::Source;

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
    fn cuts_are_line_aligned() {
        let buf = b"aa\nbbbb\ncc\nd\neeeee";
        for size in 1..buf.len() + 2 {
            let c = cuts(buf, size);
            assert_eq!(c[0].0, 0);
            assert_eq!(c.last().map(|c| c.1), Some(buf.len()));
            for w in c.windows(2) {
                assert_eq!(w[0].1, w[1].0);
                assert_eq!(buf[w[1].0 - 1], b'\n');
            }
        }
        assert_eq!(cuts(b"", 8), vec![(0, 0)]);
    }

    #[test]
    fn head_keeps_whole_lines() {
        let buf = b"aaaa\nbbbb\ncccc\n";
        assert_eq!(head(buf, 7), b"aaaa\n");
        assert_eq!(head(buf, 100), buf);
    }
}
