//! The store's guarantees on a toy census kind: a pack corrupt at any byte
//! never yields a wrong census (hit or grew), files of one pack change
//! independently, and a removed file's entry leaves its pack at the next
//! rewrite.

use std::path::{Path, PathBuf};

use super::pack::{Pack, Tag};
use super::{Cache, Census, Dec, Enc, Pos};
use crate::cache::store::Outcome;

/// Lines and bytes of a run of lines; an entry keeps the census of the
/// whole file as its answer and that of its whole lines to resume from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Toy {
    lines: u64,
    bytes: u64,
    /// The offset of the first line scanned (checks the store's positions).
    first: u64,
}

impl Census for Toy {
    const KIND: &'static str = "toy";
    const VERSION: u32 = 1;
    const SPLIT: bool = true;
    type Ctx = ();

    fn scan(buf: &[u8], at: Pos, _: &()) -> Toy {
        let n = buf.split_inclusive(|b| *b == b'\n').count() as u64;
        Toy {
            lines: n,
            bytes: buf.len() as u64,
            first: at.offset,
        }
    }
    fn extend(&mut self, later: Toy) {
        self.lines += later.lines;
        self.bytes += later.bytes;
    }
    fn encode(&self, e: &mut Enc) {
        for v in [self.lines, self.bytes, self.first] {
            e.u64(v);
        }
    }
    fn decode(d: &mut Dec<'_>) -> Option<Toy> {
        Some(Toy {
            lines: d.u64()?,
            bytes: d.u64()?,
            first: d.u64()?,
        })
    }
    fn encode_resume(&self, e: &mut Enc) {
        self.encode(e);
    }
    fn resume(_answer: &[u8], d: &mut Dec<'_>) -> Option<Toy> {
        Toy::decode(d)
    }
}

fn truth(path: &Path) -> Toy {
    Toy::scan(
        &std::fs::read(path).unwrap(),
        Pos { offset: 0, line: 1 },
        &(),
    )
}

fn run(state: &Path, group: &Path, files: &[&Path]) -> Vec<(Toy, Outcome)> {
    let cache = Cache::new(true, Some(state.to_path_buf()), None);
    cache.will_read(group, files.len());
    let out = files
        .iter()
        .map(|f| cache.census_grouped::<Toy>(group, f, &()).unwrap())
        .collect();
    cache.flush();
    out
}

fn packs(state: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![state.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "pack") {
                out.push(p);
            }
        }
    }
    out
}

fn append(path: &Path, b: &[u8]) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(b).unwrap();
}

/// Every byte of a pack flipped in turn: the census is still the file's,
/// whether the entry is a hit (an unterminated final line in its answer) or
/// the file grew (its resume state read).
#[test]
fn a_pack_corrupt_at_any_byte_is_never_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let (state, group) = (dir.path().join("state"), dir.path().join("p"));
    std::fs::create_dir_all(&group).unwrap();
    let (a, b) = (group.join("a.jsonl"), group.join("b.jsonl"));
    std::fs::write(&a, b"{\"x\":1}\n{\"x\":2}\n{\"torn\":").unwrap();
    std::fs::write(&b, b"{\"y\":1}\n").unwrap();
    let first = run(&state, &group, &[&a, &b]);
    assert_eq!(first[0], (truth(&a), Outcome::Miss));
    let pack = packs(&state).pop().unwrap();
    let good = std::fs::read(&pack).unwrap();
    let mut hits = 0;
    for i in 0..good.len() {
        let mut bad = good.clone();
        bad[i] ^= 0x5a;
        std::fs::write(&pack, &bad).unwrap();
        let got = run(&state, &group, &[&a, &b]);
        assert_eq!(got[0].0, truth(&a), "byte {i} flipped");
        assert_eq!(got[1].0, truth(&b), "byte {i} flipped");
        hits += got.iter().filter(|g| g.1 == Outcome::Hit).count();
    }
    assert!(
        hits > 0,
        "a flip in a part a hit does not read leaves it a hit"
    );
    // The file grows: its torn line completed and a line more.
    let len = std::fs::metadata(&a).unwrap().len();
    for i in 0..good.len() {
        let f = std::fs::OpenOptions::new().write(true).open(&a).unwrap();
        f.set_len(len).unwrap();
        drop(f);
        append(&a, b"1}\n{\"x\":3}\n");
        let mut bad = good.clone();
        bad[i] ^= 0x5a;
        std::fs::write(&pack, &bad).unwrap();
        let got = run(&state, &group, &[&a]);
        assert_eq!(got[0].0, truth(&a), "byte {i} flipped, file grown");
    }
}

/// Two files of one pack: one grows, the other stays a hit; a file removed
/// leaves the pack when it is next rewritten; another build's pack is
/// ignored.
#[test]
fn files_of_one_pack_change_apart() {
    let dir = tempfile::tempdir().unwrap();
    let (state, group) = (dir.path().join("state"), dir.path().join("p"));
    std::fs::create_dir_all(&group).unwrap();
    let (a, b, c) = (group.join("a"), group.join("b"), group.join("c"));
    for f in [&a, &b, &c] {
        std::fs::write(f, b"{\"x\":1}\n").unwrap();
    }
    run(&state, &group, &[&a, &b, &c]);
    append(&a, b"{\"x\":2}\n");
    let got = run(&state, &group, &[&a, &b, &c]);
    let outcomes: Vec<Outcome> = got.iter().map(|g| g.1).collect();
    assert_eq!(outcomes, [Outcome::Grew, Outcome::Hit, Outcome::Hit]);
    assert_eq!(got[0].0, truth(&a));
    assert_eq!(
        got[0].0.first, 0,
        "a grown census starts at the file's start"
    );
    std::fs::remove_file(&c).unwrap();
    append(&b, b"{\"x\":2}\n");
    let got = run(&state, &group, &[&a, &b]);
    let outcomes: Vec<Outcome> = got.iter().map(|g| g.1).collect();
    assert_eq!(outcomes, [Outcome::Hit, Outcome::Grew]);
    let at = packs(&state).pop().unwrap();
    let g = super::ident::path_bytes(&group).into_owned();
    let mut tag = Tag {
        build: env!("CARGO_PKG_VERSION"),
        kind: "toy",
        version: 1,
        group: &g,
    };
    let pack = Pack::load(&at, &tag).unwrap();
    let key = |p: &Path| super::ident::path_bytes(p).into_owned();
    assert!(pack.get(&key(&a)).is_some() && pack.get(&key(&b)).is_some());
    assert!(
        pack.get(&key(&c)).is_none(),
        "a removed file's entry is dropped"
    );
    tag.build = "0.0.0-other";
    assert!(Pack::load(&at, &tag).is_none(), "another build's pack");
}

/// A run that writes a pack sweeps its kind's directory: the per-transcript
/// entries of the store before packs and the packs of gone projects leave,
/// the pack just written stays.
#[test]
fn a_writing_run_sweeps_what_no_run_reads() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let (kept, gone) = (dir.path().join("p"), dir.path().join("q"));
    for g in [&kept, &gone] {
        std::fs::create_dir_all(g).unwrap();
        std::fs::write(g.join("a.jsonl"), b"{\"x\":1}\n").unwrap();
    }
    // A run in another process's past: q's pack written, then q deleted.
    run(&state, &gone, &[&gone.join("a.jsonl")]);
    std::fs::remove_dir_all(&gone).unwrap();
    let old = packs(&state).pop().unwrap();
    let legacy = old.with_file_name("0123456789abcdef.bin");
    std::fs::write(&legacy, b"a pre-pack entry").unwrap();
    // This process swept that directory already; a new process would not
    // have: forget it, and let the mark say it was never swept.
    super::sweep::forget_for_tests(old.parent().unwrap().parent().unwrap());
    let got = run(&state, &kept, &[&kept.join("a.jsonl")]);
    assert_eq!(got[0].1, Outcome::Miss);
    assert!(!legacy.exists(), "a pre-pack entry is swept");
    assert!(!old.exists(), "the pack of a gone project is swept");
    assert_eq!(packs(&state).len(), 1, "the new pack stays");
}
