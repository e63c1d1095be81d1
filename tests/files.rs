//! `csift files`: every path a session touched, with kinds and resolution
//! classes, on real-shaped records and on the public corpus.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::common::{corpus, csift, json_lines, Home, Session};

const CWD: &str = "/home/ana/app";

fn events(h: &Home, args: &[&str]) -> Vec<Value> {
    let out = h
        .cmd()
        .arg("files")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c < 2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_lines(&out.stdout)
        .into_iter()
        .filter(|v| v["type"] == "event")
        .collect()
}

fn kinds(ev: &[Value], path: &str) -> Vec<String> {
    ev.iter()
        .filter(|v| v["path"] == path)
        .map(|v| v["kind"].as_str().unwrap().to_string())
        .collect()
}

fn ok(s: &mut Session, id: &str, echo: Value) {
    s.tool_result(id, "ok", false, Some(echo));
}

/// REC-055, REC-056, REC-057, REC-071, REC-086: a create only from the Write
/// echo's `type` (FH-031 create shape, REC-064/REC-065: an empty patch says
/// nothing); an Edit echo has no type (REC-059, REC-066, FH-032) and may carry
/// staleRecovered (FH-006, FH-035); REC-074, FH-009, FH-011: an errored call
/// is `failed`, kept and said; REC-070/REC-079: the path key per tool,
/// NotebookEdit's `notebook_path` (REC-072, REC-082); a file_unchanged echo
/// has no content (REC-046, FH-048).
#[test]
fn structured_kinds_from_the_echo() {
    let mut s = Session::new("s-kinds", CWD);
    s.user("go");
    s.tool_use(
        "m",
        "w1",
        "Write",
        json!({"file_path": "/home/ana/app/a.rs", "content": "x"}),
    );
    ok(
        &mut s,
        "w1",
        json!({"type": "create", "filePath": "/home/ana/app/a.rs", "content": "x", "structuredPatch": [], "originalFile": null}),
    );
    s.tool_use(
        "m",
        "w2",
        "Write",
        json!({"file_path": "/home/ana/app/a.rs", "content": "y"}),
    );
    ok(
        &mut s,
        "w2",
        json!({"type": "update", "filePath": "/home/ana/app/a.rs", "content": "y", "structuredPatch": [], "originalFile": "x"}),
    );
    s.tool_use("m", "e1", "Edit", json!({"file_path": "/home/ana/app/a.rs", "old_string": "y", "new_string": "z", "replace_all": false}));
    ok(
        &mut s,
        "e1",
        json!({"filePath": "/home/ana/app/a.rs", "oldString": "y", "newString": "z", "originalFile": null, "structuredPatch": [], "userModified": false, "replaceAll": false, "staleRecovered": true}),
    );
    s.tool_use("m", "e2", "Edit", json!({"file_path": "/home/ana/app/a.rs", "old_string": "q", "new_string": "r", "replace_all": false}));
    s.tool_result(
        "e2",
        "<tool_use_error>String to replace not found in file.\nString: q</tool_use_error>",
        true,
        Some(json!(
            "Error: String to replace not found in file.\nString: q"
        )),
    );
    s.tool_use(
        "m",
        "r1",
        "Read",
        json!({"file_path": "/home/ana/app/b.rs", "offset": 2, "limit": 1}),
    );
    ok(
        &mut s,
        "r1",
        json!({"type": "text", "file": {"filePath": "/home/ana/app/b.rs", "content": "two", "numLines": 1, "startLine": 2, "totalLines": 3}}),
    );
    s.tool_use(
        "m",
        "r2",
        "Read",
        json!({"file_path": "/home/ana/app/b.rs"}),
    );
    ok(
        &mut s,
        "r2",
        json!({"type": "text", "file": {"filePath": "/home/ana/app/b.rs", "content": "one\ntwo\n", "numLines": 3, "startLine": 1, "totalLines": 3}}),
    );
    s.tool_use(
        "m",
        "r3",
        "Read",
        json!({"file_path": "/home/ana/app/b.rs"}),
    );
    ok(
        &mut s,
        "r3",
        json!({"type": "file_unchanged", "file": {"filePath": "/home/ana/app/b.rs"}}),
    );
    s.tool_use(
        "m",
        "n1",
        "NotebookEdit",
        json!({"notebook_path": "/home/ana/app/n.ipynb", "new_source": "x", "cell_id": "c1"}),
    );
    let h = Home::new();
    h.write("-home-ana-app", &s.file_name(), &s.lines);
    let ev = events(&h, &[]);
    assert_eq!(
        kinds(&ev, "/home/ana/app/a.rs"),
        // FH-036: an Edit applied over a changed file says staleRecovered.
        vec!["create", "update", "edit", "stale_recovered", "failed"]
    );
    assert_eq!(
        kinds(&ev, "/home/ana/app/b.rs"),
        vec!["read_partial", "read_full", "read_unchanged"]
    );
    assert_eq!(kinds(&ev, "/home/ana/app/n.ipynb"), vec!["notebook_edit"]);
    let e = ev.iter().find(|v| v["kind"] == "create").unwrap();
    for key in [
        "path",
        "session_id",
        "agent_id",
        "file",
        "line",
        "turn",
        "timestamp",
        "tool",
        "kind",
        "class",
    ] {
        assert!(e.get(key).is_some(), "{key} in {e}");
    }
    assert_eq!(e["session_id"], "s-kinds");
    assert_eq!(e["class"], "absolute");
    assert_eq!(e["turn"], 1);
}

/// BASH-023 classes, BASH-021 absolute shapes, BASH-020 class markers,
/// WIN-005 PowerShell as an opaque row; cd tracked inside one command.
#[test]
fn bash_operands_and_classes() {
    let mut s = Session::new("s-bash", CWD);
    s.user("go");
    s.tool_use(
        "m",
        "b1",
        "Bash",
        json!({"command": "rm /tmp/abs.txt build.log && cd sub && mv old.txt new.txt; tee -a $LOG < in.txt", "description": "x"}),
    );
    s.tool_use(
        "m",
        "b2",
        "Bash",
        json!({"command": "cargo fmt --all && git checkout -- src/x.rs && npm install"}),
    );
    s.tool_use(
        "m",
        "p1",
        "PowerShell",
        json!({"command": "Set-Content -Path out.txt -Value hi"}),
    );
    let h = Home::new();
    h.write("-home-ana-app", &s.file_name(), &s.lines);
    let ev = events(&h, &[]);
    let got: Vec<(String, String, String)> = ev
        .iter()
        .map(|v| {
            (
                v["path"].as_str().unwrap().into(),
                v["kind"].as_str().unwrap().into(),
                v["class"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want = [
        ("/tmp/abs.txt", "bash_delete", "absolute"),
        ("/home/ana/app/build.log", "bash_delete", "cwd-joined"),
        ("/home/ana/app/sub/old.txt", "bash_move_from", "cd-tracked"),
        ("/home/ana/app/sub/new.txt", "bash_move_to", "cd-tracked"),
        ("$LOG", "bash_append", "unresolved"),
        ("/home/ana/app/sub/in.txt", "bash_read", "cd-tracked"),
        ("fmt:cargo", "opaque", "marker"),
        ("/home/ana/app/src/x.rs", "bash_write", "cwd-joined"),
        ("pkg:npm", "opaque", "marker"),
        ("powershell", "opaque", "marker"),
    ];
    for (p, k, c) in want {
        assert!(
            got.contains(&(p.into(), k.into(), c.into())),
            "{p} {k} {c} not in {got:?}"
        );
    }
}

/// Freshness signals FH-005 (hint, relative to the result record's cwd),
/// FH-007, FH-033, REC-054 (edited_text_file) and external writes FH-014,
/// FH-015, FH-017 (the flag is never read), FH-021, FH-022, FH-039: a
/// settings-file version jump with no tool write in its interval, at the
/// snapshot's nested instant (FH-001).
#[test]
fn signals_and_external_writes() {
    let settings = "/home/ana/.claude/settings.json";
    let mut s = Session::new("s-sig", CWD);
    s.user("go");
    s.tool_use("m", "b1", "Bash", json!({"command": "cargo fmt"}));
    s.tool_result(
        "b1",
        "ok",
        false,
        Some(json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false,
            "staleReadFileStateHint": "[This command modified 1 file you've previously read: src/main.rs. Call Read before editing.]"})),
    );
    s.push(json!({"type": "attachment", "attachment": {"type": "edited_text_file", "filename": "/home/ana/app/notes.md", "snippet": "3\tchanged"}}));
    for (v, t) in [
        (1, "2026-01-01T00:01:00.000Z"),
        (2, "2026-01-01T00:05:00.000Z"),
    ] {
        s.raw(json!({"type": "file-history-snapshot", "messageId": format!("m{v}"), "snapshot": {"messageId": format!("m{v}"),
            "trackedFileBackups": {settings: {"backupFileName": null, "version": v, "backupTime": t}}, "timestamp": t}, "isSnapshotUpdate": false}));
        s.user("next");
    }
    let h = Home::new();
    h.write("-home-ana-app", &s.file_name(), &s.lines);
    let ev = events(&h, &[]);
    assert_eq!(
        kinds(&ev, "/home/ana/app/src/main.rs"),
        vec!["hint_modified"]
    );
    assert_eq!(
        kinds(&ev, "/home/ana/app/notes.md"),
        vec!["edited_text_file"]
    );
    assert_eq!(kinds(&ev, settings), vec!["external_write"]);
    let x = ev.iter().find(|v| v["kind"] == "external_write").unwrap();
    assert_eq!(x["tool"], "file-history");
    assert_eq!(
        x["timestamp"], "2026-01-01T00:05:00.000Z",
        "FH-001: the nested instant"
    );
}

/// Subagent work nested in `agent_progress` records (no lane file) is read,
/// attributed to its agent, a Read with no echo is `read` (SUB-029);
/// --no-subagents leaves it out; --path filters.
#[test]
fn nested_agent_progress_and_filters() {
    let mut s = Session::new("s-nest", CWD);
    s.user("delegate");
    let nested = json!({"type": "assistant", "message": {"role": "assistant", "model": "claude-x", "content": [
        {"type": "tool_use", "id": "toolu_n1", "name": "Read", "input": {"file_path": "/home/ana/app/deep.rs"}}]},
        "uuid": "n-1", "timestamp": "2026-01-01T00:00:30.000Z"});
    s.push(json!({"type": "progress", "data": {"message": nested, "normalizedMessages": [], "type": "agent_progress",
        "prompt": "look", "agentId": "a0123456789abcdef"}, "toolUseID": "agent_msg_1", "parentToolUseID": "toolu_0"}));
    s.tool_use(
        "m",
        "w1",
        "Write",
        json!({"file_path": "/home/ana/app/top.rs", "content": "x"}),
    );
    let h = Home::new();
    h.write("-home-ana-app", &s.file_name(), &s.lines);
    let ev = events(&h, &[]);
    let deep = ev
        .iter()
        .find(|v| v["path"] == "/home/ana/app/deep.rs")
        .unwrap();
    assert_eq!(deep["agent_id"], "a0123456789abcdef");
    assert_eq!(deep["kind"], "read");
    assert_eq!(events(&h, &["--no-subagents"]).len(), 1);
    assert_eq!(events(&h, &["--path", "deep"]).len(), 1);
    let out = h
        .cmd()
        .args(["files", "--path", "nothing-matches"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// Human output: one row per path, or one per touch; no control bytes from
/// a hostile path reach the terminal.
#[test]
fn human_rows() {
    let mut s = Session::new("s-human", CWD);
    s.user("go");
    s.tool_use(
        "m",
        "w1",
        "Write",
        json!({"file_path": "/home/ana/app/\u{1b}[31mred.rs", "content": "x"}),
    );
    let h = Home::new();
    h.write("-home-ana-app", &s.file_name(), &s.lines);
    let out = h.cmd().args(["files"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.contains("red.rs  write"), "{text}");
    assert!(text.contains("1 paths"), "{text}");
    let out = h
        .cmd()
        .args(["files", "--by", "timeline"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Write") && text.contains("@s-human"),
        "{text}"
    );
}

/// Acceptance: on the public corpus, `files` reaches every path an
/// independent reading of the Write/Edit/Read/MultiEdit/NotebookEdit inputs
/// reaches, top-level and nested in agent_progress (counts pinned), and the
/// ones whose every call errored are `failed` (REC-074).
#[test]
fn corpus_paths_match_an_independent_reading() {
    let Some(home) = corpus() else { return };
    let (all, landed) = independent(&home);
    assert_eq!((all.len(), landed.len()), (278, 269), "the corpus changed?");
    let out = csift()
        .args(["files", "--format", "json", "--claude-home"])
        .arg(&home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let ev: Vec<Value> = json_lines(&out.stdout)
        .into_iter()
        .filter(|v| v["type"] == "event")
        .collect();
    let got: BTreeSet<&str> = ev.iter().map(|v| v["path"].as_str().unwrap()).collect();
    let not_failed: BTreeSet<&str> = ev
        .iter()
        .filter(|v| v["kind"] != "failed")
        .map(|v| v["path"].as_str().unwrap())
        .collect();
    // REC-085, FH-037: the literal file-tool names (the four mutating ones
    // and Read) are every structured file call there is.
    let missing: Vec<&String> = all.iter().filter(|p| !got.contains(p.as_str())).collect();
    assert!(missing.is_empty(), "files misses {missing:?}");
    let lost: Vec<&String> = landed
        .iter()
        .filter(|p| !not_failed.contains(p.as_str()))
        .collect();
    assert!(lost.is_empty(), "landed calls reported failed: {lost:?}");
    assert_eq!(
        got.len(),
        306,
        "every path files reports, bash and markers included"
    );
}

/// The independent reading: every structured file-tool input path, and those
/// of calls whose result is not an error (plain serde_json, no csift code).
fn independent(home: &std::path::Path) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut all = BTreeSet::new();
    let mut landed = BTreeSet::new();
    for f in crate::common::transcripts(home) {
        let mut uses: Vec<(String, String)> = Vec::new();
        let mut errored = BTreeSet::new();
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for line in text.lines() {
            let Ok(r) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let nested = r["data"]["message"].clone();
            for rec in [&r, &nested] {
                let Some(blocks) = rec["message"]["content"].as_array() else {
                    continue;
                };
                for b in blocks {
                    let key = match b["name"].as_str() {
                        Some("Write" | "Edit" | "Read" | "MultiEdit") => "file_path",
                        Some("NotebookEdit") => "notebook_path",
                        _ => "",
                    };
                    if b["type"] == "tool_use" && !key.is_empty() {
                        if let Some(p) = b["input"][key].as_str().filter(|p| !p.is_empty()) {
                            uses.push((b["id"].as_str().unwrap_or("").into(), p.into()));
                        }
                    }
                    if b["type"] == "tool_result" && b["is_error"] == true {
                        errored.insert(b["tool_use_id"].as_str().unwrap_or("").to_string());
                    }
                }
            }
        }
        for (id, p) in uses {
            if !errored.contains(&id) {
                landed.insert(p.clone());
            }
            all.insert(p);
        }
    }
    (all, landed)
}

/// The other Read variants and echo riders (REC-043, REC-046, IMG-011,
/// IMG-012, FH-048: contentless echoes are never content; REC-069: unknown
/// riders are ignored), a truncation said only by a `read_truncation_notice`
/// (FH-044, REC-052), a result written before its call (REC-075), and a
/// subagent's report-file rejection (SUB-032) and workflow-lane string error
/// (SUB-030, SUB-031).
#[test]
fn read_variants_notices_and_join_order() {
    let mut s = Session::new("s-variants", CWD);
    s.user("go");
    let img = "/home/ana/app/shot.png";
    s.tool_use("m", "i1", "Read", json!({"file_path": img}));
    ok(
        &mut s,
        "i1",
        json!({"type": "image", "file": {"base64": "iVBOR", "type": "image/png", "originalSize": 5}}),
    );
    let pdf = "/home/ana/app/doc.pdf";
    s.tool_use("m", "p1", "Read", json!({"file_path": pdf}));
    ok(
        &mut s,
        "p1",
        json!({"type": "parts", "file": {"filePath": pdf, "originalSize": 9, "count": 2, "outputDir": "/tmp/x"}}),
    );
    let big = "/home/ana/app/big.log";
    s.tool_use("m", "b1", "Read", json!({"file_path": big}));
    ok(
        &mut s,
        "b1",
        json!({"type": "text", "file": {"filePath": big, "content": "a\nb", "numLines": 2, "startLine": 1, "totalLines": 900}, "memdirStamped": true}),
    );
    s.push(json!({"type": "attachment", "attachment": {"type": "read_truncation_notice",
        "banner": "[Truncated: PARTIAL view \u{2014} /home/ana/app/big.log: showing lines 1-2 of 900 total]", "toolUseID": "b1"}}));
    // REC-075: the result one line before its call.
    let late = "/home/ana/app/late.rs";
    ok(
        &mut s,
        "l1",
        json!({"type": "create", "filePath": late, "content": "x", "structuredPatch": [], "originalFile": null}),
    );
    s.tool_use(
        "m",
        "l1",
        "Write",
        json!({"file_path": late, "content": "x"}),
    );
    let report = "/home/ana/app/REPORT.md";
    s.tool_use(
        "m",
        "r1",
        "Write",
        json!({"file_path": report, "content": "findings"}),
    );
    s.tool_result("r1", "<tool_use_error>Subagents should return findings as text, not write report files. Include this content in your final response instead.</tool_use_error>", true, Some(json!("Error: Subagents should return findings as text")));
    let h = Home::new();
    h.write("-home-ana-app", &s.file_name(), &s.lines);
    let ev = events(&h, &[]);
    assert_eq!(kinds(&ev, img), vec!["read_other"]);
    assert_eq!(kinds(&ev, pdf), vec!["read_other"]);
    assert_eq!(kinds(&ev, big), vec!["read_truncated"]);
    assert_eq!(kinds(&ev, late), vec!["create"]);
    assert_eq!(kinds(&ev, report), vec!["failed"]);
}

/// Bash cwd is the tool_use record's own (BASH-001, BASH-007: the result
/// record may already carry the post-command directory); a `cd` never
/// carries over to the next call (BASH-002, BASH-003, BASH-005), nor out of a
/// backgrounded command (BASH-008); pushd tracks like cd and popd loses the
/// directory (BASH-022); the sandbox flag changes nothing (BASH-030); a
/// PowerShell command is never parsed (WIN-005, WIN-010).
#[test]
fn bash_cwd_is_per_call_and_per_record() {
    let mut s = Session::new("s-cwd", CWD);
    s.user("go");
    s.tool_use(
        "m",
        "c1",
        "Bash",
        json!({"command": "cd sub && rm a", "dangerouslyDisableSandbox": true}),
    );
    // The result record already stands in the new directory.
    s.cwd = "/home/ana/app/sub".into();
    s.tool_result(
        "c1",
        "",
        false,
        Some(json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false})),
    );
    s.cwd = CWD.into();
    s.tool_use("m", "c2", "Bash", json!({"command": "rm b"}));
    s.tool_use("m", "c3", "Bash", json!({"command": "cd far & rm c"}));
    s.tool_use(
        "m",
        "c4",
        "Bash",
        json!({"command": "pushd lib && rm d && popd && rm e"}),
    );
    let h = Home::new();
    h.write("-home-ana-app", &s.file_name(), &s.lines);
    let ev = events(&h, &[]);
    let mut paths: Vec<(&str, &str)> = ev
        .iter()
        .map(|v| (v["path"].as_str().unwrap(), v["class"].as_str().unwrap()))
        .collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        vec![
            ("/home/ana/app/b", "cwd-joined"),
            ("/home/ana/app/c", "cwd-joined"),
            ("/home/ana/app/lib/d", "cd-tracked"),
            ("/home/ana/app/sub/a", "cd-tracked"),
            ("e", "unresolved"),
        ]
    );
}
