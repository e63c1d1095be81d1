//! `csift wait` with real processes: the wait runs as a child against a temp
//! home while a writer process (`sh`) appends real-shaped records, as Claude
//! Code does. Each test orders its writes after the readiness line on stderr,
//! as a caller must (MISC-020); the timeouts only bound a failure.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{Home, Session};

const SID: &str = "4d5611e5-0000-4000-8000-0000000000a1";
/// Bounds a failure only: a wait that works fires long before.
const LONG: &str = "60s";

fn state_dir(home: &Home) -> PathBuf {
    home.path().with_extension("state")
}

/// `csift wait ARGS` as a child; returns once its readiness line is out.
struct Waiter {
    child: Child,
    stderr: Receiver<String>,
    ready: String,
}

fn start(home: &Home, args: &[&str]) -> Waiter {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("csift"))
        .arg("wait")
        .args(args)
        .env("CLAUDE_CONFIG_DIR", home.path())
        .env("XDG_STATE_HOME", state_dir(home))
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let ready = loop {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(l) if l.starts_with("csift: watching") || l.starts_with("csift: waiting for") => {
                break l
            }
            Ok(_) => continue,
            Err(e) => panic!("no readiness line: {e}; exit {:?}", child.try_wait()),
        }
    };
    Waiter {
        child,
        stderr: rx,
        ready,
    }
}

impl Waiter {
    fn finish(self) -> (i32, String, String) {
        let out = self.child.wait_with_output().unwrap();
        let mut err = self.ready;
        while let Ok(l) = self.stderr.recv_timeout(Duration::from_millis(200)) {
            err.push('\n');
            err.push_str(&l);
        }
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            err,
        )
    }
}

/// Append `lines` to `file` from a separate writer process.
fn append(file: &Path, bytes: &str) {
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let st = Command::new("sh")
        .args(["-c", "printf '%s' \"$1\" >> \"$2\"", "sh", bytes])
        .arg(file)
        .status()
        .unwrap();
    assert!(st.success());
}

fn line(v: &Value) -> String {
    format!("{}\n", serde_json::to_string(v).unwrap())
}

fn now() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// A session that ran one Bash call and ended its turn: every condition of
/// the tests is already satisfied by this history.
fn session(home: &Home) -> (Session, PathBuf) {
    let mut s = Session::new(SID, "/home/ana/app");
    s.user("run the tests");
    s.tool_use(
        "msg_1",
        "toolu_01",
        "Bash",
        json!({"command": "cargo test", "description": "Run tests"}),
    );
    s.tool_result("toolu_01", "ok", false, None);
    s.push(
        json!({"type": "assistant", "message": {"model": "claude-opus-4-5-20251101", "id": "msg_2",
        "type": "message", "role": "assistant", "content": [{"type": "text", "text": "All green."}],
        "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}}),
    );
    let f = home.write("-home-ana-app", &s.file_name(), &s.lines);
    (s, f)
}

fn call(s: &mut Session, id: &str, name: &str, input: Value) -> String {
    s.tool_use("msg_9", id, name, input);
    let mut rec = s.lines.last().unwrap().clone();
    rec["timestamp"] = json!(now());
    line(&rec)
}

/// MISC-019, MISC-020, BG-038: history that satisfies every condition never
/// fires; the timeout exits 124 after saying what it saw.
#[test]
fn history_never_fires_and_timeout_is_124_misc_019_020() {
    let home = Home::new();
    session(&home);
    let w = start(
        &home,
        &[
            "@4d5611e5",
            "--until",
            "tool:Bash",
            "--until",
            "stop",
            "--until",
            "change",
            "--timeout",
            "1500ms",
        ],
    );
    assert!(
        w.ready.contains("watching 1 files from byte offsets"),
        "{}",
        w.ready
    );
    let (code, out, _) = w.finish();
    assert_eq!(code, 124, "{out}");
    assert!(out.starts_with("fired timeout"), "{out}");
    assert!(
        out.contains("nothing was written after the baseline"),
        "{out}"
    );
    assert!(out.contains("verdict idle-eot"), "{out}");
}

/// MISC-020: a Bash call appended after the readiness line fires, as JSON.
#[test]
fn a_post_start_bash_call_fires_misc_020() {
    let home = Home::new();
    let (mut s, f) = session(&home);
    let w = start(
        &home,
        &[
            "@4d5611e5",
            "--until",
            "tool:Bash",
            "--timeout",
            LONG,
            "--format",
            "json",
        ],
    );
    append(
        &f,
        &call(
            &mut s,
            "toolu_02",
            "Bash",
            json!({"command": "make deploy"}),
        ),
    );
    let (code, out, err) = w.finish();
    assert_eq!(code, 0, "{out}\n{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["type"], "wait");
    assert_eq!(v["fired"], "tool:Bash");
    assert_eq!(v["event"]["tool_use_id"], "toolu_02");
    assert_eq!(v["event"]["label"], "agent.tool.use");
    assert_eq!(v["event"]["line"], 5);
    assert!(v["event"]["text"].as_str().unwrap().contains("make deploy"));
    assert_eq!(v["activity"]["records"], 1);
    assert_eq!(v["activity"]["tools"]["Bash"], 1);
}

/// MISC-021, TAIL-016: a lane born after the start is read from its first byte.
#[test]
fn a_lane_created_after_the_start_fires_misc_021_tail_016() {
    let home = Home::new();
    let (_, f) = session(&home);
    let w = start(
        &home,
        &["@4d5611e5", "--until", "tool:Read", "--timeout", LONG],
    );
    let mut lane = Session::lane(SID, "/home/ana/app", "a8ec0f1e2d3c4b5a6");
    lane.user("look at the config");
    lane.tool_use(
        "msg_l1",
        "toolu_l1",
        "Read",
        json!({"file_path": "/home/ana/app/config.toml"}),
    );
    let path = f
        .with_extension("")
        .join("subagents/agent-a8ec0f1e2d3c4b5a6.jsonl");
    append(&path, &lane.lines.iter().map(line).collect::<String>());
    let (code, out, err) = w.finish();
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.starts_with("fired tool:Read: a Read call"), "{out}");
    assert!(out.contains("4d5611e5@a8ec0f1e2d3c4b5a6"), "{out}");
    assert!(out.contains("config.toml"), "{out}");
}

/// TAIL-012: a torn line is held, and fires once, whole, when its newline lands.
#[test]
fn a_torn_line_fires_once_completed_tail_012() {
    let home = Home::new();
    let (mut s, f) = session(&home);
    let rec = call(&mut s, "toolu_03", "Bash", json!({"command": "sleep 1"}));
    let (head, tail) = rec.split_at(rec.len() / 2);
    append(&f, head);
    let w = start(
        &home,
        &[
            "@4d5611e5",
            "--until",
            "change",
            "--timeout",
            LONG,
            "--format",
            "json",
        ],
    );
    append(&f, tail);
    let (code, out, err) = w.finish();
    assert_eq!(code, 0, "{out}\n{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["activity"]["records"], 1, "{out}");
    assert_eq!(v["event"]["tool_use_id"], "toolu_03");
}

/// A rewrite under the same name (a rename-replace) is re-baselined and said;
/// what it holds is history; a later append fires.
#[test]
fn a_rename_replace_rebaselines() {
    let home = Home::new();
    let (mut s, f) = session(&home);
    let w = start(
        &home,
        &["@4d5611e5", "--until", "tool:Bash", "--timeout", LONG],
    );
    let rewritten = s.lines.iter().map(line).collect::<String>()
        + &call(&mut s, "toolu_04", "Bash", json!({"command": "history"}));
    let tmp = f.with_extension("tmp");
    std::fs::write(&tmp, rewritten).unwrap();
    std::fs::rename(&tmp, &f).unwrap();
    // The wait must have seen the replace before the next append.
    let said = loop {
        match w.stderr.recv_timeout(Duration::from_secs(60)) {
            Ok(l) if l.contains("re-baselined") => break l,
            Ok(_) => continue,
            Err(e) => panic!("no re-baseline note: {e}"),
        }
    };
    assert!(said.contains("replaced"), "{said}");
    append(
        &f,
        &call(&mut s, "toolu_05", "Bash", json!({"command": "after"})),
    );
    let (code, out, err) = w.finish();
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("\"command\":\"after\""), "{out}");
}

/// A deleted transcript mid-wait is said, exit 2.
#[test]
fn a_deleted_transcript_exits_2() {
    let home = Home::new();
    let (_, f) = session(&home);
    let w = start(&home, &["@4d5611e5", "--until", "stop", "--timeout", LONG]);
    std::fs::remove_file(&f).unwrap();
    let (code, _, err) = w.finish();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("deleted while waiting"), "{err}");
}

/// A verdict condition fires on a verdict reached after the start: a fresh
/// prompt is owed a reply (running), then the turn ends (idle-eot).
#[test]
fn stop_fires_when_the_turn_ends_after_the_start_misc_020() {
    let home = Home::new();
    let mut s = Session::new(SID, "/home/ana/app");
    s.push(json!({"type": "user", "timestamp": now(), "message": {"role": "user", "content": "summarise the log"}}));
    let f = home.write("-home-ana-app", &s.file_name(), &s.lines);
    let w = start(&home, &["@4d5611e5", "--until", "stop", "--timeout", LONG]);
    let end = json!({"type": "assistant", "timestamp": now(), "message": {"model": "claude-opus-4-5-20251101",
        "id": "msg_e", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "Done."}],
        "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}});
    s.push(end);
    append(&f, &line(s.lines.last().unwrap()));
    let (code, out, err) = w.finish();
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.starts_with("fired stop: verdict idle-eot"), "{out}");
}

/// TAIL-015, REC-083: `write:` reads each file tool's own payload key.
#[test]
fn write_fires_on_an_edit_whose_new_string_matches_tail_015() {
    let home = Home::new();
    let (mut s, f) = session(&home);
    let w = start(
        &home,
        &[
            "@4d5611e5",
            "--until",
            r"write:src/.*\.rs:fn main",
            "--timeout",
            LONG,
        ],
    );
    append(
        &f,
        &call(
            &mut s,
            "toolu_06",
            "Edit",
            json!({"file_path": "/home/ana/app/README.md", "old_string": "a", "new_string": "fn main"}),
        ),
    );
    append(
        &f,
        &call(
            &mut s,
            "toolu_07",
            "Edit",
            json!({"file_path": "/home/ana/app/src/lib.rs", "old_string": "a", "new_string": "fn other"}),
        ),
    );
    append(
        &f,
        &call(
            &mut s,
            "toolu_08",
            "MultiEdit",
            json!({"file_path": "/home/ana/app/src/main.rs", "edits": [{"old_string": "a", "new_string": "fn main() {}"}]}),
        ),
    );
    let (code, out, err) = w.finish();
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("a MultiEdit of /home/ana/app/src/main.rs"),
        "{out}"
    );
}

/// QT-008: a task notification in the main lane fires `notification:REGEX`.
#[test]
fn a_task_notification_fires_qt_008() {
    let home = Home::new();
    let (mut s, f) = session(&home);
    let w = start(
        &home,
        &[
            "@4d5611e5",
            "--until",
            "notification:failed",
            "--timeout",
            LONG,
        ],
    );
    for (id, status) in [("b1x2c3v4n", "completed"), ("b9z8y7x6w", "failed")] {
        s.push(json!({"type": "user", "timestamp": now(), "message": {"role": "user", "content":
            format!("<task-notification>\n<task-id>{id}</task-id>\n<status>{status}</status>\n<summary>Background command \"make\" {status}</summary>\n</task-notification>")}}));
        append(&f, &line(s.lines.last().unwrap()));
    }
    let (code, out, err) = w.finish();
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("a task notification (b9z8y7x6w failed)"),
        "{out}"
    );
}

/// The polling fallback sees the same events.
#[test]
fn polling_fires_too() {
    let home = Home::new();
    let (mut s, f) = session(&home);
    let w = start(
        &home,
        &[
            "@4d5611e5",
            "--until",
            "tool:Bash",
            "--timeout",
            LONG,
            "--poll",
            "--interval",
            "50ms",
        ],
    );
    append(
        &f,
        &call(&mut s, "toolu_10", "Bash", json!({"command": "polled"})),
    );
    let (code, out, _) = w.finish();
    assert_eq!(code, 0, "{out}");
}

/// A target that names nothing is an error, unless --wait-for-start: then a
/// session that appears is read from its first byte.
#[test]
fn a_missing_target_waits_only_with_wait_for_start() {
    let home = Home::new();
    let out = crate::common::csift()
        .env("CLAUDE_CONFIG_DIR", home.path())
        .args(["wait", "@4d5611e5", "--until", "change", "--timeout", "5s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let w = start(
        &home,
        &[
            &format!("@{SID}"),
            "--wait-for-start",
            "--until",
            "tool:Bash",
            "--timeout",
            LONG,
        ],
    );
    assert!(w.ready.contains("waiting for"), "{}", w.ready);
    let mut s = Session::new(SID, "/home/ana/app");
    s.user("go");
    let first = s.lines.iter().map(line).collect::<String>()
        + &call(&mut s, "toolu_11", "Bash", json!({"command": "born"}));
    append(
        &home.projects().join("-home-ana-app").join(s.file_name()),
        &first,
    );
    let (code, out, err) = w.finish();
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("born"), "{out}");
}

/// MISC-019: no --timeout is refused with the reason; a malformed --until says
/// the grammar.
#[test]
fn bad_arguments_say_why_misc_019() {
    let home = Home::new();
    session(&home);
    let run = |args: &[&str]| {
        let o = crate::common::csift()
            .env("CLAUDE_CONFIG_DIR", home.path())
            .arg("wait")
            .args(args)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["@4d5611e5", "--until", "stop"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("never to return"), "{err}");
    let (code, err) = run(&["@4d5611e5", "--until", "tool", "--timeout", "1s"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("write:PATH_RE[:LINE_RE]"), "{err}");
}

/// Run `csift hooks record` as Claude Code runs a hook: payload on stdin.
fn record(home: &Home, payload: &Value) -> std::process::Output {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("csift"))
        .args(["hooks", "record"])
        .env("CLAUDE_CONFIG_DIR", home.path())
        .env("XDG_STATE_HOME", state_dir(home))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(c.stdin.as_mut().unwrap(), payload.to_string().as_bytes()).unwrap();
    c.wait_with_output().unwrap()
}

fn ask(session_dir_file: &Path, phase_event: &str, tool: &str, id: &str) -> Value {
    json!({"session_id": SID, "transcript_path": session_dir_file, "cwd": "/home/ana/app",
        "hook_event_name": phase_event, "tool_name": tool, "tool_use_id": id,
        "tool_input": {"questions": [{"question": "Which database for the queue?", "header": "DB",
            "multiSelect": false, "options": [{"label": "Postgres", "description": "the one we run"}]}]}})
}

/// ELI-008, ELI-015, ELI-019, TAIL-017: a single-question ask leaves no
/// transcript record; the recorder (a real hook process) writes the pending
/// line into csift's state dir, never under the Claude home; `wait --until
/// auq` fires on it and `status` says waiting-hitl with the question.
#[test]
fn the_recorder_feeds_wait_and_status_eli_008_015_019() {
    let home = Home::new();
    let (_, f) = session(&home);
    let w = start(&home, &["@4d5611e5", "--until", "auq", "--timeout", LONG]);
    let out = record(&home, &ask(&f, "PreToolUse", "AskUserQuestion", "toolu_q1"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (code, stdout, err) = w.finish();
    assert_eq!(code, 0, "{stdout}\n{err}");
    assert!(
        stdout.contains("fired auq: a pending AskUserQuestion"),
        "{stdout}"
    );
    assert!(stdout.contains("Which database for the queue?"), "{stdout}");
    let sidecar = state_dir(&home).join(format!("csift/elicitations/{SID}.jsonl"));
    assert!(sidecar.is_file());
    let under_home: Vec<_> = walk(home.path())
        .into_iter()
        .filter(|p| {
            p.ends_with("elicitations.jsonl") || p.to_string_lossy().contains("elicitations/")
        })
        .collect();
    assert!(under_home.is_empty(), "{under_home:?}");
    let status = crate::common::csift()
        .env("CLAUDE_CONFIG_DIR", home.path())
        .env("XDG_STATE_HOME", state_dir(&home))
        .args(["status", "@4d5611e5", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(
        String::from_utf8_lossy(&status.stdout)
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(v["verdict"], "waiting-hitl", "{v}");
    assert_eq!(v["waiting_for"]["source"], "sidecar");
    assert_eq!(v["waiting_for"]["detail"], "Which database for the queue?");
    // ELI-015: the PostToolUse resolves it.
    record(
        &home,
        &ask(&f, "PostToolUse", "AskUserQuestion", "toolu_q1"),
    );
    let status = crate::common::csift()
        .env("CLAUDE_CONFIG_DIR", home.path())
        .env("XDG_STATE_HOME", state_dir(&home))
        .args(["status", "@4d5611e5", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(
        String::from_utf8_lossy(&status.stdout)
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(v["verdict"], "idle-eot", "{v}");
}

/// ELI-010: an MCP elicitation is an in-memory callback: the transcript holds
/// the `mcp__` call and nothing more while the server waits on the human, so
/// only the recorder's sidecar says so; status reads it, and the
/// ElicitationResult event closes it.
#[test]
fn an_mcp_elicitation_is_said_only_by_the_sidecar_eli_010() {
    let home = Home::new();
    let (mut s, f) = session(&home);
    s.user("deploy it");
    append(&f, &line(s.lines.last().unwrap()));
    append(
        &f,
        &call(
            &mut s,
            "toolu_m1",
            "mcp__deployer__release",
            json!({"env": "prod"}),
        ),
    );
    let status = |home: &Home| -> Value {
        let out = crate::common::csift()
            .env("CLAUDE_CONFIG_DIR", home.path())
            .env("XDG_STATE_HOME", state_dir(home))
            .args(["status", "@4d5611e5", "--format", "json"])
            .output()
            .unwrap();
        let first = String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap()
            .to_string();
        serde_json::from_str(&first).unwrap()
    };
    let ev = |event: &str| {
        json!({"session_id": SID, "transcript_path": f, "cwd": "/home/ana/app",
            "hook_event_name": event, "mcp_server_name": "deployer", "elicitation_id": "el-1",
            "message": "Approve the production release?", "mode": "form"})
    };
    let out = record(&home, &ev("Elicitation"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = status(&home);
    assert_eq!(v["verdict"], "waiting-hitl", "{v}");
    assert_eq!(v["waiting_for"]["source"], "sidecar", "{v}");
    record(&home, &ev("ElicitationResult"));
    assert_ne!(status(&home)["verdict"], "waiting-hitl");
}

/// ELI-016: a rejected ask fires no PostToolUse; once its id is on the
/// transcript (the rejection's tool_result), the pending line is a ghost.
#[test]
fn a_rejected_ask_on_the_transcript_is_no_longer_pending_eli_016() {
    let home = Home::new();
    let (mut s, f) = session(&home);
    record(&home, &ask(&f, "PreToolUse", "ExitPlanMode", "toolu_p1"));
    s.tool_use(
        "msg_p",
        "toolu_p1",
        "ExitPlanMode",
        json!({"plan": "1. migrate"}),
    );
    s.tool_result(
        "toolu_p1",
        "The user doesn't want to proceed with this tool use. The tool use was rejected",
        true,
        None,
    );
    append(
        &f,
        &s.lines[s.lines.len() - 2..]
            .iter()
            .map(line)
            .collect::<String>(),
    );
    let status = crate::common::csift()
        .env("CLAUDE_CONFIG_DIR", home.path())
        .env("XDG_STATE_HOME", state_dir(&home))
        .args(["status", "@4d5611e5", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(
        String::from_utf8_lossy(&status.stdout)
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_ne!(v["verdict"], "waiting-hitl", "{v}");
}

/// A hook never blocks its session: garbage and bad arguments exit 0.
#[test]
fn the_recorder_fails_open() {
    let home = Home::new();
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("csift"))
        .args(["hooks", "record"])
        .env("XDG_STATE_HOME", state_dir(&home))
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(c.stdin.as_mut().unwrap(), b"not json").unwrap();
    let out = c.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a JSON object"));
    let out = crate::common::csift()
        .args(["hooks", "record", "--bogus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// MISC-009, SUB-021: `@main` is CLAUDE_CODE_SESSION_ID exactly; unset, it
/// says so. SUB-022, MISC-018, WIN-003: `@trap:MARKER` finds the transcript
/// whose Bash or PowerShell call carries the marker and `csift`; a miss says
/// to retry and names `@main`.
#[test]
fn main_and_trap_name_the_calling_session_misc_009_sub_022_win_003() {
    let home = Home::new();
    let (mut s, f) = session(&home);
    let list = |args: &[&str], env: Option<&str>| {
        let mut c = crate::common::csift();
        c.env("CLAUDE_CONFIG_DIR", home.path())
            .arg("list")
            .args(args);
        if let Some(e) = env {
            c.env("CLAUDE_CODE_SESSION_ID", e);
        }
        let o = c.output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, out, _) = list(&["@main"], Some(SID));
    assert_eq!(code, Some(0));
    assert!(out.starts_with("4d5611e5"), "{out}");
    let (code, _, err) = list(&["@main"], None);
    assert_eq!(code, Some(2));
    assert!(err.contains("CLAUDE_CODE_SESSION_ID is not set"), "{err}");
    let (code, _, err) = list(&["@trap:HeronLamp4821"], None);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("run the same command again") && err.contains("@main"),
        "{err}"
    );
    // Quoted in a Read is no trap; a PowerShell call carrying both is.
    append(
        &f,
        &call(
            &mut s,
            "toolu_t0",
            "Read",
            json!({"file_path": "/tmp/HeronLamp4821 csift"}),
        ),
    );
    assert_eq!(list(&["@trap:HeronLamp4821"], None).0, Some(2));
    let mut lane = Session::lane(SID, "/home/ana/app", "a77b1c2d3e4f5a6b7");
    lane.tool_use(
        "msg_t",
        "toolu_t1",
        "PowerShell",
        json!({"command": "echo HeronLamp4821; csift list @trap:HeronLamp4821"}),
    );
    append(
        &f.with_extension("")
            .join("subagents/agent-a77b1c2d3e4f5a6b7.jsonl"),
        &lane.lines.iter().map(line).collect::<String>(),
    );
    let (code, out, err) = list(&["@trap:HeronLamp4821"], None);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("a77b1c2d3e4f5a6b7"), "{out}");
}

/// ELI-018, TAIL-017, ELI-014: the session's folder is made lazily and the
/// sidecar beside the transcript (where the older recorder wrote it, keyed by
/// the top-level session) is born at the first ask: a wait started before
/// either exists sees it, in the older recorder's spelling.
#[test]
fn a_sidecar_born_beside_the_transcript_mid_wait_fires_hitl_eli_018() {
    let home = Home::new();
    let (_, f) = session(&home);
    assert!(!f.with_extension("").exists());
    let w = start(
        &home,
        &[
            "@4d5611e5",
            "--until",
            "hitl",
            "--timeout",
            LONG,
            "--format",
            "json",
        ],
    );
    let marker = json!({"type": "system", "csiftKind": "mcp-elicitation", "csiftPhase": "pending",
        "csiftKey": "db-server", "sessionId": SID, "timestamp": now(), "message": "Password for the staging db?"});
    append(
        &f.with_extension("").join("elicitations.jsonl"),
        &line(&marker),
    );
    let (code, out, err) = w.finish();
    assert_eq!(code, 0, "{out}\n{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["fired"], "hitl");
    assert_eq!(v["elicitation"]["kind"], "mcp-elicitation");
    assert_eq!(v["elicitation"]["detail"], "Password for the staging db?");
}

/// A record that moves no verdict (a running command's progress) does not
/// make an idle session "stop" again: a verdict condition needs the session
/// to move after the start (MISC-020).
#[test]
fn a_progress_record_does_not_fire_stop_misc_020() {
    let home = Home::new();
    let (mut s, f) = session(&home);
    let w = start(
        &home,
        &["@4d5611e5", "--until", "stop", "--timeout", "1500ms"],
    );
    s.push(json!({"type": "progress", "timestamp": now(), "toolUseID": "bash-progress-0",
        "parentToolUseID": "toolu_01", "data": {"type": "bash_progress", "output": "", "fullOutput": "",
        "elapsedTimeSeconds": 3, "totalLines": 0}}));
    append(&f, &line(s.lines.last().unwrap()));
    let (code, out, _) = w.finish();
    assert_eq!(code, 124, "{out}");
    assert!(out.contains("last seen:"), "{out}");
}

/// ELI-023, ELI-015: `hooks print --record` registers the five events, the
/// tool ones with the asking tools' matcher, each running this binary's
/// `hooks record`.
#[test]
fn hooks_print_record_wires_the_recorder_eli_023() {
    let out = crate::common::csift()
        .args(["hooks", "print", "--record", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hooks = v["hooks"].as_object().unwrap();
    assert_eq!(hooks.len(), 5);
    for ev in ["PreToolUse", "PostToolUse", "PostToolUseFailure"] {
        assert_eq!(
            hooks[ev][0]["matcher"], "AskUserQuestion|ExitPlanMode",
            "{ev}"
        );
    }
    assert!(hooks["Elicitation"][0].get("matcher").is_none());
    let cmd = hooks["ElicitationResult"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(cmd.ends_with("csift hooks record"), "{cmd}");
}
