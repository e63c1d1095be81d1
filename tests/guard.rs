//! `csift guard`: both arms driven through multi-fire sequences over real-shaped
//! transcripts that grow between fires, as Claude Code's writer appends them.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::{csift, Session};
use serde_json::{json, Value};

struct Live {
    dir: tempfile::TempDir,
    path: PathBuf,
    s: Session,
    written: usize,
}

impl Live {
    fn new() -> Live {
        let dir = tempfile::tempdir().unwrap();
        let path = dir
            .path()
            .join("home/projects/-w-app/4f1c0d2e-1111-4222-8333-944455556666.jsonl");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "").unwrap();
        let mut s = Session::new("4f1c0d2e-1111-4222-8333-944455556666", "/w/app");
        s.version = "2.1.225".into();
        Live {
            dir,
            path,
            s,
            written: 0,
        }
    }

    /// Append the records built since the last flush (the writer catching up).
    fn flush(&mut self) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .unwrap();
        for v in &self.s.lines[self.written..] {
            writeln!(f, "{}", serde_json::to_string(v).unwrap()).unwrap();
        }
        self.written = self.s.lines.len();
    }

    fn state_dir(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    fn state(&self) -> Value {
        let p = self
            .state_dir()
            .join("4f1c0d2e-1111-4222-8333-944455556666.json");
        serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
    }

    fn payload(&self, prompt: &str, last: Option<&str>) -> String {
        let mut v = json!({
            "session_id": self.s.id, "transcript_path": self.path, "prompt_id": prompt,
            "cwd": "/w/app", "hook_event_name": "PostToolUse",
        });
        if let Some(l) = last {
            v["last_assistant_message"] = json!(l);
            v["hook_event_name"] = json!("Stop");
        }
        v.to_string()
    }

    fn fire(&self, arm: &str, stdin: &str) -> (i32, String) {
        let out = csift()
            .env("HOME", self.dir.path())
            .args(["guard", arm, "--state-dir"])
            .arg(self.state_dir())
            .write_stdin(stdin.to_string())
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn post(&self, prompt: &str) -> (i32, String) {
        self.fire("--post", &self.payload(prompt, None))
    }

    fn stop(&self, prompt: &str, last: &str) -> (i32, String) {
        self.fire("--stop", &self.payload(prompt, Some(last)))
    }

    /// The eaten shape: [thinking][thinking][tool_use] under one message.id.
    fn eaten(&mut self, mid: &str, tool: &str) {
        self.s.thinking(mid, "Let me check the config first.");
        self.s
            .thinking(mid, "Actually the failing case needs the full suite.");
        self.s
            .tool_use(mid, tool, "Bash", json!({"command": "cargo test"}));
    }

    /// A kept response: [thinking][text][tool_use].
    fn kept(&mut self, mid: &str, tool: &str) {
        self.s.thinking(mid, "Plan the edit.");
        self.s.text(mid, "I'll run the tests now.");
        self.s
            .tool_use(mid, tool, "Bash", json!({"command": "cargo test"}));
    }

    fn result(&mut self, tool: &str) {
        self.s.tool_result(
            tool,
            "ok",
            false,
            Some(json!({"stdout": "ok", "stderr": "", "interrupted": false})),
        );
    }

    fn events(&self) -> Vec<Value> {
        std::fs::read_to_string(self.state_dir().join("events.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

fn kinds(ev: &[Value]) -> Vec<String> {
    ev.iter()
        .map(|e| e["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn hit_surfaced_mid_turn_then_footer_clears_it() {
    let mut l = Live::new();
    l.s.user("fix the flaky test");
    l.eaten("msg_01QvAoxt4w3S9", "toolu_1");
    l.flush();
    let (code, err) = l.post("p1");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("[eaten-text] 1 mid-turn text(s)"), "{err}");
    assert!(err.contains("..oxt4w3S9 00:00"), "{err}");
    assert!(err.contains("[recovered: 1]"), "{err}");
    assert_eq!(l.state()["surfaced"][0]["prompt"], "p1");
    // The tool result lands, another tool runs: nothing new, never re-flagged.
    l.result("toolu_1");
    l.kept("msg_02", "toolu_2");
    l.flush();
    assert_eq!(l.post("p1").0, 0);
    let (code, err) = l.stop(
        "p1",
        "All green. The config was stale, as I said. [recovered: 1]",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(l.state()["surfaced"], json!([]));
    assert_eq!(kinds(&l.events()), ["surface", "marker-ok"]);
    assert_eq!(
        l.post("p2").0,
        0,
        "a flagged response is never flagged again"
    );
}

#[test]
fn missing_footer_blocks_once_then_caps() {
    let mut l = Live::new();
    l.s.user("go");
    l.eaten("msg_01Eaten", "toolu_1");
    l.flush();
    assert_eq!(l.post("p1").0, 2);
    let (code, err) = l.stop("p1", "Done.");
    assert_eq!(code, 2, "first failure blocks");
    assert!(
        err.contains("lacks a covering '[recovered: N]' footer"),
        "{err}"
    );
    assert_eq!(l.state()["consec_blocks"], 1);
    let (code, _) = l.stop("p1", "Done, really.");
    assert_eq!(code, 0, "the second consecutive failure is capped");
    assert_eq!(
        l.state()["surfaced"].as_array().unwrap().len(),
        1,
        "ids are kept, never dropped"
    );
    let ev = l.events();
    assert_eq!(kinds(&ev), ["surface", "footer-block", "footer-block"]);
    assert_eq!(ev[2]["capped"], true);
    // Next prompt: the unverified id is stale, rides carryover, and is re-delivered.
    l.s.user("next thing");
    l.kept("msg_03", "toolu_3");
    l.flush();
    assert_eq!(l.stop("p2", "ok").0, 0);
    assert_eq!(
        l.state()["consec_blocks"],
        0,
        "a fire without failure resets the counter"
    );
    let (code, err) = l.post("p3");
    assert_eq!(code, 2);
    assert!(err.contains("turn boundary"), "{err}");
}

#[test]
fn empty_last_message_fails_open_without_blocking() {
    let mut l = Live::new();
    l.s.user("go");
    l.eaten("msg_01E", "toolu_1");
    l.flush();
    assert_eq!(l.post("p1").0, 2);
    assert_eq!(l.stop("p1", "").0, 0);
    assert_eq!(kinds(&l.events()), ["surface", "marker-unverifiable"]);
    assert_eq!(l.state()["surfaced"].as_array().unwrap().len(), 1);
}

#[test]
fn writer_lag_straddles_fires_tail_003() {
    let mut l = Live::new();
    l.s.user("go");
    l.kept("msg_00", "toolu_0");
    l.result("toolu_0");
    l.flush();
    assert_eq!(l.post("p1").0, 0);
    // Only the first thinking record of the next response is on disk yet.
    l.s.thinking("msg_01Lag", "first half");
    l.flush();
    assert_eq!(l.post("p1").0, 0);
    assert_eq!(
        l.state()["carry"].as_array().unwrap().last().unwrap()["thinking"],
        1
    );
    l.s.thinking("msg_01Lag", "second half");
    l.s.tool_use("msg_01Lag", "toolu_2", "Bash", json!({"command": "ls"}));
    l.flush();
    let (code, err) = l.post("p1");
    assert_eq!(code, 2, "carried counts complete the group: {err}");
    assert!(err.contains("..sg_01Lag"), "{err}");
}

/// REC-091: a resume re-appends the history under the same uuids. A replayed
/// `[thinking][tool_use]` response, in the same fire or a later one, is the
/// same record and must not complete a phantom eaten group.
#[test]
fn a_replayed_response_is_not_eaten_rec_091() {
    let mut l = Live::new();
    l.s.user("go");
    l.s.thinking("msg_01Re", "Plan.");
    l.s.tool_use("msg_01Re", "toolu_1", "Bash", json!({"command": "ls"}));
    l.result("toolu_1");
    l.flush();
    assert_eq!(l.post("p1").0, 0);
    // The resume replays those three records, byte for byte.
    let copies: Vec<Value> = l.s.lines[1..4].to_vec();
    for v in copies {
        l.s.raw(v);
    }
    l.flush();
    let (code, err) = l.post("p1");
    assert_eq!(code, 0, "a replay is no loss: {err}");
    assert_eq!(
        l.state()["carry"].as_array().unwrap().last().unwrap()["thinking"],
        1
    );
    // A second, distinct thinking record of that id is still a loss.
    l.s.thinking("msg_01Re", "More.");
    l.flush();
    assert_eq!(l.post("p1").0, 2);
}

/// Two thinking records of one response glued on one line (a write race) are
/// still two records, as audit reads them: the eaten response is surfaced.
#[test]
fn an_eaten_response_glued_on_one_line_is_surfaced() {
    let mut l = Live::new();
    l.s.user("go");
    l.flush();
    assert_eq!(l.post("p1").0, 0);
    l.eaten("msg_01Glue", "toolu_1");
    let n = l.s.lines.len();
    let glued = format!(
        "{}{}",
        serde_json::to_string(&l.s.lines[n - 3]).unwrap(),
        serde_json::to_string(&l.s.lines[n - 2]).unwrap()
    );
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&l.path)
        .unwrap();
    writeln!(f, "{glued}").unwrap();
    writeln!(f, "{}", serde_json::to_string(&l.s.lines[n - 1]).unwrap()).unwrap();
    l.written = n;
    let (code, err) = l.post("p1");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Glue"), "{err}");
}

#[test]
fn straggler_in_the_final_response_is_collected_for_the_next_turn() {
    let mut l = Live::new();
    l.s.user("go");
    l.kept("msg_00", "toolu_0");
    l.result("toolu_0");
    l.flush();
    assert_eq!(l.post("p1").0, 0);
    // The final response is eaten: no tool call follows, so no post fire sees it.
    l.s.thinking("msg_01Final", "a");
    l.s.thinking("msg_01Final", "b");
    l.flush();
    let (code, err) = l.stop("p1", "Summary of the work.");
    assert_eq!(code, 0, "stragglers never block: {err}");
    assert_eq!(l.state()["carryover"].as_array().unwrap().len(), 1);
    l.s.user("thanks, continue");
    l.kept("msg_02", "toolu_2");
    l.flush();
    let (code, err) = l.post("p2");
    assert_eq!(code, 2);
    assert!(err.contains(".._01Final"), "{err}");
    assert!(err.contains("may belong to the previous turn"), "{err}");
    assert_eq!(l.state()["carryover"], json!([]));
}

#[test]
fn first_fire_scans_only_the_final_turn() {
    let mut l = Live::new();
    l.s.user("old request");
    l.eaten("msg_01Old", "toolu_1");
    l.result("toolu_1");
    l.s.meta("<system-reminder>meta records are not turn boundaries</system-reminder>");
    l.s.user("new request");
    l.kept("msg_02", "toolu_2");
    l.flush();
    assert_eq!(
        l.post("p9").0,
        0,
        "history before the final turn is never demanded"
    );
    assert_eq!(l.state()["fires"], 1);
}

/// An eaten response on a sidechain record is not the main context's loss:
/// the fire reads the whole file (its offset reaches the end), surfaces
/// nothing, and says nothing; a fail-open also exits 0, so the same fire must
/// then surface a main-lane eaten response, and only that one.
#[test]
fn sidechain_records_are_skipped() {
    let mut l = Live::new();
    l.s.user("go");
    l.s.sidechain = true;
    l.eaten("msg_01Side", "toolu_1");
    l.s.sidechain = false;
    l.flush();
    let (code, err) = l.post("p1");
    assert_eq!((code, err.as_str()), (0, ""));
    let st = l.state();
    assert_eq!(st["offset"], std::fs::metadata(&l.path).unwrap().len());
    assert_eq!(st["surfaced"], json!([]));
    l.s.user("next");
    l.eaten("msg_01Main", "toolu_2");
    l.flush();
    let (code, err) = l.post("p2");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Main") && !err.contains("Side"), "{err}");
}

#[test]
fn rewritten_transcript_rebaselines() {
    let mut l = Live::new();
    l.s.user("go");
    l.eaten("msg_01A", "toolu_1");
    l.flush();
    assert_eq!(l.post("p1").0, 2);
    assert_eq!(l.stop("p1", "x [recovered: 1]").0, 0);
    // Replaced behind the same session id: a new first line, shorter file.
    l.s = Session::new("4f1c0d2e-1111-4222-8333-944455556666", "/w/app");
    l.s.cwd = "/w/app-rewritten".into();
    l.s.user("after /clear");
    l.eaten("msg_01A", "toolu_1");
    l.s.user("fresh turn");
    l.eaten("msg_01B", "toolu_9");
    l.written = 0;
    std::fs::write(&l.path, "").unwrap();
    l.flush();
    let (code, err) = l.post("p2");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("..msg_01B") && !err.contains("..msg_01A"),
        "{err}"
    );
    assert_eq!(
        l.state()["offset"],
        std::fs::metadata(&l.path).unwrap().len()
    );
}

#[test]
fn parallel_post_fires_never_double_surface() {
    let mut l = Live::new();
    l.s.user("go");
    l.eaten("msg_01Par", "toolu_1");
    l.flush();
    let payload = l.payload("p1", None);
    let kids: Vec<_> = (0..6)
        .map(|_| {
            let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("csift"));
            c.env("HOME", l.dir.path()).env_remove("CLAUDE_CONFIG_DIR");
            c.args(["guard", "--post", "--state-dir"])
                .arg(l.state_dir());
            c.stdin(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null());
            let mut child = c.spawn().unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.as_bytes())
                .unwrap();
            child
        })
        .collect();
    let mut surfacing = 0;
    for mut k in kids {
        let code = k.wait().unwrap().code().unwrap();
        assert!(code == 0 || code == 2, "exit {code}");
        surfacing += usize::from(code == 2);
    }
    // Someone surfaced it (six fail-opens would pass `<= 1` with nothing).
    assert!(surfacing >= 1, "no fire surfaced the eaten response");
    let st = l.state();
    let ids: Vec<&str> = st["surfaced"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert!(ids[0].starts_with("msg_01Par"), "{ids:?}");
    // Even if a racing write duplicated it, one honest footer clears the turn.
    assert_eq!(l.stop("p1", "done [recovered: 1]").0, 0);
}

#[test]
fn garbage_input_fails_open() {
    let mut l = Live::new();
    l.s.user("go");
    l.eaten("msg_01G", "toolu_1");
    l.flush();
    let t = l.path.display().to_string();
    let cases = [
        String::new(),
        "not json".into(),
        "[1,2]".into(),
        "42".into(),
        "\u{0}\u{1}\u{2}".into(),
        json!({"transcript_path": 5}).to_string(),
        json!({"transcript_path": "/nonexistent/x.jsonl", "session_id": "s"}).to_string(),
        json!({"transcript_path": l.dir.path(), "session_id": "s"}).to_string(),
        json!({"transcript_path": t, "session_id": "s", "agent_id": "a1b2"}).to_string(),
    ];
    for (i, c) in cases.iter().enumerate() {
        for arm in ["--post", "--stop"] {
            let (code, err) = l.fire(arm, c);
            assert_eq!(code, 0, "{arm} {c:?}: {err}");
            // Help promises a one-line stderr note on every fail-open; a
            // subagent's fire (the last case) is skipped by design, silently.
            let last = i == cases.len() - 1;
            assert_eq!(
                err.lines().count(),
                usize::from(!last),
                "{arm} {c:?}: {err}"
            );
            assert!(
                last || err.starts_with("csift guard: "),
                "{arm} {c:?}: {err}"
            );
        }
    }
    assert!(!l.state_dir().exists(), "early exits write no state");
    // A payload behind a UTF-8 byte-order mark is read, not skipped.
    let bom = format!(
        "\u{feff}{}",
        json!({"transcript_path": t, "session_id": "s"})
    );
    let (code, err) = l.fire("--post", &bom);
    assert!(!err.contains("not JSON"), "{code} {err}");
    assert!(l.state_dir().exists(), "the fire ran");
    // A transcript of garbage bytes: scanned, nothing found, exit 0.
    std::fs::write(
        &l.path,
        b"\xff\xfe{{{\n[1]\n{\"type\":\"assistant\",\"message\":7}\n",
    )
    .unwrap();
    assert_eq!(l.post("p").0, 0);
    // A corrupt state file is a fresh start, not a crash.
    std::fs::write(
        l.state_dir()
            .join("4f1c0d2e-1111-4222-8333-944455556666.json"),
        "{oops",
    )
    .unwrap();
    assert_eq!(l.post("p").0, 0);
}

#[test]
fn refuses_a_state_dir_inside_the_claude_home() {
    let mut l = Live::new();
    l.s.user("go");
    l.eaten("msg_01R", "toolu_1");
    l.flush();
    let inside = l.dir.path().join("home/scratch/guard");
    let out = csift()
        .env("HOME", l.dir.path())
        .args(["guard", "--post", "--state-dir"])
        .arg(&inside)
        .write_stdin(l.payload("p1", None))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fail-open"));
    assert!(!inside.exists());
}

#[test]
fn default_state_dir_follows_xdg() {
    let mut l = Live::new();
    l.s.user("go");
    l.flush();
    let xdg = l.dir.path().join("xdg");
    let out = csift()
        .env("HOME", l.dir.path())
        .env("XDG_STATE_HOME", &xdg)
        .args(["guard", "--post"])
        .write_stdin(l.payload("p1", None))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(xdg
        .join("csift/guard/4f1c0d2e-1111-4222-8333-944455556666.json")
        .is_file());
}

#[test]
fn print_settings_names_this_binary() {
    let out = csift()
        .args(["guard", "--print-settings"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let post = v["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    let stop = v["hooks"]["Stop"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(
        Path::new(post.split(' ').next().unwrap()).is_absolute(),
        "{post}"
    );
    assert!(post.ends_with("guard --post") && stop.ends_with("guard --stop"));
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["timeout"], 10);
    // With --format json: the same object on one line (JSON Lines).
    let out = csift()
        .args(["guard", "--print-settings", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
}

/// A hook runs whatever its settings say: a typo or a flag from a newer csift
/// must not turn every stop into a block (exit 2 blocks in Claude Code), so a
/// usage error exits 0 with the reason on stderr, as `guard --help` promises.
#[test]
fn a_usage_error_exits_0_so_the_hook_never_blocks() {
    for args in [
        &["guard", "--stop", "--bogus-flag"][..],
        &["guard", "--post", "--state-dir"],
        &["guard", "--post", "--stop"],
    ] {
        let out = csift().args(args).write_stdin("{}").output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(
            err.contains("error:") && err.contains("not run"),
            "{args:?}: {err}"
        );
    }
    // Other commands keep clap's exit 2 for a usage error, and help is still 0.
    let out = csift().args(["list", "--bogus-flag"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = csift().args(["guard", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("--stop"));
    // --print-settings is run by a person, not a hook: its mistakes exit 2,
    // and flags it cannot honour are said, not ignored.
    for args in [
        &["guard", "--print-settings", "--format", "xml"][..],
        &["guard", "--print-settings", "--since", "1d"],
    ] {
        let out = csift().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// A guard fired with `args` and `env`, its stderr the write end of a pipe
/// whose read end is closed before the payload is written: every note it
/// prints meets a broken pipe.
fn fire_with_stderr_closed(
    l: &Live,
    args: &[&std::ffi::OsStr],
    env: &[(&str, &Path)],
    stdin: &str,
) -> i32 {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("csift"));
    c.env("HOME", l.dir.path()).env_remove("CLAUDE_CONFIG_DIR");
    for (k, v) in env {
        c.env(k, v);
    }
    c.arg("guard")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    drop(child.stderr.take());
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait().unwrap().code().unwrap_or(-1)
}

/// Issue 27 item 7: a guard whose stderr is a closed pipe exits as its help
/// says (2 to surface, 0 on a note or a fail-open), never 101 from a panic
/// while printing.
#[test]
fn a_closed_stderr_does_not_change_the_guard_exit_status() {
    let mut l = Live::new();
    l.s.user("go");
    l.eaten("msg_01Closed", "toolu_1");
    l.flush();
    let state = l.state_dir();
    let args = |arm: &'static str| -> Vec<&std::ffi::OsStr> {
        vec![arm.as_ref(), "--state-dir".as_ref(), state.as_os_str()]
    };
    // A note (not JSON) and a fail-open (no such transcript): exit 0.
    assert_eq!(
        fire_with_stderr_closed(&l, &args("--post"), &[], "not json"),
        0
    );
    let gone = json!({"transcript_path": "/nonexistent/x.jsonl", "session_id": "s"}).to_string();
    assert_eq!(fire_with_stderr_closed(&l, &args("--stop"), &[], &gone), 0);
    // Surfacing an eaten response: exit 2, the message lost with the pipe.
    let payload = l.payload("p1", None);
    assert_eq!(
        fire_with_stderr_closed(&l, &args("--post"), &[], &payload),
        2
    );
    // No arm, and a usage error: as the help says (1, and 0 for a hook).
    assert_eq!(fire_with_stderr_closed(&l, &[], &[], ""), 1);
    assert_eq!(
        fire_with_stderr_closed(&l, &["--bogus".as_ref()], &[], ""),
        0
    );
}

/// Issue 27 item 6: a `..` past a folder that does not exist cannot lead the
/// state dir into the Claude home, given by flag or by XDG_STATE_HOME.
#[test]
fn a_dotdot_past_a_missing_folder_cannot_put_state_in_the_home() {
    let mut l = Live::new();
    l.s.user("go");
    l.eaten("msg_01Dot", "toolu_1");
    l.flush();
    let root = l.dir.path();
    let sneaky = root.join("x/missing/../../home/guard-state");
    let out = csift()
        .env("HOME", root)
        .args(["guard", "--post", "--state-dir"])
        .arg(&sneaky)
        .write_stdin(l.payload("p1", None))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fail-open"));
    assert!(
        !root.join("home/guard-state").exists(),
        "state written in the home"
    );
    assert!(!root.join("x").exists(), "a folder made on the way");
    // The same through XDG_STATE_HOME (…/csift/guard is appended).
    let out = csift()
        .env("HOME", root)
        .env("XDG_STATE_HOME", root.join("y/missing/../../home"))
        .args(["guard", "--post"])
        .write_stdin(l.payload("p1", None))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fail-open"));
    assert!(
        !root.join("home/csift").exists(),
        "state written in the home"
    );
    // A `..` that stays outside the home is fine, and resolved.
    let fine = root.join("x/missing/../state2");
    let out = csift()
        .env("HOME", root)
        .args(["guard", "--post", "--state-dir"])
        .arg(&fine)
        .write_stdin(l.payload("p1", None))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(root.join("x/state2").is_dir());
}

/// Issue 27 item 8: a state dir whose name carries escape sequences is cleaned
/// in every note the guard prints: the fail-open note (inside the home) and
/// the create error (under a regular file).
#[test]
fn state_dir_names_are_cleaned_in_guard_notes() {
    use std::os::unix::ffi::OsStrExt;
    let mut l = Live::new();
    l.s.user("go");
    l.eaten("msg_01Esc", "toolu_1");
    l.flush();
    let root = l.dir.path();
    let evil = std::ffi::OsStr::from_bytes(b"stX\x1b]0;pwned\x07\x1b[31mYate");
    let blocker = root.join(evil);
    std::fs::write(&blocker, "a file, not a folder").unwrap();
    for dir in [root.join("home").join(evil), blocker.join("guard")] {
        let out = csift()
            .env("HOME", root)
            .args(["guard", "--post", "--state-dir"])
            .arg(&dir)
            .write_stdin(l.payload("p1", None))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("fail-open"), "{err}");
        assert!(err.contains("stXYate"), "the path is said, cleaned: {err}");
        assert!(
            crate::robust::control_byte(&out.stderr).is_none(),
            "raw escape bytes in: {:?}",
            err
        );
    }
}

/// Issue 27 item 9: a hook payload whose transcript_path names a file that
/// blocks on read (`/proc/kmsg`, a regular file as stat sees it) or a device
/// fails open at once in both arms instead of hanging the session.
#[test]
fn a_transcript_path_that_blocks_on_read_fails_open() {
    let l = Live::new();
    for target in ["/proc/kmsg", "/dev/kmsg", "/dev/zero"] {
        if !Path::new(target).exists() {
            continue;
        }
        for arm in ["--post", "--stop"] {
            let payload = json!({"transcript_path": target, "session_id": "s"}).to_string();
            let out = csift()
                .env("HOME", l.dir.path())
                .args(["guard", arm, "--state-dir"])
                .arg(l.state_dir())
                .write_stdin(payload)
                .timeout(std::time::Duration::from_secs(10))
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{arm} {target}: {out:?}");
        }
    }
}
