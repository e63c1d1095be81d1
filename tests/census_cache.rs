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

/// Commands that read through the cache, and the entry folders they write.
pub(crate) struct Suite {
    pub(crate) cmds: &'static [&'static [&'static str]],
    /// The first command's entries (one per transcript), and another
    /// command's that must exist too.
    pub(crate) entries: &'static str,
    pub(crate) also: &'static str,
    /// Whether an entry's answer covers an unterminated final line (a split
    /// entry), so an unchanged home scans nothing; else such a line is
    /// scanned on every run.
    pub(crate) whole_answer: bool,
    /// Whether a file that grew resumes from its entry (only the appended
    /// bytes are read); else it is read whole again, a miss (`list`: a row
    /// does not fold).
    pub(crate) grows: bool,
    /// Whether the first command reads every transcript; else (`list`) a
    /// lane only when its session's main transcript is missing.
    pub(crate) every_lane: bool,
}

/// `stats` in each form, with and without subagents.
const STATS: Suite = Suite {
    cmds: &[
        &["stats"],
        &["stats", "--format", "json"],
        &["stats", "--by", "model", "--format", "json"],
        &["stats", "--no-subagents", "--format", "json"],
    ],
    entries: "/stats-v4/",
    also: "/stats-own-v4/",
    whole_answer: true,
    grows: true,
    every_lane: true,
};

/// `audit` in every mode: all kinds and kind sets (each its own pass and
/// entries), both output forms, every `--by`, a window and `--max-count`.
const AUDIT: Suite = Suite {
    cmds: &[
        &["audit"],
        &["audit", "--format", "json", "--by", "month"],
        &[
            "audit",
            "-k",
            "eaten-text,eaten-text-adjacency",
            "--format",
            "json",
        ],
        &["audit", "-k", "eaten-text", "--by", "version"],
        &[
            "audit",
            "-k",
            "malformed-line,duplicate-uuid",
            "--by",
            "version",
            "--format",
            "json",
        ],
        &[
            "audit",
            "-k",
            "unanswered-call,missing-echo",
            "--format",
            "json",
        ],
        &[
            "audit",
            "-k",
            "missing-transcript,missing-persisted-output",
            "--since",
            "2020-01-01",
            "--by",
            "transcript",
            "--max-count",
            "2",
        ],
    ],
    entries: "/audit-v2/",
    also: "/audit-03-v2/",
    whole_answer: true,
    grows: true,
    every_lane: true,
};

/// Copy a home (the corpus is never written to).
pub(crate) fn copy_home(from: &Path) -> tempfile::TempDir {
    let to = tempfile::tempdir().unwrap();
    for f in common::files_under(from) {
        let rel = f.strip_prefix(from).unwrap();
        let dst = to.path().join(rel);
        std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
        std::fs::copy(&f, &dst).unwrap();
    }
    to
}

/// The run's time is the one thing that may differ between two runs.
fn normal(out: &[u8]) -> String {
    let s = String::from_utf8_lossy(out);
    let re = regex::Regex::new(r#""elapsed_ms":\d+"#).unwrap();
    let s = re.replace_all(&s, "\"elapsed_ms\":0");
    // audit's human footer: `… in 12 ms`.
    let re = regex::Regex::new(r" in \d+ ms\n").unwrap();
    re.replace_all(&s, " in 0 ms\n").into_owned()
}

struct Cached<'a> {
    home: &'a Path,
    state: &'a Path,
    suite: &'a Suite,
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
        for args in self.suite.cmds {
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
pub(crate) fn through_changes(home: &Path, file: &Path, suite: &Suite) {
    let state = tempfile::tempdir().unwrap();
    let c = Cached {
        home,
        state: state.path(),
        suite,
    };
    let n = common::files_under(&home.join("projects"))
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .filter(|p| suite.every_lane || !has_main(p))
        .count();
    assert!(c.same("first run").contains(" 0 hit, "));
    let report = c.same("unchanged");
    // An unchanged home is not read, unterminated final lines included
    // (the corpus has some) where the entry's answer holds them; else only
    // those lines are.
    let unterminated = scanned(&report);
    let torn: u64 = common::files_under(&home.join("projects"))
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| {
            let b = std::fs::read(p).unwrap();
            (b.len() - b.iter().rposition(|c| *c == b'\n').map_or(0, |i| i + 1)) as u64
        })
        .sum();
    let want = if suite.whole_answer { 0 } else { torn };
    assert_eq!(unterminated, want, "{report}");
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
    append(file, &bytes[half.len()..]);
    let report = c.same("after an append");
    let (grew, appended) = match suite.grows {
        true => (" 1 grew, 0 miss", bytes.len() - half.len()),
        false => (" 0 grew, 1 miss", bytes.len()),
    };
    assert!(report.contains(grew), "{report}");
    assert_eq!(scanned(&report), unterminated + appended as u64, "{report}");
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
    assert!(report.contains(grew), "{report}");
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
    // One pack per project, and another variant's apart.
    let packs: Vec<PathBuf> = common::files_under(state.path())
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(suite.entries))
        .filter(|p| p.extension().is_some_and(|x| x == "pack"))
        .collect();
    let projects = std::fs::read_dir(home.join("projects")).unwrap().count();
    assert_eq!(packs.len(), projects, "one pack per project");
    assert!(common::files_under(state.path())
        .iter()
        .any(|p| p.to_string_lossy().contains(suite.also)));
    // A corrupt byte anywhere is never trusted: the part it lands in fails
    // its digest and is recomputed (a resume state only when a file grows).
    for e in &packs {
        let mut b = std::fs::read(e).unwrap();
        let last = b.len() - 1;
        b[last] ^= 0xff;
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

/// Whether `p` is a lane (`<session>/subagents/*.jsonl`) whose session's
/// main transcript (`<session>.jsonl` beside its folder) exists.
fn has_main(p: &Path) -> bool {
    let Some(dir) = p.parent().filter(|d| d.ends_with("subagents")) else {
        return false;
    };
    dir.parent()
        .is_some_and(|s| s.with_extension("jsonl").is_file())
}

/// Append `bytes` to `file`, as Claude Code appends records (REC-087).
fn append(file: &Path, bytes: &[u8]) {
    std::fs::OpenOptions::new()
        .append(true)
        .open(file)
        .and_then(|mut f| std::io::Write::write_all(&mut f, bytes))
        .unwrap();
}

/// The bytes a run scanned, from the cache's report.
fn scanned(report: &str) -> u64 {
    let n = report.trim_end_matches(" bytes scanned").rsplit(' ').next();
    n.and_then(|n| n.parse().ok()).unwrap_or(u64::MAX)
}

/// The largest transcript of a home.
pub(crate) fn largest(home: &Path) -> PathBuf {
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
    through_changes(home.path(), &file, &STATS);
}

#[test]
fn stats_cache_on_the_public_corpus_is_exact_through_changes() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let home = copy_home(&corpus);
    // The largest transcript (3.2 MB): indexes, revisits and joins across the cut.
    let file = largest(home.path());
    through_changes(home.path(), &file, &STATS);
}

/// A hostile home: malformed, glued, blank, NUL and invalid UTF-8 lines, a
/// non-object, a draft superseded after the cut, a call answered after it,
/// subagent records nested in agent_progress records, an empty file.
pub(crate) fn hostile_home() -> (Home, PathBuf) {
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
    (home, file)
}

#[test]
fn stats_cache_on_a_hostile_home_is_exact_through_changes() {
    let (home, file) = hostile_home();
    through_changes(home.path(), &file, &STATS);
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
        suite: &STATS,
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
        suite: &STATS,
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
        suite: &STATS,
    }
    .cmd(&["stats"])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 miss, 8 off"));
    assert!(!inside.exists());
}

#[test]
fn audit_cache_on_the_sample_home_is_exact_through_changes() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home");
    let home = copy_home(&sample);
    let file = largest(home.path());
    through_changes(home.path(), &file, &AUDIT);
}

#[test]
fn audit_cache_on_the_public_corpus_is_exact_through_changes() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let home = copy_home(&corpus);
    let file = largest(home.path());
    through_changes(home.path(), &file, &AUDIT);
}

#[test]
fn audit_cache_on_a_hostile_home_is_exact_through_changes() {
    let (home, file) = hostile_home();
    through_changes(home.path(), &file, &AUDIT);
    let (home, file) = audit_home();
    through_changes(home.path(), &file, &AUDIT);
}

/// A transcript with a finding of every kind audit reads from a file, each
/// spread over several lines, so a cut between any two lines splits one:
/// an eaten response (thinking, thinking, tool call) and a resume's replayed
/// copy of it under the same uuids (REC-091), an echo-less Write result
/// (REC-078), a call a later turn passed (REC-075) and one left in flight at
/// the end (TAIL-001), a compaction boundary between two copies of one uuid,
/// malformed lines with no time of their own (their time is the last before
/// them in the file), a glued pair, adjacency broken by a prompt, a spawn result and a progress record
/// naming lanes that do not exist, persisted output that is gone or has
/// another size (REC-015).
fn audit_home() -> (Home, PathBuf) {
    let home = Home::new();
    let mut s = Session::new("55555555-0000-4000-8000-000000000005", "/w/a");
    s.user("go");
    let t1 = s.thinking("msg_e", "hmm");
    let t2 = s.thinking("msg_e", "hmm more");
    let tu = s.tool_use(
        "msg_e",
        "toolu_w",
        "Write",
        json!({"file_path": "/w/a/x", "content": "x"}),
    );
    s.tool_result("toolu_w", "File created", false, None);
    s.tool_use("msg_b", "toolu_b", "Bash", json!({"command": "sleep 9"}));
    s.raw(json!("not an object"));
    s.user("next turn");
    s.system(
        "compact_boundary",
        json!({"compactMetadata": {"trigger": "auto"}}),
    );
    // The resume's replay: the eaten response again, under the same uuids.
    let copies: Vec<serde_json::Value> = s
        .lines
        .iter()
        .filter(|r| [&t1, &t2, &tu].contains(&&r["uuid"].as_str().unwrap_or("").to_string()))
        .cloned()
        .collect();
    for c in copies {
        s.raw(c);
    }
    s.tool_result(
        "toolu_task",
        "done",
        false,
        Some(json!({"agentId": "deadbeef00000001", "status": "completed"})),
    );
    s.push(
        json!({"type": "progress", "data": {"type": "agent_progress", "agentId": "deadbeef00000002",
        "message": {"type": "user", "message": {"role": "user", "content": "hi"}}},
        "toolUseID": "agent_msg_x", "parentToolUseID": "toolu_task"}),
    );
    s.tool_result(
        "toolu_p",
        "<persisted-output>\nFull output saved to: /nonexistent/csift-test/out.txt\n</persisted-output>",
        false,
        None,
    );
    s.tool_result(
        "toolu_q",
        "big",
        false,
        Some(json!({"persistedOutputPath": "/nonexistent/csift-test/q.txt", "persistedOutputSize": 5})),
    );
    s.thinking("msg_f", "alone");
    s.text("msg_f", "kept");
    // A user record between two thinking-first records of one response
    // breaks adjacency: the group rule alone flags it.
    s.thinking("msg_h", "first");
    s.user("interrupting");
    s.thinking("msg_h", "second");
    s.tool_use(
        "msg_g",
        "toolu_last",
        "Read",
        json!({"file_path": "/w/a/x"}),
    );
    let mut bytes = common::jsonl(&s.lines[..3]);
    bytes.extend_from_slice(b"{torn without a time\n");
    bytes.extend_from_slice(&common::jsonl(&s.lines[3..8]));
    bytes.extend_from_slice(
        b"{\"type\":\"system\",\"subtype\":\"x\"}{\"type\":\"user\",\"uuid\":\"g1\"}\n",
    );
    bytes.extend_from_slice(b"{\"type\":\"user\",\"x\":\"\0\"}\n");
    bytes.extend_from_slice(&common::jsonl(&s.lines[8..]));
    let file = home.write_raw("-w-a", &s.file_name(), &bytes);
    (home, file)
}

/// Commands whose passes differ most (all kinds; eaten text alone, which
/// reads assistant lines only; the per-line rules without eaten text).
const CUTS: Suite = Suite {
    cmds: &[
        &["audit", "--format", "json"],
        &[
            "audit",
            "-k",
            "eaten-text,eaten-text-adjacency",
            "--format",
            "json",
        ],
        &[
            "audit",
            "-k",
            "malformed-line,duplicate-uuid,unanswered-call,missing-echo",
            "--format",
            "json",
        ],
    ],
    entries: "/audit-v2/",
    also: "/audit-03-v2/",
    whole_answer: true,
    grows: true,
    every_lane: true,
};

/// Appends extend exactly: at every cut between two lines, the census of
/// the lines before it, cached, then folded with the census of the appended
/// rest, gives what one pass over the whole file gives (the run checks it
/// against --no-cache), and the rest alone is read.
#[test]
fn audit_cache_extends_exactly_at_every_line() {
    let (home, file) = audit_home();
    let bytes = std::fs::read(&file).unwrap();
    let cuts: Vec<usize> = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .collect();
    let full = Cached {
        home: home.path(),
        state: Path::new("/nonexistent"),
        suite: &AUDIT,
    };
    let out = full
        .cmd(&["audit", "--no-cache", "--format", "json"])
        .output()
        .unwrap();
    let kinds = String::from_utf8_lossy(&out.stdout).into_owned();
    for k in [
        "eaten-text",
        "missing-echo",
        "unanswered-call",
        "duplicate-uuid",
        "malformed-line",
        "missing-transcript",
        "missing-persisted-output",
    ] {
        let kind = format!("\"kind\":\"{k}\"");
        assert!(
            kinds.contains(&kind),
            "the home has no {k} finding: {kinds}"
        );
    }
    for &cut in &cuts[..cuts.len() - 1] {
        let state = tempfile::tempdir().unwrap();
        let c = Cached {
            home: home.path(),
            state: state.path(),
            suite: &CUTS,
        };
        std::fs::write(&file, &bytes[..cut]).unwrap();
        c.same(&format!("first {cut} bytes"));
        append(&file, &bytes[cut..]);
        let report = c.same(&format!("appended after byte {cut}"));
        assert!(report.contains("0 hit, 1 grew, 0 miss"), "{report}");
        assert_eq!(scanned(&report), (bytes.len() - cut) as u64, "{report}");
    }
    // A torn final line (cut mid-line): the entry's answer holds it, so the
    // same file again is a hit that reads nothing; the line completed is read
    // from the last whole line on.
    let mut whole = 0;
    for &cut in &cuts {
        let mid = whole + (cut - whole) / 2;
        if mid > whole {
            let state = tempfile::tempdir().unwrap();
            let c = Cached {
                home: home.path(),
                state: state.path(),
                suite: &CUTS,
            };
            std::fs::write(&file, &bytes[..mid]).unwrap();
            c.same(&format!("first {mid} bytes, torn"));
            let report = c.same(&format!("first {mid} bytes, torn, again"));
            assert!(report.contains("1 hit, 0 grew, 0 miss"), "{report}");
            assert_eq!(scanned(&report), 0, "{report}");
            append(&file, &bytes[mid..]);
            let report = c.same(&format!("completed after byte {mid}"));
            assert!(report.contains("0 hit, 1 grew, 0 miss"), "{report}");
            assert_eq!(scanned(&report), (bytes.len() - whole) as u64, "{report}");
        }
        whole = cut;
    }
}

/// What audit reads of other files is checked every run, never cached: a
/// lane file written after a run clears its missing-transcript finding
/// while the transcript naming it is a hit; a lane's meta file naming a
/// teammate (SUB-028) changes the lane's echo rule, so its entry is read
/// again.
#[test]
fn audit_checks_other_files_every_run() {
    let home = Home::new();
    let state = tempfile::tempdir().unwrap();
    let agent = "a1b2c3d4e5f6a7b80";
    let mut s = Session::new("44444444-0000-4000-8000-000000000004", "/w/m");
    s.user("spawn");
    s.tool_use("msg_1", "toolu_task", "Task", json!({"prompt": "go"}));
    s.tool_result(
        "toolu_task",
        "ok",
        false,
        Some(json!({"agentId": agent, "status": "completed"})),
    );
    home.write("-w-m", &s.file_name(), &s.lines);
    let c = Cached {
        home: home.path(),
        state: state.path(),
        suite: &AUDIT,
    };
    let json = |c: &Cached<'_>| {
        let out = c.cmd(&["audit", "--format", "json"]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    c.same("no lane file");
    assert!(json(&c).contains(&format!("subagent {agent}")));
    let mut lane = Session::lane(&s.id, &s.cwd, agent);
    lane.user("go");
    lane.tool_use(
        "msg_w",
        "toolu_w",
        "Write",
        json!({"file_path": "/w/m/y", "content": "y"}),
    );
    lane.tool_result("toolu_w", "File created", false, None);
    let lane_path = home.write(
        "-w-m",
        &format!("{}/subagents/agent-{agent}.jsonl", s.id),
        &lane.lines,
    );
    let report = c.same("lane file written");
    assert!(report.contains("1 hit, 0 grew, 1 miss"), "{report}");
    assert!(!json(&c).contains(&format!("subagent {agent}")));
    assert!(!json(&c).contains("\"kind\":\"missing-echo\""));
    // SUB-028: a teammate lane's file writes always carry their echo.
    std::fs::write(
        lane_path.with_extension("meta.json"),
        br#"{"agentType":"worker","taskKind":"in_process_teammate"}"#,
    )
    .unwrap();
    let report = c.same("teammate meta written");
    assert!(report.contains("1 hit, 0 grew, 1 miss"), "{report}");
    assert!(json(&c).contains("\"kind\":\"missing-echo\""));
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
        suite: &STATS,
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
        append(&file, &line);
        let now = normal(&c.cmd(&["stats", "--no-cache"]).output().unwrap().stdout);
        assert_ne!(now, want, "the append changes the census");
        want = now;
    }
}
