//! `csift status` with real parts: registry rows written as Claude Code writes
//! them (`procStart` from `LC_ALL=C TZ=UTC ps -o lstart= -p PID`, REG-010) for
//! real `sleep` processes this test spawns and kills, and real-shaped
//! transcripts whose tails are fresh. Claim ids name what each test pins.

use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use crate::common::{json_lines, Home, Session};

const SID: &str = "7f3c2a10-5b6e-4c8d-9e0f-112233445566";
const CWD: &str = "/home/ana/app";
const PROJECT: &str = "-home-ana-app";

/// RFC 3339 time `secs` ago, as Claude Code writes it (REC-005).
fn ago(secs: i64) -> String {
    let t = jiff::Timestamp::now().as_second() - secs;
    jiff::Timestamp::from_second(t)
        .unwrap()
        .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

/// A real process to point a registry row at.
fn sleeper() -> Child {
    Command::new("sleep")
        .arg("300")
        .stdin(Stdio::null())
        .spawn()
        .expect("spawn sleep")
}

/// `procStart` exactly as Claude Code computes it (REG-010: `LC_ALL=C TZ=UTC
/// ps -o lstart= -p PID`, trimmed).
fn proc_start(pid: u32) -> String {
    let out = Command::new("ps")
        .args(["-o", "lstart=", "-p", &pid.to_string()])
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .output()
        .expect("run ps");
    assert!(out.status.success(), "ps -p {pid} failed");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// This host's pid domain as a Linux Claude Code writes it (WIN-008).
fn pid_domain() -> String {
    let mid = std::fs::read_to_string("/etc/machine-id").unwrap_or_default();
    let ns = std::fs::read_link("/proc/self/ns/pid")
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    if mid.trim().is_empty() || ns.is_empty() {
        "linux".into()
    } else {
        format!("linux:{}:{ns}", mid.trim())
    }
}

/// A registry row with REG-001's key set.
fn row(pid: Value, proc_start: &str, status: &str) -> Value {
    json!({
        "pid": pid, "sessionId": SID, "cwd": CWD, "startedAt": now_ms() - 60_000,
        "procStart": proc_start, "version": "2.1.258", "peerProtocol": 1,
        "kind": "interactive", "entrypoint": "cli", "pidDomain": pid_domain(),
        "status": status, "updatedAt": now_ms() - 5_000, "statusUpdatedAt": now_ms() - 5_000
    })
}

fn write_row(h: &Home, pid: u32, v: &Value) {
    let dir = h.path().join("sessions");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{pid}.json")), v.to_string()).unwrap();
    // REG-016: the companion parses as JSON too and must not be read as a row.
    std::fs::write(
        dir.join(format!("{pid}.{}.key", "ab".repeat(32))),
        json!({"peerToken": "t", "procStart": "x"}).to_string(),
    )
    .unwrap();
}

/// A main transcript whose last record is an unreturned Bash call `age` s old.
fn in_a_bash_call(h: &Home, age: i64) -> std::path::PathBuf {
    let mut s = Session::new(SID, CWD);
    s.version = "2.1.258".into();
    s.push(json!({"type": "user", "timestamp": ago(age + 10),
        "message": {"role": "user", "content": "run the tests"}}));
    s.push(json!({"type": "assistant", "timestamp": ago(age), "message": {
        "model": "claude-opus-4-6", "id": "msg_1", "type": "message", "role": "assistant",
        "stop_reason": "tool_use", "content": [{"type": "tool_use", "id": "toolu_01Live",
        "name": "Bash", "input": {"command": "cargo test", "description": "Run tests", "timeout": 120000}}]}}));
    h.write(PROJECT, &s.file_name(), &s.lines)
}

/// A main transcript that ended its turn `age` s ago.
fn at_end_of_turn(h: &Home, age: i64) -> std::path::PathBuf {
    let mut s = Session::new(SID, CWD);
    s.version = "2.1.258".into();
    s.push(json!({"type": "user", "timestamp": ago(age + 10),
        "message": {"role": "user", "content": "hello"}}));
    s.push(
        json!({"type": "assistant", "timestamp": ago(age), "message": {
        "model": "claude-opus-4-6", "id": "msg_1", "type": "message", "role": "assistant",
        "stop_reason": "end_turn", "content": [{"type": "text", "text": "Hi."}]}}),
    );
    s.push(
        json!({"type": "system", "subtype": "turn_duration", "durationMs": 9000,
        "timestamp": ago(age - 1)}),
    );
    h.write(PROJECT, &s.file_name(), &s.lines)
}

/// `status @SID --format json`: the session line, its lanes, the summary, stderr.
fn status(h: &Home, extra: &[&str]) -> (Value, Vec<Value>, String, i32) {
    let out = h
        .cmd()
        .args(["status", &format!("@{SID}"), "--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    let lines = json_lines(&out.stdout);
    let session = lines
        .iter()
        .find(|v| v["type"] == "session")
        .cloned()
        .unwrap_or(Value::Null);
    (
        session,
        lines,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn because(v: &Value) -> String {
    v["because"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .unwrap_or_default()
}

/// The acceptance pair (REG-010, REG-013, MISC-022): a live process with a
/// fresh unreturned call is `running` (an unreturned call at the tail is a
/// live block, ELI-012, TAIL-001); killed, the same row is `stale-dead`.
#[test]
fn a_live_registered_process_runs_and_killed_is_stale_dead_reg_010_013() {
    let h = Home::new();
    in_a_bash_call(&h, 5);
    let mut child = sleeper();
    let pid = child.id();
    write_row(&h, pid, &row(json!(pid), &proc_start(pid), "busy"));
    let (s, _, err, code) = status(&h, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(s["verdict"], "running", "{s}");
    assert_eq!(s["pid_alive"], true);
    assert_eq!(s["registry_state"], "row");
    assert_eq!(s["registry"]["status"], "busy");
    assert!(because(&s).contains("procStart matches"), "{s}");
    assert!(because(&s).contains("unreturned Bash call"), "{s}");
    assert_eq!(s["tail"]["pending"]["tool_use_id"], "toolu_01Live");
    assert_eq!(s["tail"]["pending"]["line"], 2);

    child.kill().unwrap();
    child.wait().unwrap();
    let (s, _, err, code) = status(&h, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(s["verdict"], "stale-dead", "{s}");
    assert_eq!(s["pid_alive"], false);
    assert!(because(&s).contains("not running"), "{s}");
    assert!(because(&s).contains("the process ended mid-tool"), "{s}");
}

/// REG-013: a live pid whose start is not the row's is another process.
#[test]
fn a_reused_pid_with_the_wrong_start_is_stale_dead_reg_013() {
    let h = Home::new();
    in_a_bash_call(&h, 5);
    let mut child = sleeper();
    let pid = child.id();
    write_row(
        &h,
        pid,
        &row(json!(pid), "Mon Jan  5 03:04:05 2026", "busy"),
    );
    let (s, _, err, _) = status(&h, &[]);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(s["verdict"], "stale-dead", "{s}\n{err}");
    assert_eq!(s["pid_alive"], false);
    assert!(because(&s).contains("the pid was reused"), "{s}");
}

/// REG-003: a live pid, a busy row and a fresh end-of-turn tail is running
/// (the model is generating its next message); the same row idle is idle-eot.
/// REG-004: an hours-old statusUpdatedAt is a transition stamp, not a dead
/// heartbeat. REG-002: a status value csift does not know is not a running one.
#[test]
fn a_live_busy_row_with_a_fresh_tail_is_running_reg_003() {
    let h = Home::new();
    at_end_of_turn(&h, 3);
    let mut child = sleeper();
    let pid = child.id();
    write_row(&h, pid, &row(json!(pid), &proc_start(pid), "busy"));
    let (busy, _, _, _) = status(&h, &[]);
    write_row(&h, pid, &row(json!(pid), &proc_start(pid), "idle"));
    let (idle, _, _, _) = status(&h, &[]);
    write_row(&h, pid, &row(json!(pid), &proc_start(pid), "shell"));
    let (shell, _, _, _) = status(&h, &[]);
    let mut old = row(json!(pid), &proc_start(pid), "busy");
    old["statusUpdatedAt"] = json!(now_ms() - 3 * 3600 * 1000);
    write_row(&h, pid, &old);
    let (old_busy, _, _, _) = status(&h, &[]);
    write_row(&h, pid, &row(json!(pid), &proc_start(pid), "compacting"));
    let (odd, _, _, _) = status(&h, &[]);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(old_busy["verdict"], "running", "{old_busy}");
    assert!(
        because(&old_busy).contains("registry busy 3h00m"),
        "{old_busy}"
    );
    assert_eq!(odd["verdict"], "idle-eot", "{odd}");
    assert!(because(&odd).contains("registry compacting"), "{odd}");
    assert_eq!(busy["verdict"], "running", "{busy}");
    assert!(because(&busy).contains("registry busy"), "{busy}");
    assert_eq!(idle["verdict"], "idle-eot", "{idle}");
    // REG-003: `shell` is idle with a shell open, never a running state.
    assert_eq!(shell["verdict"], "idle-eot", "{shell}");
    assert!(
        shell["notes"]
            .to_string()
            .contains("idle with a background shell open"),
        "{shell}"
    );
}

/// REG-011, MISC-023: where `ps` fails for a live pid (busybox), /proc answers,
/// start time included, so the REG-010 guard still binds.
#[cfg(target_os = "linux")]
#[test]
fn a_failing_ps_falls_back_to_proc_reg_011() {
    let h = Home::new();
    in_a_bash_call(&h, 5);
    let mut child = sleeper();
    let pid = child.id();
    write_row(&h, pid, &row(json!(pid), &proc_start(pid), "busy"));
    let bin = tempfile::tempdir().unwrap();
    let fake = bin.path().join("ps");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho \"ps: invalid option -- 'p'\" >&2\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap()
    );
    let out = h
        .cmd()
        .env("PATH", &path)
        .args(["status", &format!("@{SID}"), "--format", "json"])
        .output()
        .unwrap();
    let alive = json_lines(&out.stdout)[0].clone();
    child.kill().unwrap();
    child.wait().unwrap();
    let out = h
        .cmd()
        .env("PATH", &path)
        .args(["status", &format!("@{SID}"), "--format", "json"])
        .output()
        .unwrap();
    let dead = json_lines(&out.stdout)[0].clone();
    assert_eq!(alive["verdict"], "running", "{alive}");
    assert!(because(&alive).contains("procStart matches"), "{alive}");
    assert_eq!(dead["verdict"], "stale-dead", "{dead}");
}

/// REG-013: an exited child not yet reaped still answers `ps`; /proc says it
/// is a zombie, an exited process.
#[cfg(target_os = "linux")]
#[test]
fn a_zombie_is_dead_reg_013() {
    let h = Home::new();
    in_a_bash_call(&h, 5);
    let mut child = sleeper();
    let pid = child.id();
    write_row(&h, pid, &row(json!(pid), &proc_start(pid), "busy"));
    child.kill().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let (s, _, _, _) = status(&h, &[]);
    child.wait().unwrap();
    assert_eq!(s["verdict"], "stale-dead", "{s}");
}

/// ELI-013, TAIL-010, REG-002: a waiting row names the dialog; a pending
/// permission prompt is seen only there.
#[test]
fn a_waiting_row_is_waiting_hitl_with_its_reason_eli_013() {
    let h = Home::new();
    in_a_bash_call(&h, 5);
    let mut child = sleeper();
    let pid = child.id();
    let mut r = row(json!(pid), &proc_start(pid), "waiting");
    r["waitingFor"] = json!("permission prompt");
    write_row(&h, pid, &r);
    let (s, _, _, _) = status(&h, &[]);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(s["verdict"], "waiting-hitl", "{s}");
    assert_eq!(s["waiting_for"]["reason"], "permission prompt");
    assert_eq!(s["waiting_for"]["source"], "registry");
}

/// The bad-input section: a pid that is no number, a procStart in an unknown
/// form (WIN-007: neither asctime nor FILETIME), a torn row (REG-017) - each
/// said, `unknown` with the reason.
#[test]
fn bad_registry_input_is_unknown_with_the_reason_reg_017() {
    let h = Home::new();
    in_a_bash_call(&h, 5);
    write_row(
        &h,
        4242,
        &row(json!("abc"), "Sun Aug 16 09:04:23 2026", "busy"),
    );
    let (s, _, _, code) = status(&h, &[]);
    assert_eq!(code, 0);
    assert_eq!(s["verdict"], "unknown", "{s}");
    assert!(because(&s).contains("is not a number"), "{s}");

    let mut child = sleeper();
    let pid = child.id();
    std::fs::remove_dir_all(h.path().join("sessions")).unwrap();
    write_row(
        &h,
        pid,
        &row(json!(pid), "the day before yesterday", "busy"),
    );
    let (s, _, _, _) = status(&h, &[]);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(s["verdict"], "unknown", "{s}");
    assert!(
        because(&s).contains("unknown form") || because(&s).contains("cannot read"),
        "{s}"
    );

    std::fs::remove_dir_all(h.path().join("sessions")).unwrap();
    std::fs::create_dir_all(h.path().join("sessions")).unwrap();
    std::fs::write(
        h.path().join("sessions/77.json"),
        format!(r#"{{"pid":77,"sessionId":"{SID}","cwd":"/w","stat"#),
    )
    .unwrap();
    let (s, _, err, code) = status(&h, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(s["verdict"], "unknown", "{s}");
    assert_eq!(s["registry_state"], "unreadable");
    assert!(
        err.contains("77.json") && err.contains("mid-write"),
        "{err}"
    );
}

/// Missing sessions/ and tasks/ (older Claude Code): said once, verdicts from
/// the transcripts alone. TAIL-006, TAIL-014: metadata lines after the turn's
/// end (the file grows while idle) change nothing.
#[test]
fn no_registry_is_said_once_and_transcripts_decide() {
    let h = Home::new();
    at_end_of_turn(&h, 30);
    let mut other = Session::new("0a0a0a0a-1111-4222-8333-444455556666", CWD);
    other.user("x");
    other.push(json!({"type": "assistant", "timestamp": ago(40), "message": {"id": "m", "role": "assistant",
        "stop_reason": "end_turn", "content": [{"type": "text", "text": "ok"}]}}));
    other.push(json!({"type": "attachment", "timestamp": ago(2), "attachment": {"type": "hook_success", "content": ""}}));
    other.raw(json!({"type": "last-prompt", "lastPrompt": "x", "sessionId": "0a0a0a0a-1111-4222-8333-444455556666"}));
    h.write(PROJECT, &other.file_name(), &other.lines);
    let out = h
        .cmd()
        .args(["status", "--format", "json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("no session registry").count(), 1, "{err}");
    assert_eq!(err.matches("no task list folder").count(), 1, "{err}");
    let lines = json_lines(&out.stdout);
    let sessions: Vec<&Value> = lines.iter().filter(|v| v["type"] == "session").collect();
    assert_eq!(sessions.len(), 2);
    assert!(sessions
        .iter()
        .all(|s| s["verdict"] == "idle-eot" && s["registry_state"] == "no-registry"));
    let summary = lines.last().unwrap();
    assert_eq!(summary["registry"]["present"], false);
}

/// TAIL-004, TAIL-005, TAIL-007: a lane written seconds ago with no end_turn is
/// generating, and the session waits on it; the same lane with an end_turn is
/// settled. REG-006: a lane has no registry row; its id names its session.
#[test]
fn a_generating_lane_makes_the_session_wait_on_children_tail_004() {
    let h = Home::new();
    let mut s = Session::new(SID, CWD);
    s.push(json!({"type": "user", "timestamp": ago(100), "message": {"role": "user", "content": "fan out"}}));
    s.push(json!({"type": "assistant", "timestamp": ago(90), "message": {"id": "m1", "role": "assistant",
        "stop_reason": "end_turn", "content": [{"type": "text", "text": "Started an agent in the background."}]}}));
    h.write(PROJECT, &s.file_name(), &s.lines);
    let mut lane = Session::lane(SID, CWD, "a8ec01234567890ab");
    lane.push(json!({"type": "user", "timestamp": ago(60), "message": {"role": "user", "content": "do it"}}));
    lane.push(json!({"type": "assistant", "timestamp": ago(12), "message": {"id": "m2", "role": "assistant",
        "stop_reason": null, "content": [{"type": "thinking", "thinking": "hmm", "signature": "c2ln"}]}}));
    let rel = format!("{SID}/subagents/agent-a8ec01234567890ab.jsonl");
    h.write(PROJECT, &rel, &lane.lines);
    let (v, lines, _, _) = status(&h, &[]);
    assert_eq!(v["verdict"], "waiting-children", "{v}");
    assert!(because(&v).contains("lane a8ec0123 generating"), "{v}");
    let l = lines.iter().find(|l| l["type"] == "lane").unwrap();
    assert_eq!(l["state"], "generating");
    assert_eq!(l["agent_id"], "a8ec01234567890ab");
    let out = h
        .cmd()
        .args(["status", "@a8ec0123", "--format", "json"])
        .output()
        .unwrap();
    let by_lane = json_lines(&out.stdout);
    assert_eq!(
        by_lane[0]["session_id"], SID,
        "a lane target judges its session"
    );
    lane.push(json!({"type": "assistant", "timestamp": ago(5), "message": {"id": "m3", "role": "assistant",
        "stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}}));
    h.write(PROJECT, &rel, &lane.lines);
    let (v, _, _, _) = status(&h, &[]);
    assert_eq!(v["verdict"], "idle-eot", "{v}");
}

/// TAIL-001, BASH-018, BASH-027: with no process to probe, a Bash call past
/// its timeout is not running - not returned is not proof of running; a fresh
/// one is; a question at the tail waits on a human (ELI-009). QT-015, QT-016:
/// a turn_duration after a tool result is no end of turn. ELI-008, TAIL-010:
/// with a registry but no row, an idle verdict says a prompt cannot be ruled out.
#[test]
fn without_a_registry_the_tail_decides_and_says_what_it_cannot_tail_001() {
    let h = Home::new();
    in_a_bash_call(&h, 5);
    let (fresh, _, _, _) = status(&h, &[]);
    assert_eq!(fresh["verdict"], "running", "{fresh}");
    assert_eq!(fresh["pid_alive"], Value::Null);
    in_a_bash_call(&h, 3600);
    let (stale, _, _, _) = status(&h, &[]);
    assert_eq!(stale["verdict"], "unknown", "{stale}");
    assert!(
        because(&stale).contains("not returned is not proof of running"),
        "{stale}"
    );
    assert!(
        because(&stale).contains("past its plausible life"),
        "{stale}"
    );

    let mut s = Session::new(SID, CWD);
    s.push(json!({"type": "user", "timestamp": ago(7300), "message": {"role": "user", "content": "go"}}));
    s.push(json!({"type": "assistant", "timestamp": ago(7200), "message": {"id": "m0", "role": "assistant",
        "stop_reason": "tool_use", "content": [{"type": "tool_use", "id": "toolu_r", "name": "Read", "input": {"file_path": "/a"}}]}}));
    s.tool_result("toolu_r", "text", false, None);
    s.system(
        "turn_duration",
        json!({"durationMs": 100, "timestamp": ago(7100)}),
    );
    h.write(PROJECT, &s.file_name(), &s.lines);
    let (td, _, _, _) = status(&h, &[]);
    assert_eq!(td["verdict"], "unknown", "{td}");
    assert!(
        because(&td).contains("owes a reply to a tool result"),
        "{td}"
    );
    at_end_of_turn(&h, 30);
    std::fs::create_dir_all(h.path().join("sessions")).unwrap();
    let (norow, _, _, _) = status(&h, &[]);
    std::fs::remove_dir_all(h.path().join("sessions")).unwrap();
    assert_eq!(norow["verdict"], "idle-eot", "{norow}");
    assert_eq!(norow["registry_state"], "no-row");
    assert!(
        norow["notes"]
            .to_string()
            .contains("leaves no transcript trace"),
        "{norow}"
    );

    let mut s = Session::new(SID, CWD);
    s.push(json!({"type": "user", "timestamp": ago(70), "message": {"role": "user", "content": "plan it"}}));
    s.push(json!({"type": "assistant", "timestamp": ago(60), "message": {"id": "m1", "role": "assistant",
        "stop_reason": "tool_use", "content": [{"type": "tool_use", "id": "toolu_q", "name": "AskUserQuestion",
        "input": {"questions": [{"question": "Which route?", "header": "Route", "multiSelect": false,
        "options": [{"label": "A", "description": "a"}, {"label": "B", "description": "b"}]},
        {"question": "Ship today?", "header": "Ship", "multiSelect": false,
        "options": [{"label": "Yes", "description": "y"}, {"label": "No", "description": "n"}]}]}}]}}));
    h.write(PROJECT, &s.file_name(), &s.lines);
    let (q, _, _, _) = status(&h, &[]);
    assert_eq!(q["verdict"], "waiting-hitl", "{q}");
    assert_eq!(q["waiting_for"]["reason"], "AskUserQuestion");
    assert_eq!(q["waiting_for"]["source"], "tail");
}

/// BASH-015/016, SUB-024, TAIL-010: an unreturned Bash call that Claude Code's
/// dangerous-rm rule holds for a human "Yes" is `waiting-hitl` with reason
/// `dangerous-rm`, however old (it never ran, so its timeout does not bound it);
/// the same shape with a safe command an hour old is past its life.
#[test]
fn a_held_dangerous_rm_is_waiting_hitl_bash_015_sub_024() {
    let h = Home::new();
    let held = |command: &str| {
        let mut s = Session::new(SID, CWD);
        s.version = "2.1.258".into();
        s.push(json!({"type": "user", "timestamp": ago(3610),
            "message": {"role": "user", "content": "clean the build"}}));
        s.push(
            json!({"type": "assistant", "timestamp": ago(3600), "message": {
            "model": "claude-opus-4-6", "id": "msg_rm", "type": "message", "role": "assistant",
            "stop_reason": "tool_use", "content": [{"type": "tool_use", "id": "toolu_01Rm",
            "name": "Bash", "input": {"command": command, "description": "Clean"}}]}}),
        );
        h.write(PROJECT, &s.file_name(), &s.lines);
        status(&h, &[]).0
    };
    let v = held("rm -rf $BUILD_DIR/*");
    assert_eq!(v["verdict"], "waiting-hitl", "{v}");
    assert_eq!(v["waiting_for"]["reason"], "dangerous-rm", "{v}");
    assert_eq!(v["waiting_for"]["source"], "tail");
    let detail = v["waiting_for"]["detail"].as_str().unwrap_or_default();
    assert!(detail.starts_with("Dangerous rm operation"), "{v}");
    assert!(detail.ends_with("rm -rf $BUILD_DIR/*"), "{v}");
    let safe = held("rm -rf build/");
    assert_eq!(safe["verdict"], "unknown", "{safe}");
}

/// BG-003, TAIL-011, QT-012, BG-031: a backgrounded shell pairs at once, so the
/// tail shows nothing pending, and the turn_duration written at the turn's end
/// says nothing of it; the ledger keeps it open and the verdict says so.
#[test]
fn an_open_background_shell_after_end_turn_is_idle_background_open_bg_003() {
    let h = Home::new();
    let mut s = Session::new(SID, CWD);
    s.push(json!({"type": "user", "timestamp": ago(100), "message": {"role": "user", "content": "start the server"}}));
    s.push(json!({"type": "assistant", "timestamp": ago(95), "message": {"id": "m1", "role": "assistant",
        "stop_reason": "tool_use", "content": [{"type": "tool_use", "id": "toolu_bg", "name": "Bash",
        "input": {"command": "npm run dev", "description": "Start dev server", "run_in_background": true}}]}}));
    s.push(json!({"type": "user", "timestamp": ago(94), "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_bg", "is_error": false,
         "content": "Command running in background with ID: bdev12345. Output is being written to: /tmp/claude-1000/-home-ana-app/x/tasks/bdev12345.output"}]},
        "toolUseResult": {"stdout": "", "stderr": "", "interrupted": false, "isImage": false,
         "noOutputExpected": false, "backgroundTaskId": "bdev12345"}}));
    s.push(json!({"type": "assistant", "timestamp": ago(90), "message": {"id": "m2", "role": "assistant",
        "stop_reason": "end_turn", "content": [{"type": "text", "text": "The server is starting."}]}}));
    s.push(json!({"type": "system", "subtype": "turn_duration", "durationMs": 10000, "timestamp": ago(89)}));
    h.write(PROJECT, &s.file_name(), &s.lines);
    let (v, _, _, _) = status(&h, &[]);
    assert_eq!(v["verdict"], "idle-background-open", "{v}");
    assert_eq!(v["open_background"], 1);
    assert!(v["tail"]["pending"].is_null(), "TAIL-011: {v}");
    let out = h
        .cmd()
        .args(["status", &format!("@{SID}")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("idle-background-open") && text.contains("1 shell"),
        "{text}"
    );
}

/// The default selection: sessions written in the last 24 h (by file time),
/// `--since` narrows it, `--all` takes every session; none is exit 1.
#[test]
fn the_default_selection_is_the_last_24_hours() {
    let h = Home::new();
    let p = at_end_of_turn(&h, 30);
    let old = std::fs::File::options().write(true).open(&p).unwrap();
    old.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3 * 86_400))
        .unwrap();
    drop(old);
    let out = h.cmd().args(["status"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no session active (last 24 h)"));
    let out = h.cmd().args(["status", "--since", "4d"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let out = h
        .cmd()
        .args(["status", "--all", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.last().unwrap()["window"], "all");
    let out = h.cmd().args(["status", "--until", "1d"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// MISC-022: the verdict names are the closed wire set the help lists.
#[test]
fn verdict_names_are_the_wire_set_misc_022() {
    let out = crate::common::csift()
        .args(["status", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for v in [
        "stale-dead",
        "waiting-hitl",
        "running",
        "waiting-children",
        "idle-background-open",
        "idle-eot",
        "unknown",
    ] {
        assert!(help.contains(v), "{v} missing from the help");
    }
    assert!(help.contains("Examples:"));
}

/// Every status run over the public corpus decides without a crash, and every
/// session of it is judged.
#[test]
fn corpus_every_session_is_judged() {
    let Some(c) = crate::common::corpus() else {
        return;
    };
    let out = crate::common::csift()
        .args(["status", "--all", "--format", "json", "--claude-home"])
        .arg(&c)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stdout);
    let sessions = lines.iter().filter(|v| v["type"] == "session").count();
    let mains = crate::common::transcripts(&c)
        .iter()
        .filter(|p| {
            !p.to_string_lossy().contains("/subagents/")
                && !p
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("agent-")
        })
        .count();
    assert!(sessions >= mains, "{sessions} sessions, {mains} main files");
    let d6 = lines
        .iter()
        .find(|v| v["session_id"] == "d6e0bada-1959-4eec-a9d2-0bfade768d8f")
        .unwrap();
    // BG-001: its `mix phx.server` launch never came back.
    assert_eq!(d6["open_background"], 1, "{d6}");
}
