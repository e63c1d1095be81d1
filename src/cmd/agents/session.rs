//! One session's lane tree: scan its main file and every lane file (in
//! parallel), build the spawn index, join each lane to its parent, decide kinds and
//! states, and add the spawns whose lane was never written as lane-less nodes.
//! Output rows come back in tree order (children by spawn time, SUB-023).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use jiff::Timestamp;

use super::acc::LaneStats;
use super::facts::{self, FileFacts, ForkRef};
use super::index::{self, Index, Join};
use super::row::{LaneKind, LaneRow, LaneShape, LaneState, RunRow};
use super::sidecar::{self, Journal, Meta};
use super::state::{self, Evidence};
use super::{teammate, Returns};
use crate::cli::agents::OrderBy;
use crate::discovery::session::SessionFiles;
use crate::discovery::{Shape, Transcript};

/// One lane as the joins see it.
#[derive(Debug, Clone, Default)]
pub(crate) struct LaneIn {
    pub(crate) id: String,
    pub(crate) path: Option<String>,
    /// An inline sidechain's first line in the main file.
    pub(crate) line: Option<usize>,
    pub(crate) dir: Option<PathBuf>,
    pub(crate) shape: LaneShape,
    pub(crate) run: Option<String>,
    pub(crate) meta: Meta,
    pub(crate) stats: LaneStats,
    pub(crate) fork: Option<ForkRef>,
    pub(crate) is_compact: bool,
    pub(crate) inline: bool,
    pub(crate) parent_uuids: Vec<String>,
    pub(crate) malformed: usize,
}

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

/// A lane file's shape under the name list and stats give it, and its
/// workflow run.
fn shape_of(t: &Transcript) -> (LaneShape, Option<String>) {
    let run = match &t.shape {
        Shape::Workflow { run } => Some(run.clone()),
        _ => None,
    };
    (LaneShape::from(&t.shape), run)
}

pub(crate) fn build(s: &SessionFiles, returns: Returns, now: Timestamp, order: OrderBy) -> Tree {
    let mut tree = Tree {
        session_id: s.session_id.clone(),
        project: crate::discovery::file_name(&s.project_dir),
        main_path: s.main.as_ref().map(|m| m.path.clone()),
        ..Tree::default()
    };
    let mut jobs: Vec<(&Transcript, String, bool, bool)> = Vec::new();
    if let Some(m) = &s.main {
        jobs.push((m, "main".into(), true, false));
    }
    for l in &s.lanes {
        let id = l.agent_id.clone().unwrap_or_default();
        let compact = id.starts_with("acompact");
        jobs.push((l, id, false, compact));
    }
    let scanned = crate::scan::par_map(&jobs, |(t, id, main, compact)| {
        facts::scan(&t.path, id, *main, *compact)
    });
    let mut files: Vec<FileFacts> = Vec::new();
    let mut lanes: Vec<LaneIn> = Vec::new();
    for ((t, id, is_main, compact), res) in jobs.iter().zip(scanned) {
        let mut f = match res {
            Ok(f) => f,
            Err(e) => {
                tree.problems.push((t.path.clone(), e.to_string()));
                continue;
            }
        };
        if *is_main {
            tree.main = f.lanes.first().cloned();
            for st in f.lanes.iter().skip(1) {
                lanes.push(LaneIn {
                    id: st.id.clone(),
                    path: Some(t.path.display().to_string()),
                    line: Some(st.root_line),
                    shape: LaneShape::InlineSidechain,
                    stats: st.clone(),
                    inline: true,
                    ..LaneIn::default()
                });
            }
        } else {
            let (shape, run) = shape_of(t);
            lanes.push(LaneIn {
                id: id.clone(),
                path: Some(t.path.display().to_string()),
                line: None,
                dir: t.path.parent().map(PathBuf::from),
                shape,
                run,
                meta: sidecar::meta_for(&t.path),
                stats: f.lanes.first().cloned().unwrap_or_default(),
                fork: f.fork.take(),
                is_compact: *compact,
                inline: false,
                parent_uuids: std::mem::take(&mut f.parent_uuids),
                malformed: f.malformed,
            });
        }
        files.push(f);
    }
    let ix = Index::build(&files);
    let joins = index::resolve(&ix, &files, &lanes, s.main.is_some());
    let main_facts = files.first().filter(|f| f.lane == "main");
    let mut journals: HashMap<PathBuf, Journal> = HashMap::new();
    let ctx = Ctx {
        ix: &ix,
        files: &files,
        main: main_facts,
        returns,
        now,
        s,
    };
    let mut rows: Vec<LaneRow> = Vec::new();
    for (l, j) in lanes.iter().zip(&joins) {
        let journal = l.run.as_ref().and_then(|_| l.dir.clone()).map(|d| {
            journals
                .entry(d.clone())
                .or_insert_with(|| sidecar::journal(&d))
                .clone()
        });
        rows.push(ctx.lane_row(l, j, journal.as_ref()));
    }
    let claimed: HashSet<&str> = joins.iter().filter_map(|j| j.spawn.as_deref()).collect();
    let runs_on_disk: HashSet<&str> = lanes.iter().filter_map(|l| l.run.as_deref()).collect();
    for sp in &ix.order {
        let wf_on_disk = ix
            .by_run
            .iter()
            .any(|(run, id)| *id == sp.id && runs_on_disk.contains(run.as_str()));
        if claimed.contains(sp.id.as_str()) || wf_on_disk {
            continue;
        }
        rows.push(ctx.laneless_row(sp));
    }
    tree.runs = run_rows(&ctx, &lanes, &journals);
    order_and_depth(&mut rows, &mut tree.runs, order);
    tree.lanes = rows;
    tree
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

/// Depth from parent links (cycle-guarded), then rows in tree order: each
/// parent followed by its children sorted by spawn time (SUB-023: the parent's
/// call, never the child's first record, which lags it by a heavy-tailed
/// delay), or with `completion` by the time each returned, those that did not
/// after; then file line, id.
fn order_and_depth(rows: &mut Vec<LaneRow>, runs: &mut [RunRow], order: OrderBy) {
    let by_key: HashMap<String, usize> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.key().map(|k| (k.to_string(), i)))
        .collect();
    let depth_of = |start: usize| -> usize {
        let mut d = 0;
        let mut cur = start;
        let mut seen = HashSet::new();
        loop {
            let Some(p) = rows[cur].parent_id.as_deref() else {
                return d;
            };
            d += 1;
            match by_key.get(p) {
                Some(&i) if seen.insert(i) && i != start => cur = i,
                _ => return d,
            }
        }
    };
    let depths: Vec<usize> = (0..rows.len()).map(depth_of).collect();
    for (r, d) in rows.iter_mut().zip(depths) {
        r.depth = d;
    }
    for run in runs.iter_mut() {
        run.depth = run
            .parent_id
            .as_deref()
            .map_or(0, |p| by_key.get(p).map_or(1, |&i| rows[i].depth + 1));
    }
    let sort_key = |r: &LaneRow| {
        let done = match order {
            OrderBy::Trigger => None,
            OrderBy::Completion => Some(completion_key(r)),
        };
        (
            done,
            r.spawn_utc.clone().or_else(|| r.started_utc.clone()),
            r.label(),
        )
    };
    let mut children: BTreeMap<Option<String>, Vec<usize>> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        let p = r
            .parent_id
            .clone()
            .filter(|p| p == "main" || by_key.contains_key(p));
        children
            .entry(p.or_else(|| r.parent_id.clone()))
            .or_default()
            .push(i);
    }
    for v in children.values_mut() {
        v.sort_by_key(|&i| sort_key(&rows[i]));
    }
    let mut order: Vec<usize> = Vec::with_capacity(rows.len());
    let mut placed: HashSet<usize> = HashSet::new();
    let mut stack: Vec<usize> = Vec::new();
    // Roots: main's children, then children of parents not on disk, then orphans.
    let rank = |p: &Option<String>| match p.as_deref() {
        Some("main") => 0,
        Some(_) => 1,
        None => 2,
    };
    let mut groups: Vec<(&Option<String>, &Vec<usize>)> = children
        .iter()
        .filter(|(p, _)| {
            p.as_deref()
                .is_none_or(|p| p == "main" || !by_key.contains_key(p))
        })
        .collect();
    groups.sort_by_key(|(p, _)| rank(p));
    let roots: Vec<usize> = groups
        .into_iter()
        .flat_map(|(_, v)| v.iter().copied())
        .collect();
    for root in roots {
        stack.push(root);
        while let Some(i) = stack.pop() {
            if !placed.insert(i) {
                continue;
            }
            order.push(i);
            if let Some(k) = rows[i].key() {
                if let Some(kids) = children.get(&Some(k.to_string())) {
                    stack.extend(kids.iter().rev());
                }
            }
        }
    }
    // Anything left is in a parent cycle: append it, never drop it.
    order.extend((0..rows.len()).filter(|i| !placed.contains(i)));
    let mut taken: Vec<Option<LaneRow>> = rows.drain(..).map(Some).collect();
    rows.extend(order.into_iter().filter_map(|i| taken[i].take()));
}

/// `--order-by completion`: a lane that returned sorts by that time, before
/// every lane that did not. Times compare as instants (a `+00:00` offset and
/// a `Z` are the same).
fn completion_key(r: &LaneRow) -> (bool, Option<Timestamp>) {
    match r
        .completed_utc
        .as_deref()
        .and_then(crate::timefmt::parse_ts)
    {
        Some(t) => (false, Some(t)),
        None => (true, None),
    }
}
