//! `csift statusline`: Claude Code's status line. It prints one clean line for
//! a payload, counts as `usage` does, warns when audit would report eaten text,
//! and never exits non-zero, whatever arrives on stdin.

use crate::common;
use crate::robust;

use std::path::{Path, PathBuf};

use common::{Home, Session};
use serde_json::{json, Value};

fn statusline(home: &Path, state: &Path, payload: &[u8]) -> std::process::Output {
    common::csift()
        .env("XDG_STATE_HOME", state)
        .env("CLAUDE_CONFIG_DIR", home)
        .arg("statusline")
        .write_stdin(payload.to_vec())
        .timeout(robust::WATCHDOG)
        .output()
        .unwrap()
}

/// The one line, after the checks every run passes: exit 0, one line, no
/// control byte (names come from transcripts and payloads).
fn line(home: &Path, state: &Path, payload: &[u8]) -> String {
    let out = statusline(home, state, payload);
    let what = String::from_utf8_lossy(payload);
    assert_eq!(out.status.code(), Some(0), "payload {what:?}: {out:?}");
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 1, "payload {what:?}: {text:?}");
    assert!(text.ends_with('\n'));
    assert_eq!(robust::control_byte(&out.stdout), None, "{text:?}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    text.trim_end().to_string()
}

fn payload(sid: &str, path: &Path) -> Vec<u8> {
    json!({"hook_event_name": "Status", "session_id": sid, "transcript_path": path,
           "cwd": "/w/p", "model": {"id": "claude-opus-4-6", "display_name": "Opus"},
           "workspace": {"current_dir": "/w/p", "project_dir": "/w/p"},
           "cost": {"total_cost_usd": 0.5}})
    .to_string()
    .into_bytes()
}

fn sample() -> (PathBuf, String, PathBuf) {
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home");
    let sid = "ec31596d-4909-4dd2-b697-9468c3ecb9b6";
    let path = home.join(format!("projects/-Users-mara-code-ledgerline/{sid}.jsonl"));
    (home, sid.to_string(), path)
}

/// Acceptance: on the sample home it prints its line for a payload, with the
/// session's tokens and cost as `usage` counts them (the session and its lane).
#[test]
fn prints_its_line_for_the_sample_home() {
    let (home, sid, path) = sample();
    let state = tempfile::tempdir().unwrap();
    let l = line(&home, state.path(), &payload(&sid, &path));
    let out = common::csift()
        .env("XDG_STATE_HOME", state.path())
        .args([
            "usage",
            "--format",
            "json",
            "--by",
            "session",
            "--claude-home",
        ])
        .arg(&home)
        .output()
        .unwrap();
    let rows = common::json_lines(&out.stdout);
    let row = rows.iter().find(|r| r["key"] == sid.as_str()).unwrap();
    let cost = format!("${:.2}", row["cost_usd"].as_f64().unwrap());
    assert!(l.starts_with("Opus · session "), "{l}");
    assert!(
        l.contains(&format!("tok {cost} · today $0.00")),
        "{l} / {row}"
    );
    assert!(l.ends_with("no active block"), "{l}");
    // The cache gives the same line.
    assert_eq!(line(&home, state.path(), &payload(&sid, &path)), l);
}

/// A session whose response lost its text (two thinking records, no text:
/// the bug report's shape) carries the warning; audit reports the same.
#[test]
fn eaten_text_in_the_session_is_flagged_as_audit_finds_it() {
    let home = Home::new();
    let state = tempfile::tempdir().unwrap();
    let mut s = Session::new("bbbbbbbb-0000-4000-8000-000000000002", "/w/p");
    s.user("question");
    s.thinking("msg_e", "first");
    s.thinking("msg_e", "second");
    s.tool_use("msg_e", "t1", "Bash", json!({"command": "ls"}));
    let path = home.write("-w-p", &s.file_name(), &s.lines);
    let l = line(home.path(), state.path(), &payload(&s.id, &path));
    assert!(l.contains("⚠ eaten text ×1"), "{l}");
    let audit = home
        .cmd()
        .args(["audit", "-k", "eaten-text", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(audit.status.code(), Some(1), "audit finds it too");
    // A kept text block: no warning.
    let mut k = Session::new("cccccccc-0000-4000-8000-000000000003", "/w/p");
    k.thinking("msg_k", "a");
    k.text("msg_k", "the reply");
    let kept = home.write("-w-p", &k.file_name(), &k.lines);
    let l = line(home.path(), state.path(), &payload(&k.id, &kept));
    assert!(!l.contains("eaten"), "{l}");
}

/// Messages of the last minutes: today's cost and the active block.
#[test]
fn today_and_the_active_block() {
    let home = Home::new();
    let state = tempfile::tempdir().unwrap();
    let now = jiff::Timestamp::now();
    let at = |mins: i64| {
        now.checked_sub(jiff::SignedDuration::from_mins(mins))
            .unwrap()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    };
    let sid = "dddddddd-0000-4000-8000-000000000004";
    let rec = |id: &str, mins: i64| {
        json!({"type": "assistant", "timestamp": at(mins), "sessionId": sid, "uuid": format!("u-{id}"),
               "message": {"model": "claude-opus-4-6", "id": id, "role": "assistant",
               "content": [{"type": "text", "text": "x"}],
               "usage": {"input_tokens": 0, "output_tokens": 40_000, "cache_read_input_tokens": 0}}})
    };
    let path = home.write(
        "-w-p",
        &format!("{sid}.jsonl"),
        &[rec("m1", 3), rec("m2", 1)],
    );
    let l = line(home.path(), state.path(), &payload(sid, &path));
    // 80,000 output tokens at $25/MTok, over 2 minutes.
    assert!(l.contains("session 80.0k tok $2.00"), "{l}");
    assert!(
        l.contains("block ") && l.contains(" left · 40.0k/min"),
        "{l}"
    );
    // Midnight may fall between the two messages; today holds at least one.
    assert!(
        l.contains("today $2.00") || l.contains("today $1.00"),
        "{l}"
    );
}

/// A random JSON value (depth-bounded): every type, hostile strings, numbers
/// no f64 or u64 holds exactly, objects keyed by the payload's own field names.
fn random_value(next: &mut dyn FnMut() -> u64, depth: u32, path: &Path, home: &Path) -> Value {
    let strings = [
        String::new(),
        "/".into(),
        "/dev/null".into(),
        "/dev/zero".into(),
        "/nonexistent/x.jsonl".into(),
        "~/x.jsonl".into(),
        home.join("projects").to_string_lossy().into_owned(),
        path.to_string_lossy().into_owned(),
        "x".repeat(5000),
        "\u{1b}[31mred\u{7}\u{9b}2J".into(),
        "\u{202e}evil\u{0}".into(),
        "ec31596d".into(),
        "ec31596d-4909-4dd2-b697-9468c3ecb9b6".into(),
        "claude-opus-4-6".into(),
        "../../../../etc/passwd".into(),
    ];
    let keys = [
        "session_id",
        "transcript_path",
        "model",
        "id",
        "display_name",
        "cost",
        "total_cost_usd",
        "workspace",
        "current_dir",
        "project_dir",
        "cwd",
        "version",
    ];
    match next() % if depth == 0 { 5 } else { 7 } {
        0 => Value::Null,
        1 => json!(next().is_multiple_of(2)),
        2 => match next() % 4 {
            0 => json!(next() as i64),
            1 => json!(-1.5e300),
            2 => json!(next() as f64 / 7.0),
            _ => json!(u64::MAX),
        },
        3 | 4 => json!(strings[(next() % strings.len() as u64) as usize]),
        5 => Value::Array(
            (0..next() % 4)
                .map(|_| random_value(next, depth - 1, path, home))
                .collect(),
        ),
        _ => {
            let mut m = serde_json::Map::new();
            for _ in 0..next() % 5 {
                let k = keys[(next() % keys.len() as u64) as usize];
                m.insert(k.into(), random_value(next, depth - 1, path, home));
            }
            Value::Object(m)
        }
    }
}

/// Acceptance: a fuzzed payload never makes it exit non-zero. A property
/// test over ~200 payloads from a fixed seed: every prefix of a real payload,
/// real payloads with fields replaced by random JSON (every type, nested,
/// paths to nothing, a directory, a device and the real transcript, escape
/// bytes), byte flips of a real payload, and random bytes. Each prints one
/// clean line and exits 0, in both output forms.
#[test]
fn fuzzed_payloads_never_fail() {
    let (home, sid, path) = sample();
    let state = tempfile::tempdir().unwrap();
    let good = String::from_utf8(payload(&sid, &path)).unwrap();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let fields = [
        "session_id",
        "transcript_path",
        "model",
        "cost",
        "workspace",
        "cwd",
    ];
    let mut payloads: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"{".to_vec(),
        b"null".to_vec(),
        b"[]".to_vec(),
        b"\xff\xfe\x00garbage".to_vec(),
        format!("\u{feff}{good}").into_bytes(),
        good.as_bytes().repeat(3),
    ];
    for i in 0..good.len() / 12 {
        payloads.push(good.as_bytes()[..i * 12].to_vec());
    }
    for _ in 0..100 {
        let mut v: Value = serde_json::from_str(&good).unwrap();
        for _ in 0..1 + next() % 4 {
            let f = fields[(next() % fields.len() as u64) as usize];
            v[f] = random_value(&mut next, 3, &path, &home);
        }
        payloads.push(v.to_string().into_bytes());
    }
    for _ in 0..30 {
        let mut b = good.as_bytes().to_vec();
        for _ in 0..1 + next() % 6 {
            let i = (next() % b.len() as u64) as usize;
            b[i] = next() as u8;
        }
        payloads.push(b);
    }
    for _ in 0..30 {
        let n = (next() % 300) as usize;
        payloads.push((0..n).map(|_| next() as u8).collect());
    }
    assert!(payloads.len() >= 190, "{}", payloads.len());
    for (i, p) in payloads.iter().enumerate() {
        if i % 5 == 0 {
            let out = json_parts(&home, state.path(), p);
            assert_eq!(out["type"], "statusline", "{out}");
        } else {
            line(&home, state.path(), p);
        }
    }
    // Bad flags are no failure either (Claude Code runs whatever is configured).
    let out = common::csift()
        .args(["statusline", "--no-such-flag"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    // An unreadable home is no failure, and never shown as a $0.00 day.
    let out = common::csift()
        .env("XDG_STATE_HOME", state.path())
        .args(["statusline", "--claude-home", "/nonexistent/home"])
        .write_stdin(good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 1);
    assert_eq!(
        text.trim_end(),
        "Opus · usage n/a · session $0.50 (Claude Code's)"
    );
}

/// `--format json`: one object, exit 0, whatever the payload.
fn json_parts(home: &Path, state: &Path, payload: &[u8]) -> Value {
    let out = common::csift()
        .env("XDG_STATE_HOME", state)
        .env("CLAUDE_CONFIG_DIR", home)
        .args(["statusline", "--format", "json"])
        .write_stdin(payload.to_vec())
        .timeout(robust::WATCHDOG)
        .output()
        .unwrap();
    let what = String::from_utf8_lossy(payload);
    assert_eq!(out.status.code(), Some(0), "payload {what:?}: {out:?}");
    let lines = common::json_lines(&out.stdout);
    assert_eq!(lines.len(), 1, "payload {what:?}: {out:?}");
    lines.into_iter().next().unwrap()
}

/// The JSON form holds the line and its parts, as `usage` and `tasks` count
/// them; a payload naming nothing readable says why.
#[test]
fn the_json_form_holds_the_parts_of_the_line() {
    let (home, sid, path) = sample();
    let state = tempfile::tempdir().unwrap();
    let human = line(&home, state.path(), &payload(&sid, &path));
    let v = json_parts(&home, state.path(), &payload(&sid, &path));
    assert_eq!(v["line"], human.as_str());
    assert_eq!(v["model"], "Opus");
    assert_eq!(v["session_id"], sid.as_str());
    assert_eq!(v["error"], Value::Null);
    assert_eq!(
        v["open_tasks"], 0,
        "the sample's two background shells completed"
    );
    assert_eq!(v["eaten_text"], 0);
    assert_eq!(v["block"], Value::Null);
    let tok = v["session_tokens"].as_u64().unwrap();
    let usage = common::csift()
        .env("XDG_STATE_HOME", state.path())
        .args([
            "usage",
            "--format",
            "json",
            "--by",
            "session",
            "--claude-home",
        ])
        .arg(&home)
        .output()
        .unwrap();
    let rows = common::json_lines(&usage.stdout);
    let row = rows.iter().find(|r| r["key"] == sid.as_str()).unwrap();
    assert_eq!(tok, row["total"].as_u64().unwrap());
    assert_eq!(v["session_cost_usd"], row["cost_usd"]);
    let bad = common::csift()
        .env("XDG_STATE_HOME", state.path())
        .args([
            "statusline",
            "--format",
            "json",
            "--claude-home",
            "/nonexistent/home",
        ])
        .write_stdin(payload(&sid, &path))
        .output()
        .unwrap();
    let b = common::json_lines(&bad.stdout).pop().unwrap();
    assert_eq!(
        b["line"],
        "Opus · usage n/a · session $0.50 (Claude Code's)"
    );
    assert!(
        b["error"].as_str().unwrap().contains("/nonexistent/home"),
        "{b}"
    );
    assert_eq!(b["session_tokens"], Value::Null);
}

/// The session's background tasks still open are on the line, counted as
/// `tasks --open` lists them (its lanes' launches too, BG-014); completed and
/// killed ones are not (BG-010).
#[test]
fn open_background_tasks_are_on_the_line_bg_001_014() {
    let home = Home::new();
    let state = tempfile::tempdir().unwrap();
    let sid = "eeeeeeee-0000-4000-8000-000000000005";
    let mut s = Session::new(sid, "/w/p");
    s.user("start the servers");
    let bg = |s: &mut Session, msg: &str, id: &str, task: &str| {
        s.tool_use(
            msg,
            id,
            "Bash",
            json!({"command": "serve", "run_in_background": true}),
        );
        s.tool_result(id, &format!("Command running in background with ID: {task}. Output is being written to: /tmp/claude-1000/-w-p/{sid}/tasks/{task}.output"), false,
            Some(json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false, "backgroundTaskId": task})));
    };
    bg(&mut s, "m1", "toolu_a", "b00000001");
    bg(&mut s, "m2", "toolu_b", "b00000002");
    bg(&mut s, "m3", "toolu_c", "b00000003");
    s.user("<task-notification>\n<task-id>b00000002</task-id>\n<tool-use-id>toolu_b</tool-use-id>\n<status>completed</status>\n<summary>Background command \"serve\" completed (exit code 0)</summary>\n</task-notification>");
    s.text("m4", "Two servers are up.");
    let path = home.write("-w-p", &s.file_name(), &s.lines);
    let mut lane = Session::lane(sid, "/w/p", "a1111111111111111");
    lane.user("watch");
    bg(&mut lane, "l1", "toolu_l", "b00000004");
    home.write(
        "-w-p",
        &format!("{sid}/subagents/agent-a1111111111111111.jsonl"),
        &lane.lines,
    );
    let l = line(home.path(), state.path(), &payload(sid, &path));
    assert!(l.contains(" · 3 tasks"), "{l}");
    let open = home
        .cmd()
        .args(["tasks", "--open", "--format", "json"])
        .output()
        .unwrap();
    let n = common::json_lines(&open.stdout)
        .iter()
        .filter(|v| v["type"] == "background_task")
        .count();
    assert_eq!(n, 3, "tasks --open agrees");
    // The cache gives the same line; a completion appended drops the count.
    assert_eq!(line(home.path(), state.path(), &payload(sid, &path)), l);
    s.user("<task-notification>\n<task-id>b00000001</task-id>\n<tool-use-id>toolu_a</tool-use-id>\n<status>killed</status>\n</task-notification>");
    let path = home.write("-w-p", &s.file_name(), &s.lines);
    let l = line(home.path(), state.path(), &payload(sid, &path));
    assert!(l.contains(" · 2 tasks"), "{l}");
}

/// The warning counts what `audit -k eaten-text` finds in the session (its
/// transcript and lanes), on a generated home with planted eaten responses.
#[test]
fn the_warning_agrees_with_audit_on_a_generated_home() {
    let Some(gen) = common::generator() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
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
        .arg(&home)
        .arg("--truth")
        .arg(dir.path().join("truth.jsonl"))
        .status()
        .unwrap();
    assert!(st.success());
    let audit = common::csift()
        .args([
            "audit",
            "-k",
            "eaten-text",
            "--format",
            "json",
            "--claude-home",
        ])
        .arg(&home)
        .output()
        .unwrap();
    let mut per_session = std::collections::BTreeMap::<String, usize>::new();
    for f in common::json_lines(&audit.stdout) {
        if f["type"] == "finding" {
            *per_session
                .entry(f["session_id"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
    }
    assert!(
        !per_session.is_empty(),
        "the generator plants eaten responses"
    );
    let state = dir.path().join("state");
    let mains: Vec<PathBuf> = common::transcripts(&home)
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("/subagents/"))
        .filter(|p| {
            !p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("agent-")
        })
        .collect();
    for main in mains {
        let sid = main.file_stem().unwrap().to_string_lossy().into_owned();
        let l = line(&home, &state, &payload(&sid, &main));
        let want = per_session.get(&sid).copied().unwrap_or(0);
        let shown = l
            .split("⚠ eaten text ×")
            .nth(1)
            .map_or(0, |n| n.parse::<usize>().unwrap());
        assert_eq!(shown, want, "{sid}: {l}");
    }
}
