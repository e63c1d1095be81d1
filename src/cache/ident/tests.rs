//! The edge check reads edges close together at once and decides exactly as
//! one read per edge did; the digest tells apart what it is meant to; a pack
//! of the old format is never read, but the sweep still learns its group.

use std::io::Write;

use super::{digest, edges, edges_match, header_of};
use crate::cache::pack::{self, Ident, Pack, Tag};

fn file_of(b: &[u8]) -> (tempfile::NamedTempFile, std::fs::File) {
    let mut t = tempfile::NamedTempFile::new().unwrap();
    t.write_all(b).unwrap();
    let f = std::fs::File::open(t.path()).unwrap();
    (t, f)
}

fn bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 % 251) as u8).collect()
}

/// What one read per edge decided (the code before reads were merged).
fn apart(buf: &[u8], h: &super::Header, to_end: bool) -> bool {
    let [head, tail] = edges(h.consumed);
    let [_, end] = edges(h.ident.size);
    let same = |(a, n): (u64, u64), want: u64| {
        buf.get(a as usize..(a + n) as usize)
            .is_some_and(|b| digest(b) == want)
    };
    same(head, h.head)
        && same(tail, h.tail)
        && (!to_end || h.ident.size == h.consumed || same(end, h.end))
}

#[test]
fn merged_edge_reads_decide_as_one_read_per_edge() {
    let sizes = [
        0, 1, 100, 4095, 4096, 4097, 8192, 8193, 12_288, 12_289, 20_000, 70_000,
    ];
    for &size in &sizes {
        let buf = bytes(size);
        for consumed in [
            0,
            size / 3,
            size.saturating_sub(9000),
            size.saturating_sub(100),
            size,
        ] {
            let ident = Ident {
                dev: 1,
                ino: 2,
                size: size as u64,
                mtime: (3, 4),
            };
            let h = header_of(&buf, ident, consumed, 0);
            for to_end in [false, true] {
                let (_t, f) = file_of(&buf);
                assert!(edges_match(&f, &h, to_end), "{size} {consumed} {to_end}");
                // Any byte changed: merged reads see what separate ones saw.
                for at in [
                    0,
                    50,
                    4095,
                    4096,
                    6000,
                    consumed.saturating_sub(1),
                    size.saturating_sub(1),
                ] {
                    if at >= size {
                        continue;
                    }
                    let mut other = buf.clone();
                    other[at] ^= 0x55;
                    let (_t, f) = file_of(&other);
                    let want = apart(&other, &h, to_end);
                    assert_eq!(edges_match(&f, &h, to_end), want, "{size} {consumed} {at}");
                }
                // Cut short: never a match where bytes are missing.
                if consumed > 0 {
                    let (_t, f) = file_of(&buf[..consumed - 1]);
                    assert!(!edges_match(&f, &h, to_end));
                }
            }
        }
    }
}

#[test]
fn the_digest_sees_every_byte_and_the_length() {
    let base = bytes(200);
    let d = digest(&base);
    for at in 0..base.len() {
        let mut b = base.clone();
        b[at] ^= 1;
        assert_ne!(digest(&b), d, "byte {at}");
    }
    for n in 0..base.len() {
        assert_ne!(digest(&base[..n]), d, "length {n}");
    }
    assert_ne!(digest(&[0u8; 8]), digest(&[0u8; 16]));
}

/// The tag of a pack of group `/g` for these tests.
fn toy_tag() -> Tag<'static> {
    Tag {
        build: "b",
        kind: "toy",
        version: 1,
        group: b"/g",
    }
}

#[test]
fn a_pack_of_the_old_format_is_never_read_but_names_its_group() {
    let tmp = tempfile::tempdir().unwrap();
    let at = tmp.path().join("p.pack");
    let tag = toy_tag();
    let new = pack::encode(&tag, &[]);
    pack::write(&at, &new);
    assert!(Pack::load(&at, &tag).is_some());
    let mut old = b"csift-pack-1\0".to_vec();
    old.extend_from_slice(&new[b"csift-pack-2\0".len()..]);
    pack::write(&at, &old);
    assert!(Pack::load(&at, &tag).is_none(), "an old format is not read");
    assert_eq!(pack::group_of(&old), Some(&b"/g"[..]));
    assert_eq!(pack::group_of(&new), Some(&b"/g"[..]));
}

fn fresh(n: u8) -> pack::Fresh {
    let ident = Ident {
        dev: 1,
        ino: u64::from(n),
        size: 10,
        mtime: (3, 4),
    };
    pack::Fresh {
        header: header_of(&[n; 10], ident, 10, 1),
        answer: vec![n; usize::from(n)],
        resume: vec![n],
    }
}

/// A pack finds each entry by its key (a key that is another's prefix
/// included, keys short enough to have been refused by the old minimum
/// entry size) and finds no other; a pack whose keys do not ascend as
/// written is not read at all, never half found.
#[test]
fn a_pack_finds_its_keys_in_order_and_refuses_them_out_of_order() {
    let tmp = tempfile::tempdir().unwrap();
    let at = tmp.path().join("p.pack");
    let tag = toy_tag();
    let keys: [&[u8]; 5] = [b"/g/a", b"/g/a.jsonl", b"/g/a/x.jsonl", b"/g/b", b"/g/b0"];
    let entries: Vec<(Vec<u8>, pack::Fresh)> = (1..)
        .zip(keys)
        .map(|(n, k)| (k.to_vec(), fresh(n)))
        .collect();
    pack::write(&at, &pack::encode(&tag, &entries));
    let p = Pack::load(&at, &tag).unwrap();
    for (k, f) in &entries {
        let ix = p.get(k).unwrap();
        assert_eq!(p.answer(ix).unwrap(), &f.answer[..]);
        assert_eq!(ix.header, f.header);
    }
    for absent in [&b""[..], b"/g", b"/g/a.json", b"/g/c", b"/g/a/x.jsonl\0"] {
        assert!(p.get(absent).is_none(), "{absent:?}");
    }
    let mut swapped = entries;
    swapped.swap(1, 2);
    pack::write(&at, &pack::encode(&tag, &swapped));
    assert!(Pack::load(&at, &tag).is_none(), "keys out of order");
}
