//! The cache's byte format: little-endian integers and length-prefixed
//! strings, written by [`Enc`] and read back by [`Dec`], which checks every
//! length against what is left, so a truncated or corrupt file decodes to
//! `None`, never to a panic or a huge allocation.

/// An encoder appending to a byte buffer.
#[derive(Debug, Default)]
pub(crate) struct Enc {
    pub(crate) buf: Vec<u8>,
}

impl Enc {
    pub(crate) fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub(crate) fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.buf.extend_from_slice(b);
    }
    pub(crate) fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    /// An optional string: a flag byte, then the string.
    pub(crate) fn opt_str(&mut self, s: Option<&str>) {
        match s {
            None => self.u8(0),
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
        }
    }
    /// An optional count: a flag byte, then the count as a `u64`.
    pub(crate) fn opt_usize(&mut self, v: Option<usize>) {
        match v {
            None => self.u8(0),
            Some(n) => {
                self.u8(1);
                self.u64(n as u64);
            }
        }
    }
    /// A list of strings: its length, then each string.
    pub(crate) fn strs<'s>(&mut self, it: impl ExactSizeIterator<Item = &'s str>) {
        self.u64(it.len() as u64);
        for s in it {
            self.str(s);
        }
    }
    /// A boolean as one byte.
    pub(crate) fn bool(&mut self, v: bool) {
        self.u8(u8::from(v));
    }
    /// A timestamp as seconds and nanoseconds; `None` as a flag byte.
    pub(crate) fn ts(&mut self, t: Option<jiff::Timestamp>) {
        match t {
            None => self.u8(0),
            Some(t) => {
                self.u8(1);
                self.i64(t.as_second());
                self.u32(t.subsec_nanosecond() as u32);
            }
        }
    }
}

/// A decoder over a byte slice; every read is bounds-checked.
#[derive(Debug)]
pub(crate) struct Dec<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Dec<'a> {
    pub(crate) fn new(b: &'a [u8]) -> Dec<'a> {
        Dec { b, pos: 0 }
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.b.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    pub(crate) fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    pub(crate) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    pub(crate) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    pub(crate) fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    pub(crate) fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        self.take(n)
    }
    pub(crate) fn str(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }
    pub(crate) fn opt_str(&mut self) -> Option<Option<&'a str>> {
        match self.u8()? {
            0 => Some(None),
            1 => self.str().map(Some),
            _ => None,
        }
    }
    pub(crate) fn bool(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
    /// A `usize` written as a `u64`.
    pub(crate) fn usize(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }
    /// What [`Enc::opt_usize`] wrote.
    pub(crate) fn opt_usize(&mut self) -> Option<Option<usize>> {
        match self.u8()? {
            0 => Some(None),
            1 => self.usize().map(Some),
            _ => None,
        }
    }
    /// What [`Enc::strs`] wrote, owned, straight into the collection that
    /// keeps them (no list of borrowed strings between).
    pub(crate) fn owned_strs<B: FromIterator<String>>(&mut self) -> Option<B> {
        let n = self.len(8)?;
        (0..n).map(|_| self.str().map(str::to_owned)).collect()
    }
    pub(crate) fn ts(&mut self) -> Option<Option<jiff::Timestamp>> {
        match self.u8()? {
            0 => Some(None),
            1 => {
                let s = self.i64()?;
                let n = i32::try_from(self.u32()?).ok()?;
                jiff::Timestamp::new(s, n).ok().map(Some)
            }
            _ => None,
        }
    }
    /// A count of items that follow, each at least `min` bytes: a count the
    /// rest of the buffer cannot hold is corrupt (no huge allocation).
    pub(crate) fn len(&mut self, min: usize) -> Option<usize> {
        let n = usize::try_from(self.u64()?).ok()?;
        (n.checked_mul(min.max(1))? <= self.b.len() - self.pos).then_some(n)
    }
    /// Bytes left to read.
    pub(crate) fn rest(&self) -> usize {
        self.b.len() - self.pos
    }
    pub(crate) fn done(&self) -> bool {
        self.pos == self.b.len()
    }
    /// Where the decoder stands, for [`Dec::since`].
    pub(crate) fn mark(&self) -> usize {
        self.pos
    }
    /// The bytes read since `mark`.
    pub(crate) fn since(&self, mark: usize) -> &'a [u8] {
        self.b.get(mark..self.pos).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_truncation_is_none() {
        let mut e = Enc::default();
        e.u8(7);
        e.u32(70_000);
        e.u64(u64::MAX);
        e.i64(-5);
        e.str("claude-opus-4-6");
        let t: jiff::Timestamp = "2026-01-20T15:07:58.839Z".parse().unwrap();
        e.ts(Some(t));
        e.ts(None);
        e.opt_usize(Some(9));
        e.opt_usize(None);
        e.strs(["a", "bc"].into_iter());
        let mut d = Dec::new(&e.buf);
        assert_eq!(d.u8(), Some(7));
        assert_eq!(d.u32(), Some(70_000));
        assert_eq!(d.u64(), Some(u64::MAX));
        assert_eq!(d.i64(), Some(-5));
        assert_eq!(d.str(), Some("claude-opus-4-6"));
        assert_eq!(d.ts(), Some(Some(t)));
        assert_eq!(d.ts(), Some(None));
        assert_eq!(d.opt_usize(), Some(Some(9)));
        assert_eq!(d.opt_usize(), Some(None));
        assert_eq!(d.owned_strs(), Some(vec!["a".to_string(), "bc".into()]));
        assert!(d.done());
        for cut in 0..e.buf.len() {
            let mut d = Dec::new(&e.buf[..cut]);
            let all = (|| {
                d.u8()?;
                d.u32()?;
                d.u64()?;
                d.i64()?;
                d.str()?;
                d.ts()?;
                d.ts()?;
                d.opt_usize()?;
                d.opt_usize()?;
                d.owned_strs::<Vec<String>>()
            })();
            assert!(all.is_none(), "cut at {cut}");
        }
    }

    #[test]
    fn a_corrupt_length_is_none_not_an_allocation() {
        let mut e = Enc::default();
        e.u64(u64::MAX / 2);
        assert_eq!(Dec::new(&e.buf).len(16), None);
        assert_eq!(Dec::new(&e.buf).bytes(), None);
    }
}
