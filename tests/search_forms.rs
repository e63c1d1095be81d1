//! `csift search`'s other output forms, on real-shaped records: `--raw` (each
//! matched record's line, byte for byte) and the `--count-by` keys read from a
//! record or its pairing: `pairing`, `result`, `attachment`, `turn`.

use crate::common;

use std::collections::BTreeMap;

use common::{json_lines, Home, Session};
use serde_json::{json, Value};

const SID: &str = "f0f0f0f0-1111-4222-8333-444455556666";

/// One session: an answered Bash call, a failed Read, a call never answered
/// (the file ends on it, as a pending approval leaves it: TAIL-010), and a
/// result whose call is in no record of the file (its assistant record was
/// never written); attachments of two payload types (CLS-019, CLS-020).
fn pairing_home() -> (Home, std::path::PathBuf) {
    let mut s = Session::new(SID, "/w/app");
    s.user("run the tests please");
    s.tool_use(
        "msg_1",
        "toolu_ok",
        "Bash",
        json!({"command": "cargo test"}),
    );
    s.tool_result(
        "toolu_ok",
        "test result: ok. 12 passed",
        false,
        Some(json!({"stdout": "test result: ok. 12 passed", "stderr": "", "interrupted": false, "isImage": false})),
    );
    s.tool_use(
        "msg_2",
        "toolu_bad",
        "Read",
        json!({"file_path": "/w/app/nope.rs"}),
    );
    // REC-073: an errored result carries the error text, no structured echo.
    s.tool_result(
        "toolu_bad",
        "<tool_use_error>File does not exist.</tool_use_error>",
        true,
        Some(json!("Error: File does not exist.")),
    );
    s.push(json!({"type": "attachment", "attachment": {"type": "hook_success", "hookName": "PostToolUse:Read", "toolUseID": "toolu_bad", "hookEvent": "PostToolUse", "content": "", "stdout": "ok", "stderr": "", "exitCode": 0}}));
    s.push(json!({"type": "attachment", "attachment": {"type": "hook_success", "hookName": "PostToolUse:Bash", "toolUseID": "toolu_ok", "hookEvent": "PostToolUse", "content": "", "stdout": "ok", "stderr": "", "exitCode": 0}}));
    s.push(json!({"type": "attachment", "attachment": {"type": "hook_additional_context", "content": ["remember the tests"], "hookName": "UserPromptSubmit", "toolUseID": "x", "hookEvent": "UserPromptSubmit"}}));
    s.user("now the orphan");
    s.tool_result(
        "toolu_gone",
        "result of a call that was never written",
        false,
        None,
    );
    s.tool_use(
        "msg_3",
        "toolu_wait",
        "Bash",
        json!({"command": "rm -rf target"}),
    );
    let home = Home::new();
    let p = home.write("-w-app", &s.file_name(), &s.lines);
    (home, p)
}

/// `--count-by KEY` as a map key → hits (JSON rows; `null` keys as "null").
fn counted(home: &Home, args: &[&str]) -> BTreeMap<String, u64> {
    let out = home
        .cmd()
        .arg("search")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_lines(&out.stdout)
        .iter()
        .filter(|v| v["type"] == "count")
        .map(|v| {
            let k = match &v["key"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k, v["hits"].as_u64().unwrap())
        })
        .collect()
}

/// A call is answered or not, a result has its call or is an orphan (REC-075:
/// the two are joined only by the id, within the file; TAIL-010: a pending
/// call is the last record, with no result).
#[test]
fn count_by_pairing_tells_answered_unanswered_and_orphans_rec_075_tail_010() {
    let (home, _) = pairing_home();
    let calls = counted(
        &home,
        &["", "-t", "agent.tool.use", "--count-by", "pairing"],
    );
    assert_eq!(
        calls,
        BTreeMap::from([("answered".into(), 2), ("unanswered".into(), 1)])
    );
    let results = counted(
        &home,
        &["", "-t", "agent.tool.result", "--count-by", "pairing"],
    );
    assert_eq!(
        results,
        BTreeMap::from([("answered".into(), 2), ("orphan-result".into(), 1)])
    );
    // Any other unit has no pairing: key null.
    let all = counted(&home, &["", "--count-by", "pairing"]);
    assert_eq!(all["answered"], 4);
    assert_eq!(all["null"], 2, "the two prompts: {all:?}");
}

/// A result is `ok` or `error` by its is_error flag (REC-073); any other unit
/// has no result key.
#[test]
fn count_by_result_splits_ok_and_error_rec_073() {
    let (home, _) = pairing_home();
    let r = counted(
        &home,
        &["", "-t", "agent.tool.result", "--count-by", "result"],
    );
    assert_eq!(r, BTreeMap::from([("ok".into(), 2), ("error".into(), 1)]));
    let human = home
        .cmd()
        .args(["search", "", "--count-by", "result"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.lines().any(|l| l.trim() == "1  error"), "{text}");
    assert!(text.lines().any(|l| l.trim().ends_with("  -")), "{text}");
}

/// Attachment records counted by their payload's own type (CLS-020); asking
/// for the key reaches them without --attachments (they are skipped by
/// default), and a -t that names no attachment leaf still leaves them out.
#[test]
fn count_by_attachment_names_the_payload_type_cls_020_cls_019() {
    let (home, _) = pairing_home();
    let a = counted(&home, &["", "--count-by", "attachment"]);
    assert_eq!(a["hook_success"], 2, "{a:?}");
    assert_eq!(a["hook_additional_context"], 1, "{a:?}");
    let only = counted(
        &home,
        &["", "-t", "harness.meta.*", "--count-by", "attachment"],
    );
    assert_eq!(
        only,
        BTreeMap::from([
            ("hook_success".into(), 2),
            ("hook_additional_context".into(), 1)
        ])
    );
    let none = counted(
        &home,
        &["", "-t", "user.message", "--count-by", "attachment"],
    );
    assert_eq!(none, BTreeMap::from([("null".into(), 2)]));
}

/// Hits per turn, keyed by the transcript and the turn as search numbers it;
/// a lane's turns are its own.
#[test]
fn count_by_turn_keys_session_and_turn() {
    let (home, _) = pairing_home();
    let mut lane = Session::lane(SID, "/w/app", "a1b2c3d4e5f60718");
    lane.user("look for tests in the lane");
    lane.text("m_l1", "found the tests");
    home.write(
        "-w-app",
        &format!("{SID}/subagents/agent-a1b2c3d4e5f60718.jsonl"),
        &lane.lines,
    );
    let t = counted(&home, &["test", "--count-by", "turn"]);
    assert_eq!(
        t,
        BTreeMap::from([
            (format!("{SID}:1"), 3),
            (format!("{SID}@a1b2c3d4e5f60718:1"), 2),
        ]),
        "prompt, call and result of turn 1; the lane's prompt and reply"
    );
}

/// `--raw` prints each matched record's line as it is in the file: the same
/// bytes (a reserialised `"type": "user"` stays so, REC-038), every line once
/// however many of its units match, a glued line whole, in path order; `-m`
/// counts lines and says on stderr what it left out; JSON carries the line
/// as a string with its file and line.
#[test]
fn raw_prints_the_matched_lines_byte_for_byte_rec_038() {
    let (home, p) = pairing_home();
    let mut bytes = std::fs::read(&p).unwrap();
    // A reserialised record (spacing after the colons) and a glued pair.
    bytes.extend_from_slice(
        br#"{"type": "user", "uuid": "b0000000-0000-4000-8000-000000000001", "sessionId": "f0f0f0f0-1111-4222-8333-444455556666", "timestamp": "2026-01-01T01:00:00.000Z", "message": {"role": "user", "content": "raw tests, spaced"}}"#,
    );
    bytes.push(b'\n');
    let glued = r#"{"type":"user","uuid":"b0000000-0000-4000-8000-000000000002","timestamp":"2026-01-01T01:00:01.000Z","message":{"role":"user","content":"glued tests one"}}{"type":"user","uuid":"b0000000-0000-4000-8000-000000000003","timestamp":"2026-01-01T01:00:02.000Z","message":{"role":"user","content":"glued tests two"}}"#;
    bytes.extend_from_slice(glued.as_bytes());
    bytes.push(b'\n');
    std::fs::write(&p, &bytes).unwrap();
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();

    let out = home
        .cmd()
        .args(["search", "test", "--raw"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let printed: Vec<&[u8]> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    // The prompt, the call and its result (lines 1–3), the spaced line and
    // the glued line (both of its records match, printed once). The hook
    // context on line 8 says "tests" too, but attachments are skipped.
    let want: Vec<&[u8]> = [1usize, 2, 3, 12, 13]
        .iter()
        .map(|&n| lines[n - 1])
        .collect();
    assert_eq!(
        printed
            .iter()
            .map(|l| String::from_utf8_lossy(l))
            .collect::<Vec<_>>(),
        want.iter()
            .map(|l| String::from_utf8_lossy(l))
            .collect::<Vec<_>>()
    );
    assert!(printed.contains(&glued.as_bytes()));
    for l in &printed {
        serde_json::from_slice::<Value>(l).unwrap_or_else(|_| {
            assert_eq!(
                *l,
                glued.as_bytes(),
                "only the glued line is not one object"
            );
            Value::Null
        });
    }

    let out = home
        .cmd()
        .args(["search", "test", "--raw", "-m", "2"])
        .output()
        .unwrap();
    assert_eq!(
        out.stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count(),
        2
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("3 more matched lines not printed"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let rows = common::ok_json(
        home.cmd()
            .args(["search", "test", "--raw", "--format", "json"]),
    );
    let raw: Vec<&Value> = rows.iter().filter(|r| r["type"] == "raw").collect();
    assert_eq!(raw.len(), 5);
    for (r, w) in raw.iter().zip(&want) {
        assert_eq!(r["record"].as_str().unwrap().as_bytes(), *w);
        assert_eq!(r["session_id"], SID);
        assert_eq!(r["file"], p.display().to_string());
    }
    assert_eq!(raw[3]["line"], 12);
    let summary = rows.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["hits"], 6, "{summary}");

    // --raw prints records, not counts or exchanges: the two are exclusive.
    let out = home
        .cmd()
        .args(["search", "test", "--raw", "-c"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
