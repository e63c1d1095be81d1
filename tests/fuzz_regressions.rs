//! Fuzz regressions: every input saved under fuzz/regressions/<target>/ is
//! replayed through the same invariant checks the fuzz targets run
//! (fuzz/checks.rs). A crash the fuzzer finds becomes a regression test by
//! copying its input from fuzz/artifacts/<target>/ into that folder.
//! With CSIFT_FUZZ_REPLAY=1 the local fuzz corpora (fuzz/corpus/<target>/, not
//! committed) are replayed too.

use crate::checks;
use crate::common;

use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut dirs = vec![root.join("regressions").join(target)];
    if std::env::var("CSIFT_FUZZ_REPLAY").is_ok_and(|v| v == "1") {
        dirs.push(root.join("corpus").join(target));
    }
    let mut n = 0;
    for dir in dirs {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let data = std::fs::read(e.path()).unwrap();
            let r = std::panic::catch_unwind(|| check(&data));
            assert!(
                r.is_ok(),
                "{target}: {} fails its invariants",
                e.path().display()
            );
            n += 1;
        }
    }
    assert!(n > 0, "no regression inputs for {target}");
}

#[test]
fn records_regressions() {
    replay("records", checks::records);
}

#[test]
fn danger_regressions() {
    replay("danger", checks::danger);
}

#[test]
fn narration_regressions() {
    replay("narration", checks::narration);
}

#[test]
fn fastjson_regressions() {
    replay("fastjson", checks::fastjson);
}

#[test]
fn caseless_regressions() {
    replay("caseless", checks::caseless);
}

#[test]
fn ranges_regressions() {
    replay("ranges", checks::ranges);
}

/// The target check changes the process cwd while it runs; it is the only test
/// in this binary that does, and the others never read the cwd.
#[test]
fn target_regressions() {
    replay("target", checks::target);
}

/// The record checks over real transcripts: the sample home and the public
/// corpus (its glued line, its eaten-text groups, every real record shape).
#[test]
fn real_transcripts_pass_the_record_checks() {
    let mut homes = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home")];
    homes.extend(common::corpus());
    let mut files = 0;
    for home in homes {
        for f in common::transcripts(&home) {
            checks::records(&std::fs::read(&f).unwrap());
            files += 1;
        }
    }
    assert!(files > 10, "{files} transcripts");
}

/// Hand-written edge cases beside the saved inputs.
#[test]
fn edge_inputs() {
    for data in [
        &b""[..],
        b"\n",
        b"\r\n\r\n",
        b"{",
        b"{}{}",
        b"\xff\xfe\x00{\"type\":\"user\"}",
        b"{\"type\":\"user\",\"isSidechain\":true,\"message\":{\"role\":\"user\",\"content\":[]}}",
    ] {
        checks::records(data);
        checks::narration(data);
        let mut r = vec![1, 10, 0, 0];
        r.extend_from_slice(data);
        checks::ranges(&r);
    }
}
