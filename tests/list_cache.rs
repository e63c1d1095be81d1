//! The census cache under `list` (issue 37): a file list reads whole keeps
//! its row in csift's state directory, and the output with the cache and
//! with `--no-cache` is byte-identical on the sample home, the public corpus
//! and a hostile home, through a first run, an unchanged run, an append (read
//! whole again: a row does not fold), a torn and then completed tail, a
//! truncation, a rename-replacement, an mtime change, corrupt and foreign
//! packs; an unchanged home reads no transcript byte beyond its entries'
//! edges; a row read from windows is kept apart from a whole file's.

use crate::census_cache::{copy_home, hostile_home, largest, through_changes, Suite};
use crate::common;

use std::path::Path;

/// `list` in each form; the first reads every file whole (`--full`), so
/// every transcript has an entry and the cache's counts cover them all.
const LIST: Suite = Suite {
    cmds: &[
        &["list", "--full", "--format", "json"],
        &["list"],
        &["list", "--format", "json"],
        &["list", "--full"],
        &[
            "list",
            "-m",
            "2",
            "--since",
            "2020-01-01",
            "--format",
            "json",
        ],
    ],
    entries: "/list-v1/",
    also: "/list-v1/",
    whole_answer: true,
    grows: false,
    every_lane: false,
};

#[test]
fn list_cache_on_the_sample_home_is_exact_through_changes() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home");
    let home = copy_home(&sample);
    let file = largest(home.path());
    through_changes(home.path(), &file, &LIST);
}

#[test]
fn list_cache_on_the_public_corpus_is_exact_through_changes() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let home = copy_home(&corpus);
    // The largest transcript (3.2 MB) is read as windows by plain `list`
    // and whole, through the cache, by `--full`: both forms are compared.
    let file = largest(home.path());
    through_changes(home.path(), &file, &LIST);
}

#[test]
fn list_cache_on_a_hostile_home_is_exact_through_changes() {
    let (home, file) = hostile_home();
    through_changes(home.path(), &file, &LIST);
}

fn report(home: &Path, state: &Path, args: &[&str]) -> String {
    let out = common::csift()
        .env("XDG_STATE_HOME", state)
        .env("CSIFT_CACHE_STATS", "1")
        .args(args)
        .arg("--claude-home")
        .arg(home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    err.lines()
        .find(|l| l.starts_with("csift: cache: "))
        .unwrap_or_default()
        .to_owned()
}

/// Plain `list` keeps every row: a file it reads whole as a census of its
/// bytes, a larger one from its head and tail windows (never read whole
/// for the cache's sake: the bytes scanned are the small files'). The two
/// are kept apart: `--full` reads the larger ones whole and never takes a
/// windowed row for its own.
#[test]
fn plain_list_keeps_windowed_rows_apart() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    // The rows' files and sizes, as list reads them whole.
    let out = common::csift()
        .args([
            "list",
            "--full",
            "--no-cache",
            "--format",
            "json",
            "--claude-home",
        ])
        .arg(&corpus)
        .output()
        .unwrap();
    let sizes: Vec<u64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] != "summary")
        .map(|v| v["bytes"].as_u64().unwrap())
        .collect();
    let rows = sizes.len();
    let small = sizes.iter().filter(|n| **n <= 256 * 1024).count();
    let small_bytes: u64 = sizes.iter().filter(|n| **n <= 256 * 1024).sum();
    let large_bytes: u64 = sizes.iter().filter(|n| **n > 256 * 1024).sum();
    assert!(small > 0 && small < rows, "{small} of {rows}");
    let state = tempfile::tempdir().unwrap();
    let first = report(&corpus, state.path(), &["list"]);
    assert!(
        first.contains(&format!(
            "0 hit, 0 grew, {rows} miss, 0 off; {small_bytes} bytes"
        )),
        "{first}"
    );
    let second = report(&corpus, state.path(), &["list"]);
    assert!(
        second.contains(&format!("{rows} hit, 0 grew, 0 miss, 0 off; 0 bytes")),
        "{second}"
    );
    let full = report(&corpus, state.path(), &["list", "--full"]);
    let large = rows - small;
    assert!(
        full.contains(&format!(
            "{small} hit, 0 grew, {large} miss, 0 off; {large_bytes} bytes"
        )),
        "{full}"
    );
    let off = report(&corpus, state.path(), &["list", "--no-cache"]);
    assert!(off.contains("0 hit, 0 grew, 0 miss, 0 off"), "{off}");
}
