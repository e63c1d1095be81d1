//! One pass over one transcript, keeping only what the lane tree needs: spawn
//! tool_uses (`Task`/`Agent`/`Workflow`, SUB-011) and their results, the other
//! carriers of a child id (agent_progress, TaskOutput, task notifications), the
//! lane head (seed, `fork-context-ref`), compaction anchors, teammate traffic, and
//! per-lane stats. A main file also yields its inline 1.0.x sidechain lanes (L5).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::acc::{message_text, LaneAcc, LaneStats};
use super::carriers::{self, Notification};
use crate::record::{parse_line, Block, Parsed, Record};
use crate::scan::{Line, Lines, Source};
use wire::{progress_pair, queued_command, sent, task_output};

mod wire;

pub(crate) const SPAWN_TOOLS: [&str; 3] = ["Task", "Agent", "Workflow"];

/// The `input` keys of a spawn tool_use that the tree reads.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct SpawnInput {
    #[serde(default)]
    pub(crate) prompt: Option<String>,
    #[serde(default)]
    pub(crate) description: Option<String>,
    #[serde(default)]
    pub(crate) subagent_type: Option<String>,
    #[serde(default)]
    pub(crate) run_in_background: Option<bool>,
    #[serde(default)]
    pub(crate) name: Option<String>,
    #[serde(default)]
    pub(crate) team_name: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct Spawn {
    pub(crate) id: String,
    pub(crate) tool: String,
    pub(crate) input: SpawnInput,
    pub(crate) ts: Option<String>,
    pub(crate) line: usize,
    /// The lane whose transcript holds the tool_use: `main`, an agent id, or `inline:…`.
    pub(crate) lane: String,
}

/// `toolUseResult` keys of a spawn's result (every generation, §6 of the spec).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Ack {
    #[serde(default)]
    pub(crate) status: Option<String>,
    #[serde(default)]
    pub(crate) agent_id: Option<String>,
    #[serde(default)]
    pub(crate) is_async: Option<bool>,
    #[serde(default, rename = "agent_id")]
    pub(crate) agent_id_snake: Option<String>,
    #[serde(default, rename = "teammate_id")]
    pub(crate) teammate_id: Option<String>,
    #[serde(default)]
    pub(crate) name: Option<String>,
    #[serde(default)]
    pub(crate) run_id: Option<String>,
    #[serde(default)]
    pub(crate) transcript_dir: Option<String>,
    #[serde(default)]
    pub(crate) task_id: Option<String>,
    #[serde(default)]
    pub(crate) workflow_name: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct SpawnResult {
    pub(crate) line: usize,
    pub(crate) ts: Option<String>,
    pub(crate) text: String,
    pub(crate) is_error: bool,
    pub(crate) ack: Ack,
}

/// A `TaskOutput` retrieval of a local agent (`toolUseResult.task`).
#[derive(Debug, Clone, Default)]
pub(crate) struct TaskOutput {
    pub(crate) task_id: String,
    pub(crate) status: Option<String>,
    pub(crate) result: Option<String>,
    pub(crate) line: usize,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ForkRef {
    #[serde(default)]
    pub(crate) parent_last_uuid: Option<String>,
    #[serde(default)]
    pub(crate) context_length: Option<u64>,
}

/// One `SendMessage` call: recipient and signal type (None for prose).
#[derive(Debug, Clone)]
pub(crate) struct Sent {
    pub(crate) to: String,
    pub(crate) signal: Option<String>,
}

#[derive(Debug, Default)]
pub(crate) struct FileFacts {
    pub(crate) lane: String,
    pub(crate) spawns: Vec<Spawn>,
    /// Spawn id → its first tool_result in this file.
    pub(crate) results: HashMap<String, SpawnResult>,
    /// (child agentId, parentToolUseID) from `agent_progress` records.
    pub(crate) progress: Vec<(String, String)>,
    /// What the subagent records nested in this file's `agent_progress`
    /// records add up to, per child agent id ([`crate::record::embedded`]):
    /// for a subagent with no lane file, the only count of its work.
    pub(crate) nested: HashMap<String, LaneStats>,
    pub(crate) task_outputs: Vec<TaskOutput>,
    pub(crate) notifications: Vec<Notification>,
    pub(crate) stop_notices: Vec<String>,
    /// (lane holding it, sender name, signal) per `<teammate-message>` section.
    pub(crate) teammate_msgs: Vec<(String, String, Option<String>)>,
    pub(crate) sends: Vec<Sent>,
    pub(crate) uuids: HashMap<String, usize>,
    pub(crate) parent_uuids: Vec<String>,
    pub(crate) compact_boundaries: Vec<(usize, Option<String>)>,
    pub(crate) compact_summaries: Vec<(usize, String)>,
    pub(crate) fork: Option<ForkRef>,
    /// `[0]` is the file's own lane; inline sidechain chains follow (main only).
    pub(crate) lanes: Vec<LaneStats>,
    pub(crate) malformed: usize,
}

/// Scan one file. `lane` is `main` or the lane's agent id; `is_main` turns on the
/// main-only carriers (notifications and stop notices land in main, SUB-025) and
/// inline-sidechain lanes.
pub(crate) fn scan(
    path: &Path,
    lane: &str,
    is_main: bool,
    is_compact: bool,
) -> crate::error::Result<FileFacts> {
    let src = Source::open(path)?;
    let mut sc = Scanner::new(lane, is_main, is_compact);
    for line in Lines::new(&src) {
        if line.bytes.is_empty() {
            continue;
        }
        match parse_line(&line) {
            Parsed::Record(rec) => sc.record(&rec, &line),
            Parsed::Malformed(_) => sc.f.malformed += 1,
        }
    }
    let f = sc.finish();
    src.check()?;
    Ok(f)
}

/// One file's scan in progress: the facts so far and the lanes being counted.
struct Scanner<'l> {
    f: FileFacts,
    lane: &'l str,
    is_main: bool,
    is_compact: bool,
    /// The file's own lane.
    own: LaneAcc,
    /// A main file's inline sidechain chains, placed by the shared rule
    /// (`list` and `stats` count these lanes by it too).
    chains: Vec<LaneAcc>,
    inline: crate::classify::sidechain::InlineLanes,
    /// The spawn tool_uses seen so far: their results are the ones kept.
    spawn_ids: HashSet<String>,
    /// Subagent records nested in agent_progress records, per child id.
    nested: HashMap<String, LaneAcc>,
}

impl<'l> Scanner<'l> {
    fn new(lane: &'l str, is_main: bool, is_compact: bool) -> Scanner<'l> {
        Scanner {
            f: FileFacts {
                lane: lane.to_string(),
                ..FileFacts::default()
            },
            lane,
            is_main,
            is_compact,
            own: LaneAcc::new(lane, 1),
            chains: Vec::new(),
            inline: Default::default(),
            spawn_ids: HashSet::new(),
            nested: HashMap::new(),
        }
    }

    fn record(&mut self, rec: &Record<'_>, line: &Line<'_>) {
        let n = line.no;
        if let Some(u) = rec.uuid.as_deref() {
            self.f.uuids.entry(u.to_string()).or_insert(n);
        }
        if self.is_compact {
            if let Some(p) = rec.parent_uuid.as_deref() {
                self.f.parent_uuids.push(p.to_string());
            }
        }
        let lane_id = self.count(rec, n);
        let ts = rec.timestamp.as_deref();
        match rec.kind() {
            "fork-context-ref" if n == 1 => {
                self.f.fork = serde_json::from_slice::<ForkRef>(line.bytes).ok();
            }
            "progress" => self.progress(rec, line.bytes, n),
            "queue-operation" if self.is_main && rec.operation.as_deref() == Some("enqueue") => {
                if let Some(t) = rec.system_text() {
                    let found = carriers::notifications(&t, n, ts);
                    self.f.notifications.extend(found);
                }
            }
            "attachment" if self.is_main => {
                if let Some(p) = queued_command(rec) {
                    let found = carriers::notifications(&p, n, ts);
                    self.f.notifications.extend(found);
                }
            }
            "system" if rec.subtype() == "compact_boundary" => {
                self.f.compact_boundaries.push((n, ts.map(str::to_string)));
            }
            "user" | "assistant" => self.message(rec, n, &lane_id),
            _ => {}
        }
    }

    /// Count `rec` into the lane it belongs to (L5: a main file's sidechain
    /// chains) and name that lane.
    fn count(&mut self, rec: &Record<'_>, n: usize) -> String {
        if !(self.is_main && rec.is_sidechain()) {
            self.own.feed(rec, n);
            return self.lane.to_string();
        }
        let (idx, new) = self
            .inline
            .place(rec.uuid.as_deref(), rec.parent_uuid.as_deref());
        if new {
            let root = rec.uuid.as_deref().unwrap_or("");
            let id = format!("inline:{}", crate::discovery::short(root));
            self.chains.push(LaneAcc::new(&id, n));
        }
        self.chains[idx].feed(rec, n);
        format!("inline:{}", chain_root_short(&self.chains, idx))
    }

    /// An agent_progress record: the (child, parent call) pair, and the
    /// child's nested record counted toward its lane-less stats.
    fn progress(&mut self, rec: &Record<'_>, bytes: &[u8], n: usize) {
        if let Some(pair) = progress_pair(bytes) {
            self.f.progress.push(pair);
        }
        let Some(e) = rec.embedded() else { return };
        if let Some(a) = e.agent_id.as_deref().filter(|a| !a.is_empty()) {
            self.nested
                .entry(a.to_string())
                .or_insert_with(|| LaneAcc::new(a, n))
                .feed(&e.record, n);
        }
    }

    /// A user or assistant record: a user's text carriers (compact summary,
    /// notifications and stop notices in main, teammate messages), then its
    /// spawn and SendMessage calls and the spawn results.
    fn message(&mut self, rec: &Record<'_>, n: usize, lane: &str) {
        let ts = rec.timestamp.as_deref();
        if rec.kind() == "user" {
            self.user_text(rec, n, lane);
        }
        for b in rec.blocks() {
            match b.kind() {
                "tool_use" => self.tool_use(b, ts, n, lane),
                "tool_result" => self.tool_result(rec, b, n),
                _ => {}
            }
        }
    }

    fn user_text(&mut self, rec: &Record<'_>, n: usize, lane: &str) {
        let f = &mut self.f;
        if rec.is_compact_summary() {
            f.compact_summaries.push((n, message_text(rec)));
        }
        let text = message_text(rec);
        if self.is_main && !text.is_empty() {
            let ts = rec.timestamp.as_deref();
            f.notifications
                .extend(carriers::notifications(&text, n, ts));
            f.stop_notices.extend(carriers::stop_notice(&text));
        }
        for (name, sig) in carriers::teammate_messages(&text) {
            f.teammate_msgs.push((lane.to_string(), name, sig));
        }
    }

    /// A spawn tool_use (SUB-011) or a `SendMessage` call.
    fn tool_use(&mut self, b: &Block<'_>, ts: Option<&str>, n: usize, lane: &str) {
        let (Some(id), Some(name)) = (b.id.as_deref(), b.name.as_deref()) else {
            return;
        };
        if SPAWN_TOOLS.contains(&name) {
            let input = serde_json::from_str::<SpawnInput>(b.input_json()).unwrap_or_default();
            self.spawn_ids.insert(id.to_string());
            self.f.spawns.push(Spawn {
                id: id.to_string(),
                tool: name.to_string(),
                input,
                ts: ts.map(str::to_string),
                line: n,
                lane: lane.to_string(),
            });
        } else if name == "SendMessage" {
            self.f.sends.extend(sent(b));
        }
    }

    /// A tool_result: a `TaskOutput` retrieval of a local agent, and the
    /// first result of a spawn seen in this file, with its ack.
    fn tool_result(&mut self, rec: &Record<'_>, b: &Block<'_>, n: usize) {
        let Some(id) = b.tool_use_id.as_deref() else {
            return;
        };
        let tur = rec
            .tool_use_result()
            .map(RawValue::get)
            .filter(|r| r.starts_with('{'));
        if let Some(raw) = tur.filter(|r| r.contains("\"task_type\"")) {
            task_output(&mut self.f, raw, n);
        }
        if !self.spawn_ids.contains(id) || self.f.results.contains_key(id) {
            return;
        }
        // One toolUseResult per record: beside two tool_results it is not
        // known whose it is, so it names no child for either (the spawn
        // text's `agentId:` line still does), as crate::lanes reads it.
        let sole = rec
            .blocks()
            .iter()
            .filter(|b| b.kind() == "tool_result")
            .count()
            == 1;
        let ack = tur
            .filter(|_| sole)
            .and_then(|r| serde_json::from_str::<Ack>(r).ok())
            .unwrap_or_default();
        let result = SpawnResult {
            line: n,
            ts: rec.timestamp.as_deref().map(str::to_string),
            text: b.result_text().into_owned(),
            is_error: b.is_error(),
            ack,
        };
        self.f.results.insert(id.to_string(), result);
    }

    fn finish(self) -> FileFacts {
        let mut f = self.f;
        f.nested = self
            .nested
            .into_iter()
            .map(|(a, acc)| (a, acc.finish()))
            .collect();
        f.lanes.push(self.own.finish());
        f.lanes.extend(self.chains.into_iter().map(LaneAcc::finish));
        f
    }
}

fn chain_root_short(chains: &[LaneAcc], idx: usize) -> String {
    chains[idx].id().trim_start_matches("inline:").to_string()
}
