//! REC-038: a line re-serialised with blanks after its colons and commas (what
//! `json.dumps`, jq or an editor writes) is the same record. Every public
//! transcript is copied twice, as written and re-spaced, and each command must
//! answer the same on both copies: a compact `"key":"value"` byte test anywhere
//! would drop the re-spaced lines' replies, results, spawns or models. A third
//! copy is what Python's `json.dumps` writes by default: re-spaced, and every
//! non-ASCII character `\u`-escaped, which a raw-byte prefilter must still flag.
//! Two more are re-spaced in one half only (a re-serialised file appended to),
//! and one ends every line with `\r\n`, as a git checkout with autocrlf does.

mod common;

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
    Spaced,
    /// Spaced, and non-ASCII `\u`-escaped: Python's `json.dumps` defaults.
    Python,
    /// The first half of each file spaced: a re-serialised file Claude Code
    /// appended to since.
    Head,
    /// The second half spaced: lines another writer appended.
    Tail,
    /// As written, each line ending `\r\n`: a transcript checked out of git
    /// with `core.autocrlf` (the public corpus comes from repositories).
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
        let half = bytes.split(|&b| b == b'\n').count() / 2;
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                out.push(b'\n');
            }
            match form {
                Form::Head if i >= half => out.extend(line),
                Form::Tail if i < half => out.extend(line),
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
    let (compact, spaced) = (tmp.path().join("compact"), tmp.path().join("spaced"));
    let python = tmp.path().join("python");
    let (head, tail) = (tmp.path().join("head"), tmp.path().join("tail"));
    copy_tree(&src, &compact, Form::AsWritten);
    copy_tree(&src, &spaced, Form::Spaced);
    copy_tree(&src, &python, Form::Python);
    copy_tree(&src, &head, Form::Head);
    copy_tree(&src, &tail, Form::Tail);
    let crlf = tmp.path().join("crlf");
    copy_tree(&src, &crlf, Form::Crlf);

    let cases: [&[&str]; 11] = [
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
        // REC-095: non-ASCII literals, which Python's copy holds `\u`-escaped.
        &["search", "→"],
        &["search", "-t", "user.message,agent.message", "—"],
        &["search", "-F", "-s", "✅ "],
    ];
    for args in cases {
        let a = answer(&compact, args);
        assert!(!a.is_empty(), "{args:?} printed nothing");
        let copies = [
            (&spaced, "re-spaced"),
            (&python, "Python-dumped"),
            (&head, "head-spaced"),
            (&tail, "tail-spaced"),
            (&crlf, "CRLF"),
        ];
        for (copy, name) in copies {
            let b = answer(copy, args);
            let only_a: Vec<_> = a.iter().filter(|l| !b.contains(l)).take(2).collect();
            let only_b: Vec<_> = b.iter().filter(|l| !a.contains(l)).take(2).collect();
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
        respace(br#"{"a":"x: \"y, z\"","b":[1,2]}"#, false),
        br#"{"a": "x: \"y, z\"", "b": [1, 2]}"#.to_vec()
    );
    assert_eq!(
        respace("{\"a\":\"é→🚀\"}".as_bytes(), true),
        br#"{"a": "\u00e9\u2192\ud83d\ude80"}"#.to_vec()
    );
}
