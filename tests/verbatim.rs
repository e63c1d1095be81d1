//! `csift verbatim`: whole turns from the end within the budget, oldest first;
//! slices that are deterministic, under the window in UTF-16 units, made of whole
//! turns, and that concatenate to the unsliced output, on the real corpus and the
//! bundled sample home.

use crate::common;

use std::path::{Path, PathBuf};

use common::{corpus, csift, json_lines, transcripts, Home, Session};
use serde_json::{json, Value};

fn units(s: &str) -> usize {
    s.encode_utf16().count()
}

fn verbatim(target: &Path, args: &[&str]) -> (i32, String) {
    let out = csift()
        .arg("verbatim")
        .arg(target)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.code() != Some(2),
        "{}: {}",
        target.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

fn sample_home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home")
}

/// Main transcripts (and lanes, which verbatim reads when named directly).
fn files() -> Vec<PathBuf> {
    let mut v = transcripts(&sample_home());
    if let Some(c) = corpus() {
        v.extend(transcripts(&c));
    }
    v
}

fn check_slices(f: &Path, n: usize, window: usize) -> usize {
    let (ns, w) = (n.to_string(), window.to_string());
    let (_, whole) = verbatim(f, &["--slices", &ns, "--window", &w]);
    let mut joined = String::new();
    let mut used = 0;
    for i in 1..=n + 1 {
        let is = i.to_string();
        let args = ["--slices", &ns, "--window", &w, "--slice", &is];
        let (code, a) = verbatim(f, &args);
        if i == 1 {
            let (_, b) = verbatim(f, &args);
            assert_eq!(a, b, "{}: slice {i} is not deterministic", f.display());
        }
        assert_eq!(code, 0, "{}: slice {i} must exit 0 (ELI-025)", f.display());
        assert!(
            units(&a) <= window,
            "{}: slice {i} has {} units > {window}",
            f.display(),
            units(&a)
        );
        if i == n + 1 {
            assert!(a.is_empty(), "a slice out of range prints nothing");
        }
        // Whole turns: a slice starts at a turn header.
        if !a.is_empty() {
            assert!(
                a.starts_with("── turn ") || a.starts_with("── before the first prompt"),
                "{}: slice {i}",
                f.display()
            );
            used += 1;
        }
        joined.push_str(&a);
    }
    assert_eq!(
        joined,
        whole,
        "{}: slices do not concatenate to the unsliced output",
        f.display()
    );
    // Whole turns, by the JSON rows: each kept turn is in one slice, in order.
    let (_, js) = verbatim(f, &["--slices", &ns, "--window", &w, "--format", "json"]);
    let rows = json_lines(js.as_bytes());
    let turns: Vec<&Value> = rows.iter().filter(|r| r["type"] == "turn").collect();
    let text: String = turns.iter().map(|r| r["text"].as_str().unwrap()).collect();
    assert_eq!(text, whole);
    let nums: Vec<u64> = turns.iter().map(|r| r["turn"].as_u64().unwrap()).collect();
    assert!(
        nums.windows(2).all(|p| p[0] < p[1]),
        "{}: turns out of order {nums:?}",
        f.display()
    );
    // Without a cut turn, the same text is the unsliced walk at that budget.
    if !whole.is_empty() && turns.iter().all(|r| r["cut"] == false) {
        let b = units(&whole).to_string();
        let (_, plain) = verbatim(f, &["--budget", &b]);
        assert_eq!(
            plain,
            whole,
            "{}: sliced selection differs from --budget {b}",
            f.display()
        );
    }
    used
}

#[test]
fn slices_are_deterministic_whole_turns_under_the_window_misc_012_eli_025() {
    let all = files();
    let n_files = all.len();
    // Process start-up dominates; eight workers keep the corpus pass short.
    let used: usize = std::thread::scope(|sc| {
        let workers: Vec<_> = all
            .chunks(all.len().div_ceil(8))
            .map(|chunk| {
                sc.spawn(move || {
                    let mut used = 0;
                    for f in chunk {
                        used += check_slices(f, 4, 9000);
                        // Small windows force multi-slice packing; big files add time, not cases.
                        if std::fs::metadata(f).unwrap().len() < 400_000 {
                            used += check_slices(f, 3, 1500);
                        }
                    }
                    used
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    });
    assert!(n_files >= 6);
    assert!(
        used > n_files,
        "slicing was never exercised: {used} slices over {n_files} files"
    );
}

/// The budget walk, checked against the unlimited selection of the same file:
/// the kept turns are exactly the newest rendered turns whose whole texts fit,
/// walking back from the end, printed oldest first; the newest is always kept
/// (cut when it alone is over the budget), and only it may be cut.
#[test]
fn budget_keeps_whole_turns_from_the_end_oldest_first() {
    const BUDGET: u64 = 6000;
    let turn_rows = |f: &Path, budget: u64| -> Vec<Value> {
        let (_, js) = verbatim(f, &["--budget", &budget.to_string(), "--format", "json"]);
        let rows = json_lines(js.as_bytes());
        assert_eq!(rows.last().unwrap()["type"], "summary");
        let chars: u64 = rows
            .iter()
            .filter(|r| r["type"] == "turn")
            .map(|r| r["chars"].as_u64().unwrap())
            .sum();
        assert_eq!(rows.last().unwrap()["chars"].as_u64(), Some(chars));
        rows.into_iter().filter(|r| r["type"] == "turn").collect()
    };
    let (mut checked, mut partial) = (0, 0);
    for f in files() {
        let all = turn_rows(&f, 1 << 40);
        assert!(all.iter().all(|r| r["cut"] == false), "{}", f.display());
        // Walk back from the newest: take a turn while the whole of it fits.
        let mut want: Vec<u64> = Vec::new();
        let mut used = 0;
        for r in all.iter().rev() {
            let c = r["chars"].as_u64().unwrap();
            if used + c > BUDGET {
                if want.is_empty() {
                    want.push(r["turn"].as_u64().unwrap()); // cut to fit
                }
                break;
            }
            used += c;
            want.push(r["turn"].as_u64().unwrap());
        }
        want.reverse();
        let kept = turn_rows(&f, BUDGET);
        let got: Vec<u64> = kept.iter().map(|r| r["turn"].as_u64().unwrap()).collect();
        assert_eq!(got, want, "{}", f.display());
        let chars: u64 = kept.iter().map(|r| r["chars"].as_u64().unwrap()).sum();
        assert!(chars <= BUDGET, "{}: {chars} > budget", f.display());
        // Only the newest (and then only) turn may be cut.
        for r in kept.iter().rev().skip(1) {
            assert_eq!(r["cut"], false, "{}", f.display());
        }
        if !want.is_empty() {
            assert_eq!(
                want.last(),
                all.last().map(|r| r["turn"].as_u64().unwrap()).as_ref()
            );
            checked += 1;
        }
        partial += usize::from(got.len() < all.len() && got.len() > 1);
    }
    // Not vacuous: the budget dropped older turns and kept several whole ones.
    assert!(checked > 5 && partial > 3, "{checked} {partial}");
}

/// A small budget is kept as given (`--budget 0` printed 399 characters and
/// reported a budget of 400): the newest turn is cut to fit, down to nothing.
#[test]
fn a_small_budget_is_honoured_not_raised() {
    let f = files()
        .into_iter()
        .max_by_key(|f| std::fs::metadata(f).unwrap().len())
        .unwrap();
    for b in [0u64, 1, 10, 399] {
        let (_, js) = verbatim(&f, &["--budget", &b.to_string(), "--format", "json"]);
        let summary = json_lines(js.as_bytes()).pop().unwrap();
        assert_eq!(summary["budget"], b, "{summary}");
        assert!(summary["chars"].as_u64().unwrap() <= b, "{summary}");
        let (_, text) = verbatim(&f, &["--budget", &b.to_string()]);
        assert!(
            units(&text) as u64 <= b + 1,
            "--budget {b}: {} chars",
            units(&text)
        );
    }
}

fn session_with_compaction() -> (Home, PathBuf) {
    let home = Home::new();
    let mut s = Session::new("55555555-2222-4333-8444-555555555555", "/w/v");
    s.user("turn one prompt");
    s.thinking("msg_1", "secret reasoning");
    s.text("msg_1", "turn one reply");
    s.user("turn two prompt");
    s.tool_use(
        "msg_2",
        "toolu_1",
        "Bash",
        json!({"command": "cargo test", "description": "tests"}),
    );
    s.tool_result(
        "toolu_1",
        "line a\nline b\nline c",
        false,
        Some(json!({"stdout": "line a\nline b\nline c", "stderr": ""})),
    );
    s.system(
        "compact_boundary",
        json!({"compactMetadata": {"trigger": "auto", "preTokens": 1000}}),
    );
    s.push(json!({"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
        "message": {"role": "user", "content": "This session is being continued. Summary: we ran tests."}}));
    s.meta("<system-reminder>hook additional context: injected earlier</system-reminder>");
    s.text("msg_3", "after compaction reply");
    s.user("turn three prompt");
    s.text("msg_4", "turn three reply");
    let p = home.write("-w-v", &s.file_name(), &s.lines);
    (home, p)
}

#[test]
fn compaction_summary_is_a_turn_member_not_a_delimiter_cmp_011() {
    let (_home, p) = session_with_compaction();
    let (code, out) = verbatim(&p, &[]);
    assert_eq!(code, 0);
    let order = [
        "turn one prompt",
        "turn two prompt",
        "compaction summary (L8)",
        "we ran tests",
        "after compaction reply",
        "turn three reply",
    ];
    let mut at = 0;
    for w in order {
        let i = out[at..]
            .find(w)
            .unwrap_or_else(|| panic!("{w:?} missing or out of order in:\n{out}"));
        at += i;
    }
    assert!(
        !out.contains("secret reasoning"),
        "thinking is off by default"
    );
    assert!(
        !out.contains("injected earlier"),
        "hook context is never re-injected"
    );
    assert!(out.contains("[tool] Bash $ cargo test → 3 lines"), "{out}");
    let (_, js) = verbatim(&p, &["--format", "json"]);
    let rows = json_lines(js.as_bytes());
    let s = rows.last().unwrap();
    assert_eq!(
        (
            s["compaction_summaries_spanned"].as_u64(),
            s["compaction_summaries_total"].as_u64()
        ),
        (Some(1), Some(1))
    );
}

#[test]
fn thinking_and_full_tools_on_request() {
    let (_home, p) = session_with_compaction();
    let (_, out) = verbatim(&p, &["--thinking", "--tools", "full"]);
    assert!(out.contains("[thinking] secret reasoning"), "{out}");
    assert!(out.contains("[tool Bash] $ cargo test"), "{out}");
    assert!(
        out.contains("[tool result] stdout:\nline a\nline b\nline c"),
        "{out}"
    );
}

#[test]
fn an_oversize_turn_is_cut_with_a_marker() {
    let home = Home::new();
    let mut s = Session::new("66666666-2222-4333-8444-555555555555", "/w/x");
    s.user("small old prompt");
    s.user(&format!("huge {}", "漢字😀".repeat(3000)));
    let p = home.write("-w-x", &s.file_name(), &s.lines);
    let (_, out) = verbatim(&p, &["--budget", "2000"]);
    assert!(units(&out) <= 2000, "{}", units(&out));
    assert!(
        out.contains("characters of this turn cut to fit a 2000-character window"),
        "{out}"
    );
    assert!(
        !out.contains("small old prompt"),
        "older turns do not fit after a full window"
    );
    let (_, out) = verbatim(&p, &["--slices", "2", "--window", "1000"]);
    assert!(
        out.contains("small old prompt") && out.contains("cut to fit a 1000-character window"),
        "{out}"
    );
}

#[test]
fn a_resume_replay_is_rendered_once_rec_091() {
    let home = Home::new();
    let mut s = Session::new("77777777-2222-4333-8444-555555555555", "/w/y");
    s.user("only prompt");
    s.text("msg_1", "only reply");
    let replay: Vec<Value> = s
        .lines
        .iter()
        .map(|l| {
            let mut c = l.clone();
            c["slug"] = json!("calm-heron");
            c
        })
        .collect();
    for l in replay {
        s.raw(l);
    }
    s.user("new prompt");
    let p = home.write("-w-y", &s.file_name(), &s.lines);
    let (_, out) = verbatim(&p, &[]);
    assert_eq!(out.matches("only reply").count(), 1, "{out}");
    assert!(out.find("only reply") < out.find("new prompt"));
}

#[test]
fn hook_json_nests_under_hook_specific_output_eli_021() {
    let (_home, p) = session_with_compaction();
    let out = csift()
        .arg("verbatim")
        .arg(&p)
        .args(["--hook-json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .contains("turn three reply"));
    assert!(v.get("additionalContext").is_none());
}

/// The isMeta prompt a slash command expands to is not re-injected (meta lines
/// never are; it was one collapsed `[command]` line of up to 13 K chars), while
/// the invocation itself is; a prompt's attached image is described (its media
/// type and size), not dropped.
#[test]
fn command_expansions_stay_out_and_images_are_noted_img_001() {
    if let Some(home) = corpus() {
        let out = csift()
            .args(["verbatim", "@99677899", "--claude-home"])
            .arg(&home)
            .output()
            .unwrap();
        let s = String::from_utf8_lossy(&out.stdout);
        // As typed (TURN-008), not the wrapper XML.
        assert!(s.contains("[command] /erk:plan-implement\n"), "{s}");
        assert!(!s.contains("# /erk:plan-implement"), "{s}");
    }
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home");
    let out = csift()
        .args(["verbatim", "@a80f1152", "--claude-home"])
        .arg(&sample)
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("原因を調べてもらえますか？\n[image: image/png, 716 B]\n"),
        "{s}"
    );
}

/// Older turns the budget leaves out are said (on stderr, so the text stays
/// within the budget): the output began at turn 3 of 4 with no word of it.
#[test]
fn corpus_older_turns_left_out_are_said() {
    let Some(home) = corpus() else { return };
    let out = csift()
        .args(["verbatim", "@4d5611e5", "--claude-home"])
        .arg(&home)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("turns 3–4 of 4 kept; turns before 3 left out"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("── turn 3 "));
    let all = csift()
        .args([
            "verbatim",
            "@4d5611e5",
            "--budget",
            "1000000",
            "--claude-home",
        ])
        .arg(&home)
        .output()
        .unwrap();
    assert!(
        all.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&all.stderr)
    );
}

/// Slicing mistakes are errors, not silent: `--slice 0` (slices count from 1;
/// only a slice past N is the empty ELI-025 case) and `--window` without
/// `--slices`, which would otherwise be ignored.
#[test]
fn slice_zero_and_a_window_without_slices_are_errors_eli_025() {
    let f = files().into_iter().next().unwrap();
    for args in [
        &["--slices", "4", "--slice", "0"][..],
        &["--window", "9000"][..],
    ] {
        let out = csift().arg("verbatim").arg(&f).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let (code, text) = verbatim(&f, &["--slices", "4", "--slice", "5"]);
    assert_eq!((code, text.as_str()), (0, ""));
}

/// `csift verbatim ARGS --claude-home <public corpus>`.
fn on_corpus(home: &Path, args: &[&str]) -> std::process::Output {
    csift()
        .arg("verbatim")
        .args(args)
        .arg("--claude-home")
        .arg(home)
        .output()
        .unwrap()
}

/// A budget too small for any turn, even cut, keeps none and says so: at
/// --budget 10 every turn of 4d5611e5 was a kept row with empty text.
#[test]
fn a_budget_that_holds_no_turn_keeps_none_and_says_so() {
    let Some(home) = common::corpus() else { return };
    let run = |format: &str| on_corpus(&home, &["@4d5611e5", "--budget", "10", "--format", format]);
    let out = run("json");
    assert_eq!(out.status.code(), Some(1));
    let rows = common::json_lines(&out.stdout);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["type"], "summary");
    assert_eq!(rows[0]["turns"], 0);
    assert_eq!(rows[0]["turns_total"], 4);
    let out = run("human");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no turn of 4 fits the 10-char budget"));
}

/// A cut turn's JSON row says how much was cut, as its marker does.
#[test]
fn a_cut_turn_row_counts_what_was_cut() {
    let Some(home) = common::corpus() else { return };
    let out = on_corpus(&home, &["@4d5611e5", "--budget", "200", "--format", "json"]);
    let rows = common::json_lines(&out.stdout);
    let cut: Vec<&Value> = rows.iter().filter(|r| r["cut"] == true).collect();
    assert!(!cut.is_empty());
    for r in cut {
        let n = r["cut_chars"].as_u64().unwrap();
        assert!(n > 0);
        let said = format!("verbatim: {n} characters of this turn cut");
        assert!(r["text"].as_str().unwrap().contains(&said), "{r}");
    }
    assert!(rows
        .iter()
        .filter(|r| r["type"] == "turn" && r["cut"] == false)
        .all(|r| r["cut_chars"] == 0));
}

/// With --slice, the summary counts that slice: its turns and characters add
/// up over the slices to the whole fleet's (turns counted all slices while
/// chars counted one).
#[test]
fn a_slice_summary_counts_that_slice_eli_025() {
    let Some(home) = common::corpus() else { return };
    let summary = |extra: &[&str]| {
        let args = [
            &["@4d5611e5", "--slices", "4", "--format", "json"][..],
            extra,
        ]
        .concat();
        let out = on_corpus(&home, &args);
        common::json_lines(&out.stdout).pop().unwrap()
    };
    let whole = summary(&[]);
    let used = whole["slices_used"].as_u64().unwrap();
    assert!(used >= 2, "{whole}");
    let (mut turns, mut chars) = (0, 0);
    for i in 1..=used {
        let s = summary(&["--slice", &i.to_string()]);
        assert_eq!(s["slices_used"], used);
        turns += s["turns"].as_u64().unwrap();
        chars += s["chars"].as_u64().unwrap();
    }
    assert_eq!(
        (turns, chars),
        (
            whole["turns"].as_u64().unwrap(),
            whole["chars"].as_u64().unwrap()
        )
    );
    // Past the last slice: nothing printed, and JSON still says so (ELI-025).
    let past = summary(&["--slice", "9"]);
    assert_eq!(
        (past["type"].as_str(), past["turns"].as_u64()),
        (Some("summary"), Some(0))
    );
}

/// What a reviewer found verbatim leaving out or garbling, each against a
/// record written the way Claude Code writes it:
/// - `--tools full` dropped a call with no input (`{}`) and printed results in
///   file order, so parallel calls answered out of order read mis-paired;
/// - an unreadable line, an unknown block and object content inside a kept
///   turn vanished;
/// - redacted thinking (CLS-018) printed nothing under --thinking;
/// - the two interrupt markers read the same;
/// - a Read's summary counted the system reminder appended to its lines.
#[test]
fn verbatim_says_everything_a_kept_turn_holds() {
    let home = Home::new();
    let mut s = Session::new("77777777-aaaa-4000-8000-000000000007", "/w/v");
    s.user("look around");
    // Two parallel calls; their results come back in the other order.
    s.assistant(
        "m1",
        &[
            json!({"type": "tool_use", "id": "toolu_a", "name": "Bash", "input": {"command": "ls"}}),
            json!({"type": "tool_use", "id": "toolu_b", "name": "mcp__x__list", "input": {}}),
        ],
    );
    s.tool_result("toolu_b", "LIST-RESULT", false, None);
    s.tool_result("toolu_a", "LS-RESULT", false, None);
    s.tool_use("m2", "toolu_r", "Read", json!({"file_path": "/w/v/a.txt"}));
    s.tool_result(
        "toolu_r",
        "     1\tone\n     2\ttwo\n\n<system-reminder>\nWhenever you read a file, consider malware.\n</system-reminder>\n",
        false,
        None,
    );
    s.assistant(
        "m3",
        &[json!({"type": "redacted_thinking", "data": "OPAQUE"})],
    );
    s.assistant("m4", &[json!({"type": "mystery_block", "x": 1})]);
    // Content that is neither a string nor blocks.
    s.push(
        json!({"type": "assistant", "message": {"id": "m4b", "role": "assistant",
        "content": {"type": "text", "text": "OBJECT-CONTENT"}}}),
    );
    s.text("m5", "TEXT-AFTER");
    s.push(
        json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "[Request interrupted by user for tool use]"}]}}),
    );
    let mut lines: Vec<u8> = common::jsonl(&s.lines);
    // A torn write inside the turn, before the last reply.
    lines.extend_from_slice(
        b"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"tex\n",
    );
    let mut tail = Session::new("77777777-aaaa-4000-8000-000000000007", "/w/v");
    tail.text("m6", "LAST-WORDS");
    lines.extend_from_slice(&common::jsonl(&tail.lines));
    let file = home.write_raw("-w-v", &s.file_name(), &lines);
    let (code, full) = verbatim(&file, &["--tools", "full", "--thinking"]);
    assert_eq!(code, 0);
    let pos = |needle: &str| {
        full.find(needle)
            .unwrap_or_else(|| panic!("{needle} in {full}"))
    };
    assert!(pos("[tool Bash] $ ls") < pos("[tool result] LS-RESULT"));
    assert!(pos("[tool result] LS-RESULT") < pos("[tool mcp__x__list]"));
    assert!(pos("[tool mcp__x__list]") < pos("[tool result] LIST-RESULT"));
    pos("[thinking] [redacted thinking: its content is opaque]");
    pos("unknown type `mystery_block`");
    assert!(pos("JSON type `object`, neither text nor blocks") < pos("TEXT-AFTER"));
    pos("[interrupted by the user during a tool call]");
    assert!(pos("is not a readable record") < pos("LAST-WORDS"));
    // Each marker's command runs as printed and prints the line it names.
    let said = regex::Regex::new(r"left out: csift show (\S+) --line (\d+) --raw\]").unwrap();
    let raw = std::fs::read_to_string(&file).unwrap();
    let mut run = 0;
    for c in said.captures_iter(&full) {
        // Named by its path: the file was given outside any selected home.
        assert_eq!(&c[1], file.display().to_string(), "{full}");
        let out = home
            .cmd()
            .args(["show", &c[1], "--line", &c[2], "--raw"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{:?}", &c[0]);
        let n: usize = c[2].parse().unwrap();
        let line = raw.lines().nth(n - 1).unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap().trim_end(), line);
        run += 1;
    }
    assert_eq!(run, 3, "{full}");
    let (_, summary) = verbatim(&file, &[]);
    assert!(
        summary.contains("[tool] Read /w/v/a.txt → 2 lines"),
        "{summary}"
    );
}

/// Turn 0 (what came before the first prompt: 9d440bfc's opening command and
/// tool work) left out by the budget is said, on stderr and in JSON, as older
/// turns are; with room for it, nothing is said.
#[test]
fn turn_zero_left_out_is_said() {
    let Some(home) = common::corpus() else { return };
    let run = |budget: &str, format: &str| {
        on_corpus(
            &home,
            &["@9d440bfc", "--budget", budget, "--format", format],
        )
    };
    let out = run("500", "human");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("before the first prompt (turn 0) left out")
    );
    let s = common::json_lines(&run("500", "json").stdout)
        .pop()
        .unwrap();
    assert_eq!(
        (s["turns"].as_u64(), s["left_out_before"].as_u64()),
        (Some(1), Some(1))
    );
    let out = run("1000000", "human");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = common::json_lines(&run("1000000", "json").stdout)
        .pop()
        .unwrap();
    assert!(s["left_out_before"].is_null());
    assert_eq!(s["turns"], 2);
}

/// A cut turn that holds a compaction summary says so in its marker, with the
/// line that prints the summary whole: the cut can fall inside it (the
/// corpus's 3ae3ab59, whose turn 5 holds the summary of line 414).
#[test]
fn a_cut_turn_names_the_compaction_summary_it_holds() {
    let Some(home) = corpus() else { return };
    let f = transcripts(&home)
        .into_iter()
        .find(|f| f.to_string_lossy().contains("3ae3ab59"))
        .unwrap();
    let (code, out) = verbatim(
        &f,
        &["--slices", "6", "--window", "10000", "--format", "json"],
    );
    assert_eq!(code, 0);
    let turns: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v["type"] == "turn")
        .collect();
    let held: Vec<&serde_json::Value> = turns
        .iter()
        .filter(|t| t["compaction_summaries"] == serde_json::json!([414]))
        .collect();
    assert_eq!(held.len(), 1);
    assert!(held[0]["cut_chars"].as_u64().unwrap() > 0);
    let text = held[0]["text"].as_str().unwrap();
    // The file was named outside any selected home: the command names it.
    assert!(
        text.contains(&format!(
            "window; the turn holds the compaction summary of line 414, whole in `csift show {} --line 414 --no-truncate` …]",
            f.display()
        )),
        "{text}"
    );
    assert!(units(text) <= 10000);
    // A cut turn without a summary names none.
    for t in turns
        .iter()
        .filter(|t| t["compaction_summaries"] == serde_json::json!([]))
    {
        assert!(!t["text"].as_str().unwrap().contains("holds the compaction"));
    }
}

/// A notification is what the model was told and is kept whole (the corpus's
/// 4d5611e5:1502 ends with the task's output file, which a 300-character cap
/// dropped without a word); a command's output keeps its head with a marker
/// that counts the rest and runs as printed, and is whole with --tools full.
#[test]
fn notifications_are_whole_and_a_cut_command_output_is_counted() {
    let home = Home::new();
    let mut s = Session::new("77777777-bbbb-4000-8000-000000000008", "/w/n");
    s.user("watch the build");
    s.text("m1", "started");
    let path = "/tmp/claude-1000/-w-n/tasks/b7636e2.output";
    s.user(&format!(
        "<task-notification>\n<task-id>b7636e2</task-id>\n<status>completed</status>\n<summary>{}</summary>\nRead the output file to retrieve the result: {path}\n</task-notification>",
        "background build finished with warnings; ".repeat(8)
    ));
    s.text("m2", "noted");
    s.user("<command-name>/cost</command-name>\n<command-message>cost</command-message>\n<command-args></command-args>");
    let stdout: String = (0..60).map(|i| format!("cost line {i:02}\n")).collect();
    s.user(&format!(
        "<local-command-stdout>{stdout}</local-command-stdout>"
    ));
    s.text("m3", "done");
    let file = home.write("-w-n", &s.file_name(), &s.lines);
    let (code, text) = verbatim(&file, &[]);
    assert_eq!(code, 0);
    let note = text
        .lines()
        .find(|l| l.starts_with("[notification]"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(note.len() > 400 && note.contains(path), "{note}");
    let marker = regex::Regex::new(
        r"\[… (\d+) characters cut; `csift show (\S+) --line (\d+) --no-truncate` prints them …\]",
    )
    .unwrap();
    let c = marker.captures(&text).unwrap_or_else(|| panic!("{text}"));
    assert!(text.contains("[command output] cost line 00"), "{text}");
    assert!(!text.contains("cost line 59"), "{text}");
    // The command runs as printed and prints the output whole.
    let out = home
        .cmd()
        .args(["show", &c[2], "--line", &c[3], "--no-truncate"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let shown = String::from_utf8(out.stdout).unwrap();
    assert!(shown.contains("cost line 59"), "{shown}");
    // The count is what the head left out of the output, wrapper tags aside.
    let kept = text
        .split("[command output] ")
        .nth(1)
        .and_then(|t| t.split("[…").next())
        .unwrap();
    assert_eq!(units(kept), 500, "{text}");
    let n: usize = c[1].parse().unwrap();
    assert_eq!(n, units(&stdout) - 500);
    let (_, full) = verbatim(&file, &["--tools", "full"]);
    assert!(
        full.contains("cost line 59") && !full.contains("characters cut"),
        "{full}"
    );
}

/// The stderr line that says older turns were left out names what stopped the
/// walk: with slicing the windows can be full while the budget has room (the
/// corpus's 0cf3db51 fills 4 windows of 9000 with 25,640 of 36,000 units).
#[test]
fn the_left_out_line_names_the_windows_or_the_budget() {
    let Some(home) = common::corpus() else { return };
    let run = |args: &[&str]| {
        let out = csift()
            .args(["verbatim", "@0cf3db51"])
            .args(args)
            .arg("--claude-home")
            .arg(&home)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stderr).unwrap()
    };
    let err = run(&["--slices", "4", "--window", "9000"]);
    assert!(
        err.contains("does not fit: the 4 windows of 9000 are full; raise --slices or --window"),
        "{err}"
    );
    let err = run(&["--budget", "5000"]);
    assert!(
        err.contains("does not fit: past the 5000-char budget; raise --budget"),
        "{err}"
    );
}

/// A line of a kept turn that lost its `"type"` key (a torn record: Claude Code
/// writes the key near the end) or is no object at all is said in place like
/// any unreadable line; verbatim's message prefilter used to skip it silently.
#[test]
fn an_unreadable_line_without_a_type_key_is_said_in_place() {
    let home = Home::new();
    let mut s = Session::new("77777777-aaaa-4000-8000-00000000000a", "/w/v");
    s.user("look around");
    s.text("m1", "FIRST-WORDS");
    s.text("m2", "LAST-WORDS");
    let mut lines: Vec<String> = s
        .lines
        .iter()
        .map(|v| serde_json::to_string(v).unwrap())
        .collect();
    // Line 3 cut short before its "type" key; line 4 an array.
    let torn = lines[2].clone();
    let cut = torn.find("\"type\"").unwrap().min(120);
    lines.insert(2, torn[..cut].to_string());
    lines.insert(3, r#"["an","array"]"#.to_string());
    let bytes = lines.join("\n") + "\n";
    home.write_raw("-w-v", &s.file_name(), bytes.as_bytes());
    let out = home.cmd().args(["verbatim", "@77777777"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("[csift: line 3 is not a readable record (invalid-json)"),
        "{text}"
    );
    assert!(
        text.contains("[csift: line 4 is not a readable record (not-an-object)"),
        "{text}"
    );
    assert!(text.contains("FIRST-WORDS") && text.contains("LAST-WORDS"));
}

/// `@session` whose main transcript is missing selects its one lane; verbatim
/// rebuilt that lane as if it were the session (a compacted agent would take a
/// subagent's conversation for its own). It is an error naming the lane, and
/// the lane named by its own id is rebuilt.
#[test]
fn a_session_without_its_main_file_does_not_rebuild_its_lane_as_itself() {
    let home = Home::new();
    let sid = "77777777-aaaa-4000-8000-00000000000b";
    let mut lane = Session::lane(sid, "/w/v", "a1234567890abcdef");
    lane.user("explore the code");
    lane.text("m1", "LANE-WORDS");
    home.write(
        "-w-v",
        &format!("{sid}/subagents/agent-a1234567890abcdef.jsonl"),
        &lane.lines,
    );
    let out = home.cmd().args(["verbatim", "@77777777"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!(
            "session {sid} has no main transcript here, only its lane @{sid}@a1234567890abcdef"
        )),
        "{err}"
    );
    for target in ["@a1234567", "@77777777@a123"] {
        let out = home.cmd().args(["verbatim", target]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{target}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("LANE-WORDS"));
    }
}

/// A hook payload's `transcript_path` written `~/…` is read against `$HOME`,
/// as guard reads it; it was taken literally and failed with exit 2.
#[test]
fn hook_json_expands_a_tilde_transcript_path() {
    let (home, p) = session_with_compaction();
    let rel = p.strip_prefix(home.path()).unwrap();
    let payload = json!({"transcript_path": format!("~/{}", rel.display())}).to_string();
    let out = csift()
        .args(["verbatim", "--hook-json"])
        .env("HOME", home.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .write_stdin(payload)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .contains("turn three reply"));
}
