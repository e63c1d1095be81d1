//! The census cache under `stats` (issue 37): the output with the cache and
//! with `--no-cache` is byte-identical on the sample home, the public corpus
//! and a hostile home, after a first run, an unchanged run, an append, a torn
//! and then completed tail, a truncation, a rename-replacement, an mtime
//! change, a corrupt entry, and a lane file appearing beside nested records;
//! the cache is used (an unchanged home is not read again, an append is read
//! alone); its state lives in a temporary XDG_STATE_HOME, never under the
//! Claude home. (tests/usage.rs does the same for `usage`.)

use crate::common;

use std::path::{Path, PathBuf};

use common::{Home, Session};
use serde_json::json;

/// The commands that read through the cache, each in both output forms.
const CACHED: &[&[&str]] = &[
    &["stats"],
    &["stats", "--format", "json"],
    &["stats", "--by", "model", "--format", "json"],
    &["stats", "--no-subagents", "--format", "json"],
];

/// Copy a home (the corpus is never written to).
fn copy_home(from: &Path) -> tempfile::TempDir {
    let to = tempfile::tempdir().unwrap();
    for f in common::files_under(from) {
        let rel = f.strip_prefix(from).unwrap();
        let dst = to.path().join(rel);
        std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
        std::fs::copy(&f, &dst).unwrap();
    }
    to
}

/// The run's time is the one field that may differ between two runs.
fn normal(out: &[u8]) -> String {
    let s = String::from_utf8_lossy(out);
    let re = regex::Regex::new(r#""elapsed_ms":\d+"#).unwrap();
    re.replace_all(&s, "\"elapsed_ms\":0").into_owned()
}

struct Cached<'a> {
    home: &'a Path,
    state: &'a Path,
}

impl Cached<'_> {
    fn cmd(&self, args: &[&str]) -> assert_cmd::Command {
        let mut c = common::csift();
        c.env("TZ", "UTC")
            .env("XDG_STATE_HOME", self.state)
            .env("CSIFT_CACHE_STATS", "1")
            .args(args)
            .arg("--claude-home")
            .arg(self.home);
        c
    }

    /// Every cached command with the cache and with `--no-cache`: the same
    /// stdout, stderr and exit code. Returns the cache's report of the first
    /// command's cached run.
    fn same(&self, what: &str) -> String {
        let mut first = None;
        for args in CACHED {
            let cached = self.cmd(args).output().unwrap();
            let mut whole_args = args.to_vec();
            whole_args.push("--no-cache");
            let whole = self.cmd(&whole_args).output().unwrap();
            assert_eq!(
                normal(&cached.stdout),
                normal(&whole.stdout),
                "{what}: {args:?}"
            );
            let err = String::from_utf8_lossy(&cached.stderr).into_owned();
            let (report, rest): (Vec<&str>, Vec<&str>) =
                err.lines().partition(|l| l.starts_with("csift: cache: "));
            let whole_err = String::from_utf8_lossy(&whole.stderr).into_owned();
            let whole_rest: Vec<&str> = whole_err
                .lines()
                .filter(|l| !l.starts_with("csift: cache: "))
                .collect();
            assert_eq!(rest, whole_rest, "{what}: {args:?} stderr");
            assert_eq!(
                cached.status.code(),
                whole.status.code(),
                "{what}: {args:?}"
            );
            assert!(
                whole_err.contains(" 0 hit, 0 grew, 0 miss, "),
                "{what}: --no-cache reads whole: {whole_err}"
            );
            first.get_or_insert_with(|| report.join("\n"));
        }
        first.unwrap_or_default()
    }
}

/// Run every change a transcript sees on `file` of `home`, each time
/// comparing cache and no cache; `file` ends with a newline.
fn through_changes(home: &Path, file: &Path) {
    let state = tempfile::tempdir().unwrap();
    let c = Cached {
        home,
        state: state.path(),
    };
    let n = common::files_under(&home.join("projects"))
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .count();
    assert!(c.same("first run").contains(" 0 hit, "));
    let report = c.same("unchanged");
    // An unchanged home is not read, unterminated final lines included
    // (the corpus has some): the entry's answer holds them.
    let unterminated = scanned(&report);
    assert_eq!(unterminated, 0, "{report}");
    assert!(
        report.contains(&format!("{n} hit, 0 grew, 0 miss")),
        "{report}"
    );
    let bytes = std::fs::read(file).unwrap();
    assert!(bytes.ends_with(b"\n"));
    // Claude Code appends (REC-087): the second half of the file arrives
    // after the first was cached; only it is read.
    let lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();
    let half: Vec<u8> = lines[..lines.len() / 2].concat();
    std::fs::write(file, &half).unwrap();
    c.same("cut to its first half (a miss)");
    std::fs::OpenOptions::new()
        .append(true)
        .open(file)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &bytes[half.len()..]))
        .unwrap();
    let report = c.same("after an append");
    assert!(report.contains(" 1 grew, 0 miss"), "{report}");
    let appended = (bytes.len() - half.len()) as u64;
    assert_eq!(scanned(&report), unterminated + appended, "{report}");
    // A torn tail (a line still being written): read every run, never cached.
    let last = *lines.last().unwrap();
    let torn = &last[..last.len() / 2];
    let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
    std::io::Write::write_all(&mut f, torn).unwrap();
    c.same("torn tail");
    c.same("torn tail, again");
    std::io::Write::write_all(&mut f, &last[last.len() / 2..]).unwrap();
    drop(f);
    let report = c.same("tail completed");
    assert!(report.contains(" 1 grew, 0 miss"), "{report}");
    // A truncation: read whole.
    std::fs::write(file, &bytes).unwrap();
    let report = c.same("truncated");
    assert!(report.contains(" 1 miss"), "{report}");
    // A compaction replaces the file by rename (MISC-017): a new inode.
    let tmp = file.with_extension("tmp");
    std::fs::write(&tmp, &half).unwrap();
    std::fs::rename(&tmp, file).unwrap();
    let report = c.same("renamed over");
    assert!(report.contains(" 1 miss"), "{report}");
    // A clock change: the same bytes with another mtime are read again.
    let f = std::fs::File::options().write(true).open(file).unwrap();
    f.set_modified(std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000))
        .unwrap();
    drop(f);
    let report = c.same("mtime moved back");
    assert!(report.contains(" 1 miss"), "{report}");
    // One pack per project, and its --no-subagents variant apart.
    let packs: Vec<PathBuf> = common::files_under(state.path())
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("/stats-v2/"))
        .collect();
    let projects = std::fs::read_dir(home.join("projects")).unwrap().count();
    assert_eq!(packs.len(), projects, "one stats pack per project");
    assert!(common::files_under(state.path())
        .iter()
        .any(|p| p.to_string_lossy().contains("/stats-own-v2/")));
    // A corrupt byte anywhere is never trusted: the part it lands in fails
    // its digest and is recomputed (a resume state only when a file grows).
    for e in &packs {
        let mut b = std::fs::read(e).unwrap();
        let mid = b.len() / 2;
        b[mid] ^= 0xff;
        std::fs::write(e, b).unwrap();
    }
    c.same("corrupt packs");
    // A pack of another build (its tag's version string) is ignored and
    // rewritten.
    for e in &packs {
        let b = std::fs::read(e).unwrap();
        let at = memchr::memmem::find(&b, env!("CARGO_PKG_VERSION").as_bytes()).unwrap();
        let mut b = b;
        b[at] ^= 0x01;
        std::fs::write(e, b).unwrap();
    }
    let report = c.same("foreign packs");
    assert!(
        report.contains(&format!("0 hit, 0 grew, {n} miss")),
        "{report}"
    );
    let report = c.same("rewritten");
    assert!(
        report.contains(&format!("{n} hit, 0 grew, 0 miss")),
        "{report}"
    );
    // Nothing was written under the Claude home.
    assert!(common::files_under(home)
        .iter()
        .all(|p| !p.to_string_lossy().contains("csift")));
}

/// The bytes a run scanned, from the cache's report.
fn scanned(report: &str) -> u64 {
    let n = report.trim_end_matches(" bytes scanned").rsplit(' ').next();
    n.and_then(|n| n.parse().ok()).unwrap_or(u64::MAX)
}

/// The largest transcript of a home.
fn largest(home: &Path) -> PathBuf {
    common::files_under(&home.join("projects"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap()
}

#[test]
fn stats_cache_on_the_sample_home_is_exact_through_changes() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home");
    let home = copy_home(&sample);
    let file = largest(home.path());
    through_changes(home.path(), &file);
}

#[test]
fn stats_cache_on_the_public_corpus_is_exact_through_changes() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let home = copy_home(&corpus);
    // The largest transcript (3.2 MB): indexes, revisits and joins across the cut.
    let file = largest(home.path());
    through_changes(home.path(), &file);
}

/// A hostile home: malformed, glued, blank, NUL and invalid UTF-8 lines, a
/// non-object, a draft superseded after the cut, a call answered after it,
/// subagent records nested in agent_progress records, an empty file.
#[test]
fn stats_cache_on_a_hostile_home_is_exact_through_changes() {
    let home = Home::new();
    let mut s = Session::new("77777777-0000-4000-8000-000000000007", "/w/h");
    s.user("first try");
    s.tool_use("msg_1", "toolu_1", "Bash", json!({"command": "ls"}));
    s.raw(json!("not an object"));
    s.tool_use(
        "msg_2",
        "toolu_task",
        "Task",
        json!({"description": "d", "prompt": "do it", "subagent_type": "general-purpose"}),
    );
    s.push(json!({"type": "progress", "data": {
        "message": {"type": "assistant", "uuid": "n1", "timestamp": "2026-01-01T00:00:00Z",
            "message": {"id": "msg_n", "model": "claude-x", "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_n", "name": "Read", "input": {}}]}},
        "normalizedMessages": [], "type": "agent_progress", "prompt": "do it",
        "agentId": "abcdef0123456789a"},
        "toolUseID": "agent_msg_2", "parentToolUseID": "toolu_task"}));
    s.tool_result("toolu_task", "done", false, None);
    s.text("msg_3", "half way");
    s.tool_result("toolu_1", "answered after the cut", true, None);
    s.user("second try");
    s.text("msg_4", "the end");
    let mut bytes = common::jsonl(&s.lines);
    let glued = br#"{"type":"system","subtype":"x"}{"type":"assistant","message":{"id":"msg_g","model":"claude-x","role":"assistant","content":[],"usage":{"output_tokens":3}}}"#;
    for junk in [
        &b"{broken"[..],
        b"",
        b"   ",
        b"{\"type\":\"user\",\"x\":\"\0\"}",
        b"{\"type\":\"user\",\"message\":\"\xff\xfe\"}",
        glued,
    ] {
        bytes.extend_from_slice(junk);
        bytes.push(b'\n');
    }
    let file = home.write_raw("-w-h", &s.file_name(), &bytes);
    home.write_raw("-w-h", "88888888-0000-4000-8000-000000000008.jsonl", b"");
    through_changes(home.path(), &file);
}

/// Nested agent_progress records count in the parent file while the agent
/// has no lane file; once its lane file appears, they count there. The
/// parent file is unchanged, so only the cache's check of the agent's lane
/// file can tell its cached census is stale.
#[test]
fn a_lane_file_appearing_makes_a_cached_census_stale() {
    let home = Home::new();
    let state = tempfile::tempdir().unwrap();
    let agent = "a1b2c3d4e5f6a7b8c";
    let mut s = Session::new("66666666-0000-4000-8000-000000000006", "/w/l");
    s.user("run it");
    s.tool_use(
        "msg_1",
        "toolu_task",
        "Task",
        json!({"description": "d", "prompt": "go", "subagent_type": "general-purpose"}),
    );
    let mut lane = Session::lane(&s.id, &s.cwd, agent);
    lane.user("go");
    lane.tool_use("msg_sub", "toolu_sub", "Bash", json!({"command": "ls"}));
    for r in &lane.lines {
        let nested = json!({"type": r["type"], "message": r["message"], "uuid": r["uuid"],
            "timestamp": r["timestamp"]});
        s.push(json!({"type": "progress", "data": {"message": nested,
            "normalizedMessages": [], "type": "agent_progress", "prompt": "go",
            "agentId": agent}, "toolUseID": "agent_msg_1", "parentToolUseID": "toolu_task"}));
    }
    s.tool_result("toolu_task", "ok", false, None);
    home.write("-w-l", &s.file_name(), &s.lines);
    let c = Cached {
        home: home.path(),
        state: state.path(),
    };
    let total = |args: &[&str]| {
        let out = c.cmd(args).output().unwrap();
        let v = common::json_lines(&out.stdout);
        v.last().unwrap()["units_embedded"].clone()
    };
    c.same("no lane file");
    assert_ne!(total(&["stats", "--format", "json"]), json!(0));
    home.write(
        "-w-l",
        &format!("{}/subagents/agent-{agent}.jsonl", s.id),
        &lane.lines,
    );
    let report = c.same("lane file written");
    assert!(report.contains("0 hit, 0 grew, 2 miss"), "{report}");
    assert_eq!(total(&["stats", "--format", "json"]), json!(0));
}

/// The cache is used: an unchanged home is answered from it without
/// scanning a byte, and with no state directory at all nothing is cached.
#[test]
fn an_unchanged_home_is_not_read_again() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home");
    let state = tempfile::tempdir().unwrap();
    let c = Cached {
        home: &sample,
        state: state.path(),
    };
    let run = || {
        let out = c.cmd(&["stats", "--format", "json"]).output().unwrap();
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let first = run();
    assert!(first.contains("0 hit, 0 grew, 8 miss"), "{first}");
    let second = run();
    assert!(
        second.contains("8 hit, 0 grew, 0 miss, 0 off; 0 bytes scanned"),
        "{second}"
    );
    // A state directory inside the Claude home: off, nothing written there.
    let home = copy_home(&sample);
    let inside = home.path().join("state");
    let out = Cached {
        home: home.path(),
        state: &inside,
    }
    .cmd(&["stats"])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 miss, 8 off"));
    assert!(!inside.exists());
}

/// Runs at once over one state directory, each writing its projects' packs
/// (cold, then after appends to files of one project): every run's output is
/// exact, and the packs left behind are whole, of one run or another, so
/// the run after them is all hits.
#[test]
fn concurrent_runs_leave_whole_packs() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home");
    let home = copy_home(&sample);
    let state = tempfile::tempdir().unwrap();
    let c = Cached {
        home: home.path(),
        state: state.path(),
    };
    let mut want = normal(&c.cmd(&["stats", "--no-cache"]).output().unwrap().stdout);
    let n = common::files_under(&home.path().join("projects"))
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .count();
    let file = largest(home.path());
    let bytes = std::fs::read(&file).unwrap();
    let line = bytes
        .split_inclusive(|b| *b == b'\n')
        .next_back()
        .unwrap()
        .to_vec();
    for round in 0..3 {
        let kids: Vec<std::process::Child> = (0..4)
            .map(|_| {
                let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("csift"));
                cmd.args(["stats", "--claude-home"])
                    .arg(home.path())
                    .env("XDG_STATE_HOME", state.path())
                    .env("CSIFT_CACHE_STATS", "1")
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped());
                cmd.spawn().unwrap()
            })
            .collect();
        for k in kids {
            let out = k.wait_with_output().unwrap();
            assert_eq!(normal(&out.stdout), want, "round {round}");
        }
        let report = c.same(&format!("after concurrent round {round}"));
        assert!(
            report.contains(&format!("{n} hit, 0 grew, 0 miss")),
            "{report}"
        );
        // The next round starts from a grown file (its runs race to grow
        // the same entry).
        std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .and_then(|mut f| std::io::Write::write_all(&mut f, &line))
            .unwrap();
        let now = normal(&c.cmd(&["stats", "--no-cache"]).output().unwrap().stdout);
        assert_ne!(now, want, "the append changes the census");
        want = now;
    }
}
