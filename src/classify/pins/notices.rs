//! Harness-written user records: task notifications, stopped-agents notices,
//! resume and wakeup markers, hook feedback and context, image references.

use serde_json::json;

use super::{meta, result, run, tool_use, user};

/// A `<task-notification>` with only the two universal tags.
fn pulse(summary: &str, extra: &str) -> String {
    format!("<task-notification>\n<task-id>b7k2q9x1p</task-id>\n{extra}<summary>{summary}</summary>\n</task-notification>")
}

#[test]
fn task_notifications_are_classed_by_their_summary_prefix() {
    let lines = [
        user("start the build"),
        // CLS-003: only <task-id> and <summary> are universal; no isMeta key.
        json!({"type": "user", "userType": "external", "origin": {"kind": "task-notification"},
            "promptSource": "system", "message": {"role": "user", "content": pulse("Agent \"review\" completed", "")}}),
        // CLS-004, BG-039: the leading phrase decides, not the quoted name.
        user(&pulse(
            "Background command \"re-arm the monitor watcher\" completed (exit code 0)",
            "<tool-use-id>toolu_01</tool-use-id>\n<status>completed</status>\n<output-file>/tmp/b.output</output-file>\n",
        )),
        // CLS-004: a head csift does not name falls through to the task leaf.
        user(&pulse("Remote task \"deploy\" blocked on input: approve?", "")),
        user(&pulse("Cloud review failed: timeout", "")),
        // CLS-005: a Monitor pulse carries its outcome in <event>, no <status>.
        user(&pulse(
            "Monitor event: \"stage watcher\"",
            "<event>[Monitor timed out - re-arm if needed.]</event>\n",
        )),
        user(&pulse("Dynamic workflow \"audit\" completed", "")),
    ];
    let got = run(&lines, false);
    assert_eq!(got.label(2), "harness.notification.subagent"); // CLS-003
    assert_eq!(got.label(3), "harness.notification.background"); // CLS-004, BG-039
    assert_eq!(got.label(4), "harness.notification.task"); // CLS-004
    assert_eq!(got.label(5), "harness.notification.task"); // CLS-004
    assert_eq!(got.label(6), "harness.notification.monitor"); // CLS-005
    assert!(got
        .text(6)
        .contains("[Monitor timed out - re-arm if needed.]")); // CLS-005
    assert_eq!(got.label(7), "harness.notification.subagent");
    // CLS-003: it passes the genuine-user gate, so it opens a turn, but no
    // unit of it is the user's message.
    assert_eq!(got.turn(2), Some(2));
    assert!((2..=7).all(|n| !got.labels(n).contains(&"user.message")));
}

#[test]
fn stopped_agents_notices_are_subagent_notifications() {
    let plural = "3 background agents were stopped by the user: \"Explore the repo for the...\", \"Run the suite and...\", \"Review the diff...\".";
    let lines = [
        user("look into the flaky test"),
        // CLS-007, BG-024: origin task-notification, string content, no isMeta,
        // promptSource absent on a minority.
        json!({"type": "user", "userType": "external", "isSidechain": false,
            "origin": {"kind": "task-notification"}, "message": {"role": "user", "content": plural}}),
        // TURN-019: the singular template names the one agent.
        json!({"type": "user", "userType": "external", "origin": {"kind": "task-notification"},
            "promptSource": "system", "message": {"role": "user",
            "content": "Background agent \"Explore the repo for the...\" was stopped by the user."}}),
        // BG-024: two of 2,700 carry isMeta:true on a sidechain copy.
        json!({"type": "user", "isMeta": true, "isSidechain": true, "origin": {"kind": "task-notification"},
            "message": {"role": "user", "content": plural}}),
    ];
    let got = run(&lines, false);
    for n in 2..=4 {
        assert_eq!(got.label(n), "harness.notification.subagent", "line {n}"); // CLS-007, TURN-019, BG-024
    }
    // TURN-019: a notice mid-turn opens no turn and is never the user's.
    assert_eq!([got.turn(2), got.turn(3)], [Some(1), Some(1)]);
}

#[test]
fn an_async_launch_ack_is_a_tool_result_not_the_childs_report() {
    let lines = [
        user("spawn a reviewer"),
        tool_use("toolu_a", "Agent", json!({"description": "review", "prompt": "review it", "run_in_background": true})),
        // CLS-009, SUB-016: the ack shares the spawn's id and says launched.
        result("toolu_a", "Async agent launched successfully.\nagentId: a1b2c3d4e5f6a7b8 (internal ID - do not mention to user.)", None,
            Some(json!({"isAsync": true, "status": "async_launched", "agentId": "a1b2c3d4e5f6a7b8",
                "description": "review", "outputFile": "/tmp/a.output"}))),
        tool_use("toolu_w", "Workflow", json!({"script": "audit.js"})),
        // CLS-009: a workflow ack: async_launched with no isAsync key.
        result("toolu_w", "Workflow launched in background. Task ID: w9", None,
            Some(json!({"status": "async_launched", "runId": "wf_1", "taskId": "w9"}))),
        // CLS-009: the report arrives later as a pulse carrying <result>.
        user("<task-notification>\n<task-id>a1b2c3d4e5f6a7b8</task-id>\n<status>completed</status>\n<summary>Agent \"review\" completed</summary>\n<result>Two bugs found.</result>\n</task-notification>"),
        tool_use("toolu_s", "Agent", json!({"description": "sync", "prompt": "do it"})),
        result("toolu_s", "Done: three files changed.", None, Some(json!({"status": "completed", "content": []}))),
    ];
    let got = run(&lines, false);
    assert_eq!(got.labels(3), ["agent.tool.result"]); // CLS-009, SUB-016
    assert_eq!(got.labels(5), ["agent.tool.result"]); // CLS-009
    assert_eq!(
        got.labels(6),
        ["harness.notification.subagent", "agent.communication.inbox"]
    ); // CLS-009
    assert_eq!(
        got.labels(8),
        ["agent.communication.inbox", "agent.tool.result"]
    );
}

#[test]
fn resume_wakeup_and_loop_markers_need_is_meta() {
    let lines = [
        // MISC-003: the marker rides a one-element text block array.
        json!({"type": "user", "isMeta": true, "message": {"role": "user",
            "content": [{"type": "text", "text": "Continue from where you left off."}]}}),
        // TURN-004: 2.1.258's longer variants continue past the full stop.
        meta("Continue from where you left off. Note: this session was automatically restarted after its process exited."),
        // CLS-013: prose that discusses the marker is the user's message.
        user("why does it say Continue from where you left off. every time?"),
        // CLS-014: a fired tick, and the CronCreate loop's own sentinel.
        meta("# Autonomous loop check\nYou're being invoked on a timer while the user is away or occupied."),
        meta("<<autonomous-loop>>\ncheck the queue"),
        // CLS-014: the driver tick is not a fired wakeup.
        meta("# Autonomous loop tick (dynamic pacing)\nRun the autonomous check using the loop instructions established earlier in this conversation."),
        // CLS-014: a non-meta prompt quoting the sentinel keeps user.message.
        user("what does <<autonomous-loop-dynamic>> mean in the transcript?"),
    ];
    let got = run(&lines, false);
    assert_eq!(got.label(1), "harness.schedule.continuation"); // MISC-003, CLS-013
    assert_eq!(got.label(2), "harness.schedule.continuation"); // TURN-004
    assert_eq!(got.label(3), "user.message"); // CLS-013
    assert_eq!(got.label(4), "harness.schedule.wakeup"); // CLS-014
    assert_eq!(got.label(5), "harness.schedule.wakeup"); // CLS-014
    assert_eq!(got.label(6), "harness.meta.loop"); // CLS-014
    assert_eq!(got.label(7), "user.message"); // CLS-014

    // TURN-004: isMeta records never open a turn; the prose does.
    assert_eq!(
        [got.turn(2), got.turn(3), got.turn(6)],
        [Some(0), Some(1), Some(1)]
    );
}

#[test]
fn hook_feedback_and_hook_context_are_harness_meta_hook() {
    let lines = [
        user("edit the config"),
        // CLS-016: the two isMeta shapes 2.1.258 emits.
        meta("Stop hook feedback:\nrun the linter before stopping"),
        meta("<local-command-caveat>Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages.</local-command-caveat>"),
        // CLS-016: the edit-retry sentence rides inside a Stop hook body.
        meta("Stop hook feedback:\nThe last Edit failed because the target file was modified since it was read."),
        // CLS-019, MISC-001, REC-018: the one context-carrying attachment;
        // content is a string array, one element per block.
        json!({"type": "attachment", "attachment": {"type": "hook_additional_context",
            "content": ["Branch: main", "Open PRs: 2"], "hookName": "SessionStart", "hookEvent": "SessionStart"}}),
        // REC-018: a bare string is tolerated.
        json!({"type": "attachment", "attachment": {"type": "hook_additional_context", "content": "single block"}}),
        // REC-016: `attachment` is a top-level sibling of message{}, its payload
        // typed; any payload but hook context is an attachment unit.
        json!({"type": "attachment", "attachment": {"type": "hook_success", "hookName": "PostToolUse", "content": "ok"}}),
    ];
    let got = run(&lines, false);
    for n in 2..=4 {
        assert_eq!(got.label(n), "harness.meta.hook", "line {n}"); // CLS-016
    }
    assert_eq!(got.label(5), "harness.meta.hook"); // CLS-019, MISC-001
    assert_eq!(got.text(5), "Branch: main\nOpen PRs: 2"); // CLS-019, REC-018
    assert_eq!(got.text(6), "single block"); // REC-018
    assert_eq!(got.label(7), "harness.meta.attachment"); // REC-018
}

#[test]
fn image_references_are_neither_prose_nor_an_event() {
    let lines = [
        user("here is the screenshot [Image #1]"),
        // CLS-017: both prefixes the harness writes, isMeta, one line, `]`-closed.
        meta("[Image: source: /tmp/shot.png, original 2400x1600, displayed 1200x800]"),
        meta("[Image source: /tmp/shot.png]"),
    ];
    let got = run(&lines, false);
    assert_eq!(got.label(1), "user.message");
    assert!(got.lines[1].is_empty() && got.lines[2].is_empty()); // CLS-017
    assert_eq!([got.turn(2), got.turn(3)], [Some(1), Some(1)]); // CLS-017
}
