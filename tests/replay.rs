//! REC-091: after a resume, Claude Code writes an ai-title / mode /
//! permission-mode triple and re-appends the prior history into the same
//! file, the copies differing only by an added `slug`. A replayed prompt is
//! the same prompt: it reopens its original's turn, never a new one, in every
//! command that numbers turns.

use crate::common;

use common::{first_json, ok_json, Home, Session};
use serde_json::{json, Value};

/// Two typed prompts; the first turn's history is replayed between them.
fn resumed() -> (Home, Session) {
    let mut s = Session::new("9e1c0d2e-1111-4222-8333-944455556666", "/w/r");
    s.user("first prompt alpha");
    s.text("msg_01", "first reply");
    s.tool_use("msg_02", "toolu_01", "Bash", json!({"command": "echo hi"}));
    s.tool_result("toolu_01", "hi", false, None);
    s.text("msg_03", "done with alpha");
    let history: Vec<Value> = s.lines.clone();
    s.raw(json!({"type": "ai-title", "aiTitle": "T", "sessionId": s.id}));
    s.raw(json!({"type": "mode", "mode": "normal", "sessionId": s.id}));
    s.raw(json!({"type": "permission-mode", "permissionMode": "default", "sessionId": s.id}));
    for mut rec in history {
        rec["slug"] = json!("happy-resumed-slug");
        s.raw(rec);
    }
    s.user("second prompt beta");
    s.text("msg_04", "second reply");
    let home = Home::new();
    home.write("-w-r", &s.file_name(), &s.lines);
    (home, s)
}

#[test]
fn a_replayed_prompt_reopens_its_turn_in_every_command_rec_091() {
    let (home, _) = resumed();

    let total = first_json(home.cmd().args(["stats", "--format", "json"]), "total");
    assert_eq!(total["turns"], 2, "{total}");
    assert_eq!(total["genuine_user_turns"], 2, "{total}");

    let row = first_json(
        home.cmd().args(["list", "--full", "--format", "json"]),
        "session",
    );
    assert_eq!(row["turns"], 2, "{row}");

    // Both copies of the first prompt are turn 1 and each has its reply;
    // the second prompt is turn 2.
    let hits =
        ok_json(
            home.cmd()
                .args(["search", "-t", "user.message", "prompt", "--format", "json"]),
        );
    let turns: Vec<(u64, u64, String)> = hits
        .iter()
        .filter(|h| h["type"] == "match")
        .map(|h| {
            let reply = h["exchange"][0]["text"].as_str().unwrap_or("").to_string();
            (
                h["line"].as_u64().unwrap(),
                h["turn"].as_u64().unwrap(),
                reply,
            )
        })
        .collect();
    assert_eq!(
        turns,
        [
            (1, 1, "done with alpha".to_string()),
            (9, 1, "done with alpha".to_string()),
            (14, 2, "second reply".to_string())
        ]
    );

    // verbatim rebuilds two turns, the first one once.
    let out = home.cmd().args(["verbatim", "@9e1c"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("first prompt alpha").count(), 1, "{text}");
    assert_eq!(text.matches("second prompt beta").count(), 1, "{text}");
    let summary = first_json(
        home.cmd().args(["verbatim", "@9e1c", "--format", "json"]),
        "summary",
    );
    assert_eq!(summary["turns_total"], 2, "{summary}");

    // show --turn 2 is the new prompt and its reply, not the replay.
    let units = ok_json(
        home.cmd()
            .args(["show", "@9e1c", "--turn", "2", "--format", "json"]),
    );
    let lines: Vec<u64> = units
        .iter()
        .filter(|u| u["type"] == "unit")
        .map(|u| u["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [14, 15]);
}
