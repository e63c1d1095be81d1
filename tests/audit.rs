//! `csift audit`: every detector on real-shaped fixtures, the eaten-text counts
//! against planted truth (and the report's survey script when it is at hand),
//! and the real corpus.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{json_lines, Home, Session};
use serde_json::{json, Value};

const SID: &str = "7e0c2a51-3b1d-4f7e-9a2b-0c1d2e3f4a5b";

/// `csift audit --claude-home HOME …` (the harness's `Home::cmd` puts the flag
/// before the subcommand, where clap does not accept it).
fn cmd(home: &Path) -> assert_cmd::Command {
    let mut c = common::csift();
    c.arg("audit").arg("--claude-home").arg(home);
    c
}

fn audit(home: &Home, args: &[&str]) -> (i32, Vec<Value>) {
    let out = cmd(home.path())
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), json_lines(&out.stdout))
}

fn findings<'a>(rows: &'a [Value], kind: &str) -> Vec<&'a Value> {
    rows.iter()
        .filter(|r| r["type"] == "finding" && r["kind"] == kind)
        .collect()
}

fn summary(rows: &[Value]) -> &Value {
    rows.iter().find(|r| r["type"] == "summary").unwrap()
}

fn session() -> Session {
    let mut s = Session::new(SID, "/w/app");
    s.version = "2.1.200".into();
    s
}

fn thinking_pair(s: &mut Session, mid: &str) {
    s.thinking(mid, "first");
    s.raw(json!({"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-07-01T00:00:00Z", "sessionId": SID}));
    s.thinking(mid, "second");
    s.tool_use(
        mid,
        &format!("toolu_{mid}"),
        "Bash",
        json!({"command": "ls"}),
    );
    s.tool_result(
        &format!("toolu_{mid}"),
        "ok",
        false,
        Some(json!({"stdout": "ok"})),
    );
}

#[test]
fn eaten_text_group_rule_main_and_sidechain() {
    let home = Home::new();
    let mut s = session();
    s.user("go");
    thinking_pair(&mut s, "msg_eaten_main");
    // Kept: [thinking][text][tool_use].
    s.thinking("msg_kept", "plan");
    s.text("msg_kept", "Running it.");
    s.tool_use("msg_kept", "toolu_k", "Bash", json!({}));
    s.tool_result("toolu_k", "ok", false, Some(json!({"stdout": "ok"})));
    // Group rule yes, adjacency no: a user record sits between the thinking records.
    s.thinking("msg_split", "a");
    s.user("interjection");
    s.thinking("msg_split", "b");
    // A multi-block record carrying text covers its group.
    s.push(
        json!({"type": "assistant", "message": {"id": "msg_multi", "role": "assistant", "content": [
        {"type": "thinking", "thinking": "x", "signature": "s"}, {"type": "text", "text": "y"}]}}),
    );
    s.thinking("msg_multi", "z");
    home.write("-w-app", &s.file_name(), &s.lines);
    let mut lane = Session::lane(SID, "/w/app", "a1b2c3d4e5f6a7b8c");
    lane.version = "2.1.201".into();
    lane.user("task");
    thinking_pair(&mut lane, "msg_eaten_side");
    home.write(
        "-w-app",
        &format!("{SID}/subagents/agent-a1b2c3d4e5f6a7b8c.jsonl"),
        &lane.lines,
    );

    let (code, rows) = audit(
        &home,
        &[
            "--kind",
            "eaten-text,eaten-text-adjacency",
            "--by",
            "version",
        ],
    );
    assert_eq!(code, 1, "findings exit 1");
    let eaten = findings(&rows, "eaten-text");
    let ids: BTreeSet<&str> = eaten
        .iter()
        .map(|f| f["message_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        BTreeSet::from(["msg_eaten_main", "msg_eaten_side", "msg_split"])
    );
    let side = eaten
        .iter()
        .find(|f| f["message_id"] == "msg_eaten_side")
        .unwrap();
    assert_eq!(side["sidechain"], true);
    let main = eaten
        .iter()
        .find(|f| f["message_id"] == "msg_eaten_main")
        .unwrap();
    assert_eq!(main["sidechain"], false);
    assert_eq!(main["version"], "2.1.200");
    assert!(main["detail"]
        .as_str()
        .unwrap()
        .contains("adjacency rule agrees"));
    let split = eaten
        .iter()
        .find(|f| f["message_id"] == "msg_split")
        .unwrap();
    assert!(split["detail"].as_str().unwrap().contains("disagrees"));
    let c = &summary(&rows)["counts"]["eaten-text"];
    assert_eq!(
        (
            c["main"].as_u64(),
            c["sidechain"].as_u64(),
            c["transcripts"].as_u64()
        ),
        (Some(2), Some(1), Some(2))
    );
    assert_eq!(summary(&rows)["multi_block_assistant_records"], 1);
    let by: Vec<(&str, u64)> = rows
        .iter()
        .filter(|r| r["type"] == "count" && r["kind"] == "eaten-text")
        .map(|r| (r["key"].as_str().unwrap(), r["main"].as_u64().unwrap()))
        .collect();
    assert_eq!(by, [("2.1.200", 2), ("2.1.201", 0)]);
    let (_, all) = audit(&home, &["--kind", "eaten-text"]);
    survey_agrees(&home.projects(), &all);
}

#[test]
fn clean_transcript_exits_zero() {
    let home = Home::new();
    let mut s = session();
    s.user("hi");
    s.text("msg_1", "hello");
    home.write("-w-app", &s.file_name(), &s.lines);
    let (code, rows) = audit(&home, &[]);
    assert_eq!(code, 0, "{rows:?}");
    assert_eq!(summary(&rows)["files"], 1);
    let out = cmd(home.path()).arg("@nope").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a bad target is an error");
}

#[test]
fn malformed_lines_are_named() {
    let home = Home::new();
    let mut s = session();
    s.user("hi");
    s.text("msg_1", "hello");
    let mut body = common::jsonl(&s.lines);
    body.extend_from_slice(
        b"{\"type\":\"summary\",\"summary\":\"a\"}{\"type\":\"summary\",\"summary\":\"b\"}\n",
    );
    body.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"content\":\"x\"}} trailing\n");
    body.extend_from_slice(
        b"{\"type\":\"user\",\"timestamp\":\"2026-07-02T00:00:00Z\",\"message\":{\"content\":\"cut",
    );
    home.write_raw("-w-app", &s.file_name(), &body);
    let (_, rows) = audit(&home, &["--kind", "malformed-line"]);
    let f = findings(&rows, "malformed-line");
    let d: Vec<(u64, &str)> = f
        .iter()
        .map(|f| (f["line"].as_u64().unwrap(), f["detail"].as_str().unwrap()))
        .collect();
    assert_eq!(d.len(), 3, "{d:?}");
    assert!(
        d.iter()
            .any(|(l, t)| *l == 3 && t.starts_with("glued-records")),
        "{d:?}"
    );
    assert!(
        d.iter()
            .any(|(l, t)| *l == 4 && t.starts_with("invalid-json")),
        "{d:?}"
    );
    assert!(
        d.iter()
            .any(|(l, t)| *l == 5 && t.starts_with("torn-final-line")),
        "{d:?}"
    );

    // Each is placed in time, so a window that covers the file keeps all
    // three: a line too torn to hold a time takes the last time before it.
    let (_, rows) = audit(
        &home,
        &["--kind", "malformed-line", "--since", "2000-01-01"],
    );
    assert_eq!(findings(&rows, "malformed-line").len(), 3, "{rows:?}");
    assert_eq!(summary(&rows)["untimed_left_out"], 0);
    let mut cut = common::jsonl(&s.lines);
    cut.extend_from_slice(b"{\"type\":\"user\",\"mess");
    home.write_raw("-w-app", &s.file_name(), &cut);
    let (_, rows) = audit(
        &home,
        &["--kind", "malformed-line", "--since", "2000-01-01"],
    );
    let torn = findings(&rows, "malformed-line");
    assert_eq!(torn.len(), 1, "{rows:?}");
    assert_eq!(torn[0]["timestamp"], s.lines[1]["timestamp"], "{rows:?}");
}

/// Lines whose brackets and quotes are sound but whose grammar is not: an
/// invalid escape in an assistant text, one in a user prompt, a raw control
/// character in a string, a missing comma inside a nested object, a bare word
/// for a value and invalid UTF-8. The skim passes them all; serde does not.
/// Every one is a malformed line, whichever detectors run, as `stats` counts
/// them too.
#[test]
fn lines_with_bad_grammar_are_malformed_whichever_detectors_run() {
    let home = Home::new();
    let mut s = session();
    s.user("hi");
    s.text("msg_1", "hello");
    let mut body = common::jsonl(&s.lines);
    let bad: [&[u8]; 6] = [
        br#"{"type":"assistant","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"bad \q escape"}]}}"#,
        br#"{"type":"user","message":{"role":"user","content":"bad \q escape"}}"#,
        b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"a\x01b\"}}",
        br#"{"type":"system","subtype":"x","data":{"a":1 "b":2}}"#,
        br#"{"type":"system","subtype":"x","data":{"a":[1,tru]}}"#,
        b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"\xff\"}}",
    ];
    for l in bad {
        body.extend_from_slice(l);
        body.push(b'\n');
    }
    home.write_raw("-w-app", &s.file_name(), &body);
    let lines = |args: &[&str]| -> Vec<u64> {
        let (_, rows) = audit(&home, args);
        let mut v: Vec<u64> = findings(&rows, "malformed-line")
            .iter()
            .map(|f| f["line"].as_u64().unwrap())
            .collect();
        v.sort_unstable();
        v
    };
    let want: Vec<u64> = (3..=8).collect();
    assert_eq!(lines(&["--kind", "malformed-line"]), want);
    assert_eq!(lines(&[]), want);
    assert_eq!(
        lines(&["--kind", "malformed-line,eaten-text,duplicate-uuid"]),
        want
    );
    let stats = common::ok_json(
        common::csift()
            .arg("stats")
            .arg("--claude-home")
            .arg(home.path())
            .args(["--format", "json"]),
    );
    let total = stats.iter().find(|r| r["type"] == "total").unwrap();
    assert_eq!(total["malformed_lines"], want.len());
}

#[test]
fn missing_transcripts_and_lanes() {
    let home = Home::new();
    let mut s = session();
    s.user("spawn two");
    s.tool_use(
        "msg_1",
        "toolu_a",
        "Agent",
        json!({"prompt": "x", "subagent_type": "Explore"}),
    );
    s.tool_result(
        "toolu_a",
        "done",
        false,
        Some(json!({"status": "completed", "agentId": "a0000000000000001", "content": []})),
    );
    s.tool_use("msg_2", "toolu_b", "Agent", json!({"prompt": "y"}));
    s.tool_result("toolu_b", "launched", false, Some(json!({"status": "async_launched", "agentId": "a0000000000000002", "outputFile": "/tmp/gone"})));
    home.write("-w-app", &s.file_name(), &s.lines);
    let mut lane = Session::lane(SID, "/w/app", "a0000000000000001");
    lane.user("x");
    lane.text("msg_l", "found it");
    home.write(
        "-w-app",
        &format!("{SID}/subagents/agent-a0000000000000001.jsonl"),
        &lane.lines,
    );
    home.write_raw(
        "-w-app",
        &format!("{SID}/subagents/agent-a0000000000000009.meta.json"),
        b"{\"agentType\":\"Explore\"}",
    );
    // A session folder whose transcript is gone (age cleanup, MISC-011).
    let orphan = "0badc0de-0000-4000-8000-000000000000";
    home.write(
        "-w-app",
        &format!("{orphan}/subagents/agent-a0000000000000003.jsonl"),
        &lane.lines,
    );

    let (code, rows) = audit(&home, &["--kind", "missing-transcript"]);
    assert_eq!(code, 1);
    let f = findings(&rows, "missing-transcript");
    let d: Vec<&str> = f.iter().map(|f| f["detail"].as_str().unwrap()).collect();
    assert_eq!(f.len(), 3, "{d:?}");
    assert!(
        d.iter()
            .any(|t| t.contains("a0000000000000002") && t.contains("spawn result")),
        "{d:?}"
    );
    assert!(
        !d.iter().any(|t| t.contains("a0000000000000001")),
        "an existing lane is fine: {d:?}"
    );
    assert!(
        d.iter()
            .any(|t| t.contains(&format!("{orphan}.jsonl does not exist"))),
        "{d:?}"
    );
    // A finding about a folder has no line: null, never the placeholder 0.
    let gone = f
        .iter()
        .find(|f| {
            f["detail"]
                .as_str()
                .unwrap()
                .contains(&format!("{orphan}.jsonl does not exist"))
        })
        .unwrap();
    assert!(gone["line"].is_null(), "{gone}");
    assert!(f.iter().all(|f| f["line"] != 0), "{f:?}");
    assert!(
        d.iter()
            .any(|t| t.contains("lane metadata without its transcript")),
        "{d:?}"
    );
    // The lost session transcript is a main loss, placed at its lane's start,
    // so a window keeps it; the lost lane is a sidechain one.
    let gone = f
        .iter()
        .find(|f| f["detail"].as_str().unwrap().contains("does not exist"))
        .unwrap();
    assert_eq!(gone["sidechain"], false, "{gone}");
    assert_eq!(gone["timestamp"], lane.lines[0]["timestamp"], "{gone}");
    let (_, rows) = audit(
        &home,
        &["--kind", "missing-transcript", "--since", "2000-01-01"],
    );
    let kept = findings(&rows, "missing-transcript");
    assert_eq!(kept.len(), 2, "{rows:?}");
    assert_eq!(
        summary(&rows)["untimed_left_out"],
        1,
        "the metadata finding"
    );
    // The human line names the folder alone: `folder:0` is no usable address.
    let out = home
        .cmd()
        .args(["audit", "--kind", "missing-transcript", "--color", "never"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains(orphan)).unwrap();
    assert!(
        line.contains(&format!("{orphan} [")) && !line.contains(&format!("{orphan}:0")),
        "{line}"
    );
}

#[test]
fn missing_persisted_output_rec_015() {
    let home = Home::new();
    let mut s = session();
    let kept = home
        .projects()
        .join(format!("-w-app/{SID}/tool-results/b1.txt"));
    std::fs::create_dir_all(kept.parent().unwrap()).unwrap();
    std::fs::write(&kept, "0123456789").unwrap();
    let gone = home
        .projects()
        .join(format!("-w-app/{SID}/tool-results/b2.txt"));
    let marker = |p: &Path| {
        format!("<persisted-output>\nOutput too large (81.1KB). Full output saved to: {}\n\nPreview (first 2KB):\nabc\n</persisted-output>", p.display())
    };
    s.user("go");
    s.tool_use("msg_1", "toolu_1", "Bash", json!({"command": "big"}));
    s.tool_result(
        "toolu_1",
        &marker(&kept),
        false,
        Some(json!({"stdout": "", "persistedOutputPath": kept, "persistedOutputSize": 10})),
    );
    s.tool_use("msg_2", "toolu_2", "Grep", json!({"pattern": "x"}));
    s.tool_result(
        "toolu_2",
        &marker(&gone),
        false,
        Some(json!({"mode": "content"})),
    );
    s.tool_use("msg_3", "toolu_3", "Bash", json!({"command": "big"}));
    s.tool_result(
        "toolu_3",
        &marker(&kept),
        false,
        Some(json!({"stdout": "", "persistedOutputPath": kept, "persistedOutputSize": 99})),
    );
    s.text(
        "msg_4",
        "The <persisted-output> marker in prose is not a pointer. Full output saved to: /nowhere",
    );
    home.write("-w-app", &s.file_name(), &s.lines);
    let (_, rows) = audit(&home, &["--kind", "missing-persisted-output"]);
    let d: Vec<&str> = findings(&rows, "missing-persisted-output")
        .iter()
        .map(|f| f["detail"].as_str().unwrap())
        .collect();
    assert_eq!(d.len(), 2, "{d:?}");
    assert!(d.iter().any(|t| t.contains("b2.txt is gone")), "{d:?}");
    assert!(d.iter().any(|t| t.contains("size-mismatch")), "{d:?}");
}

/// MISC-002: the pointer is absolute on the machine that wrote it. A home that
/// was copied or moved keeps the file in the session folder the pointer names
/// (a clone's names its origin's, REC-091), else the session's own
/// tool-results/, which audit reads as search --resolve-persisted does; the
/// sample home is one.
#[test]
fn a_moved_home_keeps_its_persisted_output_misc_002() {
    let home = Home::new();
    let mut s = session();
    let here = home
        .projects()
        .join(format!("-w-app/{SID}/tool-results/b1.txt"));
    std::fs::create_dir_all(here.parent().unwrap()).unwrap();
    std::fs::write(&here, "0123456789").unwrap();
    let elsewhere =
        format!("/nonexistent-machine/.claude/projects/-w-app/{SID}/tool-results/b1.txt");
    s.user("go");
    s.tool_use("msg_1", "toolu_1", "Bash", json!({"command": "big"}));
    s.tool_result(
        "toolu_1",
        &format!("<persisted-output>\nOutput too large (81.1KB). Full output saved to: {elsewhere}\n\nPreview (first 2KB):\nabc\n</persisted-output>"),
        false,
        Some(json!({"stdout": "", "persistedOutputPath": elsewhere, "persistedOutputSize": 10})),
    );
    // A clone's copied pointer names its origin's folder (REC-091).
    let origin = "0a0a0a0a-0000-4000-8000-000000000000";
    let theirs = home
        .projects()
        .join(format!("-w-app/{origin}/tool-results/b3.txt"));
    std::fs::create_dir_all(theirs.parent().unwrap()).unwrap();
    std::fs::write(&theirs, "0123456789").unwrap();
    let cloned =
        format!("/nonexistent-machine/.claude/projects/-w-app/{origin}/tool-results/b3.txt");
    s.tool_use("msg_3", "toolu_3", "Bash", json!({"command": "big"}));
    s.tool_result(
        "toolu_3",
        "x",
        false,
        Some(json!({"stdout": "", "persistedOutputPath": cloned, "persistedOutputSize": 10})),
    );
    s.tool_use("msg_2", "toolu_2", "Bash", json!({"command": "big"}));
    let gone = elsewhere.replace("b1.txt", "b2.txt");
    s.tool_result(
        "toolu_2",
        "x",
        false,
        Some(json!({"stdout": "", "persistedOutputPath": gone, "persistedOutputSize": 10})),
    );
    home.write("-w-app", &s.file_name(), &s.lines);
    let (_, rows) = audit(&home, &["--kind", "missing-persisted-output"]);
    let d: Vec<&str> = findings(&rows, "missing-persisted-output")
        .iter()
        .map(|f| f["detail"].as_str().unwrap())
        .collect();
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].contains("b2.txt is gone"), "{d:?}");
    // The bundled sample home, written for another machine's paths, is clean.
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home");
    common::csift()
        .args(["audit", "--claude-home"])
        .arg(&sample)
        .assert()
        .code(0);
}

/// Records glued on one line are still records: a uuid one of them carries,
/// repeated on a later line, is a duplicate-uuid finding beside the glued line's
/// malformed-line finding (the public corpus's 130d7b7e…:128 and :131).
#[test]
fn a_glued_record_is_read_for_its_uuid() {
    let home = Home::new();
    let mut s = session();
    s.user("go");
    let uuid = s.text("msg_1", "all done");
    let copy = s.lines.last().unwrap().clone();
    let glued = format!(
        "{}{}",
        serde_json::to_string(&copy).unwrap(),
        r#"{"type":"summary","summary":"x","leafUuid":"l1"}"#
    );
    s.lines.pop();
    s.raw(Value::String(glued));
    s.user("again");
    s.raw(copy);
    let mut bytes = Vec::new();
    for v in &s.lines {
        match v {
            Value::String(raw) => bytes.extend_from_slice(raw.as_bytes()),
            v => bytes.extend_from_slice(serde_json::to_string(v).unwrap().as_bytes()),
        }
        bytes.push(b'\n');
    }
    home.write_raw("-w-app", &s.file_name(), &bytes);
    let (_, rows) = audit(
        &home,
        &["--kind", "duplicate-uuid", "--kind", "malformed-line"],
    );
    let dup = findings(&rows, "duplicate-uuid");
    assert_eq!(dup.len(), 1, "{rows:?}");
    assert_eq!(dup[0]["line"], 4);
    let detail = dup[0]["detail"].as_str().unwrap();
    assert!(detail.contains("first seen on line 2"), "{detail}");
    assert!(detail.contains("byte-identical"), "{detail} ({uuid})");
    assert_eq!(findings(&rows, "malformed-line").len(), 1);
}

fn write_result(s: &mut Session, id: &str, echo: Option<Value>, is_error: bool) {
    s.tool_use(
        &format!("msg_{id}"),
        id,
        "Write",
        json!({"file_path": "/w/app/a.rs", "content": "x"}),
    );
    s.tool_result(
        id,
        "File created successfully at: /w/app/a.rs",
        is_error,
        echo,
    );
}

#[test]
fn missing_echo_only_where_claude_code_always_writes_it_rec_078() {
    let home = Home::new();
    let mut s = session();
    s.user("write");
    write_result(
        &mut s,
        "toolu_ok",
        Some(json!({"type": "create", "filePath": "/w/app/a.rs", "content": "x"})),
        false,
    );
    write_result(
        &mut s,
        "toolu_err",
        Some(json!("Error: permission denied")),
        true,
    );
    write_result(&mut s, "toolu_bare", None, false);
    s.tool_use(
        "msg_r",
        "toolu_read",
        "Read",
        json!({"file_path": "/w/app/a.rs"}),
    );
    s.tool_result("toolu_read", "1\tx", false, Some(json!("stringly")));
    home.write("-w-app", &s.file_name(), &s.lines);
    // Workflow and built-in lanes omit the echo normally (SUB-026/027).
    let mut wf = Session::lane(SID, "/w/app", "a1111111111111111");
    wf.user("task");
    write_result(&mut wf, "toolu_wf", None, false);
    home.write(
        "-w-app",
        &format!("{SID}/subagents/workflows/wf_1/agent-a1111111111111111.jsonl"),
        &wf.lines,
    );
    home.write(
        "-w-app",
        &format!("{SID}/subagents/agent-a2222222222222222.jsonl"),
        &wf.lines,
    );
    // A teammate lane always carries it (SUB-028).
    let mut tm = Session::lane(SID, "/w/app", "aReviewer-0123456789abcdef");
    tm.user("review");
    write_result(&mut tm, "toolu_tm", None, false);
    home.write(
        "-w-app",
        &format!("{SID}/subagents/agent-aReviewer-0123456789abcdef.jsonl"),
        &tm.lines,
    );
    home.write_raw(
        "-w-app",
        &format!("{SID}/subagents/agent-aReviewer-0123456789abcdef.meta.json"),
        br#"{"agentType":"reviewer","taskKind":"in_process_teammate"}"#,
    );
    let (_, rows) = audit(&home, &["--kind", "missing-echo"]);
    let f = findings(&rows, "missing-echo");
    let d: Vec<&str> = f.iter().map(|f| f["detail"].as_str().unwrap()).collect();
    assert_eq!(f.len(), 3, "{d:?}");
    assert!(d.iter().any(|t| t.contains("toolu_bare")));
    assert!(d.iter().any(|t| t.contains("Read result toolu_read")));
    assert!(d.iter().any(|t| t.contains("toolu_tm")));
}

#[test]
fn unanswered_calls_skip_the_live_tail_tail_001() {
    let home = Home::new();
    let mut s = session();
    s.user("go");
    s.tool_use("msg_1", "toolu_orphan", "Read", json!({"file_path": "/x"}));
    s.tool_use(
        "msg_2",
        "toolu_bg",
        "Bash",
        json!({"command": "sleep 99", "run_in_background": true}),
    );
    s.user("next");
    s.tool_use(
        "msg_3",
        "toolu_inflight",
        "Bash",
        json!({"command": "cargo build"}),
    );
    home.write("-w-app", &s.file_name(), &s.lines);
    let (_, rows) = audit(&home, &["--kind", "unanswered-call"]);
    let d: Vec<&str> = findings(&rows, "unanswered-call")
        .iter()
        .map(|f| f["detail"].as_str().unwrap())
        .collect();
    assert_eq!(d.len(), 2, "{d:?}");
    assert!(d
        .iter()
        .any(|t| t.contains("toolu_orphan") && t.contains("orphan")));
    assert!(d
        .iter()
        // TAIL-011: a background launch is acknowledged at once.
        .any(|t| t.contains("toolu_bg") && t.contains("launches are answered at once")));
}

#[test]
fn duplicate_uuids_are_classified_rec_091() {
    let home = Home::new();
    let mut s = session();
    s.user("go");
    s.text("msg_1", "hello");
    let mut replay = s.lines[1].clone();
    replay["slug"] = json!("quiet-rolling-otter");
    s.raw(json!({"type": "ai-title", "aiTitle": "t", "sessionId": SID}));
    s.raw(replay);
    home.write("-w-app", &s.file_name(), &s.lines);
    let (_, rows) = audit(&home, &["--kind", "duplicate-uuid"]);
    let f = findings(&rows, "duplicate-uuid");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0]["line"], 4);
    assert!(f[0]["detail"].as_str().unwrap().contains("plus slug"));
}

/// A copy that is none of the named classes says which top-level fields
/// differ (a resume on another machine rewrote cwd and version), under the
/// class name the docs give, `repeat`.
#[test]
fn a_plain_repeat_names_the_fields_that_differ() {
    let home = Home::new();
    let mut s = session();
    s.user("go");
    s.text("msg_1", "hello");
    let mut copy = s.lines[1].clone();
    copy["cwd"] = json!("/elsewhere/app");
    copy["version"] = json!("2.1.999");
    s.raw(copy);
    home.write("-w-app", &s.file_name(), &s.lines);
    let (_, rows) = audit(&home, &["--kind", "duplicate-uuid"]);
    let f = findings(&rows, "duplicate-uuid");
    assert_eq!(f.len(), 1);
    assert_eq!(
        f[0]["detail"],
        "uuid first seen on line 2: repeat (differs in cwd, version)"
    );
}

#[test]
fn eaten_text_returns_exactly_the_planted_groups() {
    let Some(gen) = common::generator() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let truth = dir.path().join("truth.jsonl");
    // --sessions 7 keeps the corpus small and fast to generate.
    let st = std::process::Command::new(gen)
        .args([
            "--preset",
            "bench",
            "--bytes",
            "6M",
            "--sessions",
            "7",
            "--out",
        ])
        .arg(dir.path().join("home"))
        .arg("--truth")
        .arg(&truth)
        .status()
        .unwrap();
    assert!(st.success());
    let want: BTreeSet<(String, String)> = std::fs::read_to_string(&truth)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["kind"] == "eaten_text")
        .map(|v| {
            (
                v["file"].as_str().unwrap().to_string(),
                v["message_id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(!want.is_empty());
    let out = cmd(&dir.path().join("home"))
        .args(["--kind", "eaten-text", "--format", "json"])
        .output()
        .unwrap();
    let rows = json_lines(&out.stdout);
    let got: BTreeSet<(String, String)> = findings(&rows, "eaten-text")
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_string(),
                f["message_id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(got, want);
    survey_agrees(&dir.path().join("home/projects"), &rows);
}

/// The report's own survey script, shipped verbatim as tools/eaten_text_scan.py
/// (its projects folder taken as an argument), must print the same counts:
/// main, transcripts, sidechain, multi-block records, and main hits per month
/// and per version. Without python3 this is a skip, and a failure under CI=true.
fn survey_agrees(projects: &Path, rows: &[Value]) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/eaten_text_scan.py");
    let Some(python) = common::python3() else {
        return;
    };
    let py = std::process::Command::new(python)
        .arg(&script)
        .arg(projects)
        .output()
        .unwrap();
    assert!(
        py.status.success(),
        "{}",
        String::from_utf8_lossy(&py.stderr)
    );
    let text = String::from_utf8_lossy(&py.stdout);
    let c = &summary(rows)["counts"]["eaten-text"];
    // The script's "transcripts" are distinct basenames with a MAIN hit.
    let main_files: BTreeSet<&str> = findings(rows, "eaten-text")
        .into_iter()
        .filter(|f| f["sidechain"] == false)
        .map(|f| f["file"].as_str().unwrap().rsplit('/').next().unwrap())
        .collect();
    let has = |s: String| assert!(text.contains(&s), "{s:?} not in:\n{text}");
    has(format!(
        "MAIN-context eaten responses: {} in {} transcripts",
        c["main"],
        main_files.len()
    ));
    has(format!(
        "SIDECHAIN (subagent) eaten responses: {}",
        c["sidechain"]
    ));
    has(format!(
        "multi-block assistant records seen: {}",
        summary(rows)["multi_block_assistant_records"]
    ));
    let main: Vec<&Value> = findings(rows, "eaten-text")
        .into_iter()
        .filter(|f| f["sidechain"] == false)
        .collect();
    let mut months = std::collections::BTreeMap::<String, usize>::new();
    let mut versions = std::collections::BTreeMap::<String, usize>::new();
    for f in main {
        *months
            .entry(f["timestamp"].as_str().unwrap()[..7].to_string())
            .or_default() += 1;
        *versions
            .entry(f["version"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    for (k, n) in months.iter().chain(versions.iter()) {
        has(format!("  {k}: {n}\n"));
    }
}

#[test]
fn real_corpus_has_no_false_missing_echo() {
    let Some(home) = common::corpus() else { return };
    let out = cmd(&home).args(["--format", "json"]).output().unwrap();
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = json_lines(&out.stdout);
    assert!(
        findings(&rows, "missing-echo").is_empty(),
        "REC-078: every main write carries its echo"
    );
    assert!(
        findings(&rows, "eaten-text").is_empty(),
        "the corpus predates 2.1.170"
    );
    let glued: Vec<_> = findings(&rows, "malformed-line");
    assert_eq!(glued.len(), 1);
    assert!(glued[0]["file"]
        .as_str()
        .unwrap()
        .ends_with("130d7b7e-5801-4345-9bd6-f32fd9b8429b.jsonl"));
    assert_eq!(glued[0]["line"], 128);
    // The glued line's assistant record is repeated on line 131 (by a later
    // version's resume): the corpus's one duplicate uuid.
    let dup = findings(&rows, "duplicate-uuid");
    assert_eq!(dup.len(), 1);
    assert_eq!(dup[0]["file"], glued[0]["file"]);
    assert_eq!(dup[0]["line"], 131);
    assert!(dup[0]["detail"]
        .as_str()
        .unwrap()
        .starts_with("uuid first seen on line 128"));
}

/// A malformed line in a lane file counts under SIDECHAIN (every lane record is
/// a sidechain one, SUB-001); it was counted under MAIN.
#[test]
fn a_torn_lane_line_counts_as_sidechain_sub_001() {
    let home = Home::new();
    let sid = "13131313-0000-4000-8000-000000000013";
    let mut main = Session::new(sid, "/w/t");
    main.user("go");
    home.write("-w-t", &main.file_name(), &main.lines);
    let mut lane = Session::lane(sid, "/w/t", "a1313131");
    lane.user("child task");
    let mut bytes = common::jsonl(&lane.lines);
    bytes.extend_from_slice(br#"{"type":"assistant","uuid":"x"#);
    home.write_raw(
        "-w-t",
        &format!("{sid}/subagents/agent-a1313131.jsonl"),
        &bytes,
    );
    let out = home
        .cmd()
        .args(["audit", "-k", "malformed-line", "--format", "json"])
        .output()
        .unwrap();
    let rows = common::json_lines(&out.stdout);
    let c = &rows.last().unwrap()["counts"]["malformed-line"];
    assert_eq!(
        (c["main"].clone(), c["sidechain"].clone()),
        (json!(0), json!(1))
    );
}
