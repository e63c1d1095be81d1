//! Every leaf of the taxonomy on a real-shaped record: build one session holding a
//! record of each shape, then `search '' -t <leaf>` must return exactly that
//! record's line. Also keeps docs/labels.md in sync with `--list-labels`.

use crate::common;

use common::{Home, Session};
use serde_json::{json, Value};

/// A narration signature: field path 2 → 1 → 8 reads `narration` (NAR-002).
const NARRATION_SIG: &str = "Eg0KC0IJbmFycmF0aW9uGAE=";

fn build() -> (Home, Vec<(&'static str, usize)>) {
    let mut s = Session::new("5e55a000-0000-4000-8000-000000000001", "/work/app");
    let mut expect: Vec<(&'static str, usize)> = Vec::new();
    let mut at = |s: &Session, leaf: &'static str| expect.push((leaf, s.lines.len()));
    s.raw(json!({"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-01-01T00:00:00.000Z", "sessionId": "x", "content": "also check the docs"}));
    at(&s, "user.queued");
    s.push(json!({"type": "file-history-snapshot", "messageId": "m", "snapshot": {"trackedFileBackups": {}}, "isSnapshotUpdate": false}));
    at(&s, "harness.meta.snapshot");
    s.user("please fix the failing build");
    at(&s, "user.message");
    s.thinking("msg_1", "the build fails because of a missing import");
    at(&s, "agent.thinking");
    s.assistant("msg_1", &[json!({"type": "thinking", "thinking": "Looking at the build.", "signature": NARRATION_SIG})]);
    at(&s, "agent.thinking.narration");
    s.text("msg_1", "I will add the import.");
    at(&s, "agent.message");
    s.tool_use(
        "msg_1",
        "toolu_01",
        "Bash",
        json!({"command": "cargo build"}),
    );
    at(&s, "agent.tool.use");
    s.tool_result(
        "toolu_01",
        "Compiling app v0.1.0",
        false,
        Some(json!({"stdout": "Compiling", "stderr": "", "interrupted": false, "isImage": false})),
    );
    at(&s, "agent.tool.result");
    s.tool_use(
        "msg_2",
        "toolu_02",
        "AskUserQuestion",
        json!({"questions": [{"question": "Which db?"}]}),
    );
    at(&s, "agent.tool.use");
    s.tool_result(
        "toolu_02",
        "User has answered your questions: \"Which db?\"=\"postgres\".",
        false,
        Some(json!({"questions": [], "answers": {"Which db?": "postgres"}})),
    );
    at(&s, "user.answer");
    s.tool_use(
        "msg_3",
        "toolu_03",
        "Write",
        json!({"file_path": "/work/app/x", "content": "x"}),
    );
    at(&s, "agent.tool.use");
    s.tool_result("toolu_03", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse the other file", true, None);
    at(&s, "user.rejection");
    s.tool_use(
        "msg_4",
        "toolu_04",
        "Task",
        json!({"description": "explore", "prompt": "look around", "subagent_type": "Explore"}),
    );
    at(&s, "agent.communication.sent");
    s.tool_result(
        "toolu_04",
        "Found three modules.",
        false,
        Some(json!({"status": "completed", "agentId": "a1", "content": []})),
    );
    at(&s, "agent.communication.inbox");
    s.tool_use(
        "msg_5",
        "toolu_05",
        "SendMessage",
        json!({"to": "peer", "message": {"type": "shutdown_request"}}),
    );
    at(&s, "agent.communication.signal");
    s.user("<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n<summary>Background command \"npm test\" completed (exit code 0)</summary>\n</task-notification>");
    at(&s, "harness.notification.background");
    s.user("<task-notification>\n<task-id>m1</task-id>\n<summary>Monitor \"watch\" fired</summary>\n<event>READY</event>\n</task-notification>");
    at(&s, "harness.notification.monitor");
    s.user("<task-notification>\n<task-id>a2</task-id>\n<status>completed</status>\n<summary>Agent \"review\" completed</summary>\n</task-notification>");
    at(&s, "harness.notification.subagent");
    s.user("<task-notification>\n<task-id>t9</task-id>\n<summary>Something else finished</summary>\n</task-notification>");
    at(&s, "harness.notification.task");
    s.meta("Continue from where you left off.");
    at(&s, "harness.schedule.continuation");
    s.meta("# Autonomous loop check\nYou're being invoked on a timer while the user is away.");
    at(&s, "harness.schedule.wakeup");
    s.meta("# Autonomous loop tick\nRun the autonomous check now.");
    at(&s, "harness.meta.loop");
    s.meta("Stop hook feedback:\nplease run the tests");
    at(&s, "harness.meta.hook");
    s.system("compact_boundary", json!({"content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 155000}}));
    at(&s, "harness.compaction.boundary");
    s.push(json!({"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true, "message": {"role": "user", "content": "This session is being continued from a previous conversation."}}));
    at(&s, "harness.compaction.summary");
    s.user("<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>");
    at(&s, "harness.command.invocation");
    // The prompt a skill or command expands to: isMeta text blocks after its
    // wrapper, the instructions the model ran under (it had no label at all).
    s.push(json!({"type": "user", "isMeta": true, "message": {"role": "user", "content": [{"type": "text", "text": "Base directory for this skill: /home/u/.claude/skills/review\n\n# Review\nRead the diff first."}]}}));
    at(&s, "harness.command.invocation");
    s.user("<local-command-stdout>Set model to opus</local-command-stdout>");
    at(&s, "harness.command.stdout");
    s.push(json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]}}));
    at(&s, "harness.interrupt.user");
    s.push(json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}]}}));
    at(&s, "harness.interrupt.tool");
    s.push(json!({"type": "attachment", "attachment": {"type": "hook_success", "hookName": "SessionStart", "content": "ok"}}));
    at(&s, "harness.meta.attachment");
    s.system("away_summary", json!({"content": "Was fixing the build."}));
    at(&s, "harness.meta.away");
    s.system(
        "stop_hook_summary",
        json!({"hookCount": 1, "hookInfos": [], "hookErrors": []}),
    );
    at(&s, "harness.meta.stop");
    s.system("api_error", json!({"content": "overloaded"}));
    at(&s, "harness.meta.system");
    s.system(
        "turn_duration",
        json!({"durationMs": 5000, "messageCount": 4}),
    );
    at(&s, "harness.meta.turn");
    // A draft recalled and re-sent: two openers sharing one parentUuid (TURN-022).
    let parent = s.text("msg_6", "Done.");
    at(&s, "agent.message");
    s.push(json!({"type": "user", "parentUuid": parent, "message": {"role": "user", "content": "ship it now"}}));
    at(&s, "user.unsent");
    s.push(json!({"type": "user", "parentUuid": parent, "message": {"role": "user", "content": "ship it now please"}}));
    at(&s, "user.message");
    let home = Home::new();
    home.write("-work-app", &s.file_name(), &s.lines);
    (home, expect)
}

fn lines_for(home: &Home, leaf: &str) -> Vec<u64> {
    let out = home
        .cmd()
        .args([
            "search",
            "",
            "-t",
            leaf,
            "--format",
            "json",
            "--no-exchange",
        ])
        .output()
        .unwrap();
    common::json_lines(&out.stdout)
        .iter()
        // `-t agent.thinking` also selects narration (segment prefix, CLS-001) and
        // `-t agent.tool.use` also reaches spawns via their second label: keep the
        // units whose reported label is the leaf itself.
        .filter(|v| v["type"] == "match" && v["label"] == leaf)
        .map(|v| v["line"].as_u64().unwrap())
        .collect()
}

#[test]
fn every_leaf_on_a_real_shaped_record_cls_001() {
    let (home, expect) = build();
    let mut seen: Vec<&str> = expect.iter().map(|e| e.0).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 33, "the fixture must cover every leaf");
    for leaf in seen {
        let want: Vec<u64> = expect
            .iter()
            .filter(|e| e.0 == leaf)
            .map(|e| e.1 as u64)
            .collect();
        // CLS-023: the system leaves too, though their records carry no role.
        assert_eq!(lines_for(&home, leaf), want, "leaf {leaf}");
    }
}

#[test]
fn bare_role_is_visible_leaves_qt_027() {
    let (home, _) = build();
    let out = home
        .cmd()
        .args([
            "search",
            "",
            "-t",
            "user",
            "--count-by",
            "label",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let labels: Vec<String> = common::json_lines(&out.stdout)
        .iter()
        .filter(|v| v["type"] == "count")
        .map(|v| v["key"].as_str().unwrap().to_string())
        .collect();
    assert!(labels.contains(&"user.message".to_string()));
    assert!(!labels.contains(&"user.unsent".to_string()), "{labels:?}");
    // QT-035: the promoted queue line is reached only by naming it.
    assert!(!labels.contains(&"user.queued".to_string()), "{labels:?}");
}

/// CLS-010: a Task/Agent/Workflow spawn is one unit with two labels: found
/// under `agent.tool.use` and under `agent.communication.sent`, the same line.
#[test]
fn spawn_is_both_sent_and_tool_use_cls_010() {
    let (home, _) = build();
    let hits = |label: &str| -> Vec<Value> {
        let out = home
            .cmd()
            .args(["search", "explore", "-t", label, "--format", "json"])
            .output()
            .unwrap();
        common::json_lines(&out.stdout)
            .into_iter()
            .filter(|v| v["type"] == "match")
            .collect()
    };
    let used = hits("agent.tool.use");
    assert_eq!(used.len(), 1);
    assert_eq!(used[0]["tool_name"], "Task");
    let sent = hits("agent.communication.sent");
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["line"], used[0]["line"]);
    assert_eq!(sent[0]["label"], "agent.communication.sent");
    assert_eq!(sent[0]["tool_use_id"], used[0]["tool_use_id"]);
}

#[test]
fn labels_doc_matches_list_labels() {
    let out = common::csift()
        .args(["search", "--list-labels"])
        .output()
        .unwrap();
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/labels.md")).unwrap();
    let listed = String::from_utf8(out.stdout).unwrap();
    // The 33 leaves, a blank line, the aliases' heading and the four aliases.
    assert_eq!(listed.lines().count(), 33 + 2 + 4);
    assert!(
        doc.contains(&listed),
        "docs/labels.md is stale: regenerate it from `csift search --list-labels`"
    );

    // The machine form: the same 33 labels, as JSON Lines, then the aliases.
    let all =
        common::ok_json(common::csift().args(["search", "--list-labels", "--format", "json"]));
    let rows: Vec<Value> = all
        .iter()
        .filter(|r| r["type"] == "label")
        .cloned()
        .collect();
    assert_eq!(rows.len(), 33);
    assert_eq!(all.len(), 33 + 4, "and nothing but labels and aliases");
    assert_eq!(rows[0]["type"], "label");
    assert_eq!(rows[0]["label"], "user.message");
    assert_eq!(rows[0]["visible"], true);
    let names: Vec<&str> = listed
        .lines()
        .take(33)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let json_names: Vec<&str> = rows.iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(names, json_names);
}

/// stats' labels are the units search matches: on the public corpus every
/// leaf's count is the same both ways, including the records of the glued line
/// 130d7b7e…:128, an old subtype-less system notice (f0b4ca22:108, QT-SYS-001)
/// and subagent records nested in agent_progress records.
#[test]
fn stats_labels_are_the_units_search_matches_on_the_corpus_qt_sys_001() {
    let Some(home) = common::corpus() else { return };
    let stats = common::first_json(
        common::csift()
            .args(["stats", "--format", "json", "--claude-home"])
            .arg(&home),
        "total",
    );
    let out = common::csift()
        .args([
            "search",
            "",
            "-t",
            "user.*,agent.*,harness.*",
            "--count-by",
            "label",
            "--format",
            "json",
            "--claude-home",
        ])
        .arg(&home)
        .output()
        .unwrap();
    let searched = common::searched_labels(&common::json_lines(&out.stdout));
    let counted = common::counted_labels(&stats);
    assert_eq!(counted, searched);
    assert!(searched["harness.meta.system"] > 0);
    // 5,320 units of the files' own records, and 335 subagent records nested
    // in agent_progress records: 402 in the corpus, less the 67 whose agent
    // has a lane file (4d5611e5), which are counted there.
    assert_eq!(searched.values().sum::<u64>(), 5655);
}

/// The earlier spellings of four leaves (csift 0.10's, as the ledger still
/// writes them) select what the leaf selects, the hits say the leaf's own
/// name, and `--list-labels` names the leaf each alias stands for: the
/// turn_duration (QT-009), stop_hook_summary (QT-021), away_summary (QT-018)
/// and background-command notification (CLS-004) records of the fixture.
#[test]
fn earlier_label_names_are_aliases_of_their_leaves_qt_009_qt_018_qt_021_cls_004() {
    let (home, expect) = build();
    let pairs = [
        ("harness.meta.turn-duration", "harness.meta.turn"),
        ("harness.meta.stop-hooks", "harness.meta.stop"),
        ("harness.meta.away-summary", "harness.meta.away"),
        (
            "harness.notification.background-command",
            "harness.notification.background",
        ),
    ];
    let listed =
        common::ok_json(common::csift().args(["search", "--list-labels", "--format", "json"]));
    for (alias, leaf) in pairs {
        let want: Vec<u64> = expect
            .iter()
            .filter(|e| e.0 == leaf)
            .map(|e| e.1 as u64)
            .collect();
        assert_eq!(want.len(), 1, "{leaf}: one record in the fixture");
        let out = home
            .cmd()
            .args([
                "search",
                "",
                "-t",
                alias,
                "--format",
                "json",
                "--no-exchange",
            ])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{alias}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let hits: Vec<Value> = common::json_lines(&out.stdout)
            .into_iter()
            .filter(|v| v["type"] == "match")
            .collect();
        let lines: Vec<u64> = hits.iter().map(|v| v["line"].as_u64().unwrap()).collect();
        assert_eq!(lines, want, "-t {alias}");
        assert!(hits.iter().all(|h| h["label"] == leaf), "{hits:?}");
        // As a subtree too.
        let sub = format!("{alias}.*");
        let out = home
            .cmd()
            .args(["search", "", "-t", &sub, "-c"])
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout).ends_with(":1\n"),
            "-t {sub}"
        );
        let row = listed
            .iter()
            .find(|r| r["type"] == "alias" && r["alias"] == alias)
            .unwrap_or_else(|| panic!("{alias} not listed"));
        assert_eq!(row["label"], leaf);
    }
    // The human list says the leaf beside each alias.
    let text = common::csift()
        .args(["search", "--list-labels"])
        .output()
        .unwrap()
        .stdout;
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("harness.meta.turn-duration")
                && l.ends_with("= harness.meta.turn"))
    );
}
