//! Test harness shared by the integration tests: run the real binary, build small
//! Claude homes of real-shaped records in a temp dir, and find the real corpus.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{json, Value};

/// `lines` as JSONL bytes, one per line and each newline-terminated; a JSON
/// string value is written as the raw line it holds.
pub fn jsonl(lines: &[Value]) -> Vec<u8> {
    let mut b = Vec::new();
    for l in lines {
        match l {
            Value::String(raw) => b.extend_from_slice(raw.as_bytes()),
            v => b.extend_from_slice(serde_json::to_string(v).unwrap().as_bytes()),
        }
        b.push(b'\n');
    }
    b
}

/// The csift binary, with the environment cleared of anything that would leak
/// the developer's own Claude home or session into a test.
pub fn csift() -> Command {
    let mut c = Command::cargo_bin("csift").unwrap();
    c.env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        // csift's own state (the census cache) under target/, not the developer's.
        .env(
            "XDG_STATE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("state"),
        )
        .env("NO_COLOR", "1");
    c
}

/// `../shared/corpus/claude-home`, the real transcripts. Missing is a skip on a
/// developer machine, and a failure under CI=true (it must never pass silently).
pub fn corpus() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/claude-home");
    if p.join("projects").is_dir() {
        return Some(p);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "corpus missing at {} under CI=true: corpus tests must not pass silently",
            p.display()
        );
    }
    eprintln!("skipping: corpus not found at {}", p.display());
    None
}

/// A test that cannot run here (a tool or device this machine lacks): a skip
/// with a note on a developer machine, a failure under CI=true, as for the
/// corpus. The caller returns after it.
pub fn skip(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{why} under CI=true: a skipped test must not pass silently");
    }
    eprintln!("skipping: {why}");
}

/// `python3`, the interpreter the survey and reference scripts run under, or a
/// [`skip`] (a failure under CI=true).
pub fn python3() -> Option<&'static str> {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some("python3");
    }
    skip("python3 not found");
    None
}

/// Make a FIFO at `path` with mkfifo(3): no external command, so no skip.
#[cfg(unix)]
pub fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a NUL-terminated path; mkfifo reads it and nothing else.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    assert_eq!(
        rc,
        0,
        "mkfifo {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
}

/// The corpus generator example, built by `cargo test` beside the csift binary.
/// Missing is a skip on a developer machine and a failure under CI=true.
pub fn generator() -> Option<PathBuf> {
    let bin = assert_cmd::cargo::cargo_bin("csift");
    let g = bin
        .parent()?
        .join("examples")
        .join(format!("gen_corpus{}", std::env::consts::EXE_SUFFIX));
    if g.is_file() {
        return Some(g);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "gen_corpus example not built at {} under CI=true",
            g.display()
        );
    }
    eprintln!(
        "skipping: {} not built (run the whole `cargo test`)",
        g.display()
    );
    None
}

/// Every transcript file under a home, sorted.
pub fn transcripts(home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![home.join("projects")];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Parse JSON Lines output.
pub fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `label -> hits` from the JSON of `search --count-by label`.
pub fn searched_labels(lines: &[Value]) -> std::collections::BTreeMap<String, u64> {
    lines
        .iter()
        .filter(|v| v["type"] == "count")
        .map(|v| {
            (
                v["key"].as_str().unwrap().to_string(),
                v["hits"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `label -> units` from a stats JSON row or total, the labels it counted.
pub fn counted_labels(row: &Value) -> std::collections::BTreeMap<String, u64> {
    row["labels"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// Run `cmd`, require exit 0 (its stderr in the failure), and return its JSON lines.
pub fn ok_json(cmd: &mut Command) -> Vec<Value> {
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_lines(&out.stdout)
}

/// The first JSON line of `kind` (its `"type"`) that `cmd` prints, exiting 0.
pub fn first_json(cmd: &mut Command, kind: &str) -> Value {
    let lines = ok_json(cmd);
    match lines.iter().find(|v| v["type"] == kind) {
        Some(v) => v.clone(),
        None => panic!("no {kind:?} line in {lines:?}"),
    }
}

/// A temporary Claude home.
pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    pub fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("projects")).unwrap();
        Home { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn projects(&self) -> PathBuf {
        self.path().join("projects")
    }

    /// Write `lines` (each a JSON value or a raw string) as `<project>/<name>`.
    pub fn write(&self, project: &str, name: &str, lines: &[Value]) -> PathBuf {
        self.write_raw(project, name, &jsonl(lines))
    }

    pub fn write_raw(&self, project: &str, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.projects().join(project).join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }

    /// csift pointed at this home through `CLAUDE_CONFIG_DIR`, so the subcommand
    /// and its flags can follow in any order.
    pub fn cmd(&self) -> Command {
        let mut c = csift();
        c.env("CLAUDE_CONFIG_DIR", self.path());
        c
    }
}

/// Builds a session's records with a realistic 2.1.x envelope and a parent chain.
pub struct Session {
    pub id: String,
    pub cwd: String,
    pub version: String,
    pub sidechain: bool,
    pub agent_id: Option<String>,
    last: Option<String>,
    n: u32,
    pub lines: Vec<Value>,
}

impl Session {
    pub fn new(id: &str, cwd: &str) -> Session {
        Session {
            id: id.into(),
            cwd: cwd.into(),
            version: "2.1.150".into(),
            sidechain: false,
            agent_id: None,
            last: None,
            n: 0,
            lines: Vec::new(),
        }
    }

    pub fn lane(id: &str, cwd: &str, agent: &str) -> Session {
        let mut s = Session::new(id, cwd);
        s.sidechain = true;
        s.agent_id = Some(agent.into());
        s
    }

    fn next_uuid(&mut self) -> String {
        self.n += 1;
        format!("{:08x}-0000-4000-8000-{:012x}", self.n, self.n)
    }

    pub fn ts(&self) -> String {
        let secs = 1_767_225_600 + i64::from(self.n) * 7; // 2026-01-01T00:00:00Z onward
        jiff::Timestamp::from_second(secs)
            .unwrap()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    }

    /// Append a record with the envelope filled in; returns its uuid.
    pub fn push(&mut self, mut rec: Value) -> String {
        let uuid = self.next_uuid();
        let obj = rec.as_object_mut().unwrap();
        let mut env = serde_json::Map::new();
        env.insert(
            "parentUuid".into(),
            self.last.clone().map_or(Value::Null, Value::String),
        );
        env.insert("isSidechain".into(), json!(self.sidechain));
        env.insert("userType".into(), json!("external"));
        env.insert("cwd".into(), json!(self.cwd));
        env.insert("sessionId".into(), json!(self.id));
        env.insert("version".into(), json!(self.version));
        env.insert("gitBranch".into(), json!("main"));
        if let Some(a) = &self.agent_id {
            env.insert("agentId".into(), json!(a));
        }
        for (k, v) in obj.iter() {
            env.insert(k.clone(), v.clone());
        }
        env.entry("uuid").or_insert(json!(uuid));
        env.entry("timestamp").or_insert(json!(self.ts()));
        self.last = Some(uuid.clone());
        self.lines.push(Value::Object(env));
        uuid
    }

    pub fn user(&mut self, text: &str) -> String {
        self.push(json!({"type": "user", "message": {"role": "user", "content": text}}))
    }

    pub fn meta(&mut self, text: &str) -> String {
        self.push(
            json!({"type": "user", "isMeta": true, "message": {"role": "user", "content": text}}),
        )
    }

    /// One assistant record per block, sharing message.id and usage (REC-020).
    pub fn assistant(&mut self, msg_id: &str, blocks: &[Value]) -> Vec<String> {
        let usage = json!({"input_tokens": 10, "output_tokens": 20, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 5});
        blocks
            .iter()
            .map(|b| {
                self.push(json!({"type": "assistant", "requestId": "req_1", "message": {
                    "model": "claude-opus-4-5-20251101", "id": msg_id, "type": "message", "role": "assistant",
                    "content": [b], "stop_reason": null, "usage": usage}}))
            })
            .collect()
    }

    pub fn text(&mut self, msg_id: &str, text: &str) -> String {
        self.assistant(msg_id, &[json!({"type": "text", "text": text})])
            .remove(0)
    }

    pub fn thinking(&mut self, msg_id: &str, text: &str) -> String {
        self.assistant(
            msg_id,
            &[json!({"type": "thinking", "thinking": text, "signature": "RXJyb3JTaWduYXR1cmU="})],
        )
        .remove(0)
    }

    pub fn tool_use(&mut self, msg_id: &str, id: &str, name: &str, input: Value) -> String {
        self.assistant(
            msg_id,
            &[json!({"type": "tool_use", "id": id, "name": name, "input": input})],
        )
        .remove(0)
    }

    pub fn tool_result(
        &mut self,
        id: &str,
        content: &str,
        is_error: bool,
        echo: Option<Value>,
    ) -> String {
        let mut rec = json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": content, "is_error": is_error}]}});
        if let Some(e) = echo {
            rec["toolUseResult"] = e;
        }
        self.push(rec)
    }

    pub fn system(&mut self, subtype: &str, extra: Value) -> String {
        let mut rec =
            json!({"type": "system", "subtype": subtype, "level": "info", "isMeta": false});
        for (k, v) in extra.as_object().unwrap() {
            rec[k] = v.clone();
        }
        self.push(rec)
    }

    /// A line with no envelope (machinery records such as `ai-title`).
    pub fn raw(&mut self, v: Value) {
        self.lines.push(v);
    }

    pub fn file_name(&self) -> String {
        format!("{}.jsonl", self.id)
    }
}

/// Every file under `dir`.
pub fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
