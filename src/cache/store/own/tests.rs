//! Unit tests of `own`: the digests a caller hands back are the ones a
//! census entry's header takes of the same bytes, and an own entry is a hit
//! only while the file keeps its identity and edges.

use std::path::Path;

use super::*;
use crate::cache::ident::header_of;
use crate::cache::pack::Ident;

fn bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 % 251) as u8).collect()
}

/// From the whole file, from windows of every size that hold the edges, and
/// with a tail too short for them (`None`), at lengths around the edges.
#[test]
fn edge_digests_are_the_headers() {
    let id = Ident {
        dev: 1,
        ino: 2,
        size: 0,
        mtime: (0, 0),
    };
    for n in [0, 1, 4095, 4096, 4097, 8191, 8192, 8193, 12_289, 300_000] {
        let b = bytes(n);
        let h = header_of(
            &b,
            Ident {
                size: n as u64,
                ..id
            },
            n,
            0,
        );
        let want = Some([h.head, h.tail]);
        assert_eq!(h.tail, h.end, "{n}");
        assert_eq!(edge_digests(&b, &[], n as u64), want, "{n}");
        for w in [4096, 6000, 8192] {
            let w = w.min(n);
            assert_eq!(
                edge_digests(&b[..w], &b[n - w..], n as u64),
                want,
                "{n} {w}"
            );
        }
        if n > 4096 {
            assert_eq!(
                edge_digests(&b[..4096], &b[n - 100..], n as u64),
                None,
                "{n}"
            );
            assert_eq!(
                edge_digests(&b[..100], &b[n - 4096..], n as u64),
                None,
                "{n}"
            );
        }
    }
}

/// A toy own kind: the file's length, as its reader saw it.
#[derive(Debug, PartialEq)]
struct Len(u64);

impl Census for Len {
    const KIND: &'static str = "own-toy";
    const VERSION: u32 = 1;
    type Ctx = ();
    fn scan(buf: &[u8], _: crate::cache::Pos, _: &()) -> Len {
        Len(buf.len() as u64)
    }
    fn extend(&mut self, later: Len) {
        self.0 += later.0;
    }
    fn encode(&self, e: &mut Enc) {
        e.u64(self.0);
    }
    fn decode(d: &mut Dec<'_>) -> Option<Len> {
        d.u64().map(Len)
    }
}

fn read(state: &Path, path: &Path) -> (Len, Outcome) {
    let cache = Cache::new(true, Some(state.to_path_buf()), None);
    let group = path.parent().unwrap();
    cache.will_read(group, 1);
    cache
        .read_own::<Len>(group, path, &(), |o| {
            let b = std::fs::read(path).unwrap();
            Ok((Len(o.len), edge_digests(&b, &[], b.len() as u64)))
        })
        .unwrap()
}

/// Unchanged: a hit. An append, an in-place change of the last byte with
/// the time put back, a rename over it: each read again, the census new.
#[test]
fn an_own_entry_holds_only_while_the_file_does() {
    let state = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.jsonl");
    std::fs::write(&p, bytes(9000)).unwrap();
    assert_eq!(read(state.path(), &p), (Len(9000), Outcome::Miss));
    assert_eq!(read(state.path(), &p), (Len(9000), Outcome::Hit));
    let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    std::io::Write::write_all(&mut f, b"x\n").unwrap();
    drop(f);
    assert_eq!(read(state.path(), &p), (Len(9002), Outcome::Miss));
    assert_eq!(read(state.path(), &p), (Len(9002), Outcome::Hit));
    let t = std::fs::metadata(&p).unwrap().modified().unwrap();
    let mut b = std::fs::read(&p).unwrap();
    b[9000] = b'y';
    std::fs::write(&p, &b).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(t)
        .unwrap();
    assert_eq!(read(state.path(), &p), (Len(9002), Outcome::Miss), "edges");
    let q = dir.path().join("b.tmp");
    std::fs::write(&q, bytes(10)).unwrap();
    std::fs::rename(&q, &p).unwrap();
    assert_eq!(read(state.path(), &p), (Len(10), Outcome::Miss));
}
