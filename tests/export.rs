//! `csift export`: pages of the sample home and of a hostile transcript,
//! opened in a real headless Chromium (tests/browser/check.py over the
//! DevTools pipe), plus the output rules (never under the Claude home, never
//! over a file without --force) and the Markdown form.
//!
//! The browser test skips, saying so loudly, only where no chromium is
//! installed and CI is not set; `.ci/run` installs Debian's `chromium`, and
//! under CI=true a missing browser fails the test.

use std::path::{Path, PathBuf};
use std::process::Command as Std;

use serde_json::{json, Value};

use crate::common::{self, Home, Session};

const SID: &str = "5e55a0e1-0000-4000-8000-00000000c0de";
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFklEQVR4nGM4ISdHEmIY1TCqYfhqAADkYgQQ60fIxgAAAABJRU5ErkJggg==";
const SCRIPT: &str = "<script>window.__pwned = 'prompt'; document.title = 'PWNED'</script>";

fn chromium() -> Option<PathBuf> {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("no chromium under CI=true: .ci/run installs Debian's chromium; the browser test must run");
    }
    eprintln!(
        "\n\n!!!!!!!! SKIPPING the export browser test: no chromium on PATH !!!!!!!!\n\
         !!!!!!!! apt-get install chromium (.ci/run does) to run it       !!!!!!!!\n"
    );
    None
}

/// A lane file spawned by `spawn` in its parent, one level of the tree.
fn lane(home: &Home, project: &str, agent: &str, spawn: &str, child: Option<(&str, &str)>) {
    let mut l = Session::lane(SID, "/work/app", agent);
    l.user(&format!(
        "Seed of {agent}: look at </details></section> and {SCRIPT}"
    ));
    l.text(&format!("m-{agent}"), &format!("{agent} working"));
    if let Some((id, kid)) = child {
        l.tool_use(
            &format!("m2-{agent}"),
            id,
            "Task",
            json!({"description": "deeper", "prompt": format!("Seed of {kid}")}),
        );
        l.tool_result(
            id,
            &format!("{kid} done"),
            false,
            Some(json!({"status": "completed", "agentId": kid})),
        );
    }
    l.text(&format!("m3-{agent}"), &format!("{agent} returns"));
    let dir = format!("{project}/{SID}/subagents");
    home.write(&dir, &format!("agent-{agent}.jsonl"), &l.lines);
    let meta = json!({"agentType": "general-purpose", "description": format!("lane {agent}"), "toolUseId": spawn});
    home.write_raw(
        &dir,
        &format!("agent-{agent}.meta.json"),
        meta.to_string().as_bytes(),
    );
}

/// A transcript built to break a page: markup and escape sequences in every
/// kind of text, a 5 MB tool result, a lane tree three deep, images, a record
/// and a block csift does not model, a malformed line, eaten text, a call
/// with no result, a compaction.
fn hostile(home: &Home) -> PathBuf {
    let project = "-work-app";
    let mut s = Session::new(SID, "/work/app");
    s.raw(json!({"type": "custom-title", "customTitle": format!("Hostile {SCRIPT}"), "sessionId": SID}));
    s.push(json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": format!("First prompt {SCRIPT} </details></div> \u{1b}[31mred\u{1b}[0m &amp;")},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]}}));
    s.thinking(
        "m1",
        "thinking about </details><script>window.__pwned='thinking'</script>",
    );
    s.text(
        "m1",
        "Reply with <img src=x onerror=\"window.__pwned='img'\"> and ``` fences ````",
    );
    let big = "line of a large result <b>bold?</b>\n".repeat(5 * 1024 * 1024 / 36);
    s.tool_use(
        "m2",
        "toolu_big",
        "Bash",
        json!({"command": "cat big </details>"}),
    );
    s.tool_result("toolu_big", &big, false, None);
    s.tool_use("m3", "toolu_err", "Bash", json!({"command": "false"}));
    s.tool_result(
        "toolu_err",
        "<script>window.__pwned='error'</script> exit 1",
        true,
        None,
    );
    s.tool_use(
        "m4",
        "toolu_lane1",
        "Task",
        json!({"description": "top lane", "prompt": "Seed of a1"}),
    );
    s.tool_result(
        "toolu_lane1",
        "a1 done\nagentId: a1 (use SendMessage)",
        false,
        Some(json!({"status": "completed", "agentId": "a1"})),
    );
    s.user(&format!("Second prompt {SCRIPT}"));
    s.tool_use(
        "m5",
        "toolu_shot",
        "Read",
        json!({"file_path": "/tmp/shot.png"}),
    );
    s.push(json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_shot", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]}]}}));
    s.thinking("m6", "first half");
    s.thinking("m6", "second half, the text between was eaten");
    s.push(json!({"type": "brand-new-record", "payload": "<script>window.__pwned='raw'</script>"}));
    s.push(json!({"type": "assistant", "message": {"id": "m7", "role": "assistant", "model": "claude-opus-4-5-20251101", "content": [
        {"type": "hologram", "data": "</details><script>window.__pwned='block'</script>"}]}}));
    s.raw(Value::String(
        "{\"type\":\"user\",\"message\": <script>torn".into(),
    ));
    s.system("compact_boundary", json!({"content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 150000}}));
    s.push(json!({"type": "user", "isCompactSummary": true, "message": {"role": "user", "content": format!("This session is being continued. Summary: {SCRIPT}")}}));
    s.user("Third prompt, after the compaction");
    s.tool_use("m8", "toolu_open", "Bash", json!({"command": "sleep 1000"}));
    s.user("Fourth prompt: the call above never got its result");
    s.text("m9", "done");
    let main = home.write(project, &s.file_name(), &s.lines);
    lane(home, project, "a1", "toolu_lane1", Some(("toolu_l2", "a2")));
    lane(home, project, "a2", "toolu_l2", Some(("toolu_l3", "a3")));
    lane(home, project, "a3", "toolu_l3", None);
    main
}

fn export(home: &Home, target: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    home.cmd()
        .args(["export", target, "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

fn check_pages(pages: &[(PathBuf, Option<PathBuf>)]) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/check.py");
    let args: Vec<String> = pages
        .iter()
        .map(|(p, shot)| match shot {
            Some(s) => format!("{}={}", p.display(), s.display()),
            None => p.display().to_string(),
        })
        .collect();
    let out = Std::new("python3")
        .arg(script)
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "check.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    common::json_lines(&out.stdout)
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn pages_open_in_a_real_chromium_with_nothing_run_or_fetched() {
    let Some(_) = chromium() else { return };
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home");
    let home = Home::new();
    hostile(&home);
    let dir = tempfile::tempdir().unwrap();
    let (hostile_page, sample_page) = (
        dir.path().join("hostile.html"),
        dir.path().join("sample.html"),
    );
    let o = export(
        &home,
        &format!("@{SID}"),
        &hostile_page,
        &["--highlight", "prompt"],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = common::csift()
        .args(["export", "@c2c80c1d", "--claude-home"])
        .arg(&sample)
        .arg("--out")
        .arg(&sample_page)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let shot = dir.path().join("sample.png");
    let reports = check_pages(&[
        (hostile_page.clone(), None),
        (sample_page, Some(shot.clone())),
    ]);
    for r in &reports {
        let page = r["page"].as_str().unwrap();
        assert_eq!(
            strs(&r["console"]),
            Vec::<String>::new(),
            "{page}: console errors"
        );
        assert_eq!(
            strs(&r["requests"]),
            Vec::<String>::new(),
            "{page}: fetched something"
        );
        assert_eq!(
            r["scripts"], 1,
            "{page}: only the page's own script element"
        );
        assert_eq!(r["ran"][0], Value::Null, "{page}: a transcript script ran");
        assert_ne!(r["ran"][1], "PWNED", "{page}");
        assert_eq!(
            r["toggle"], "[true,false]",
            "{page}: a summary click opens and closes"
        );
        assert_eq!(
            r["collapse"], "[true,true]",
            "{page}: expand all, collapse all"
        );
    }
    let h = &reports[0];
    // Turns 0..4 of the main transcript, each a section (compaction does not
    // open a turn; the summary sits inside turn 2).
    assert_eq!(strs(&h["turns"]), ["t0", "t1", "t2", "t3", "t4"]);
    let text = h["text"].as_str().unwrap();
    for want in [
        "First prompt <script>window.__pwned = 'prompt'",
        "</details></div> ␛[31mred␛[0m &amp;",
        "Second prompt",
        "Third prompt, after the compaction",
        "Reply with <img src=x onerror=",
        "<script>window.__pwned='error'</script> exit 1",
        "brand-new-record",
        "hologram",
        "eaten text",
        "unanswered call",
        "malformed line",
        "subagent a1",
        "compaction boundary",
    ] {
        assert!(text.contains(want), "hostile page text lacks {want:?}");
    }
    let images: Vec<&Value> = h["images"].as_array().unwrap().iter().collect();
    assert_eq!(images.len(), 2, "the prompt's image and the Read's");
    for i in images {
        assert_eq!(i[0], true);
        assert_eq!(i[1], 16, "the PNG decoded: 16 px wide");
    }
    assert!(
        std::fs::metadata(&shot).unwrap().len() > 10_000,
        "a screenshot was taken"
    );
    let s = &reports[1];
    assert_eq!(strs(&s["turns"]), ["t0", "t1", "t2"]);
    assert!(s["text"]
        .as_str()
        .unwrap()
        .contains("is off by exactly one hour"));
}

/// The lane tree sits under the calls that spawned it, three deep, in file
/// order: a1 under toolu_lane1, a2 inside a1, a3 inside a2.
#[test]
fn lanes_nest_under_their_calls() {
    let home = Home::new();
    hostile(&home);
    let out = home
        .cmd()
        .args(["export", &format!("@{SID}"), "--out", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let page = String::from_utf8(out.stdout).unwrap();
    let at = |s: &str| page.find(s).unwrap_or_else(|| panic!("{s} missing"));
    let (a1, a2, a3) = (
        at("id=\"aa1-lane\""),
        at("id=\"aa2-lane\""),
        at("id=\"aa3-lane\""),
    );
    assert!(at("description: top lane") < a1 && a1 < a2 && a2 < a3 && a3 < at("Second prompt"));
    assert!(
        !page.contains("Lanes not placed"),
        "every lane has its call"
    );
    // No transcript byte became markup.
    assert!(!page.contains("<script>window"));
    assert!(!page.contains("</details></div>"));
    assert_eq!(page.matches("<script>").count(), 1);
}

#[test]
fn markdown_fences_outrun_backticks_and_quotes_escape_markup() {
    let home = Home::new();
    hostile(&home);
    let out = home
        .cmd()
        .args(["export", &format!("@{SID}"), "--format", "md", "--out", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.contains("> First prompt &lt;script&gt;"),
        "prompts are blockquotes, escaped"
    );
    assert!(md.contains("## Turn 4"));
    assert!(
        md.contains("### subagent a1"),
        "a lane is one heading level deeper"
    );
    assert!(md.contains("#### subagent a2"));
    // Markup only ever inside fenced blocks (code), never in prose.
    for l in md
        .lines()
        .filter(|l| l.starts_with("> ") || l.starts_with('#') || l.starts_with("- "))
    {
        assert!(!l.contains('<'), "markup outside a fence: {l}");
    }
    assert!(!md.contains('\u{1b}'), "escape bytes are pictures");
    // The reply holding ```` is quoted; a fenced body with backticks gets a longer fence.
    assert!(md.contains("Reply with &lt;img"));
}

#[test]
fn the_output_is_never_under_the_claude_home_nor_over_a_file_without_force() {
    let home = Home::new();
    hostile(&home);
    let target = format!("@{SID}");
    let inside = home.path().join("page.html");
    let o = export(&home, &target, &inside, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("inside the Claude home"));
    assert!(!inside.exists());
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.html");
    std::fs::write(&page, "keep me").unwrap();
    let o = export(&home, &target, &page, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    assert_eq!(std::fs::read_to_string(&page).unwrap(), "keep me");
    let o = export(&home, &target, &page, &["--force"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(std::fs::read_to_string(&page)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "no temporary file left behind");
    // A symlink out of the home that points into it is seen through.
    #[cfg(unix)]
    {
        let link = dir.path().join("into-home");
        std::os::unix::fs::symlink(home.path(), &link).unwrap();
        let o = export(&home, &target, &link.join("x.html"), &[]);
        assert_eq!(o.status.code(), Some(2));
    }
    // Two sessions are not one page.
    let o = home
        .cmd()
        .args(["export", "--out", "-"])
        .arg(home.projects())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "one session in the home is that session"
    );
}

/// The acceptance check on real transcripts: the page of each public
/// session holds every genuine prompt's text and loads nothing from outside
/// (no URL attribute but data: images and its own anchors).
#[test]
fn public_sessions_keep_every_prompt() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let mut checked = 0;
    for f in common::transcripts(&corpus)
        .iter()
        .filter(|p| !p.to_string_lossy().contains("subagents"))
        .take(12)
    {
        let out = common::csift()
            .args(["export", "--claude-home"])
            .arg(&corpus)
            .arg(f)
            .args(["--out", "-"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            f.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let page = String::from_utf8(out.stdout).unwrap();
        assert!(
            !page.contains("src=\"http") && !page.contains("href=\"http"),
            "{}",
            f.display()
        );
        let prompts = common::csift()
            .args([
                "search",
                "-t",
                "user.message",
                "^",
                "--format",
                "json",
                "--claude-home",
            ])
            .arg(&corpus)
            .arg(f)
            .output()
            .unwrap();
        for v in common::json_lines(&prompts.stdout)
            .iter()
            .filter(|v| v["type"] == "match")
        {
            let text = v["text"].as_str().unwrap();
            if text.trim_start().starts_with('<') {
                continue; // a slash command reads as typed, not as its wrapper
            }
            let head: String = text.chars().take(60).collect();
            let escaped = head
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
                .replace('\'', "&#39;");
            assert!(
                page.contains(escaped.trim_end()),
                "{}: prompt {head:?} missing",
                f.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 10, "only {checked} prompts checked");
}
