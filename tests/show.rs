//! `csift show`: addresses round-trip byte-for-byte over the real corpus, turn
//! numbers agree with search's, misses fail loudly, copies of a uuid are all shown,
//! and branch points count conversation children only.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::{corpus, csift, json_lines, transcripts, Home, Session};
use serde_json::{json, Value};

/// The `@id` that addresses exactly this file: a lane by its agent id, a main
/// transcript by its session id.
fn address(path: &Path) -> String {
    let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
    match stem.strip_prefix("agent-") {
        Some(a) => format!("@{a}"),
        None => format!("@{stem}"),
    }
}

fn physical_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if bytes.last() == Some(&b'\n') || bytes.is_empty() {
        v.pop();
    }
    v
}

/// `csift show --claude-home HOME ARGS…` on a temp home (the flag goes after the subcommand).
fn run(home: &Home, args: &[&str]) -> assert_cmd::assert::Assert {
    show(home.path(), args)
}

fn show(home: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    csift()
        .arg("show")
        .arg("--claude-home")
        .arg(home)
        .args(args)
        .assert()
}

#[test]
fn raw_lines_round_trip_over_the_whole_corpus_rec_094() {
    let Some(home) = corpus() else { return };
    let files = transcripts(&home);
    assert!(files.len() > 10, "corpus too small: {}", files.len());
    let mut singles = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let lines = physical_lines(&bytes);
        let id = address(f);
        // Byte for byte: a file whose last line has no newline prints none there.
        let expected = bytes.clone();
        let unterminated = bytes.last() != Some(&b'\n');
        let range = format!("1..{}", lines.len());
        let out = show(&home, &[&id, "--line", &range, "--raw"]).success();
        assert!(
            out.get_output().stdout == expected,
            "{}: --line {range} --raw differs from the file bytes",
            f.display()
        );
        // A sample of single lines: first, last, a middle one, and from the end.
        let n = lines.len();
        for (arg, want) in [
            ("1".to_string(), lines[0]),
            (n.to_string(), lines[n - 1]),
            ((n / 2 + 1).to_string(), lines[n / 2]),
            ("-1".to_string(), lines[n - 1]),
        ] {
            let out = show(&home, &[&id, "--line", &arg, "--raw"]).success();
            let mut w = want.to_vec();
            let last = std::ptr::eq(want, lines[n - 1]);
            if !(last && unterminated) {
                w.push(b'\n');
            }
            assert!(
                out.get_output().stdout == w,
                "{}: --line {arg}",
                f.display()
            );
            singles += 1;
        }
    }
    assert!(singles >= 4 * files.len());
}

#[test]
fn uuid_round_trip_prints_every_copy_rec_091_092() {
    let Some(home) = corpus() else { return };
    let mut checked = 0;
    for f in transcripts(&home) {
        let bytes = std::fs::read(&f).unwrap();
        let mut by_uuid: BTreeMap<String, Vec<&[u8]>> = BTreeMap::new();
        for l in physical_lines(&bytes) {
            if let Ok(v) = serde_json::from_slice::<Value>(l) {
                if let Some(u) = v.get("uuid").and_then(Value::as_str) {
                    by_uuid.entry(u.to_string()).or_default().push(l);
                }
            }
        }
        // Every duplicated uuid, plus a few single ones.
        let pick: Vec<&String> = by_uuid
            .iter()
            .filter(|(_, v)| v.len() > 1)
            .map(|(k, _)| k)
            .take(5)
            .chain(by_uuid.keys().step_by(by_uuid.len() / 3 + 1).take(3))
            .collect();
        for u in pick {
            let out = show(&home, &[&address(&f), "--uuid", u, "--raw"]).success();
            let mut want = Vec::new();
            for l in &by_uuid[u] {
                want.extend_from_slice(l);
                want.push(b'\n');
            }
            // The file's last line, printed last, keeps its missing newline.
            let end = bytes.as_ptr_range().end;
            if bytes.last() != Some(&b'\n')
                && by_uuid[u]
                    .last()
                    .is_some_and(|l| l.as_ptr_range().end == end)
            {
                want.pop();
            }
            assert!(
                out.get_output().stdout == want,
                "{}: --uuid {u}",
                f.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} uuids checked");
}

/// `(line, block, label)` of every unit search reports, per turn.
fn search_units(home: &Path, file: &Path) -> BTreeMap<u64, BTreeSet<(u64, Option<u64>, String)>> {
    let out = csift()
        .args([
            "search",
            "",
            "--format",
            "json",
            "--no-exchange",
            "--claude-home",
        ])
        .arg(home)
        .arg(file)
        .output()
        .unwrap();
    let mut by_turn: BTreeMap<u64, BTreeSet<_>> = BTreeMap::new();
    for v in json_lines(&out.stdout) {
        if v["type"] != "match" {
            continue;
        }
        let Some(t) = v["turn"].as_u64() else {
            continue;
        };
        by_turn.entry(t).or_default().insert(key(&v));
    }
    by_turn
}

fn key(v: &Value) -> (u64, Option<u64>, String) {
    (
        v["line"].as_u64().unwrap(),
        v["block"].as_u64(),
        v["label"].as_str().unwrap().to_string(),
    )
}

/// `show --turn` returns every unit search numbers with that turn, on the
/// whole corpus. (It was named for the stop_hook_summary/turn_duration pairing
/// claim, which it does not test; `a_turn_holds_user_and_assistant_records_only`
/// pins what --turn does with those records.)
#[test]
fn turn_fetch_agrees_with_search_turn_numbers() {
    let Some(home) = corpus() else { return };
    let mut turns_checked = 0;
    for f in transcripts(&home) {
        let by_turn = search_units(&home, &f);
        if by_turn.is_empty() {
            continue;
        }
        // One call for every turn: each unit must come back with search's turn.
        let out = show(&home, &[&address(&f), "--turn", "0..", "--format", "json"]).success();
        let mut shown: BTreeMap<(u64, Option<u64>, String), u64> = BTreeMap::new();
        for v in json_lines(&out.get_output().stdout) {
            if v["type"] == "unit" {
                shown.insert(key(&v), v["turn"].as_u64().unwrap());
            }
        }
        for (t, units) in &by_turn {
            for u in units {
                assert_eq!(
                    shown.get(u),
                    Some(t),
                    "{}: unit {u:?} of turn {t}",
                    f.display()
                );
            }
        }
        // And per turn, for the first and the last.
        for t in [by_turn.keys().next(), by_turn.keys().last()]
            .into_iter()
            .flatten()
        {
            let out = show(
                &home,
                &[&address(&f), "--turn", &t.to_string(), "--format", "json"],
            )
            .success();
            let got: BTreeSet<_> = json_lines(&out.get_output().stdout)
                .iter()
                .filter(|v| v["type"] == "unit")
                .inspect(|v| assert_eq!(v["turn"].as_u64(), Some(*t)))
                .map(key)
                .collect();
            assert!(by_turn[t].is_subset(&got), "{}: turn {t}", f.display());
            turns_checked += 1;
        }
    }
    assert!(turns_checked > 20, "only {turns_checked} turns checked");
}

fn sample_session() -> (Home, PathBuf, Vec<String>) {
    let home = Home::new();
    let mut s = Session::new("11111111-2222-4333-8444-555555555555", "/w/p");
    let mut uuids = vec![s.user("first prompt")];
    uuids.push(s.text("msg_1", "first reply"));
    uuids.push(s.system("turn_duration", json!({"durationMs": 1200})));
    uuids.push(s.user("second prompt"));
    uuids.push(s.tool_use(
        "msg_2",
        "toolu_1",
        "Bash",
        json!({"command": "make test", "description": "run"}),
    ));
    uuids.push(s.tool_result(
        "toolu_1",
        "ok\nboom",
        false,
        Some(json!({"stdout": "all ok", "stderr": "boom warning", "interrupted": false})),
    ));
    uuids.push(s.tool_use(
        "msg_3",
        "toolu_2",
        "Read",
        json!({"file_path": "/w/p/a.rs"}),
    ));
    uuids.push(s.tool_result(
        "toolu_2",
        "1\tfn a() {}",
        false,
        Some(json!({"type": "text", "file": {"filePath": "/w/p/a.rs", "content": "fn a() {}", "numLines": 1, "startLine": 1, "totalLines": 1}})),
    ));
    uuids.push(s.thinking("msg_4", "pondering deeply"));
    uuids.push(s.text("msg_4", "second reply"));
    let path = home.write("-w-p", &s.file_name(), &s.lines);
    (home, path, uuids)
}

#[test]
fn rendering_splits_bash_streams_and_shows_read_files() {
    let (home, _, _) = sample_session();
    let out = run(&home, &["@11111111", "--turn", "2"]).success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    for want in [
        "·t2 user.message",
        "second prompt",
        "agent.tool.use Bash",
        "$ make test",
        "stdout:\nall ok",
        "stderr:\nboom warning",
        "/w/p/a.rs (lines 1..1 of 1)\nfn a() {}",
        "agent.thinking",
        "pondering deeply",
        ":10",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    assert!(
        !text.contains("first prompt"),
        "turn 1 leaked into turn 2:\n{text}"
    );
}

#[test]
fn a_turn_holds_user_and_assistant_records_only_qt_024() {
    let (home, _, uuids) = sample_session();
    let out = run(&home, &["@11111111", "--turn", "1", "--format", "json"]).success();
    let rows = json_lines(&out.get_output().stdout);
    let lines: Vec<u64> = rows
        .iter()
        .filter(|v| v["type"] == "unit")
        .map(|v| v["line"].as_u64().unwrap())
        .collect();
    assert_eq!(
        lines,
        vec![1, 2],
        "the turn_duration line is no turn member"
    );
    // The same line is reachable by address.
    let out = run(
        &home,
        &["@11111111", "--uuid", &uuids[2], "--format", "json"],
    )
    .success();
    let rows = json_lines(&out.get_output().stdout);
    assert_eq!(rows[0]["label"], "harness.meta.turn");
    assert_eq!(rows.last().unwrap()["type"], "summary");
}

#[test]
fn label_selector_narrows_the_units() {
    let (home, _, _) = sample_session();
    let out = run(
        &home,
        &["@11111111", "-t", "agent.tool.result", "--format", "json"],
    )
    .success();
    let rows: Vec<Value> = json_lines(&out.get_output().stdout)
        .into_iter()
        .filter(|v| v["type"] == "unit")
        .collect();
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|v| v["label"] == "agent.tool.result"));
    assert_eq!(rows[0]["tool_name"], "Bash");
}

/// `-t` narrows `--raw` as it narrows the rendered form ("Addresses combine as
/// a union; -t then narrows to labels"): raw printed every addressed line.
#[test]
fn label_selector_narrows_raw_lines_too() {
    let (home, path, _) = sample_session();
    let bytes = std::fs::read(&path).unwrap();
    let lines = physical_lines(&bytes);
    let out = run(
        &home,
        &[
            "@11111111",
            "--turn",
            "2",
            "-t",
            "agent.tool.result",
            "--raw",
        ],
    )
    .success();
    let got = out.get_output().stdout.clone();
    let want: Vec<u8> = [lines[5], lines[7]]
        .iter()
        .flat_map(|l| [l.to_vec(), b"\n".to_vec()].concat())
        .collect();
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want)
    );
    // An addressed line holding no unit of the label prints nothing (exit 1).
    run(&home, &["@11111111", "--line", "2", "-t", "user", "--raw"])
        .code(1)
        .stdout("");
}

#[test]
fn every_miss_is_named_and_fails_rec_093() {
    let (home, _, _) = sample_session();
    let out = run(
        &home,
        &[
            "@11111111",
            "--line",
            "99,3",
            "--turn",
            "9",
            "--uuid",
            "no-such-uuid",
            "--raw",
        ],
    )
    .code(2);
    let o = out.get_output();
    assert!(
        o.stdout.is_empty(),
        "nothing is printed when an address misses"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    for want in [
        "no such record(s)",
        "L99 (file has 10 lines)",
        "turn 9",
        "uuid no-such-uuid",
    ] {
        assert!(err.contains(want), "missing {want:?} in {err}");
    }
    // A range is clamped: 8..99 yields lines 8-10.
    let out = run(&home, &["@11111111", "--line", "8..99", "--raw"]).success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout)
            .lines()
            .count(),
        3
    );
    // A range wholly beyond the file is still a miss.
    run(&home, &["@11111111", "--line", "50..60"]).code(2);
}

#[test]
fn duplicated_uuid_shows_every_copy_marked_rec_092() {
    let home = Home::new();
    let mut s = Session::new("22222222-2222-4333-8444-555555555555", "/w/q");
    let u = s.user("the prompt");
    s.text("msg_1", "the reply");
    // A resume replay: the same record again, plus a slug key (REC-091).
    let mut copy = s.lines[0].clone();
    copy["slug"] = json!("happy-otter");
    s.raw(copy);
    home.write("-w-q", &s.file_name(), &s.lines);
    let out = run(&home, &["@22222222", "--uuid", &u]).success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("[copy 1/2 of this uuid: L1 L3]"), "{text}");
    assert!(text.contains("[copy 2/2 of this uuid: L1 L3]"), "{text}");
    let out = run(&home, &["@22222222", "--uuid", &u, "--format", "json"]).success();
    let units: Vec<Value> = json_lines(&out.get_output().stdout)
        .into_iter()
        .filter(|v| v["type"] == "unit")
        .collect();
    assert_eq!(units.len(), 2);
    assert_eq!(
        (units[1]["copy"].as_u64(), units[1]["copies"].as_u64()),
        (Some(2), Some(2))
    );
    let out = run(&home, &["@22222222", "--uuid", &u, "--raw"]).success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout)
            .lines()
            .count(),
        2
    );
}

#[test]
fn line_numbers_address_the_main_transcript_unless_a_lane_is_named_rec_094() {
    let home = Home::new();
    let sid = "33333333-2222-4333-8444-555555555555";
    let mut main = Session::new(sid, "/w/r");
    main.user("main prompt");
    home.write("-w-r", &main.file_name(), &main.lines);
    let mut lane = Session::lane(sid, "/w/r", "a0b1c2d3e4f5");
    lane.user("lane prompt");
    home.write(
        "-w-r",
        &format!("{sid}/subagents/agent-a0b1c2d3e4f5.jsonl"),
        &lane.lines,
    );
    let out = run(&home, &["@33333333", "--line", "1"]).success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("main prompt") && !text.contains("lane prompt"),
        "{text}"
    );
    let out = run(&home, &["@a0b1c2d3e4f5", "--line", "1"]).success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("lane prompt") && !text.contains("main prompt"),
        "{text}"
    );
    // Without an address, both transcripts are shown.
    let out = run(&home, &["@33333333"]).success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("lane prompt") && text.contains("main prompt"),
        "{text}"
    );
}

#[test]
fn branch_points_count_conversation_children_only_misc_006_rec_033() {
    let home = Home::new();
    let mut s = Session::new("44444444-2222-4333-8444-555555555555", "/w/s");
    let root = s.user("start");
    let a1 = s.tool_use("msg_1", "toolu_a", "Read", json!({"file_path": "/x"}));
    // Parallel tool results share a parent by construction: not a fork.
    s.push(
        json!({"type": "user", "parentUuid": a1, "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "x"}]}}),
    );
    s.push(
        json!({"type": "user", "parentUuid": a1, "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_b", "content": "y"}]}}),
    );
    // A retry: two assistant replies to the same prompt, 60 s apart.
    s.push(json!({"type": "assistant", "parentUuid": root, "timestamp": "2026-01-01T01:00:00.000Z",
        "message": {"role": "assistant", "id": "m2", "content": [{"type": "text", "text": "take one"}]}}));
    s.push(json!({"type": "assistant", "parentUuid": root, "timestamp": "2026-01-01T01:01:00.000Z",
        "message": {"role": "assistant", "id": "m3", "content": [{"type": "text", "text": format!("take two {}", "z".repeat(300))}]}}));
    home.write("-w-s", &s.file_name(), &s.lines);
    let out = run(&home, &["@44444444", "--branch-points", "--format", "json"]).success();
    let mut rows = json_lines(&out.get_output().stdout);
    let summary = rows.pop().unwrap();
    assert_eq!(
        (summary["type"].as_str(), summary["branch_points"].as_u64()),
        (Some("summary"), Some(1))
    );
    assert_eq!(rows.len(), 1, "{rows:?}");
    let r = &rows[0];
    assert_eq!(r["type"], "branch-point");
    assert_eq!(r["uuid"], root.as_str());
    assert_eq!(r["line"], 1);
    // Children: the tool_use (line 2) and both retries; widest gap between consecutive children.
    let lines: Vec<u64> = r["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, vec![2, 5, 6]);
    // A long child is previewed, and the row says how long it is.
    let long = &r["children"][2];
    assert_eq!(long["text_chars"], 309);
    assert_eq!(long["text"].as_str().unwrap().chars().count(), 121);
    assert_eq!(r["children"][1]["text_chars"], 8);
    assert!(r["widest_gap_seconds"].as_i64().unwrap() >= 60);
    assert!(r.get("live").is_none(), "no branch is called live");
    let out = run(&home, &["@44444444", "--branch-points"]).success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("branch point")
            && text.contains("take two")
            && text.contains("z… [+189 chars]"),
        "{text}"
    );
}

#[test]
fn bad_address_syntax_is_a_usage_error() {
    let (home, _, _) = sample_session();
    run(&home, &["@11111111", "--line", "abc"]).code(2);
    // Raw bytes are not JSON Lines: --raw with --format json is refused.
    let out = run(
        &home,
        &["@11111111", "--line", "1", "--raw", "--format", "json"],
    )
    .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("choose one"));
    run(&home, &["@11111111", "--line", "1", "--raw"]).success();
}

/// A tool result's error flag is in the JSON form too (the human header said
/// `error`; the JSON had no field for it): true on the error, absent otherwise.
#[test]
fn corpus_json_units_carry_the_error_flag() {
    let Some(home) = corpus() else { return };
    let out = csift()
        .args([
            "show",
            "@07d86da7",
            "--line",
            "1..",
            "--format",
            "json",
            "--claude-home",
        ])
        .arg(&home)
        .output()
        .unwrap();
    let rows = json_lines(&out.stdout);
    let results: Vec<&Value> = rows
        .iter()
        .filter(|r| r["label"] == "agent.tool.result")
        .collect();
    assert!(results.iter().any(|r| r["is_error"] == true));
    assert!(results.iter().any(|r| r.get("is_error").is_none()));
    // A rejection rides an error tool_result too (TURN-013); nothing else has one.
    assert!(rows.iter().all(|r| r.get("is_error").is_none()
        || r["label"] == "agent.tool.result"
        || r["label"] == "user.rejection"));
}

/// A content block of a type csift does not model is said, in both forms, not
/// skipped: the record printed as if it held only its known blocks.
#[test]
fn an_unknown_block_type_is_said_not_skipped() {
    let home = Home::new();
    let mut s = Session::new("14141414-0000-4000-8000-000000000014", "/w/u");
    s.push(
        json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "hologram", "beam": 3}, {"type": "text", "text": "visible words"}]}}),
    );
    home.write("-w-u", &s.file_name(), &s.lines);
    let out = home
        .cmd()
        .args(["show", "@14141414", "--line", "1", "--color", "never"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("visible words"), "{text}");
    assert!(
        text.contains("[block 0 of unknown type `hologram` at "),
        "{text}"
    );
    let rows = json_lines(
        &home
            .cmd()
            .args(["show", "@14141414", "--line", "1", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    let b = rows.iter().find(|r| r["type"] == "unknown-block").unwrap();
    assert_eq!(
        (b["block"].clone(), b["block_type"].clone()),
        (json!(0), json!("hologram"))
    );
    assert_eq!(rows.last().unwrap()["units"], 1);
}

/// The public corpus's one glued line (130d7b7e…:128, an assistant reply and a
/// summary written on one line) is reported and its records shown, under the
/// line's number: by --line, by --turn (as search numbers it) and by --uuid,
/// which finds the copy inside it as well as the later one on line 131.
#[test]
fn a_glued_line_shows_its_records() {
    let Some(home) = corpus() else { return };
    let f = "@130d7b7e-5801-4345-9bd6-f32fd9b8429b";
    let rows = |args: &[&str]| -> Vec<Value> {
        let mut a = vec![f];
        a.extend_from_slice(args);
        a.extend_from_slice(&["--format", "json"]);
        json_lines(&show(&home, &a).success().get_output().stdout)
    };
    let v = rows(&["--line", "128"]);
    let kinds: Vec<&str> = v.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["malformed", "unit", "line", "summary"], "{v:?}");
    assert_eq!(v[1]["label"], "agent.message");
    assert_eq!(v[2]["record_type"], "summary");
    // The summary counts the line's two records and the malformed line apart.
    assert_eq!(
        (&v[3]["records"], &v[3]["malformed"]),
        (&json!(2), &json!(1))
    );
    let whole = rows(&[]);
    let sum = whole.last().unwrap();
    // 169 parseable lines and the 2 records of the glued one (stats: 169 + 2).
    assert_eq!(
        (&sum["records"], &sum["malformed"]),
        (&json!(171), &json!(1))
    );
    let u = v[1]["uuid"].as_str().unwrap();
    let by_uuid = rows(&["--uuid", u]);
    // Only that record, not the summary glued beside it.
    assert!(!by_uuid.iter().any(|r| r["type"] == "line"), "{by_uuid:?}");
    let copies: Vec<u64> = by_uuid
        .iter()
        .filter(|r| r["type"] == "unit")
        .map(|r| r["line"].as_u64().unwrap())
        .collect();
    assert_eq!(copies, [128, 131]);
    let turn = v[1]["turn"].as_u64().unwrap().to_string();
    assert!(rows(&["--turn", &turn])
        .iter()
        .any(|r| r["type"] == "unit" && r["line"] == 128));
}

/// A slash command renders as typed, `/name args` (TURN-008), in either tag
/// order (TURN-007), in show and verbatim: e001dcdc:2 printed its wrapper XML.
#[test]
fn corpus_a_slash_command_renders_as_typed_turn_007_turn_008() {
    let Some(home) = corpus() else { return };
    let out = show(&home, &["@e001dcdc", "--line", "2"]).success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("\n/erk:plan-implement 8230\n"), "{text}");
    assert!(!text.contains("<command-args>"), "{text}");
    let out = csift()
        .args(["verbatim", "@5c0375b4", "--claude-home"])
        .arg(&home)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.contains("[user] /orchestrator @CLAUDE.md"), "{text}");
}

/// A transcript's last line written without its newline is printed by
/// `--raw` as it is, with no newline the file does not have; a line printed
/// after it is still on a line of its own.
#[test]
fn raw_adds_no_newline_the_file_does_not_have() {
    let home = Home::new();
    let mut s = Session::new("11111111-2222-4333-8444-555555555555", "/w/p");
    s.user("first prompt");
    s.text("msg_1", "first reply");
    let mut bytes = common::jsonl(&s.lines);
    bytes.pop();
    home.write_raw("-w-p", &s.file_name(), &bytes);
    let out = run(&home, &["@11111111", "--line", "1..2", "--raw"]).success();
    assert_eq!(out.get_output().stdout, bytes);
    let last = &bytes[bytes.iter().position(|&b| b == b'\n').unwrap() + 1..];
    let out = run(&home, &["@11111111", "--line", "-1", "--raw"]).success();
    assert_eq!(out.get_output().stdout, last);
    // Lines print in file order, whatever the address order.
    let out = run(&home, &["@11111111", "--line", "2,1", "--raw"]).success();
    assert_eq!(out.get_output().stdout, bytes);
    // A line printed after it (another file's) starts on a line of its own.
    let mut other = Session::new("22222222-2222-4333-8444-555555555555", "/w/p");
    other.user("another prompt");
    let uuid = other.text("msg_2", "another reply");
    home.write("-w-p", &other.file_name(), &other.lines);
    let last_uuid = s.lines[1]["uuid"].as_str().unwrap().to_string();
    assert_eq!(last_uuid, uuid, "the builders number uuids alike");
    let out = run(&home, &["--uuid", &uuid, "--raw"]).success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.ends_with("}\n"), "{text}");
}

/// A `show` with no target would print every record of every session (53,000
/// lines on a real home): it is an error that says to name one. `--uuid`
/// alone still looks in every transcript.
#[test]
fn show_needs_a_target() {
    let (home, _, uuids) = sample_session();
    let out = run(&home, &[]).code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("TARGET"), "{err}");
    assert!(out.get_output().stdout.is_empty());
    run(&home, &["--line", "1"]).code(2);
    run(&home, &["--uuid", &uuids[0]]).success();
    let help = csift().args(["show", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    assert!(help.contains("A TARGET is required"), "{help}");
}

/// Progress records (half the lines of a real transcript of 2.1.x) read as one
/// line each saying what the kind carries, never as a raw JSON prefix cut
/// before its `data.type`; a kind csift does not know shows its fields.
#[test]
fn progress_records_render_as_one_readable_line() {
    let home = Home::new();
    let mut s = Session::new("11111111-2222-4333-8444-555555555555", "/w/p");
    s.user("run the tests");
    s.tool_use("msg_1", "toolu_1", "Bash", json!({"command": "make test"}));
    let progress = |data: Value| {
        json!({"type": "progress", "data": data, "toolUseID": "toolu_1",
               "parentToolUseID": "toolu_1", "slug": "a-b-c"})
    };
    s.push(progress(
        json!({"type": "hook_progress", "hookEvent": "PreToolUse",
        "hookName": "PreToolUse:Bash", "command": "bash ${CLAUDE_PROJECT_DIR}/.claude/check.sh"}),
    ));
    s.push(progress(
        json!({"type": "bash_progress", "output": "compiling\nrunning 12 tests",
        "fullOutput": "compiling\nrunning 12 tests", "elapsedTimeSeconds": 3, "totalLines": 2,
        "timeoutMs": 120000}),
    ));
    s.push(progress(json!({"type": "mcp_progress", "status": "failed",
        "serverName": "linear-server", "toolName": "get_issue", "elapsedTimeMs": 670})));
    s.push(progress(json!({"type": "waiting_for_task",
        "taskDescription": "Run SessionLive tests", "taskType": "local_bash"})));
    s.push(progress(
        json!({"type": "novel_progress", "phase": "warming", "percent": 40}),
    ));
    home.write("-w-p", &s.file_name(), &s.lines);
    let out = run(&home, &["@11111111", "--line", "3..7"]).success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    for want in [
        "progress/hook_progress",
        "hook PreToolUse:Bash: bash ${CLAUDE_PROJECT_DIR}/.claude/check.sh",
        "progress/bash_progress",
        "bash running 3s, 2 lines, timeout 120s; last output: running 12 tests",
        "mcp linear-server get_issue failed after 670 ms",
        "waiting for local_bash task: Run SessionLive tests",
        "progress/novel_progress",
        "novel_progress: percent=40 phase=warming",
    ] {
        assert!(text.contains(want), "{want:?} missing in:\n{text}");
    }
    assert!(!text.contains("{\"parentUuid\""), "no raw JSON:\n{text}");
    // JSON rows carry the same line.
    let out = run(&home, &["@11111111", "--line", "5", "--format", "json"]).success();
    let v = json_lines(&out.get_output().stdout);
    assert_eq!(v[0]["record_type"], "progress");
    assert_eq!(v[0]["progress_type"], "mcp_progress");
    assert_eq!(
        v[0]["text"],
        "mcp linear-server get_issue failed after 670 ms"
    );
}
