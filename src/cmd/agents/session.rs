//! One session's lane tree: read its files ([`super::input`]), build the spawn
//! index and join each lane to its parent ([`super::index`]), turn each lane
//! into a row with its kind and state, add the spawns whose lane was never
//! written as lane-less rows and the workflow runs as run rows, and put the
//! rows in tree order ([`super::order`], children by spawn time, SUB-023).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use jiff::Timestamp;

use super::acc::LaneStats;
use super::facts::{self, FileFacts};
use super::index::{self, Index, Join};
use super::input::{self, LaneIn};
use super::row::{LaneKind, LaneRow, LaneShape, LaneState, RunRow};
use super::sidecar::{self, Journal, Meta};
use super::state::{self, Evidence};
use super::{order, teammate, Returns};
use crate::cli::agents::OrderBy;
use crate::discovery::session::SessionFiles;

/// A built session tree.
#[derive(Debug, Default)]
pub(crate) struct Tree {
    pub(crate) session_id: String,
    pub(crate) project: String,
    pub(crate) main_path: Option<PathBuf>,
    pub(crate) main: Option<LaneStats>,
    pub(crate) lanes: Vec<LaneRow>,
    pub(crate) runs: Vec<RunRow>,
    pub(crate) problems: Vec<(PathBuf, String)>,
}

pub(crate) fn build(s: &SessionFiles, returns: Returns, now: Timestamp, order: OrderBy) -> Tree {
    let input = input::read(s);
    let ix = Index::build(&input.files);
    let joins = index::resolve(&ix, &input.files, &input.lanes, s.main.is_some());
    let ctx = Ctx {
        ix: &ix,
        files: &input.files,
        main: input.files.first().filter(|f| f.lane == "main"),
        returns,
        now,
        s,
    };
    let mut journals: HashMap<PathBuf, Journal> = HashMap::new();
    let mut lanes = ctx.lane_rows(&input.lanes, &joins, &mut journals);
    lanes.extend(ctx.laneless_rows(&input.lanes, &joins));
    let mut runs = run_rows(&ctx, &input.lanes, &journals);
    order::order_and_depth(&mut lanes, &mut runs, order);
    Tree {
        session_id: s.session_id.clone(),
        project: crate::discovery::file_name(&s.project_dir),
        main_path: s.main.as_ref().map(|m| m.path.clone()),
        main: input.main,
        lanes,
        runs,
        problems: input.problems,
    }
}

pub(crate) struct Ctx<'a> {
    pub(crate) ix: &'a Index<'a>,
    pub(crate) files: &'a [FileFacts],
    pub(crate) main: Option<&'a FileFacts>,
    pub(crate) returns: Returns,
    pub(crate) now: Timestamp,
    pub(crate) s: &'a SessionFiles,
}

impl Ctx<'_> {
    /// A row per lane on disk, in lane order; a workflow lane's run journal
    /// is read once per run directory into `journals`.
    fn lane_rows(
        &self,
        lanes: &[LaneIn],
        joins: &[Join],
        journals: &mut HashMap<PathBuf, Journal>,
    ) -> Vec<LaneRow> {
        let mut rows = Vec::with_capacity(lanes.len());
        for (l, j) in lanes.iter().zip(joins) {
            let journal = l.run.as_ref().and_then(|_| l.dir.clone()).map(|d| {
                journals
                    .entry(d.clone())
                    .or_insert_with(|| sidecar::journal(&d))
                    .clone()
            });
            rows.push(self.lane_row(l, j, journal.as_ref()));
        }
        rows
    }

    /// A row per spawn no lane joined to: a subagent whose lane was never
    /// written. A workflow spawn whose run has lanes on disk is not one: its
    /// run row shows it.
    fn laneless_rows(&self, lanes: &[LaneIn], joins: &[Join]) -> Vec<LaneRow> {
        let claimed: HashSet<&str> = joins.iter().filter_map(|j| j.spawn.as_deref()).collect();
        let runs_on_disk: HashSet<&str> = lanes.iter().filter_map(|l| l.run.as_deref()).collect();
        let run_on_disk = |sp: &str| {
            self.ix
                .by_run
                .iter()
                .any(|(run, id)| *id == sp && runs_on_disk.contains(run.as_str()))
        };
        self.ix
            .order
            .iter()
            .filter(|sp| !claimed.contains(sp.id.as_str()) && !run_on_disk(&sp.id))
            .map(|sp| self.laneless_row(sp))
            .collect()
    }

    fn base(&self) -> LaneRow {
        LaneRow {
            row: "lane",
            session_id: self.s.session_id.clone(),
            project: crate::discovery::file_name(&self.s.project_dir),
            main_present: self.s.main.is_some(),
            ..LaneRow::default()
        }
    }

    fn evidence<'e>(
        &'e self,
        agent_id: Option<&'e str>,
        spawn: Option<&'e str>,
        meta: &'e Meta,
    ) -> Evidence<'e> {
        let sp = spawn.and_then(|s| self.ix.spawns.get(s).copied());
        let result = spawn.and_then(|s| self.ix.results.get(s)).map(|(r, _)| *r);
        let notifications = self
            .main
            .map(|m| {
                m.notifications
                    .iter()
                    .filter(|n| {
                        (spawn.is_some() && n.tool_use_id.as_deref() == spawn)
                            || (agent_id.is_some() && n.task_id.as_deref() == agent_id)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let task_output = agent_id.and_then(|a| {
            let all = self
                .files
                .iter()
                .flat_map(|f| &f.task_outputs)
                .filter(|t| t.task_id == a);
            let v: Vec<_> = all.collect();
            v.iter()
                .find(|t| t.status.as_deref() == Some("completed"))
                .or(v.first())
                .copied()
        });
        Evidence {
            shape: LaneShape::NoLaneFile,
            is_compact: false,
            is_fork_ref: false,
            meta,
            spawn: sp,
            result,
            notifications,
            task_output,
            journal: None,
            anchor: None,
            compact_summary: None,
            stop_notices: self.main.map_or(&[], |m| m.stop_notices.as_slice()),
            stats: None,
            now: self.now,
        }
    }

    fn lane_row(&self, l: &LaneIn, j: &Join, journal: Option<&Journal>) -> LaneRow {
        let agent = (!l.inline).then_some(l.id.as_str());
        let mut e = self.evidence(agent, j.spawn.as_deref(), &l.meta);
        e.shape = l.shape;
        e.is_compact = l.is_compact;
        e.is_fork_ref = l.fork.is_some();
        e.stats = Some(&l.stats);
        e.journal = journal.and_then(|jr| jr.agents.get(&l.id));
        e.anchor = j.anchor.as_ref();
        e.compact_summary = match (&j.anchor, self.main) {
            (Some((line, _)), Some(m)) => m
                .compact_summaries
                .iter()
                .find(|(n, _)| n > line)
                .map(|(_, t)| t.as_str()),
            _ => None,
        };
        let mut r = self.base();
        r.agent_id = Some(l.id.clone());
        r.path = l.path.clone();
        r.line = l.line;
        r.shape = l.shape;
        r.parent_id = j.parent.clone();
        r.join_rule = j.rule;
        r.join_agree = j.agree.clone();
        r.unresolved_reason = j.unresolved;
        r.started_utc = l.stats.started.clone();
        r.last_utc = l.stats.last.clone();
        r.records = l.stats.records;
        r.tool_calls = l.stats.tool_calls;
        r.tokens = l.stats.tokens;
        r.malformed_lines = l.malformed;
        r.last_stop_reason = l.stats.last_stop_reason.clone();
        r.fork_parent_last_uuid = l.fork.as_ref().and_then(|f| f.parent_last_uuid.clone());
        r.fork_context_length = l.fork.as_ref().and_then(|f| f.context_length);
        r.workflow_id = l.run.clone();
        self.fill(&mut r, &e, l.stats.child_final.clone());
        if r.kind == LaneKind::Teammate {
            r.teammate = Some(teammate::row(self.files, &l.id, &l.meta, e.spawn));
            if let Some(t) = &r.teammate {
                if t.terminated && r.state == LaneState::Launched {
                    r.state_evidence = Some("teammate_terminated signal".into());
                }
            }
        }
        r
    }

    fn laneless_row(&self, sp: &facts::Spawn) -> LaneRow {
        let meta = Meta::default();
        let agent = self.ix.child_of(&sp.id);
        let e = self.evidence(agent.as_deref(), Some(&sp.id), &meta);
        let mut r = self.base();
        r.agent_id = agent.clone();
        r.shape = LaneShape::NoLaneFile;
        r.parent_id = Some(sp.lane.clone());
        r.join_rule = Some("spawn-without-lane");
        // Its records nested in the parent's agent_progress records, if any.
        let nested = agent.as_deref().and_then(|a| {
            self.files
                .iter()
                .find(|f| f.lane == sp.lane)
                .and_then(|f| f.nested.get(a))
        });
        if let Some(n) = nested {
            r.nested_records = true;
            r.started_utc = n.started.clone();
            r.last_utc = n.last.clone();
            r.records = n.records;
            r.tool_calls = n.tool_calls;
            // Not its tokens: a nested usage copy is written as the reply
            // starts streaming (output_tokens 1 to 26 in the corpus's 193).
            r.last_stop_reason = n.last_stop_reason.clone();
        }
        self.fill(&mut r, &e, None);
        r
    }

    /// Kind, spawn fields, state and returns: shared by lane and lane-less rows.
    fn fill(&self, r: &mut LaneRow, e: &Evidence<'_>, child_final: Option<String>) {
        let (kind, basis) = state::kind(e);
        r.kind = kind;
        r.kind_basis = basis;
        if let Some(sp) = e.spawn {
            r.spawn_tool_use_id = Some(sp.id.clone());
            r.spawn_tool = Some(sp.tool.clone());
            r.spawn_utc = sp.ts.clone();
        } else if r.spawn_tool_use_id.is_none() {
            r.spawn_tool_use_id = e.meta.tool_use_id.clone();
        }
        let input = e.spawn.map(|s| &s.input);
        r.agent_type = if kind == LaneKind::Teammate {
            // SUB-014: the meta's agentType is the teammate's name; the spawn has the type.
            input
                .and_then(|i| i.subagent_type.clone())
                .or_else(|| e.meta.agent_type.clone())
        } else {
            e.meta
                .agent_type
                .clone()
                .or_else(|| input.and_then(|i| i.subagent_type.clone()))
        };
        r.description = e
            .meta
            .description
            .clone()
            .or_else(|| input.and_then(|i| i.description.clone()));
        let o = state::state(e);
        r.state = o.state;
        r.carrier = o.carrier;
        r.state_evidence = o.evidence;
        r.completed_utc = o.completed_utc;
        r.pending_classification = (o.state == LaneState::Pending)
            .then_some(o.carrier)
            .flatten();
        r.pending_reason = o.pending_reason;
        r.pending_tool_name = o.pending_tool_name;
        r.pending_since_utc = o.pending_since_utc;
        r.generating = o.generating;
        r.returned_message_source = o.source;
        r.footer = o.footer;
        r.returns_differ = match (&o.returned, &child_final) {
            (Some(p), Some(c)) => Some(p.trim() != c.trim()),
            _ => None,
        };
        if self.returns.parent() {
            r.returned_message = Some(o.returned);
        }
        if self.returns.child() {
            r.child_final_text = Some(child_final);
        }
    }
}

fn run_rows(ctx: &Ctx<'_>, lanes: &[LaneIn], journals: &HashMap<PathBuf, Journal>) -> Vec<RunRow> {
    let mut runs: BTreeMap<String, RunRow> = BTreeMap::new();
    let session_dir = ctx.s.project_dir.join(&ctx.s.session_id);
    for l in lanes {
        let (Some(run), Some(dir)) = (&l.run, &l.dir) else {
            continue;
        };
        let row = runs.entry(run.clone()).or_insert_with(|| {
            let spawn = ctx
                .ix
                .by_run
                .get(run.as_str())
                .and_then(|id| ctx.ix.spawns.get(id));
            let m = sidecar::manifest(&session_dir, run);
            let jr = journals.get(dir).cloned().unwrap_or_default();
            let ack = spawn
                .and_then(|s| ctx.ix.results.get(s.id.as_str()))
                .map(|(r, _)| &r.ack);
            RunRow {
                row: "run",
                session_id: ctx.s.session_id.clone(),
                workflow_id: run.clone(),
                parent_id: spawn.map(|s| s.lane.clone()),
                spawn_tool_use_id: spawn.map(|s| s.id.clone()),
                task_id: m
                    .as_ref()
                    .and_then(|m| m.task_id.clone())
                    .or_else(|| ack.and_then(|a| a.task_id.clone())),
                workflow_name: m
                    .as_ref()
                    .and_then(|m| m.workflow_name.clone())
                    .or_else(|| ack.and_then(|a| a.workflow_name.clone())),
                manifest_present: m.is_some(),
                status: m.as_ref().and_then(sidecar::Manifest::status_text),
                manifest_agent_count: m.as_ref().and_then(|m| m.agent_count),
                lanes: 0,
                journal_present: jr.present,
                journal_started: jr.started,
                journal_results: jr.results,
                journal_failed: jr.failed,
                depth: 0,
            }
        });
        row.lanes += 1;
    }
    runs.into_values().collect()
}
