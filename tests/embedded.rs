//! Subagent records nested in the parent's `agent_progress` records: searched,
//! shown and counted as that subagent's units, and skipped where the agent's
//! lane file holds the same records (measured on the public corpus: 67 of 67
//! nested uuids of 4d5611e5 are records of its lane file).

use crate::common;

use common::{json_lines, Home, Session};
use serde_json::{json, Value};

const AGENT: &str = "a1b2c3d4e5f6a7b8c";
/// The parent with no lane file, the parent with one, and `odd_home`'s parent.
const S1: &str = "00000000-0000-4000-8000-000000000001";
const S2: &str = "00000000-0000-4000-8000-000000000002";
const S3: &str = "00000000-0000-4000-8000-000000000003";

/// `csift <args> --format json` on home `h`, asserted to succeed.
fn json_of(h: &Home, args: &[&str]) -> Vec<Value> {
    common::ok_json(h.cmd().args(args).args(["--format", "json"]))
}

/// `@<session>`.
fn at(id: &str) -> String {
    format!("@{id}")
}

/// The subagent's three records: its seed prompt, a Bash call, its result.
fn lane_records(s: &mut Session) -> Vec<Value> {
    let prompt = "Run the tests and report";
    let mut lane = Session::lane(&s.id, &s.cwd, AGENT);
    lane.user(prompt);
    lane.tool_use(
        "msg_sub",
        "toolu_sub1",
        "Bash",
        json!({"command": "cargo test EMB_NEEDLE"}),
    );
    lane.tool_result(
        "toolu_sub1",
        "test result: ok. EMB_NEEDLE passed",
        false,
        None,
    );
    lane.lines
}

/// A parent session that spawns the subagent and nests each of its records in
/// an agent_progress record, as Claude Code 2.1.x writes them (4cdef911…:277).
fn parent(id: &str, lane: &[Value]) -> Session {
    let mut s = Session::new(id, "/work/p");
    s.user("please run the tests");
    s.tool_use(
        "msg_1",
        "toolu_task",
        "Task",
        json!({"description": "tests", "prompt": "Run the tests and report", "subagent_type": "general-purpose"}),
    );
    for r in lane {
        let nested = json!({
            "type": r["type"], "message": r["message"], "uuid": r["uuid"], "timestamp": r["timestamp"],
        });
        s.push(json!({"type": "progress", "data": {
            "message": nested, "normalizedMessages": [], "type": "agent_progress",
            "prompt": "Run the tests and report", "agentId": AGENT},
            "toolUseID": "agent_msg_1", "parentToolUseID": "toolu_task"}));
    }
    s.tool_result(
        "toolu_task",
        "All tests passed.",
        false,
        Some(json!({"status": "completed", "agentId": AGENT})),
    );
    s.text("msg_2", "Done: the tests pass.");
    s
}

/// Two sessions: `…0001` has no lane file, `…0002` has one holding the records.
fn home() -> Home {
    let h = Home::new();
    let mut a = parent(S1, &[]);
    let lane = lane_records(&mut a);
    let a = parent(&a.id, &lane);
    h.write("-work-p", &a.file_name(), &a.lines);
    let b = parent(S2, &lane);
    h.write("-work-p", &b.file_name(), &b.lines);
    let lane_name = format!("{}/subagents/agent-{AGENT}.jsonl", b.id);
    let lane_lines: Vec<Value> = lane
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r["sessionId"] = json!(b.id);
            r
        })
        .collect();
    h.write("-work-p", &lane_name, &lane_lines);
    h
}

fn matches(out: &[u8]) -> Vec<Value> {
    json_lines(out)
        .into_iter()
        .filter(|v| v["type"] == "match")
        .collect()
}

#[test]
fn a_nested_call_is_found_with_its_nested_result() {
    let h = home();
    let out = h
        .cmd()
        .args([
            "search",
            "-t",
            "agent.tool.use",
            "EMB_NEEDLE",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let hits = matches(&out.stdout);
    // One from session 1's progress records, one from session 2's lane file.
    assert_eq!(hits.len(), 2, "{hits:#?}");
    let nested = hits.iter().find(|h| h["via"] == "agent_progress").unwrap();
    assert_eq!(nested["session_id"], S1);
    assert_eq!(nested["agent_id"], AGENT);
    assert_eq!(nested["tool_name"], "Bash");
    assert_eq!(nested["line"], 4);
    assert!(nested["file"]
        .as_str()
        .unwrap()
        .ends_with("000000000001.jsonl"));
    let ex = nested["exchange"].as_array().unwrap();
    assert_eq!(ex.len(), 1);
    assert_eq!(ex[0]["label"], "agent.tool.result");
    assert_eq!(ex[0]["line"], 5);
    assert_eq!(ex[0]["via"], "agent_progress");
    assert!(ex[0]["text"].as_str().unwrap().contains("passed"));
    let lane = hits.iter().find(|h| h["via"].is_null()).unwrap();
    assert!(lane["file"].as_str().unwrap().contains("/subagents/"));

    // The human header says where the unit lives.
    let out = h
        .cmd()
        .args(["search", "-t", "agent.tool.use", "EMB_NEEDLE"])
        .arg(at(S1))
        .output();
    let human = String::from_utf8(out.unwrap().stdout).unwrap();
    assert!(
        human.contains(&format!(
            "── 00000000@{AGENT} ·t1 agent.tool.use Bash via agent_progress "
        )),
        "{human}"
    );
}

#[test]
fn no_subagents_leaves_nested_records_out() {
    let h = home();
    let out = h
        .cmd()
        .args(["search", "EMB_NEEDLE", "--no-subagents", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{:?}", matches(&out.stdout));
    let stats = common::first_json(
        h.cmd()
            .args(["stats", "--no-subagents", "--format", "json"]),
        "total",
    );
    assert_eq!(stats["units_embedded"], 0);
}

/// Nested units count in stats as search finds them: the seed, the call and
/// the result of session 1; none of session 2, whose lane file counts them.
#[test]
fn stats_counts_the_nested_units_search_finds() {
    let h = home();
    let rows = json_of(&h, &["stats"]);
    let row = |end: &str| {
        rows.iter()
            .find(|r| r["type"] == "transcript" && r["file"].as_str().unwrap().ends_with(end))
            .unwrap()
            .clone()
    };
    assert_eq!(row("000000000001.jsonl")["units_embedded"], 3);
    assert_eq!(row("000000000002.jsonl")["units_embedded"], 0);
    let one = row("000000000001.jsonl");
    assert_eq!(one["labels"]["agent.communication.inbox"], 2); // seed + Task result
    let total = rows.iter().find(|r| r["type"] == "total").unwrap();
    let out = h
        .cmd()
        .args(["search", "", "-t", "user.*,agent.*,harness.*"])
        .args(["--count-by", "label", "--format", "json"])
        .output()
        .unwrap();
    let searched = common::searched_labels(&json_lines(&out.stdout));
    assert_eq!(common::counted_labels(total), searched);
    let human = String::from_utf8(h.cmd().arg("stats").output().unwrap().stdout).unwrap();
    assert!(
        human.contains("units (3 from subagent records in agent_progress records)"),
        "{human}"
    );
}

#[test]
fn show_prints_a_progress_line_as_the_subagent_unit() {
    let h = home();
    let v = json_of(&h, &["show", &at(S1), "--line", "3..5"]);
    let units: Vec<&Value> = v.iter().filter(|u| u["type"] == "unit").collect();
    let labels: Vec<&str> = units.iter().map(|u| u["label"].as_str().unwrap()).collect();
    assert_eq!(
        labels,
        [
            "agent.communication.inbox",
            "agent.tool.use",
            "agent.tool.result"
        ]
    );
    assert!(units
        .iter()
        .all(|u| u["via"] == "agent_progress" && u["agent_id"] == AGENT));
    // A turn fetch holds them: search numbers them by the parent's turn.
    let v = json_of(&h, &["show", &at(S1), "--turn", "1"]);
    let nested = v.iter().filter(|u| u["via"] == "agent_progress").count();
    assert_eq!(nested, 3);
}

/// The public corpus's 4cdef911: a devrun subagent with no lane file ran
/// pytest; its call and result exist only in agent_progress records.
#[test]
fn corpus_subagent_work_without_a_lane_file_is_searchable() {
    let Some(home) = common::corpus() else { return };
    let out = common::csift()
        .args(["search", "-t", "agent.tool.use", "uv run pytest tests/ -v"])
        .args(["--format", "json", "--claude-home"])
        .arg(&home)
        .output()
        .unwrap();
    // The Task call that spawned it quotes the command too.
    let hits = matches(&out.stdout);
    assert_eq!(hits.len(), 2, "{hits:#?}");
    assert_eq!(hits[0]["label"], "agent.communication.sent");
    let h = &hits[1];
    assert_eq!(h["agent_id"], "af7659ef33663ab14");
    assert_eq!(h["via"], "agent_progress");
    assert_eq!(h["line"], 278);
    assert_eq!(h["exchange"][0]["line"], 279);
    assert!(h["exchange"][0]["text"]
        .as_str()
        .unwrap()
        .contains("23 passed"));
    // 4d5611e5's nested records are its lane file's: found there, once.
    let out = common::csift()
        .args([
            "search",
            "",
            "-t",
            "agent.*",
            "@4d5611e5",
            "--format",
            "json",
        ])
        .arg("--claude-home")
        .arg(&home)
        .output()
        .unwrap();
    let hits = matches(&out.stdout);
    assert!(hits.len() > 60, "{}", hits.len());
    assert!(hits.iter().all(|h| h["via"].is_null()));
    assert!(hits
        .iter()
        .any(|h| h["file"].as_str().unwrap().contains("agent-a2898e3")));
}

/// agents counts a lane-less subagent's nested records, and leaves its
/// tokens at 0: a nested usage copy is written as the reply starts streaming.
#[test]
fn agents_counts_a_lane_less_subagents_nested_records() {
    let h = home();
    let rows = json_of(&h, &["agents", &at(S1)]);
    let lane = rows.iter().find(|r| r["type"] == "lane").unwrap();
    assert_eq!(lane["shape"], "no-lane-file");
    assert_eq!(lane["nested_records"], true);
    assert_eq!(lane["records"], 3);
    assert_eq!(lane["tool_calls"], 1);
    assert_eq!(lane["tokens"]["output"], 0);
    assert!(lane["started"].is_string());
    let out = h.cmd().args(["agents", &at(S1)]).output().unwrap();
    let human = String::from_utf8(out.stdout).unwrap();
    assert!(
        human.contains("(no lane file; its records are in agent_progress records)"),
        "{human}"
    );
    assert!(
        human.contains("3 records · 1 tool calls (nested"),
        "{human}"
    );
    // Where the lane file exists, the row is the lane file's.
    let rows = json_of(&h, &["agents", &at(S2)]);
    let lane = rows.iter().find(|r| r["type"] == "lane").unwrap();
    assert!(lane["file"].is_string());
    assert!(lane.get("nested_records").is_none());
}

/// The corpus's b82405ba: two dev subagents with no lane file; their counts
/// match a count of the agent_progress records by agentId (53 and 43
/// records, 26 and 21 distinct tool_use ids).
#[test]
fn corpus_lane_less_subagents_count_their_nested_records() {
    let Some(home) = common::corpus() else { return };
    let rows = common::ok_json(
        common::csift()
            .args(["agents", "@b82405ba", "--format", "json", "--claude-home"])
            .arg(&home),
    );
    let got: Vec<(String, u64, u64)> = rows
        .iter()
        .filter(|r| r["type"] == "lane")
        .map(|r| {
            (
                r["agent_id"].as_str().unwrap().to_string(),
                r["records"].as_u64().unwrap(),
                r["tool_calls"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("a333efa".to_string(), 53, 26),
            ("a888d4d".to_string(), 43, 21)
        ]
    );
}

/// A parent whose nested records hold a user text that is not the spawn
/// prompt, an agent text, and a call in a record with no agent id.
fn odd_home() -> Home {
    let h = Home::new();
    let mut s = Session::new(S3, "/work/p");
    s.user("please spawn the helper");
    let nest = |s: &mut Session, agent: Option<&str>, r: Value| {
        let mut data = json!({"message": r, "normalizedMessages": [],
            "type": "agent_progress", "prompt": "the spawn prompt"});
        if let Some(a) = agent {
            data["agentId"] = json!(a);
        }
        s.push(json!({"type": "progress", "data": data, "parentToolUseID": "toolu_task"}));
    };
    nest(
        &mut s,
        Some(AGENT),
        json!({"type": "user", "uuid": "n-1", "timestamp": "2026-01-01T00:00:30.000Z",
            "message": {"role": "user", "content": "ODD_NOT_THE_SEED"}}),
    );
    nest(
        &mut s,
        Some(AGENT),
        json!({"type": "assistant", "uuid": "n-2", "timestamp": "2026-01-01T00:00:31.000Z",
            "message": {"role": "assistant", "model": "claude-haiku-4-5", "content": [
                {"type": "text", "text": "ODD_NESTED_REPLY"}]}}),
    );
    nest(
        &mut s,
        None,
        json!({"type": "assistant", "uuid": "n-3", "timestamp": "2026-01-01T00:00:32.000Z",
            "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_x", "name": "Read", "input": {"file_path": "/ODD_NOAGENT"}}]}}),
    );
    s.text("msg_2", "the parent's own reply");
    h.write("-work-p", &s.file_name(), &s.lines);
    h
}

#[test]
fn nested_user_text_is_inbox_and_nested_units_keep_to_their_own_exchange() {
    let h = odd_home();
    let out = h
        .cmd()
        .args(["search", "ODD_", "-t", "user.*,agent.*", "--format", "json"])
        .output()
        .unwrap();
    let hits = matches(&out.stdout);
    let labels: Vec<&str> = hits.iter().map(|h| h["label"].as_str().unwrap()).collect();
    // Not user.message: the human never typed it.
    assert_eq!(
        labels,
        [
            "agent.communication.inbox",
            "agent.message",
            "agent.tool.use"
        ]
    );
    // The nested reply is not paired with the parent's prompt, and the
    // nested text is not taken as the parent's turn prompt with its reply.
    for h in &hits[..2] {
        assert!(h["exchange"].as_array().unwrap().is_empty(), "{h}");
    }
    // A record with no agent id is still found, naming no agent.
    assert_eq!(hits[2]["via"], "agent_progress");
    assert!(hits[2]["agent_id"].is_null());
    assert_eq!(hits[2]["unanswered"], true);
    // Its own model, not the (absent) envelope's.
    let out = h
        .cmd()
        .args(["search", "ODD_", "--model", "claude-haiku*", "-c"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).ends_with(":1\n"));
}

#[test]
fn show_finds_a_nested_record_by_its_own_uuid() {
    let h = odd_home();
    let v = json_of(&h, &["show", &at(S3), "--uuid", "n-2"]);
    let u = v.iter().find(|u| u["type"] == "unit").unwrap();
    assert_eq!(u["text"], "ODD_NESTED_REPLY");
    assert_eq!(u["line"], 3);
}

/// `@session@agent` of a subagent with no lane file is no target, and the
/// error says where its nested records are and how to read them.
#[test]
fn a_lane_less_target_points_at_its_nested_records() {
    let h = home();
    let out = h
        .cmd()
        .args(["show", &format!("@{S1}@{AGENT}")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(
            "its 3 records are nested in the session's agent_progress records, lines 3..5"
        ) && err.contains("csift show @00000000 --line 3..5"),
        "{err}"
    );
}

/// show on a progress line whose agent has a lane file prints no unit (the
/// lane file's record is the one search finds) and says where that record is,
/// with a command that prints it.
#[test]
fn show_points_a_lane_backed_progress_line_at_its_lane_record() {
    let h = home();
    let out = h
        .cmd()
        .args(["show", &at(S2), "--line", "4"])
        .output()
        .unwrap();
    let human = String::from_utf8(out.stdout).unwrap();
    let uuid = "00000002-0000-4000-8000-000000000002";
    let cmd = format!("csift show @{S2}@{AGENT} --uuid {uuid}");
    assert!(
        human.contains(&format!(
            "(subagent {AGENT}'s record {uuid}, which its lane file holds: {cmd})"
        )),
        "{human}"
    );
    // With the home named by --claude-home, the pointer carries it, spaced.
    let out = common::csift()
        .env_remove("CLAUDE_CONFIG_DIR")
        .args(["show", &at(S2), "--line", "4", "--claude-home"])
        .arg(h.path())
        .output()
        .unwrap();
    let human = String::from_utf8(out.stdout).unwrap();
    assert!(
        human.contains(&format!("{cmd} --claude-home {})", h.path().display())),
        "{human}"
    );
    let v = json_of(&h, &["show", &format!("@00000000@{AGENT}"), "--uuid", uuid]);
    let u = v.iter().find(|u| u["type"] == "unit").unwrap();
    assert_eq!(u["label"], "agent.tool.use");
    assert!(u["file"].as_str().unwrap().contains("/subagents/"));
}

/// stats' `nested_record_types` and `nested_block_types` on the public corpus
/// equal a count of the raw agent_progress records read with serde_json's
/// `Value` (402 nested records: 209 user, 193 assistant), and none is
/// unreadable or unknown.
#[test]
fn corpus_nested_types_match_a_raw_count_of_agent_progress_records() {
    let Some(home) = common::corpus() else { return };
    let mut records = std::collections::BTreeMap::<String, u64>::new();
    let mut blocks = std::collections::BTreeMap::<String, u64>::new();
    let mut files = vec![home.join("projects")];
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if p.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let d = &v["data"];
            if v["type"] != "progress" || d["type"] != "agent_progress" {
                continue;
            }
            let m = &d["message"];
            *records
                .entry(m["type"].as_str().unwrap().to_string())
                .or_default() += 1;
            for b in m["message"]["content"].as_array().into_iter().flatten() {
                *blocks
                    .entry(b["type"].as_str().unwrap().to_string())
                    .or_default() += 1;
            }
        }
    }
    assert_eq!(records.values().sum::<u64>(), 402);
    let rows = common::ok_json(
        common::csift()
            .args(["stats", "--format", "json", "--claude-home"])
            .arg(&home),
    );
    let total = rows.iter().find(|r| r["type"] == "total").unwrap();
    assert_eq!(total["nested_record_types"], json!(records));
    assert_eq!(total["nested_block_types"], json!(blocks));
    assert_eq!(total["unknown"]["nested_record_types"], json!({}));
    assert_eq!(total["unknown"]["nested_block_types"], json!({}));
}

/// stats counts a lane-less subagent's nested calls in tools, as its lane
/// file's records would count: on the public corpus the total is the file's
/// own tool_use ids plus the nested ones of agents with no lane file (1,640 +
/// 160), computed here from the raw files.
#[test]
fn corpus_stats_tools_count_lane_less_nested_calls() {
    let Some(home) = common::corpus() else { return };
    let mut own = std::collections::BTreeSet::<String>::new();
    let mut nested = Vec::<(String, String)>::new();
    let mut lanes = std::collections::BTreeSet::<String>::new();
    let mut files = vec![home.join("projects")];
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".jsonl") else {
            continue;
        };
        if let Some(a) = stem.strip_prefix("agent-") {
            lanes.insert(a.to_string());
        }
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let ids = |m: &Value| -> Vec<String> {
                m["message"]["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|b| b["type"] == "tool_use")
                    .map(|b| b["id"].as_str().unwrap().to_string())
                    .collect()
            };
            if v["type"] == "assistant" {
                own.extend(ids(&v));
            } else if v["type"] == "progress" && v["data"]["type"] == "agent_progress" {
                let agent = v["data"]["agentId"].as_str().unwrap_or("").to_string();
                let m = &v["data"]["message"];
                if m["type"] == "assistant" {
                    nested.extend(ids(m).into_iter().map(|id| (agent.clone(), id)));
                }
            }
        }
    }
    let lane_less: std::collections::BTreeSet<&String> = nested
        .iter()
        .filter(|(a, _)| !lanes.contains(a))
        .map(|(_, id)| id)
        .collect();
    assert_eq!((own.len(), lane_less.len()), (1640, 160));
    let rows = common::ok_json(
        common::csift()
            .args(["stats", "--format", "json", "--claude-home"])
            .arg(&home),
    );
    let total = rows.iter().find(|r| r["type"] == "total").unwrap();
    let calls: u64 = total["tools"]
        .as_object()
        .unwrap()
        .values()
        .map(|t| t["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(calls as usize, own.len() + lane_less.len());
}
