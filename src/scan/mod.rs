//! The scanner every command shares: open a transcript ([`source`]), frame its
//! lines ([`lines`]), parse records only where a byte prefilter says so, and fan
//! out across files with rayon while keeping output in input order ([`par_map`]).

pub mod lines;
pub mod source;
pub mod stream;

use rayon::prelude::*;

pub use lines::{Line, Lines};
pub use source::Source;

/// Map `f` over `items` in parallel; results come back in input order, so output
/// is deterministic however the work was scheduled.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    items.par_iter().map(f).collect()
}

/// The head of a buffer: whole lines within the first `max` bytes (at least one line).
pub fn head(buf: &[u8], max: usize) -> &[u8] {
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

/// The tail of a buffer: whole lines within the last `max` bytes, and the byte
/// offset where it starts. With a memory map this touches only the last pages,
/// which is what "seek from EOF" means here.
pub fn tail(buf: &[u8], max: usize) -> (usize, &[u8]) {
    if buf.len() <= max {
        return (0, buf);
    }
    let from = buf.len() - max;
    match memchr::memchr(b'\n', &buf[from..]) {
        Some(i) => (from + i + 1, &buf[from + i + 1..]),
        None => (from, &buf[from..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_and_tail_keep_whole_lines() {
        let buf = b"aaaa\nbbbb\ncccc\n";
        assert_eq!(head(buf, 7), b"aaaa\n");
        assert_eq!(head(buf, 100), buf);
        assert_eq!(tail(buf, 7), (10, &b"cccc\n"[..]));
        assert_eq!(tail(buf, 100), (0, &buf[..]));
    }
}
