//! `csift recover`: round trips built from real-shaped records (shapes copied
//! from the public corpus: the Write/Edit/Read echoes of REC-042…086), exact
//! gaps, backup trust, bash-aware evidence, the output directory's guards.

use serde_json::{json, Value};

use crate::common::{json_lines, Home, Session};

const CWD: &str = "/home/ana/app";
const FILE: &str = "/home/ana/app/src/lib.rs";

/// A structuredPatch as Claude Code writes it (REC-062: five keys per
/// hunk): one hunk over the changed lines (no context), tabs shown as two
/// spaces (the display diff).
fn patch(before: &str, after: &str) -> Value {
    let a: Vec<&str> = before.split('\n').collect();
    let b: Vec<&str> = after.split('\n').collect();
    let pre = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let old = &a[pre..a.len() - suf];
    let new = &b[pre..b.len() - suf];
    let conv = |s: &str| s.replace('\t', "  ");
    let mut lines: Vec<String> = old.iter().map(|l| format!("-{}", conv(l))).collect();
    lines.extend(new.iter().map(|l| format!("+{}", conv(l))));
    json!([{"oldStart": pre + 1, "oldLines": old.len(), "newStart": pre + 1, "newLines": new.len(), "lines": lines}])
}

fn write(s: &mut Session, id: &str, path: &str, content: &str) -> usize {
    s.tool_use(
        "msg_w",
        id,
        "Write",
        json!({"file_path": path, "content": content}),
    );
    let line = s.lines.len();
    s.tool_result(
        id,
        &format!("File created successfully at: {path}"),
        false,
        Some(json!({"type": "create", "filePath": path, "content": content, "structuredPatch": [], "originalFile": null})),
    );
    line
}

/// A landed Edit; `before` is the file it edited (for the echo's patch).
fn edit(
    s: &mut Session,
    id: &str,
    before: &str,
    old: &str,
    new: &str,
    all: bool,
    original: bool,
) -> (usize, String) {
    // Claude Code's rule: deleting text also deletes the newline after it.
    let widened = format!("{old}\n");
    let old_eff = if new.is_empty() && !old.ends_with('\n') && before.contains(&widened) {
        widened.as_str()
    } else {
        old
    };
    let after = if all {
        before.replace(old_eff, new)
    } else {
        before.replacen(old_eff, new, 1)
    };
    s.tool_use(
        "msg_e",
        id,
        "Edit",
        json!({"file_path": FILE, "old_string": old, "new_string": new, "replace_all": all}),
    );
    let line = s.lines.len();
    let text = if all {
        format!("The file {FILE} has been updated. All occurrences were successfully replaced.")
    } else {
        format!("The file {FILE} has been updated successfully.")
    };
    s.tool_result(
        id,
        &text,
        false,
        Some(json!({"filePath": FILE, "oldString": old, "newString": new,
            "originalFile": if original { json!(before) } else { Value::Null },
            "structuredPatch": patch(before, &after), "userModified": false, "replaceAll": all})),
    );
    (line, after)
}

/// A Read window of `text`: lines `start..start+n` (1-based), as the echo says.
fn read(s: &mut Session, id: &str, path: &str, text: &str, start: usize, n: usize) -> usize {
    let lines: Vec<&str> = text.split('\n').collect();
    let window = lines[start - 1..(start - 1 + n).min(lines.len())].join("\n");
    let num = window.split('\n').count();
    s.tool_use(
        "msg_r",
        id,
        "Read",
        json!({"file_path": path, "offset": start, "limit": n}),
    );
    let line = s.lines.len();
    let gutter: Vec<String> = window
        .split('\n')
        .enumerate()
        .map(|(k, l)| format!("{:>6}\u{2192}{l}", start + k))
        .collect();
    s.tool_result(
        id,
        &gutter.join("\n"),
        false,
        Some(json!({"type": "text", "file": {"filePath": path, "content": window, "numLines": num, "startLine": start, "totalLines": lines.len()}})),
    );
    line
}

fn home_with(s: &Session) -> Home {
    let h = Home::new();
    h.write("-home-ana-app", &s.file_name(), &s.lines);
    h
}

fn recover(h: &Home, args: &[&str]) -> (i32, String, String) {
    let out = h.cmd().arg("recover").args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The acceptance round trip: Write, five landed Edits (two replaceAll,
/// REC-061; one deleting a line; two carrying originalFile, REC-060) and one
/// failing (REC-074, REC-073: its echo is a string), a partial Read (REC-051);
/// the file is rebuilt byte-exact as of EVERY line of the transcript. The file
/// holds tabs, which the echo's patch shows as spaces (REC-062).
#[test]
fn write_edits_and_a_partial_read_round_trip_at_every_line() {
    let mut s = Session::new("s-round", CWD);
    s.user("build it");
    let v0 = "fn a() {\n\tlet beta = 1;\n\tbeta + beta\n}\n// gone\nfn b() {}\n";
    let mut states: Vec<(usize, String)> = Vec::new();
    states.push((write(&mut s, "toolu_w", FILE, v0), v0.to_string()));
    let (l, v1) = edit(&mut s, "toolu_e1", v0, "fn a()", "pub fn a()", false, false);
    states.push((l, v1.clone()));
    let (l, v2) = edit(&mut s, "toolu_e2", &v1, "beta", "gamma", true, false);
    states.push((l, v2.clone()));
    // REC-074: an Edit whose result is an error never landed.
    s.tool_use("msg_f", "toolu_bad", "Edit", json!({"file_path": FILE, "old_string": "no such text", "new_string": "x", "replace_all": false}));
    s.tool_result(
        "toolu_bad",
        "<tool_use_error>String to replace not found in file.\nString: no such text</tool_use_error>",
        true,
        Some(json!("Error: String to replace not found in file.\nString: no such text")),
    );
    read(&mut s, "toolu_r", FILE, &v2, 2, 2);
    let (l, v3) = edit(&mut s, "toolu_e3", &v2, "// gone", "", false, true);
    states.push((l, v3.clone()));
    let (l, v4) = edit(&mut s, "toolu_e4", &v3, "gamma", "delta", true, false);
    states.push((l, v4.clone()));
    let (l, v5) = edit(
        &mut s,
        "toolu_e5",
        &v4,
        "fn b() {}",
        "fn b() {\n\ta();\n}",
        false,
        true,
    );
    states.push((l, v5.clone()));
    s.text("msg_end", "done");
    let h = home_with(&s);
    assert_eq!(
        v3, "pub fn a() {\n\tlet gamma = 1;\n\tgamma + gamma\n}\nfn b() {}\n",
        "the deletion took its newline"
    );
    for line in 1..=s.lines.len() {
        let expected = states
            .iter()
            .rev()
            .find(|(l, _)| *l <= line)
            .map(|(_, t)| t.clone());
        let (code, out, err) =
            recover(&h, &["--file", FILE, "@s-round", "--at", &line.to_string()]);
        match expected {
            Some(t) => {
                assert_eq!(code, 0, "--at {line}: {err}");
                assert_eq!(out, t, "--at {line}");
            }
            None => {
                assert_eq!(code, 1, "--at {line}: nothing written yet: {err}");
                assert!(out.is_empty(), "--at {line}: {out}");
            }
        }
    }
    // The default point is the end; JSON says complete with every line known.
    let (code, out, _) = recover(&h, &["--file", FILE, "--format", "json"]);
    assert_eq!(code, 0);
    let rec = json_lines(out.as_bytes())
        .into_iter()
        .find(|v| v["type"] == "recovered")
        .unwrap();
    assert_eq!(rec["complete"], true);
    assert_eq!(rec["content"], v5.as_str());
    assert_eq!(rec["lines"], v5.split('\n').count());
}

/// A file known only through a Read window (REC-042, REC-050, REC-051): the
/// text prints with exact, marked gaps (never filled), the map says which
/// lines came from where, and the exit status is 1.
#[test]
fn a_partly_known_file_prints_exact_gaps() {
    let mut s = Session::new("s-part", CWD);
    s.user("look");
    let text = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n";
    let at = read(&mut s, "toolu_r", FILE, text, 5, 3);
    let h = home_with(&s);
    let (code, out, err) = recover(&h, &["--file", FILE]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        out,
        "<<csift gap: lines 1-4 unknown (4 lines): no evidence>>\nl5\nl6\nl7\n<<csift gap: lines 8-10 unknown (3 lines): no evidence>>"
    );
    assert!(err.contains("3 of 10 lines known, 2 gaps"), "{err}");
    let (code, out, _) = recover(&h, &["--file", FILE, "--coverage", "--format", "json"]);
    assert_eq!(code, 1);
    let v = json_lines(out.as_bytes());
    let ranges: Vec<(Value, Value, Value)> = v
        .iter()
        .filter(|r| r["type"] == "range")
        .map(|r| (r["from"].clone(), r["to"].clone(), r["known"].clone()))
        .collect();
    assert_eq!(
        ranges,
        vec![
            (json!(1), json!(4), json!(false)),
            (json!(5), json!(7), json!(true)),
            (json!(8), json!(10), json!(false))
        ]
    );
    let known = v.iter().find(|r| r["known"] == true).unwrap();
    assert_eq!(known["source"]["line"], at);
    assert_eq!(known["source"]["kind"], "read_partial");
    assert!(
        v.iter()
            .all(|r| r["type"] != "recovered" || r["content"].is_null()),
        "--coverage prints no text"
    );
}

/// FH-043, FH-026, FH-027, FH-042, REC-047: a one-line file cut by the token
/// cap looks like a complete read; the `truncatedByTokenCap` flag demotes it,
/// and its last (only) line may be cut mid-line, so nothing is claimed.
#[test]
fn a_token_capped_read_is_never_the_whole_file() {
    let mut s = Session::new("s-cap", CWD);
    s.user("read");
    s.tool_use("m", "toolu_r", "Read", json!({"file_path": FILE}));
    s.tool_result(
        "toolu_r",
        "1\u{2192}aaaa",
        false,
        Some(json!({"type": "text", "file": {"filePath": FILE, "content": "aaaa", "numLines": 1, "startLine": 1, "totalLines": 1, "truncatedByTokenCap": true}})),
    );
    let h = home_with(&s);
    let (code, out, _) = recover(&h, &["--file", FILE]);
    // FH-045: the key alone, with no read_truncation_notice (older builds
    // wrote only the key), is enough; FH-040: token-cap truncation happens on
    // a whole-file read (no offset, no limit), so its start is line 1.
    assert_eq!(code, 1);
    assert!(!out.contains("aaaa"), "{out}");
    let out = h
        .cmd()
        .args(["files", "--format", "json"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"kind\":\"read_truncated\""));
}

/// Bash `cat` after `cd sub &&` reads the file in the tracked directory
/// (BASH-023 cd-tracked, FH-012, BASH-019); its stdout is the file with
/// trimmed edges (BASH-010, BASH-012, BASH-025: the echo is there), so alone
/// it leaves the edges marked unknown, and after a Write it only confirms the
/// exact text. Recover admits Bash results on `stdout` (MISC-030).
#[test]
fn cat_after_cd_resolves_in_the_tracked_directory() {
    let notes = "/home/ana/app/sub/notes.txt";
    let mut s = Session::new("s-cat", CWD);
    s.user("read the notes");
    s.tool_use(
        "m1",
        "toolu_c",
        "Bash",
        json!({"command": "cd sub && cat notes.txt", "description": "read"}),
    );
    let cat_line = s.lines.len();
    s.tool_result(
        "toolu_c",
        "alpha\n  beta",
        false,
        Some(json!({"stdout": "alpha\n  beta", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false})),
    );
    let h = home_with(&s);
    let out = h
        .cmd()
        .args(["files", "--format", "json"])
        .output()
        .unwrap();
    let ev: Vec<Value> = json_lines(&out.stdout)
        .into_iter()
        .filter(|v| v["type"] == "event")
        .collect();
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(ev[0]["path"], notes);
    assert_eq!(ev[0]["class"], "cd-tracked");
    assert_eq!(ev[0]["kind"], "bash_read");
    assert_eq!(ev[0]["line"], cat_line);
    let (code, out, _) = recover(&h, &["--file", notes]);
    assert_eq!(code, 1, "the trimmed edges are unknown");
    assert_eq!(
        out,
        "<<csift gap: unknown lines from line 1 (how many is unknown): bash stdout drops leading blank lines>>\nalpha\n  beta\n<<csift gap: unknown lines (how many is unknown): bash stdout drops trailing whitespace and newlines>>"
    );
    // After a Write of the same file, the cat confirms the exact bytes.
    let mut s = Session::new("s-cat2", CWD);
    s.user("write then read");
    write(&mut s, "toolu_w", notes, "alpha\n  beta\n");
    s.tool_use(
        "m1",
        "toolu_c",
        "Bash",
        json!({"command": "cd /home/ana/app/sub && cat notes.txt"}),
    );
    s.tool_result("toolu_c", "alpha\n  beta", false, Some(json!({"stdout": "alpha\n  beta", "stderr": "", "interrupted": false, "isImage": false})));
    let h = home_with(&s);
    let (code, out, _) = recover(&h, &["--file", notes]);
    assert_eq!((code, out.as_str()), (0, "alpha\n  beta\n"));
}

/// BASH-013, BASH-014: a quoted heredoc into `cat >` is the file's bytes;
/// `sed -i` afterwards (BASH-024) makes it unknown again.
#[test]
fn heredoc_writes_and_sed_in_place() {
    let out_file = "/home/ana/app/out.txt";
    let mut s = Session::new("s-here", CWD);
    s.user("write it");
    s.tool_use(
        "m1",
        "toolu_h",
        "Bash",
        json!({"command": "cat > out.txt <<'EOF'\nprice: $5\n\tdone\nEOF"}),
    );
    let h_line = s.lines.len();
    s.tool_result(
        "toolu_h",
        "",
        false,
        Some(json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false})),
    );
    s.tool_use(
        "m2",
        "toolu_s",
        "Bash",
        json!({"command": "sed -i 's/5/6/' out.txt"}),
    );
    s.tool_result(
        "toolu_s",
        "",
        false,
        Some(json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false})),
    );
    let h = home_with(&s);
    let (code, out, _) = recover(
        &h,
        &["--file", out_file, "@s-here", "--at", &h_line.to_string()],
    );
    assert_eq!((code, out.as_str()), (0, "price: $5\n\tdone\n"));
    let (code, out, err) = recover(&h, &["--file", out_file]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("changed outside the transcript"), "{out}");
    assert!(!out.contains("price"), "{out}");
}

/// FH-023, FH-025, FH-016, FH-024: a backup is trusted only when its mtime
/// agrees with the recorded backupTime; an unexplained version jump with no
/// trusted backup makes the file unknown (FH-015, FH-018).
#[test]
fn a_backup_with_the_wrong_mtime_is_not_trusted() {
    let path = "/home/ana/app/conf.txt";
    let mut s = Session::new("s-fh", CWD);
    s.user("write");
    write(&mut s, "toolu_w", path, "one\n");
    let t_v2 = "2026-01-01T00:10:00.000Z";
    for (v, name, t) in [(1, "@v1", "2026-01-01T00:00:30.000Z"), (2, "@v2", t_v2)] {
        s.raw(json!({"type": "file-history-snapshot", "messageId": format!("m{v}"), "snapshot": {"messageId": format!("m{v}"),
            "trackedFileBackups": {"conf.txt": {"backupFileName": format!("{}{name}", hash(path)), "version": v, "backupTime": t}},
            "timestamp": t}, "isSnapshotUpdate": false}));
        s.user("next");
    }
    let mk = |mtime_secs: i64| {
        let h = home_with(&s);
        let dir = h.path().join("file-history").join("s-fh");
        std::fs::create_dir_all(&dir).unwrap();
        let blob = dir.join(format!("{}@v2", hash(path)));
        std::fs::write(&blob, "two\n").unwrap();
        let f = std::fs::File::options().write(true).open(&blob).unwrap();
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(mtime_secs as u64);
        f.set_modified(t).unwrap();
        h
    };
    let v2_secs = 1_767_225_600 + 600; // 2026-01-01T00:10:00Z
    let good = mk(v2_secs + 5);
    let (code, out, err) = recover(&good, &["--file", path]);
    assert_eq!((code, out.as_str()), (0, "two\n"), "{err}");
    let bad = mk(v2_secs + 3600);
    let (code, out, _) = recover(&bad, &["--file", path]);
    assert_eq!(code, 1);
    assert!(!out.contains("two") && !out.contains("one"), "{out}");
    let (code, out, _) = recover(
        &bad,
        &["--file", path, "--list-backups", "--format", "json"],
    );
    assert_eq!(code, 0);
    let b = json_lines(out.as_bytes());
    assert_eq!(b.len(), 2);
    assert_eq!(b[0]["trusted"], false);
    assert!(
        b[0]["verdict"].as_str().unwrap().contains("untrusted"),
        "{b:?}"
    );
    // The summary names the key looked up (sha256 of the path, FH-023).
    assert_eq!(b[1]["type"], "summary");
    assert_eq!(b[1]["store_key"], hash(path).as_str());
    assert_eq!(
        (b[1]["backups"].as_u64(), b[1]["trusted"].as_u64()),
        (Some(1), Some(0))
    );
    // No backup at all is an answer in JSON too, not an empty stream.
    let (code, out, _) = recover(
        &bad,
        &[
            "--file",
            "/home/ana/app/none.txt",
            "--list-backups",
            "--format",
            "json",
        ],
    );
    let v = json_lines(out.as_bytes());
    assert_eq!((code, v.len()), (1, 1), "{out}");
    assert_eq!(v[0]["backups"], 0);
}

/// The store key (FH-023): sha256 of the absolute path, 16 hex digits.
fn hash(path: &str) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg("--version")
        .output();
    assert!(
        out.is_ok(),
        "sha256sum is needed to check the key independently"
    );
    let mut c = std::process::Command::new("sha256sum");
    c.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(path.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    String::from_utf8(o.stdout).unwrap()[..16].to_string()
}

/// `--out` writes DIR/<absolute path>; it never overwrites without --force,
/// never writes inside the Claude home, and `--all` refuses a transcript path
/// that cannot be confined under DIR.
#[test]
fn output_directory_guards() {
    let mut s = Session::new("s-out", CWD);
    s.user("write");
    write(&mut s, "toolu_w", FILE, "x\n");
    write(
        &mut s,
        "toolu_evil",
        "/home/ana/app/\u{1b}[2Jevil.txt",
        "boom\n",
    );
    let h = home_with(&s);
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("rescued");
    let d = dir.to_str().unwrap();
    let (code, stdout, err) = recover(&h, &["--file", FILE, "--out", d]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.is_empty());
    assert_eq!(
        std::fs::read_to_string(dir.join("home/ana/app/src/lib.rs")).unwrap(),
        "x\n"
    );
    let (code, _, err) = recover(&h, &["--file", FILE, "--out", d]);
    assert_eq!(code, 2);
    assert!(err.contains("--force"), "{err}");
    assert_eq!(recover(&h, &["--file", FILE, "--out", d, "--force"]).0, 0);
    let inside = h.path().join("rescue");
    let (code, _, err) = recover(&h, &["--file", FILE, "--out", inside.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("inside the Claude home"), "{err}");
    assert!(!inside.exists());
    // Spelled through a directory that does not exist yet, `..` still lands
    // in the home: refused, and nothing is created on the way.
    let name = h.path().file_name().unwrap().to_str().unwrap();
    let parent = h.path().parent().unwrap();
    let sneaky = parent.join(format!("not-yet-{name}/../{name}/rescue"));
    let (code, _, err) = recover(&h, &["--file", FILE, "--out", sneaky.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("inside the Claude home"), "{err}");
    assert!(!h.path().join("rescue").exists());
    assert!(!parent.join(format!("not-yet-{name}")).exists());
    let all = out.path().join("all");
    let (code, stdout, err) = recover(&h, &["--all", "--out", all.to_str().unwrap()]);
    assert_eq!(code, 2, "{stdout}{err}");
    assert!(err.contains("control character"), "{err}");
    assert_eq!(
        std::fs::read_to_string(all.join("home/ana/app/src/lib.rs")).unwrap(),
        "x\n"
    );
    let written: Vec<_> = walk(&all);
    assert_eq!(written.len(), 1, "{written:?}");
}

fn walk(d: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).unwrap().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

/// A file removed by `rm` at the end is shown as it was before, and said.
#[test]
fn a_deleted_file_is_shown_as_before() {
    let mut s = Session::new("s-rm", CWD);
    s.user("write then delete");
    write(&mut s, "toolu_w", FILE, "keep me\n");
    s.tool_use("m", "toolu_rm", "Bash", json!({"command": "rm src/lib.rs"}));
    s.tool_result(
        "toolu_rm",
        "",
        false,
        Some(json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false})),
    );
    let h = home_with(&s);
    let (code, out, err) = recover(&h, &["--file", "src/lib.rs", "@s-rm"]);
    assert_eq!((code, out.as_str()), (0, "keep me\n"), "{err}");
    assert!(err.contains("deleted at"), "{err}");
}

/// FH-050, REC-058: an update echo stripped to an empty `content` (with a
/// null originalFile) does not empty the file: the input holds the bytes.
#[test]
fn a_stripped_update_echo_uses_the_write_input() {
    let mut s = Session::new("s-strip", CWD);
    s.user("write twice");
    write(&mut s, "toolu_w1", FILE, "one\n");
    s.tool_use(
        "m",
        "toolu_w2",
        "Write",
        json!({"file_path": FILE, "content": "two\n"}),
    );
    s.tool_result(
        "toolu_w2",
        &format!("The file {FILE} has been updated successfully."),
        false,
        Some(json!({"type": "update", "filePath": FILE, "content": "", "structuredPatch": [], "originalFile": null})),
    );
    let h = home_with(&s);
    assert_eq!(recover(&h, &["--file", FILE]).1, "two\n");
}

/// SUB-026, REC-080, REC-081, REC-083: a subagent's calls nested in
/// agent_progress records carry no echo; the Write's input `content` and the
/// Edit's `old_string`/`new_string` rebuild the file.
#[test]
fn nested_subagent_calls_rebuild_from_their_inputs() {
    let mut s = Session::new("s-nested", CWD);
    s.user("delegate");
    let mut n = 0;
    let mut nest = |s: &mut Session, rec: Value| {
        n += 1;
        s.push(json!({"type": "progress", "data": {"message": rec, "normalizedMessages": [], "type": "agent_progress",
            "prompt": "do it", "agentId": "a7777777777777777"}, "toolUseID": format!("agent_msg_{n}"), "parentToolUseID": "toolu_0"}));
    };
    let call = |id: &str, name: &str, input: Value| {
        json!({"type": "assistant", "message": {"role": "assistant", "model": "claude-x", "content": [
            {"type": "tool_use", "id": id, "name": name, "input": input}]}, "uuid": format!("n-{id}"), "timestamp": "2026-01-01T00:01:00.000Z"})
    };
    let result = |id: &str| {
        json!({"type": "user", "message": {"role": "user", "content": [{"tool_use_id": id, "type": "tool_result", "content": "ok"}]},
            "uuid": format!("r-{id}"), "timestamp": "2026-01-01T00:01:01.000Z"})
    };
    nest(
        &mut s,
        call(
            "toolu_nw",
            "Write",
            json!({"file_path": FILE, "content": "let a = 1;\nlet b = 2;\n"}),
        ),
    );
    nest(&mut s, result("toolu_nw"));
    nest(
        &mut s,
        call(
            "toolu_ne",
            "Edit",
            json!({"file_path": FILE, "old_string": "b = 2", "new_string": "b = 3", "replace_all": false}),
        ),
    );
    nest(&mut s, result("toolu_ne"));
    let h = home_with(&s);
    let (code, out, err) = recover(&h, &["--file", FILE, "--coverage", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let rows = json_lines(out.as_bytes());
    let known: Vec<&Value> = rows.iter().filter(|r| r["type"] == "range").collect();
    assert!(
        known
            .iter()
            .all(|r| r["source"]["agent_id"] == "a7777777777777777"),
        "{known:?}"
    );
    // TAIL-015: Write's `content`, Edit's `new_string`: each tool's own key.
    assert_eq!(recover(&h, &["--file", FILE]).1, "let a = 1;\nlet b = 3;\n");
}

/// REC-084: a MultiEdit's echo carries its `edits[]` and the pre-image
/// (`originalFileContents`, the corpus shape); the edits apply in order.
#[test]
fn multi_edit_applies_its_edits_in_order() {
    let mut s = Session::new("s-multi", CWD);
    s.user("edit");
    write(&mut s, "toolu_w", FILE, "a b c\n");
    let edits = json!([{"old_string": "a", "new_string": "x", "replace_all": false}, {"old_string": "x b", "new_string": "y", "replace_all": false}]);
    s.tool_use(
        "m",
        "toolu_m",
        "MultiEdit",
        json!({"file_path": FILE, "edits": edits}),
    );
    s.tool_result(
        "toolu_m",
        &format!("Applied 2 edits to {FILE}:"),
        false,
        Some(json!({"filePath": FILE, "edits": edits, "originalFileContents": "a b c\n", "structuredPatch": patch("a b c\n", "y c\n"), "userModified": false})),
    );
    let h = home_with(&s);
    let (code, out, err) = recover(&h, &["--file", FILE]);
    // TAIL-015: MultiEdit nests its payload one level down, edits[].new_string.
    assert_eq!((code, out.as_str()), (0, "y c\n"), "{err}");
}

/// FH-013, BASH-020: a command that changes files without naming them is
/// counted after the last content, never applied; a cat whose result has
/// stderr is not content (BASH-011).
#[test]
fn opaque_commands_are_disclosed_not_applied() {
    let mut s = Session::new("s-opaque", CWD);
    s.user("write and format");
    write(&mut s, "toolu_w", FILE, "fn  main(){}\n");
    s.tool_use(
        "m",
        "toolu_f",
        "Bash",
        json!({"command": "cargo fmt --all"}),
    );
    s.tool_result(
        "toolu_f",
        "",
        false,
        Some(json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false})),
    );
    s.tool_use("m", "toolu_c", "Bash", json!({"command": "cat src/lib.rs"}));
    s.tool_result("toolu_c", "fn main() {}", false, Some(json!({"stdout": "fn main() {}", "stderr": "warning", "interrupted": false, "isImage": false})));
    let h = home_with(&s);
    let (code, out, err) = recover(&h, &["--file", FILE]);
    assert_eq!((code, out.as_str()), (0, "fn  main(){}\n"));
    assert!(
        err.contains("fmt:cargo") && err.contains("not applied"),
        "{err}"
    );
}

/// FH-007, FH-008, FH-034: an edited_text_file makes the file unknown, and
/// its snippet's first run is placed at its gutter numbers — 17 lines at
/// most, since later hunks count from the old file.
#[test]
fn an_edited_text_file_snippet_places_its_first_hunk() {
    let mut s = Session::new("s-snip", CWD);
    s.user("write");
    write(&mut s, "toolu_w", FILE, "old\n");
    let snippet: Vec<String> = (3..=22).map(|n| format!("{n}\tline {n}")).collect();
    s.push(
        json!({"type": "attachment", "attachment": {"type": "edited_text_file", "filename": FILE,
        "snippet": format!("{}\n... [4 lines truncated] ...", snippet.join("\n"))}}),
    );
    let h = home_with(&s);
    let (code, out, _) = recover(&h, &["--file", FILE, "--coverage", "--format", "json"]);
    assert_eq!(code, 1);
    let ranges: Vec<(Value, Value, Value)> = json_lines(out.as_bytes())
        .iter()
        .filter(|r| r["type"] == "range")
        .map(|r| (r["from"].clone(), r["to"].clone(), r["known"].clone()))
        .collect();
    assert_eq!(
        ranges,
        vec![
            (json!(1), json!(2), json!(false)),
            (json!(3), json!(19), json!(true)),
            (json!(20), Value::Null, json!(false))
        ]
    );
    let (_, text, _) = recover(&h, &["--file", FILE]);
    assert!(
        text.contains("line 19\n<<csift gap:") && !text.contains("\nline 20"),
        "{text}"
    );
}

/// `recover --all` writes no file whose every line is unknown at the end (an
/// Edit that cannot be replayed leaves nothing known): a file holding only a
/// gap marker restores nothing. It is listed as not written, with why.
#[test]
fn all_writes_no_file_with_no_line_known() {
    let other = "/home/ana/app/src/other.rs";
    let mut s = Session::new("s-none", CWD);
    s.user("edit");
    write(&mut s, "toolu_w", FILE, "fn a() {}\n");
    write(&mut s, "toolu_w2", other, "one\n");
    // An Edit whose old text is not in the replayed file: unknown from here.
    s.tool_use("m", "toolu_e", "Edit", json!({"file_path": other, "old_string": "absent", "new_string": "x", "replace_all": false}));
    s.tool_result(
        "toolu_e",
        &format!("The file {other} has been updated successfully."),
        false,
        Some(
            json!({"filePath": other, "oldString": "absent", "newString": "x", "originalFile": null,
            "structuredPatch": [], "userModified": false, "replaceAll": false}),
        ),
    );
    let h = home_with(&s);
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("all");
    let (code, stdout, err) = recover(
        &h,
        &["--all", "--out", dir.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(code, 0, "{stdout}{err}");
    let v = json_lines(stdout.as_bytes());
    let row = |p: &str| v.iter().find(|r| r["path"] == p).cloned().unwrap();
    assert_eq!(row(FILE)["complete"], true);
    assert_eq!(row(other)["skipped"], "no line known at this point");
    assert_eq!(walk(&dir).len(), 1, "only the known file is written");
    let summary = v.last().unwrap();
    assert_eq!(
        (summary["written"].as_u64(), summary["skipped"].as_u64()),
        (Some(1), Some(1))
    );
}
