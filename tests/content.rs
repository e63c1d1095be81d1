//! Content the record model used to lose or misplace (issue 27): lone
//! surrogate escapes. Every record here copies a real shape from the corpus (or, where the
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

/// The total of `stats --format json`.
fn stats_total(home: &Home, target: &str) -> Value {
    ok_json(home, &["stats", target, "--format", "json"])
        .into_iter()
        .find(|v| v["type"] == "total")
        .expect("a total")
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
