//! The session-wide spawn index and the parent joins (spec §7). Every key is a
//! key Claude Code really writes: `tool_use_id`, `agentId` (in `toolUseResult`,
//! in the result text, in `agent_progress`), meta `toolUseId`/`parentAgentId`,
//! the workflow `runId`, the fork's `parentLastUuid`. Paths never decide nesting
//! (SUB-003); the SUB-023 timestamp lag only breaks ties between candidates.

use std::collections::{HashMap, HashSet};

use super::carriers;
use super::facts::{FileFacts, Spawn, SpawnResult};
use super::input::LaneIn;
use joins::{agreeing, compact_join, fork_join, pick_by_lag};

mod joins;

/// Spawns, their results and the child-id carriers of one session. The first
/// entry wins on every key, main first then lanes in discovery order, so a fork
/// clone's copy never displaces the original issuer (SUB-003).
#[derive(Default)]
pub(crate) struct Index<'a> {
    pub(crate) spawns: HashMap<&'a str, &'a Spawn>,
    pub(crate) order: Vec<&'a Spawn>,
    pub(crate) results: HashMap<&'a str, (&'a SpawnResult, &'a str)>,
    by_ack: HashMap<&'a str, Vec<(&'a str, &'a str)>>,
    by_text: HashMap<String, &'a str>,
    pub(crate) progress: HashMap<&'a str, &'a str>,
    by_teammate_ack: HashMap<&'a str, &'a str>,
    pub(crate) by_run: HashMap<String, &'a str>,
}

impl<'a> Index<'a> {
    pub(crate) fn build(files: &'a [FileFacts]) -> Index<'a> {
        let mut ix = Index::default();
        for f in files {
            for s in &f.spawns {
                if !ix.spawns.contains_key(s.id.as_str()) {
                    ix.spawns.insert(&s.id, s);
                    ix.order.push(s);
                }
            }
            for (a, p) in &f.progress {
                ix.progress.entry(a.as_str()).or_insert(p.as_str());
            }
        }
        for f in files {
            for (id, r) in &f.results {
                ix.results
                    .entry(id.as_str())
                    .or_insert((r, f.lane.as_str()));
            }
        }
        // Keys by spawn order (main first, then file order), so that where two
        // results carry one key (an agent resumed by a second Task call: both
        // texts end `agentId: <id>`) the first spawn takes it on every run,
        // as crate::lanes reads it, not whichever the hash map yields first.
        for &s in &ix.order {
            let id = s.id.as_str();
            let Some(&(r, holder)) = ix.results.get(id) else {
                continue;
            };
            if let Some(a) = r.ack.agent_id.as_deref() {
                ix.by_ack.entry(a).or_default().push((id, holder));
            }
            if r.ack.status.as_deref() == Some("teammate_spawned") {
                for k in [&r.ack.agent_id_snake, &r.ack.teammate_id, &r.ack.name]
                    .into_iter()
                    .flatten()
                {
                    ix.by_teammate_ack.entry(k.as_str()).or_insert(id);
                }
            }
            for k in [&r.ack.run_id, &r.ack.transcript_dir].into_iter().flatten() {
                let base = k.trim_end_matches('/').rsplit('/').next().unwrap_or(k);
                ix.by_run.entry(base.to_string()).or_insert(id);
            }
            for a in carriers::agent_id_lines(&r.text) {
                ix.by_text.entry(a.to_string()).or_insert(id);
            }
        }
        // Deterministic choice among several acks naming one agent: by spawn line order.
        for v in ix.by_ack.values_mut() {
            v.sort_by_key(|(id, _)| ix.spawns.get(id).map(|s| (s.ts.clone(), s.line)));
        }
        ix
    }

    /// The agent id the parent's evidence names for a spawn (ack, text, progress).
    pub(crate) fn child_of(&self, spawn: &str) -> Option<String> {
        if let Some((r, _)) = self.results.get(spawn) {
            if let Some(a) = r
                .ack
                .agent_id
                .as_deref()
                .or(r.ack.agent_id_snake.as_deref())
            {
                return Some(a.to_string());
            }
            if let Some(a) = carriers::agent_id_lines(&r.text).next() {
                return Some(a.to_string());
            }
        }
        self.progress
            .iter()
            .filter(|(_, &p)| p == spawn)
            .map(|(&a, _)| a.to_string())
            .min()
    }
}

/// How one lane joined its parent.
#[derive(Debug, Clone, Default)]
pub(crate) struct Join {
    pub(crate) parent: Option<String>,
    pub(crate) spawn: Option<String>,
    pub(crate) rule: Option<&'static str>,
    pub(crate) agree: Vec<&'static str>,
    pub(crate) unresolved: Option<&'static str>,
    /// Compact lanes: the anchoring `compact_boundary` line and time in main.
    pub(crate) anchor: Option<(usize, Option<String>)>,
}

/// Resolve every lane's parent. Pass 1 applies the id joins (J10, J1–J9); pass 2
/// the seed-prompt join (J11) over the spawns nobody claimed, so a prompt match
/// never steals a spawn an id names.
pub(crate) fn resolve(
    ix: &Index<'_>,
    files: &[FileFacts],
    lanes: &[LaneIn],
    main_present: bool,
) -> Vec<Join> {
    let mut jr = Joiner {
        ix,
        files,
        claimed: HashSet::new(),
    };
    let mut joins: Vec<Join> = lanes.iter().map(|l| jr.id_joins(l)).collect();
    for (j, l) in joins.iter_mut().zip(lanes) {
        if j.spawn.is_none() && j.parent.is_none() && !l.is_compact {
            jr.seed_join(l, j);
        }
        if let Some(sp) = j.spawn.clone() {
            j.agree = agreeing(ix, l, &sp);
        }
        if j.parent.is_none() && j.spawn.is_none() {
            j.rule = Some("unresolved");
            j.unresolved = Some(if main_present {
                "no-spawn-record"
            } else {
                "parent-transcript-missing"
            });
        }
    }
    joins
}

/// The joins' shared state: the index, the files, and the spawns an id join
/// has claimed (the seed join takes only the others).
struct Joiner<'i, 'a> {
    ix: &'i Index<'a>,
    files: &'i [FileFacts],
    claimed: HashSet<String>,
}

impl Joiner<'_, '_> {
    /// Join lane `l` to spawn `sp` by `rule`, unless the spawn is unknown or
    /// the lane's own call.
    fn take(&mut self, l: &LaneIn, j: &mut Join, sp: &str, rule: &'static str) -> bool {
        match self.ix.spawns.get(sp) {
            Some(s) if s.lane != l.id => {
                j.spawn = Some(s.id.clone());
                if j.parent.is_none() {
                    j.parent = Some(s.lane.clone());
                }
                // A J1 parent stays the rule of record; the spawn id is still filled in.
                j.rule.get_or_insert(rule);
                self.claimed.insert(s.id.clone());
                true
            }
            _ => false,
        }
    }

    /// Pass 1 for one lane: the id joins in order, each only while the ones
    /// before it left the spawn (or, J9, the parent) open.
    fn id_joins(&mut self, l: &LaneIn) -> Join {
        if l.is_compact {
            let main = self.files.first().filter(|f| f.lane == "main");
            return main.map(|m| compact_join(m, l)).unwrap_or_default();
        }
        let mut j = Join::default();
        self.meta_join(l, &mut j);
        if j.spawn.is_none() && !l.inline {
            self.carried_join(l, &mut j);
        }
        if j.spawn.is_none() && l.meta.is_teammate() {
            self.name_join(l, &mut j);
        }
        if j.spawn.is_none() {
            if let Some(sp) = l.run.as_deref().and_then(|run| self.ix.by_run.get(run)) {
                // J8: the workflow run the lane's directory names.
                self.take(l, &mut j, sp, "J8");
            }
        }
        if j.parent.is_none() {
            fork_join(self.files, l, &mut j);
        }
        j
    }

    /// J1: the meta's `parentAgentId`; J2: the meta's `toolUseId` (SUB-006),
    /// kept as the spawn id beside a J1 parent even when no transcript holds it.
    fn meta_join(&mut self, l: &LaneIn, j: &mut Join) {
        if let Some(p) = l.meta.parent_agent_id.as_deref().filter(|p| *p != l.id) {
            j.parent = Some(p.to_string());
            j.rule = Some("J1");
        }
        if let Some(t) = l.meta.tool_use_id.as_deref() {
            if !self.take(l, j, t, "J2") && j.parent.is_some() {
                j.spawn = Some(t.to_string());
            }
        }
    }

    /// J3–J6, the child ids the parent's records carry, first that joins
    /// wins: the spawn result's ack (J3, skipping the copy a fork clone holds
    /// itself), an `agentId:` line of its text (J4), an agent_progress record
    /// (J5), a teammate ack (J6).
    fn carried_join(&mut self, l: &LaneIn, j: &mut Join) {
        let ix = self.ix;
        let id = l.id.as_str();
        let ack = ix
            .by_ack
            .get(id)
            .and_then(|v| {
                v.iter().find(|(sp, holder)| {
                    *holder != id && ix.spawns.get(sp).is_some_and(|s| s.lane != id)
                })
            })
            .map(|(sp, _)| *sp);
        let keys = [
            (ack, "J3"),
            (ix.by_text.get(id).copied(), "J4"),
            (ix.progress.get(id).copied(), "J5"),
            (ix.by_teammate_ack.get(id).copied(), "J6"),
        ];
        for (sp, rule) in keys {
            if sp.is_some_and(|sp| self.take(l, j, sp, rule)) {
                return;
            }
        }
    }

    /// J7: a teammate's name joins the latest spawn of that name at or
    /// before the lane's start (SUB-014, SUB-023).
    fn name_join(&mut self, l: &LaneIn, j: &mut Join) {
        let Some(name) = l.meta.name.as_deref() else {
            return;
        };
        self.take_by_lag(l, j, "J7", |_, s| s.input.name.as_deref() == Some(name));
    }

    /// J11 (pass 2): the spawn no id join claimed whose prompt is the lane's
    /// seed, by [`pick_by_lag`].
    fn seed_join(&mut self, l: &LaneIn, j: &mut Join) {
        let Some(seed) = l
            .stats
            .seed
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        else {
            return;
        };
        self.take_by_lag(l, j, "J11", |me, s| {
            !me.claimed.contains(&s.id)
                && s.lane != l.id
                && s.input.prompt.as_deref().map(str::trim) == Some(seed)
        });
    }

    /// Join lane `l` to the spawn [`pick_by_lag`] picks among those `fits`
    /// admits, in spawn order, under `rule`.
    fn take_by_lag(
        &mut self,
        l: &LaneIn,
        j: &mut Join,
        rule: &'static str,
        fits: impl Fn(&Self, &Spawn) -> bool,
    ) {
        let ix = self.ix;
        let cands: Vec<&Spawn> = ix.order.iter().copied().filter(|s| fits(self, s)).collect();
        if let Some(s) = pick_by_lag(&cands, l.stats.started.as_deref()) {
            self.take(l, j, &s.id, rule);
        }
    }
}

#[cfg(test)]
mod tests;
