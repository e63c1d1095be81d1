//! `csift stats`: the census and the token rule, on small real-shaped homes and
//! on the real corpus (counted independently here with serde_json::Value).

#![allow(clippy::needless_range_loop)] // fixed-size token arrays read clearer by index

use crate::common;

use std::collections::{BTreeMap, HashMap};

use common::{csift, json_lines, Home, Session};
use serde_json::{json, Value};

/// `csift stats --claude-home HOME` (the flag belongs to the subcommand).
fn stats(home: &Home) -> assert_cmd::Command {
    let mut c = csift();
    c.arg("stats").arg("--claude-home").arg(home.path());
    c
}

fn run_json(home: &Home, args: &[&str]) -> Vec<Value> {
    let out = stats(home)
        .args(["--format", "json"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_lines(&out.stdout)
}

fn total(v: &[Value]) -> &Value {
    let t = v.last().unwrap();
    assert_eq!(t["type"], "total");
    t
}

fn usage(out: u64, cache_read: u64) -> Value {
    json!({"input_tokens": 3, "output_tokens": out, "cache_read_input_tokens": cache_read,
           "cache_creation_input_tokens": 0,
           "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 40},
           "output_tokens_details": {"thinking_tokens": 7}})
}

fn asst(s: &mut Session, id: &str, block: Value, u: Value, model: &str) -> String {
    s.push(
        json!({"type": "assistant", "message": {"model": model, "id": id, "type": "message",
        "role": "assistant", "content": [block], "usage": u}}),
    )
}

/// A corrupt count near u64::MAX saturates the sums; it never wraps to a
/// small number (u64::MAX + 2 printed as 1).
#[test]
fn token_sums_saturate_never_wrap() {
    let home = Home::new();
    let mut s = Session::new("11111111-1111-4111-8111-111111111112", "/w/p");
    s.user("hello");
    let m = "claude-opus-4-5-20251101";
    let t = json!({"type": "text", "text": "hi"});
    asst(&mut s, "msg_a", t.clone(), usage(u64::MAX, 0), m);
    asst(&mut s, "msg_b", t, usage(2, 0), m);
    home.write("-w-p", &s.file_name(), &s.lines);
    let v = run_json(&home, &[]);
    let t = total(&v);
    let m = "claude-opus-4-5-20251101";
    assert_eq!(t["tokens"][m]["output"], json!(u64::MAX), "{t}");
    assert_eq!(v[0]["tokens"][m]["output"], json!(u64::MAX), "{}", v[0]);
}

#[test]
fn per_block_copies_count_once_rec_020_qt_040() {
    let home = Home::new();
    let mut s = Session::new("11111111-1111-4111-8111-111111111111", "/w/p");
    s.user("hello");
    let m = "claude-opus-4-5-20251101";
    asst(
        &mut s,
        "msg_a",
        json!({"type": "thinking", "thinking": "hm", "signature": "x"}),
        usage(1, 500),
        m,
    );
    asst(
        &mut s,
        "msg_a",
        json!({"type": "text", "text": "hi"}),
        usage(1, 500),
        m,
    );
    asst(
        &mut s,
        "msg_a",
        json!({"type": "tool_use", "id": "tu1", "name": "Bash", "input": {}}),
        usage(90, 500),
        m,
    );
    home.write("-w-p", &s.file_name(), &s.lines);
    let v = run_json(&home, &[]);
    let tok = &v[0]["tokens"][m];
    assert_eq!(tok["messages"], 1);
    assert_eq!(tok["records"], 3);
    assert_eq!(
        tok["output"], 90,
        "per-field MAX: the streamed partial copies say 1"
    );
    assert_eq!(
        tok["cache_read"], 500,
        "not 1500: usage repeats on each block's record"
    );
    assert_eq!(tok["cache_creation"], 40, "flat 0 → 5m+1h split (REC-098)");
    assert_eq!(tok["cache_creation_1h"], 40);
    assert_eq!(
        tok["thinking"], 7,
        "a subset of output, never added (REC-099)"
    );
    assert_eq!(v[0]["token_notes"]["ids_with_differing_copies"], 1);
    // The tool call never came back and no turn follows it: unanswered at the tail.
    assert_eq!(
        v[0]["tools"]["Bash"],
        json!({"calls": 1, "errors": 0, "unanswered": 1, "unanswered_at_tail": 1})
    );
}

#[test]
fn zeroed_replay_copy_counts_once_never_as_zero_qt_041_rec_034() {
    let home = Home::new();
    let mut s = Session::new("22222222-2222-4222-8222-222222222222", "/w/p");
    s.user("go");
    let m = "claude-opus-4-6";
    let zero = json!({"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0, "iterations": [{"input_tokens": 4, "output_tokens": 321,
        "cache_read_input_tokens": 9000, "cache_creation_input_tokens": 12}]});
    // The only copies of msg_z are zeroed replays: MAX alone cannot rescue them.
    // CMP-017: a compaction replay zeroes the top-level usage and keeps the
    // real numbers in usage.iterations.
    asst(
        &mut s,
        "msg_z",
        json!({"type": "text", "text": "a"}),
        zero.clone(),
        m,
    );
    asst(
        &mut s,
        "msg_z",
        json!({"type": "text", "text": "b"}),
        zero,
        m,
    );
    home.write("-w-p", &s.file_name(), &s.lines);
    let v = run_json(&home, &[]);
    let tok = &total(&v)["tokens"][m];
    assert_eq!(
        (tok["messages"].as_u64(), tok["output"].as_u64()),
        (Some(1), Some(321))
    );
    assert_eq!(tok["cache_read"], 9000);
    assert_eq!(total(&v)["token_notes"]["zeroed_copies_recovered"], 2);
}

#[test]
fn sidechain_copy_of_parent_context_counted_once_rec_035() {
    let home = Home::new();
    let sid = "33333333-3333-4333-8333-333333333333";
    let m = "claude-opus-4-6";
    let mut main = Session::new(sid, "/w/p");
    main.user("spawn please");
    asst(
        &mut main,
        "msg_spawn",
        json!({"type": "tool_use", "id": "tu_t", "name": "Task", "input": {"prompt": "x"}}),
        usage(5598, 51101),
        m,
    );
    main.tool_result("tu_t", "done", false, None);
    home.write("-w-p", &main.file_name(), &main.lines);
    let mut lane = Session::lane(sid, "/w/p", "a1b2c3");
    lane.user("x");
    asst(
        &mut lane,
        "msg_spawn",
        json!({"type": "text", "text": "…"}),
        usage(4, 51101),
        m,
    );
    asst(
        &mut lane,
        "msg_child",
        json!({"type": "text", "text": "ok"}),
        usage(10, 100),
        m,
    );
    home.write(
        "-w-p",
        &format!("{sid}/subagents/agent-a1b2c3.jsonl"),
        &lane.lines,
    );
    let v = run_json(&home, &[]);
    assert_eq!(v.len(), 3);
    let main_row = v
        .iter()
        .find(|r| r["type"] == "transcript" && r["agent_id"].is_null())
        .unwrap();
    let lane_row = v.iter().find(|r| r["agent_id"] == "a1b2c3").unwrap();
    assert_eq!(main_row["lanes"], 1);
    assert_eq!(lane_row["shape"], "subagent");
    assert_eq!(
        lane_row["tokens"][m]["output"], 14,
        "the lane's own row keeps its copy"
    );
    let t = total(&v);
    assert_eq!(t["tokens"][m]["messages"], 2);
    assert_eq!(
        t["tokens"][m]["output"],
        5598 + 10,
        "the parent's values once, not + the child's 4"
    );
    assert_eq!(t["tokens"][m]["cache_read"], 51101 + 100);
    assert_eq!(t["tokens_sum_of_rows"][m]["output"], 5598 + 4 + 10);
    assert_eq!(t["shared_ids_across_files"], 1);
    assert_eq!(t["spawns"], 1);
    assert_eq!(t["lanes"], 1, "a total counts lane files");
    let v = run_json(&home, &["--no-subagents"]);
    assert_eq!(v.len(), 2, "the lane is left out");
    assert_eq!(total(&v)["tokens"][m]["output"], 5598);
}

#[test]
fn synthetic_messages_shown_apart_rec_023() {
    let home = Home::new();
    let mut s = Session::new("44444444-4444-4444-8444-444444444444", "/w/p");
    s.user("hi");
    let zero = json!({"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0});
    asst(
        &mut s,
        "msg_syn",
        json!({"type": "text", "text": "No response requested."}),
        zero,
        "<synthetic>",
    );
    asst(
        &mut s,
        "msg_r",
        json!({"type": "text", "text": "real"}),
        usage(8, 10),
        "claude-sonnet-4-6",
    );
    home.write("-w-p", &s.file_name(), &s.lines);
    let v = run_json(&home, &[]);
    let t = total(&v);
    assert!(t["tokens"].get("<synthetic>").is_none());
    assert_eq!(t["tokens_apart"]["<synthetic>"]["messages"], 1);
    assert_eq!(t["tokens"]["claude-sonnet-4-6"]["messages"], 1);
    let human = stats(&home).output().unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("<synthetic> (apart)"), "{text}");
}

#[test]
fn unknown_shapes_are_counted_and_listed_never_dropped() {
    let home = Home::new();
    let mut s = Session::new("55555555-5555-4555-8555-555555555555", "/w/p");
    s.user("hi");
    s.push(json!({"type": "hologram-state", "z": 1}));
    s.push(json!({"type": "attachment", "attachment": {"type": "brand_new_payload", "x": 1}}));
    s.push(
        json!({"type": "attachment", "attachment": {"type": "hook_success", "hookEvent": "Stop"}}),
    );
    s.system("brand_new_subtype", json!({"content": "x"}));
    s.system(
        "turn_duration",
        json!({"durationMs": 1500, "messageCount": 3}),
    );
    asst(
        &mut s,
        "m1",
        json!({"type": "hologram", "data": 1}),
        usage(1, 1),
        "claude-opus-4-6",
    );
    asst(
        &mut s,
        "m2",
        json!({"type": "tool_use", "id": "t1", "name": "Zap", "input": {}}),
        usage(1, 1),
        "claude-opus-4-6",
    );
    s.tool_result("t1", "zapped", true, Some(json!({"zeta": 1, "alpha": 2})));
    s.raw(json!({"type": "ai-title", "aiTitle": "t"}));
    // A message.content that is neither a string nor an array.
    s.push(json!({"type": "user", "message": {"role": "user", "content": 12345}}));
    // REC-011: a tool_result's parts are text, image or tool_reference; a
    // part of another type is listed, not dropped.
    s.push(json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t9", "content": [
            {"type": "text", "text": "a"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}},
            {"type": "hologram_part", "z": 1}]}]}}));
    home.write("-w-p", &s.file_name(), &s.lines);
    let v = run_json(&home, &[]);
    let row = &v[0];
    let u = &row["unknown"];
    assert_eq!(u["content_shapes"], json!({"number": 1}));
    assert_eq!(row["content_shapes"], json!({"number": 1}));
    assert_eq!(
        row["result_part_types"],
        json!({"text": 1, "image": 1, "hologram_part": 1})
    );
    assert_eq!(u["result_part_types"], json!({"hologram_part": 1}));
    assert_eq!(row["images"], 1);
    assert_eq!(u["record_types"], json!({"hologram-state": 1}));
    assert_eq!(u["attachment_types"], json!({"brand_new_payload": 1}));
    assert_eq!(u["system_subtypes"], json!({"brand_new_subtype": 1}));
    assert_eq!(u["block_types"], json!({"hologram": 1}));
    assert_eq!(u["tool_use_result_shapes"], json!({"{alpha,zeta}": 1}));
    assert_eq!(row["attachment_types"]["hook_success"], 1);
    assert_eq!(row["turn_durations"], 1);
    assert_eq!(row["turn_duration_ms"], 1500);
    assert_eq!(
        row["tools"]["Zap"],
        json!({"calls": 1, "errors": 1, "unanswered": 0, "unanswered_at_tail": 0})
    );
    let records: u64 = row["record_types"]
        .as_object()
        .unwrap()
        .values()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(records, row["lines"].as_u64().unwrap());
    let text = String::from_utf8_lossy(&stats(&home).output().unwrap().stdout).to_string();
    assert!(
        text.contains("hologram-state=1")
            && text.contains("brand_new_payload=1")
            && text.contains("number=1"),
        "{text}"
    );
}

#[test]
fn malformed_lines_are_named_with_file_and_line() {
    let home = Home::new();
    let mut s = Session::new("66666666-6666-4666-8666-666666666666", "/w/p");
    s.user("hi");
    s.lines.push(Value::String("{not json".into()));
    s.lines.push(Value::String(r#"{"type":"user","message":{"role":"user","content":"a"}}{"type":"summary","summary":"s"}"#.into()));
    s.text("m1", "hello");
    let p = home.write("-w-p", &s.file_name(), &s.lines);
    let mut bytes = std::fs::read(&p).unwrap();
    bytes.extend_from_slice(br#"{"type":"assistant","mess"#);
    std::fs::write(&p, bytes).unwrap();
    let v = run_json(&home, &[]);
    let row = &v[0];
    assert_eq!(row["lines"], 5);
    assert_eq!(row["malformed_lines"], 3);
    let kinds: Vec<(u64, &str)> = row["malformed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["line"].as_u64().unwrap(), m["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (2, "invalid-json"),
            (3, "glued-records"),
            (5, "torn-final-line")
        ]
    );
    assert!(row["malformed"][0]["file"]
        .as_str()
        .unwrap()
        .ends_with(&s.file_name()));
    assert_eq!(row["glued_records"], json!({"user": 1, "summary": 1}));
    let records: u64 = row["record_types"]
        .as_object()
        .unwrap()
        .values()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(records, 5 - 3);
}

fn three_sessions() -> Home {
    let home = Home::new();
    for (i, proj) in ["-w-a", "-w-a", "-w-b"].iter().enumerate() {
        let mut s = Session::new(&format!("7777777{i}-7777-4777-8777-777777777777"), "/w");
        s.user("hi");
        s.text(&format!("m{i}"), "yo");
        home.write(proj, &s.file_name(), &s.lines);
    }
    home
}

#[test]
fn max_count_leaves_rows_out_but_the_total_covers_all() {
    let home = three_sessions();
    let v = run_json(&home, &["--max-count", "1"]);
    assert_eq!(v.len(), 2);
    let t = total(&v);
    assert_eq!(
        (t["dropped"].as_u64(), t["transcripts"].as_u64()),
        (Some(2), Some(3))
    );
    assert_eq!(
        (t["rows"].as_u64(), t["shown"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(t["tokens"]["claude-opus-4-5-20251101"]["messages"], 3);
    let text = String::from_utf8_lossy(&stats(&home).args(["-m", "1"]).output().unwrap().stdout)
        .to_string();
    assert!(text.contains("2 more rows not shown"), "{text}");
}

#[test]
fn by_project_groups_rows() {
    let home = three_sessions();
    let v = run_json(&home, &["--by", "project"]);
    let groups: Vec<(&str, u64)> = v
        .iter()
        .filter(|x| x["type"] == "group")
        .map(|g| {
            (
                g["key"].as_str().unwrap(),
                g["transcripts"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(groups, vec![("-w-a", 2), ("-w-b", 1)]);
    assert_eq!(v[0]["lines"], 4);
    let v = run_json(&home, &["--by", "month"]);
    assert_eq!(v[0]["key"], "2026-01");
}

#[test]
fn since_until_window_counts_only_records_inside() {
    let home = three_sessions();
    // Session timestamps start 2026-01-01T00:00:00Z and step 7 s per record.
    let v = run_json(&home, &["--since", "2026-01-01T00:00:10Z"]);
    let t = total(&v);
    assert_eq!(t["record_types"], json!({"assistant": 3}));
    assert_eq!(t["outside_window"], 3);
    let out = stats(&home)
        .args(["--since", "2030-01-01T00:00:00Z"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "nothing inside the window: nothing counted"
    );
    assert!(json_lines(
        &stats(&home)
            .args(["--format", "json", "--until", "2020-01-01T00:00:00Z"])
            .output()
            .unwrap()
            .stdout
    )
    .iter()
    .all(|x| x["type"] == "total"));
}

#[test]
fn empty_home_exits_1_and_help_states_the_rule() {
    let home = Home::new();
    assert_eq!(stats(&home).output().unwrap().status.code(), Some(1));
    let help = csift().args(["stats", "--help"]).output().unwrap();
    let h = String::from_utf8_lossy(&help.stdout);
    for needle in [
        "(message.model, message.id)",
        "per-field MAX",
        "iterations",
        "<synthetic>",
        // REC-035: the rule says a subagent's replayed spawning message counts once.
        "spawning message counts once",
        "\"tokens\"",
    ] {
        assert!(h.contains(needle), "--help lacks {needle}");
    }
}

// ---- the real corpus, counted independently ----

fn corpus_rows() -> Option<(Vec<Value>, Value)> {
    let home = common::corpus()?;
    let out = csift()
        .arg("stats")
        .arg("--claude-home")
        .arg(&home)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v = json_lines(&out.stdout);
    let t = v.pop().unwrap();
    Some((v, t))
}

fn records_of(path: &str) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap();
    bytes
        .split(|&b| b == b'\n')
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter(Value::is_object)
        .collect()
}

/// A file's records, and the subagent records its agent_progress records nest
/// where that agent has no lane file in the session's folder (the lane file
/// holds them then): the records whose units stats counts.
fn unit_records_of(path: &str) -> Vec<Value> {
    let lanes = std::path::Path::new(path)
        .with_extension("")
        .join("subagents");
    let mut out = Vec::new();
    for r in records_of(path) {
        let d = &r["data"];
        if r["type"] == "progress" && d["type"] == "agent_progress" && d["message"].is_object() {
            let agent = d["agentId"].as_str().unwrap_or("");
            if !lanes.join(format!("agent-{agent}.jsonl")).exists() {
                out.push(d["message"].clone());
            }
        }
        out.push(r);
    }
    out
}

fn blocks(r: &Value) -> &[Value] {
    r["message"]["content"]
        .as_array()
        .map_or(&[], Vec::as_slice)
}

fn get(row: &Value, field: &str, label: &str) -> u64 {
    row[field][label].as_u64().unwrap_or(0)
}

#[test]
fn corpus_labels_sum_to_units_and_match_independent_block_counts() {
    let Some((rows, _)) = corpus_rows() else {
        return;
    };
    assert!(rows.len() >= 50);
    for row in &rows {
        let file = row["file"].as_str().unwrap();
        let labels: u64 = row["labels"]
            .as_object()
            .unwrap()
            .values()
            .map(|x| x.as_u64().unwrap())
            .sum();
        assert_eq!(
            labels,
            row["units"].as_u64().unwrap(),
            "{file}: one primary label per unit"
        );
        let (mut uses, mut results, mut thinking, mut summaries, mut boundaries) = (0, 0, 0, 0, 0);
        for r in unit_records_of(file) {
            let kind = r["type"].as_str().unwrap_or("");
            for b in blocks(&r) {
                let bt = b["type"].as_str().unwrap_or("");
                match (kind, bt) {
                    ("assistant", "tool_use" | "server_tool_use" | "mcp_tool_use") => uses += 1,
                    ("assistant", "thinking" | "redacted_thinking") => thinking += 1,
                    ("user", "tool_result") if r["isCompactSummary"] != true => results += 1,
                    _ => {}
                }
            }
            if kind == "user" && r["isCompactSummary"] == true {
                summaries += 1;
            }
            if kind == "system" && r["subtype"] == "compact_boundary" {
                boundaries += 1;
            }
        }
        let both = |l: &str| get(row, "labels", l) + get(row, "labels_secondary", l);
        assert_eq!(both("agent.tool.use"), uses, "{file}: tool_use blocks");
        assert_eq!(
            both("agent.tool.result"),
            results,
            "{file}: tool_result blocks"
        );
        assert_eq!(
            get(row, "labels", "agent.thinking") + get(row, "labels", "agent.thinking.narration"),
            thinking,
            "{file}: thinking"
        );
        assert_eq!(
            get(row, "labels", "harness.compaction.summary"),
            summaries,
            "{file}: summaries"
        );
        assert_eq!(
            get(row, "labels", "harness.compaction.boundary"),
            boundaries,
            "{file}: boundaries"
        );
    }
}

#[derive(Default, Clone, Copy, PartialEq, Debug)]
struct Four([u64; 5]); // messages, input, output, cache_read, cache_creation

fn n(v: &Value) -> u64 {
    v.as_f64().filter(|x| *x > 0.0).map_or(0, |x| x as u64)
}

/// Independent per-(model, message.id) dedupe: per-field MAX, zeroed copies
/// recovered from iterations, `<synthetic>` kept apart.
fn dedupe(recs: &[Value]) -> HashMap<(String, String), [u64; 4]> {
    let mut m: HashMap<(String, String), [u64; 4]> = HashMap::new();
    for (i, r) in recs.iter().enumerate() {
        let u = &r["message"]["usage"];
        if r["type"] != "assistant" || !u.is_object() {
            continue;
        }
        let cc = &u["cache_creation"];
        let flat = n(&u["cache_creation_input_tokens"]);
        let mut v = [
            n(&u["input_tokens"]),
            n(&u["output_tokens"]),
            n(&u["cache_read_input_tokens"]),
            if flat > 0 {
                flat
            } else {
                n(&cc["ephemeral_5m_input_tokens"]) + n(&cc["ephemeral_1h_input_tokens"])
            },
        ];
        if [
            n(&u["input_tokens"]),
            n(&u["output_tokens"]),
            n(&u["cache_read_input_tokens"]),
            flat,
        ] == [0; 4]
        {
            if let Some(its) = u["iterations"].as_array().filter(|a| !a.is_empty()) {
                let s = its.iter().fold([0; 4], |a, it| {
                    [
                        a[0] + n(&it["input_tokens"]),
                        a[1] + n(&it["output_tokens"]),
                        a[2] + n(&it["cache_read_input_tokens"]),
                        a[3] + n(&it["cache_creation_input_tokens"]),
                    ]
                });
                if s != [0; 4] {
                    v = s;
                }
            }
        }
        let model = r["message"]["model"]
            .as_str()
            .unwrap_or("(unknown)")
            .to_string();
        let id = r["message"]["id"]
            .as_str()
            .filter(|s| !s.is_empty())
            .map_or(format!("#{i}"), str::to_string);
        let e = m.entry((model, id)).or_default();
        for k in 0..4 {
            e[k] = e[k].max(v[k]);
        }
    }
    m
}

fn fold(m: &HashMap<(String, String), [u64; 4]>) -> BTreeMap<String, Four> {
    let mut out: BTreeMap<String, Four> = BTreeMap::new();
    for ((model, _), v) in m {
        let e = out.entry(model.clone()).or_default();
        e.0[0] += 1;
        for k in 0..4 {
            e.0[k + 1] += v[k];
        }
    }
    out
}

fn csift_tokens(row: &Value) -> BTreeMap<String, Four> {
    let mut out = BTreeMap::new();
    for field in ["tokens", "tokens_apart"] {
        for (model, t) in row[field].as_object().unwrap() {
            let f = |k: &str| t[k].as_u64().unwrap();
            out.insert(
                model.clone(),
                Four([
                    f("messages"),
                    f("input"),
                    f("output"),
                    f("cache_read"),
                    f("cache_creation"),
                ]),
            );
        }
    }
    out
}

/// Records of a file including both halves of a glued line (the spec's reference does the same).
fn records_with_glued(path: &str) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap();
    bytes
        .split(|&b| b == b'\n')
        .flat_map(|l| {
            serde_json::Deserializer::from_slice(l)
                .into_iter::<Value>()
                .map_while(Result::ok)
                .collect::<Vec<_>>()
        })
        .filter(Value::is_object)
        .collect()
}

#[test]
fn corpus_tokens_agree_with_independent_message_id_dedupe_rec_020_rec_035() {
    let Some((rows, t)) = corpus_rows() else {
        return;
    };
    let mut all: HashMap<(String, String), [u64; 4]> = HashMap::new();
    for row in &rows {
        let file = row["file"].as_str().unwrap();
        let m = dedupe(&records_with_glued(file));
        assert_eq!(csift_tokens(row), fold(&m), "{file}");
        for (k, v) in m {
            let k = if k.1.starts_with('#') {
                (k.0, format!("{file}{}", k.1))
            } else {
                k
            };
            let e = all.entry(k).or_default();
            for i in 0..4 {
                e[i] = e[i].max(v[i]);
            }
        }
    }
    assert_eq!(csift_tokens(&t), fold(&all), "total: deduped across files");
    // The spec's reference run (python3 /tmp/spec/tokens_ref.py over this corpus):
    // TOTAL (all real models) 1420 msgs, input 31,420, output 125,653,
    // cache_read 102,275,288, cache_creation 5,032,075; <synthetic> 1 apart.
    let real: Four = csift_tokens(&t)
        .iter()
        .filter(|(m, _)| *m != "<synthetic>")
        .fold(Four::default(), |mut a, (_, r)| {
            for i in 0..5 {
                a.0[i] += r.0[i];
            }
            a
        });
    assert_eq!(real, Four([1420, 31_420, 125_653, 102_275_288, 5_032_075]));
    assert_eq!(t["tokens_apart"]["<synthetic>"]["messages"], 1);
    assert_eq!(t["token_notes"]["progress_embedded_ids"], 112);
    assert_eq!(t["progress_only_ids"], 101);
}

#[test]
fn corpus_census_loses_nothing_every_type_modelled_or_unknown() {
    let Some((rows, t)) = corpus_rows() else {
        return;
    };
    for row in &rows {
        let file = row["file"].as_str().unwrap();
        let sum: u64 = row["record_types"]
            .as_object()
            .unwrap()
            .values()
            .map(|x| x.as_u64().unwrap())
            .sum();
        assert_eq!(
            sum,
            row["lines"].as_u64().unwrap() - row["malformed_lines"].as_u64().unwrap(),
            "{file}"
        );
        // Every type and attachment type on disk appears in the census by name.
        let mut types: BTreeMap<String, u64> = BTreeMap::new();
        let mut atts: BTreeMap<String, u64> = BTreeMap::new();
        for r in records_of(file) {
            *types
                .entry(r["type"].as_str().unwrap_or("(none)").to_string())
                .or_default() += 1;
            if r["type"] == "attachment" {
                *atts
                    .entry(
                        r["attachment"]["type"]
                            .as_str()
                            .unwrap_or("(none)")
                            .to_string(),
                    )
                    .or_default() += 1;
            }
        }
        let census: BTreeMap<String, u64> =
            serde_json::from_value(row["record_types"].clone()).unwrap();
        assert_eq!(census, types, "{file}");
        let census: BTreeMap<String, u64> =
            serde_json::from_value(row["attachment_types"].clone()).unwrap();
        assert_eq!(census, atts, "{file}");
    }
    // Known or listed: the corpus holds no name csift does not model.
    for (kind, m) in t["unknown"].as_object().unwrap() {
        assert!(m.as_object().unwrap().is_empty(), "unknown {kind}: {m}");
    }
    assert_eq!(t["tools"]["Bash"]["unanswered"], 11);
    assert_eq!(t["tools"]["Read"]["unanswered"], 2);
}

/// A `<task-notification>` opens a turn (it passes every genuine-user gate) but
/// no one typed it (TURN-018): it counts in `turns`, not in
/// `genuine_user_turns`, which agrees with the `user.message` label count.
#[test]
fn a_task_notification_opens_a_turn_but_is_no_genuine_user_turn_turn_018() {
    let home = Home::new();
    let mut s = Session::new("8888888a-8888-4888-8888-888888888888", "/w");
    s.user("run the tests in the background");
    s.text("m1", "Started.");
    s.user("<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n<summary>Background command \"npm test\" completed (exit code 0)</summary>\n</task-notification>");
    s.text("m2", "Tests passed.");
    s.user("thanks, now deploy");
    s.text("m3", "Deployed.");
    home.write("-w", &s.file_name(), &s.lines);
    let v = run_json(&home, &[]);
    let t = total(&v);
    assert_eq!(t["turns"], 3, "{t}");
    assert_eq!(t["genuine_user_turns"], 2, "{t}");
    assert_eq!(t["labels"]["user.message"], 2, "{t}");
}

/// A lane's seed prompt opens its one turn, but the parent agent (or the
/// compaction harness) wrote it, and it is labelled agent.communication.inbox
/// (REC-031): no genuine user turn. 4d5611e5's two lanes each had 1.
#[test]
fn corpus_a_lane_seed_is_no_genuine_user_turn_rec_031() {
    let Some((rows, total)) = corpus_rows() else {
        return;
    };
    let lanes: Vec<&Value> = rows
        .iter()
        .filter(|r| {
            r["session_id"]
                .as_str()
                .unwrap_or("")
                .starts_with("4d5611e5")
        })
        .filter(|r| !r["agent_id"].is_null())
        .collect();
    assert_eq!(lanes.len(), 2);
    for l in lanes {
        assert_eq!(l["turns"], 1, "{l}");
        assert_eq!(l["genuine_user_turns"], 0, "{l}");
        assert_eq!(l["labels"]["agent.communication.inbox"], 1, "{l}");
    }
    // Every genuine user turn opens with a user.message unit.
    let g = total["genuine_user_turns"].as_u64().unwrap();
    assert!(
        g <= total["labels"]["user.message"].as_u64().unwrap(),
        "{total}"
    );
}

/// A record with no time of its own takes the time before it, and one before
/// the file's first time takes that first time: a window that covers the
/// session counts its leading summary too. Records a window leaves out are
/// in outside_window, whole transcripts included, so the counts add up.
#[test]
fn leading_untimed_records_take_the_sessions_first_time() {
    let home = three_sessions();
    let mut s = Session::new("7777777a-7777-4777-8777-777777777777", "/w");
    s.raw(json!({"type": "summary", "summary": "Earlier work", "leafUuid": "x"}));
    s.user("hi");
    s.text("mA", "yo");
    home.write("-w-c", &s.file_name(), &s.lines);
    let all = total(&run_json(&home, &[])).clone();
    assert_eq!(all["record_types"]["summary"], 1);

    let v = run_json(&home, &["--since", "2000-01-01"]);
    let t = total(&v);
    assert_eq!(t["record_types"], all["record_types"], "{t}");
    assert_eq!(t["outside_window"], 0);

    // A window after every record leaves all four out whole; they are still
    // counted in outside_window.
    let v = run_json(&home, &["--since", "2030-01-01"]);
    let t = total(&v);
    assert_eq!(t["transcripts"], 0, "{t}");
    assert_eq!(t["outside_window"], all["records"], "{t}");
}

/// The JSON list of malformed lines holds the first five; the rest are counted
/// in malformed_omitted (the list stopped at 5 and said nothing of the rest).
#[test]
fn malformed_lines_past_the_list_are_counted_as_omitted() {
    let home = Home::new();
    let mut bytes = Vec::new();
    for i in 0..7 {
        bytes.extend_from_slice(format!("garbage line {i}\n").as_bytes());
    }
    home.write_raw(
        "-w-bad",
        "12121212-0000-4000-8000-000000000012.jsonl",
        &bytes,
    );
    let out = home
        .cmd()
        .args(["stats", "--format", "json"])
        .output()
        .unwrap();
    let rows = common::json_lines(&out.stdout);
    let total = rows.last().unwrap();
    assert_eq!(total["malformed_lines"], 7);
    assert_eq!(total["malformed"].as_array().unwrap().len(), 5);
    assert_eq!(total["malformed_omitted"], 2);
    assert_eq!(rows[0]["malformed_omitted"], 2);
}

/// `--by` puts transcripts with no such value (no model, no timestamp) in a
/// group keyed null in JSON, not a "(none)" string a script cannot tell from a
/// value; the human form prints (none).
#[test]
fn by_keys_a_missing_value_as_null() {
    let Some(home) = common::corpus() else { return };
    for by in ["model", "month", "version"] {
        let out = common::csift()
            .args(["stats", "--by", by, "--format", "json", "--claude-home"])
            .arg(&home)
            .output()
            .unwrap();
        let groups: Vec<Value> = common::json_lines(&out.stdout)
            .into_iter()
            .filter(|v| v["type"] == "group")
            .collect();
        assert!(
            groups.iter().filter(|g| g["key"].is_null()).count() == 1,
            "{by}"
        );
        assert!(!groups.iter().any(|g| g["key"] == "(none)"), "{by}");
        let sum: u64 = groups
            .iter()
            .map(|g| g["transcripts"].as_u64().unwrap())
            .sum();
        // A transcript counts in the group of every model it used.
        match by {
            "model" => assert!(sum >= 59, "{by}"),
            _ => assert_eq!(sum, 59, "{by}"),
        }
    }
}

/// A lane whose session transcript is missing is no `└` row under whatever
/// session sorts above it (the public corpus drew 6c2214d7's lane under an
/// unrelated project's row): it is named `SESSION@AGENT`, a target. A lane
/// right under its own session's row keeps `└`.
#[test]
fn an_orphan_lane_row_is_named_by_its_session_not_drawn_under_another() {
    let home = Home::new();
    let s1 = "11111111-0000-4000-8000-00000000aaaa";
    let s2 = "22222222-0000-4000-8000-00000000bbbb";
    let mut a = Session::new(s1, "/w/app");
    a.user("build the parser");
    a.text("m1", "Done.");
    home.write("-w-app", &a.file_name(), &a.lines);
    for (sid, agent) in [(s1, "a0000000000000001"), (s2, "a0000000000000002")] {
        let mut lane = Session::lane(sid, "/w/app", agent);
        lane.user("explore the code");
        home.write(
            "-w-app",
            &format!("{sid}/subagents/agent-{agent}.jsonl"),
            &lane.lines,
        );
    }
    let out = home
        .cmd()
        .args(["stats", "--color", "never"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text
        .lines()
        .take_while(|l| !l.starts_with("TOTAL"))
        .collect();
    assert!(
        rows.iter()
            .any(|l| l.starts_with("  └ subagent a0000000000000001 ")),
        "{text}"
    );
    assert!(
        rows.iter()
            .any(|l| l.starts_with("22222222@a0000000000000002 subagent ")),
        "{text}"
    );
    assert_eq!(rows.iter().filter(|l| l.contains('└')).count(), 1, "{text}");
}

/// The "Σ rows output N vs total M" check compares like with like: the total
/// is the real models', so the rows' sum leaves `<synthetic>` out too (it said
/// 115 vs 112 with no id shared, reading as a dedup fault that was not there).
#[test]
fn the_rows_sum_check_leaves_synthetic_out_like_the_total() {
    let home = Home::new();
    let mut s = Session::new("11111111-0000-4000-8000-00000000cccc", "/w/app");
    s.user("go");
    s.push(json!({"type": "assistant", "message": {"id": "m1", "role": "assistant", "model": "claude-x",
        "content": [{"type": "text", "text": "real"}],
        "usage": {"input_tokens": 10, "output_tokens": 100, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}}));
    s.push(json!({"type": "assistant", "message": {"id": "m2", "role": "assistant", "model": "<synthetic>",
        "content": [{"type": "text", "text": "No response requested."}],
        "usage": {"input_tokens": 0, "output_tokens": 3, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}}));
    home.write("-w-app", &s.file_name(), &s.lines);
    let out = home
        .cmd()
        .args(["stats", "--color", "never"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("(Σ rows output 100 vs total 100)"), "{text}");
}

/// `--by model` gives each model its own messages' tokens: a transcript that
/// used two models counts in both groups, each with that model's tokens only
/// (it gave every token of a transcript to its most-used model).
#[test]
fn by_model_groups_tokens_by_each_messages_model() {
    let home = Home::new();
    let (opus, haiku) = ("claude-opus-4-5-20251101", "claude-haiku-4-5-20251001");
    let mut a = Session::new("11111111-0000-4000-8000-00000000000a", "/w/p");
    a.user("two models");
    asst(
        &mut a,
        "msg_a1",
        json!({"type": "text", "text": "one"}),
        usage(100, 0),
        opus,
    );
    asst(
        &mut a,
        "msg_a2",
        json!({"type": "text", "text": "two"}),
        usage(200, 0),
        opus,
    );
    asst(
        &mut a,
        "msg_a3",
        json!({"type": "text", "text": "three"}),
        usage(7, 0),
        haiku,
    );
    home.write("-w-p", &a.file_name(), &a.lines);
    let mut b = Session::new("22222222-0000-4000-8000-00000000000b", "/w/p");
    b.user("one model");
    asst(
        &mut b,
        "msg_b1",
        json!({"type": "text", "text": "four"}),
        usage(5, 0),
        haiku,
    );
    home.write("-w-p", &b.file_name(), &b.lines);

    let v = run_json(&home, &["--by", "model"]);
    let group = |m: &str| {
        v.iter()
            .find(|g| g["type"] == "group" && g["key"] == m)
            .unwrap_or_else(|| panic!("no {m} group: {v:?}"))
            .clone()
    };
    let (o, h) = (group(opus), group(haiku));
    assert_eq!(o["transcripts"], 1);
    assert_eq!(h["transcripts"], 2, "both transcripts used haiku");
    assert_eq!(o["tokens"][opus]["output"], 300);
    assert!(o["tokens"].get(haiku).is_none(), "{o}");
    assert_eq!(h["tokens"][haiku]["output"], 12);
    assert!(h["tokens"].get(opus).is_none(), "{h}");
    // The table's OUTPUT column reads the same.
    let out = stats(&home).args(["--by", "model"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let row = |m: &str| {
        text.lines()
            .find(|l| l.starts_with(m))
            .unwrap_or_else(|| panic!("no {m} row: {text}"))
            .split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // NAME (N files) LINES SIZE BAD TURNS UNITS CALLS ERR UNA INPUT OUTPUT …
    assert_eq!(row(opus)[12], "300", "{text}");
    assert_eq!(row(haiku)[12], "12", "{text}");
}

/// The records of a glued line count in a window by their own times, not by
/// the window holding other records of their file: a message stamped the day
/// before the window used to count in it (the public corpus's 130d7b7e…:128).
#[test]
fn a_glued_lines_records_are_windowed_by_their_own_time() {
    let home = Home::new();
    let mut s = Session::new("55555555-5555-4555-8555-555555555555", "/w/p");
    s.user("hello");
    let m = "claude-opus-4-5-20251101";
    asst(
        &mut s,
        "msg_a",
        json!({"type": "text", "text": "a"}),
        usage(5, 0),
        m,
    );
    let day_before = json!({"type": "assistant", "timestamp": "2025-12-31T23:00:00.000Z", "uuid": "g1",
        "message": {"model": m, "id": "msg_glued", "role": "assistant", "content": [{"type": "text", "text": "b"}],
        "usage": usage(700, 0)}});
    let untimed = json!({"type": "summary", "summary": "s", "leafUuid": "g1"});
    let glued = format!("{day_before}{untimed}");
    let mut lines = s.lines.clone();
    lines.push(Value::String(glued));
    home.write("-w-p", &s.file_name(), &lines);
    let day = |d: &str| {
        let (a, b) = (format!("{d}T00:00:00Z"), format!("{d}T23:59:59.999Z"));
        let v = run_json(&home, &["--since", &a, "--until", &b]);
        total(&v).clone()
    };
    let jan1 = day("2026-01-01");
    assert_eq!(jan1["tokens"][m]["messages"], 1, "{jan1}");
    assert_eq!(jan1["tokens"][m]["output"], 5);
    assert_eq!(jan1["glued_records"], json!({}));
    let dec31 = day("2025-12-31");
    assert_eq!(dec31["tokens"][m]["output"], 700, "{dec31}");
    // The untimed summary takes the time before it: the glued message's.
    assert_eq!(
        dec31["glued_records"],
        json!({"assistant": 1, "summary": 1})
    );
    let all = total(&run_json(&home, &[])).clone();
    assert_eq!(all["tokens"][m]["messages"], 2);
}

/// Reproduction on the public corpus: msg_01QsjUKj2qiHGGqN8tpRTCRh, stamped
/// 2026-01-20, is glued on line 128 of 130d7b7e; a window of 2026-01-21 (UTC)
/// counted it. Measured after the fix: 2 messages, 7 output tokens on the 21st.
#[test]
fn corpus_glued_message_stays_on_its_own_day() {
    let Some(home) = common::corpus() else { return };
    let run = |d: &str| {
        let out = csift()
            .env("TZ", "UTC")
            .args([
                "stats",
                "@130d7b7e",
                "--format",
                "json",
                "--since",
                d,
                "--until",
                d,
            ])
            .arg("--claude-home")
            .arg(&home)
            .output()
            .unwrap();
        json_lines(&out.stdout).last().unwrap().clone()
    };
    let m = "claude-opus-4-5-20251101";
    let t21 = run("2026-01-21");
    assert_eq!(t21["tokens"][m]["messages"], 2, "{t21}");
    assert_eq!(t21["tokens"][m]["output"], 7);
    assert_eq!(t21["glued_records"], json!({}));
    let t20 = run("2026-01-20");
    assert_eq!(t20["glued_records"], json!({"assistant": 1, "summary": 1}));
}

/// A narration signature: field path 2 → 1 → 8 reads `narration` (NAR-002).
const NARRATION_SIG: &str = "Eg0KC0IJbmFycmF0aW9uGAE=";

/// Narration blocks are counted per model of their message, as blocks: Claude
/// Code writes the reasoning block and its narration as two records of one
/// message, each repeating the same usage (NAR-004), so the message's tokens
/// count once and nothing is split off for the narration. `--by model` keeps
/// each model's count in its own group.
#[test]
fn narration_blocks_are_counted_per_model_not_as_tokens_nar_004() {
    let home = Home::new();
    let mut s = Session::new("aa000000-0000-4000-8000-000000000404", "/w/n");
    s.user("why does the build fail?");
    let opus = "claude-opus-4-7";
    let sonnet = "claude-sonnet-4-6";
    let think =
        |t: &str| json!({"type": "thinking", "thinking": t, "signature": "RXJyb3JTaWduYXR1cmU="});
    let narr = |t: &str| json!({"type": "thinking", "thinking": t, "signature": NARRATION_SIG});
    // One message, two per-block records, byte-identical usage (NAR-004).
    asst(
        &mut s,
        "msg_o1",
        think("the import is missing"),
        usage(500, 10),
        opus,
    );
    asst(
        &mut s,
        "msg_o1",
        narr("Looking at the imports."),
        usage(500, 10),
        opus,
    );
    asst(
        &mut s,
        "msg_o1",
        json!({"type": "text", "text": "Missing import."}),
        usage(500, 10),
        opus,
    );
    s.user("and the tests?");
    asst(&mut s, "msg_s1", think("run them"), usage(300, 0), sonnet);
    asst(
        &mut s,
        "msg_s1",
        narr("Checking the tests."),
        usage(300, 0),
        sonnet,
    );
    asst(
        &mut s,
        "msg_s2",
        narr("Reading the failures."),
        usage(40, 0),
        sonnet,
    );
    home.write("-w-n", &s.file_name(), &s.lines);

    let t = total(&run_json(&home, &[])).clone();
    assert_eq!(t["narration_blocks"], json!({opus: 1, sonnet: 2}), "{t}");
    assert_eq!(t["labels"]["agent.thinking.narration"], 3);
    // The message's usage is counted once, whole: no narration share taken out.
    assert_eq!(t["tokens"][opus]["messages"], 1);
    assert_eq!(t["tokens"][opus]["output"], 500);
    assert_eq!(t["tokens"][sonnet]["messages"], 2);
    assert_eq!(t["tokens"][sonnet]["output"], 340);

    let groups = run_json(&home, &["--by", "model"]);
    let of = |m: &str| {
        groups
            .iter()
            .find(|g| g["type"] == "group" && g["key"] == m)
            .unwrap_or_else(|| panic!("no {m} group"))["narration_blocks"]
            .clone()
    };
    assert_eq!(of(opus), json!({opus: 1}));
    assert_eq!(of(sonnet), json!({sonnet: 2}));

    let human = stats(&home).output().unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("narration"))
        .unwrap_or_else(|| panic!("no narration line:\n{text}"));
    assert!(line.contains(&format!("{sonnet}=2 {opus}=1")), "{line}");
    assert!(line.contains("not split"), "{line}");
}
