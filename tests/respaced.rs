//! REC-038: a line re-serialised with blanks after its colons and commas (what
//! `json.dumps`, jq or an editor writes) is the same record. Every public
//! transcript is copied twice, as written and re-spaced, and each command must
//! answer the same on both copies: a compact `"key":"value"` byte test anywhere
//! would drop the re-spaced lines' replies, results, spawns or models.

mod common;

use std::path::Path;

use common::{corpus, csift, json_lines};
use serde_json::Value;

/// `line` with a blank after every colon and comma outside strings, the way
/// Python's `json.dumps` spaces its output.
fn respace(line: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len() + line.len() / 8);
    let (mut in_str, mut escaped) = (false, false);
    for &c in line {
        out.push(c);
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
        } else if c == b'"' {
            in_str = true;
        } else if c == b':' || c == b',' {
            out.push(b' ');
        }
    }
    out
}

/// Copy the tree at `from` to `to`, re-spacing every line of every `.jsonl`.
fn copy_tree(from: &Path, to: &Path, spaced: bool) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst, spaced);
            continue;
        }
        let bytes = std::fs::read(&src).unwrap();
        if !spaced || src.extension().is_none_or(|x| x != "jsonl") {
            std::fs::write(&dst, bytes).unwrap();
            continue;
        }
        let mut out = Vec::with_capacity(bytes.len() * 9 / 8);
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                out.push(b'\n');
            }
            out.extend(respace(line));
        }
        std::fs::write(&dst, out).unwrap();
    }
}

/// The command's JSON lines on `home`, with the home's path, byte sizes and
/// offsets (re-spacing moves them) and timings taken out, sorted (a file without timestamps sorts by its mtime).
fn answer(home: &Path, args: &[&str]) -> Vec<String> {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("bytes");
                m.remove("elapsed_ms");
                m.remove("offset");
                // A malformed line's detail names its byte column.
                m.remove("detail");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let out = csift()
        .args(args)
        .args(["--format", "json", "--claude-home"])
        .arg(home)
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c < 2),
        "{args:?}: {out:?}"
    );
    let prefix = home.display().to_string();
    let mut lines: Vec<String> = json_lines(&out.stdout)
        .into_iter()
        .map(|mut v| {
            strip(&mut v);
            v.to_string().replace(&prefix, "HOME")
        })
        .collect();
    lines.sort();
    lines
}

#[test]
fn every_command_answers_the_same_on_a_respaced_copy_rec_038() {
    let Some(src) = corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (compact, spaced) = (tmp.path().join("compact"), tmp.path().join("spaced"));
    copy_tree(&src, &compact, false);
    copy_tree(&src, &spaced, true);

    let cases: [&[&str]; 8] = [
        &["list", "--full"],
        &["search", "-t", "user.message", "."],
        &["search", "-t", "agent.tool.use,agent.tool.result", "."],
        &["search", "--count-by", "label", "."],
        &[
            "search",
            "--count-by",
            "tool",
            "-t",
            "agent.tool.result",
            ".",
        ],
        &["stats"],
        &["audit"],
        &["agents"],
    ];
    for args in cases {
        let (a, b) = (answer(&compact, args), answer(&spaced, args));
        assert!(!a.is_empty(), "{args:?} printed nothing");
        let only_a: Vec<_> = a.iter().filter(|l| !b.contains(l)).take(2).collect();
        let only_b: Vec<_> = b.iter().filter(|l| !a.contains(l)).take(2).collect();
        assert!(
            only_a.is_empty() && only_b.is_empty(),
            "{args:?} differs on the re-spaced copy:\n  as written: {only_a:?}\n  re-spaced: {only_b:?}"
        );
    }

    // Not vacuous: the copies differ, and what the compact tests used to drop
    // (replies, results, spawn returns, models) is in the answers compared.
    let size = |p: &Path| std::fs::metadata(p).unwrap().len();
    let one = common::transcripts(&compact)
        .into_iter()
        .max_by_key(|p| size(p))
        .unwrap();
    let twin = spaced.join(one.strip_prefix(&compact).unwrap());
    assert!(size(&twin) > size(&one));
    let prompts = answer(&spaced, &["search", "-t", "user.message", "."]);
    let replied = prompts
        .iter()
        .filter(|l| l.contains(r#""label":"agent.message""#))
        .count();
    assert!(replied >= 100, "{replied} prompts with a reply");
    let labels = answer(&spaced, &["search", "--count-by", "label", "."]).join("\n");
    assert!(labels.contains("agent.communication.inbox"), "{labels}");
    let rows = answer(&spaced, &["list"]);
    assert!(
        rows.iter()
            .filter(|r| r.contains(r#""models":["claude"#))
            .count()
            >= 40
    );
}

#[test]
fn respace_spaces_only_outside_strings() {
    assert_eq!(
        respace(br#"{"a":"x: \"y, z\"","b":[1,2]}"#),
        br#"{"a": "x: \"y, z\"", "b": [1, 2]}"#.to_vec()
    );
}
