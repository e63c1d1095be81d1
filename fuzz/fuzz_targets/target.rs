//! Target resolution (`discovery::target::resolve`) over a Claude home the input
//! builds in a fresh temp dir, and the cwd encoder (`discovery::encode`) on the
//! input itself.
//!
//! Input: text lines. `+PATH[\tCONTENT]` creates a file, `/PATH` a directory,
//! `~PATH\tTO` a symlink (loops and dangling links welcome); `$E` in a path is the
//! encoded temp root, so a real-path target can hit a project. Every other line is
//! a TARGET. Paths never contain `..` and are relative to the temp root (which is
//! the process cwd), so the fuzzer never walks the real filesystem.
#![no_main]

use std::path::{Component, Path, PathBuf};

use csift::discovery::{encode, home, target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    check_encode(&text);
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let root = dir.path().to_path_buf();
    let enc = encode::encode(&root.to_string_lossy());
    let Ok(back) = std::env::current_dir() else {
        return;
    };
    if std::env::set_current_dir(&root).is_err() {
        return;
    }
    let mut targets = Vec::new();
    let _ = std::fs::create_dir_all(root.join("projects"));
    for line in text.lines().take(48) {
        let line = line.replace("$E", &enc);
        if let Some(rest) = line.strip_prefix('+') {
            let (p, body) = rest.split_once('\t').unwrap_or((rest, ""));
            if let Some(p) = confined(&root, p) {
                if let Some(parent) = p.parent() {
                    let _ = std::fs::create_dir_all(parent);
                }
                let _ = std::fs::write(p, body.replace("\\n", "\n"));
            }
        } else if let Some(rest) = line.strip_prefix('/') {
            if let Some(p) = confined(&root, rest) {
                let _ = std::fs::create_dir_all(p);
            }
        } else if let Some(rest) = line.strip_prefix('~') {
            let (p, to) = rest.split_once('\t').unwrap_or((rest, rest));
            if let (Some(p), Some(_)) = (confined(&root, p), confined(&root, to)) {
                if let Some(parent) = p.parent() {
                    let _ = std::fs::create_dir_all(parent);
                }
                let _ = std::os::unix::fs::symlink(to, p);
            }
        } else if !line.contains("..") && !line.starts_with('/') && !line.contains('\0') {
            targets.push(line);
        }
    }
    let h = home::ClaudeHome {
        root: root.clone(),
        source: home::HomeSource::Flag,
    };
    for lanes in [true, false] {
        if let Ok(sel) = target::resolve(&h, &targets, lanes) {
            let mut seen = std::collections::BTreeSet::new();
            for t in &sel.transcripts {
                assert!(
                    seen.insert(t.path.clone()),
                    "{} selected twice",
                    t.path.display()
                );
                assert!(lanes || !t.is_lane() || targets.iter().any(|x| !x.is_empty()));
            }
        }
    }
    // libFuzzer writes its corpus by relative path: restore the cwd.
    let _ = std::env::set_current_dir(back);
});

/// `root/p` when `p` is a plain relative path with no `..`.
fn confined(root: &Path, p: &str) -> Option<PathBuf> {
    let rel = Path::new(p);
    let ok = !p.is_empty()
        && !p.contains('\0')
        && rel.components().all(|c| matches!(c, Component::Normal(_)));
    ok.then(|| root.join(rel))
}

fn check_encode(s: &str) {
    let full = encode::encode_full(s);
    assert!(full.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
    let enc = encode::encode(s);
    match encode::capped_prefix(s) {
        None => assert_eq!(enc, full),
        Some(prefix) => {
            assert_eq!(prefix.len(), encode::MAX_ENCODED + 1);
            assert!(enc.starts_with(&prefix));
            assert_eq!(&enc[prefix.len()..], encode::hash36(s));
        }
    }
}
