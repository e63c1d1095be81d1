//! REC-038: a line re-serialised with blanks after its colons and commas (what
//! `json.dumps`, jq or an editor writes) is the same record. Every public
//! transcript is copied three ways, and each command must answer on each copy
//! as on the transcripts as written: a compact `"key":"value"` byte test
//! anywhere would drop the re-spaced lines' replies, results, spawns or models.
//! - Python: what `json.dumps` writes by default, re-spaced with every
//!   non-ASCII character `\u`-escaped, which a raw-byte prefilter must still
//!   flag (re-spacing alone is a subset of it).
//! - Mixed: every other line re-spaced, so both a file's head and its tail hold
//!   both forms (a re-serialised file appended to, or appended to by another
//!   writer): no per-file guess made from a window can hold.
//! - CRLF: as written, each line ending `\r\n`, as a git checkout with
//!   autocrlf gives (the public corpus comes from repositories).

use crate::common;

use std::path::Path;

use common::{corpus, csift, json_lines};
use serde_json::Value;

/// `line` with a blank after every colon and comma outside strings, the way
/// Python's `json.dumps` spaces its output; with `ascii`, every non-ASCII
/// character in a string also written `\uXXXX`, as its default `ensure_ascii`
/// does (a surrogate pair past U+FFFF).
fn respace(line: &[u8], ascii: bool) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(line) else {
        return line.to_vec();
    };
    let mut out = String::with_capacity(line.len() + line.len() / 8);
    let (mut in_str, mut escaped) = (false, false);
    for c in text.chars() {
        if in_str && ascii && !c.is_ascii() {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
            continue;
        }
        out.push(c);
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
        } else if c == '"' {
            in_str = true;
        } else if c == ':' || c == ',' {
            out.push(' ');
        }
    }
    out.into_bytes()
}

#[derive(Clone, Copy, PartialEq)]
enum Form {
    AsWritten,
    /// Spaced, and non-ASCII `\u`-escaped: Python's `json.dumps` defaults.
    Python,
    /// Every other line spaced (the odd ones), the rest as written.
    Mixed,
    /// As written, each line ending `\r\n`.
    Crlf,
}

/// Copy the tree at `from` to `to`, re-spacing every line of every `.jsonl`.
fn copy_tree(from: &Path, to: &Path, form: Form) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst, form);
            continue;
        }
        let bytes = std::fs::read(&src).unwrap();
        if form == Form::AsWritten || src.extension().is_none_or(|x| x != "jsonl") {
            std::fs::write(&dst, bytes).unwrap();
            continue;
        }
        let mut out = Vec::with_capacity(bytes.len() * 9 / 8);
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                out.push(b'\n');
            }
            match form {
                Form::Mixed if i % 2 == 0 => out.extend(line),
                Form::Crlf if !line.is_empty() => out.extend([line, b"\r"].concat()),
                Form::Crlf => {}
                _ => out.extend(respace(line, form == Form::Python)),
            }
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
    let compact = tmp.path().join("compact");
    let (python, mixed) = (tmp.path().join("python"), tmp.path().join("mixed"));
    let crlf = tmp.path().join("crlf");
    copy_tree(&src, &compact, Form::AsWritten);
    copy_tree(&src, &python, Form::Python);
    copy_tree(&src, &mixed, Form::Mixed);
    copy_tree(&src, &crlf, Form::Crlf);

    let cases: [&[&str]; 11] = [
        &["list", "--full"],
        &["search", "-t", "user.message", "."],
        // Spawns with their returns, printed whole (every call and result
        // printed whole is 112 MB of JSON per copy: the counts below pair them).
        &[
            "search",
            "-t",
            "agent.tool.use",
            "--tool",
            "Task,Agent",
            ".",
        ],
        &["search", "--count-by", "label", "."],
        &[
            "search",
            "--count-by",
            "tool",
            "-t",
            "agent.tool.use,agent.tool.result",
            ".",
        ],
        &["stats"],
        &["audit"],
        &["agents"],
        // REC-095: non-ASCII literals, which Python's copy holds `\u`-escaped.
        &["search", "→"],
        &["search", "-t", "user.message,agent.message", "—"],
        &["search", "-F", "-s", "✅ "],
    ];
    for args in cases {
        let a = answer(&compact, args);
        assert!(!a.is_empty(), "{args:?} printed nothing");
        let copies = [
            (&python, "Python-dumped"),
            (&mixed, "half-spaced"),
            (&crlf, "CRLF"),
        ];
        for (copy, name) in copies {
            let b = answer(copy, args);
            // MISC-014: a re-serialised line (`"role": "user"`) is the same record.
            // Both sorted: a merge walk finds what either side lacks.
            let (only_a, only_b) = sorted_difference(&a, &b);
            assert!(
                only_a.is_empty() && only_b.is_empty(),
                "{args:?} differs on the {name} copy:\n  as written: {only_a:?}\n  {name}: {only_b:?}"
            );
        }
    }

    // Not vacuous: the copies differ, and what the compact tests used to drop
    // (replies, results, spawn returns, models) is in the answers compared.
    let size = |p: &Path| std::fs::metadata(p).unwrap().len();
    let one = common::transcripts(&compact)
        .into_iter()
        .max_by_key(|p| size(p))
        .unwrap();
    let twin = python.join(one.strip_prefix(&compact).unwrap());
    assert!(size(&twin) > size(&one));
    let half = mixed.join(one.strip_prefix(&compact).unwrap());
    assert!(size(&half) > size(&one) && size(&half) < size(&twin));
    let prompts = answer(&python, &["search", "-t", "user.message", "."]);
    let replied = prompts
        .iter()
        .filter(|l| l.contains(r#""label":"agent.message""#))
        .count();
    assert!(replied >= 100, "{replied} prompts with a reply");
    let labels = answer(&mixed, &["search", "--count-by", "label", "."]).join("\n");
    assert!(labels.contains("agent.communication.inbox"), "{labels}");
    let rows = answer(&python, &["list"]);
    assert!(
        rows.iter()
            .filter(|r| r.contains(r#""models":["claude"#))
            .count()
            >= 40
    );
}

/// The first two lines only in `a` and only in `b`, both sorted ascending.
fn sorted_difference<'a>(a: &'a [String], b: &'a [String]) -> (Vec<&'a String>, Vec<&'a String>) {
    let (mut i, mut j) = (0, 0);
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                only_a.push(x);
                i += 1;
            }
            (Some(x), None) => {
                only_a.push(x);
                i += 1;
            }
            (_, Some(y)) => {
                only_b.push(y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    only_a.truncate(2);
    only_b.truncate(2);
    (only_a, only_b)
}

#[test]
fn sorted_difference_finds_each_side() {
    let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let (a, b) = (v(&["a", "b", "b", "d"]), v(&["b", "c", "d"]));
    let (x, y) = sorted_difference(&a, &b);
    assert_eq!(x, [&"a".to_string(), &"b".to_string()]);
    assert_eq!(y, [&"c".to_string()]);
}

#[test]
fn respace_spaces_only_outside_strings() {
    assert_eq!(
        respace(br#"{"a":"x: \"y, z\"","b":[1,2]}"#, false),
        br#"{"a": "x: \"y, z\"", "b": [1, 2]}"#.to_vec()
    );
    assert_eq!(
        respace("{\"a\":\"é→🚀\"}".as_bytes(), true),
        br#"{"a": "\u00e9\u2192\ud83d\ude80"}"#.to_vec()
    );
}
