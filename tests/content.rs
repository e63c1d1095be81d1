//! Content the record model used to lose or misplace (issue 27, items 1–4 and
//! 17): text beside a tool_result, an image-only prompt, a session opened by a
//! bare slash command, lone surrogate escapes, and 1.0.x inline sidechain
//! lanes. Every record here copies a real shape from the corpus (or, where the
//! corpus has none, the shape the claims name), never its text.

use crate::common;

use common::{json_lines, Home, Session};
use serde_json::{json, Value};

const PROJECT: &str = "-work-app";

/// `csift ARGS…` on `home`, its stdout (exit status checked by the caller).
fn out(home: &Home, args: &[&str]) -> (Option<i32>, String) {
    let o = home.cmd().args(args).output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

fn ok(home: &Home, args: &[&str]) -> String {
    let (code, s) = out(home, args);
    assert_eq!(code, Some(0), "csift {args:?}:\n{s}");
    s
}

fn ok_json(home: &Home, args: &[&str]) -> Vec<Value> {
    json_lines(ok(home, args).as_bytes())
}

/// The one `session` row of `list --full --format json`.
fn session_row(home: &Home) -> Value {
    ok_json(home, &["list", "--full", "--format", "json"])
        .into_iter()
        .find(|v| v["type"] == "session")
        .expect("a session row")
}

/// The total of `stats --format json`.
fn stats_total(home: &Home, target: &str) -> Value {
    ok_json(home, &["stats", target, "--format", "json"])
        .into_iter()
        .find(|v| v["type"] == "total")
        .expect("a total")
}

fn line_of(s: &Session, uuid: &str) -> usize {
    s.lines.iter().position(|v| v["uuid"] == uuid).unwrap() + 1
}

/// A user record whose content is `blocks`, in the session's envelope.
fn user_blocks(s: &mut Session, blocks: Value) -> String {
    s.push(json!({"type": "user", "message": {"role": "user", "content": blocks}}))
}

// ---------------------------------------------------------------- item 1 --

/// Text the user typed while a tool ran rides beside its tool_result in one
/// carrier (`[tool_result, text]`): it is its own visible `user.message`
/// unit everywhere — search finds it, show and verbatim print it, stats
/// counts it — and it opens no turn (the turns module doc: QT-003's
/// absorbed-mid-turn delivery; TURN-001's shape gate excludes carriers).
#[test]
fn text_beside_a_tool_result_is_a_user_message_turn_001_qt_003() {
    let home = Home::new();
    let mut s = Session::new("a1b2c3d4-0000-4000-8000-000000000001", "/work/app");
    s.user("run the test suite");
    s.tool_use("msg_1", "toolu_1", "Bash", json!({"command": "cargo test"}));
    let carrier = user_blocks(
        &mut s,
        json!([
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "test result: ok. 12 passed", "is_error": false},
            {"type": "text", "text": "also check the flaky parser test"}
        ]),
    );
    // Harness text beside a result keeps its own label (TURN-005).
    s.tool_use(
        "msg_2",
        "toolu_2",
        "Bash",
        json!({"command": "cargo test parser"}),
    );
    user_blocks(
        &mut s,
        json!([
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "running", "is_error": true},
            {"type": "text", "text": "[Request interrupted by user for tool use]"}
        ]),
    );
    s.text("msg_3", "The parser test passes now.");
    home.write(PROJECT, &s.file_name(), &s.lines);
    let no = line_of(&s, &carrier);

    let hits = ok_json(&home, &["search", "-F", "flaky parser", "--format", "json"]);
    let m: Vec<&Value> = hits.iter().filter(|v| v["type"] == "match").collect();
    assert_eq!(m.len(), 1, "{hits:?}");
    assert_eq!(m[0]["label"], "user.message");
    assert_eq!(m[0]["line"], no);
    assert_eq!(m[0]["block"], 1);
    assert_eq!(m[0]["turn"], 1, "it sits in the running turn");
    // Its exchange is the prompt of that turn.
    assert_eq!(m[0]["exchange"][0]["text"], "run the test suite");

    let shown = ok(&home, &["show", "@a1b2c3d4", "--line", &no.to_string()]);
    assert!(shown.contains("test result: ok. 12 passed"), "{shown}");
    assert!(shown.contains("user.message"), "{shown}");
    assert!(
        shown.contains("also check the flaky parser test"),
        "{shown}"
    );

    let v = ok(&home, &["verbatim", "@a1b2c3d4"]);
    assert!(v.contains("[user] also check the flaky parser test"), "{v}");
    assert!(
        v.contains("[interrupted by the user during a tool call]"),
        "{v}"
    );

    let total = stats_total(&home, "@a1b2c3d4");
    assert_eq!(total["labels"]["user.message"], 2, "{total}");
    assert_eq!(total["labels"]["harness.interrupt.tool"], 1, "{total}");
    assert_eq!(total["turns"], 1, "a carrier's text opens no turn");
    assert_eq!(session_row(&home)["turns"], 1);
}

// ---------------------------------------------------------------- item 2 --

/// A pasted screenshot sent with no words (IMG-001: an inline base64 image
/// block, here the only block) that the agent answers opens a turn and reads
/// `[image: image/png, N KB]`; one the agent never answered opens none.
#[test]
fn an_answered_image_only_prompt_opens_a_turn_img_001() {
    let home = Home::new();
    let mut s = Session::new("b1b2c3d4-0000-4000-8000-000000000002", "/work/app");
    s.user("the login page looks off");
    s.text("msg_1", "Can you send a screenshot?");
    // 3000 base64 characters: 2250 bytes, `2 KB`.
    let png = format!("iVBORw0KGgo{}", "A".repeat(2989));
    let image = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}});
    let shot = user_blocks(&mut s, json!([image.clone()]));
    s.text(
        "msg_2",
        "The header overlaps the form: the flex container lost its gap.",
    );
    // Sent again and never answered: the next prompt follows it directly.
    user_blocks(&mut s, json!([image]));
    s.user("never mind, fixed it");
    s.text("msg_3", "Good.");
    home.write(PROJECT, &s.file_name(), &s.lines);
    let no = line_of(&s, &shot).to_string();

    assert_eq!(session_row(&home)["turns"], 3, "prompt, screenshot, prompt");
    assert_eq!(stats_total(&home, "@b1b2c3d4")["turns"], 3);

    let shown = ok(&home, &["show", "@b1b2c3d4", "--line", &no]);
    assert!(shown.contains("·t2 user.message"), "{shown}");
    assert!(shown.contains("[image: image/png, 2 KB]"), "{shown}");
    assert!(!shown.contains("no content unit"), "{shown}");
    assert!(!shown.contains("{\""), "no raw JSON: {shown}");

    let turn = ok(&home, &["show", "@b1b2c3d4", "--turn", "2"]);
    assert!(turn.starts_with("── b1b2c3d4 ·t2 user.message"), "{turn}");
    assert!(turn.contains("the flex container lost its gap"), "{turn}");

    let v = ok(&home, &["verbatim", "@b1b2c3d4"]);
    assert!(
        v.contains("── turn 2 · ")
            && v.contains("[user] [image: image/png, 2 KB]\n[assistant] The header"),
        "{v}"
    );

    // A hit on the reply pairs with the screenshot that opened its turn.
    let hits = ok_json(&home, &["search", "-F", "lost its gap", "--format", "json"]);
    let ex = &hits[0]["exchange"][0];
    assert_eq!(ex["label"], "user.message", "{hits:?}");
    assert_eq!(ex["line"].to_string(), no);
    assert_eq!(ex["text"], "[image]");
    let human = ok(&home, &["search", "-F", "lost its gap"]);
    assert!(human.contains("user.message"), "{human}");
    assert!(human.contains("\n[image: image/png, 2 KB]\n"), "{human}");
}

/// IMG-005: a prompt's `[Image #N]` markers name its images in order; the
/// render leads each image with its handle.
#[test]
fn an_image_is_described_with_its_handle_img_005() {
    let home = Home::new();
    let mut s = Session::new("c1b2c3d4-0000-4000-8000-000000000003", "/work/app");
    let jpeg = json!({"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "A".repeat(200_000)}});
    let both = user_blocks(
        &mut s,
        json!([{"type": "text", "text": "[Image #4] why is this red?"}, jpeg]),
    );
    s.text("msg_1", "A failed check.");
    home.write(PROJECT, &s.file_name(), &s.lines);
    let shown = ok(
        &home,
        &[
            "show",
            "@c1b2c3d4",
            "--line",
            &line_of(&s, &both).to_string(),
        ],
    );
    assert!(
        shown.contains("[Image #4] why is this red?\n[Image #4: image/jpeg, 146 KB]"),
        "{shown}"
    );
}

// ---------------------------------------------------------------- item 3 --

/// TURN-007/008: a session opened by a bare `/plugin:command` the model then
/// works on (the wrapper, its isMeta expansion, the replies: the corpus's
/// 99677899 shape) opens turn 1, keeps `harness.command.invocation`, and
/// `-t user` reaches its `/name`. A built-in with only local output
/// (TURN-006), and `/exit` answered only by a `<synthetic>` notice, open none.
#[test]
fn a_bare_slash_command_the_model_answers_opens_a_turn_turn_007_turn_008() {
    let home = Home::new();
    let mut s = Session::new("d1b2c3d4-0000-4000-8000-000000000004", "/work/app");
    let cmd = s.user(
        "<command-message>erk:plan-implement</command-message>\n<command-name>/erk:plan-implement</command-name>",
    );
    s.push(
        json!({"type": "user", "isMeta": true, "message": {"role": "user", "content": [
        {"type": "text", "text": "# /erk:plan-implement\n\nImplement the plan in the issue."}]}}),
    );
    s.thinking("msg_1", "Reading the plan first.");
    s.text("msg_1", "I'll implement the plan.");
    s.user("<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args></command-args>");
    s.user("<local-command-stdout>Set model to opus</local-command-stdout>");
    s.user("now run the tests");
    s.text("msg_2", "All green.");
    s.user("<command-name>/exit</command-name>\n            <command-message>exit</command-message>\n            <command-args></command-args>");
    s.user("<local-command-stdout>Goodbye!</local-command-stdout>");
    s.push(json!({"type": "assistant", "message": {"id": "msg_s", "type": "message", "role": "assistant",
        "model": "<synthetic>", "content": [{"type": "text", "text": "No response requested."}]}}));
    home.write(PROJECT, &s.file_name(), &s.lines);

    assert_eq!(
        session_row(&home)["turns"],
        2,
        "/erk:plan-implement and the prompt"
    );
    let total = stats_total(&home, "@d1b2c3d4");
    assert_eq!(total["turns"], 2, "{total}");
    assert_eq!(total["labels"]["harness.command.invocation"], 4, "{total}");

    let turn = ok(&home, &["show", "@d1b2c3d4", "--turn", "1"]);
    assert!(
        turn.starts_with("── d1b2c3d4 ·t1 harness.command.invocation"),
        "{turn}"
    );
    assert!(turn.contains("/erk:plan-implement\n"), "{turn}");
    assert!(turn.contains("I'll implement the plan."), "{turn}");

    let hits = ok_json(
        &home,
        &[
            "search",
            "-F",
            "erk:plan-implement",
            "-t",
            "user",
            "--format",
            "json",
        ],
    );
    let m: Vec<&Value> = hits.iter().filter(|v| v["type"] == "match").collect();
    assert_eq!(m.len(), 1, "{hits:?}");
    assert_eq!(m[0]["line"], line_of(&s, &cmd));
    assert_eq!(m[0]["turn"], 1);

    let v = ok(&home, &["verbatim", "@d1b2c3d4"]);
    assert!(!v.contains("before the first prompt"), "{v}");
    assert!(v.contains("── turn 1 · "), "{v}");
    assert!(v.contains("[command] /erk:plan-implement\n"), "{v}");
}

// ---------------------------------------------------------------- item 4 --

/// Node's `JSON.stringify` writes a string cut inside an emoji with its lone
/// UTF-16 half escaped (`\ud83c`). Such a tool_result reads with U+FFFD in
/// place of the half (it was empty); user and assistant text holding one are
/// records (they were malformed); stats counts the lines it repaired; and the
/// raw-byte prefilter still finds the text on either side of the escape.
#[test]
fn lone_surrogate_escapes_read_as_replacement_characters() {
    let home = Home::new();
    let mut s = Session::new("e1b2c3d4-0000-4000-8000-000000000005", "/work/app");
    s.user("PLACEHOLDER_USER");
    s.tool_use(
        "msg_1",
        "toolu_1",
        "Bash",
        json!({"command": "tail -c 40 build.log"}),
    );
    s.tool_result("toolu_1", "PLACEHOLDER_RESULT", false, None);
    s.text("msg_2", "PLACEHOLDER_REPLY");
    let raw = String::from_utf8(common::jsonl(&s.lines))
        .unwrap()
        .replace("PLACEHOLDER_USER", r"fix the \ud83d deploy banner")
        .replace("PLACEHOLDER_RESULT", r"warning: unused import \ud83c")
        .replace("PLACEHOLDER_REPLY", r"\udf89 Done: the banner renders.");
    home.write_raw(PROJECT, &s.file_name(), raw.as_bytes());

    let total = stats_total(&home, "@e1b2c3d4");
    assert_eq!(total["malformed_lines"], 0, "{total}");
    // The user and assistant records (the tool result's line reads without
    // repair; its text is repaired when decoded).
    assert_eq!(total["repaired_surrogates"], 2, "{total}");
    assert_eq!(total["labels"]["user.message"], 1, "{total}");
    assert_eq!(total["labels"]["agent.message"], 1, "{total}");
    assert_eq!(total["turns"], 1);
    let human = ok(&home, &["stats", "@e1b2c3d4"]);
    assert!(human.contains("repaired    2 lines"), "{human}");

    for (pat, label, text) in [
        (
            "unused import",
            "agent.tool.result",
            "warning: unused import \u{FFFD}",
        ),
        ("fix the", "user.message", "fix the \u{FFFD} deploy banner"),
        (
            "deploy banner",
            "user.message",
            "fix the \u{FFFD} deploy banner",
        ),
        (
            "Done: the",
            "agent.message",
            "\u{FFFD} Done: the banner renders.",
        ),
    ] {
        let hits = ok_json(&home, &["search", "-F", pat, "--format", "json"]);
        assert_eq!(hits[0]["label"], label, "{pat}: {hits:?}");
        assert_eq!(hits[0]["text"], text, "{pat}");
    }
    // A pattern across the escape: `.` matches the replacement character,
    // and so does U+FFFD itself (on disk it is the escape).
    for pat in ["fix the . deploy", "fix the \u{FFFD} deploy"] {
        let hits = ok_json(&home, &["search", pat, "--format", "json"]);
        assert_eq!(hits[0]["type"], "match", "{pat}: {hits:?}");
    }

    let shown = ok(&home, &["show", "@e1b2c3d4", "--line", "3"]);
    assert!(shown.contains("warning: unused import \u{FFFD}"), "{shown}");
}

// --------------------------------------------------------------- item 17 --

/// A 1.0.x main file holds its Task subagents' records inline
/// (`isSidechain:true`, each chain rooted at a parentless spawn prompt: the
/// corpus's a4e5b271 shape). `list` and `stats` count those lanes as `agents`
/// lists them.
#[test]
fn inline_sidechain_lanes_count_in_list_and_stats_as_in_agents() {
    let home = Home::new();
    let mut s = Session::new("f1b2c3d4-0000-4000-8000-000000000006", "/work/app");
    s.version = "1.0.71".into();
    s.user("research two libraries in parallel");
    let spawn = |s: &mut Session, id: &str, prompt: &str| {
        s.tool_use(
            "msg_t",
            id,
            "Task",
            json!({"description": prompt, "prompt": prompt, "subagent_type": "general-purpose"}),
        );
        let main_last = s.lines.last().unwrap()["uuid"].clone();
        s.sidechain = true;
        // The chain's root has no parent (REC-031's 1.0.x seed).
        let seed = s.user(prompt);
        let i = s.lines.len() - 1;
        s.lines[i]["parentUuid"] = Value::Null;
        s.text("msg_c", "Found it.");
        s.sidechain = false;
        s.tool_result(id, "Found it.", false, None);
        let last = s.lines.len() - 1;
        s.lines[last]["parentUuid"] = main_last;
        seed
    };
    spawn(&mut s, "toolu_a", "Look up serde");
    spawn(&mut s, "toolu_b", "Look up rayon");
    s.text("msg_z", "Both are documented.");
    home.write(PROJECT, &s.file_name(), &s.lines);

    let agents = ok(&home, &["agents", "@f1b2c3d4"]);
    assert_eq!(agents.matches("└─ inline:").count(), 2, "{agents}");
    let row = session_row(&home);
    assert_eq!(row["lanes"], 2, "{row}");
    assert_eq!(row["inline_lanes"], 2, "{row}");
    let total = stats_total(&home, "@f1b2c3d4");
    assert_eq!(total["lanes"], 2, "{total}");
    assert_eq!(total["inline_lanes"], 2, "{total}");
    let list = ok(&home, &["list", "--full"]);
    assert!(list.contains("  2 lanes  "), "{list}");
}

// ------------------------------------------- item 1 audit: first block decides --

/// Parallel calls answered in one carrier: an AskUserQuestion answer beside
/// another tool's result. The answer is the result that reads as one
/// (TURN-009), not the first block; a failed sibling does not unmake it
/// (TURN-010 gates on the answer's own result), and the carrier opens its turn.
#[test]
fn an_answer_beside_another_result_is_the_answer_turn_009_turn_010() {
    let home = Home::new();
    let mut s = Session::new("a9b2c3d4-0000-4000-8000-000000000007", "/work/app");
    s.user("set up the database");
    s.assistant(
        "msg_1",
        &[
            json!({"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": "ls db"}}),
            json!({"type": "tool_use", "id": "toolu_q", "name": "AskUserQuestion", "input": {"questions": [{"question": "Which engine?"}]}}),
        ],
    );
    let echo = json!({"questions": [{"question": "Which engine?"}], "answers": {"Which engine?": "sqlite"}});
    for (bash_error, bash_text) in [(false, "schema.sql"), (true, "ls: db: No such file")] {
        let mut rec = json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_b", "content": bash_text, "is_error": bash_error},
            {"type": "tool_result", "tool_use_id": "toolu_q", "content": "User has answered your questions: \"Which engine?\"=\"sqlite\". You can now continue."}
        ]}});
        rec["toolUseResult"] = echo.clone();
        s.push(rec);
        s.text("msg_2", "Using sqlite.");
    }
    home.write(PROJECT, &s.file_name(), &s.lines);
    let hits = ok_json(
        &home,
        &["search", "", "-t", "user.answer", "--format", "json"],
    );
    let m: Vec<&Value> = hits.iter().filter(|v| v["type"] == "match").collect();
    assert_eq!(m.len(), 2, "{hits:?}");
    for h in &m {
        assert_eq!(h["tool_use_id"], "toolu_q", "{h}");
        assert_eq!(h["block"], 1);
    }
    assert_eq!(m[0]["turn"], 2);
    assert_eq!(m[1]["turn"], 3);
    assert_eq!(stats_total(&home, "@a9b2c3d4")["turns"], 3);
}
