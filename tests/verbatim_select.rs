//! `csift verbatim`'s choices when the budget forces one, on real-shaped
//! compactions: the longest assistant message of a turn is the one kept
//! (CMP-010), `--max-compactions N` caps how many compactions the walk
//! reaches back across (CMP-011), and `--prefer least-carried` spends the
//! budget on the turns the compaction summaries carried least of (CMP-009).

use crate::common;

use std::path::PathBuf;

use common::{json_lines, Home, Session};
use serde_json::{json, Value};

fn units(s: &str) -> usize {
    s.encode_utf16().count()
}

fn run(p: &PathBuf, args: &[&str]) -> (String, String, i32) {
    let out = common::csift()
        .arg("verbatim")
        .arg(p)
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn rows(p: &PathBuf, args: &[&str]) -> Vec<Value> {
    let (out, err, code) = run(p, &[args, &["--format", "json"]].concat());
    assert!(code <= 1, "{err}");
    json_lines(out.as_bytes())
}

/// A long working turn as Claude Code writes one: the model narrates step by
/// step in short messages between tool calls, states its diagnosis once at
/// length in the middle, and ends on a short line (CMP-010: the summary keeps
/// at most one assistant message, not reliably the last).
fn long_turn(s: &mut Session, tag: &str, diagnosis: usize) -> String {
    s.user(&format!("{tag}: why does the import fail?"));
    let mut lines = Vec::new();
    for i in 0..6 {
        s.text(
            &format!("msg_{tag}_{i}a"),
            &format!("Let me look at module {i} of {tag}: its loader, its imports and the paths it resolves, one file at a time."),
        );
        let id = format!("toolu_{tag}_{i}");
        s.tool_use(
            &format!("msg_{tag}_{i}a"),
            &id,
            "Read",
            json!({"file_path": format!("/w/app/m{i}.rs")}),
        );
        s.tool_result(&id, &format!("     1\tmod m{i};"), false, None);
        if i == 3 {
            let long = format!(
                "DIAGNOSIS {tag}: {}",
                "the loader resolves paths against the old root; ".repeat(diagnosis / 49 + 1)
            );
            lines.push(s.text(&format!("msg_{tag}_{i}b"), &long));
        }
    }
    s.text(&format!("msg_{tag}_end"), &format!("Done with {tag}."));
    lines.remove(0)
}

/// CMP-010: a turn too long for the budget keeps its longest assistant
/// message whole, not its last; the shorter ones are left out with one marker
/// that counts them, names their lines and the command printing the turn.
#[test]
fn a_turn_that_must_shrink_keeps_its_longest_assistant_message_cmp_010() {
    let home = Home::new();
    let mut s = Session::new("c0010000-0000-4000-8000-000000000010", "/w/app");
    long_turn(&mut s, "old", 500);
    long_turn(&mut s, "new", 1500);
    let p = home.write("-w-app", &s.file_name(), &s.lines);

    let (whole, _, _) = run(&p, &["--budget", "100000"]);
    let newest = &whole[whole.find("── turn 2").unwrap()..];
    let budget = units(newest) - 400;
    let b = budget.to_string();
    let (text, err, code) = run(&p, &["--budget", &b]);
    assert_eq!(code, 0, "{err}");
    assert!(units(&text) <= budget);
    assert!(
        text.starts_with("── turn 2"),
        "only the newest turn: {text}"
    );
    assert!(
        text.contains("DIAGNOSIS new"),
        "the longest is kept: {text}"
    );
    let diag = newest
        .lines()
        .find(|l| l.contains("DIAGNOSIS new"))
        .unwrap();
    assert!(text.contains(diag), "whole");
    assert!(
        !text.contains("Done with new."),
        "not the last over the longest: {text}"
    );
    assert!(text.contains("[user] new: why does the import fail?"));
    assert_eq!(
        text.matches("[tool] Read").count(),
        6,
        "every tool line stays"
    );
    let marker = text
        .lines()
        .find(|l| l.contains("csift verbatim:"))
        .expect("one marker");
    assert!(
        marker.contains("of 8 left out, the longest kept"),
        "{marker}"
    );
    assert!(
        marker.contains("--turn 2` prints the turn whole"),
        "{marker}"
    );
    // The JSON row counts what the marker says was left out.
    let r = rows(&p, &["--budget", &b]);
    let t = r.iter().find(|r| r["type"] == "turn").unwrap();
    assert_eq!(t["cut"], true);
    let n = t["cut_chars"].as_u64().unwrap();
    assert!(
        marker.contains(&format!("verbatim: {n} characters of this turn cut")),
        "{marker}"
    );
}
