//! The invariants the fuzz targets check, shared with `cargo test`
//! (tests/fuzz_regressions.rs replays every input under fuzz/regressions/<target>/
//! through the same function), so a crash found by the fuzzer becomes a regression
//! test by saving its input there.
//!
//! Each function takes the raw fuzz input and panics when an invariant fails.
#![allow(dead_code)]

use std::path::{Component, Path, PathBuf};

use csift::address::{self, Spec};
use csift::classify::{classify, narration, FileIndex};
use csift::discovery::{encode, home, target};
use csift::loss::lite;
use csift::loss::skim::{skim_at, Top};
use csift::output::sanitize;
use csift::record::{parse_line, Parsed};
use csift::scan::find::{Caseless, Find};
use csift::scan::{self, Lines};

/// The line framer, record parser, file index and classifier: lines tile the
/// buffer with consecutive numbers, every line is a record or a named
/// malformation, turn numbers never go backwards, and cleaned unit text carries no
/// terminal control character.
pub fn records(data: &[u8]) {
    let lane = data.first().is_some_and(|b| b & 1 == 1);
    let idx = FileIndex::build(data, lane);
    let mut expect_no = 1;
    let mut expect_off = 0;
    let mut seen_turns = std::collections::BTreeSet::new();
    for line in Lines::new(data) {
        assert_eq!(line.no, expect_no);
        assert_eq!(line.offset, expect_off);
        let end = line.offset + line.bytes.len();
        assert!(end <= data.len());
        assert_eq!(&data[line.offset..end], line.bytes);
        expect_off = match data[line.offset..].iter().position(|&b| b == b'\n') {
            Some(i) => line.offset + i + 1,
            None => data.len(),
        };
        assert_eq!(line.terminated, data[..expect_off].ends_with(b"\n"));
        expect_no += 1;
        // A new turn number is above every one before it; a lower number is a
        // turn seen before, reopened by a resume's replayed prompt (REC-091).
        if let Some(t) = idx.turn(line.no) {
            let max = seen_turns.last().copied();
            assert!(
                seen_turns.contains(&t) || max.is_none_or(|m| t > m),
                "turn {t} at line {} is new but not above turn {max:?}",
                line.no
            );
            seen_turns.insert(t);
        }
        audit_skims_agree(data, line.offset);
        match parse_line(&line) {
            Parsed::Record(r) => {
                let mut units = Vec::new();
                classify(&r, line.no, &idx, &mut units);
                for u in &units {
                    let c = sanitize::clean(&u.text);
                    assert!(
                        !c.chars()
                            .any(|ch| ch.is_control() && ch != '\n' && ch != '\t'),
                        "control character survives clean()"
                    );
                    assert!(!sanitize::one_line(&u.text).contains('\n'));
                }
            }
            Parsed::Malformed(m) => {
                assert_eq!(m.line, line.no);
                assert!(!m.kind.name().is_empty());
            }
        }
    }
    assert_eq!(expect_no - 1, scan::lines::count(data));
    assert!(idx.turns() <= expect_no);
}

/// The narration decoder (NAR-002…008): `is_narration` agrees with the decoded
/// tag, on the input as a signature and on the input base64-encoded (so the
/// protobuf walk sees arbitrary messages too).
pub fn narration(data: &[u8]) {
    let s = String::from_utf8_lossy(data);
    let tag = narration::signature_tag(&s);
    if narration::is_narration(&s) {
        assert_eq!(tag.as_deref(), Some(&b"narration"[..]));
    }
    if let Some(raw) = narration::base64_decode(&s) {
        assert!(raw.len() <= s.len());
    }
    // Whitespace-free base64 of any bytes: the cheap gate must never lose a
    // narration tag (NAR-007), at whatever offset the tag's bytes sit. The
    // expectation used to rebuild the gate from the same three needles, so a
    // wrong needle list passed; now it is the decoded tag alone.
    let b64 = base64(data);
    let tag = narration::signature_tag(&b64);
    assert_eq!(
        narration::is_narration(&b64),
        tag.as_deref() == Some(&b"narration"[..])
    );
    assert_eq!(narration::base64_decode(&b64).as_deref(), Some(data));
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The caseless word finder (`scan::find::Caseless`, SIMD with an unsafe load):
/// byte 0 chooses the word's length (2..=13), the next bytes its letters
/// (printable ASCII), the rest is the haystack. On any haystack it finds the
/// matches the case-insensitive regex of the word finds, at the same places.
pub fn caseless(data: &[u8]) {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let n = usize::from(n % 12) + 2;
    if rest.len() < n {
        return;
    }
    let (word, hay) = rest.split_at(n);
    let printable = |b: u8| {
        if (0x20..0x7f).contains(&b) {
            b
        } else {
            b' ' + b % 95
        }
    };
    let word: String = word.iter().map(|&b| char::from(printable(b))).collect();
    let Some(finder) = Caseless::new(word.as_bytes()) else {
        return;
    };
    let re = regex::bytes::RegexBuilder::new(&regex::escape(&word))
        .case_insensitive(true)
        .build()
        .unwrap();
    let all = |f: &dyn Fn(usize) -> Option<(usize, usize)>| {
        let mut out = Vec::new();
        let mut at = 0;
        while let Some(m) = f(at) {
            assert!(
                m.0 >= at && m.0 < m.1 && m.1 <= hay.len(),
                "{m:?} from {at}"
            );
            out.push(m);
            at = m.1;
        }
        out
    };
    let got = all(&|at| finder.find_at(hay, at));
    let want = all(&|at| Find::find_at(&re, hay, at));
    assert_eq!(got, want, "{word:?}");
    assert_eq!(finder.is_match(hay), re.is_match(hay));
}

/// `show --line/--turn`: bytes 0..4 choose the extent (`lo` 0 or 1, `hi` up to
/// 65535 or 2^32-1), the rest is newline-separated values. A resolved range lies
/// inside `lo..=hi`; a single address names exactly one position.
pub fn ranges(data: &[u8]) {
    if data.len() < 4 {
        return;
    }
    let lo = usize::from(data[0] & 1);
    let hi = usize::from(u16::from_le_bytes([data[1], data[2]]));
    let hi = if data[3] & 0x80 != 0 {
        u32::MAX as usize
    } else {
        hi
    };
    let text = String::from_utf8_lossy(&data[4..]);
    let values: Vec<String> = text.split('\n').map(str::to_string).collect();
    let Ok(items) = address::parse(&values) else {
        return;
    };
    for item in &items {
        assert!(!item.token.is_empty());
        if let Some(r) = address::resolve(item, lo, hi) {
            assert!(
                *r.start() >= lo && *r.end() <= hi && r.start() <= r.end(),
                "{item:?} {lo} {hi} -> {r:?}"
            );
            if matches!(item.spec, Spec::One(_)) {
                assert_eq!(r.start(), r.end());
            }
        }
    }
}

/// Target resolution over a home the input builds in a fresh temp dir, and the
/// cwd encoder on the input itself.
///
/// Input: text lines. `+PATH[\tCONTENT]` creates a file (`\n` in CONTENT is a
/// newline), `/PATH` a directory, `~PATH\tTO` a symlink (loops and dangling links
/// welcome); `$E` in a line is the encoded temp root, so a real-path target can hit
/// a project. Every other line is a TARGET. Paths never hold `..` and are relative
/// to the temp root (made the cwd for the call), so the real filesystem is never
/// walked. Selected transcripts are never listed twice.
pub fn target(data: &[u8]) {
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
            }
        }
    }
    // libFuzzer writes its corpus by relative path: restore the cwd.
    let _ = std::env::set_current_dir(back);
}

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

/// audit's line skim reads the eaten-text view of a message in its own walk: it
/// must find what the plain skim finds, the view the separate message skim
/// (`lite::skim_eaten`) gives, and, where it answers, what serde's view gives.
fn audit_skims_agree(data: &[u8], at: usize) {
    let (plain, end) = skim_at(data, at, false);
    let (read, end2) = skim_at(data, at, true);
    assert_eq!(end, end2);
    match (plain, read) {
        (Ok(p), Ok(r)) => {
            assert_eq!(format!("{:?}", Top { eaten: None, ..r }), format!("{p:?}"));
            if let (Some((id, kinds)), Some(msg)) = (r.eaten, p.message) {
                let got = lite::eaten_id(id).map(|id| (id, kinds));
                assert_eq!(format!("{got:?}"), format!("{:?}", lite::skim_eaten(msg)));
                // Where both answer, they answer alike. The skim checks structure,
                // not string contents, so it also reads a message serde rejects
                // for a raw control character or a bad escape.
                if let (Some((id, kinds)), Some(m)) = (got, lite::LiteMessage::parse(msg)) {
                    assert_eq!(id, m.id());
                    assert_eq!(
                        format!("{kinds:?}"),
                        format!("{:?}", m.blocks().map(lite::kinds))
                    );
                }
            }
        }
        (Err(a), Err(b)) => assert_eq!(a, b),
        (a, b) => panic!("the skims disagree: {a:?} / {b:?}"),
    }
}

/// The dangerous-rm classifier (BASH-015…017, WIN-011) on arbitrary command text:
/// it ends, agrees with its boolean form, names a target that is a bare `$VAR/…`
/// operand copied from the command, says nothing without an `rm` word, never
/// reads PowerShell, and keeps its verdict when a clause is appended.
pub fn danger(data: &[u8]) {
    use csift::bash::{self, Verdict};
    let cmd = String::from_utf8_lossy(data);
    let v = bash::dangerous_rm(&cmd);
    assert_eq!(bash::is_dangerous_rm(&cmd), v.escalates());
    assert_eq!(bash::for_tool("PowerShell", &cmd), None);
    assert_eq!(bash::for_tool("Bash", &cmd).as_ref(), Some(&v));
    if !cmd.contains("rm") {
        assert_eq!(v, Verdict::Clear);
    }
    if let Verdict::DangerousRm { command, target } = &v {
        assert!(cmd.contains('$') && cmd.contains(command));
        assert!(cmd.contains(target.as_str()), "{target:?} not in {cmd:?}");
        assert!(target.starts_with('$') || target.starts_with("\"$"));
        assert!(target.contains('/'));
    }
    if let Verdict::TooManySubstitutions { count } = v {
        assert!(count > bash::danger::MAX_SUBSTITUTIONS);
    }
    // A trailing backslash (before an optional CR) would make the appended
    // newline a line continuation, `\\\r?\n`: not a new clause.
    if !cmd.trim_end_matches('\r').ends_with('\\') {
        assert_eq!(bash::dangerous_rm(&format!("{cmd}\n:")), v, "{cmd:?}");
    }
}

/// The record parse's fast reader against serde_json
/// (`csift::record::fast::agrees_with_serde`): the same record wherever it
/// reads one, a decline wherever serde refuses, the same grammar verdict.
/// Input that is not UTF-8 is read as the lines it would never reach.
pub fn fastjson(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = csift::record::fast::agrees_with_serde(text) {
        panic!("{e}: {text:?}");
    }
}
