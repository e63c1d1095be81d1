//! Records without a `message{}`: system subtypes, attachments, file history,
//! queue operations and the unmodelled line types; and which leaves the model
//! sees.

use serde_json::json;

use super::{meta, run, system, user};
use crate::classify::Label;

/// The leaf of `name`.
fn leaf(name: &str) -> Label {
    *Label::ALL.iter().find(|l| l.name() == name).unwrap()
}

#[test]
fn visibility_follows_the_message_field_not_is_meta() {
    let lines = [
        user("go"),
        meta("Continue from where you left off."),
        json!({"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
            "message": {"role": "user", "content": "This session is being continued from a previous conversation."}}),
        system(
            "compact_boundary",
            json!({"content": "Conversation compacted",
            "compactMetadata": {"trigger": "manual", "preTokens": 90000}}),
        ),
        // CMP-005: the optional isMeta (always false) and a lane's agentId;
        // REC-028: parentUuid null, the true predecessor in logicalParentUuid.
        system(
            "compact_boundary",
            json!({"isMeta": false, "agentId": "a1", "parentUuid": null, "logicalParentUuid": "u0001",
            "compactMetadata": {"trigger": "auto", "preTokens": 150000}}),
        ),
        system(
            "turn_duration",
            json!({"durationMs": 5000, "messageCount": 4}),
        ),
        system(
            "away_summary",
            json!({"content": "You were fixing the parser; tests pass now."}),
        ),
        system(
            "stop_hook_summary",
            json!({"hookCount": 1, "hookInfos": [], "hookErrors": []}),
        ),
        json!({"type": "file-history-snapshot", "messageId": "m1", "isSnapshotUpdate": false,
            "snapshot": {"messageId": "m1", "trackedFileBackups": {}, "timestamp": "2026-07-01T10:00:00.000Z"}}),
        json!({"type": "file-history-delta", "messageId": "m2", "snapshotMessageId": "m1",
            "trackingPath": "/w/a.rs", "backup": {"backupFileName": null, "version": 1,
            "backupTime": "2026-07-01T10:00:01.000Z"}, "timestamp": "2026-07-01T10:00:01.000Z"}),
        json!({"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-07-01T10:00:02.000Z",
            "sessionId": "s", "content": "also the docs"}),
    ];
    let got = run(&lines, false);
    let seen: Vec<(Label, bool)> = (1..=lines.len())
        .map(|n| (leaf(got.label(n)), lines[n - 1].get("message").is_some()))
        .collect();
    for (l, has_message) in &seen {
        // CLS-002, REC-003, QT-027: a leaf is visible exactly when its records
        // carry message{}: isMeta (line 2) and the display-only summary flag
        // (line 3, CMP-008) do not make a record unseen.
        assert_eq!(l.visible(), *has_message, "{}", l.name());
    }
    assert_eq!(leaf(got.label(3)), Label::HarnessCompactionSummary); // CMP-008

    // CMP-004, CMP-005: boundaries with or without the optional keys.
    assert_eq!(
        [got.label(4), got.label(5)],
        ["harness.compaction.boundary"; 2]
    );
    // REC-028: with no content string, the metadata is the boundary's text.
    assert!(got.text(5).contains("\"trigger\":\"auto\"") && got.text(5).contains("150000"));
    assert_eq!(got.text(4), "Conversation compacted"); // CMP-002

    // CLS-025, REC-025: both file-history lines are snapshot machinery.
    assert_eq!([got.label(9), got.label(10)], ["harness.meta.snapshot"; 2]);
    // QT-018, QT-020: the recap is its own string content, never seen by the model.
    assert_eq!(got.text(7), "You were fixing the parser; tests pass now.");
    assert!(!Label::HarnessMetaAway.visible());
    // QT-026: the five no-message carriers are out of the default selection.
    let default = crate::classify::LabelSet::visible();
    for n in [6, 7, 8, 9, 11] {
        assert!(!default.contains(leaf(got.label(n))), "line {n}"); // QT-026
    }
    // The attachment leaves are the exception: no message{}, yet delivered to
    // the model as reminders, so visible (and skipped by search by default).
    assert!(Label::HarnessMetaAttachment.visible());
}

#[test]
fn system_texts_hold_only_what_the_line_spells() {
    let lines = [
        system(
            "turn_duration",
            json!({"durationMs": 134688, "messageCount": 12, "isMeta": false}),
        ),
        system(
            "stop_hook_summary",
            json!({"hookCount": 6, "hookInfos": [{"command": "lint.sh", "durationMs": 40}],
            "hookErrors": [], "preventedContinuation": false, "stopReason": "", "level": "suggestion"}),
        ),
        json!({"type": "file-history-snapshot", "messageId": "m1", "snapshot": {"trackedFileBackups": {}}}),
        // QT-031: the seven further subtypes; scheduled_task_fire carries content.
        system(
            "scheduled_task_fire",
            json!({"content": "Running scheduled task: nightly report"}),
        ),
        system("model_refusal_fallback", json!({})),
        system("model_refusal_no_fallback", json!({})),
        system(
            "api_error",
            json!({"error": {"status": 529}, "retryAttempt": 1, "maxRetries": 10, "retryInMs": 500, "level": "error"}),
        ),
        system(
            "local_command",
            json!({"content": "<local-command-stdout>ok</local-command-stdout>"}),
        ),
        system("agents_killed", json!({})),
        system("informational", json!({"content": "Model switched"})),
        // ELI-020's hook_response never lands on disk; one would be a system unit.
        system(
            "hook_response",
            json!({"hook_id": "h1", "outcome": "success"}),
        ),
    ];
    let got = run(&lines, false);
    for n in 1..=3 {
        let raw = lines[n - 1].to_string();
        let t = got.text(n);
        // CLS-024, QT-017, MISC-008: no rendered phrase is made up: every word
        // of the unit text is on the line, so the byte prefilter keeps it.
        for w in t.split_whitespace() {
            assert!(raw.contains(w), "line {n}: {w:?} not in {raw}"); // CLS-024
        }
        for made_up in [
            "turn duration",
            "stop hooks",
            "file-history delta at",
            "Done in",
            "Cogitated for",
        ] {
            assert!(!t.contains(made_up), "line {n}: {t}"); // QT-017, MISC-008
        }
    }
    assert_eq!(got.label(1), "harness.meta.turn"); // QT-009
    assert!(got.text(1).contains("\"durationMs\":134688")); // QT-009
    assert_eq!(got.label(2), "harness.meta.stop"); // QT-021
    for n in 4..=11 {
        assert_eq!(got.label(n), "harness.meta.system", "line {n}"); // QT-031, ELI-020
    }
    // REC-004: content is per subtype: its string when present, else the subtype.
    assert_eq!(got.text(4), "Running scheduled task: nightly report"); // QT-031
    assert!(got.text(5).starts_with("model_refusal_fallback")); // REC-004
}

#[test]
fn queue_lines_keep_typed_text_and_drop_riders() {
    let q = |op: &str, content: Option<&str>| {
        let mut v = json!({"type": "queue-operation", "operation": op,
            "timestamp": "2026-07-01T10:00:00.000Z", "sessionId": "s"});
        if let Some(c) = content {
            v["content"] = json!(c);
        }
        v
    };
    let lines = [
        // QT-001, QT-002: enqueue, remove and popAll carry text; dequeue never.
        q("enqueue", Some("also update the changelog")),
        q("dequeue", None),
        q("remove", Some("also update the changelog")),
        q("remove", None),
        q("popAll", Some("draft I pulled back")),
        // QT-001: the operation set is open.
        q("reorder", Some("typed while it ran")),
        // QT-005: the riders, whose delivered twins are already labelled.
        q("enqueue", Some("<task-notification>\n<task-id>b1</task-id>\n<summary>Background command \"x\" completed</summary>\n</task-notification>")),
        q("enqueue", Some("Another Claude session sent a message:\n<agent-message from=\"p\">hi</agent-message>")),
        q("enqueue", Some("/compact")),
    ];
    let got = run(&lines, false);
    let labels: Vec<Vec<&str>> = (1..=9).map(|n| got.labels(n)).collect();
    let q1 = vec!["user.queued"];
    assert_eq!(labels[0], q1); // QT-001
    assert!(labels[1].is_empty() && labels[3].is_empty()); // QT-002
    assert_eq!([&labels[2], &labels[4]], [&q1, &q1]); // QT-002
    assert_eq!(labels[5], q1); // QT-001
    assert!(labels[6].is_empty() && labels[7].is_empty()); // QT-005
    assert_eq!(labels[8], q1); // QT-005: a slash command is typed text
                               // QT-007: typed text that never became a user record is still found here;
                               // QT-004: nothing joins it to one, and no turn is opened by it.
    assert_eq!(got.text(1), "also update the changelog"); // QT-007
    assert_eq!(got.idx.turns(), 0); // QT-004
}

#[test]
fn unknown_and_unmodelled_line_types_are_read_without_error() {
    let lines = [
        user("go"),
        // REC-002, QT-032: types csift does not model, and a made-up one.
        json!({"type": "atis-latch", "atis": "x", "sessionId": "s"}),
        json!({"type": "bridge-session", "bridgeSessionId": "b", "lastSequenceNum": 4, "sessionId": "s"}),
        json!({"type": "cost-state", "totalCostUSD": 1.5, "sessionId": "s"}),
        json!({"type": "continued-in", "sessionId": "s", "timestamp": "2026-07-01T10:00:00.000Z"}),
        json!({"type": "brand-new-type", "payload": {"deep": [1, 2]}}),
        // QT-030: the per-turn cache lines carry no uuid, timestamp or message.
        json!({"type": "last-prompt", "leafUuid": "u0001", "sessionId": "s", "lastPrompt": "go"}),
        json!({"type": "ai-title", "aiTitle": "Parser fix", "sessionId": "s"}),
        user("next"),
    ];
    let got = run(&lines, false);
    for n in 2..=8 {
        assert!(got.lines[n - 1].is_empty(), "line {n}"); // REC-002, QT-032, QT-030
    }
    // REC-002: each is still read as a record of its own type.
    let buf = format!("{}\n", lines[5]);
    let line = crate::scan::Lines::new(buf.as_bytes()).next().unwrap();
    let recs = crate::record::line_records(&line);
    assert_eq!(recs[0].1.kind(), "brand-new-type"); // REC-002
    assert_eq!([got.turn(1), got.turn(9)], [Some(1), Some(2)]);
}

#[test]
fn a_record_is_one_physical_line() {
    let compact = r#"{"type":"user","message":{"role":"user","content":"compact"}}"#;
    let spaced = r#"{"type": "user", "message": {"role": "user", "content": "spaced"}}"#;
    let pretty =
        "{\n  \"type\": \"user\",\n  \"message\": {\"role\": \"user\", \"content\": \"pretty\"}\n}";
    let buf = format!("{compact}\n{spaced}\n{pretty}\n");
    let got = super::run_bytes(buf.as_bytes(), false);
    // REC-001: compact and re-spaced lines are each a record; a pretty-printed
    // object is four lines, none of them a record.
    assert_eq!([got.text(1), got.text(2)], ["compact", "spaced"]);
    assert!(got.lines[2..].iter().all(Vec::is_empty));
    let bad = crate::scan::Lines::new(buf.as_bytes())
        .filter(|l| {
            matches!(
                crate::record::parse_line(l),
                crate::record::Parsed::Malformed(_)
            )
        })
        .count();
    assert_eq!(bad, 4); // REC-001: counted as malformed, never a record
}

#[test]
fn an_assistant_message_is_the_full_api_object() {
    // REC-007: nine universal keys, diagnostics near-universal (absent here),
    // rare context_management and container.
    let line = json!({"type": "assistant", "message": {"model": "claude-opus-4-6", "id": "msg_01X",
        "type": "message", "role": "assistant", "content": [{"type": "text", "text": "hi"}],
        "stop_reason": "end_turn", "stop_sequence": null, "stop_details": null,
        "usage": {"input_tokens": 3, "output_tokens": 5},
        "context_management": {"applied_edits": []}, "container": {"id": "c1"}}});
    let buf = format!("{line}\n");
    let l = crate::scan::Lines::new(buf.as_bytes()).next().unwrap();
    let recs = crate::record::line_records(&l);
    let r = &recs[0].1;
    assert_eq!(
        (r.model(), r.message_id()),
        (Some("claude-opus-4-6"), Some("msg_01X"))
    ); // REC-007
    assert_eq!(
        super::run_bytes(buf.as_bytes(), false).label(1),
        "agent.message"
    ); // REC-007
}
