//! Pointers from a transcript to other files, checked against the disk:
//! subagent lanes named by a spawn result or an `agentId` record
//! (`missing-transcript`), and externalised tool output (`missing-persisted-output`).
//!
//! Lanes: a spawn result's `toolUseResult.agentId` with status completed,
//! async_launched or teammate_spawned (SUB-015/016, BG-004), a progress record's
//! `data.agentId`, or a record's own top-level `agentId` in another file, expect
//! `<project>/<session>/subagents/**/agent-<id>.jsonl` (SUB-001/002) or the older
//! flat `<project>/agent-<id>.jsonl`. An async agent's `outputFile` lives in OS
//! temp and is usually gone (BG-028): never checked.
//!
//! Persisted output (REC-015, MISC-002): `toolUseResult.persistedOutputPath`
//! (with `persistedOutputSize`), else the path after `Full output saved to:` in a
//! `<persisted-output>` tool_result or hook attachment text.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::finding::{At, FileCtx, Finding};
use crate::cache::{Dec, Enc};
use crate::cli::audit::Kind;
use crate::discovery::Transcript;
use crate::loss::lite::LiteMessage;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Spawn<'a> {
    #[serde(borrow, default)]
    agent_id: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    persisted_output_path: Option<String>,
    #[serde(default)]
    persisted_output_size: Option<u64>,
}

#[derive(Debug, Default)]
pub(crate) struct Refs {
    /// agent id → (where first named, how).
    lanes: BTreeMap<String, (At, &'static str)>,
    outputs: Vec<(PathBuf, Option<u64>, At)>,
}

/// The `toolUseResult` keys [`Spawn`] reads, as raw values, read in the line's
/// own serde walk ([`super::checked`]) instead of a second parse of the object.
#[derive(Debug, Default)]
pub(crate) struct SpawnRaw<'a> {
    /// agentId, status, persistedOutputPath, persistedOutputSize.
    vals: [Option<&'a RawValue>; 4],
    /// A key given twice: [`Spawn`]'s derived read refuses the object.
    dup: bool,
    /// `agentId` or `persistedOutputPath` written with an escape: the byte
    /// prefilters ([`super::pass`]) would not see it, so the object is read
    /// the plain way.
    pub(crate) escaped: bool,
}

impl<'a> SpawnRaw<'a> {
    const KEYS: [&'static str; 4] = [
        "agentId",
        "status",
        "persistedOutputPath",
        "persistedOutputSize",
    ];

    /// The slot of a (decoded) key [`Spawn`] reads.
    pub(crate) fn slot(key: &str) -> Option<usize> {
        Self::KEYS.iter().position(|k| *k == key)
    }

    pub(crate) fn put(&mut self, i: usize, v: &'a RawValue, escaped: bool) {
        self.dup |= self.vals[i].replace(v).is_some();
        self.escaped |= escaped && i != 1 && i != 3;
    }

    /// Whether the object has an `agentId` key, and a `persistedOutputPath` key.
    pub(crate) fn names(&self) -> (bool, bool) {
        (self.vals[0].is_some(), self.vals[2].is_some())
    }

    /// What [`Spawn`]'s derived read of the whole object gives.
    fn spawn(&self) -> Option<Spawn<'a>> {
        fn field<'a, T: Deserialize<'a>>(v: Option<&'a RawValue>) -> Option<Option<T>> {
            match v {
                Some(r) => serde_json::from_str::<Option<T>>(r.get()).ok(),
                None => Some(None),
            }
        }
        if self.dup {
            return None;
        }
        Some(Spawn {
            agent_id: field(self.vals[0])?,
            status: field(self.vals[1])?,
            persisted_output_path: field(self.vals[2])?,
            persisted_output_size: field(self.vals[3])?,
        })
    }
}

fn parse_obj(raw: &[u8]) -> Option<Spawn<'_>> {
    if !raw.starts_with(b"{") {
        return None;
    }
    serde_json::from_slice(raw).ok()
}

impl Refs {
    /// A user record's `toolUseResult` (raw): spawn ids and persisted paths.
    pub(crate) fn tool_use_result(&mut self, raw: &[u8], at: &At) -> bool {
        parse_obj(raw).is_some_and(|s| self.spawned(s, at))
    }

    /// The same, from the keys the line's serde walk read.
    pub(crate) fn tool_use_result_read(&mut self, s: &SpawnRaw<'_>, at: &At) -> bool {
        s.spawn().is_some_and(|s| self.spawned(s, at))
    }

    fn spawned(&mut self, s: Spawn<'_>, at: &At) -> bool {
        if let (Some(id), Some(st)) = (&s.agent_id, &s.status) {
            if matches!(&**st, "completed" | "async_launched" | "teammate_spawned") {
                self.lane(id, at, HOW[0]);
            }
        }
        match s.persisted_output_path {
            Some(p) => {
                self.outputs
                    .push((PathBuf::from(p), s.persisted_output_size, at.clone()));
                true
            }
            None => false,
        }
    }

    /// A progress record's `data` (raw) naming a subagent.
    pub(crate) fn progress(&mut self, raw: &[u8], at: &At) {
        if let Some(id) = parse_obj(raw).and_then(|s| s.agent_id) {
            self.lane(&id, at, HOW[1]);
        }
    }

    /// The same, from the `data` keys the line's serde walk read.
    pub(crate) fn progress_read(&mut self, s: &SpawnRaw<'_>, at: &At) {
        if let Some(id) = s.spawn().and_then(|s| s.agent_id) {
            self.lane(&id, at, HOW[1]);
        }
    }

    pub(crate) fn lane(&mut self, id: &str, at: &At, how: &'static str) {
        if !id.is_empty() {
            self.lanes
                .entry(id.to_string())
                .or_insert_with(|| (at.clone(), how));
        }
    }

    /// `<persisted-output>` text in a tool_result (user) record's message.
    pub(crate) fn inline_output(&mut self, message: &[u8], at: &At) {
        if let Some(m) = LiteMessage::parse(message) {
            self.inline_output_read(&m, at);
        }
    }

    /// The same, from the message the line's serde walk read.
    pub(crate) fn inline_output_read(&mut self, m: &LiteMessage<'_>, at: &At) {
        for b in m.blocks().unwrap_or_default() {
            if let Some(raw) = b.content.filter(|_| b.is("tool_result")) {
                let text = crate::record::content::raw_text(raw);
                self.scrape(&text, at);
            }
        }
    }

    /// `<persisted-output>` text anywhere in an attachment payload (hook output).
    pub(crate) fn attachment_output(&mut self, line: &[u8], at: &At) {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) else {
            return;
        };
        let mut stack = vec![&v];
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::String(s) => self.scrape(s, at),
                serde_json::Value::Array(a) => stack.extend(a),
                serde_json::Value::Object(o) => stack.extend(o.values()),
                _ => {}
            }
        }
    }

    fn scrape(&mut self, text: &str, at: &At) {
        if !text.contains("<persisted-output>") {
            return;
        }
        const MARK: &str = "Full output saved to:";
        for (i, _) in text.match_indices(MARK) {
            let rest = &text[i + MARK.len()..];
            let path = rest.lines().next().unwrap_or("").trim();
            if !path.is_empty() {
                self.outputs.push((PathBuf::from(path), None, at.clone()));
            }
        }
    }

    pub(crate) fn finish(
        self,
        ctx: &FileCtx,
        t: &Transcript,
        want_lanes: bool,
        want_outputs: bool,
        out: &mut Vec<Finding>,
    ) {
        if want_lanes && !self.lanes.is_empty() {
            let have = lane_ids(&t.project_dir, &t.session_id);
            for (id, (at, how)) in &self.lanes {
                if t.agent_id.as_deref() == Some(id.as_str()) || have.contains(id) {
                    continue;
                }
                if t.project_dir.join(format!("agent-{id}.jsonl")).is_file() {
                    continue;
                }
                let expect = t
                    .project_dir
                    .join(&t.session_id)
                    .join("subagents")
                    .join(format!("agent-{id}.jsonl"));
                out.push(ctx.finding(
                    Kind::MissingTranscript,
                    at,
                    None,
                    format!(
                        "subagent {id} named by {how} has no lane file (expected {})",
                        expect.display()
                    ),
                ));
            }
        }
        if want_outputs {
            let mut seen = HashSet::new();
            for (path, size, at) in self.outputs {
                if !seen.insert((path.clone(), at.line)) {
                    continue;
                }
                // The absolute path of the machine that wrote it, else the
                // session's own tool-results/ in this home (as search resolves it).
                let named = expand_home(&path);
                let real = t.local_persisted(&named).unwrap_or(named);
                let detail = match std::fs::metadata(&real) {
                    Err(e) => format!("persisted output {} is gone: {e}", path.display()),
                    Ok(m) => match size {
                        Some(n) if n != m.len() => format!(
                            "persisted output {} is {} bytes, the record says {n} (size-mismatch)",
                            path.display(),
                            m.len()
                        ),
                        _ => continue,
                    },
                };
                out.push(ctx.finding(Kind::MissingPersistedOutput, &at, None, detail));
            }
        }
    }
}

/// The ways a transcript names a subagent ([`Refs::lane`]'s `how`).
const HOW: [&str; 2] = ["a spawn result", "an agent_progress record"];

impl Refs {
    /// Fold in the pointers of the lines that follow: a lane keeps where it
    /// was first named, outputs are listed in file order.
    pub(crate) fn extend(&mut self, later: Refs) {
        for (id, v) in later.lanes {
            self.lanes.entry(id).or_insert(v);
        }
        self.outputs.extend(later.outputs);
    }

    pub(crate) fn encode(&self, e: &mut Enc) {
        e.u64(self.lanes.len() as u64);
        for (id, (at, how)) in &self.lanes {
            e.str(id);
            at.encode(e);
            e.u8(HOW.iter().position(|h| h == how).unwrap_or(0) as u8);
        }
        e.u64(self.outputs.len() as u64);
        for (path, size, at) in &self.outputs {
            e.bytes(path.as_os_str().as_encoded_bytes());
            e.bool(size.is_some());
            e.u64(size.unwrap_or(0));
            at.encode(e);
        }
    }

    pub(crate) fn decode(d: &mut Dec<'_>) -> Option<Refs> {
        let mut r = Refs::default();
        for _ in 0..d.len(20)? {
            let id = d.str()?.to_string();
            let at = At::decode(d)?;
            let how = *HOW.get(usize::from(d.u8()?))?;
            r.lanes.insert(id, (at, how));
        }
        for _ in 0..d.len(20)? {
            // Written from a path's own bytes by this build (the entry's
            // digest checked): the encoding is the platform's.
            let path = d.str().map(PathBuf::from)?;
            let size = d.bool()?.then_some(0);
            let n = d.u64()?;
            r.outputs.push((path, size.map(|_| n), At::decode(d)?));
        }
        Some(r)
    }
}

fn expand_home(p: &Path) -> PathBuf {
    match (p.strip_prefix("~"), std::env::var_os("HOME")) {
        (Ok(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => p.to_path_buf(),
    }
}

/// Agent ids of every `agent-<id>.jsonl` under `<project>/<session>/subagents/`.
pub(crate) fn lane_ids(project: &Path, session: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut stack = vec![(project.join(session).join("subagents"), 0)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.file_type().is_ok_and(|f| f.is_dir());
            if is_dir && depth < 6 {
                stack.push((e.path(), depth + 1));
            } else if let Some(stem) = name.strip_suffix(".jsonl") {
                out.insert(stem.strip_prefix("agent-").unwrap_or(stem).to_string());
            }
        }
    }
    out
}
