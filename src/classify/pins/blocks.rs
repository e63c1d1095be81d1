//! Assistant blocks and user content shapes: spawn and peer tools, thinking
//! kinds, redacted thinking, string versus block content.

use serde_json::json;

use super::{assistant, result, run, tool_use, user};

/// A signature whose field path 2 → 1 → 8 reads `tag` (NAR-002), as real ones.
fn sig(tag: &[u8]) -> String {
    use base64::Engine as _;
    let ld = |f: u8, p: &[u8]| [vec![(f << 3) | 2, p.len() as u8], p.to_vec()].concat();
    let inner = [vec![0x08, 0x01], ld(8, tag)].concat();
    let msg = [vec![0x08, 0x04], ld(2, &ld(1, &inner))].concat();
    base64::engine::general_purpose::STANDARD.encode(msg)
}

#[test]
fn spawn_and_peer_tools_are_sent_or_signal() {
    let lines = [
        user("fan out"),
        // CLS-012, SUB-011: all three spawn names; Task is registered but rare.
        tool_use(
            "t1",
            "Task",
            json!({"description": "a", "prompt": "p", "subagent_type": "Explore"}),
        ),
        tool_use(
            "t2",
            "Agent",
            json!({"description": "b", "prompt": "p", "name": "rev", "subagent_type": "claude"}),
        ),
        tool_use(
            "t3",
            "Workflow",
            json!({"script": "audit.js", "name": "audit"}),
        ),
        // CLS-012: the recipient rides `to`, `recipient` a duplicate alias.
        tool_use(
            "t4",
            "SendMessage",
            json!({"to": "rev", "recipient": "rev", "type": "message", "message": "status?"}),
        ),
        // CLS-011, SUB-017: any other type is a control signal, top-level or nested.
        tool_use(
            "t5",
            "SendMessage",
            json!({"to": "rev", "type": "shutdown_request"}),
        ),
        tool_use(
            "t6",
            "SendMessage",
            json!({"to": "rev", "message": {"type": "shutdown_response", "approve": true}}),
        ),
        // A tool merely named like one is not a spawn.
        tool_use("t7", "TaskCreate", json!({"subject": "x"})),
    ];
    let got = run(&lines, false);
    for n in 2..=4 {
        assert_eq!(
            got.labels(n),
            ["agent.communication.sent", "agent.tool.use"],
            "line {n}"
        ); // CLS-012, SUB-011
    }
    assert_eq!(
        got.labels(5),
        ["agent.communication.sent", "agent.tool.use"]
    ); // CLS-012
    assert_eq!(
        got.labels(6),
        ["agent.communication.signal", "agent.tool.use"]
    ); // SUB-017
    assert_eq!(
        got.labels(7),
        ["agent.communication.signal", "agent.tool.use"]
    ); // SUB-017
    assert_eq!(got.labels(8), ["agent.tool.use"]);
    // A tool_use unit is its name and input, so `to` is searchable.
    assert!(got.text(5).starts_with("SendMessage {") && got.text(5).contains("\"to\":\"rev\""));
}

#[test]
fn narration_is_read_from_the_signature_alone() {
    let think = |text: &str, tag: &[u8]| json!({"type": "thinking", "thinking": text, "signature": sig(tag)});
    let lines = [
        user("explain the failure"),
        // NAR-001: both kinds carry exactly {type, thinking, signature}.
        assistant(
            "msg_1",
            think(
                "The import is missing because the module moved.",
                b"thinking",
            ),
        ),
        assistant(
            "msg_1",
            think("Looking at why the build fails.", b"narration"),
        ),
        // NAR-009: a narration block with no reasoning sibling, its own record.
        assistant("msg_2", think("Checking the config next.", b"narration")),
        // REC-012: redacted thinking: opaque data, no readable text.
        assistant(
            "msg_3",
            json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy3"}),
        ),
        // NAR-010: prose that says the word is not narration.
        assistant(
            "msg_4",
            think("I will write a narration of the steps.", b"thinking"),
        ),
    ];
    let got = run(&lines, false);
    assert_eq!(got.label(2), "agent.thinking"); // NAR-001
    assert_eq!(got.label(3), "agent.thinking.narration"); // NAR-001
    assert_eq!(got.label(4), "agent.thinking.narration"); // NAR-009
    assert_eq!((got.label(5), got.text(5)), ("agent.thinking", "")); // REC-012
    assert_eq!(got.label(6), "agent.thinking"); // NAR-010

    // NAR-010: the unit text is the thinking text; the tag is never text.
    assert!(!got.text(3).contains("narration"));
    // NAR-011: a lane's narration reads the same.
    let lane = [
        json!({"type": "user", "isSidechain": true, "message": {"role": "user", "content": "seed"}}),
        assistant("msg_9", think("Scanning the tree.", b"narration")),
    ];
    assert_eq!(run(&lane, true).label(2), "agent.thinking.narration"); // NAR-011
}

#[test]
fn content_is_a_string_or_blocks_and_results_join_by_id() {
    let lines = [
        // REC-008: string content and a text-block array are both the prompt.
        user("string prompt"),
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "block prompt"}]}}),
        // REC-009: an assistant string body would be a surprise; read, not dropped.
        json!({"type": "assistant", "message": {"role": "assistant", "id": "m1", "content": "bare body"}}),
        tool_use("toolu_r", "Read", json!({"file_path": "/w/a.rs"})),
        tool_use("toolu_g", "Grep", json!({"pattern": "fn"})),
        // REC-013: results in one carrier, each joined by its own tool_use_id.
        json!({"type": "user", "sourceToolAssistantUUID": "u0005", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_g", "content": "a.rs:1:fn a()"},
            {"type": "tool_result", "tool_use_id": "toolu_r", "content": "     1\tfn a() {}"}]}}),
        result("toolu_nowhere", "orphan", None, None),
    ];
    let got = run(&lines, false);
    assert_eq!(
        (got.label(1), got.text(1)),
        ("user.message", "string prompt")
    ); // REC-008
    assert_eq!(
        (got.label(2), got.text(2)),
        ("user.message", "block prompt")
    ); // REC-008
    assert_eq!([got.turn(1), got.turn(2)], [Some(1), Some(2)]); // REC-008
    assert_eq!((got.label(3), got.text(3)), ("agent.message", "bare body")); // REC-009

    // REC-013: each result names its call by its own block-level id (the
    // carrier's sourceToolAssistantUUID names one record, not two calls).
    let ids = |n: usize| -> Vec<Option<String>> {
        got.lines[n - 1].iter().map(|u| u.id.clone()).collect()
    };
    assert_eq!(ids(6), [Some("toolu_g".into()), Some("toolu_r".into())]); // REC-013
    assert_eq!(
        [ids(4), ids(5)],
        [[Some("toolu_r".into())], [Some("toolu_g".into())]]
    ); // REC-013
    assert_eq!(got.labels(7), ["agent.tool.result"]); // an orphan result is kept
}
