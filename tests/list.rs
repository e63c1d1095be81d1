//! `csift list`, discovery and target resolution end to end, and `whoami`.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{corpus, first_json, json_lines, ok_json, transcripts, Home, Session};
use serde_json::{json, Value};

const S1: &str = "11111111-aaaa-4000-8000-000000000001";
const S2: &str = "22222222-bbbb-4000-8000-000000000002";

fn rows(out: &[u8]) -> Vec<Value> {
    json_lines(out)
        .into_iter()
        .filter(|v| v["type"] != "summary")
        .collect()
}

/// A home with every lane shape: built-in, workflow, compaction, old flat.
fn shapes_home() -> Home {
    let home = Home::new();
    let mut a = Session::new(S1, "/w/app");
    a.user("build the parser");
    a.text("m1", "Done.");
    home.write("-w-app", &a.file_name(), &a.lines);
    let mut lane = Session::lane(S1, "/w/app", "a0123456789abcdef");
    lane.user("explore the code");
    home.write(
        "-w-app",
        &format!("{S1}/subagents/agent-a0123456789abcdef.jsonl"),
        &lane.lines,
    );
    let mut wf = Session::lane(S1, "/w/app", "afedcba9876543210");
    wf.user("workflow step");
    home.write(
        "-w-app",
        &format!("{S1}/subagents/workflows/wf_1/agent-afedcba9876543210.jsonl"),
        &wf.lines,
    );
    let mut cmp = Session::lane(S1, "/w/app", "acompact-e1f845");
    cmp.user("Your task is to create a detailed summary");
    home.write(
        "-w-app",
        &format!("{S1}/subagents/agent-acompact-e1f845.jsonl"),
        &cmp.lines,
    );
    std::fs::create_dir_all(home.projects().join("-w-app").join(S1).join("tool-results")).unwrap();
    let mut b = Session::new(S2, "/w/app");
    b.user("second session");
    home.write("-w-app", &b.file_name(), &b.lines);
    // 2.0.x flat lane beside the sessions: its owner is the records' sessionId.
    let mut flat = Session::lane(S2, "/w/app", "a77");
    flat.user("flat lane prompt");
    home.write("-w-app", "agent-a77.jsonl", &flat.lines);
    home
}

#[test]
fn lists_sessions_with_lane_counts_in_every_shape_sub_001() {
    let home = shapes_home();
    let out = home
        .cmd()
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = rows(&out.stdout);
    let lanes: BTreeMap<String, u64> = r
        .iter()
        .map(|v| {
            (
                v["session_id"].as_str().unwrap().into(),
                v["lanes"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(lanes[S1], 3);
    assert_eq!(lanes[S2], 1);
    assert_eq!(r.len(), 2);
    let s2 = r.iter().find(|v| v["session_id"] == S2).unwrap();
    assert_eq!(s2["title"], "second session");
    assert_eq!(s2["title_source"], "first-prompt");
    assert_eq!(s2["cwd"], "/w/app");
    assert_eq!(s2["turns"], 1);
}

#[test]
fn list_at_session_shows_its_lanes() {
    let home = shapes_home();
    let r = rows(
        &home
            .cmd()
            .args(["list", "@1111", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    let mut shapes: Vec<&str> = r.iter().map(|v| v["shape"].as_str().unwrap()).collect();
    assert_eq!(shapes[0], "main", "the session row comes before its lanes");
    shapes.sort();
    assert_eq!(shapes, vec!["compact", "main", "subagent", "workflow"]);
    let r = rows(
        &home
            .cmd()
            .args(["list", "@1111", "--no-subagents", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(r.len(), 1);
}

#[test]
fn target_forms_resolve() {
    let home = shapes_home();
    let count = |args: &[&str]| -> usize {
        let out = home
            .cmd()
            .args(["list", "--format", "json"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        rows(&out.stdout).len()
    };
    assert_eq!(count(&[&format!("@{S1}")]), 4);
    assert_eq!(count(&["@2222"]), 2); // session + its flat lane
    assert_eq!(count(&["@a0123"]), 1); // a lane by its own id
    assert_eq!(count(&["@agent-a77"]), 1);
    let proj = home.projects().join("-w-app");
    assert_eq!(count(&[proj.to_str().unwrap()]), 2);
    assert_eq!(count(&["--", "-w-app"]), 2); // bare encoded name
    assert_eq!(count(&["-w-app"]), 2); // without `--` too (cli::argv)
    assert_eq!(count(&[proj.join(S1).to_str().unwrap()]), 4); // session folder
    let file = proj.join(format!("{S2}.jsonl"));
    assert_eq!(count(&[file.to_str().unwrap()]), 1);
}

/// A lane listed on its own names a parent that exists on disk: "parent
/// transcript missing" is said only when the session's main file is gone, not
/// when the listing just left it out.
#[test]
fn a_lane_listed_alone_is_no_orphan_when_its_session_file_exists() {
    let home = shapes_home();
    let lane = |args: &[&str]| {
        first_json(
            home.cmd().args(["list", "--format", "json"]).args(args),
            "lane",
        )
    };
    assert_eq!(lane(&["@a0123"])["parent_missing"], false);
    let file = home
        .projects()
        .join("-w-app")
        .join(S1)
        .join("subagents/agent-a0123456789abcdef.jsonl");
    assert_eq!(lane(&[file.to_str().unwrap()])["parent_missing"], false);
    std::fs::remove_file(home.projects().join("-w-app").join(format!("{S1}.jsonl"))).unwrap();
    assert_eq!(lane(&["@a0123"])["parent_missing"], true);
}

#[test]
fn ambiguous_and_unknown_ids_are_errors_listing_candidates() {
    let home = shapes_home();
    let out = home.cmd().args(["list", "@a"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("ambiguous")
            && err.contains("@a0123456789abcdef")
            && err.contains("@acompact-e1f845"),
        "{err}"
    );
    let out = home.cmd().args(["list", "@ffff"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_real_directory_is_encoded_like_claude_code_path_001() {
    let home = Home::new();
    let proj = tempfile::tempdir().unwrap();
    let real = std::fs::canonicalize(proj.path()).unwrap();
    let cwd = real.to_str().unwrap().to_string();
    let enc: String = cwd
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let mut s = Session::new(S1, &cwd);
    s.user("hello from a real dir");
    home.write(&enc, &s.file_name(), &s.lines);
    let r = rows(
        &home
            .cmd()
            .arg("list")
            .arg(proj.path())
            .args(["--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["cwd"], cwd.as_str());
}

/// PATH-002: a path given through a symlink finds the sessions of its real
/// directory, the canonical cwd Claude Code encoded; PATH-008: two cwds that
/// encode alike share one folder, told apart only by each row's own cwd.
#[cfg(unix)]
#[test]
fn a_symlink_finds_the_real_folder_and_colliding_cwds_share_it_path_002_path_008() {
    let home = Home::new();
    let base = tempfile::tempdir().unwrap();
    let real = std::fs::canonicalize(base.path()).unwrap().join("a-b");
    std::fs::create_dir(&real).unwrap();
    let link = base.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let cwd = real.to_str().unwrap().to_string();
    let other = format!("{}/a/b", real.parent().unwrap().to_str().unwrap());
    let enc = |c: &str| -> String {
        c.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect()
    };
    assert_eq!(enc(&other), enc(&cwd), "the two cwds collide");
    for (id, dir) in [(S1, &cwd), (S2, &other)] {
        let mut s = Session::new(id, dir);
        s.user("hello");
        home.write(&enc(&cwd), &s.file_name(), &s.lines);
    }
    let r = rows(
        &home
            .cmd()
            .arg("list")
            .arg(&link)
            .args(["--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    let mut cwds: Vec<&str> = r.iter().filter_map(|v| v["cwd"].as_str()).collect();
    cwds.sort_unstable();
    let mut want = vec![cwd.as_str(), other.as_str()];
    want.sort_unstable();
    assert_eq!(cwds, want); // PATH-002, PATH-008
}

/// A real project directory in a folder named `projects` (`~/projects/app`,
/// and a folder inside it) is looked up by its encoded path (PATH-001), not
/// read as a Claude `projects/<encoded>` folder: that found nothing. A session
/// folder of another home (a copy, named without --claude-home) is read as
/// one, its session and lanes.
#[test]
fn a_project_under_a_folder_named_projects_is_a_real_directory_path_001() {
    let home = Home::new();
    let base = tempfile::tempdir().unwrap();
    for sub in ["app", "app/src"] {
        let dir = base.path().join("projects").join(sub);
        std::fs::create_dir_all(&dir).unwrap();
        let cwd = std::fs::canonicalize(&dir)
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let enc: String = cwd
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let id = if sub == "app" { S1 } else { S2 };
        let mut s = Session::new(id, &cwd);
        s.user("hello from a real dir");
        home.write(&enc, &s.file_name(), &s.lines);
        let r = rows(
            &home
                .cmd()
                .arg("list")
                .arg(&dir)
                .args(["--format", "json"])
                .output()
                .unwrap()
                .stdout,
        );
        assert_eq!(r.len(), 1, "{sub}");
        assert_eq!(r[0]["cwd"], cwd.as_str(), "{sub}");
    }
    // Another home's session folder, this home set by CLAUDE_CONFIG_DIR.
    let other = Home::new();
    let mut lane = Session::lane(S2, "/w/other", "a0123456789abcdef");
    lane.user("explore the code");
    let lane_file = other.write(
        "-w-other",
        &format!("{S2}/subagents/agent-a0123456789abcdef.jsonl"),
        &lane.lines,
    );
    let folder = lane_file.parent().unwrap().parent().unwrap();
    let r = rows(
        &home
            .cmd()
            .arg("list")
            .arg(folder)
            .args(["--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0]["agent_id"], "a0123456789abcdef");
}

#[test]
fn a_long_path_is_found_by_prefix_scan_path_005() {
    let home = Home::new();
    let base = tempfile::tempdir().unwrap();
    let deep = base
        .path()
        .join("a-very-long-directory-name-segment-".repeat(7));
    std::fs::create_dir_all(&deep).unwrap();
    let cwd = std::fs::canonicalize(&deep)
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let enc: String = cwd
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    assert!(enc.len() > 200);
    let dir = format!("{}-{}", &enc[..200], "zz9"); // suffix not recomputed: prefix scan
    let mut s = Session::new(S1, &cwd);
    s.user("deep project");
    home.write(&dir, &s.file_name(), &s.lines);
    let r = rows(
        &home
            .cmd()
            .arg("list")
            .arg(&deep)
            .args(["--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(
        r.len(),
        1,
        "capped dir must be found by its 200-char prefix"
    );
}

#[test]
fn max_count_and_since_say_what_was_left_out() {
    let home = shapes_home();
    let out = home
        .cmd()
        .args(["list", "--max-count", "1", "--color", "never"])
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("1 more rows not shown"), "{s}");
    let v = json_lines(
        &home
            .cmd()
            .args(["list", "--max-count", "1", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(v.last().unwrap()["dropped"], 1);
    let out = home
        .cmd()
        .args([
            "list",
            "--since",
            "2000-01-01T00:00:00Z",
            "--until",
            "2000-01-02T00:00:00Z",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "no session in that window");
}

/// Last activity is the newest of the last records (REC-089: their times are
/// not in file order), whatever the size of the last one. A 100 KB last record
/// older than the one before it gave a read-whole file the last record's time
/// and a 0 s duration: the tail was a 64 KB byte window that cut it.
#[test]
fn last_activity_survives_a_long_last_record_out_of_order_rec_089() {
    let home = Home::new();
    let mut s = Session::new("77777777-0000-4000-8000-000000000007", "/w/long");
    s.user("run it");
    s.push(json!({"type": "assistant", "timestamp": "2026-01-01T00:10:00.000Z", "message": {
        "model": "claude-opus-4-5-20251101", "id": "m1", "type": "message", "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}],
        "usage": {"input_tokens": 1, "output_tokens": 1}}}));
    s.push(
        json!({"type": "user", "timestamp": "2026-01-01T00:05:00.000Z", "message": {
        "role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
        "content": "x".repeat(100_000)}]}}),
    );
    home.write("-w-long", &s.file_name(), &s.lines);
    for full in [false, true] {
        let mut cmd = home.cmd();
        cmd.args(["list", "--format", "json"]);
        if full {
            cmd.arg("--full");
        }
        let v = json_lines(&cmd.output().unwrap().stdout);
        assert_eq!(
            v[0]["last_activity"], "2026-01-01T00:10:00.000Z",
            "full={full}"
        );
    }
}

/// A session with no timestamp cannot be placed in a window: it is left out, and
/// the listing says so (it used to vanish without a word).
#[test]
fn a_window_says_how_many_untimed_sessions_it_left_out() {
    let home = shapes_home();
    home.write_raw(
        "-tmp-untimed",
        "11111111-2222-3333-4444-555555555555.jsonl",
        b"{\"type\":\"summary\",\"summary\":\"Old title\",\"leafUuid\":\"u1\"}\n",
    );
    let all = json_lines(
        &home
            .cmd()
            .args(["list", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert!(all
        .iter()
        .any(|r| r["session_id"] == "11111111-2222-3333-4444-555555555555"));
    assert_eq!(all.last().unwrap()["untimed_left_out"], 0);
    let out = home
        .cmd()
        .args(["list", "--since", "2000-01-01", "--format", "json"])
        .output()
        .unwrap();
    let v = json_lines(&out.stdout);
    assert!(!v
        .iter()
        .any(|r| r["session_id"] == "11111111-2222-3333-4444-555555555555"));
    assert_eq!(v.last().unwrap()["untimed_left_out"], 1);
    let out = home
        .cmd()
        .args(["list", "--since", "2000-01-01", "--color", "never"])
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.contains("[1 sessions with no timestamp left out by --since/--until]"),
        "{s}"
    );
}

/// `--since D --until D` is day D: a date given to `--until` is the end of its
/// day (it was the midnight that starts it, so a one-day window held nothing),
/// and a window that ends before it starts is an error, not an empty answer.
#[test]
fn one_date_on_both_sides_is_that_whole_day() {
    let home = shapes_home(); // every record on 2026-01-01, seconds after midnight UTC
    let run = |since: &str, until: &str| {
        home.cmd()
            .env("TZ", "UTC")
            .args([
                "list", "--format", "json", "--since", since, "--until", until,
            ])
            .output()
            .unwrap()
    };
    let out = run("2026-01-01", "2026-01-01");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = home
        .cmd()
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(rows(&out.stdout), rows(&all.stdout));
    assert_eq!(run("2025-12-31", "2025-12-31").status.code(), Some(1));
    let out = run("2026-02-01", "2026-01-01");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is after --until"));
}

#[test]
fn empty_claude_config_dir_is_an_error_path_011() {
    let out = common::csift()
        .env("CLAUDE_CONFIG_DIR", "")
        .arg("list")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("set but empty"));
}

#[test]
fn corpus_lists_every_top_level_session_with_lane_counts() {
    let Some(home) = corpus() else { return };
    // --full: every line of every file, so the glued line mid-file is seen.
    let out = common::csift()
        .args(["list", "--full", "--format", "json", "--claude-home"])
        .arg(&home)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = rows(&out.stdout);
    assert!(r
        .iter()
        .all(|v| v["read"] == "whole" && v["turns"].is_u64()));
    let files = transcripts(&home);
    let mains: Vec<&Path> = files
        .iter()
        .map(|p| p.as_path())
        .filter(|p| !p.to_str().unwrap().contains("/subagents/"))
        .collect();
    let listed: Vec<&str> = r
        .iter()
        .filter(|v| v["type"] == "session")
        .map(|v| v["file"].as_str().unwrap())
        .collect();
    assert_eq!(listed.len(), mains.len());
    for m in &mains {
        assert!(
            listed.contains(&m.to_str().unwrap()),
            "{} not listed",
            m.display()
        );
    }
    // Lane counts: every lane file under <session>/subagents, and the lanes
    // inline in a 1.0.x main file (`agents` lists 2 in 5c0375b4, 1 in a4e5b271).
    let mut inline = Vec::new();
    for v in r.iter().filter(|v| v["type"] == "session") {
        let sid = v["session_id"].as_str().unwrap();
        let n = files
            .iter()
            .filter(|p| p.to_str().unwrap().contains(&format!("/{sid}/subagents/")))
            .count();
        let i = v["inline_lanes"].as_u64().unwrap() as usize;
        assert_eq!(v["lanes"].as_u64().unwrap() as usize, n + i, "{sid}");
        if i > 0 {
            inline.push((sid[..8].to_string(), i));
        }
    }
    inline.sort();
    assert_eq!(
        inline,
        [("5c0375b4".to_string(), 2), ("a4e5b271".to_string(), 1)]
    );
    // The orphan lane (parent transcript not published) is listed and marked.
    assert!(r
        .iter()
        .any(|v| v["type"] == "lane" && v["parent_missing"] == true));
    // The glued line is reported with file:line.
    let glued: Vec<&Value> = r
        .iter()
        .filter(|v| v["malformed_lines"].as_u64().unwrap() > 0)
        .collect();
    assert_eq!(glued.len(), 1);
    assert_eq!(glued[0]["malformed"][0]["kind"], "glued-records");
    assert_eq!(glued[0]["malformed"][0]["line"], 128);
    // By default that 501 KB file is read as a head and a tail window only.
    let out = common::csift()
        .args(["list", "--format", "json", "--claude-home"])
        .arg(&home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let d = rows(&out.stdout);
    assert_eq!(d.len(), r.len());
    let row = d.iter().find(|v| v["file"] == glued[0]["file"]).unwrap();
    assert_eq!(row["read"], "head-tail");
    assert_eq!(row["turns"], Value::Null);
    // Head and tail facts are the same either way.
    for key in ["started", "last_activity", "cwd", "git_branch", "versions"] {
        assert_eq!(row[key], glued[0][key], "{key}");
    }
}

/// A session of many turns, bigger than the head and tail windows together, with
/// an ai-title rewritten per turn (QT-030): the newest is near the end.
/// `csift list ARGS` in human form, without colour.
fn human(home: &Home, args: &[&str]) -> String {
    let out = home
        .cmd()
        .arg("list")
        .args(args)
        .args(["--color", "never"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

fn long_session_home() -> (Home, usize) {
    let home = Home::new();
    let mut s = Session::new(S1, "/w/long");
    let turns = 120;
    for i in 0..turns {
        s.user(&format!("turn {i}: {}", "please look at this. ".repeat(20)));
        s.text(&format!("m{i}"), &"A long answer line. ".repeat(60));
        s.raw(json!({"type": "ai-title", "aiTitle": format!("Title after turn {i}"), "sessionId": S1}));
    }
    let mut last = Session::new(S1, "/w/long");
    last.version = "2.1.151".into();
    s.lines.push(json!({
        "type": "system", "subtype": "turn_duration", "durationMs": 5, "isMeta": false,
        "uuid": "ffffffff-0000-4000-8000-000000000000", "parentUuid": null,
        "sessionId": S1, "cwd": "/w/long", "version": "2.1.151", "gitBranch": "main",
        "timestamp": "2026-03-01T12:00:00.000Z"
    }));
    let path = home.write("-w-long", &s.file_name(), &s.lines);
    let size = std::fs::metadata(path).unwrap().len();
    assert!(size > 256 * 1024, "bigger than a file read whole: {size}");
    // A second, older session: a listing of one session reads it whole.
    let mut b = Session::new(S2, "/w/long");
    b.user("short and old");
    b.lines[0]["timestamp"] = json!("2025-01-01T00:00:00.000Z");
    home.write("-w-long", &b.file_name(), &b.lines);
    (home, turns)
}

#[test]
fn a_long_session_is_read_head_and_tail_and_full_counts_turns_qt_030() {
    let (home, turns) = long_session_home();
    let json = |args: &[&str]| {
        common::ok_json(home.cmd().arg("list").args(args).args(["--format", "json"]))
    };
    let v = json(&[]);
    let (row, small, summary) = (&v[0], &v[1], &v[2]);
    assert_eq!(small["read"], "whole", "a small file fits in the windows");
    assert_eq!(small["turns"], 1);
    assert_eq!(row["read"], "head-tail");
    assert_eq!(
        row["turns"],
        Value::Null,
        "not guessed from a part of the file"
    );
    assert_eq!(row["title"], format!("Title after turn {}", turns - 1));
    assert_eq!(row["title_source"], "ai-title");
    assert_eq!(row["last_activity"], "2026-03-01T12:00:00.000Z");
    assert_eq!(row["started"], "2026-01-01T00:00:07.000Z");
    assert_eq!(row["cwd"], "/w/long");
    // REC-006: the build that writes a session can change mid-session.
    assert_eq!(row["versions"], json!(["2.1.150", "2.1.151"]));
    assert_eq!(row["models"], json!(["claude-opus-4-5-20251101"]));
    assert_eq!(summary["read_whole"], 1);
    assert_eq!(summary["read_head_tail"], 1);
    // --full reads every line: the exact count, and the same head and tail facts.
    let full = json(&["--full"]);
    assert_eq!(full[0]["read"], "whole");
    assert_eq!(full[0]["turns"], turns);
    for key in ["title", "last_activity", "started", "versions", "models"] {
        assert_eq!(full[0][key], row[key], "{key}");
    }
    assert_eq!(full[2]["read_whole"], 2);
    // One session is cheap: read whole without --full.
    let one = json(&["@1111"]);
    assert_eq!(one[0]["read"], "whole");
    assert_eq!(one[0]["turns"], turns);
    // Human rows say ?t and the footer says why and what to do.
    let text = human(&home, &[]);
    assert!(text.contains("  ?t  "), "{text}");
    assert!(
        text.contains("turns counted in 1 of 2 rows (the rest read head and tail only: ?t); --full counts every line"),
        "{text}"
    );
    let text = human(&home, &["--full"]);
    assert!(
        text.contains(&format!("  {turns}t  ")) && !text.contains("turns counted"),
        "{text}"
    );
}

#[test]
fn a_torn_final_line_past_the_head_has_an_offset_and_no_line_number_rec_040() {
    let (home, _) = long_session_home();
    let file = home.projects().join("-w-long").join(format!("{S1}.jsonl"));
    let mut bytes = std::fs::read(&file).unwrap();
    let torn_at = bytes.len();
    let lines = bytes.iter().filter(|&&b| b == b'\n').count();
    bytes.extend_from_slice(br#"{"type":"user","message":{"role":"us"#);
    std::fs::write(&file, bytes).unwrap();
    let bad = |args: &[&str]| {
        let out = home
            .cmd()
            .arg("list")
            .args(args)
            .args(["--format", "json"])
            .output()
            .unwrap();
        json_lines(&out.stdout)[0]["malformed"].clone()
    };
    assert_eq!(
        bad(&[]),
        json!([{"line": null, "offset": torn_at, "kind": "torn-final-line"}])
    );
    assert_eq!(
        bad(&["--full"]),
        json!([{"line": lines + 1, "offset": torn_at, "kind": "torn-final-line"}])
    );
    let text = human(&home, &[]);
    assert!(
        text.contains(&format!(".jsonl byte {torn_at} torn-final-line")),
        "{text}"
    );
}

/// A session opened by a bare slash command whose first typed prompt sits far
/// past the head records, behind tool results: the head lines that cannot tell
/// the row anything are skipped unparsed, and the row is still exact. The
/// prompt quotes `"type":"tool_result"` (escaped inside its string, so it is no
/// carrier); the only non-empty branch is on one assistant record in between.
#[test]
fn a_first_prompt_behind_tool_results_is_found_and_the_skipped_lines_change_nothing() {
    let home = Home::new();
    let mut s = Session::new(S1, "/w/slash");
    let unbranched = |s: &mut Session| {
        let last = s.lines.last_mut().unwrap();
        last["gitBranch"] = json!("");
    };
    s.push(json!({"type": "user", "message": {"role": "user",
        "content": "<command-message>review</command-message>\n<command-name>/review</command-name>"}}));
    unbranched(&mut s);
    for i in 0..40 {
        s.tool_use(
            &format!("m{i}"),
            &format!("t{i}"),
            "Read",
            json!({"file_path": "/w/slash/a.rs"}),
        );
        unbranched(&mut s);
        if i == 20 {
            s.lines.last_mut().unwrap()["gitBranch"] = json!("feature/x");
        }
        s.tool_result(&format!("t{i}"), &"fn main() {}\n".repeat(150), false, None);
        unbranched(&mut s);
    }
    let prompt = r#"why does {"type":"tool_result"} parse twice?"#;
    s.user(prompt);
    unbranched(&mut s);
    // Enough replies to put the file past the size read whole by default.
    for i in 0..120 {
        s.text(&format!("r{i}"), &"A long answer line. ".repeat(60));
        unbranched(&mut s);
    }
    let path = home.write("-w-slash", &s.file_name(), &s.lines);
    // A second session: a listing of one session reads it whole.
    let mut b = Session::new(S2, "/w/slash");
    b.user("short and old");
    b.lines[0]["timestamp"] = json!("2025-01-01T00:00:00.000Z");
    home.write("-w-slash", &b.file_name(), &b.lines);
    let bytes = std::fs::read(&path).unwrap();
    let at = String::from_utf8_lossy(&bytes).find("why does").unwrap();
    assert!(
        at > 64 * 1024,
        "the prompt is past several head windows: {at}"
    );
    let row = |args: &[&str]| {
        common::ok_json(home.cmd().arg("list").args(args).args(["--format", "json"])).remove(0)
    };
    let windows = row(&[]);
    assert_eq!(windows["read"], "head-tail");
    for r in [&windows, &row(&["--full"])] {
        assert_eq!(r["title"], prompt);
        assert_eq!(r["title_source"], "first-prompt");
        assert_eq!(r["git_branch"], "feature/x");
        assert_eq!(r["cwd"], "/w/slash");
    }
}

#[test]
fn whoami_uses_the_env_and_never_guesses_misc_009() {
    let home = shapes_home();
    let out = home.cmd().arg("whoami").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("CLAUDE_CODE_SESSION_ID is not set"));
    let out = home
        .cmd()
        .env("CLAUDE_CODE_SESSION_ID", S1)
        .args(["whoami", "--path"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout)
        .trim()
        .ends_with(&format!("{S1}.jsonl")));
    // SUB-021: the variable names the top-level session in every lane.
    assert!(String::from_utf8_lossy(&out.stderr).contains("TOP-LEVEL"));
    let out = home
        .cmd()
        .env("CLAUDE_CODE_SESSION_ID", S1)
        .args(["whoami", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["type"], "session", "every JSON line says what it is");
    assert_eq!(v["session_id"], S1);
    assert_eq!(v["is_subagent"], Value::Null);
    let _ = json!(null);
    // A window or lane flag whoami cannot honour is an error, not ignored.
    let out = home
        .cmd()
        .env("CLAUDE_CODE_SESSION_ID", S1)
        .args(["whoami", "--since", "garbage"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--since does not apply"));

    // The variable is an exact id: a prefix of S1 is no session of its own,
    // so --path finds nothing (exit 1) rather than S1's transcript.
    let prefix = &S1[..6];
    let out = home
        .cmd()
        .env("CLAUDE_CODE_SESSION_ID", prefix)
        .args(["whoami", "--path"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let out = home
        .cmd()
        .env("CLAUDE_CODE_SESSION_ID", prefix)
        .args(["whoami", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"], json!([]), "{v}");
    // Escape bytes in the variable never reach the terminal.
    let out = home
        .cmd()
        .env("CLAUDE_CODE_SESSION_ID", format!("{S1}\u{1b}]0;pwned\u{7}"))
        .arg("whoami")
        .output()
        .unwrap();
    assert!(
        !out.stdout.contains(&0x1b) && !out.stderr.contains(&0x1b),
        "{out:?}"
    );
}

/// Encoded project names start with a dash (PATH-001: `/home/ana/app` is
/// `-home-ana-app`), and clap read such a target as flags: `-h…` printed help
/// and exited 0 (for `audit`, "no findings"), `-Users-…` became `-U -s -e …`.
/// A dashed argument that names a project folder is a target.
#[test]
fn a_bare_project_name_is_a_target_not_flags_path_001() {
    let home = Home::new();
    let mut a = Session::new("5a1c0d2e-1111-4222-8333-944455556666", "/home/ana/app");
    a.user("migrate the schema");
    a.text("msg_01A", "done with the migration");
    home.write("-home-ana-app", &a.file_name(), &a.lines);
    let mut b = Session::new("6b1c0d2e-1111-4222-8333-944455556666", "/Users/bo/x");
    b.user("another migration");
    home.write("-Users-bo-x", &b.file_name(), &b.lines);

    let rows = ok_json(
        home.cmd()
            .args(["list", "-home-ana-app", "--format", "json"]),
    );
    assert_eq!(rows.len(), 2, "{rows:?}"); // the session and the summary line
    assert_eq!(rows[0]["cwd"], "/home/ana/app");

    let out = home
        .cmd()
        .args(["audit", "-home-ana-app"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("in 1 files"), "{text}");
    assert!(!text.contains("Usage:"), "{text}");

    // `-Users-bo-x` after a pattern: a target, not `-U -s -e rs-bo-x`.
    let out = home
        .cmd()
        .args(["search", "-l", "-e", "migration", "-Users-bo-x"])
        .output()
        .unwrap();
    let files = String::from_utf8_lossy(&out.stdout);
    assert_eq!(files.lines().count(), 1, "{files}");
    assert!(files.contains("-Users-bo-x"), "{files}");

    // A misspelt name is a missing target (exit 2), never help with exit 0
    // ("no findings") nor flags that widen the search to every project.
    for args in [
        &["audit", "-home-ana-apq"][..],
        &["search", "-l", "-e", "migration", "-Users-bo-y"],
        &["list", "-Users-typo"],
    ] {
        let out = home.cmd().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("project name under"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// A session's models are its own assistant records' models: an
/// `agent_progress` record nests a subagent's assistant message, model and
/// all, inside `data`, and that model was listed as the session's.
#[test]
fn models_are_the_sessions_own_not_a_progress_records_subagent() {
    let home = Home::new();
    let mut s = Session::new("7c1c0d2e-1111-4222-8333-944455556666", "/w/m");
    s.user("explore with a subagent");
    s.text("msg_01", "Spawning.");
    s.push(json!({
        "type": "progress",
        "data": {
            "type": "agent_progress",
            "agentId": "a1b2c3d",
            "message": {
                "type": "assistant",
                "timestamp": "2026-01-01T00:00:09.000Z",
                "message": {"model": "claude-haiku-4-5-20251001", "id": "msg_sub", "type": "message",
                            "role": "assistant", "content": [{"type": "text", "text": "found it"}]}
            }
        },
        "toolUseID": "toolu_x",
        "parentToolUseID": "toolu_x"
    }));
    s.text("msg_02", "Done.");
    home.write("-w-m", &s.file_name(), &s.lines);
    let own: Vec<Value> = s
        .lines
        .iter()
        .filter(|r| r["type"] == "assistant")
        .map(|r| r["message"]["model"].clone())
        .collect();
    assert!(!own.is_empty() && own.iter().all(|m| *m != "claude-haiku-4-5-20251001"));
    for full in [false, true] {
        let mut cmd = home.cmd();
        cmd.args(["list", "--format", "json"]);
        if full {
            cmd.arg("--full");
        }
        let rows = ok_json(&mut cmd);
        assert_eq!(
            rows[0]["models"],
            json!([own[0]]),
            "--full {full}: {}",
            rows[0]
        );
    }
}

/// An orphan lane (its session file gone) is a row of its own and sorts by its
/// time among the sessions; it went after every session, so `-m N` never
/// showed it however recent it was.
#[test]
fn an_orphan_lane_sorts_by_its_own_time() {
    let home = Home::new();
    let mut old = Session::new("9a1c0d2e-1111-4222-8333-944455556666", "/w/o");
    old.user("an old session");
    home.write("-w-o", &old.file_name(), &old.lines);
    let gone = "9b1c0d2e-1111-4222-8333-944455556666";
    let mut lane = Session::lane(gone, "/w/o", "a5555555555555555");
    lane.push(
        json!({"type": "user", "timestamp": "2026-03-01T10:00:00.000Z",
                     "message": {"role": "user", "content": "recent work in a lane"}}),
    );
    home.write(
        "-w-o",
        &format!("{gone}/subagents/agent-a5555555555555555.jsonl"),
        &lane.lines,
    );
    let rows = ok_json(home.cmd().args(["list", "--format", "json", "-m", "1"]));
    assert_eq!(rows[0]["type"], "lane", "{rows:?}");
    assert_eq!(rows[0]["parent_missing"], true);
}

/// A target that names nothing is reported and the others still run (as
/// ripgrep does with a missing path), exit 2; `audit --help` promised it.
/// When no target names anything, it is the command's error.
#[test]
fn a_bad_target_is_reported_and_the_others_still_run() {
    let home = Home::new();
    let mut a = Session::new("5a1c0d2e-1111-4222-8333-944455556666", "/home/ana/app");
    a.user("migrate the schema");
    home.write("-home-ana-app", &a.file_name(), &a.lines);
    for cmd in ["list", "audit", "stats"] {
        let out = home
            .cmd()
            .args([cmd, "@5a1c", "/no/such.jsonl", "@ffff", "--format", "json"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        assert!(err.contains("/no/such.jsonl"), "{cmd}: {err}");
        assert!(err.contains("ffff"), "{cmd}: {err}");
        let rows = common::json_lines(&out.stdout);
        assert!(!rows.is_empty(), "{cmd}: the good target still ran");
    }
    let out = home
        .cmd()
        .args(["list", "/no/such.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

/// A project folder linked in under a second name (`ln -s -home-me-app
/// -mnt-me-app`) holds the same files: each session is listed and counted
/// once, under the real folder.
#[cfg(unix)]
#[test]
fn a_linked_in_project_folder_is_walked_once() {
    let home = Home::new();
    let mut a = Session::new("5a1c0d2e-1111-4222-8333-944455556666", "/home/me/app");
    a.user("one prompt");
    a.text("msg_01", "one reply");
    home.write("-home-me-app", &a.file_name(), &a.lines);
    std::os::unix::fs::symlink("-home-me-app", home.projects().join("-mnt-me-app")).unwrap();
    let rows = ok_json(home.cmd().args(["list", "--format", "json"]));
    let sessions: Vec<&Value> = rows.iter().filter(|r| r["type"] == "session").collect();
    assert_eq!(sessions.len(), 1, "{rows:?}");
    assert_eq!(sessions[0]["project"], "-home-me-app");
    let total = common::first_json(home.cmd().args(["stats", "--format", "json"]), "total");
    assert_eq!(total["transcripts"], 1, "{total}");
    assert_eq!(total["records"], 2, "{total}");
    // Named directly, the linked name still works as a target.
    let rows = ok_json(home.cmd().args(["list", "-mnt-me-app", "--format", "json"]));
    assert_eq!(rows.iter().filter(|r| r["type"] == "session").count(), 1);
}

/// list prints times at the precision the records have, so a window copied from
/// a row keeps that row's records: `--until` at a second-rounded last activity
/// left the session's last record out.
#[test]
fn corpus_times_keep_their_milliseconds_and_bound_a_window_exactly() {
    let Some(home) = corpus() else { return };
    let rows = ok_json(
        common::csift()
            .args(["list", "@d6e0bada", "--format", "json", "--claude-home"])
            .arg(&home),
    );
    let last = rows[0]["last_activity"].as_str().unwrap().to_string();
    assert_eq!(last, "2026-02-10T22:59:46.748Z");
    let all = ok_json(
        common::csift()
            .args([
                "show",
                "@d6e0bada",
                "--line",
                "1..",
                "--format",
                "json",
                "--claude-home",
            ])
            .arg(&home),
    );
    let upto = ok_json(
        common::csift()
            .args(["show", "@d6e0bada", "--line", "1..", "--format", "json"])
            .args(["--until", &last, "--claude-home"])
            .arg(&home),
    );
    let timed = |v: &[Value]| v.iter().filter(|r| r["timestamp"].is_string()).count();
    assert_eq!(timed(&all), timed(&upto));
}

/// `@<session>@<agent>`, the form search and show print a lane unit under, is a
/// target: it names that lane (it was "no session or subagent id starts with").
#[test]
fn corpus_the_printed_lane_form_is_a_target() {
    let Some(home) = corpus() else { return };
    let out = common::csift()
        .args([
            "show",
            "@4d5611e5@a2898e3",
            "--line",
            "6",
            "--format",
            "json",
            "--claude-home",
        ])
        .arg(&home)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = json_lines(&out.stdout);
    assert_eq!(rows[0]["agent_id"], "a2898e3");
    assert_eq!(rows[0]["line"], 6);
    let out = common::csift()
        .args(["list", "@4d5@a", "--claude-home"])
        .arg(&home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ambiguous: 2 lanes match") && err.contains("@4d5611e5@a2898e3"),
        "{err}"
    );
}

#[test]
fn an_untimed_transcript_sorts_after_every_timed_one() {
    let home = Home::new();
    let mut a = Session::new(S1, "/w/app");
    a.user("the timed session");
    home.write("-w-app", &a.file_name(), &a.lines);
    // Written later (newer file time), but holding no timestamp at all: a
    // summary-only file, as the public corpus's ff71dbed.
    std::thread::sleep(std::time::Duration::from_millis(20));
    home.write(
        "-w-app",
        &format!("{S2}.jsonl"),
        &[json!({"type": "summary", "summary": "AI Music", "leafUuid": "u1"})],
    );
    let r = rows(
        &home
            .cmd()
            .args(["list", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    let ids: Vec<&str> = r
        .iter()
        .map(|v| v["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [S1, S2]);
    let one = rows(
        &home
            .cmd()
            .args(["list", "-m", "1", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(
        one[0]["session_id"], S1,
        "the newest session is the timed one"
    );
}

/// `-m 0` counts without printing: sessions were found, so exit 0, as search
/// and stats do (list alone exited 1).
#[test]
fn max_count_zero_still_finds() {
    let home = Home::new();
    let mut a = Session::new(S1, "/w/app");
    a.user("one");
    home.write("-w-app", &a.file_name(), &a.lines);
    let out = home
        .cmd()
        .args(["list", "-m", "0", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let summary = json_lines(&out.stdout).pop().unwrap();
    assert_eq!(
        (
            summary["rows"].as_u64(),
            summary["shown"].as_u64(),
            summary["dropped"].as_u64()
        ),
        (Some(1), Some(0), Some(1))
    );
    let empty = Home::new();
    std::fs::create_dir_all(empty.projects()).unwrap();
    let out = empty.cmd().args(["list", "-m", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// A lane whose session transcript is gone is a row of its own, sorted by its
/// time; drawn as `└ @agent` it read as a lane of the unrelated session above
/// it (the public corpus's afc096d under d6e0bada). It is named
/// `session@agent`, a target that selects it.
#[test]
fn an_orphan_lane_row_names_its_own_session() {
    let home = Home::new();
    let mut a = Session::new(S1, "/w/app");
    a.user("build the parser");
    a.text("m1", "Done.");
    home.write("-w-app", &a.file_name(), &a.lines);
    let mut lane = Session::lane(S2, "/w/other", "a0123456789abcdef");
    lane.user("explore the code");
    home.write(
        "-w-other",
        &format!("{S2}/subagents/agent-a0123456789abcdef.jsonl"),
        &lane.lines,
    );
    let out = home
        .cmd()
        .args(["list", "--color", "never"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let short2 = &S2[..8];
    let row = text
        .lines()
        .find(|l| l.contains("parent transcript missing"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        row.starts_with(&format!("{short2}@a0123456789abcdef  ")),
        "{text}"
    );
    assert!(!text.contains('└'), "{text}");
    // The name as the row prints it is a target, with or without the `@`;
    // so is a bare session id with no file of that name.
    let printed = format!("{short2}@a0123456789abcdef");
    for target in [format!("@{printed}"), printed, S1[..8].to_string()] {
        let shown = home
            .cmd()
            .args(["show", &target, "--line", "1", "--raw"])
            .output()
            .unwrap();
        assert_eq!(shown.status.code(), Some(0), "{target}");
    }
    // A real folder of that name is the folder, not the id.
    let cwd = tempfile::tempdir().unwrap();
    std::fs::create_dir(cwd.path().join(&S1[..8])).unwrap();
    let out = home
        .cmd()
        .current_dir(cwd.path())
        .args(["list", &S1[..8]])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no Claude Code sessions recorded"));
    // An id-shaped name that is neither a file nor an id says both.
    let out = home.cmd().args(["list", "deadbeef"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("deadbeef: no file or folder of that name; as an id, @deadbeef: no session"),
        "{err}"
    );
}

/// A lane named on its own beside another session's row is named
/// `session@agent` too: its session's row is not above it. With `list
/// @SESSION` the session's lanes stay `└ @agent` under its row.
#[test]
fn a_lane_listed_without_its_session_row_names_its_session() {
    let home = Home::new();
    for (id, cwd) in [(S1, "/w/app"), (S2, "/w/other")] {
        let mut a = Session::new(id, cwd);
        a.user("a prompt");
        a.text("m1", "Done.");
        home.write(&cwd.replace('/', "-"), &a.file_name(), &a.lines);
    }
    let mut lane = Session::lane(S2, "/w/other", "a0123456789abcdef");
    lane.user("explore the code");
    home.write(
        "-w-other",
        &format!("{S2}/subagents/agent-a0123456789abcdef.jsonl"),
        &lane.lines,
    );
    let run = |args: &[&str]| {
        let out = home.cmd().arg("list").args(args).output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let (s1, s2) = (&S1[..8], &S2[..8]);
    let text = run(&[&format!("@{s1}"), &format!("@{s2}@a0123")]);
    assert!(
        text.lines()
            .any(|l| l.starts_with(&format!("{s2}@a0123456789abcdef  "))),
        "{text}"
    );
    assert!(!text.contains('└'), "{text}");
    let text = run(&[&format!("@{s2}")]);
    assert!(text.contains("\n  └ @a0123456789abcdef  "), "{text}");
}

/// A payload line ahead of the first prompt (a 3 MB attachment, or a 3 MB
/// snapshot before a prompt that carries a 3 MB image) does not use up the
/// head's 1 MB budget: the session keeps its title, with and without --full.
#[test]
fn a_prompt_behind_a_multi_megabyte_line_is_still_the_title() {
    let big = "A".repeat(3_000_000);
    for (i, lead) in ["attachment", "snapshot"].into_iter().enumerate() {
        let home = Home::new();
        let id = format!("dd12cd34-0000-4000-8000-00000000010{i}");
        let mut s = Session::new(&id, "/w/app");
        let mut prompt = vec![json!({"type": "text", "text": "fix the bug in this screenshot"})];
        match lead {
            "attachment" => {
                s.push(json!({"type": "attachment", "attachment": {"type": "hook_additional_context", "content": [big]}}));
            }
            _ => {
                s.raw(json!({"type": "file-history-snapshot", "messageId": "x", "snapshot": {"trackedFileBackups": {"a": big}}}));
                prompt.push(json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": big}}));
            }
        };
        s.push(json!({"type": "user", "message": {"role": "user", "content": prompt}}));
        for n in 0..50 {
            s.text(&format!("m{n}"), &"ok ".repeat(100));
        }
        home.write("-w-app", &s.file_name(), &s.lines);
        for full in [false, true] {
            let mut c = home.cmd();
            c.args(["list", "--format", "json"]);
            if full {
                c.arg("--full");
            }
            let row = first_json(&mut c, "session");
            assert_eq!(
                row["title"], "fix the bug in this screenshot",
                "{lead} full={full}"
            );
        }
    }
}

/// The bundled sample's sessions are 26–150 KB: the first `list` a new user
/// runs counts their turns rather than printing `?t` on every row (issue 27).
#[test]
fn the_sample_home_lists_exact_turn_counts() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home");
    let out = common::csift()
        .args(["list", "--format", "json", "--claude-home"])
        .arg(&sample)
        .output()
        .unwrap();
    let r = rows(&out.stdout);
    assert!(r.len() >= 6, "{r:?}");
    for row in &r {
        assert_eq!(row["read"], "whole", "{row}");
        assert!(row["turns"].as_u64().is_some_and(|t| t > 0), "{row}");
    }
    let out = common::csift()
        .args(["list", "--color", "never", "--claude-home"])
        .arg(&sample)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("?t"), "{text}");
}

/// A session of about `bytes` bytes: turns of a prompt and a long reply.
fn session_of(id: &str, bytes: usize) -> Session {
    let mut s = Session::new(id, "/w/size");
    let mut i = 0;
    while common::jsonl(&s.lines).len() < bytes {
        s.user(&format!("turn {i}: please go on"));
        s.text(&format!("m{i}"), &"A long answer line. ".repeat(100));
        i += 1;
    }
    s
}

/// Files up to 256 KB are read whole by default (exact turns); a larger one is
/// read as a head and a tail window.
#[test]
fn files_up_to_256_kb_are_read_whole_by_default() {
    let home = Home::new();
    let small = session_of(S1, 240 * 1024);
    home.write("-w-size", &small.file_name(), &small.lines);
    let big = session_of(S2, 300 * 1024);
    home.write("-w-size", &big.file_name(), &big.lines);
    let v = common::ok_json(home.cmd().args(["list", "--format", "json"]));
    let by_id = |id: &str| v.iter().find(|r| r["session_id"] == id).unwrap().clone();
    assert_eq!(by_id(S1)["read"], "whole");
    assert!(by_id(S1)["turns"].as_u64().is_some());
    assert_eq!(by_id(S2)["read"], "head-tail");
    assert_eq!(by_id(S2)["turns"], Value::Null);
}

/// The `summary` line Claude Code wrote at the top of a resumed session
/// describes the conversation its `leafUuid` ends; in the public corpus most
/// name a record of another session. Such a summary is no title here, and the
/// title is the same with and without `--full`.
#[test]
fn a_summary_titles_a_session_only_when_its_leaf_is_in_it() {
    let home = Home::new();
    // Small (read whole): the leaf is another session's record.
    let mut a = Session::new(S1, "/w/sum");
    a.raw(json!({"type": "summary", "summary": "Another session's work", "leafUuid": "99999999-0000-4000-8000-000000000099"}));
    a.user("fix the parser");
    a.text("m1", "Done.");
    home.write("-w-sum", &a.file_name(), &a.lines);
    // Small: the leaf is this session's last record.
    let mut b = Session::new(S2, "/w/sum");
    b.user("add a flag");
    let leaf = b.text("m1", "Added.");
    b.lines.insert(
        0,
        json!({"type": "summary", "summary": "Flag added", "leafUuid": leaf}),
    );
    home.write("-w-sum", &b.file_name(), &b.lines);
    for full in [false, true] {
        let mut cmd = home.cmd();
        cmd.args(["list", "--format", "json"]);
        if full {
            cmd.arg("--full");
        }
        let v = common::ok_json(&mut cmd);
        let by_id = |id: &str| v.iter().find(|r| r["session_id"] == id).unwrap().clone();
        assert_eq!(by_id(S1)["title"], "fix the parser", "full={full}");
        assert_eq!(by_id(S1)["title_source"], "first-prompt", "full={full}");
        assert_eq!(by_id(S2)["title"], "Flag added", "full={full}");
        assert_eq!(by_id(S2)["title_source"], "summary", "full={full}");
    }
}

/// In a file read as head and tail windows, a summary's leaf may lie between
/// them: the row is then read whole to decide, never guessed, so the title
/// matches `--full` both when the leaf is there and when it is not.
#[test]
fn a_summary_leaf_between_the_windows_is_looked_for_not_guessed() {
    const S3: &str = "33333333-cccc-4000-8000-000000000003";
    let home = Home::new();
    // The leaf is a record in the middle of a 400 KB file.
    let mut a = session_of(S1, 200 * 1024);
    let leaf = a.text("mid", "the middle reply");
    let tail = session_of(S1, 200 * 1024);
    let mut a_lines = a.lines.clone();
    a_lines.extend(tail.lines.iter().map(|l| {
        let mut l = l.clone();
        let u = l["uuid"]
            .as_str()
            .unwrap()
            .replace("-0000-4000-", "-1111-4000-");
        l["uuid"] = json!(u);
        l
    }));
    a_lines.insert(
        0,
        json!({"type": "summary", "summary": "Middle summary", "leafUuid": leaf}),
    );
    home.write("-w-sum", &format!("{S1}.jsonl"), &a_lines);
    // The leaf is nowhere in this 400 KB file.
    let mut b = session_of(S3, 400 * 1024);
    b.lines.insert(
        0,
        json!({"type": "summary", "summary": "Elsewhere", "leafUuid": "99999999-0000-4000-8000-000000000099"}),
    );
    home.write("-w-sum", &format!("{S3}.jsonl"), &b.lines);
    // A small session so the listing holds more than one.
    let mut c = Session::new(S2, "/w/sum");
    c.user("unrelated");
    home.write("-w-sum", &c.file_name(), &c.lines);
    for full in [false, true] {
        let mut cmd = home.cmd();
        cmd.args(["list", "--format", "json"]);
        if full {
            cmd.arg("--full");
        }
        let v = common::ok_json(&mut cmd);
        let by_id = |id: &str| v.iter().find(|r| r["session_id"] == id).unwrap().clone();
        assert_eq!(by_id(S1)["title"], "Middle summary", "full={full}");
        assert_eq!(by_id(S1)["title_source"], "summary", "full={full}");
        assert_eq!(by_id(S3)["title"], "turn 0: please go on", "full={full}");
        assert_eq!(by_id(S3)["title_source"], "first-prompt", "full={full}");
    }
}

/// The lane note is for sessions that have lanes: from a session with none,
/// the caller cannot be a subagent (a running subagent's lane file is on disk
/// from its first record), so whoami says nothing more than the id.
#[test]
fn whoami_notes_the_lane_caveat_only_where_a_session_has_lanes_misc_009() {
    let home = Home::new();
    let mut a = Session::new(S2, "/w/app");
    a.user("no subagents here");
    home.write("-w-app", &a.file_name(), &a.lines);
    let out = home
        .cmd()
        .env("CLAUDE_CODE_SESSION_ID", S2)
        .arg("whoami")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), S2);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lane = Session::lane(S2, "/w/app", "a0123456789abcdef");
    lane.user("explore");
    home.write(
        "-w-app",
        &format!("{S2}/subagents/agent-a0123456789abcdef.jsonl"),
        &lane.lines,
    );
    let out = home
        .cmd()
        .env("CLAUDE_CODE_SESSION_ID", S2)
        .arg("whoami")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("TOP-LEVEL"));
}

/// whoami's `depth`: 0 (and `is_subagent` false) for a session with no lane
/// file, where no subagent can be calling (TAIL-003: a running subagent's lane
/// file is on disk from its first record); null for a session with lanes,
/// whose subagents are handed the session's own id (SUB-021, MISC-009), and
/// for an id with no transcript.
#[test]
fn whoami_depth_is_zero_only_where_no_lane_can_call_sub_021_tail_003() {
    let home = shapes_home();
    const S3: &str = "33333333-cccc-4000-8000-000000000003";
    let mut c = Session::new(S3, "/w/app");
    c.user("a session with no subagent");
    c.text("m1", "ok");
    home.write("-w-app", &c.file_name(), &c.lines);
    let json = |id: &str| -> Value {
        let out = home
            .cmd()
            .env("CLAUDE_CODE_SESSION_ID", id)
            .args(["whoami", "--format", "json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // S3 has no lane on disk: the caller is the session.
    let v = json(S3);
    assert_eq!(v["depth"], 0, "{v}");
    assert_eq!(v["is_subagent"], false, "{v}");
    assert_eq!(v["parent_session_id"], Value::Null);
    // S1 has three lanes, S2 a flat one: any of them may be the caller.
    for id in [S1, S2] {
        let v = json(id);
        let o = v.as_object().unwrap();
        assert!(o.contains_key("depth"), "{v}");
        assert_eq!(v["depth"], Value::Null, "{v}");
        assert_eq!(v["is_subagent"], Value::Null, "{v}");
    }
    // No transcript of the id: nothing is known.
    let v = json("99999999-0000-4000-8000-000000000009");
    assert_eq!(v["files"], json!([]));
    assert_eq!(v["depth"], Value::Null, "{v}");
    assert_eq!(v["is_subagent"], Value::Null, "{v}");
}

const ORIGIN: &str = "99999999-0000-4000-8000-00000000a001";
const CLONE: &str = "cccccccc-0000-4000-8000-00000000c001";
const COCLONE: &str = "cccccccc-0000-4000-8000-00000000c002";
const MENTION: &str = "00000000-0000-4000-8000-00000000d001";
const BACKREF: &str = "00000001-0000-4000-8000-00000000d002";
const QUEUED: &str = "55555555-0000-4000-8000-00000000e001";
const BOUNDARY: &str = "b0b0b0b0-1111-4222-8333-b0b0b0b0b0b0";
const LOGICAL: &str = "a1a1a1a1-1111-4222-8333-a1a1a1a1a1a1";

/// The origin's compaction boundary as Claude Code writes it natively.
fn boundary_record(session: &str, version: &str) -> Value {
    json!({"parentUuid": null, "logicalParentUuid": LOGICAL, "isSidechain": false, "userType": "external",
        "cwd": "/w/copy", "sessionId": session, "version": version, "gitBranch": "main",
        "type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": false,
        "timestamp": "2026-08-31T11:41:41.866Z", "uuid": BOUNDARY, "level": "info",
        "compactMetadata": {"trigger": "auto", "preTokens": 976521, "postTokens": 165848}})
}

/// A clone's head (CMP-012, CMP-014, REC-041): untimed bookkeeping lines, then
/// the origin's boundary re-serialised (same uuid, logicalParentUuid and time;
/// its own sessionId, `sessionKind: "bg"`, the copying build's version, no
/// slug), the copied summary, then the clone's own records.
fn clone_lines(id: &str, pad: usize) -> Vec<Value> {
    let mut s = Session::new(id, "/w/copy");
    s.version = "2.1.252".into();
    for t in [
        "ai-title",
        "agent-name",
        "mode",
        "permission-mode",
        "atis-latch",
    ] {
        s.raw(json!({"type": t, "sessionId": id, "aiTitle": "copied work"}));
    }
    s.raw(json!({"type": "file-history-snapshot", "messageId": "m0", "snapshot": {"trackedFileBackups": {}, "timestamp": "2026-08-31T11:35:10.097Z"}, "isSnapshotUpdate": false}));
    let mut b = boundary_record(id, "2.1.252");
    b["sessionKind"] = json!("bg");
    s.raw(b);
    s.raw(json!({"parentUuid": BOUNDARY, "isSidechain": false, "userType": "external", "cwd": "/w/copy",
        "sessionId": id, "version": "2.1.252", "sessionKind": "bg", "type": "user", "isCompactSummary": true,
        "isVisibleInTranscriptOnly": true, "timestamp": "2026-08-31T11:41:41.900Z",
        "uuid": "5a5a5a5a-1111-4222-8333-5a5a5a5a5a5a",
        "message": {"role": "user", "content": "This session is being continued from a previous conversation."}}));
    s.user("carry on in the background copy");
    s.text("m_c1", &format!("On it.{}", " padding".repeat(pad)));
    s.user("and finish it");
    s.text("m_c2", "Finished.");
    s.lines
}

/// CMP-013: no file time tells a clone (every file here is written after its
/// records); CMP-016: `sessionKind` stamps the writing process, so a
/// background session's own records carry it from its first line: neither
/// makes a session a clone. A compaction mid-file is no clone's head either.
#[test]
fn a_background_session_with_old_records_is_no_clone_cmp_013_cmp_016() {
    let home = Home::new();
    let mut s = Session::new(S1, "/w/bg");
    s.user("run the nightly job");
    s.system(
        "compact_boundary",
        json!({"content": "Conversation compacted", "compactMetadata": {"trigger": "auto"}}),
    );
    s.text("m1", "Done.");
    for l in &mut s.lines {
        l["sessionKind"] = json!("bg");
    }
    let f = home.write("-w-bg", &s.file_name(), &s.lines);
    // Records from 2026-01-01, the file from now: the gap a copy would leave.
    let modified = std::fs::metadata(&f).unwrap().modified().unwrap();
    assert!(
        modified
            > std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_767_312_000)
    );
    let r = rows(
        &home
            .cmd()
            .args(["list", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(r[0]["session_id"], S1);
    assert_eq!(
        (r[0]["is_clone"].clone(), r[0]["clone_of"].clone()),
        (json!(false), Value::Null)
    );
}

/// CMP-012…016, REC-041, MISC-028: `list` names a clone's origin, tells a
/// fork its origin's `continued-in` record names from a plain clone, and
/// refuses what only looks like the origin: a sibling that mentions the
/// boundary uuid in prose, one whose boundary names it as its
/// logicalParentUuid, and a co-clone whose head is the same boundary. A
/// transcript led by a queue-operation is no clone.
#[test]
fn clones_name_their_origin_and_forks_are_told_apart_cmp_012_cmp_014_misc_028() {
    let home = Home::new();
    let p = "-w-copy";
    // The origin: slugged records, the boundary mid-file, and later the
    // record that names its fork's successor.
    let mut o = Session::new(ORIGIN, "/w/copy");
    o.version = "2.1.251".into();
    o.user("build the exporter");
    o.push(json!({"type": "assistant", "slug": "jolly-humming-kettle", "message": {"model": "claude-opus-4-5-20251101", "id": "m_o1", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "Working."}], "usage": {"input_tokens": 1, "output_tokens": 1}}}));
    o.raw(boundary_record(ORIGIN, "2.1.251"));
    o.user("keep going");
    home.write(p, &o.file_name(), &o.lines);
    // Lookalikes that sort before the origin.
    let mut m = Session::new(MENTION, "/w/copy");
    m.user(&format!("what is boundary {BOUNDARY} about?"));
    home.write(p, &m.file_name(), &m.lines);
    let mut y = Session::new(BACKREF, "/w/copy");
    y.user("first");
    y.system("compact_boundary", json!({"logicalParentUuid": BOUNDARY, "uuid": "dddddddd-1111-4222-8333-dddddddddddd", "compactMetadata": {"trigger": "manual"}}));
    home.write(p, &y.file_name(), &y.lines);
    // The clone, read as head and tail windows (it is past 256 KB), and a
    // co-clone of the same boundary.
    home.write(p, &format!("{CLONE}.jsonl"), &clone_lines(CLONE, 40_000));
    home.write(p, &format!("{COCLONE}.jsonl"), &clone_lines(COCLONE, 0));
    let mut q = Session::new(QUEUED, "/w/copy");
    q.raw(json!({"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-01-01T00:00:00.000Z", "sessionId": QUEUED, "content": "x"}));
    q.system(
        "compact_boundary",
        json!({"compactMetadata": {"trigger": "auto"}}),
    );
    q.user("after");
    home.write(p, &q.file_name(), &q.lines);

    let all = rows(
        &home
            .cmd()
            .args(["list", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    let row = |id: &str| all.iter().find(|r| r["session_id"] == id).unwrap().clone();
    let c = row(CLONE);
    assert_eq!(c["read"], "head-tail", "{c}");
    assert_eq!(c["is_clone"], true, "{c}");
    assert_eq!(c["clone_of"], ORIGIN, "{c}");
    assert_eq!(c["clone_boundary_uuid"], BOUNDARY);
    assert_eq!(
        c["forked_from"],
        Value::Null,
        "no continued-in names it: a clone"
    );
    assert_eq!(
        row(COCLONE)["clone_of"],
        ORIGIN,
        "a co-clone is not the origin"
    );
    for id in [ORIGIN, MENTION, BACKREF, QUEUED] {
        let r = row(id);
        assert_eq!(r["is_clone"], false, "{id}: {r}");
        assert_eq!(r["clone_of"], Value::Null);
    }
    let text = String::from_utf8(home.cmd().arg("list").output().unwrap().stdout).unwrap();
    assert_eq!(text.matches("clone of @99999999").count(), 2, "{text}");

    // The origin's --fork-session record names the clone: a fork.
    o.raw(json!({"type": "continued-in", "timestamp": "2026-09-02T09:54:22.256Z", "sessionId": ORIGIN, "continuedInSessionId": CLONE}));
    home.write(p, &o.file_name(), &o.lines);
    let all = rows(
        &home
            .cmd()
            .args(["list", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    let row = |id: &str| all.iter().find(|r| r["session_id"] == id).unwrap().clone();
    assert_eq!(row(CLONE)["forked_from"], ORIGIN);
    assert_eq!(row(CLONE)["clone_of"], ORIGIN);
    assert_eq!(row(COCLONE)["forked_from"], Value::Null);
    assert_eq!(row(ORIGIN)["continued_in"], json!([CLONE]));
    let one = rows(
        &home
            .cmd()
            .args(["list", &format!("@{CLONE}"), "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(
        one[0]["forked_from"], ORIGIN,
        "a one-session listing reads the origin too"
    );
    let text = String::from_utf8(home.cmd().arg("list").output().unwrap().stdout).unwrap();
    assert!(text.contains("fork of @99999999"), "{text}");
    assert!(text.contains("continued in @cccccccc"), "{text}");

    // A fork that is no clone (its head is an ordinary record): told apart
    // where the origin's record is read, in the same listing.
    let succ = "77777777-0000-4000-8000-00000000f001";
    let mut f = Session::new(succ, "/w/copy");
    f.user("forked session");
    home.write(p, &f.file_name(), &f.lines);
    o.raw(json!({"type": "continued-in", "timestamp": "2026-09-02T10:00:00.000Z", "sessionId": ORIGIN, "continuedInSessionId": succ}));
    home.write(p, &o.file_name(), &o.lines);
    let all = rows(
        &home
            .cmd()
            .args(["list", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    let s = all.iter().find(|r| r["session_id"] == succ).unwrap();
    assert_eq!(s["forked_from"], ORIGIN, "{s}");
    assert_eq!(s["is_clone"], false);
}

/// `whoami @trap:MARKER` names the caller by the Bash call that runs it: from
/// a subagent, its own lane (which CLAUDE_CODE_SESSION_ID cannot name,
/// SUB-021), with its session as the parent and its depth below the session:
/// a lane spawned by a lane is 2 when the chain of spawning calls is on disk,
/// and the meta's `spawnDepth` where Claude Code wrote one (SUB-006). From the
/// main conversation, depth 0 (SUB-022: the trap is found once written).
#[test]
fn whoami_trap_names_the_calling_lane_and_its_depth_sub_021_sub_006_sub_022() {
    let home = Home::new();
    let sid = "7a7a7a7a-0000-4000-8000-000000000777";
    let (a, b, c) = (
        "a1111111111111111",
        "a2222222222222222",
        "a3333333333333333",
    );
    let mut m = Session::new(sid, "/w/trap");
    m.user("explore, and have the explorer delegate");
    m.tool_use(
        "m1",
        "toolu_A",
        "Task",
        json!({"prompt": "explore", "description": "explore", "subagent_type": "Explore"}),
    );
    m.tool_use(
        "m2",
        "toolu_main",
        "Bash",
        json!({"command": "echo MainMarker0001; csift whoami @trap:MainMarker0001"}),
    );
    home.write("-w-trap", &m.file_name(), &m.lines);
    let mut la = Session::lane(sid, "/w/trap", a);
    la.user("explore");
    la.tool_use(
        "ma1",
        "toolu_B",
        "Agent",
        json!({"prompt": "dig deeper", "description": "dig", "subagent_type": "general-purpose"}),
    );
    la.tool_result(
        "toolu_B",
        "dug",
        false,
        Some(json!({"status": "completed", "agentId": b, "content": []})),
    );
    let mut lb = Session::lane(sid, "/w/trap", b);
    lb.user("dig deeper");
    lb.tool_use(
        "mb1",
        "toolu_b1",
        "Bash",
        json!({"command": "echo DeepMarker0002; csift whoami @trap:DeepMarker0002"}),
    );
    let mut lc = Session::lane(sid, "/w/trap", c);
    lc.user("a workflow step");
    lc.tool_use(
        "mc1",
        "toolu_c1",
        "Bash",
        json!({"command": "echo MetaMarker0003 && csift whoami @trap:MetaMarker0003"}),
    );
    let dir = format!("{sid}/subagents");
    home.write("-w-trap", &format!("{dir}/agent-{a}.jsonl"), &la.lines);
    home.write(
        "-w-trap",
        &format!("{dir}/agent-{a}.meta.json"),
        &[json!({"agentType": "Explore", "description": "explore", "toolUseId": "toolu_A"})],
    );
    home.write("-w-trap", &format!("{dir}/agent-{b}.jsonl"), &lb.lines);
    home.write("-w-trap", &format!("{dir}/agent-{c}.jsonl"), &lc.lines);
    home.write(
        "-w-trap",
        &format!("{dir}/agent-{c}.meta.json"),
        &[json!({"agentType": "workflow-step", "spawnDepth": 3})],
    );
    let who = |marker: &str| -> Value {
        let out = home
            .cmd()
            .args(["whoami", &format!("@trap:{marker}"), "--format", "json"])
            .env_remove("CLAUDE_CODE_SESSION_ID")
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let v = who("DeepMarker0002");
    assert_eq!(v["source"], "trap");
    assert_eq!(v["session_id"], sid);
    assert_eq!(v["agent_id"], b);
    assert_eq!(v["is_subagent"], true);
    assert_eq!(v["parent_session_id"], sid);
    assert_eq!(v["depth"], 2, "{v}");
    assert!(v["files"][0]
        .as_str()
        .unwrap()
        .ends_with(&format!("agent-{b}.jsonl")));
    assert_eq!(who("MetaMarker0003")["depth"], 3, "the meta's spawnDepth");
    let v = who("MainMarker0001");
    assert_eq!(v["agent_id"], Value::Null);
    assert_eq!(
        (v["is_subagent"].clone(), v["depth"].clone()),
        (json!(false), json!(0))
    );
    // The human form prints the caller as a target reads it.
    let out = home
        .cmd()
        .args(["whoami", "@trap:DeepMarker0002"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("{sid}@{b}")
    );
    // Anything but @trap: or @main is no caller.
    let out = home
        .cmd()
        .args(["whoami", &format!("@{sid}")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
