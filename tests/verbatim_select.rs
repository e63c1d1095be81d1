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

/// A compaction as Claude Code writes one (CMP-018): the boundary, then on the
/// very next line the summary, a user record with string content whose
/// user-messages section lists the prompts of its window (CMP-009).
fn compaction(s: &mut Session, prompts: &[&str]) {
    s.system(
        "compact_boundary",
        json!({"content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 167000}}),
    );
    let bullets: Vec<String> = prompts.iter().map(|p| format!("   - \"{p}\"")).collect();
    let body = format!(
        "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n1. Primary Request and Intent:\n   The user is hardening the fetcher.\n\n6. All user messages:\n{}\n\n7. Pending Tasks:\n   - none\n\n9. Optional Next Step:\n   Continue with the next request.\n\nIf you need specific details from before compaction, read the full transcript at /home/u/.claude/projects/-w-app/x.jsonl\nContinue the conversation from where it left off without asking the user any further questions.",
        bullets.join("\n")
    );
    s.push(
        json!({"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
        "message": {"role": "user", "content": body}}),
    );
}

/// Six turns across two compactions: turns 1 and 3 are long working turns the
/// summaries keep one bullet of; turns 2 and 4 are a short prompt and reply a
/// bullet holds nearly whole; turns 5 and 6 come after the newest summary.
fn two_compactions() -> (Home, PathBuf) {
    let home = Home::new();
    let mut s = Session::new("c0110000-0000-4000-8000-000000000011", "/w/app");
    long_turn(&mut s, "retry", 900);
    s.user("ok commit the retry loop");
    s.text("msg_c1", "Committed.");
    compaction(
        &mut s,
        &[
            "retry: why does the import fail?",
            "ok commit the retry loop",
        ],
    );
    long_turn(&mut s, "timeout", 900);
    s.user("looks good, commit the timeout too");
    s.text("msg_c2", "Committed.");
    compaction(
        &mut s,
        &[
            "timeout: why does the import fail?",
            "looks good, commit the timeout too",
        ],
    );
    s.user("write the changelog entry");
    s.text(
        "msg_5",
        "Added a changelog entry for the retry loop and the timeout.",
    );
    s.user("what is next?");
    s.text("msg_6", "The docs.");
    let p = home.write("-w-app", &s.file_name(), &s.lines);
    (home, p)
}

fn kept(rows: &[Value]) -> Vec<u64> {
    rows.iter()
        .filter(|r| r["type"] == "turn")
        .map(|r| r["turn"].as_u64().unwrap())
        .collect()
}

/// CMP-011: a summary is a turn member, so the walk passes through it; the
/// cap stops it before a turn that would take it back across more than N.
/// 0 keeps only what followed the newest summary, 1 reaches back to what the
/// newest summarised and no further.
#[test]
fn max_compactions_caps_how_far_back_the_walk_crosses_cmp_011() {
    let (_home, p) = two_compactions();
    let all = rows(&p, &[]);
    assert_eq!(kept(&all), [1, 2, 3, 4, 5, 6]);
    let s = all.last().unwrap();
    assert_eq!(s["compaction_summaries_spanned"], 2);
    assert_eq!(s["stopped_by"], Value::Null);
    assert_eq!(s["max_compactions"], Value::Null);
    for (n, want, spanned) in [
        (0, vec![5, 6], 0),
        (1, vec![3, 4, 5, 6], 1),
        (2, vec![1, 2, 3, 4, 5, 6], 2),
    ] {
        let r = rows(&p, &["--max-compactions", &n.to_string()]);
        assert_eq!(kept(&r), want, "--max-compactions {n}");
        let s = r.last().unwrap();
        assert_eq!(s["compaction_summaries_spanned"], spanned, "{s}");
        assert_eq!(s["compaction_summaries_total"], 2);
        assert_eq!(s["max_compactions"], n);
        let by = if n < 2 {
            json!("max-compactions")
        } else {
            Value::Null
        };
        assert_eq!(s["stopped_by"], by, "{s}");
    }
    let (text, err, code) = run(&p, &["--max-compactions", "0"]);
    assert_eq!(code, 0);
    assert!(
        text.starts_with("── turn 5") && !text.contains("compaction summary"),
        "{text}"
    );
    assert!(
        err.contains("turns 5–6 of 6 kept; turns before 5 left out (turn 4 reaches back across more compaction summaries than --max-compactions 0 allows)"),
        "{err}"
    );
    // Sliced the same way: the cap holds for the hook's slices too.
    let r = rows(
        &p,
        &[
            "--max-compactions",
            "1",
            "--slices",
            "3",
            "--window",
            "2000",
        ],
    );
    assert_eq!(kept(&r), [3, 4, 5, 6]);
}

/// CMP-009: a summary carries a turn by volume: a short turn its bullet holds
/// nearly whole is carried more than a long working turn it keeps one line
/// of. With `--prefer least-carried` the budget goes to the turns carried
/// least (those after the newest summary, which none carried, first), each
/// while it fits whole, and they print in order; newest-first spends it on
/// the short, well-carried turns 2 and 4 and leaves turn 1 out.
#[test]
fn prefer_least_carried_spends_the_budget_on_what_the_summaries_lost_cmp_009() {
    let (_home, p) = two_compactions();
    let all = rows(&p, &[]);
    let row = |n: u64| all.iter().find(|r| r["turn"] == n).unwrap().clone();
    let share = |n: u64| row(n)["summary_carried"].as_f64();
    let chars = |n: u64| row(n)["chars"].as_u64().unwrap() as usize;
    assert_eq!(share(5), None, "after the newest summary: none covers it");
    assert_eq!(share(6), None);
    for (short, long) in [(2, 1), (4, 3)] {
        let (s, l) = (share(short).unwrap(), share(long).unwrap());
        assert!(
            s > 0.1 && l > 0.0 && s > 4.0 * l,
            "turn {short}: {s}, turn {long}: {l}"
        );
    }
    // Room for 5, 6, 3 and 1, not for 2 or 4 besides.
    let budget = chars(1) + chars(3) + chars(5) + chars(6) + 10;
    assert!(budget < chars(1) + chars(3) + chars(5) + chars(6) + chars(2).min(chars(4)));
    let b = budget.to_string();
    let least = rows(&p, &["--budget", &b, "--prefer", "least-carried"]);
    assert_eq!(kept(&least), [1, 3, 5, 6], "printed in order");
    let s = least.last().unwrap();
    assert_eq!(s["prefer"], "least-carried");
    assert_eq!(s["turns_skipped"], json!([4, 2]));
    assert_eq!(s["stopped_by"], "budget");
    let newest = rows(&p, &["--budget", &b]);
    assert_eq!(
        kept(&newest),
        [2, 3, 4, 5, 6],
        "the default walks back from the end"
    );
    let (text, err, _) = run(&p, &["--budget", &b, "--prefer", "least-carried"]);
    assert!(text.find("── turn 1").unwrap() < text.find("── turn 3").unwrap());
    assert!(!text.contains("ok commit the retry loop"), "{text}");
    assert!(
        err.contains("4 of 6 turns kept, those the compaction summaries carried least of; turns 2, 4 left out"),
        "{err}"
    );
}
