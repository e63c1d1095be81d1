//! `csift agents`: the lane tree on real-shaped fixtures of every kind, and on the
//! real corpus (every lane file placed under its parent, one known orphan).

use crate::common;

use std::collections::HashMap;

use common::{corpus, json_lines, Home, Session};
use serde_json::{json, Value};

const P: &str = "-work-app";
const S: &str = "11111111-1111-4111-8111-111111111111";
const T: &str = "22222222-2222-4222-8222-222222222222";
const O: &str = "33333333-3333-4333-8333-333333333333";
const CWD: &str = "/work/app";

fn lane(id: &str, seed: &str, last_words: &str) -> Session {
    let mut l = Session::lane(S, CWD, id);
    l.user(seed);
    l.text(&format!("msg_{id}"), last_words);
    l
}

fn write_lane(h: &Home, rel: &str, l: &Session, meta: Option<Value>) {
    h.write(P, &format!("{S}/subagents/{rel}.jsonl"), &l.lines);
    if let Some(m) = meta {
        h.write(P, &format!("{S}/subagents/{rel}.meta.json"), &[m]);
    }
}

/// One session holding every lane kind, a flat-legacy session and an orphan lane.
fn fixture() -> Home {
    let h = Home::new();
    let mut m = Session::new(S, CWD);
    let go = m.user("go");
    // Sync Task with the 2.1.x legacy footer and usage block (SUB-019).
    m.tool_use(
        "m1",
        "toolu_sync",
        "Task",
        json!({"prompt": "Do A", "description": "A", "subagent_type": "Explore"}),
    );
    m.tool_result(
        "toolu_sync",
        "Report A\nagentId: a1111111 (for resuming to continue this agent's work if needed)\n<usage>total_tokens: 900\ntool_uses: 3\nduration_ms: 1200</usage>",
        false,
        Some(json!({"status": "completed", "agentId": "a1111111", "content": []})),
    );
    // Async Agent: launch ack now, <task-notification> later (SUB-016, BG-004).
    m.tool_use(
        "m2",
        "toolu_async",
        "Agent",
        json!({"prompt": "Do B", "description": "B", "run_in_background": true}),
    );
    m.tool_result(
        "toolu_async",
        "Async agent launched successfully.\nagentId: abbbbbbbbbbbbbbbb (This is an internal ID for your use, do not mention it to the user.)",
        false,
        Some(json!({"isAsync": true, "status": "async_launched", "agentId": "abbbbbbbbbbbbbbbb", "description": "B", "outputFile": "/tmp/b"})),
    );
    // Teammate: ack, traffic both ways, shutdown handshake (SUB-014/015/017).
    m.tool_use(
        "m3",
        "toolu_tm",
        "Agent",
        json!({"prompt": "Review", "name": "Rev-Bob", "subagent_type": "opus", "team_name": "t1"}),
    );
    m.tool_result("toolu_tm", "Spawned successfully.", false, Some(json!({"status": "teammate_spawned", "name": "Rev-Bob", "agent_id": "Rev-Bob@t1", "team_name": "t1"})));
    m.tool_use(
        "m4",
        "toolu_sm1",
        "SendMessage",
        json!({"to": "Rev-Bob", "type": "message", "message": "start"}),
    );
    m.tool_result("toolu_sm1", "sent", false, None);
    m.user("<teammate-message teammate_id=\"Rev-Bob\" color=\"blue\">Found 2 issues</teammate-message>");
    m.tool_use(
        "m5",
        "toolu_sm2",
        "SendMessage",
        json!({"to": "Rev-Bob", "type": "shutdown_request", "message": "bye"}),
    );
    m.tool_result("toolu_sm2", "sent", false, None);
    m.user("<teammate-message teammate_id=\"Rev-Bob\">{\"type\":\"shutdown_approved\"}</teammate-message>");
    // Workflow: ack with runId; lanes, journal and manifest (SUB-008/009/010).
    m.tool_use("m6", "toolu_wf", "Workflow", json!({"script": "review.js"}));
    m.tool_result(
        "toolu_wf",
        "Workflow launched in background. Task ID: w12345678",
        false,
        Some(json!({"status": "async_launched", "runId": "wf_r1", "taskId": "w12345678", "workflowName": "review"})),
    );
    // Nested: a sync Task whose lane spawns a child and a never-written lane.
    m.tool_use(
        "m7",
        "toolu_outer",
        "Task",
        json!({"prompt": "Outer", "description": "outer"}),
    );
    m.tool_result(
        "toolu_outer",
        "Outer done\nagentId: a0a0a0a (for resuming to continue this agent's work if needed)",
        false,
        Some(json!({"status": "completed", "agentId": "a0a0a0a"})),
    );
    // Pending: spawned, no result; the lane ends on an unanswered Bash.
    m.tool_use(
        "m8",
        "toolu_pend",
        "Agent",
        json!({"prompt": "Do P", "description": "P"}),
    );
    // Stopped by the user mid-run.
    m.tool_use(
        "m9",
        "toolu_stop",
        "Task",
        json!({"prompt": "Do S", "description": "S"}),
    );
    m.tool_result(
        "toolu_stop",
        "[Request interrupted by user for tool use]",
        true,
        None,
    );
    // The async completion arrives later, as a user string carrier (BG-005).
    m.user("<task-notification>\n<task-id>abbbbbbbbbbbbbbbb</task-id>\n<tool-use-id>toolu_async</tool-use-id>\n<status>completed</status>\n<summary>Agent \"B\" completed</summary>\n<result>B done</result>\n</task-notification>");
    h.write(P, &m.file_name(), &m.lines);

    write_lane(
        &h,
        "agent-a1111111",
        &lane("a1111111", "Do A", "Report A"),
        None,
    );
    write_lane(
        &h,
        "agent-abbbbbbbbbbbbbbbb",
        &lane("abbbbbbbbbbbbbbbb", "Do B", "B done, child words"),
        None,
    );
    write_lane(
        &h,
        "agent-aRev-Bob-0123456789abcdef",
        &lane("aRev-Bob-0123456789abcdef", "Review", "looking"),
        Some(
            json!({"agentType": "Rev-Bob", "name": "Rev-Bob", "taskKind": "in_process_teammate", "teamName": "t1", "description": "reviewer"}),
        ),
    );
    write_lane(
        &h,
        "workflows/wf_r1/agent-a3333333333333333",
        &lane("a3333333333333333", "step 1", "wf out"),
        Some(json!({"agentType": "worker"})),
    );
    write_lane(
        &h,
        "workflows/wf_r1/agent-a4444444444444444",
        &lane("a4444444444444444", "step 2", "half"),
        Some(json!({"agentType": "worker", "spawnDepth": 1})),
    );
    h.write(
        P,
        &format!("{S}/subagents/workflows/wf_r1/journal.jsonl"),
        &[
            json!({"type": "started", "key": "k1", "agentId": "a3333333333333333"}),
            json!({"type": "started", "key": "k2", "agentId": "a4444444444444444"}),
            json!({"type": "result", "key": "k1", "agentId": "a3333333333333333", "result": {"ok": true}}),
        ],
    );
    h.write(P, &format!("{S}/workflows/wf_r1.json"), &[json!({"runId": "wf_r1", "taskId": "w12345678", "workflowName": "review", "status": "killed", "agentCount": 2})]);
    // Fork: line 1 is a timestampless fork-context-ref at main's first record (SUB-005).
    let mut fork = Session::lane(S, CWD, "afork000000000000");
    fork.raw(json!({"type": "fork-context-ref", "agentId": "afork000000000000", "parentSessionId": S, "parentLastUuid": go, "contextLength": 3}));
    fork.text("msg_f", "forked work");
    write_lane(
        &h,
        "agent-afork000000000000",
        &fork,
        Some(json!({"agentType": "fork", "isFork": true, "spawnDepth": 1})),
    );
    // Nested lanes.
    let mut outer = Session::lane(S, CWD, "a0a0a0a");
    outer.user("Outer");
    outer.tool_use(
        "mo1",
        "toolu_inner",
        "Agent",
        json!({"prompt": "Inner", "description": "inner"}),
    );
    outer.tool_result("toolu_inner", "Inner done\nagentId: a1b1b1b (use SendMessage with to: 'a1b1b1b', summary: '<5-10 word recap>' to continue this agent)", false, None);
    outer.tool_use(
        "mo2",
        "toolu_lost",
        "Task",
        json!({"prompt": "Lost", "description": "lost"}),
    );
    outer.tool_result(
        "toolu_lost",
        "lost result",
        false,
        Some(json!({"status": "completed", "agentId": "a9e9e9e"})),
    );
    outer.text("mo3", "Outer done");
    write_lane(&h, "agent-a0a0a0a", &outer, None);
    write_lane(
        &h,
        "agent-a1b1b1b",
        &lane("a1b1b1b", "Inner", "Inner done"),
        None,
    );
    let mut pend = Session::lane(S, CWD, "apend00000000000a");
    pend.user("Do P");
    pend.tool_use("mp", "toolu_bash", "Bash", json!({"command": "sleep 999"}));
    write_lane(&h, "agent-apend00000000000a", &pend, None);
    write_lane(
        &h,
        "agent-astop000",
        &lane("astop000", "Do S", "half way"),
        None,
    );

    // Old flat layout (L4): the lane sits beside its session, which its records name.
    let mut t = Session::new(T, CWD);
    t.version = "2.0.30".into();
    t.user("old");
    t.tool_use(
        "t1",
        "toolu_old",
        "Task",
        json!({"prompt": "Old work", "description": "old"}),
    );
    t.tool_result(
        "toolu_old",
        "old result",
        false,
        Some(json!({"status": "completed", "agentId": "a5a5a5a", "content": []})),
    );
    h.write(P, &t.file_name(), &t.lines);
    let mut flat = Session::lane(T, CWD, "a5a5a5a");
    flat.user("Old work");
    flat.text("mf", "old result");
    h.write(P, "agent-a5a5a5a.jsonl", &flat.lines);

    // A sidecar whose session file is gone.
    let mut orphan = Session::lane(O, CWD, "aorph01");
    orphan.user("Explore");
    orphan.text("mx", "found");
    h.write(
        P,
        &format!("{O}/subagents/agent-aorph01.jsonl"),
        &orphan.lines,
    );
    h
}

/// `csift agents --claude-home <h>`: the shared `Home::cmd()` puts the flag before
/// the subcommand, where clap does not accept a subcommand's global flag.
fn agents(h: &Home) -> assert_cmd::Command {
    let mut c = common::csift();
    c.arg("agents").arg("--claude-home").arg(h.path());
    c
}

fn rows(h: &Home, args: &[&str]) -> Vec<Value> {
    let out = agents(h)
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.code() == Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut all = json_lines(&out.stdout);
    // Every JSON output ends with its summary, which counts the lanes above.
    let summary = all.pop().unwrap();
    assert_eq!(summary["type"], "summary", "{summary}");
    let lanes = all.iter().filter(|v| v["type"] == "lane").count();
    assert_eq!(summary["shown"], lanes, "{summary}");
    assert_eq!(
        summary["lanes"].as_u64().unwrap(),
        summary["shown"].as_u64().unwrap() + summary["dropped"].as_u64().unwrap()
    );
    all
}

fn by_label(rows: &[Value]) -> HashMap<String, Value> {
    rows.iter()
        .filter(|r| r["type"] == "lane")
        .map(|r| {
            let k = r["agent_id"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| format!("spawn:{}", r["spawn_tool_use_id"].as_str().unwrap()));
            (k, r.clone())
        })
        .collect()
}

#[test]
fn sync_task_returns_body_with_footer_split_sub_019() {
    let h = fixture();
    let l = by_label(&rows(&h, &[&format!("@{S}")]));
    let r = &l["a1111111"];
    assert_eq!(r["kind"], "task");
    assert_eq!(r["parent_id"], "main");
    assert_eq!(r["spawn_tool_use_id"], "toolu_sync");
    assert_eq!(r["join_rule"], "J3");
    assert_eq!(r["state"], "returned");
    assert_eq!(r["carrier"], "sync-tool-result"); // SUB-018
    assert_eq!(r["returned_message"], "Report A");
    assert_eq!(r["footer"]["agent_id"], "a1111111");
    assert_eq!(r["footer"]["total_tokens"], 900);
    assert_eq!(r["agent_type"], "Explore");
    assert_eq!(r["returns_differ"], false);
    assert_eq!(r["depth"], 1);
    // Tokens: one message id, counted once.
    assert_eq!(r["tokens"]["output"], 20);
    assert_eq!(r["tokens"]["cache_read"], 100);
}

#[test]
fn async_agent_returns_through_later_notification_bg_004() {
    let h = fixture();
    let l = by_label(&rows(&h, &[&format!("@{S}")]));
    let r = &l["abbbbbbbbbbbbbbbb"];
    assert_eq!(r["kind"], "async-agent");
    assert_eq!(r["parent_id"], "main");
    assert_eq!(r["spawn_tool_use_id"], "toolu_async");
    assert_eq!(r["state"], "returned");
    assert_eq!(r["carrier"], "task-notification"); // SUB-018
    assert_eq!(r["returned_message"], "B done");
    assert_eq!(r["child_final_text"], "B done, child words");
    assert_eq!(r["returns_differ"], true);
}

#[test]
fn teammate_type_traffic_and_signals_sub_014_017() {
    let h = fixture();
    let l = by_label(&rows(&h, &[&format!("@{S}")]));
    // SUB-002, SUB-013: the id is the stem less `agent-`, a<Name>-<16 hex>
    // with a dash inside the name; SUB-012: at the built-in location, only
    // the meta's taskKind says teammate.
    let r = &l["aRev-Bob-0123456789abcdef"];
    assert_eq!(r["kind"], "teammate");
    assert_eq!(
        r["agent_type"], "opus",
        "the spawn's subagent_type, not the meta's name"
    );
    assert_eq!(r["parent_id"], "main");
    assert_eq!(r["spawn_tool_use_id"], "toolu_tm");
    assert_eq!(r["state"], "launched");
    assert_eq!(
        r["returned_message"],
        Value::Null,
        "a teammate ack is not a return (SUB-015)"
    );
    let t = &r["teammate"];
    assert_eq!(t["name"], "Rev-Bob");
    assert_eq!(t["team_name"], "t1");
    assert_eq!(t["messages_in"], 2);
    assert_eq!(t["messages_out"], 2);
    assert_eq!(t["signals_in"], json!([["shutdown_request", 1]]));
    assert_eq!(t["signals_out"], json!([["shutdown_approved", 1]]));
    assert_eq!(t["terminated"], true);
    // SUB-020: no background-task id, so TaskStop cannot stop it.
    assert!(t["control_hint"]
        .as_str()
        .unwrap()
        .contains("TaskStop does not know teammates"));
}

#[test]
fn workflow_lanes_journal_and_manifest_sub_008_010() {
    let h = fixture();
    let all = rows(&h, &[&format!("@{S}")]);
    let l = by_label(&all);
    let done = &l["a3333333333333333"];
    assert_eq!(done["kind"], "workflow");
    assert_eq!(done["parent_id"], "main");
    assert_eq!(done["spawn_tool_use_id"], "toolu_wf");
    assert_eq!(done["workflow_id"], "wf_r1");
    assert_eq!(done["state"], "returned");
    assert_eq!(done["carrier"], "workflow-journal"); // SUB-018

    // SUB-006: a workflow meta carries {agentType} or {agentType, spawnDepth}.
    assert_eq!(done["agent_type"], "worker");
    assert_eq!(done["returned_message"], "{\"ok\":true}");
    let open = &l["a4444444444444444"];
    // SUB-007, TAIL-009: no meta carries a status; the state is read from
    // the journal and the lane.
    assert_eq!(open["state"], "launched");
    assert_eq!(open["carrier"], "journal-started");
    assert!(
        !l.contains_key("journal"),
        "journal.jsonl is an event log, not a lane"
    );
    let run: Vec<&Value> = all.iter().filter(|r| r["type"] == "run").collect();
    assert_eq!(run.len(), 1);
    assert_eq!(run[0]["workflow_id"], "wf_r1");
    // SUB-009, SUB-010: the run manifest at <session>/workflows/wf_<id>.json
    // carries the run's status verbatim, an open set.
    assert_eq!(run[0]["status"], "killed");
    assert_eq!(run[0]["lanes"], 2);
    assert_eq!(run[0]["journal_started"], 2);
    assert_eq!(run[0]["journal_results"], 1);
    assert_eq!(run[0]["task_id"], "w12345678");
}

#[test]
fn fork_child_joins_on_parent_last_uuid_sub_005() {
    let h = fixture();
    let l = by_label(&rows(&h, &[&format!("@{S}")]));
    let r = &l["afork000000000000"];
    assert_eq!(r["kind"], "fork");
    assert_eq!(r["parent_id"], "main");
    assert_eq!(r["join_rule"], "J9");
    assert_eq!(r["fork_context_length"], 3);
    assert_eq!(r["state"], "unknown");
    assert_eq!(r["child_final_text"], "forked work");
}

#[test]
fn nested_spawn_parent_is_the_issuing_lane_sub_003() {
    let h = fixture();
    let l = by_label(&rows(&h, &[&format!("@{S}")]));
    let outer = &l["a0a0a0a"];
    assert_eq!(
        (outer["parent_id"].as_str(), outer["depth"].as_u64()),
        (Some("main"), Some(1))
    );
    assert_eq!(outer["returned_message"], "Outer done");
    let inner = &l["a1b1b1b"];
    assert_eq!(inner["parent_id"], "a0a0a0a");
    assert_eq!(inner["spawn_tool_use_id"], "toolu_inner");
    assert_eq!(inner["join_rule"], "J4");
    assert_eq!(inner["kind"], "agent");
    assert_eq!(inner["depth"], 2);
    assert_eq!(inner["returned_message"], "Inner done");
    assert_eq!(inner["footer"]["template"], "send-message");
    // A spawn whose lane was never written: a lane-less node under its issuer.
    let lost = &l["a9e9e9e"];
    assert_eq!(lost["file"], Value::Null);
    assert_eq!(lost["shape"], "no-lane-file");
    assert_eq!(lost["parent_id"], "a0a0a0a");
    assert_eq!(lost["state"], "returned");
    assert_eq!(lost["returned_message"], "lost result");
}

#[test]
fn pending_lane_reports_the_unanswered_tool_tail_010() {
    let h = fixture();
    let l = by_label(&rows(&h, &[&format!("@{S}")]));
    let r = &l["apend00000000000a"];
    assert_eq!(r["parent_id"], "main");
    assert_eq!(r["join_rule"], "J11");
    assert_eq!(r["state"], "pending");
    assert_eq!(r["pending_classification"], "awaiting-execution");
    assert_eq!(r["pending_tool_name"], "Bash");
    assert!(r["pending_since"].is_string());
}

#[test]
fn interrupted_sync_task_is_stopped_by_user() {
    let h = fixture();
    let l = by_label(&rows(&h, &[&format!("@{S}")]));
    let r = &l["astop000"];
    assert_eq!(r["parent_id"], "main");
    assert_eq!(r["spawn_tool_use_id"], "toolu_stop");
    assert_eq!(r["state"], "stopped-by-user");
}

#[test]
fn old_flat_lane_belongs_to_the_session_its_records_name() {
    let h = fixture();
    let l = by_label(&rows(&h, &[&format!("@{T}")]));
    assert_eq!(l.len(), 1);
    let r = &l["a5a5a5a"];
    assert_eq!(r["shape"], "flat");
    assert_eq!(r["session_id"], T);
    assert_eq!(r["kind"], "task");
    assert_eq!(r["parent_id"], "main");
    assert_eq!(r["spawn_tool_use_id"], "toolu_old");
    assert_eq!(r["state"], "returned");
    assert_eq!(r["returned_message"], "old result");
}

#[test]
fn lane_id_target_shows_its_whole_session_and_orphans_say_why() {
    let h = fixture();
    let l = by_label(&rows(&h, &["@a1b1b1b"]));
    assert!(l.contains_key("a1111111") && l.contains_key("a0a0a0a"));
    let o = by_label(&rows(&h, &[&format!("@{O}")]));
    let r = &o["aorph01"];
    assert_eq!(r["parent_id"], Value::Null);
    assert_eq!(r["main_present"], false);
    assert_eq!(r["unresolved_reason"], "parent-transcript-missing");
    assert_eq!(r["state"], "unknown");
}

#[test]
fn target_naming_several_sessions_is_an_error_listing_them() {
    let h = fixture();
    let out = agents(&h).args(["--", P]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(S) && err.contains(T), "{err}");
}

#[test]
fn shape_depth_and_returns_filters() {
    let h = fixture();
    let tm = rows(&h, &[&format!("@{S}"), "--kind", "teammate"]);
    assert_eq!(tm.len(), 1);
    assert_eq!(tm[0]["kind"], "teammate");
    let shallow = rows(&h, &[&format!("@{S}"), "--depth", "1"]);
    assert!(shallow
        .iter()
        .filter(|r| r["type"] == "lane")
        .all(|r| r["depth"] == 1));
    assert!(!by_label(&shallow).contains_key("a1b1b1b"));
    let parent_only = rows(&h, &[&format!("@{S}"), "--returns", "parent"]);
    assert!(parent_only
        .iter()
        .all(|r| r.get("child_final_text").is_none()));
}

#[test]
fn human_tree_prints_ids_usable_as_targets() {
    let h = fixture();
    let out = agents(&h).arg(format!("@{S}")).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("@a1111111  task [Explore]  returned via sync-tool-result"),
        "{s}"
    );
    assert!(s.contains("↳ returned (sync-tool-result): Report A"), "{s}");
    assert!(s.contains("awaiting-execution: Bash since"), "{s}");
    assert!(s.contains("run wf_r1  status killed"), "{s}");
    // The nested lane is indented below its parent.
    let outer = s.lines().position(|l| l.contains("@a0a0a0a ")).unwrap();
    let inner = s.lines().position(|l| l.contains("@a1b1b1b ")).unwrap();
    assert!(inner > outer);
    assert!(s.lines().nth(inner).unwrap().starts_with("   └─"));
}

#[test]
fn corpus_every_lane_file_is_placed_with_one_known_orphan() {
    let Some(home) = corpus() else { return };
    let out = common::csift()
        .args(["agents", "--format", "json", "--claude-home"])
        .arg(&home)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = json_lines(&out.stdout);
    let lanes: Vec<&Value> = rows.iter().filter(|r| r["type"] == "lane").collect();
    // Every agent-*.jsonl lane file appears exactly once, as a row with its path.
    let files: Vec<String> = common::transcripts(&home)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("agent-")
        })
        .map(|p| p.display().to_string())
        .collect();
    assert_eq!(files.len(), 3);
    for f in &files {
        let n = lanes
            .iter()
            .filter(|r| r["file"].as_str() == Some(f.as_str()))
            .count();
        assert_eq!(n, 1, "{f}");
    }
    // No orphan where a parent exists; the one lane without a parent transcript says so.
    let orphans: Vec<&&Value> = lanes.iter().filter(|r| r["parent_id"].is_null()).collect();
    assert_eq!(orphans.len(), 1);
    assert_eq!(orphans[0]["agent_id"], "afc096d");
    assert_eq!(
        orphans[0]["session_id"],
        "6c2214d7-b87e-4432-8e41-22ba294ea584"
    );
    assert_eq!(orphans[0]["unresolved_reason"], "parent-transcript-missing");
    let l = by_label(&rows);
    let a = &l["a2898e3"];
    assert_eq!(a["parent_id"], "main");
    assert_eq!(a["spawn_tool_use_id"], "toolu_017pLRuPHYTX5t99EnLyV53m");
    assert_eq!(a["join_agree"], json!(["J3", "J4", "J5", "J11"]));
    assert_eq!(a["state"], "returned");
    assert_eq!(a["footer"]["agent_id"], "a2898e3");
    let c = &l["acompact-e1f845"];
    assert_eq!(
        (
            c["kind"].as_str(),
            c["parent_id"].as_str(),
            c["state"].as_str()
        ),
        (Some("compact"), Some("main"), Some("returned"))
    );
    assert_eq!(
        c["state_evidence"].as_str().map(|s| s.starts_with("L754")),
        Some(true)
    );
    // Inline 1.0.x sidechains are joined to their Task by the seed prompt (J11).
    let inline: Vec<&&Value> = lanes
        .iter()
        .filter(|r| r["shape"] == "inline-sidechain")
        .collect();
    assert_eq!(inline.len(), 3);
    assert!(inline
        .iter()
        .all(|r| r["parent_id"] == "main" && r["join_rule"] == "J11" && r["state"] == "returned"));
    // Named as every command names a transcript: `file` a path, `line` where the
    // sidechain starts in it (it was `path: "<file>#L4"`).
    assert!(inline
        .iter()
        .all(|r| r["file"].as_str().is_some_and(|f| f.ends_with(".jsonl")) && r["line"].is_u64()));
    assert!(lanes
        .iter()
        .filter(|r| r["shape"] != "inline-sidechain")
        .all(|r| r["line"].is_null()));
    // Spawns whose lane file was never written (26 in sessions without lanes, + 1 failed).
    assert_eq!(lanes.iter().filter(|r| r["file"].is_null()).count(), 27);
    assert!(lanes
        .iter()
        .filter(|r| r["file"].is_null())
        .all(|r| r["parent_id"] == "main"));
}

#[test]
fn compact_lane_without_parent_links_joins_on_its_summary_text() {
    let h = Home::new();
    let mut m = Session::new(S, CWD);
    m.user("build it");
    m.text("m1", "built");
    m.system("compact_boundary", json!({"content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 150000}}));
    let summary = "This session is being continued from a previous conversation that ran out of context.\n\nSummary:\n1. Primary Request and Intent:\n   Build the ledger importer with tests and a dry-run flag.";
    m.push(json!({"type": "user", "isCompactSummary": true, "message": {"role": "user", "content": summary}}));
    h.write(P, &m.file_name(), &m.lines);
    let mut c = Session::lane(S, CWD, "acompact-abc123");
    // Own uuids, no link into main: the summary text is the only key.
    c.push(json!({"type": "user", "uuid": "c0000001", "parentUuid": null, "message": {"role": "user", "content": "Your task is to create a detailed summary of the conversation so far."}}));
    c.push(json!({"type": "assistant", "uuid": "c0000002", "parentUuid": "c0000001", "message": {"id": "mc", "role": "assistant", "content": [{"type": "text", "text": "<analysis>\nwalked through it\n</analysis>\n\n<summary>\nSummary:\n1. Primary Request and Intent:\n   Build the ledger importer with tests and a dry-run flag.\n</summary>"}]}}));
    h.write(
        P,
        &format!("{S}/subagents/agent-acompact-abc123.jsonl"),
        &c.lines,
    );
    let l = by_label(&rows(&h, &[&format!("@{S}")]));
    let r = &l["acompact-abc123"];
    assert_eq!(r["kind"], "compact");
    assert_eq!(r["parent_id"], "main");
    assert_eq!(r["join_rule"], "J10s");
    assert_eq!(r["state"], "returned");
    assert_eq!(r["carrier"], "compact-summary");
    assert_eq!(
        r["state_evidence"].as_str().map(|s| s.starts_with("L3 ")),
        Some(true)
    );
    assert_eq!(r["returned_message"], summary);
}

/// --since/--until keep the lanes whose time span overlaps the window: the
/// test read `!open || overlaps`, so any window kept every lane. The footer
/// counts what was shown and says how many lanes the filters left out.
/// --no-subagents cannot apply to this command and says so.
#[test]
fn time_window_and_footer_follow_the_filters() {
    let Some(home) = corpus() else { return };
    let run = |args: &[&str]| {
        common::csift()
            .arg("agents")
            .args(args)
            .arg("--claude-home")
            .arg(&home)
            .output()
            .unwrap()
    };
    let all = run(&[]);
    let text = String::from_utf8_lossy(&all.stdout);
    let footer = text.lines().last().unwrap().to_string();
    assert!(
        footer.starts_with("33 lanes shown in 19 sessions ·"),
        "{footer}"
    );

    let none = run(&["--since", "2030-01-01"]);
    assert_eq!(none.status.code(), Some(1));
    let text = String::from_utf8_lossy(&none.stdout);
    assert!(
        text.starts_with("0 lanes shown in 0 sessions (33 left out"),
        "{text}"
    );

    let day = run(&[
        "--since",
        "2026-02-12T00:00:00Z",
        "--until",
        "2026-02-12T23:59:59Z",
        "--format",
        "json",
    ]);
    let lanes: Vec<Value> = json_lines(&day.stdout)
        .into_iter()
        .filter(|r| r["type"] == "lane")
        .collect();
    assert!(!lanes.is_empty() && lanes.len() < 33, "{}", lanes.len());
    for l in &lanes {
        let first = l["spawned"].as_str().or(l["started"].as_str()).unwrap();
        assert!(first <= "2026-02-12T23:59:59Z", "{l}");
        let last = l["last_activity"].as_str().unwrap_or(first);
        assert!(last >= "2026-02-12", "{l}");
    }

    // An orphan lane is a lane: --depth 0 shows none.
    let zero = run(&["--depth", "0", "--format", "json"]);
    assert!(json_lines(&zero.stdout).iter().all(|r| r["type"] != "lane"));

    let no_sub = run(&["--no-subagents"]);
    assert_eq!(no_sub.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_sub.stderr).contains("does not apply"));
}

#[test]
fn corpus_failed_lane_prints_the_error_the_parent_got() {
    let Some(home) = corpus() else { return };
    let out = common::csift()
        .args(["agents", "@559081d6", "--claude-home"])
        .arg(&home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8_lossy(&out.stdout);
    // The Task call was refused: the parent got an error text, not a return.
    assert!(s.contains("failed via sync-tool-result"), "{s}");
    assert!(
        s.contains("↳ error (sync-tool-result): Agent type 'code-simplifier' not found"),
        "{s}"
    );
    assert!(
        !s.contains("↳ returned (sync-tool-result): Agent type"),
        "{s}"
    );
}

/// REC-089: a lane's records are not in time order in its file (a resume
/// replays, a writer lags). Its span is its earliest and latest time, as stats
/// reports them, each as written; never an end before its start.
#[test]
fn a_lane_spans_its_earliest_to_latest_time_rec_089() {
    let h = fixture();
    let path = h
        .projects()
        .join(P)
        .join(S)
        .join("subagents/agent-a1111111.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let first = lines[0]["timestamp"].as_str().unwrap().to_string();
    let second = lines[1]["timestamp"].as_str().unwrap().to_string();
    assert!(first < second);
    // The first record written last, as a replayed copy would be.
    lines[0]["timestamp"] = json!("2099-01-01T00:00:00.000Z");
    std::fs::write(&path, common::jsonl(&lines)).unwrap();
    let l = by_label(&rows(&h, &[&format!("@{S}")]));
    let r = &l["a1111111"];
    assert_eq!(r["started"], second.as_str());
    assert_eq!(r["last_activity"], "2099-01-01T00:00:00.000Z");
}

/// A lane's `shape` is the same word in agents as in list and stats (a2898e3 was
/// "builtin" here and "subagent" there); --shape still reads as --kind.
#[test]
fn a_lane_shape_is_named_as_list_names_it() {
    let Some(home) = common::corpus() else { return };
    let run = |args: &[&str]| {
        common::json_lines(
            &common::csift()
                .args(args)
                .args(["--format", "json", "--claude-home"])
                .arg(&home)
                .output()
                .unwrap()
                .stdout,
        )
    };
    let lanes: Vec<Value> = run(&["agents"])
        .into_iter()
        .filter(|v| v["type"] == "lane" && v["file"].is_string() && v["line"].is_null())
        .collect();
    let mut listed = std::collections::BTreeMap::new();
    for l in &lanes {
        let target = format!("@{}", l["session_id"].as_str().unwrap());
        for v in run(&["list", &target]) {
            if v["type"] == "lane" {
                listed.insert(v["file"].as_str().unwrap().to_string(), v["shape"].clone());
            }
        }
    }
    assert!(lanes.len() >= 3, "{}", lanes.len());
    for l in &lanes {
        let file = l["file"].as_str().unwrap();
        assert_eq!(Some(&l["shape"]), listed.get(file), "{file}");
    }
    let compact = run(&["agents", "@4d5611e5", "--shape", "compact"]);
    assert!(compact
        .iter()
        .any(|v| v["kind"] == "compact" && v["shape"] == "compact"));
}

/// An inline sidechain's id from agents (`inline:<uuid>`) has no file to
/// select: a target naming it says how to read it instead of "no id starts".
#[test]
fn an_inline_sidechain_id_as_a_target_says_where_to_read_it() {
    let Some(home) = corpus() else { return };
    let lanes = json_lines(
        &common::csift()
            .args(["agents", "@a4e5b271", "--format", "json", "--claude-home"])
            .arg(&home)
            .output()
            .unwrap()
            .stdout,
    );
    let inline = lanes
        .iter()
        .find(|v| v["shape"] == "inline-sidechain")
        .expect("a4e5b271 has an inline sidechain");
    let id = inline["agent_id"].as_str().unwrap();
    assert!(id.starts_with("inline:"), "{id}");
    let out = common::csift()
        .args(["show", &format!("@a4e5b271@{id}"), "--claude-home"])
        .arg(&home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("csift show @a4e5b271 --line N"), "{err}");
}

/// A spawn whose lane file was never written (agents: `no-lane-file`) still has
/// an id: used as a target, the error names the session and the line of its
/// spawn result (the session's own echo, not a progress record nesting the
/// subagent's results), in both target forms.
#[test]
fn a_lane_less_spawn_id_as_a_target_says_where_its_result_is_bg_004() {
    let Some(home) = corpus() else { return };
    for target in ["@ae66507", "@70c88cff@ae66"] {
        let out = common::csift()
            .args(["show", target, "--claude-home"])
            .arg(&home)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("subagent `ae66507`"), "{err}");
        assert!(err.contains("no-lane-file"), "{err}");
        assert!(err.contains("csift show @70c88cff --line 128"), "{err}");
    }
    let file = std::fs::read_dir(home.join("projects/-Users-alex-workspace-cli"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("70c88cff"))
        .unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    let line: Value = serde_json::from_str(text.lines().nth(127).unwrap()).unwrap();
    assert_eq!(line["type"], "user");
    assert_eq!(line["toolUseResult"]["agentId"], "ae66507");
}

/// An agent id in two sessions (a copied or forked home) is ambiguous, by
/// its full id or a prefix: the error lists each as @<session>@<agent>, and
/// that form selects one. Before, every command silently used the first.
#[test]
fn an_agent_id_in_two_sessions_is_ambiguous_not_picked() {
    let h = Home::new();
    let sids = [
        "11111111-0000-4000-8000-0000000000aa",
        "22222222-0000-4000-8000-0000000000bb",
    ];
    for sid in sids {
        let mut m = Session::new(sid, CWD);
        m.user("start");
        m.text("m0", "ok");
        h.write(P, &m.file_name(), &m.lines);
        let mut l = Session::lane(sid, CWD, "aabbcc1");
        l.user(&format!("seed of {sid}"));
        l.text("m1", "done");
        h.write(P, &format!("{sid}/subagents/agent-aabbcc1.jsonl"), &l.lines);
    }
    for target in ["@aabbcc1", "@aabb"] {
        let out = h.cmd().args(["show", target]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{target}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("ambiguous"), "{err}");
        assert!(
            err.contains("@11111111@aabbcc1") && err.contains("@22222222@aabbcc1"),
            "{err}"
        );
    }
    let out = h
        .cmd()
        .args(["show", "@22222222@aabbcc1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("seed of 22222222"));
}

/// A frozen lane's pending Bash call is escalation-blocked exactly when Claude
/// Code's dangerous-rm rule would hold it for a human (BASH-015, SUB-024,
/// TAIL-010); a PowerShell call is never read as bash (WIN-005), and a harmless
/// call stays awaiting-execution (BASH-028: the transcript cannot tell slow from
/// wedged).
#[test]
fn pending_bash_rm_is_escalation_blocked_and_powershell_is_not_sub_024() {
    // SUB-024, TAIL-010, BASH-015, BASH-016, BASH-028, WIN-005
    let h = Home::new();
    let mut m = Session::new(S, CWD);
    m.user("go");
    for (i, d) in ["E", "W", "X", "Q"].iter().enumerate() {
        m.tool_use(
            &format!("m{i}"),
            &format!("toolu_{d}"),
            "Agent",
            json!({"prompt": format!("Do {d}"), "description": d}),
        );
    }
    h.write(P, &m.file_name(), &m.lines);
    let frozen = |agent: &str, blocks: Vec<Value>| {
        let mut l = Session::lane(S, CWD, agent);
        l.user("Do it");
        l.push(json!({"type": "assistant", "message": {"model": "claude-x", "id": format!("msg_{agent}"),
            "role": "assistant", "content": blocks, "stop_reason": "tool_use"}}));
        write_lane(&h, &format!("agent-{agent}"), &l, None);
    };
    let teardown =
        "SCRATCH=/tmp/s\nfor f in a b; do\n  [ -f \"$SCRATCH/$f\" ] && rm -f \"$SCRATCH/$f\"\ndone";
    frozen(
        "aescalate0000000a",
        vec![
            json!({"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": teardown}}),
        ],
    );
    frozen(
        "awindows00000000a",
        vec![json!({"type": "tool_use", "id": "t2", "name": "PowerShell",
            "input": {"command": "Remove-Item -Recurse -Force \"$env:SCRATCH/*\"; rm -rf $X/*"}})],
    );
    // Two calls in one record: the held one is what the lane waits on.
    frozen(
        "amixed0000000000a",
        vec![
            json!({"type": "tool_use", "id": "t3", "name": "Bash", "input": {"command": "rm -rf \"${OUT}/\""}}),
            json!({"type": "tool_use", "id": "t4", "name": "Read", "input": {"file_path": "/work/app/x"}}),
        ],
    );
    frozen(
        "aquiet0000000000a",
        vec![
            json!({"type": "tool_use", "id": "t5", "name": "Bash", "input": {"command": "rm -rf $TMP/build"}}),
        ],
    );
    let l = by_label(&rows(&h, &[&format!("@{S}")]));
    let e = &l["aescalate0000000a"];
    assert_eq!(e["state"], "pending");
    assert_eq!(e["pending_classification"], "escalation-blocked");
    assert_eq!(e["carrier"], "escalation-blocked");
    assert_eq!(
        e["pending_reason"],
        "Dangerous rm operation on possibly-empty variable path: \"$SCRATCH/$f\""
    );
    let w = &l["awindows00000000a"];
    assert_eq!(w["pending_tool_name"], "PowerShell");
    assert_eq!(w["pending_classification"], "awaiting-execution");
    assert_eq!(w["pending_reason"], Value::Null);
    let x = &l["amixed0000000000a"];
    assert_eq!(x["pending_tool_name"], "Bash");
    assert_eq!(x["pending_classification"], "escalation-blocked");
    // `$VAR/literal` is not Claude Code's dangerous shape (BASH-016).
    let q = &l["aquiet0000000000a"];
    assert_eq!(q["pending_classification"], "awaiting-execution");
    let out = agents(&h).arg(format!("@{S}")).output().unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("escalation-blocked: Bash since") && s.contains("asks a human"),
        "{s}"
    );
    assert!(s.contains("awaiting-execution: PowerShell since"), "{s}");
}

const FAN: &str = "44444444-4444-4444-8444-444444444444";

/// A parallel fan-out of four subagents: A and B with lane files, C and D
/// without; B, C and A return in that order, D never does. Lane B creates a file with Write, deletes
/// one and runs a formatter with Bash; lane A's Edit fails (it never landed)
/// and it only reads.
fn fan_out() -> Home {
    let h = Home::new();
    let mut m = Session::new(FAN, CWD);
    m.user("review both modules in parallel");
    // One assistant message, one record per block (REC-020): two spawns.
    m.assistant(
        "msg_fan",
        &[
            json!({"type": "tool_use", "id": "toolu_a", "name": "Task", "input": {"prompt": "Review A", "description": "first", "subagent_type": "general-purpose"}}),
            json!({"type": "tool_use", "id": "toolu_b", "name": "Task", "input": {"prompt": "Review B", "description": "second", "subagent_type": "general-purpose"}}),
            json!({"type": "tool_use", "id": "toolu_c", "name": "Task", "input": {"prompt": "Review C", "description": "third", "subagent_type": "general-purpose"}}),
            json!({"type": "tool_use", "id": "toolu_d", "name": "Task", "input": {"prompt": "Review D", "description": "fourth", "subagent_type": "general-purpose"}}),
        ],
    );
    // B returns first, then C, then A (completion order, not trigger order);
    // D never does.
    for (id, agent, text) in [
        ("toolu_b", "abbbbbbbbbbbbbbb0", "B reviewed"),
        ("toolu_c", "acccccccccccccccc", "C reviewed"),
        ("toolu_a", "aaaaaaaaaaaaaaaa0", "A reviewed"),
    ] {
        m.tool_result(
            id,
            text,
            false,
            Some(json!({"status": "completed", "agentId": agent, "content": [{"type": "text", "text": text}], "totalDurationMs": 1000, "totalTokens": 100, "totalToolUseCount": 2})),
        );
    }
    m.text("msg_end", "Both reviewed.");
    h.write(P, &m.file_name(), &m.lines);

    let mut a = Session::lane(FAN, CWD, "aaaaaaaaaaaaaaaa0");
    a.user("Review A");
    a.tool_use(
        "msg_a1",
        "toolu_a1",
        "Read",
        json!({"file_path": "/work/app/a.rs"}),
    );
    a.tool_result("toolu_a1", "1\tfn a() {}", false, Some(json!({"type": "text", "file": {"filePath": "/work/app/a.rs", "content": "fn a() {}", "numLines": 1, "startLine": 1, "totalLines": 1}})));
    a.tool_use(
        "msg_a2",
        "toolu_a2",
        "Edit",
        json!({"file_path": "/work/app/a.rs", "old_string": "fn a", "new_string": "fn b"}),
    );
    a.tool_result(
        "toolu_a2",
        "<tool_use_error>String to replace not found in file.</tool_use_error>",
        true,
        Some(json!("Error: String to replace not found in file.")),
    );
    a.text("msg_a3", "A reviewed");
    let mut b = Session::lane(FAN, CWD, "abbbbbbbbbbbbbbb0");
    b.user("Review B");
    b.tool_use(
        "msg_b1",
        "toolu_b1",
        "Write",
        json!({"file_path": "/work/app/notes/b.md", "content": "# B\n"}),
    );
    b.tool_result("toolu_b1", "File created successfully at: /work/app/notes/b.md", false, Some(json!({"type": "create", "filePath": "/work/app/notes/b.md", "content": "# B\n", "structuredPatch": []})));
    b.tool_use(
        "msg_b2",
        "toolu_b2",
        "Bash",
        json!({"command": "rm old.txt && cargo fmt", "description": "tidy"}),
    );
    b.tool_result(
        "toolu_b2",
        "",
        false,
        Some(json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false})),
    );
    b.text("msg_b3", "B reviewed");
    for (l, tool, desc) in [(&a, "toolu_a", "first"), (&b, "toolu_b", "second")] {
        let id = l.agent_id.clone().unwrap();
        h.write(P, &format!("{FAN}/subagents/agent-{id}.jsonl"), &l.lines);
        h.write(
            P,
            &format!("{FAN}/subagents/agent-{id}.meta.json"),
            &[json!({"agentType": "general-purpose", "description": desc, "toolUseId": tool})],
        );
    }
    h
}

fn fan_rows(h: &Home, args: &[&str]) -> Vec<Value> {
    rows(h, &[&[format!("@{FAN}").as_str()], args].concat())
        .into_iter()
        .filter(|r| r["type"] == "lane")
        .collect()
}

/// Siblings of a parallel fan-out come in the order the parent spawned them
/// by default (SUB-023: the parent's call, whose instant the children's first
/// records lag unevenly), and in the order they returned with `--order-by
/// completion`, a spawn that never returned last.
#[test]
fn order_by_trigger_or_completion_sub_023() {
    let h = fan_out();
    let desc = |rows: &[Value]| -> Vec<String> {
        rows.iter()
            .map(|r| r["description"].as_str().unwrap_or("?").to_string())
            .collect()
    };
    let trigger = fan_rows(&h, &[]);
    assert_eq!(
        desc(&trigger),
        ["first", "second", "third", "fourth"],
        "{trigger:?}"
    );
    assert_eq!(
        desc(&fan_rows(&h, &["--order-by", "trigger"])),
        desc(&trigger)
    );
    let done = fan_rows(&h, &["--order-by", "completion"]);
    assert_eq!(
        desc(&done),
        ["second", "third", "first", "fourth"],
        "{done:?}"
    );
    let times: Vec<&str> = done[..3]
        .iter()
        .map(|r| r["completed"].as_str().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
    assert_eq!(done[3]["completed"], Value::Null, "{}", done[3]);
    // The human tree follows the same order.
    let out = agents(&h)
        .args([format!("@{FAN}").as_str(), "--order-by", "completion"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("{s} in {text}"));
    assert!(
        at("\"second\"") < at("\"third\"")
            && at("\"third\"") < at("\"first\"")
            && at("\"first\"") < at("\"fourth\""),
        "{text}"
    );
}

/// `--with-files`: each lane's written paths, read as `csift files` reads them
/// (REC-055: a Write's echo says create; REC-074: a call whose result is an
/// error never landed), its Bash deletes named and its formatter counted as a
/// command that changes files it does not name; a spawn with no records of
/// its own says unknown (null), not "nothing".
#[test]
fn with_files_lists_what_each_lane_wrote_rec_055_rec_074() {
    let h = fan_out();
    let rows = fan_rows(&h, &["--with-files"]);
    let by: HashMap<&str, &Value> = rows
        .iter()
        .map(|r| (r["description"].as_str().unwrap(), r))
        .collect();
    let b = &by["second"];
    let files: Vec<(&str, Value)> = b["files_written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["kinds"].clone()))
        .collect();
    assert_eq!(
        files,
        [
            ("/work/app/notes/b.md", json!(["create"])),
            ("/work/app/old.txt", json!(["bash_delete"])),
        ],
        "{b}"
    );
    assert_eq!(b["files_opaque"], 1, "cargo fmt: {b}");
    let a = &by["first"];
    assert_eq!(
        a["files_written"],
        json!([]),
        "a failed Edit and a Read: {a}"
    );
    assert_eq!(a["files_opaque"], 0);
    let c = &by["third"];
    assert!(c["file"].is_null(), "{c}");
    assert_eq!(c["files_written"], Value::Null, "{c}");
    assert!(c.as_object().unwrap().contains_key("files_written"));
    // Without the flag the fields are absent.
    let plain = fan_rows(&h, &[]);
    assert!(plain.iter().all(|r| r.get("files_written").is_none()));

    let out = agents(&h)
        .args([format!("@{FAN}").as_str(), "--with-files"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("wrote 2 files: /work/app/notes/b.md (create), /work/app/old.txt (bash_delete) · 1 commands that change files they do not name"),
        "{text}"
    );
    assert!(text.contains("wrote no file"), "{text}");
    assert!(text.contains("wrote: unknown"), "{text}");
}

/// A record holding two spawn results carries one `toolUseResult`: whose it
/// is is not known, so its `agentId` joins neither; each result's own
/// `agentId:` line (SUB-019) joins its lane, as `export` places them
/// (crate::lanes). Before, the ack joined both lanes to the first spawn and
/// left the second spawn as a lane-less row.
#[test]
fn two_results_in_one_record_join_by_their_own_text_sub_019() {
    const TWO: &str = "44444444-4444-4444-8444-444444444444";
    let h = Home::new();
    let mut m = Session::new(TWO, CWD);
    m.user("Run two reviews");
    m.tool_use(
        "m1",
        "toolu_A",
        "Agent",
        json!({"prompt": "Review module A", "description": "review A"}),
    );
    m.tool_use(
        "m1",
        "toolu_B",
        "Agent",
        json!({"prompt": "Review module B", "description": "review B"}),
    );
    let result = |id: &str, body: &str, agent: &str| {
        json!({"type": "tool_result", "tool_use_id": id, "content": [
            {"type": "text", "text": body},
            {"type": "text", "text": format!("agentId: {agent} (use SendMessage with to: '{agent}' to continue this agent)\n<usage>total_tokens: 10\ntool_uses: 1\nduration_ms: 900</usage>")}]})
    };
    m.push(
        json!({"type": "user", "message": {"role": "user", "content": [
        result("toolu_A", "A looks fine.", "a1"), result("toolu_B", "B has a bug.", "a2")]},
        "toolUseResult": {"status": "completed", "agentId": "a2", "content": []}}),
    );
    h.write(P, &format!("{TWO}.jsonl"), &m.lines);
    for (a, seed) in [("a1", "Review module A"), ("a2", "Review module B")] {
        let mut l = Session::lane(TWO, CWD, a);
        l.user(seed);
        l.text(&format!("msg_{a}"), "reviewed");
        h.write(P, &format!("{TWO}/subagents/agent-{a}.jsonl"), &l.lines);
    }
    let got: Vec<(Value, Value, Value)> = rows(&h, &[&format!("@{TWO}")])
        .iter()
        .filter(|r| r["type"] == "lane")
        .map(|r| {
            (
                r["agent_id"].clone(),
                r["spawn_tool_use_id"].clone(),
                r["file"].is_string().into(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (json!("a1"), json!("toolu_A"), json!(true)),
            (json!("a2"), json!("toolu_B"), json!(true)),
        ]
    );
}

/// An agent resumed by a second Task call: both results end with its
/// `agentId:` line (SUB-019) and neither carries an ack. The lane joins the
/// first spawn on every run (it took whichever a hash map yielded first,
/// 6 runs in 8 the resume), as `export` places it (crate::lanes).
#[test]
fn a_resumed_agent_joins_its_first_spawn_every_time_sub_019() {
    const RES: &str = "55555555-5555-4555-8555-555555555555";
    let h = Home::new();
    let mut m = Session::new(RES, CWD);
    m.user("Review it");
    let footer = "agentId: a5 (for resuming to continue this agent's work if needed)";
    m.tool_use(
        "m1",
        "toolu_1",
        "Task",
        json!({"prompt": "Review module A", "description": "review"}),
    );
    m.tool_result("toolu_1", &format!("A looks fine.\n{footer}"), false, None);
    m.tool_use(
        "m2",
        "toolu_2",
        "Task",
        json!({"prompt": "Also check B", "description": "review more", "resume": "a5"}),
    );
    m.tool_result("toolu_2", &format!("B is fine too.\n{footer}"), false, None);
    h.write(P, &format!("{RES}.jsonl"), &m.lines);
    let mut l = Session::lane(RES, CWD, "a5");
    l.user("Review module A");
    l.text("msg_a", "A looks fine.");
    l.user("Also check B");
    l.text("msg_b", "B is fine too.");
    h.write(P, &format!("{RES}/subagents/agent-a5.jsonl"), &l.lines);
    for _ in 0..6 {
        let lane: Vec<Value> = rows(&h, &[&format!("@{RES}")])
            .into_iter()
            .filter(|r| r["type"] == "lane" && r["file"].is_string())
            .collect();
        assert_eq!(lane.len(), 1, "{lane:?}");
        assert_eq!(lane[0]["spawn_tool_use_id"], "toolu_1", "{}", lane[0]);
        assert_eq!(lane[0]["join_rule"], "J4", "{}", lane[0]);
    }
}
