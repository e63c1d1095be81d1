//! Line framing: physical 1-based lines found with memchr, each with its byte
//! offset. A final segment without a newline is still yielded, marked
//! `terminated: false`, so a caller can tell a complete last record from a torn
//! one (REC-040).

use super::find::Find;

/// One physical line, without its `\n` (and without a trailing `\r`).
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    /// 1-based physical line number.
    pub no: usize,
    /// Byte offset of the line's first byte in the file.
    pub offset: usize,
    pub bytes: &'a [u8],
    pub terminated: bool,
}

pub struct Lines<'a> {
    buf: &'a [u8],
    pos: usize,
    no: usize,
}

impl<'a> Lines<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Lines { buf, pos: 0, no: 0 }
    }

    /// Start framing at `offset` (which must be a line start) numbered `first_no`.
    pub(crate) fn from(buf: &'a [u8], offset: usize, first_no: usize) -> Self {
        Lines {
            buf,
            pos: offset.min(buf.len()),
            no: first_no.saturating_sub(1),
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;
    fn next(&mut self) -> Option<Line<'a>> {
        if self.pos >= self.buf.len() {
            return None;
        }
        let rest = &self.buf[self.pos..];
        let (len, terminated) = match memchr::memchr(b'\n', rest) {
            Some(i) => (i, true),
            None => (rest.len(), false),
        };
        self.no += 1;
        let line = Line {
            no: self.no,
            offset: self.pos,
            bytes: trim_cr(&rest[..len]),
            terminated,
        };
        self.pos += len + usize::from(terminated);
        Some(line)
    }
}

/// The lines holding a match of `re`, each once, numbered, in file order. Every
/// byte is scanned at most twice (the regex, then the newline count) however
/// long the lines are: the way to visit a few lines of a huge file.
pub(crate) struct HitLines<'a, 'r, F: Find = regex::bytes::Regex> {
    buf: &'a [u8],
    re: &'r F,
    /// Where the next regex search starts (always a line start).
    pos: usize,
    /// Number of the line starting at `pos`.
    no: usize,
    /// Whether lines are numbered; when not ([`HitLines::unnumbered`]),
    /// every line's `no` is 0 and no newline is counted.
    numbered: bool,
}

impl<'a, 'r, F: Find> HitLines<'a, 'r, F> {
    pub(crate) fn new(buf: &'a [u8], re: &'r F) -> Self {
        HitLines::from(buf, re, 0, 1)
    }

    /// Start at `offset` (which must be a line start) numbered `no`: for a
    /// caller that already knows no line before it matches.
    pub(crate) fn from(buf: &'a [u8], re: &'r F, offset: usize, no: usize) -> Self {
        HitLines {
            buf,
            re,
            pos: offset.min(buf.len()),
            no: no.max(1),
            numbered: true,
        }
    }

    /// As [`HitLines::from`] with no line numbers (each `no` is 0): for a
    /// caller that keys lines by their offsets, spared a count of every
    /// newline.
    pub(crate) fn unnumbered(buf: &'a [u8], re: &'r F, offset: usize) -> Self {
        HitLines {
            numbered: false,
            no: 0,
            ..HitLines::from(buf, re, offset, 1)
        }
    }
}

impl<'a, F: Find> Iterator for HitLines<'a, '_, F> {
    /// The line and the first match's bytes in it.
    type Item = (Line<'a>, &'a [u8]);
    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.buf.len() {
            return None;
        }
        let (m_start, m_end) = self.re.find_at(self.buf, self.pos)?;
        let (start, end, terminated) = around(self.buf, self.pos, m_start);
        // The lines skipped since the last hit: counted in one SIMD pass.
        if start > self.pos && self.numbered {
            self.no += memchr::memchr_iter(b'\n', &self.buf[self.pos..start]).count();
        }
        let line = Line {
            no: self.no,
            offset: start,
            bytes: trim_cr(&self.buf[start..end]),
            terminated,
        };
        self.pos = end + 1;
        self.no += usize::from(self.numbered);
        Some((line, &self.buf[m_start..m_end]))
    }
}

impl<F: Find> HitLines<'_, '_, F> {
    /// The number of newlines in the whole buffer, counting only the bytes the
    /// hits have not already numbered.
    pub(crate) fn newlines(self) -> usize {
        let rest = self.buf.get(self.pos..).unwrap_or_default();
        // `no` is the number of the next unread line: every line before it ended
        // in a newline, except an unterminated last hit line (pos past the end).
        let before = self.no - 1 - usize::from(self.pos > self.buf.len());
        before + memchr::memchr_iter(b'\n', rest).count()
    }
}

/// The line holding byte `at`, its start looked for back to `from` (a line
/// start at or before `at`): its start, its end (its newline, or the end of
/// `buf`) and whether it ends in a newline, as [`Lines`] frames it.
pub(crate) fn around(buf: &[u8], from: usize, at: usize) -> (usize, usize, bool) {
    let start = memchr::memrchr(b'\n', &buf[from..at]).map_or(from, |i| from + i + 1);
    match memchr::memchr(b'\n', &buf[at..]) {
        Some(i) => (start, at + i, true),
        None => (start, buf.len(), false),
    }
}

/// A line's bytes without the `\r` of a CRLF ending.
pub(crate) fn trim_cr(bytes: &[u8]) -> &[u8] {
    bytes.strip_suffix(b"\r").unwrap_or(bytes)
}

/// 1-based line number of the line containing byte `offset`.
pub(crate) fn line_no_at(buf: &[u8], offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &buf[..offset.min(buf.len())]).count() + 1
}

/// 1-based number of the line starting at `start`, counted from a line start
/// `known` numbered `known_no` (either side of it): only the bytes between
/// the two are counted.
pub(crate) fn line_no_near(buf: &[u8], start: usize, known: usize, known_no: usize) -> usize {
    let (start, known) = (start.min(buf.len()), known.min(buf.len()));
    if start >= known {
        known_no + memchr::memchr_iter(b'\n', &buf[known..start]).count()
    } else {
        known_no.saturating_sub(memchr::memchr_iter(b'\n', &buf[start..known]).count())
    }
}

/// Start offset of the line containing byte `offset`.
pub(crate) fn line_start(buf: &[u8], offset: usize) -> usize {
    memchr::memrchr(b'\n', &buf[..offset.min(buf.len())]).map_or(0, |i| i + 1)
}

/// The whole line containing byte `offset` as a [`Line`] with number `no`.
pub(crate) fn line_at(buf: &[u8], offset: usize, no: usize) -> Line<'_> {
    let start = line_start(buf, offset);
    let mut it = Lines::from(buf, start, no);
    it.next().unwrap_or(Line {
        no,
        offset: start,
        bytes: &[],
        terminated: false,
    })
}

/// Count physical lines the way [`Lines`] yields them.
pub fn count(buf: &[u8]) -> usize {
    let n = memchr::memchr_iter(b'\n', buf).count();
    n + usize::from(buf.last().is_some_and(|&b| b != b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_lines_with_offsets() {
        let buf = b"{\"a\":1}\n\n{\"b\":2}\r\n{\"c\"";
        let v: Vec<_> = Lines::new(buf).collect();
        assert_eq!(v.len(), 4);
        assert_eq!(v[0].bytes, b"{\"a\":1}");
        assert_eq!(v[1].bytes, b"");
        assert_eq!(v[2].bytes, b"{\"b\":2}");
        assert_eq!(v[2].offset, 9);
        assert_eq!(v[3].no, 4);
        assert!(!v[3].terminated);
        assert_eq!(count(buf), 4);
        assert_eq!(count(b"a\nb\n"), 2);
        assert_eq!(count(b""), 0);
    }

    #[test]
    fn hit_lines_visit_each_matching_line_once() {
        let buf = b"a x\nb\nx x x\n\nc\nlast x";
        let re = regex::bytes::Regex::new("x").unwrap();
        let v: Vec<(usize, &[u8])> = HitLines::new(buf, &re)
            .map(|(l, _)| (l.no, l.bytes))
            .collect();
        assert_eq!(
            v,
            vec![(1, &b"a x"[..]), (3, &b"x x x"[..]), (6, &b"last x"[..])]
        );
        let all: Vec<usize> = Lines::new(buf)
            .filter(|l| l.bytes.contains(&b'x'))
            .map(|l| l.no)
            .collect();
        assert_eq!(all, vec![1, 3, 6]);
    }

    #[test]
    fn hit_lines_report_the_newlines_they_passed() {
        let re = regex::bytes::Regex::new("x").unwrap();
        for buf in [
            &b"a x\nb\nx\n\nc\n"[..],
            b"x\nyy\nlast x",
            b"none\nhere\n",
            b"",
            b"x",
        ] {
            let mut it = HitLines::new(buf, &re);
            for _ in it.by_ref() {}
            let want = memchr::memchr_iter(b'\n', buf).count();
            assert_eq!(it.newlines(), want, "{:?}", String::from_utf8_lossy(buf));
            let mut it = HitLines::new(buf, &re);
            it.next();
            assert_eq!(it.newlines(), want, "after one hit");
        }
    }

    #[test]
    fn line_lookup_by_offset() {
        let buf = b"aa\nbbb\ncc";
        assert_eq!(line_no_at(buf, 4), 2);
        assert_eq!(line_start(buf, 5), 3);
        let l = line_at(buf, 8, 3);
        assert_eq!(l.bytes, b"cc");
    }

    #[test]
    fn hit_lines_from_a_line_start_agree_with_a_scan_from_the_top() {
        let buf = b"a x\nb\n\nx x\ny\nlast x";
        let re = regex::bytes::Regex::new("x").unwrap();
        let all: Vec<(usize, usize)> = HitLines::new(buf, &re)
            .map(|(l, _)| (l.no, l.offset))
            .collect();
        for start in Lines::new(buf) {
            let from: Vec<(usize, usize)> = HitLines::from(buf, &re, start.offset, start.no)
                .map(|(l, _)| (l.no, l.offset))
                .collect();
            let want: Vec<_> = all
                .iter()
                .copied()
                .filter(|&(no, _)| no >= start.no)
                .collect();
            assert_eq!(from, want, "from line {}", start.no);
            let mut it = HitLines::from(buf, &re, start.offset, start.no);
            for _ in it.by_ref() {}
            assert_eq!(it.newlines(), 5);
        }
    }

    #[test]
    fn lines_are_numbered_from_a_known_line_either_way() {
        let buf = b"aa\nbbb\n\ncc\nd";
        let starts: Vec<(usize, usize)> = Lines::new(buf).map(|l| (l.offset, l.no)).collect();
        for &(known, known_no) in &starts {
            for &(start, no) in &starts {
                assert_eq!(line_no_near(buf, start, known, known_no), no);
                assert_eq!(line_no_at(buf, start), no);
            }
        }
    }

    #[test]
    fn from_offset_resumes_numbering() {
        let buf = b"a\nb\nc\n";
        let v: Vec<_> = Lines::from(buf, 2, 2).collect();
        assert_eq!(v[0].no, 2);
        assert_eq!(v[0].bytes, b"b");
        assert_eq!(v.len(), 2);
    }
}
