//! Which tool call spawned which lane, on the keys Claude Code writes, for a
//! reader that places each lane under its call (`export`). Paths never decide
//! nesting (SUB-003): a lane is joined to a call by, in order,
//!
//! 1. its `agent-<id>.meta.json` `toolUseId` (SUB-006);
//! 2. the spawn result's `toolUseResult.agentId` (sync and async results both
//!    carry it, SUB-016);
//! 3. an `agentId: <id>` line of the result's text (the return footer and the
//!    async launch ack, SUB-019);
//! 4. an `agent_progress` record's `parentToolUseID` beside its `agentId`.
//!
//! The first key found wins. `csift agents` joins on more keys (teammate
//! names, workflow runs, seed prompts, fork points); a lane none of these keys
//! places is not dropped: the caller shows it after the transcript, saying so.

use crate::discovery::Transcript;
use crate::record::{parse_line, Parsed};
use crate::scan::{lit, Lines};
use std::collections::HashMap;

/// The id of every `agentId: <id>` line of a result's text: the return
/// footer and the async launch ack (SUB-019). `csift agents` reads the same
/// lines.
pub(crate) fn agent_id_lines(text: &str) -> impl Iterator<Item = &str> {
    crate::scan::re!(r"(?m)^agentId: ([A-Za-z0-9-]+)")
        .captures_iter(text)
        .filter_map(|c| c.get(1).map(|m| m.as_str()))
}

/// `agent id -> spawning tool_use id`, over every file of one session.
#[derive(Debug, Default)]
pub(crate) struct Joins {
    by_agent: HashMap<String, String>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta {
    #[serde(default)]
    tool_use_id: Option<String>,
    /// How many spawns below its session the lane is (1: spawned by the
    /// main conversation), where Claude Code writes it (SUB-006).
    #[serde(default)]
    spawn_depth: Option<usize>,
}

/// How many spawns below its session lane `agent` is (1: spawned by the main
/// conversation), given `files` (one session: its main transcript and lanes,
/// with their bytes). The lane's meta `spawnDepth` where Claude Code wrote one
/// (SUB-006); else the chain of spawning calls: the call that spawned it
/// ([`Joins`]), the file holding that call (a lane's before the main file,
/// whose `agent_progress` records may nest a lane's records), and so on up to
/// the main conversation. `None` where a link is not on disk.
pub(crate) fn depth(files: &[(&Transcript, &[u8])], agent: &str) -> Option<usize> {
    let lane = |a: &str| {
        files
            .iter()
            .find(|(t, _)| t.is_lane() && t.agent_id.as_deref() == Some(a))
    };
    let meta = std::fs::read(lane(agent)?.0.path.with_extension("meta.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Meta>(&b).ok());
    if let Some(d) = meta.and_then(|m| m.spawn_depth).filter(|d| *d > 0) {
        return Some(d);
    }
    let joins = Joins::build(files);
    let mut cur = agent.to_string();
    // A chain longer than the files is a cycle: no depth.
    for d in 1..=files.len() {
        let call = joins.spawn_of(&cur)?;
        let holds = |buf: &[u8]| {
            let needle = format!("\"{call}\"");
            memchr::memmem::find_iter(buf, needle.as_bytes())
                .any(|at| crate::scan::pair::keyed_by(buf, at, b"\"id\""))
        };
        let holder = files
            .iter()
            .filter(|(t, _)| t.is_lane() && t.agent_id.as_deref() != Some(cur.as_str()))
            .chain(files.iter().filter(|(t, _)| !t.is_lane()))
            .find(|(_, b)| holds(b))?;
        match holder.0.agent_id.as_deref().filter(|_| holder.0.is_lane()) {
            Some(a) => cur = a.to_string(),
            None => return Some(d),
        }
    }
    None
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Ack<'a> {
    #[serde(borrow, default, deserialize_with = "crate::record::opt_str")]
    agent_id: crate::record::Str<'a>,
}

impl Joins {
    /// Read the joins of `files` (one session: its main transcript and lanes),
    /// each given with its bytes.
    pub(crate) fn build(files: &[(&Transcript, &[u8])]) -> Joins {
        let mut j = Joins::default();
        for (t, _) in files {
            let (Some(agent), true) = (t.agent_id.as_deref(), t.is_lane()) else {
                continue;
            };
            let meta = std::fs::read(t.path.with_extension("meta.json"))
                .ok()
                .and_then(|b| serde_json::from_slice::<Meta>(&b).ok());
            if let Some(id) = meta.and_then(|m| m.tool_use_id) {
                j.by_agent.insert(agent.to_string(), id);
            }
        }
        for (t, buf) in files {
            j.scan(buf, t.is_lane());
        }
        j
    }

    /// The tool_use id that spawned agent `agent`, when a key names it.
    pub(crate) fn spawn_of(&self, agent: &str) -> Option<&str> {
        self.by_agent.get(agent).map(String::as_str)
    }

    fn note(&mut self, agent: &str, spawn: &str) {
        if !agent.is_empty() && !spawn.is_empty() {
            self.by_agent
                .entry(agent.to_string())
                .or_insert_with(|| spawn.to_string());
        }
    }

    /// Lines naming an agent id: spawn results and `agent_progress` records.
    /// Every record of a lane carries its own `"agentId"`, so there a result
    /// must name one more (its ack) or hold an `agentId:` line.
    fn scan(&mut self, buf: &[u8], lane: bool) {
        if lit!(b"agentId").find(buf).is_none() {
            return;
        }
        for line in Lines::new(buf) {
            let b = line.bytes;
            let keyed = lit!(b"\"agentId\"").find_iter(b).take(2).count();
            let texted = lit!(b"agentId: ").find(b).is_some();
            let progress = lit!(b"agent_progress").find(b).is_some();
            if !(progress || texted || keyed > usize::from(lane)) {
                continue;
            }
            let Parsed::Record(r) = parse_line(&line) else {
                continue;
            };
            if progress {
                let parent = crate::scan::json::field(b, b"parentToolUseID")
                    .and_then(crate::scan::json::plain_str);
                if let (Some(e), Some(p)) = (r.embedded(), parent) {
                    if let Some(a) = e.agent_id.as_deref() {
                        self.note(a, p);
                    }
                }
                continue;
            }
            let results: Vec<_> = r
                .blocks()
                .iter()
                .filter(|b| b.kind() == "tool_result")
                .collect();
            let ack = r
                .tool_use_result()
                .filter(|_| results.len() == 1)
                .and_then(|raw| serde_json::from_str::<Ack<'_>>(raw.get()).ok())
                .and_then(|a| a.agent_id.map(|a| a.into_owned()));
            for b in results {
                let Some(id) = b.tool_use_id.as_deref() else {
                    continue;
                };
                if let Some(a) = &ack {
                    self.note(a, id);
                }
                let text = b.result_text();
                for a in agent_id_lines(&text) {
                    self.note(a, id);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(lines: &[&str], lane: bool) -> Joins {
        let mut j = Joins::default();
        j.scan(lines.join("\n").as_bytes(), lane);
        j
    }

    /// A sync Task result names its child in `toolUseResult.agentId` (SUB-016),
    /// an async one also in an `agentId:` text line (SUB-019).
    #[test]
    fn results_name_their_child_sub_016_sub_019() {
        let sync = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"done"}]},"toolUseResult":{"status":"completed","agentId":"a1"}}"#;
        let text = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"Async agent launched.\nagentId: a2 (use SendMessage)"}]}]}}"#;
        let j = scan(&[sync, text], false);
        assert_eq!(j.spawn_of("a1"), Some("toolu_1"));
        assert_eq!(j.spawn_of("a2"), Some("toolu_2"));
        // In a lane every record carries its own agentId: that is not an ack.
        let own = r#"{"type":"user","agentId":"self","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_3","content":"x"}]}}"#;
        assert_eq!(scan(&[own], true).spawn_of("self"), None);
    }

    #[test]
    fn agent_progress_names_the_parent_call() {
        let p = r#"{"type":"progress","data":{"message":{"type":"user","message":{"role":"user","content":"go"}},"type":"agent_progress","prompt":"go","agentId":"a9"},"toolUseID":"agent_msg_1","parentToolUseID":"toolu_9"}"#;
        assert_eq!(scan(&[p], false).spawn_of("a9"), Some("toolu_9"));
    }
}
