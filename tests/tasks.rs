//! `csift tasks`: the background-task ledger and the session task list, on a
//! fixture holding every launch and carrier shape the claims describe, and on
//! the public corpus against an independent count.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::common::{corpus, csift, json_lines, transcripts, Home, Session};

const SID: &str = "5e1f0c22-7a3b-4d4e-8f90-a1b2c3d4e5f6";
const CWD: &str = "/home/ana/app";
const PROJECT: &str = "-home-ana-app";
const LANE: &str = "a51b2c3d4e5f60718";

fn notification(task: &str, tool_use: Option<&str>, status: Option<&str>, extra: &str) -> String {
    let mut s = format!("<task-notification>\n<task-id>{task}</task-id>\n");
    if let Some(u) = tool_use {
        s += &format!("<tool-use-id>{u}</tool-use-id>\n<output-file>/tmp/claude-1000/{PROJECT}/{SID}/tasks/{task}.output</output-file>\n");
    }
    if let Some(st) = status {
        s += &format!("<status>{st}</status>\n");
    }
    s += extra;
    s += "</task-notification>";
    s
}

fn bash_bg(s: &mut Session, msg: &str, id: &str, cmd: &str, task: Option<&str>) {
    s.tool_use(
        msg,
        id,
        "Bash",
        json!({"command": cmd, "description": cmd, "run_in_background": true}),
    );
    let text = format!(
        "Command running in background with ID: {}. Output is being written to: /tmp/claude-1000/{PROJECT}/{SID}/tasks/{}.output",
        task.unwrap_or("bnoecho00"),
        task.unwrap_or("bnoecho00")
    );
    // BG-012: a subagent lane's echo often carries no backgroundTaskId.
    let echo = task.map(|t| json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false, "backgroundTaskId": t}));
    s.tool_result(id, &text, false, echo);
}

fn fixture() -> Home {
    let h = Home::new();
    let mut m = Session::new(SID, CWD);
    m.version = "2.1.258".into();
    m.user("start everything");
    // BG-001: an explicit shell, completed as failed through a queue enqueue (BG-013).
    bash_bg(&mut m, "m1", "toolu_sh", "make build", Some("bsh000001"));
    // BG-006/007: a persistent monitor and a timed one.
    m.tool_use("m2", "toolu_mon", "Monitor", json!({"description": "watch logs", "command": "tail -f log", "persistent": true, "timeout_ms": 300000}));
    m.tool_result("toolu_mon", "Monitor started (task bmon00001, persistent - runs until TaskStop or session end). You will be notified on each event.", false,
        Some(json!({"taskId": "bmon00001", "timeoutMs": 0, "persistent": true})));
    m.tool_use(
        "m3",
        "toolu_mon2",
        "Monitor",
        json!({"description": "wait for CI", "command": "ci-watch", "timeout_ms": 60000}),
    );
    m.tool_result(
        "toolu_mon2",
        "Monitor started (task bmon00002, timeout 60000ms). You will be notified on each event.",
        false,
        Some(json!({"taskId": "bmon00002", "timeoutMs": 60000, "persistent": false})),
    );
    // BASH-027: a foreground call moved to the background on its timeout.
    m.tool_use(
        "m4",
        "toolu_prom",
        "Bash",
        json!({"command": "cargo test --all", "description": "Run all tests", "timeout": 120000}),
    );
    m.tool_result("toolu_prom", "Command did not complete within its 120s timeout and was moved to the background (ID: bprom0001). Output is being written to: /tmp/claude-1000/x/bprom0001.output", false,
        Some(json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false, "backgroundTaskId": "bprom0001", "timedOutAfterMs": 120000})));
    // Orphans and a status csift does not know.
    bash_bg(&mut m, "m5", "toolu_o1", "sleep 1000", Some("borph0001"));
    bash_bg(&mut m, "m6", "toolu_o2", "sleep 2000", Some("borph0002"));
    bash_bg(&mut m, "m7", "toolu_odd", "make odd", Some("bodd00001"));
    // Not launches: a Read that quotes a template, a ScheduleWakeup (BG-033).
    m.tool_use(
        "m8",
        "toolu_read",
        "Read",
        json!({"file_path": "/notes.md"}),
    );
    m.tool_result(
        "toolu_read",
        "Command running in background with ID: bfake0000. quoted in a file",
        false,
        None,
    );
    m.tool_use(
        "m9",
        "toolu_wake",
        "ScheduleWakeup",
        json!({"delaySeconds": 60, "prompt": "check", "reason": "poll"}),
    );
    m.tool_result(
        "toolu_wake",
        "Scheduled",
        false,
        Some(json!({"scheduledFor": 1, "clampedDelaySeconds": 60, "wasClamped": false})),
    );
    // BG-004, BG-005, BG-022: an async agent whose ack is no report, still
    // open, its lane written now.
    m.tool_use(
        "m9b",
        "toolu_agent2",
        "Agent",
        json!({"description": "long job", "prompt": "go", "run_in_background": true}),
    );
    m.tool_result("toolu_agent2", "Async agent launched successfully.\nagentId: a9999999999999999 (internal)", false,
        Some(json!({"isAsync": true, "status": "async_launched", "agentId": "a9999999999999999", "description": "long job", "prompt": "go", "outputFile": "/tmp/none.output", "canReadOutputFile": true})));
    m.text("m10", "All started.");
    // Carriers (QT-008): a queue enqueue, its remove (delivers nothing, BG-015),
    // an attachment, user records.
    let failed = notification(
        "bsh000001",
        Some("toolu_sh"),
        Some("failed"),
        "<summary>Background command \"make build\" failed with exit code 2</summary>\n",
    );
    m.raw(json!({"type": "queue-operation", "operation": "enqueue", "timestamp": m.ts(), "sessionId": SID, "content": failed}));
    m.raw(json!({"type": "queue-operation", "operation": "remove", "timestamp": m.ts(), "sessionId": SID, "content": notification("bsh000001", Some("toolu_sh"), Some("completed"), "")}));
    let pulse = notification("bmon00001", None, None, "<summary>Monitor event: \"watch logs\"</summary>\n<event>ssh=Connection to 127.0.0.1 port 2224 timed out</event>\n");
    m.push(json!({"type": "attachment", "attachment": {"type": "queued_command", "prompt": pulse, "commandMode": "task-notification"}}));
    m.push(json!({"type": "attachment", "attachment": {"type": "queued_command", "prompt": notification("bmon00001", None, None, "<summary>Monitor event</summary>\n<event>line 2</event>\n"), "commandMode": "task-notification"}}));
    m.user(&notification("bmon00002", None, None, "<summary>Monitor event: \"wait for CI\"</summary>\n<event>[Monitor timed out \u{2014} re-arm if needed.]</event>\n"));
    m.user(&notification("borph0001", None, Some("stopped"), "").replace(
        "<task-id>borph0001</task-id>",
        "<task-id>borph0001</task-id><task-id>borph0002</task-id><task-id>__orphan_summary__:shell</task-id><task-id>__orphan_summary_live__:borph0002</task-id>",
    ));
    m.user(&notification(
        "bodd00001",
        Some("toolu_odd"),
        Some("vanished"),
        "",
    ));
    m.user(&notification(
        "bnobody00",
        Some("toolu_nobody"),
        Some("completed"),
        "",
    ));
    // BG-014: the lane's launches complete here, in the main transcript.
    m.user(&notification(
        LANE,
        None,
        Some("completed"),
        "<summary>Agent \"review\" finished</summary>\n<result>LGTM</result>\n",
    ));
    // BG-019: notified twice, the latest wins.
    m.user(&notification(
        "bnoecho00",
        Some("toolu_lane_sh"),
        Some("failed"),
        "",
    ));
    m.user(&notification(
        "bnoecho00",
        Some("toolu_lane_sh"),
        Some("completed"),
        "",
    ));
    // BG-025, CLS-008: the agents-stopped notice names no id: said, not joined.
    m.user("2 background agents were stopped by the user: \"review…\", \"long job…\".");
    h.write(PROJECT, &m.file_name(), &m.lines);

    // A subagent lane launching an async agent (BG-004) and a shell (BG-012).
    let mut l = Session::lane(SID, CWD, "a0000000000000001");
    l.user("review it");
    l.tool_use("l1", "toolu_agent", "Agent", json!({"description": "review", "prompt": "review the diff", "subagent_type": "general-purpose", "run_in_background": true}));
    l.tool_result("toolu_agent", &format!("Async agent launched successfully.\nagentId: {LANE} (internal)"), false,
        Some(json!({"isAsync": true, "status": "async_launched", "agentId": LANE, "description": "review", "prompt": "review the diff", "outputFile": format!("/tmp/claude-1000/{PROJECT}/{SID}/tasks/{LANE}.output"), "canReadOutputFile": true})));
    bash_bg(&mut l, "l2", "toolu_lane_sh", "npm test", None);
    h.write(
        PROJECT,
        &format!("{SID}/subagents/agent-a0000000000000001.jsonl"),
        &l.lines,
    );
    let mut long = Session::lane(SID, CWD, "a9999999999999999");
    long.user("go");
    h.write(
        PROJECT,
        &format!("{SID}/subagents/agent-a9999999999999999.jsonl"),
        &long.lines,
    );

    // REG-007/008: the task list in both folder forms.
    let a = h.path().join("tasks").join(SID);
    let b = h
        .path()
        .join("tasks")
        .join(format!("session-{}", &SID[..8]));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(a.join("1.json"), json!({"id": "1", "subject": "Scaffold", "description": "", "status": "completed", "blocks": [], "blockedBy": []}).to_string()).unwrap();
    std::fs::write(b.join("2.json"), json!({"id": "2", "subject": "Write tests", "description": "", "status": "pending", "blocks": [], "blockedBy": ["3"]}).to_string()).unwrap();
    std::fs::write(b.join("3.json"), json!({"id": "3", "subject": "Build", "description": "", "activeForm": "Building", "status": "in_progress", "blocks": ["2"], "blockedBy": []}).to_string()).unwrap();
    h
}

fn rows(h: &Home, args: &[&str]) -> (Vec<Value>, i32, String) {
    let out = h
        .cmd()
        .arg("tasks")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    (
        json_lines(&out.stdout),
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn by_use(lines: &[Value]) -> BTreeMap<String, Value> {
    lines
        .iter()
        .filter(|v| v["type"] == "background_task")
        .map(|v| (v["tool_use_id"].as_str().unwrap().to_string(), v.clone()))
        .collect()
}

/// Every launch and carrier shape, joined: BG-001, BG-002, BG-004, BG-005,
/// BG-006, BG-007, BG-008, BG-009, BG-010, BG-011, BG-012, BG-013, BG-014,
/// BG-015, BG-016, BG-017, BG-019, BG-020, BG-021, BG-022, BG-025, BG-028,
/// BG-029, BG-033, BASH-027, BASH-029, QT-008, CLS-008, REG-007, REG-008.
#[test]
fn every_launch_shape_is_listed_with_how_it_ended_bg_010_013_016() {
    let h = fixture();
    let (lines, code, err) = rows(&h, &[]);
    assert_eq!(code, 0, "{err}");
    let t = by_use(&lines);
    let state = |id: &str| t[id]["state"].as_str().unwrap().to_string();
    // BG-027, BG-035, REG-015: rebuilt from the transcripts alone; the
    // <home>/tasks/ files of this fixture are the TODO list, no background task.
    assert_eq!(t.len(), 10, "{:?}", t.keys().collect::<Vec<_>>());
    // BG-010/013: joined on tool-use-id through the queue enqueue; the remove
    // that follows repeats it and is not read (BG-015).
    assert_eq!(state("toolu_sh"), "failed");
    assert_eq!(t["toolu_sh"]["ended_by"]["carrier"], "queue-operation");
    assert_eq!(t["toolu_sh"]["task_id"], "bsh000001");
    assert_eq!(t["toolu_sh"]["kind"], "shell");
    assert_eq!(t["toolu_sh"]["trigger"], "explicit");
    // BG-016/017: event pulses keep a monitor open (a command's own "timed
    // out" is an event), the timeout literal closes one.
    assert_eq!(state("toolu_mon"), "open");
    // BG-018: both pulses rode attachments, none a user record: still counted.
    assert_eq!(t["toolu_mon"]["events"], 2);
    assert_eq!(t["toolu_mon"]["kind"], "monitor");
    assert_eq!(t["toolu_mon"]["persistent"], true);
    assert_eq!(state("toolu_mon2"), "timed-out");
    // BASH-027/029: moved to the background on its timeout, launched at the call.
    assert_eq!(state("toolu_prom"), "open");
    assert_eq!(t["toolu_prom"]["trigger"], "timeout");
    assert_eq!(t["toolu_prom"]["task_id"], "bprom0001");
    assert_eq!(t["toolu_prom"]["command"], "cargo test --all");
    assert_eq!(
        t["toolu_prom"]["output_file"],
        "/tmp/claude-1000/x/bprom0001.output"
    );
    assert_eq!(t["toolu_prom"]["output_gone"], true);
    // BG-020/021: the orphan summary closes what it names, not its live exclusion.
    assert_eq!(state("toolu_o1"), "killed");
    assert_eq!(t["toolu_o1"]["raw_status"], "stopped");
    assert_eq!(t["toolu_o1"]["ended_by"]["orphan_reconciliation"], true);
    assert_eq!(state("toolu_o2"), "open");
    // BG-011: an unknown status is unknown, never booked as completed.
    assert_eq!(state("toolu_odd"), "unknown");
    assert_eq!(t["toolu_odd"]["raw_status"], "vanished");
    // BG-004/014: a lane's async agent, joined by its task id in the main file.
    assert_eq!(state("toolu_agent"), "completed");
    assert_eq!(t["toolu_agent"]["kind"], "agent");
    assert_eq!(t["toolu_agent"]["agent_id"], "a0000000000000001");
    assert_eq!(t["toolu_agent"]["task_id"], LANE);
    // BG-012: a lane shell whose echo has no backgroundTaskId, joined on tool-use-id.
    // BG-019: notified twice, failed then completed, the latest wins.
    assert_eq!(state("toolu_lane_sh"), "completed");
    assert_eq!(t["toolu_lane_sh"]["notifications"], 2);
    // BG-005, BG-022: the ack is no report; open, with the 48 h resume note.
    assert_eq!(state("toolu_agent2"), "open");
    let note = t["toolu_agent2"]["notes"].to_string();
    assert!(note.contains("within 48 h"), "{note}");
    // BG-033 and a quoted template are no tasks.
    assert!(!t.contains_key("toolu_wake") && !t.contains_key("toolu_read"));
    // Lines and turns of the launching calls.
    assert_eq!(t["toolu_sh"]["line"], 2);
    assert_eq!(t["toolu_sh"]["turn"], 1);
    // The task list, both folder forms merged (REG-007/008).
    let items: Vec<&Value> = lines.iter().filter(|v| v["type"] == "task").collect();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["id"], "3", "in progress first");
    assert_eq!(items[1]["blocked_by"], json!(["3"]));
    let list = lines.iter().find(|v| v["type"] == "task_list").unwrap();
    assert_eq!(
        (list["open"].as_u64(), list["completed"].as_u64()),
        (Some(2), Some(1))
    );
    let summary = lines.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["background"], 10);
    // BG-025, CLS-008: said, never joined to a task.
    assert!(
        summary["notes"].to_string().contains("names no id"),
        "{summary}"
    );
    let unjoined = summary["unjoined_notifications"].to_string();
    assert!(unjoined.contains("bnobody00"), "{unjoined}");
}

/// `--open`, `--kind`, exit 1 when nothing is listed, and the human form.
#[test]
fn open_and_kind_filters_and_exit_codes() {
    let h = fixture();
    let (lines, code, _) = rows(&h, &["--open"]);
    assert_eq!(code, 0);
    let open: BTreeSet<String> = by_use(&lines).into_keys().collect();
    assert_eq!(
        open,
        ["toolu_agent2", "toolu_mon", "toolu_o2", "toolu_prom"]
            .map(String::from)
            .into()
    );
    let (lines, _, _) = rows(&h, &["--kind", "monitor"]);
    assert_eq!(by_use(&lines).len(), 2);
    assert!(
        !lines.iter().any(|v| v["type"] == "task"),
        "--kind leaves the task list out"
    );
    let out = h
        .cmd()
        .args(["tasks", &format!("@{SID}")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("moved to the background: timeout"), "{text}");
    assert!(text.contains("task list: 2 open, 1 completed"), "{text}");
    assert!(text.contains("#3 in_progress"), "{text}");

    // --since/--until select launches by their time (the fixture's records are
    // stamped from 2026-01-01T00:00:00Z on); the task list is not timed.
    let (lines, code, _) = rows(&h, &["--kind", "shell", "--since", "2026-01-02"]);
    assert_eq!((by_use(&lines).len(), code), (0, 1), "none launched after");
    let (lines, code, _) = rows(&h, &["--kind", "shell", "--until", "2025-12-31"]);
    assert_eq!((by_use(&lines).len(), code), (0, 1), "none launched before");
    let (lines, _, _) = rows(&h, &["--since", "2026-01-01", "--until", "2026-01-01"]);
    assert_eq!(by_use(&lines).len(), 10, "all launched that day");
    // From the async agent's launch on: it is in, the first shell is not.
    let all = by_use(&rows(&h, &[]).0);
    let at = all["toolu_agent2"]["launched"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(all["toolu_sh"]["launched"].as_str().unwrap() < at.as_str());
    let (lines, _, _) = rows(&h, &["--since", &at]);
    let late: BTreeSet<String> = by_use(&lines).into_keys().collect();
    assert!(
        !late.contains("toolu_sh") && late.contains("toolu_agent2"),
        "{late:?}"
    );
    let (lines, _, _) = rows(&h, &["--until", &at]);
    let early: BTreeSet<String> = by_use(&lines).into_keys().collect();
    assert!(
        early.contains("toolu_sh") && early.contains("toolu_agent2"),
        "{early:?}"
    );

    let quiet = Home::new();
    let mut s = Session::new(SID, CWD);
    s.user("hi");
    s.text("m", "hello");
    quiet.write(PROJECT, &s.file_name(), &s.lines);
    let out = quiet.cmd().args(["tasks"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// The acceptance: over the public corpus `tasks` lists every
/// `run_in_background` call by its tool_use_id (BG-001), and joins every
/// notification that names a launch (BG-010, QT-008) - both checked against
/// a count made here, independently, with serde_json.
#[test]
fn corpus_every_background_call_and_notification_is_joined_bg_001_010() {
    let Some(c) = corpus() else { return };
    let mut flagged = BTreeSet::new();
    let mut launch_ids: BTreeMap<String, String> = BTreeMap::new();
    let mut sections: Vec<(Option<String>, Vec<String>, Option<String>)> = Vec::new();
    for f in transcripts(&c) {
        let main = !f.to_string_lossy().contains("/subagents/")
            && !f
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("agent-");
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let blocks = v["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for b in &blocks {
                if b["type"] == "tool_use" && b["input"]["run_in_background"] == true {
                    flagged.insert(b["id"].as_str().unwrap().to_string());
                }
                if b["type"] == "tool_result" {
                    let tur = &v["toolUseResult"];
                    let id = tur["backgroundTaskId"].as_str().or(tur["agentId"].as_str());
                    if let Some(id) = id {
                        launch_ids.insert(
                            id.to_string(),
                            b["tool_use_id"].as_str().unwrap().to_string(),
                        );
                    }
                }
            }
            if !main {
                continue;
            }
            let text = match v["type"].as_str() {
                Some("queue-operation") if v["operation"] == "enqueue" => v["content"].as_str(),
                Some("attachment") if v["attachment"]["type"] == "queued_command" => {
                    v["attachment"]["prompt"].as_str()
                }
                Some("user") => v["message"]["content"].as_str(),
                _ => None,
            };
            let Some(text) = text.filter(|t| t.trim_start().starts_with("<task-notification>"))
            else {
                continue;
            };
            for sec in text.split("<task-notification>").skip(1) {
                let tag = |n: &str| {
                    let a = sec.find(&format!("<{n}>"))? + n.len() + 2;
                    let b = sec[a..].find(&format!("</{n}>"))? + a;
                    Some(sec[a..b].trim().to_string())
                };
                let ids: Vec<String> = tag("task-id").into_iter().collect();
                sections.push((tag("tool-use-id"), ids, tag("status")));
            }
        }
    }
    let out = csift()
        .args(["tasks", "--format", "json", "--claude-home"])
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
    let t = by_use(&lines);
    // Every run_in_background call is listed by its tool_use_id.
    for id in &flagged {
        assert!(t.contains_key(id), "run_in_background call {id} not listed");
    }
    assert_eq!(
        flagged.len(),
        8,
        "the public corpus holds 8 run_in_background calls"
    );
    assert_eq!(
        t.len(),
        10,
        "8 flagged + 2 moved to the background (BASH-029)"
    );
    // Every notification naming a launch is joined to it, with its status.
    let mut joined = 0;
    for (tool_use, ids, status) in &sections {
        let launch = tool_use
            .clone()
            .filter(|u| t.contains_key(u))
            .or_else(|| ids.iter().find_map(|i| launch_ids.get(i).cloned()));
        let Some(launch) = launch else { continue };
        joined += 1;
        let row = &t[&launch];
        assert!(row["notifications"].as_u64().unwrap() >= 1, "{row}");
        assert_eq!(row["raw_status"].as_str(), status.as_deref(), "{row}");
    }
    assert_eq!(sections.len(), 2);
    assert_eq!(joined, 2, "both sections name b7636e2");
    // Every run_in_background call's state equals the one read here from the
    // raw JSON: the latest end naming it wins, none leaves it open.
    let want = independent_states(&c);
    for id in &flagged {
        assert_eq!(
            t[id]["state"].as_str(),
            Some(want.get(id).map_or("open", String::as_str)),
            "{id}: {}",
            t[id]
        );
    }
    let mut states: BTreeMap<&str, usize> = BTreeMap::new();
    for id in &flagged {
        *states.entry(t[id]["state"].as_str().unwrap()).or_default() += 1;
    }
    assert_eq!(
        states,
        BTreeMap::from([("completed", 7), ("open", 1)]),
        "the 8 flagged calls: 7 async agents completed, the dev server open"
    );
    assert_eq!(t["toolu_01RWqtJ4Z3D4BpJnag9W86Ky"]["state"], "completed");
    // The never-returned dev server of BG-030's kind, and TaskStop's kill.
    assert_eq!(t["toolu_018GZVh9ymkrdx1TnR8reg5Y"]["state"], "open");
    assert_eq!(t["toolu_01NvRr4eoopGxcZzQtg4PcQR"]["state"], "killed");
    assert_eq!(
        t["toolu_01NvRr4eoopGxcZzQtg4PcQR"]["ended_by"]["carrier"],
        "task-stop"
    );
}

/// The independent reading of how each background launch ended, from the raw
/// JSON with serde_json: a launch's task id from its result's echo
/// (`backgroundTaskId`, or `agentId` for an async agent); its ends are the
/// notification sections of the MAIN transcripts' carriers (a user string, a
/// queue-operation enqueue, a queued_command attachment; `<task-notification>`
/// by `<tool-use-id>` or `<task-id>`, the legacy `<agent-notification>` by
/// `<agent-id>`), `TaskOutput` results (`task.status`) and `TaskStop` results
/// (killed) anywhere. The latest by timestamp wins. Returns tool_use_id → state.
fn independent_states(home: &std::path::Path) -> BTreeMap<String, String> {
    let mut task_of: BTreeMap<String, String> = BTreeMap::new();
    // (timestamp, tool_use_id or task id, status)
    let mut ends: Vec<(String, String, String)> = Vec::new();
    for f in transcripts(home) {
        let main = !f.to_string_lossy().contains("/subagents/")
            && !f
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("agent-");
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let ts = v["timestamp"].as_str().unwrap_or("").to_string();
            let tur = &v["toolUseResult"];
            for b in v["message"]["content"].as_array().into_iter().flatten() {
                if b["type"] != "tool_result" {
                    continue;
                }
                let use_id = b["tool_use_id"].as_str().unwrap_or("").to_string();
                if let Some(id) = tur["backgroundTaskId"].as_str().or(tur["agentId"].as_str()) {
                    task_of.insert(id.to_string(), use_id);
                }
                if let (Some(id), Some(st)) = (
                    tur["task"]["task_id"].as_str(),
                    tur["task"]["status"].as_str(),
                ) {
                    ends.push((ts.clone(), id.to_string(), st.to_string()));
                }
                if let (Some(id), Some(m)) = (tur["task_id"].as_str(), tur["message"].as_str()) {
                    if m.starts_with("Successfully stopped") {
                        ends.push((ts.clone(), id.to_string(), "killed".into()));
                    }
                }
            }
            if !main {
                continue;
            }
            let text = match v["type"].as_str() {
                Some("queue-operation") if v["operation"] == "enqueue" => v["content"].as_str(),
                Some("attachment") if v["attachment"]["type"] == "queued_command" => {
                    v["attachment"]["prompt"].as_str()
                }
                Some("user") => v["message"]["content"].as_str(),
                _ => None,
            };
            let Some(text) = text else { continue };
            for (open, id_tag) in [
                ("<task-notification>", "task-id"),
                ("<agent-notification>", "agent-id"),
            ] {
                if !text.trim_start().starts_with(open) {
                    continue;
                }
                for sec in text.split(open).skip(1) {
                    let tag = |n: &str| {
                        let a = sec.find(&format!("<{n}>"))? + n.len() + 2;
                        let b = sec[a..].find(&format!("</{n}>"))? + a;
                        Some(sec[a..b].trim().to_string())
                    };
                    let Some(st) = tag("status") else { continue };
                    if let Some(key) = tag("tool-use-id").or_else(|| tag(id_tag)) {
                        ends.push((ts.clone(), key, st));
                    }
                }
            }
        }
    }
    ends.sort();
    let mut out = BTreeMap::new();
    for (_, key, st) in ends {
        let use_id = if key.starts_with("toolu_") {
            key
        } else if let Some(u) = task_of.get(&key) {
            u.clone()
        } else {
            continue;
        };
        let state = match st.as_str() {
            "completed" => "completed",
            "failed" => "failed",
            "killed" | "stopped" => "killed",
            _ => "unknown",
        };
        out.insert(use_id, state.to_string());
    }
    out
}

/// The status line counts the open tasks `tasks --open` lists, reading each
/// file through the census cache (the ledger's sieve): on the fixture's every
/// launch and carrier shape, as its main transcript is appended line by line
/// (each run re-reads only the appended bytes: a call and its result, a
/// launch and its notification, land in different runs), and with the cache
/// off. A Read result quoting a launch template stays no launch throughout.
#[test]
fn the_status_line_counts_what_tasks_open_lists_as_the_file_grows() {
    use std::io::Write;
    let h = fixture();
    let main = h
        .path()
        .join("projects")
        .join(PROJECT)
        .join(format!("{SID}.jsonl"));
    let full = std::fs::read(&main).unwrap();
    let state = tempfile::tempdir().unwrap();
    let payload =
        json!({"session_id": SID, "transcript_path": main, "model": {"display_name": "Opus"}})
            .to_string();
    let open_now = |extra: &[&str]| -> (u64, u64) {
        let want = by_use(&rows(&h, &["--open"]).0).len() as u64;
        let out = h
            .cmd()
            .env("XDG_STATE_HOME", state.path())
            .args(["statusline", "--format", "json"])
            .args(extra)
            .write_stdin(payload.clone())
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["error"], Value::Null, "{v}");
        (v["open_tasks"].as_u64().unwrap(), want)
    };
    std::fs::write(&main, b"").unwrap();
    let mut seen = BTreeSet::new();
    let mut at = 0;
    for end in memchr::memchr_iter(b'\n', &full).map(|i| i + 1) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&main)
            .unwrap();
        f.write_all(&full[at..end]).unwrap();
        drop(f);
        at = end;
        let (got, want) = open_now(&[]);
        assert_eq!(got, want, "after {end} of {} bytes", full.len());
        seen.insert(want);
    }
    assert!(seen.len() >= 4, "the count rises and falls: {seen:?}");
    assert_eq!(open_now(&["--no-cache"]), open_now(&[]));
    assert_eq!(open_now(&[]).0, 4, "the four --open lists");
    // A lane with no ledger line is remembered as quiet while it is unchanged;
    // a launch appended to it is still seen.
    let quiet = h
        .path()
        .join("projects")
        .join(PROJECT)
        .join(format!("{SID}/subagents/agent-a9999999999999999.jsonl"));
    let mut l = Session::lane(SID, CWD, "a9999999999999999");
    bash_bg(&mut l, "lq", "toolu_quiet", "sleep 9", Some("bquiet001"));
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&quiet)
        .unwrap();
    for v in &l.lines {
        writeln!(f, "{v}").unwrap();
    }
    drop(f);
    assert_eq!(open_now(&[]), (5, 5), "the quiet lane's new launch");
}
