//! The sweep removes only what no run reads again, and only csift's own
//! files: older versions of the kind, pre-pack entries, abandoned temporary
//! files and packs of groups that are gone.

use std::path::Path;
use std::time::{Duration, SystemTime};

use super::{due, sweep, Swept, MARK};
use crate::cache::ident::path_bytes;
use crate::cache::pack::{self, Tag};

fn pack_for(at: &Path, group: &Path) {
    let g = path_bytes(group).into_owned();
    let tag = Tag {
        build: env!("CARGO_PKG_VERSION"),
        kind: "toy",
        version: 2,
        group: &g,
    };
    pack::write(at, &pack::encode(&tag, &[]));
}

fn aged(path: &Path, age: Duration) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - age).unwrap();
}

#[cfg(unix)]
#[test]
fn a_sweep_removes_what_no_run_reads_and_keeps_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("state/cache");
    let dir = root.join("toy-v2");
    let sub = dir.join("ab");
    std::fs::create_dir_all(&sub).unwrap();
    let project = tmp.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    // Other versions and kinds beside it.
    for d in [
        "toy-v1/cd",
        "toy-v1-quiet/cd",
        "toy-v2-quiet/cd",
        "toy-v3/cd",
        "toyx-v1/cd",
        "toy-own-v1/cd",
        "other-v1/cd",
    ] {
        std::fs::create_dir_all(root.join(d)).unwrap();
        std::fs::write(root.join(d).join("e.pack"), b"x").unwrap();
    }
    // A link named like an old version, pointing outside the state: never
    // followed.
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("keep"), b"mine").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("toy-v0")).unwrap();
    // The kind's own directory.
    std::fs::write(sub.join("0123.bin"), b"old entry").unwrap();
    std::fs::write(sub.join("a.1.2.0.tmp"), b"torn").unwrap();
    aged(&sub.join("a.1.2.0.tmp"), Duration::from_secs(2 * 3600));
    std::fs::write(sub.join("b.1.2.0.tmp"), b"being written").unwrap();
    pack_for(&sub.join("live.pack"), &project);
    pack_for(&sub.join("gone.pack"), &tmp.path().join("deleted-project"));
    std::fs::write(sub.join("junk.pack"), b"not a pack").unwrap();
    std::fs::write(sub.join("notes.txt"), b"not ours to judge").unwrap();

    let got = sweep(&dir, "toy", 2, SystemTime::now());
    assert_eq!(
        got,
        Swept {
            versions: 2,
            files: 3
        }
    );
    assert!(!root.join("toy-v1").exists(), "an older version goes");
    assert!(
        !root.join("toy-v1-quiet").exists(),
        "with its side directory"
    );
    // The current version's side directory, a newer version, another kind
    // and another variant (swept by its own runs) stay.
    for keep in [
        "toy-v2-quiet",
        "toy-v3",
        "toyx-v1",
        "toy-own-v1",
        "other-v1",
        "toy-v0",
    ] {
        assert!(root.join(keep).exists(), "{keep} stays");
    }
    assert_eq!(std::fs::read(outside.join("keep")).unwrap(), b"mine");
    let left: Vec<String> = {
        let mut v: Vec<String> = std::fs::read_dir(&sub)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    };
    assert_eq!(left, ["b.1.2.0.tmp", "junk.pack", "live.pack", "notes.txt"]);
    assert!(dir.join(MARK).is_file());
}

#[test]
fn a_sweep_is_due_daily_and_after_the_clock_goes_back() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("toy-v2");
    std::fs::create_dir_all(&dir).unwrap();
    let now = SystemTime::now();
    assert!(due(&dir, now), "never swept");
    sweep(&dir, "toy", 2, now);
    assert!(!due(&dir, now + Duration::from_secs(3600)));
    assert!(due(&dir, now + Duration::from_secs(25 * 3600)));
    assert!(
        due(&dir, now - Duration::from_secs(3600)),
        "a mark from the future does not stop the sweeps"
    );
}
