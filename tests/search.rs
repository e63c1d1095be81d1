//! `csift search` end to end: planted needles found exactly per leaf, complete
//! exchanges on the real corpus, the prefilter never losing a hit, exit codes,
//! counting modes, truncation markers and terminal sanitising.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::{corpus, first_json, json_lines, Home, Session};
use serde_json::{json, Value};

fn matches(v: &[Value]) -> Vec<&Value> {
    v.iter().filter(|x| x["type"] == "match").collect()
}

#[test]
fn planted_needles_are_found_exactly_per_leaf() {
    let Some(gen) = common::generator() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let truth = dir.path().join("truth.jsonl");
    let st = std::process::Command::new(gen)
        .args([
            "--preset",
            "bench",
            "--bytes",
            "6M",
            "--big-session-bytes",
            "2M",
            "--out",
        ])
        .arg(dir.path().join("home"))
        .arg("--truth")
        .arg(&truth)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let mut want: BTreeMap<String, BTreeSet<(String, u64)>> = BTreeMap::new();
    for row in json_lines(&std::fs::read(&truth).unwrap()) {
        if row["kind"] == "needle" {
            want.entry(row["label"].as_str().unwrap().into())
                .or_default()
                .insert((
                    row["file"].as_str().unwrap().into(),
                    row["line"].as_u64().unwrap(),
                ));
        }
    }
    assert!(want.len() >= 6, "{want:?}");
    for (leaf, exp) in &want {
        let out = common::csift()
            .args([
                "search",
                "NEEDLE_",
                "-t",
                leaf,
                "--format",
                "json",
                "--claude-home",
            ])
            .arg(dir.path().join("home"))
            .output()
            .unwrap();
        let got: BTreeSet<(String, u64)> = matches(&json_lines(&out.stdout))
            .iter()
            .map(|m| {
                (
                    m["file"].as_str().unwrap().into(),
                    m["line"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(&got, exp, "leaf {leaf}");
    }
}

/// Independent count: tool_result ids present in a file, in its own records
/// and in the subagent records its agent_progress records nest.
fn result_ids(file: &Path) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for line in std::fs::read_to_string(file).unwrap_or_default().lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let nested = &v["data"]["message"]["message"]["content"];
        for blocks in [v["message"]["content"].as_array(), nested.as_array()]
            .into_iter()
            .flatten()
        {
            for b in blocks {
                if b["type"] == "tool_result" {
                    ids.insert(b["tool_use_id"].as_str().unwrap_or("").to_string());
                }
            }
        }
    }
    ids
}

#[test]
fn corpus_tool_uses_come_with_their_results_and_back() {
    let Some(home) = corpus() else { return };
    let out = common::csift()
        .args([
            "search",
            "",
            "-t",
            "agent.tool.*",
            "--format",
            "json",
            "--claude-home",
        ])
        .arg(&home)
        .output()
        .unwrap();
    let all = json_lines(&out.stdout);
    let hits = matches(&all);
    assert!(hits.len() > 500, "{}", hits.len());
    let mut cache: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let (mut paired, mut unpaired) = (0, 0);
    for h in hits {
        let file = h["file"].as_str().unwrap().to_string();
        let id = h["tool_use_id"].as_str().unwrap_or("").to_string();
        let ex = h["exchange"].as_array().unwrap();
        let is_use = h["label"] == "agent.tool.use"
            || h["text"].as_str().is_some_and(|_| {
                ex.iter().any(|e| e["label"] != "agent.tool.use")
                    && h["label"] == "agent.communication.sent"
            });
        if is_use {
            let exists = cache
                .entry(file.clone())
                .or_insert_with(|| result_ids(Path::new(&file)))
                .contains(&id);
            let has = ex.iter().any(|e| e["tool_use_id"] == id.as_str());
            assert_eq!(
                has, exists,
                "tool_use {id} in {file}: result exists={exists}, paired={has}"
            );
            if has {
                paired += 1
            } else {
                unpaired += 1
            }
        } else if h["label"] == "agent.tool.result" {
            assert!(
                ex.iter().any(|e| e["label"] == "agent.tool.use"
                    || e["label"] == "agent.communication.sent"
                    || e["label"] == "agent.communication.signal"),
                "result {id} at {file}:{} has no tool_use",
                h["line"]
            );
        }
    }
    assert!(
        paired > 300 && unpaired < 40,
        "paired {paired}, unpaired {unpaired}"
    );
}

/// A unit printed as an exchange partner carries what it carries as a match:
/// its own label (a Task spawn is agent.communication.sent, not its second
/// label agent.tool.use) and, for a result that opens a turn (a rejection or
/// an answer), the name of the tool it answers.
#[test]
fn a_partner_unit_is_labelled_and_named_as_its_match() {
    let Some(home) = corpus() else { return };
    let out = common::csift()
        .args(["search", "the", "--format", "json", "--claude-home"])
        .arg(&home)
        .output()
        .unwrap();
    let all = json_lines(&out.stdout);
    let hits = matches(&all);
    let key = |v: &Value| {
        (
            v["file"].as_str().unwrap().to_string(),
            v["line"].as_u64().unwrap(),
            v["block"].as_u64(),
        )
    };
    let as_match: BTreeMap<_, (Value, Value)> = hits
        .iter()
        .map(|h| (key(h), (h["label"].clone(), h["tool_name"].clone())))
        .collect();
    let (mut compared, mut named_results) = (0, 0);
    for h in &hits {
        for e in h["exchange"].as_array().unwrap() {
            if e["label"] == "user.rejection" || e["label"] == "user.answer" {
                assert!(e["tool_name"].is_string(), "unnamed partner {e}");
                named_results += 1;
            }
            if let Some((label, tool)) = as_match.get(&key(e)) {
                assert_eq!(&e["label"], label, "partner {e}");
                assert_eq!(&e["tool_name"], tool, "partner {e}");
                compared += 1;
            }
        }
    }
    assert!(
        compared > 1000 && named_results > 50,
        "{compared} {named_results}"
    );
}

#[test]
fn prefilter_never_loses_a_hit_on_the_corpus() {
    let Some(home) = corpus() else { return };
    // Patterns whose text is JSON-escaped on disk: quotes, backslashes, newlines,
    // tabs, a tool name joined to its input, CJK, word boundaries. Each must
    // match on the corpus (checked below): a pattern that matches nothing
    // compares two empty lists and proves nothing (three did: `fn main\(\)\n`,
    // `error\[E\d+\]` and the only CJK one, `レビュー`).
    for pat in [
        r#""command""#,
        r"\\n",
        "Close\\(\\)\n",
        r"\[E\d+\]|\[\d+\]",
        "Bash \\{\"command\"",
        "\t",
        "func ",
        r"\bgo test\b",
        "diff --git",
        "状態",
        "[ぁ-ん]{2}",
        // Across the `\n` that joins two text blocks (1b3e6441:3), and a
        // turn_duration's text as written on disk.
        "file>\ncreate",
        "ide_opened_file>\n",
        r#"durationMs":\d{5}"#,
    ] {
        let run = |extra: &[&str]| {
            let out = common::csift()
                .args([
                    "search",
                    pat,
                    "--format",
                    "json",
                    "--no-exchange",
                    "-t",
                    "user.*,agent.*,harness.*",
                    "--claude-home",
                ])
                .arg(&home)
                .args(extra)
                .output()
                .unwrap();
            matches(&json_lines(&out.stdout))
                .iter()
                .map(|m| {
                    (
                        m["file"].as_str().unwrap().to_string(),
                        m["line"].as_u64().unwrap(),
                        m["block"].clone(),
                    )
                })
                .collect::<Vec<_>>()
        };
        let fast = run(&[]);
        let slow = run(&["--no-prefilter"]);
        assert!(
            !slow.is_empty(),
            "pattern {pat:?} matches nothing on the corpus"
        );
        assert_eq!(fast, slow, "pattern {pat:?}");
    }
}

/// Piped output has no colour, so the header of the unit that matched says so:
/// a hit in a tool result printed after its call, or in a reply printed after
/// its prompt, must not read as a hit in the unit that heads the exchange.
#[test]
fn the_matched_unit_of_an_exchange_is_marked_without_colour() {
    let home = small_home();
    let headers = |pat: &str| -> Vec<String> {
        let out = home
            .cmd()
            .args(["search", pat, "--color", "never"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("──") || l.starts_with("  ↳"))
            .map(str::to_string)
            .collect()
    };
    // A hit in the result: the call heads the exchange, the result is marked.
    let h = headers("rollout pending");
    assert_eq!(h.len(), 2, "{h:?}");
    assert!(
        h[0].contains("agent.tool.use") && !h[0].ends_with("[match]"),
        "{h:?}"
    );
    assert!(
        h[1].contains("agent.tool.result") && h[1].ends_with("[match]"),
        "{h:?}"
    );
    // A hit in the call: the call is marked, its result is not.
    let h = headers("kubectl");
    assert!(
        h[0].ends_with("[match]") && !h[1].ends_with("[match]"),
        "{h:?}"
    );
    // Without partners there is nothing to tell apart.
    let out = home
        .cmd()
        .args([
            "search",
            "rollout pending",
            "--no-exchange",
            "--color",
            "never",
        ])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("[match]"));
}

/// A tool result names its tool through the call it answers, in every form:
/// paired, alone (--no-exchange), in --count-by tool, and as the partner of a
/// matched call. It was named only when the call was printed beside it.
#[test]
fn a_tool_result_is_named_by_its_call_in_every_output_form() {
    let home = small_home();
    let hit = |args: &[&str]| {
        first_json(
            home.cmd().args(["search", "--format", "json"]).args(args),
            "match",
        )
    };
    let alone = hit(&["rollout pending", "--no-exchange"]);
    assert_eq!(alone["label"], "agent.tool.result");
    assert_eq!(alone["tool_name"], "Bash", "{alone}");
    assert_eq!(hit(&["rollout pending"])["tool_name"], "Bash");
    let call = hit(&["kubectl"]);
    assert_eq!(call["label"], "agent.tool.use");
    assert_eq!(call["exchange"][0]["label"], "agent.tool.result");
    assert_eq!(call["exchange"][0]["tool_name"], "Bash", "{call}");
    let out = home
        .cmd()
        .args([
            "search",
            "rollout",
            "-t",
            "agent.tool.result",
            "--count-by",
            "tool",
        ])
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains("Bash") && !table.lines().any(|l| l.trim_end().ends_with(" -")),
        "{table}"
    );
}

fn small_home() -> Home {
    let mut s = Session::new("ab12cd34-0000-4000-8000-000000000001", "/w/proj");
    s.user("deploy the service please");
    s.text("m1", "Deploying now.");
    s.tool_use(
        "m1",
        "toolu_1",
        "Bash",
        json!({"command": "kubectl apply -f deploy.yaml"}),
    );
    s.tool_result("toolu_1", "deployment.apps/web configured\n\u{1b}[31mWARN\u{1b}[0m \u{1b}]0;pwned\u{7}rollout pending", false, None);
    s.text("m2", "The deploy is done.");
    let home = Home::new();
    home.write("-w-proj", &s.file_name(), &s.lines);
    home
}

#[test]
fn exit_codes_follow_ripgrep() {
    let home = small_home();
    home.cmd().args(["search", "deploy"]).assert().code(0);
    home.cmd()
        .args(["search", "nothing-like-this"])
        .assert()
        .code(1);
    home.cmd().args(["search", "("]).assert().code(2);
    home.cmd().args(["search", "x", "@zzzz"]).assert().code(2);
    home.cmd()
        .args(["search", "x", "-t", "nosuchleaf"])
        .assert()
        .code(2);
}

#[test]
fn a_tool_use_hit_prints_with_its_result() {
    let home = small_home();
    let out = home
        .cmd()
        .args(["search", "kubectl", "--color", "never"])
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("agent.tool.use Bash"), "{s}");
    assert!(
        s.contains("↳") && s.contains("deployment.apps/web configured"),
        "{s}"
    );
    let v = json_lines(
        &home
            .cmd()
            .args(["search", "kubectl", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    let m = matches(&v);
    assert_eq!(m.len(), 1);
    assert_eq!(m[0]["turn"], 1);
    assert_eq!(m[0]["exchange"][0]["label"], "agent.tool.result");
    let sum = v.last().unwrap();
    assert_eq!(sum["type"], "summary");
    assert_eq!(sum["hits"], 1);
}

#[test]
fn a_user_turn_hit_prints_with_the_reply_and_agent_text_with_its_prompt() {
    let home = small_home();
    let v = json_lines(
        &home
            .cmd()
            .args(["search", "deploy the service", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    let m = matches(&v);
    assert_eq!(m[0]["label"], "user.message");
    assert_eq!(m[0]["exchange"][0]["text"], "The deploy is done.");
    let v = json_lines(
        &home
            .cmd()
            .args(["search", "deploying now", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(matches(&v)[0]["exchange"][0]["label"], "user.message");
}

#[test]
fn terminal_escapes_never_reach_the_terminal() {
    let home = small_home();
    let out = home
        .cmd()
        .args(["search", "rollout", "--color", "never"])
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("WARN") && s.contains("rollout pending"), "{s}");
    assert!(!s.contains('\u{1b}') && !s.contains('\u{7}'), "{s:?}");
    // JSON is exact.
    let out = home
        .cmd()
        .args(["search", "rollout", "--format", "json"])
        .output()
        .unwrap();
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("\\u001b[31m"));
}

#[test]
fn counts_lists_and_max_count_say_what_was_dropped() {
    let home = small_home();
    let s = String::from_utf8(
        home.cmd()
            .args(["search", "deploy", "-c"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(s.trim_end().ends_with(":5"), "{s}");
    let s = String::from_utf8(
        home.cmd()
            .args(["search", "deploy", "-l"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(s.lines().count(), 1);
    let s = String::from_utf8(
        home.cmd()
            .args(["search", "deploy", "--max-count", "1", "--color", "never"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(s.contains("more exchanges not shown"), "{s}");
    let s = String::from_utf8(
        home.cmd()
            .args(["search", "deploy", "--count-by", "label"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        s.contains("agent.message") && s.contains("agent.tool.use"),
        "{s}"
    );
}

#[test]
fn long_bodies_are_cut_with_an_explicit_marker() {
    let mut s = Session::new("cc12cd34-0000-4000-8000-000000000001", "/w/proj");
    s.user("run it");
    s.tool_use("m1", "toolu_1", "Bash", json!({"command": "make"}));
    let body: String = (0..200).map(|i| format!("line {i}\n")).collect::<String>()
        + "FATAL: boom\n"
        + &"tail\n".repeat(100);
    s.tool_result("toolu_1", &body, true, None);
    let home = Home::new();
    home.write("-w-proj", &s.file_name(), &s.lines);
    let out = String::from_utf8(
        home.cmd()
            .args(["search", "FATAL", "--color", "never"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(out.contains("FATAL: boom"), "{out}");
    assert!(
        out.contains("lines,") && out.contains("chars omitted"),
        "{out}"
    );
    assert!(out.lines().count() < 30, "{out}");
    let full = String::from_utf8(
        home.cmd()
            .args(["search", "FATAL", "--no-truncate"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(full.contains("line 0\n") && full.contains("line 199"));
}

#[test]
fn glued_and_torn_lines_are_reported_and_the_rest_searched() {
    let mut s = Session::new("dd12cd34-0000-4000-8000-000000000001", "/w/proj");
    s.user("first needle here");
    let home = Home::new();
    let mut lines = s.lines.clone();
    lines.push(Value::String(r#"{"type":"user","message":{"role":"user","content":"glued needle"}}{"type":"summary","summary":"x"}"#.into()));
    let p = home.write("-w-proj", &s.file_name(), &lines);
    let mut bytes = std::fs::read(&p).unwrap();
    bytes.extend_from_slice(br#"{"type":"user","message":{"role":"user","content":"torn needle"#);
    std::fs::write(&p, bytes).unwrap();
    let out = home.cmd().args(["search", "needle"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(":2: malformed line (glued-records)"), "{err}");
    assert!(
        err.contains(":3: malformed line (torn-final-line)"),
        "{err}"
    );
    // The glued line's records are still searched, under its line number.
    let v = json_lines(
        &home
            .cmd()
            .args(["search", "glued needle", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    let m = matches(&v);
    assert_eq!(m.len(), 1, "{v:?}");
    assert_eq!(
        (m[0]["line"].as_u64(), m[0]["text"].as_str()),
        (Some(2), Some("glued needle"))
    );
    assert_eq!(v.last().unwrap()["malformed_lines"], 2);
}

/// A prompt glued behind another record (a write race; the public corpus has
/// one glued line, 130d7b7e…:128) still opens its turn: search numbers it and
/// its reply in that turn, show finds the turn, and stats and list count it.
#[test]
fn a_prompt_on_a_glued_line_opens_its_turn() {
    let mut s = Session::new("dd12cd34-0000-4000-8000-000000000003", "/w/proj");
    s.user("first prompt");
    s.text("msg_1", "first reply");
    let home = Home::new();
    let mut lines = s.lines.clone();
    let glued = format!(
        "{}{}",
        serde_json::to_string(&json!({"type":"system","subtype":"turn_duration","durationMs":5,"uuid":"g1","timestamp":"2026-07-01T00:00:09Z"})).unwrap(),
        serde_json::to_string(&json!({"type":"user","uuid":"g2","parentUuid":"g1","timestamp":"2026-07-01T00:00:10Z","message":{"role":"user","content":"second prompt"}})).unwrap()
    );
    lines.push(Value::String(glued));
    lines.push(json!({"type":"assistant","uuid":"a9","parentUuid":"g2","timestamp":"2026-07-01T00:00:11Z","message":{"id":"msg_9","role":"assistant","model":"claude-x","content":[{"type":"text","text":"second reply"}]}}));
    home.write("-w-proj", &s.file_name(), &lines);
    let v = json_lines(
        &home
            .cmd()
            .args(["search", "second", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    let turns: Vec<(u64, u64)> = matches(&v)
        .iter()
        .map(|m| (m["line"].as_u64().unwrap(), m["turn"].as_u64().unwrap()))
        .collect();
    assert_eq!(turns, vec![(3, 2), (4, 2)], "{v:?}");
    let out = home
        .cmd()
        .args(["show", "@dd12cd34", "--turn", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("second reply"));
    let stats = first_json(home.cmd().args(["stats", "--format", "json"]), "total");
    assert_eq!(stats["turns"], 2, "{stats}");
    let list = first_json(
        home.cmd().args(["list", "--full", "--format", "json"]),
        "session",
    );
    assert_eq!(list["turns"], 2, "{list}");
}

/// `-t agent.tool.use` skips candidate lines without a `tool_use"` needle
/// unparsed: the same hits as reading them all, a spaced re-serialisation still
/// found (REC-038), and a glued or torn line holding the pattern still reported.
#[test]
fn a_label_needle_skips_other_lines_but_loses_no_hit_or_bad_line_rec_038() {
    let mut s = Session::new("dd12cd34-0000-4000-8000-000000000002", "/w/proj");
    s.user("look at hooks.go");
    s.tool_use(
        "msg_1",
        "toolu_1",
        "Read",
        json!({"file_path": "/w/hooks.go"}),
    );
    s.tool_result("toolu_1", "package main // hooks.go body", false, None);
    s.text("msg_2", "hooks.go mentions \"tool_use\" in text only");
    let home = Home::new();
    let mut lines = s.lines.clone();
    // A default json.dumps round-trip: spaces after every colon and comma.
    lines.push(Value::String(r#"{"type": "assistant", "uuid": "u-spaced", "timestamp": "2026-01-01T01:00:00.000Z", "message": {"id": "msg_3", "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "Grep", "input": {"pattern": "hooks.go"}}]}}"#.into()));
    lines.push(Value::String(r#"{"type":"user","message":{"role":"user","content":"glued hooks.go"}}{"type":"summary","summary":"x"}"#.into()));
    let p = home.write("-w-proj", &s.file_name(), &lines);
    let mut bytes = std::fs::read(&p).unwrap();
    bytes.extend_from_slice(br#"{"type":"user","message":{"role":"user","content":"torn hooks.go"#);
    std::fs::write(&p, bytes).unwrap();

    let out = home
        .cmd()
        .args([
            "search",
            "-t",
            "agent.tool.use",
            "hooks.go",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v = json_lines(&out.stdout);
    let hits: Vec<(u64, &str)> = matches(&v)
        .iter()
        .map(|m| (m["line"].as_u64().unwrap(), m["label"].as_str().unwrap()))
        .collect();
    assert_eq!(
        hits,
        [(2, "agent.tool.use"), (5, "agent.tool.use")],
        "{v:?}"
    );
    let summary = v.iter().find(|x| x["type"] == "summary").unwrap();
    assert_eq!(summary["malformed_lines"], 2, "{summary}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(":6: malformed line (glued-records)"), "{err}");
    assert!(
        err.contains(":7: malformed line (torn-final-line)"),
        "{err}"
    );
}

#[test]
fn persisted_output_is_followed_or_said_gone_misc_002() {
    let sid = "ee12cd34-0000-4000-8000-000000000001";
    let mut s = Session::new(sid, "/w/proj");
    s.user("run the suite");
    s.tool_use("m1", "toolu_1", "Bash", json!({"command": "make test"}));
    let preview = |name: &str| {
        format!("<persisted-output>\nOutput too large (90KB). Full output saved to: /elsewhere/.claude/projects/-w-proj/{sid}/tool-results/{name}\n\nPreview (first 2KB):\nok 1\n...\n</persisted-output>")
    };
    s.tool_result("toolu_1", &preview("toolu_1.txt"), false, None);
    s.tool_use("m2", "toolu_2", "Bash", json!({"command": "make lint"}));
    s.tool_result("toolu_2", &preview("toolu_2.txt"), false, None);
    let home = Home::new();
    home.write("-w-proj", &s.file_name(), &s.lines);
    // Only the first file exists, in the session's own tool-results/ (the pointer
    // is absolute on another machine).
    home.write_raw(
        "-w-proj",
        &format!("{sid}/tool-results/toolu_1.txt"),
        b"ok 1\nok 2\nDEEP_FAILURE in test 77\n",
    );
    let out = home
        .cmd()
        .args(["search", "DEEP_FAILURE", "--format", "json"])
        .output()
        .unwrap();
    // REC-039: the full output lives outside the transcript bytes, so a match
    // in it is found only by following the pointer.
    assert_eq!(
        out.status.code(),
        Some(1),
        "without the flag only the preview is searched"
    );
    let out = home
        .cmd()
        .args([
            "search",
            "DEEP_FAILURE|ok 1",
            "--resolve-persisted",
            "--format",
            "json",
            "-t",
            "agent.tool.result",
        ])
        .output()
        .unwrap();
    let hits = json_lines(&out.stdout);
    let m = matches(&hits);
    assert_eq!(m.len(), 2, "{hits:?}");
    assert!(m[0]["text"].as_str().unwrap().contains("DEEP_FAILURE"));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("toolu_2.txt is gone"), "{err}");
}

/// A persisted-output pointer is transcript text: one naming a FIFO (which
/// blocked search forever), `/dev/zero` (read until memory ran out) or a file
/// outside a tool-results folder (printed whole) is not followed, and says so.
#[cfg(unix)]
#[test]
fn a_hostile_persisted_pointer_is_not_followed_misc_002() {
    let sid = "ee12cd34-0000-4000-8000-000000000002";
    let home = Home::new();
    let fifo_dir = home.path().join("elsewhere/tool-results");
    std::fs::create_dir_all(&fifo_dir).unwrap();
    let fifo = fifo_dir.join("pipe.txt");
    common::mkfifo(&fifo);
    let secret = home.path().join("secret.txt");
    std::fs::write(&secret, "SECRET_NEEDLE\n").unwrap();
    let mut s = Session::new(sid, "/w/proj");
    s.user("run it");
    for (i, target) in [fifo.as_path(), Path::new("/dev/zero"), secret.as_path()]
        .iter()
        .enumerate()
    {
        let id = format!("toolu_{i}");
        s.tool_use(&format!("m{i}"), &id, "Bash", json!({"command": "x"}));
        let text = format!("<persisted-output>\nOutput too large (73KB). Full output saved to: {}\n\nPreview (first 2KB):\nPNEEDLE\n</persisted-output>", target.display());
        s.tool_result(&id, &text, false, None);
    }
    home.write("-w-proj", &s.file_name(), &s.lines);
    let out = home
        .cmd()
        .args(["search", "PNEEDLE|SECRET_NEEDLE", "--resolve-persisted"])
        .args(["--format", "json", "-t", "agent.tool.result"])
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    let hits = json_lines(&out.stdout);
    let m = matches(&hits);
    assert_eq!(m.len(), 3, "{hits:?}");
    assert!(m
        .iter()
        .all(|h| !h["text"].as_str().unwrap().contains("SECRET_NEEDLE")));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("not a regular file"), "{err}");
    assert_eq!(
        err.matches("not in a tool-results folder").count(),
        2,
        "{err}"
    );
}

#[test]
fn filters_tool_model_since_and_attachments() {
    let mut s = Session::new("ff12cd34-0000-4000-8000-000000000001", "/w/proj");
    s.user("check the widget");
    s.tool_use(
        "m1",
        "toolu_1",
        "Read",
        json!({"file_path": "/w/proj/widget.rs"}),
    );
    s.tool_result("toolu_1", "fn widget() {}", false, None);
    s.tool_use(
        "m2",
        "toolu_2",
        "Bash",
        json!({"command": "grep widget -r ."}),
    );
    s.tool_result("toolu_2", "src/widget.rs: fn widget", false, None);
    s.push(json!({"type": "attachment", "attachment": {"type": "hook_additional_context", "content": ["widget hook context"], "hookName": "UserPromptSubmit"}}));
    let home = Home::new();
    home.write("-w-proj", &s.file_name(), &s.lines);
    let lines = |args: &[&str]| -> Vec<(u64, String)> {
        let out = home
            .cmd()
            .args(["search", "widget", "--format", "json", "--no-exchange"])
            .args(args)
            .output()
            .unwrap();
        matches(&json_lines(&out.stdout))
            .iter()
            .map(|m| {
                (
                    m["line"].as_u64().unwrap(),
                    m["label"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    // --tool reaches a result through the call it answers.
    let bash: Vec<u64> = lines(&["--tool", "Bash"])
        .into_iter()
        .map(|x| x.0)
        .collect();
    assert_eq!(bash, vec![4, 5]);
    assert_eq!(
        lines(&["--tool", "Re*", "-t", "agent.tool.result"]).len(),
        1
    );
    // Several tools, in each form an agent tries first: the same four hits.
    let both = lines(&["--tool", "Bash", "--tool", "Read"]);
    assert_eq!(both.len(), 4, "{both:?}");
    for list in ["Bash,Read", "Bash|Read", "{Bash,Read}"] {
        assert_eq!(lines(&["--tool", list]), both, "{list}");
    }
    // --model keeps only assistant units of matching models.
    assert!(lines(&["--model", "claude-opus-*"])
        .iter()
        .all(|(_, l)| l.starts_with("agent.")));
    assert!(lines(&["--model", "gpt-*"]).is_empty());
    // Attachments only on request (CLS-021, REC-017: the dominant record type,
    // megabyte payloads; a default search never reads them).
    assert!(!lines(&[]).iter().any(|(_, l)| l == "harness.meta.hook"));
    assert!(lines(&["--attachments"])
        .iter()
        .any(|(_, l)| l == "harness.meta.hook"));
    assert!(lines(&["-t", "harness.meta.hook"])
        .iter()
        .any(|(l, _)| *l == 6));
    // With -t the labels decide: --attachments does not widen them, and says so.
    assert_eq!(
        lines(&["-t", "agent.tool.use", "--attachments"]),
        lines(&["-t", "agent.tool.use"])
    );
    let out = home
        .cmd()
        .args(["search", "widget", "-t", "user", "--attachments"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("names no attachment label"));
    // Time window: the session lies in 2026-01-01.
    assert!(lines(&["--since", "2026-02-01T00:00:00Z"]).is_empty());
    assert_eq!(lines(&["--until", "2026-02-01T00:00:00Z"]).len(), 5);
}

/// A matched unit no longer than a partner is printed whole: a 5-line prompt
/// was cut around its match to `[… 2 lines, 35 chars omitted]`, hiding the
/// question it asked. A long one is still cut around the match, and says so.
#[test]
fn a_short_matched_unit_is_printed_whole_a_long_one_cut() {
    let home = Home::new();
    let mut s = Session::new("15151515-0000-4000-8000-000000000015", "/w/p");
    s.user("noting some weirdness\n\nin the commit\n\nThat checkpoint seems unrelated?");
    s.text("m1", "Looking.");
    let long: String = (0..60).map(|i| format!("line {i}\n")).collect();
    s.user(&format!("{long}the weirdness again\n{long}"));
    home.write("-w-p", &s.file_name(), &s.lines);
    let out = home
        .cmd()
        .args([
            "search",
            "-t",
            "user.message",
            "weirdness",
            "--color",
            "never",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("That checkpoint seems unrelated?"), "{text}");
    assert!(text.contains("the weirdness again"), "{text}");
    assert!(
        text.contains("lines, ") && text.contains("chars omitted]"),
        "{text}"
    );
    assert!(!text.contains("line 30\n"), "{text}");
}

/// `--count-by session` counts a lane's hits toward its session (a lane's
/// agent id is no session); `-c` counts per file, lanes apart, and both add up.
#[test]
fn count_by_session_folds_lanes_into_their_session() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home");
    let run = |args: &[&str]| {
        let out = common::csift()
            .args(["search", "tidepool", "--format", "json", "--claude-home"])
            .arg(&sample)
            .args(args)
            .output()
            .unwrap();
        json_lines(&out.stdout)
            .into_iter()
            .filter(|v| v["type"] == "count")
            .collect::<Vec<Value>>()
    };
    let by_session = run(&["--count-by", "session"]);
    let per_file = run(&["-c"]);
    assert!(
        per_file.iter().any(|r| !r["agent_id"].is_null()),
        "a lane has hits"
    );
    let mut want: BTreeMap<String, u64> = BTreeMap::new();
    for r in &per_file {
        *want
            .entry(r["session_id"].as_str().unwrap().into())
            .or_default() += r["hits"].as_u64().unwrap();
    }
    let got: BTreeMap<String, u64> = by_session
        .iter()
        .map(|r| {
            (
                r["key"].as_str().unwrap().into(),
                r["hits"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, want);
    // The expectation above comes from the same binary's `-c`: a wrong
    // session for a lane would move both. A home whose counts are known:
    // session A 2 hits in its own file and 3 in its lane, session B 1.
    let (a, b) = (
        "aaaa0000-0000-4000-8000-000000000001",
        "bbbb0000-0000-4000-8000-000000000002",
    );
    let home = Home::new();
    let mut s = Session::new(a, "/w/p");
    s.user("tidepool one");
    s.text("m1", "tidepool two");
    home.write("-w-p", &s.file_name(), &s.lines);
    let mut l = Session::lane(a, "/w/p", "a0123456789abcdef");
    l.user("tidepool three");
    l.text("m2", "tidepool four");
    l.text("m3", "tidepool five");
    home.write(
        "-w-p",
        &format!("{a}/subagents/agent-a0123456789abcdef.jsonl"),
        &l.lines,
    );
    let mut t = Session::new(b, "/w/p");
    t.user("tidepool six");
    home.write("-w-p", &t.file_name(), &t.lines);
    let out = home
        .cmd()
        .args([
            "search",
            "tidepool",
            "--count-by",
            "session",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let got: BTreeMap<String, u64> = json_lines(&out.stdout)
        .iter()
        .filter(|v| v["type"] == "count")
        .map(|r| {
            (
                r["key"].as_str().unwrap().into(),
                r["hits"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        BTreeMap::from([(a.to_string(), 5), (b.to_string(), 1)])
    );
}

/// A call glued on one line with another record still makes a complete
/// exchange both ways: the call with its result after it, and the result with
/// the call inside the glued line.
#[test]
fn a_glued_call_and_its_result_pair_up_both_ways() {
    let mut s = Session::new("ee12cd34-0000-4000-8000-000000000001", "/w/proj");
    s.user("run it");
    s.tool_use("m1", "toolu_g", "Bash", json!({"command": "echo gluedcmd"}));
    s.tool_result("toolu_g", "gluedout", false, None);
    let home = Home::new();
    let mut bytes = Vec::new();
    for (i, v) in s.lines.iter().enumerate() {
        bytes.extend_from_slice(serde_json::to_string(v).unwrap().as_bytes());
        if i == 1 {
            bytes.extend_from_slice(br#"{"type":"summary","summary":"s","leafUuid":"x"}"#);
        }
        bytes.push(b'\n');
    }
    home.write_raw("-w-proj", &s.file_name(), &bytes);
    for (pattern, first, partner) in [
        ("gluedcmd", "agent.tool.use", "agent.tool.result"),
        ("gluedout", "agent.tool.result", "agent.tool.use"),
    ] {
        let v = json_lines(
            &home
                .cmd()
                .args(["search", pattern, "--format", "json"])
                .output()
                .unwrap()
                .stdout,
        );
        let m = matches(&v);
        assert_eq!(m.len(), 1, "{pattern}: {v:?}");
        assert_eq!(m[0]["label"], first);
        assert_eq!(m[0]["exchange"][0]["label"], partner, "{pattern}: {v:?}");
        assert_eq!(m[0]["tool_name"], "Bash");
    }
}

/// The text csift builds around decoded pieces (a `[image]` placeholder for a
/// tool-result part with no text, the newline joining parts, a turn_duration's
/// duration) is found by the same patterns with the prefilter on as off.
#[test]
fn text_built_around_decoded_pieces_is_found_through_the_prefilter() {
    let home = Home::new();
    let mut s = Session::new("33333333-cccc-4000-8000-000000000003", "/w/app");
    s.user("take a screenshot");
    s.tool_use("m1", "toolu_01", "Screenshot", json!({}));
    s.push(json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": [
            {"type": "text", "text": "caption"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}}
        ]}]}}));
    s.system("turn_duration", json!({"durationMs": 264098}));
    home.write("-w-app", &s.file_name(), &s.lines);
    for (pat, label) in [
        (r"\[image\]", "agent.tool.result"),
        (r"caption\n\[image", "agent.tool.result"),
        (r#"durationMs":264098"#, "harness.meta.turn"),
    ] {
        for extra in [None, Some("--no-prefilter")] {
            let mut cmd = home.cmd();
            cmd.args(["search", "-t", "agent.*,harness.*", "--format", "json", pat]);
            cmd.args(extra);
            let out = cmd.output().unwrap();
            let all = json_lines(&out.stdout);
            let m = matches(&all);
            assert_eq!(m.len(), 1, "{pat} {extra:?}");
            assert_eq!(m[0]["label"], label, "{pat}");
        }
    }
}

/// A hit printed inside another hit's exchange (a tool_use and its result both
/// matching `error`) is marked and highlighted there: its own exchange is the
/// same one and is not printed again (44 such hits on the corpus went unmarked).
#[test]
fn every_hit_printed_in_an_exchange_is_marked() {
    let Some(home) = corpus() else { return };
    let run = |format: &str| {
        common::csift()
            .args(["search", "error", "--color", "never", "--format", format])
            .arg("--claude-home")
            .arg(&home)
            .output()
            .unwrap()
            .stdout
    };
    let all = json_lines(&run("json"));
    let paired: BTreeSet<(String, u64)> = matches(&all)
        .iter()
        .filter(|h| !h["exchange"].as_array().unwrap().is_empty())
        .map(|h| {
            (
                h["file"].as_str().unwrap().to_string(),
                h["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let human = String::from_utf8(run("human")).unwrap();
    let marked: BTreeSet<(String, u64)> = human
        .lines()
        .filter_map(|l| l.strip_suffix(" [match]"))
        .filter_map(|l| {
            let addr = l.rsplit(' ').next()?;
            let (file, line) = addr.rsplit_once(':')?;
            Some((file.to_string(), line.parse().ok()?))
        })
        .collect();
    assert!(paired.len() > 400, "{}", paired.len());
    let unmarked: Vec<_> = paired.difference(&marked).collect();
    assert!(
        unmarked.is_empty(),
        "{} unmarked: {unmarked:?}",
        unmarked.len()
    );
}

/// --count-by keys a hit with no such value as JSON null, not a `-` that
/// could be a tool's name; the human form prints `-`.
#[test]
fn count_by_keys_a_missing_value_as_null() {
    let Some(home) = corpus() else { return };
    let run = |format: &str| {
        common::csift()
            .args([
                "search",
                "the",
                "--count-by",
                "tool",
                "--format",
                format,
                "--claude-home",
            ])
            .arg(&home)
            .output()
            .unwrap()
            .stdout
    };
    let rows = json_lines(&run("json"));
    let none: Vec<&Value> = rows
        .iter()
        .filter(|r| r["type"] == "count" && r["key"].is_null())
        .collect();
    assert_eq!(none.len(), 1, "{rows:?}");
    assert!(!rows.iter().any(|r| r["key"] == "-"));
    let n = none[0]["hits"].as_u64().unwrap();
    let human = String::from_utf8(run("human")).unwrap();
    assert!(
        human.lines().any(|l| l.trim_start() == format!("{n}  -")),
        "{human}"
    );
}

/// A turn_duration's text quotes durationMs as written, so what it holds is
/// on disk: `2.5e3` was reprinted `2500`, which the prefilter could not find.
#[test]
fn a_duration_is_searched_as_written() {
    let home = Home::new();
    let line = br#"{"type":"system","subtype":"turn_duration","durationMs":2.5e3,"isMeta":false,"uuid":"u1","timestamp":"2026-01-01T00:00:00.000Z","sessionId":"44444444-dddd-4000-8000-000000000004"}
"#;
    home.write_raw("-w-d", "44444444-dddd-4000-8000-000000000004.jsonl", line);
    for extra in [None, Some("--no-prefilter")] {
        let mut cmd = home.cmd();
        cmd.args([
            "search",
            "-t",
            "harness.meta.turn",
            "--format",
            "json",
            r#"durationMs":2\.5e3"#,
        ]);
        cmd.args(extra);
        let all = json_lines(&cmd.output().unwrap().stdout);
        let m = matches(&all);
        assert_eq!(m.len(), 1, "{extra:?}");
        assert_eq!(m[0]["text"], r#"turn_duration "durationMs":2.5e3"#);
    }
    let stats = common::first_json(home.cmd().args(["stats", "--format", "json"]), "total");
    assert_eq!(stats["turn_duration_ms"], 2500);
}

/// A window selects the same records in search, show and stats: a record
/// with no time of its own (a file-history-snapshot, a summary; REC-024 for the
/// session-state lines) stands at the time before it. Before, any window, even one covering all time, hid the
/// corpus's 245 snapshots from search (5,075 units against stats' 5,320) and
/// `show --line 1` of 9d440bfc printed nothing.
#[test]
fn corpus_a_window_selects_untimed_records_as_stats_does_rec_024() {
    let Some(home) = corpus() else { return };
    let run = |args: &[&str]| {
        common::csift()
            .args(args)
            .arg("--claude-home")
            .arg(&home)
            .args(["--format", "json"])
            .output()
            .unwrap()
    };
    let all = "user.*,agent.*,harness.*";
    for window in [
        &["--since", "2000-01-01"][..],
        &["--since", "2026-02-01", "--until", "2026-02-15"],
    ] {
        let mut args = vec!["search", "", "-t", all, "--count-by", "label"];
        args.extend_from_slice(window);
        let searched = common::searched_labels(&json_lines(&run(&args).stdout));
        let mut args = vec!["stats"];
        args.extend_from_slice(window);
        let total = json_lines(&run(&args).stdout).pop().unwrap();
        let counted = common::counted_labels(&total);
        assert_eq!(searched, counted, "{window:?}");
        assert!(searched
            .get("harness.meta.snapshot")
            .is_some_and(|&n| n > 0));
    }
    let out = run(&["show", "@9d440bfc", "--line", "1", "--since", "2000-01-01"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("file-history-snapshot"));
}

/// A matched call that nothing in its file answers says so, in JSON and in
/// the human form; on the corpus these are exactly the calls stats counts as
/// unanswered (Bash 11, Read 2).
#[test]
fn corpus_unanswered_calls_are_marked_as_stats_counts_them() {
    let Some(home) = corpus() else { return };
    let run = |format: &str| {
        common::csift()
            .args(["search", "", "-t", "agent.tool.use", "--format", format])
            .args(["--color", "never", "--claude-home"])
            .arg(&home)
            .output()
            .unwrap()
            .stdout
    };
    let all = json_lines(&run("json"));
    let marked: Vec<&Value> = matches(&all)
        .into_iter()
        .filter(|h| h["unanswered"] == true)
        .collect();
    let stats = common::first_json(
        common::csift()
            .args(["stats", "--format", "json", "--claude-home"])
            .arg(&home),
        "total",
    );
    let counted: u64 = stats["tools"]
        .as_object()
        .unwrap()
        .values()
        .map(|t| t["unanswered"].as_u64().unwrap())
        .sum();
    assert_eq!(marked.len() as u64, counted);
    assert_eq!(counted, 13);
    for h in &marked {
        assert!(h["exchange"].as_array().unwrap().is_empty(), "{h}");
        let id = h["tool_use_id"].as_str().unwrap();
        let file = h["file"].as_str().unwrap();
        assert!(!result_ids(Path::new(file)).contains(id), "{file} {id}");
    }
    let human = String::from_utf8(run("human")).unwrap();
    assert_eq!(
        human
            .matches("↳ (no tool_result in this file answers this call)")
            .count(),
        13
    );
}

/// Patterns are smart-case and tool names never differ by case, so `--tool
/// bash` finds the Bash calls (it found nothing, silently); `--model` reads
/// case the same way. A glob that matches no tool name seen says which names
/// the searched lines hold, on stderr.
#[test]
fn tool_and_model_globs_ignore_case_and_a_miss_names_the_tools_seen() {
    let mut s = Session::new("ff12cd34-0000-4000-8000-000000000002", "/w/proj");
    s.user("check the widget");
    s.tool_use(
        "m1",
        "toolu_1",
        "Read",
        json!({"file_path": "/w/widget.rs"}),
    );
    s.tool_result("toolu_1", "fn widget() {}", false, None);
    s.tool_use(
        "m2",
        "toolu_2",
        "Bash",
        json!({"command": "grep widget -r ."}),
    );
    s.tool_result("toolu_2", "src/widget.rs: fn widget", false, None);
    let home = Home::new();
    home.write("-w-proj", &s.file_name(), &s.lines);
    let search = |args: &[&str]| {
        home.cmd()
            .args(["search", "widget", "--format", "json", "--no-exchange"])
            .args(args)
            .output()
            .unwrap()
    };
    let lines = |out: &std::process::Output| -> Vec<u64> {
        matches(&json_lines(&out.stdout))
            .iter()
            .map(|m| m["line"].as_u64().unwrap())
            .collect()
    };
    let exact = search(&["--tool", "Bash"]);
    assert_eq!(lines(&exact), vec![4, 5]);
    for glob in ["bash", "BASH", "ba*", "[b]ash"] {
        let out = search(&["--tool", glob]);
        assert_eq!(lines(&out), vec![4, 5], "{glob}");
        assert!(
            out.stderr.is_empty(),
            "{glob}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        lines(&search(&["--model", "CLAUDE-OPUS-*", "-t", "agent"])).len(),
        2
    );
    // A miss names the tools the searched lines hold.
    let out = search(&["--tool", "Bsh"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("--tool `Bsh` matches no tool"), "{err}");
    assert!(err.contains("Bash, Read"), "{err}");
    // Of a list, only the glob that matched nothing is named.
    let out = search(&["--tool", "Read,Bsh"]);
    assert_eq!(lines(&out), vec![2, 3]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("`Bsh`") && !err.contains("`Read`"), "{err}");
    let out = search(&["--model", "gpt-*"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("--model `gpt-*` matches no model"), "{err}");
    assert!(err.contains("claude-opus-4-5-20251101"), "{err}");
}

/// REC-090: file order and time order are two orderings: `--since`/`--until`
/// window on each record's timestamp (a record written later in the file may
/// be older), `show --line` on the file's order.
#[test]
fn time_windows_follow_timestamps_and_lines_follow_the_file_rec_090() {
    let mut s = Session::new("ff12cd34-0000-4000-8000-0000000000a0", "/w/proj");
    s.push(
        json!({"type": "user", "timestamp": "2026-03-01T10:00:00.000Z",
        "message": {"role": "user", "content": "needle one"}}),
    );
    s.push(
        json!({"type": "user", "timestamp": "2026-03-01T09:00:00.000Z",
        "message": {"role": "user", "content": "needle two, older but later in the file"}}),
    );
    s.push(
        json!({"type": "user", "timestamp": "2026-03-01T11:00:00.000Z",
        "message": {"role": "user", "content": "needle three"}}),
    );
    let home = Home::new();
    home.write("-w-proj", &s.file_name(), &s.lines);
    let lines = |args: &[&str]| -> Vec<u64> {
        let out = home
            .cmd()
            .args(["search", "needle", "--format", "json", "--no-exchange"])
            .args(args)
            .output()
            .unwrap();
        matches(&json_lines(&out.stdout))
            .iter()
            .map(|m| m["line"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(lines(&["--until", "2026-03-01T09:30:00Z"]), [2]);
    assert_eq!(lines(&["--since", "2026-03-01T09:30:00Z"]), [1, 3]);
    let out = home
        .cmd()
        .args(["show", "@ff12cd34", "--line", "1..2", "--format", "json"])
        .output()
        .unwrap();
    let shown: Vec<u64> = json_lines(&out.stdout)
        .iter()
        .filter(|v| v["type"] == "unit")
        .map(|v| v["line"].as_u64().unwrap())
        .collect();
    assert_eq!(shown, [1, 2]);
}
