//! Turn openers and the carriers around them: answers, rejections and the
//! non-answer shapes of AskUserQuestion, peer messages, compaction summaries,
//! lane seeds and superseded drafts.

use serde_json::json;

use super::{meta, result, run, system, tool_use, user};

const AUQ: &str = "AskUserQuestion";

fn ask(id: &str) -> serde_json::Value {
    tool_use(
        id,
        AUQ,
        json!({"questions": [{"question": "Which db?", "header": "DB", "multiSelect": false,
        "options": [{"label": "postgres", "description": "the default", "preview": "CREATE TABLE t (...)"},
                    {"label": "sqlite", "description": "embedded"}]}]}),
    )
}

#[test]
fn answered_questions_open_turns_and_the_non_answers_do_not() {
    let echo = |answers: serde_json::Value| json!({"questions": [{"question": "Which db?"}], "answers": answers, "annotations": {}});
    let lines = [
        user("set up the database"),
        ask("q1"),
        // ELI-003: the third phrasing, with a non-empty answers map.
        result("q1", "The user answered: \"Which db?\"=\"postgres\". Read the answers carefully.", Some(false), Some(echo(json!({"Which db?": "postgres"})))),
        ask("q2"),
        // ELI-004: with no echo the start-anchored marker decides.
        result("q2", "Your questions have been answered: \"Which db?\"=\"sqlite\". You can now continue with these answers in mind.", None, None),
        ask("q3"),
        // ELI-007, TURN-011: the idle auto-resolve: is_error absent, answers empty.
        result("q3", "No response after 60s - the user may be away from keyboard.", None,
            Some(json!({"questions": [{"question": "Which db?"}], "answers": {}, "annotations": {}, "afkTimeoutMs": 60000}))),
        ask("q4"),
        // TURN-011: a validation error: is_error true, no toolUseResult.
        result("q4", "<tool_use_error>InputValidationError: AskUserQuestion was called with input that could not be parsed as JSON.</tool_use_error>", Some(true), None),
        ask("q5"),
        // TURN-012, ELI-004: resolved without an answer.
        result("q5", "The user did not answer the questions.", None, None),
        ask("q6"),
        // ELI-004: the retired phrase quoted mid-prose is no answer.
        result("q6", "Noted that \"User has answered your questions\" used to be the marker.", None, None),
    ];
    let got = run(&lines, false);
    assert_eq!(got.labels(3), ["user.answer", "agent.tool.result"]); // ELI-002, ELI-003
    assert_eq!(got.turn(3), Some(2)); // TURN-003
    assert_eq!(got.labels(5), ["user.answer", "agent.tool.result"]); // ELI-004
    assert_eq!(got.turn(5), Some(3));
    for n in [7, 9, 11, 13] {
        assert_eq!(got.labels(n), ["agent.tool.result"], "line {n}"); // ELI-007, TURN-011, TURN-012, ELI-004
        assert_eq!(got.turn(n), Some(3), "line {n}: no turn opens");
    }
    // TURN-002, REC-030: the answer's words ride in the tool_result text.
    assert!(got.lines[2][0].text.contains("postgres"));
}

#[test]
fn rejections_and_plan_approval() {
    let lines = [
        user("write the plan"),
        tool_use("p1", "ExitPlanMode", json!({"plan": "1. do it"})),
        // TURN-014: the approval carrier is the harness greenlight.
        result("p1", "User has approved your plan. You can now start coding.", None, None),
        tool_use("w1", "Write", json!({"file_path": "/w/x", "content": "x"})),
        // TURN-002, TURN-003: a rejection carrying the typed instruction.
        result("w1", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nput it in src/ instead", Some(true), None),
        tool_use("w2", "Write", json!({"file_path": "/w/y", "content": "y"})),
        // A bare rejection carries no words: no turn.
        result("w2", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file).", Some(true), None),
    ];
    let got = run(&lines, false);
    assert_eq!(got.labels(3), ["agent.tool.result"]); // TURN-014
    assert_eq!(got.turn(3), Some(1)); // TURN-014
    assert_eq!(got.labels(5), ["user.rejection", "agent.tool.result"]); // TURN-003
    assert!(got.lines[4][0].text.ends_with("put it in src/ instead")); // TURN-002
    assert_eq!(got.turn(5), Some(2)); // TURN-003
    assert_eq!(got.labels(7), ["agent.tool.result"]);
    assert_eq!(got.turn(7), Some(2));
}

#[test]
fn peer_messages_open_turns_with_or_without_a_preamble() {
    let tm = "<teammate-message teammate_id=\"rev\" color=\"blue\" summary=\"done\">Review finished, two nits.</teammate-message>";
    let lines = [
        user("coordinate the team"),
        // TURN-015: the bare tag at content start, no preamble.
        user(tm),
        // TURN-015, TURN-016: each of the three relay preambles, isMeta.
        meta("Another Claude session sent a message:\n<agent-message from=\"peer-a\">hi</agent-message>"),
        meta("Another Claude session sent a message while you were working:\n<agent-message from=\"peer-b\">ping</agent-message>"),
        meta("A peer session sent a message while you were working:\n<agent-message from=\"peer-c\">pong</agent-message>"),
    ];
    let got = run(&lines, false);
    for n in 2..=5 {
        assert_eq!(got.label(n), "agent.communication.inbox", "line {n}"); // TURN-015, TURN-016
    }
    assert_eq!(
        (2..=5).map(|n| got.turn(n)).collect::<Vec<_>>(),
        [Some(2), Some(3), Some(4), Some(5)]
    ); // TURN-003, TURN-015
       // REC-029: five type:"user" records, one of them the user's.
    let users = (1..=5)
        .filter(|&n| got.labels(n) == ["user.message"])
        .count();
    assert_eq!(users, 1); // REC-029
}

#[test]
fn compaction_summary_is_a_member_and_the_telemetry_chain_is_no_opener() {
    let lines = [
        user("refactor the parser"),
        system(
            "compact_boundary",
            json!({"parentUuid": null, "logicalParentUuid": "u0001",
            "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 155000}}),
        ),
        // TURN-020, CMP-001: a user record with string content, not type summary.
        json!({"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
            "message": {"role": "user", "content": "This session is being continued from a previous conversation that ran out of context."}}),
        system(
            "stop_hook_summary",
            json!({"hookCount": 1, "hookInfos": [{"command": "lint.sh", "durationMs": 40}],
            "hookErrors": [], "preventedContinuation": false, "stopReason": ""}),
        ),
        system(
            "turn_duration",
            json!({"durationMs": 134688, "messageCount": 12, "isMeta": false}),
        ),
        // QT-028: the next prompt names the turn_duration record as its parent.
        user("now add tests"),
    ];
    let got = run(&lines, false);
    assert_eq!(got.label(3), "harness.compaction.summary"); // TURN-020, CMP-001
    assert_eq!(got.turn(3), Some(1)); // TURN-020: a member of turn 1
    assert_eq!([got.turn(4), got.turn(5)], [Some(1), Some(1)]); // QT-028
    assert_eq!(got.turn(6), Some(2)); // QT-028: the chain runs through it
}

#[test]
fn a_lane_opens_on_its_seed_and_a_fork_child_on_its_ref() {
    let seed = json!({"type": "user", "isSidechain": true, "agentId": "a1b2c3",
        "message": {"role": "user", "content": "Explore the parser and report."}});
    let got = run(
        &[
            seed.clone(),
            tool_use("t1", "Read", json!({"file_path": "/w/p.rs"})),
        ],
        true,
    );
    // TURN-021, SUB-004: the first record is the spawn prompt, delivered.
    assert_eq!(got.label(1), "agent.communication.inbox");
    let fork_ref = json!({"type": "fork-context-ref", "agentId": "afork01", "parentSessionId": "s1",
        "parentLastUuid": "u0009", "contextLength": 3});
    let reply = super::assistant(
        "msg_f",
        json!({"type": "text", "text": "continuing the fork"}),
    );
    let got = run(&[fork_ref, reply, user("one more thing")], true);
    // TURN-021, SUB-004, REC-027: the timestampless ref is line 1 and no
    // unit; an assistant record follows, so the fork has no user seed.
    assert!(got.lines[0].is_empty());
    assert_eq!(got.label(2), "agent.message");
    assert_eq!(got.label(3), "user.message");
    // TURN-021: no top-level transcript starts with a sidechain seed; one
    // that did is not the user's turn.
    let got = run(&[seed, user("real prompt")], false);
    assert_eq!([got.turn(1), got.turn(2)], [Some(0), Some(1)]);
}

#[test]
fn drafts_are_n_way_of_either_shape_and_outside_the_numbered_turns() {
    let reply = super::assistant("msg_1", json!({"type": "text", "text": "Done."}));
    let sib = |t: serde_json::Value| {
        let mut v = t;
        v["parentUuid"] = json!("u0002");
        v
    };
    let lines = [
        user("first"),
        reply,
        // TURN-023: three drafts, string and text-block content, one parent.
        sib(user("ship it")),
        sib(
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "ship it now"}]}}),
        ),
        sib(user("ship it now please")),
        sib(user("ship it now please, all of it")),
        // REC-032: a notification re-sent beside them is a draft like any.
        sib(user("<task-notification>\n<task-id>b1</task-id>\n<summary>Background command \"x\" completed</summary>\n</task-notification>")),
        // TURN-025: a lone message with no later sibling is no draft.
        user("and tag the release"),
    ];
    let got = run(&lines, false);
    for n in 3..=6 {
        assert_eq!(got.label(n), "user.unsent", "line {n}"); // TURN-023
        assert_eq!(got.turn(n), None, "line {n}"); // TURN-024
    }
    // REC-032: the superseded notification is the unsent draft only.
    assert_eq!(got.labels(6), ["user.unsent"]);
    assert_eq!(got.label(7), "harness.notification.background");
    assert_eq!([got.turn(7), got.turn(8)], [Some(2), Some(3)]); // TURN-024, TURN-025
    assert_eq!(got.label(8), "user.message"); // TURN-025
}

#[test]
fn an_appended_compaction_keeps_every_earlier_line_and_turn() {
    let before = [
        user("one"),
        super::assistant("msg_1", json!({"type": "text", "text": "a"})),
        user("two"),
        super::assistant("msg_2", json!({"type": "text", "text": "b"})),
    ];
    let mut after = before.to_vec();
    after.push(system(
        "compact_boundary",
        json!({"content": "Conversation compacted",
        "compactMetadata": {"trigger": "auto"}}),
    ));
    after.push(json!({"type": "user", "isCompactSummary": true,
        "message": {"role": "user", "content": "This session is being continued."}}));
    after.push(user("three"));
    let (a, b) = (run(&before, false), run(&after, false));
    // REC-088: the compaction is appended, so every earlier line keeps its
    // number, units and turn.
    for n in 1..=before.len() {
        assert_eq!(a.lines[n - 1], b.lines[n - 1], "line {n}");
        assert_eq!(a.turn(n), b.turn(n), "line {n}");
    }
    assert_eq!(b.turn(7), Some(3));
}

#[test]
fn a_wakeup_prompt_is_armed_by_the_arm_form_only() {
    let lines = [
        user("babysit the deploy"),
        // MISC-004: the arm form {delaySeconds, prompt, reason}, no task id.
        tool_use(
            "w1",
            "ScheduleWakeup",
            json!({"delaySeconds": 600, "prompt": "check the deploy status", "reason": "wait"}),
        ),
        result(
            "w1",
            "Scheduled.",
            None,
            Some(
                json!({"clampedDelaySeconds": 600, "scheduledFor": "2026-07-01T10:10:00Z", "wasClamped": false}),
            ),
        ),
        // MISC-004: the stop form carries no prompt and arms nothing.
        tool_use("w2", "ScheduleWakeup", json!({"stop": true})),
        result(
            "w2",
            "Stopped.",
            None,
            Some(
                json!({"stopped": true, "cancelledWakeups": 1, "clampedDelaySeconds": 0, "scheduledFor": null, "wasClamped": false}),
            ),
        ),
        meta("check the deploy status"),
        meta("true"),
    ];
    let got = run(&lines, false);
    assert_eq!(got.label(6), "harness.schedule.wakeup"); // MISC-004
    assert!(got.lines[6].is_empty(), "{:?}", got.lines[6]); // MISC-004
}
