//! The joins that read beside the spawn index: a compaction lane's anchor in
//! main (J10), a fork's parent by its `parentLastUuid`, the main line that
//! carries a lane's summary, the SUB-023 timestamp lag that breaks ties, and the
//! rules that agree with a join.

use super::super::facts::{FileFacts, Spawn};
use super::super::input::LaneIn;
use super::{Index, Join};

/// J10: a compaction lane's `parentUuid`s resolve into main; the anchor is
/// the first compact_boundary after the highest resolved line. J10s: no
/// parent link, but main's compact summary carries the lane's own summary
/// text; the anchor is the boundary before it.
pub(super) fn compact_join(main: &FileFacts, l: &LaneIn) -> Join {
    let mut j = Join::default();
    let hit = l
        .parent_uuids
        .iter()
        .filter_map(|p| main.uuids.get(p))
        .max()
        .copied();
    if let Some(last) = hit {
        j.parent = Some("main".into());
        j.rule = Some("J10");
        j.anchor = main
            .compact_boundaries
            .iter()
            .find(|(n, _)| *n > last)
            .cloned();
    } else if let Some(n) = summary_line(main, l.stats.child_final.as_deref()) {
        j.parent = Some("main".into());
        j.rule = Some("J10s");
        j.anchor = main
            .compact_boundaries
            .iter()
            .rev()
            .find(|(b, _)| *b < n)
            .cloned();
    }
    j
}

/// J9: a fork's parent is the lane (main first, never itself) holding the
/// fork point's uuid.
pub(super) fn fork_join(files: &[FileFacts], l: &LaneIn, j: &mut Join) {
    let Some(plu) = l.fork.as_ref().and_then(|f| f.parent_last_uuid.as_deref()) else {
        return;
    };
    if let Some(holder) = files
        .iter()
        .find(|f| f.lane != l.id && f.uuids.contains_key(plu))
    {
        j.parent = Some(holder.lane.clone());
        j.rule = Some("J9");
    }
}

/// The line of main's `isCompactSummary` record that contains the compaction
/// lane's final summary (the `<summary>` body, else the `<analysis>` body; first
/// 200 characters, whitespace-folded).
fn summary_line(main: &FileFacts, lane_final: Option<&str>) -> Option<usize> {
    let text = lane_final?;
    let inner = |tag: &str| {
        let open = format!("<{tag}>");
        let at = text.find(&open)? + open.len();
        let end = text[at..]
            .find(&format!("</{tag}>"))
            .map_or(text.len(), |e| at + e);
        Some(&text[at..end])
    };
    let body = inner("summary").or_else(|| inner("analysis"))?;
    let fold = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let probe: String = fold(body).chars().take(200).collect();
    if probe.len() < 20 {
        return None;
    }
    main.compact_summaries
        .iter()
        .find(|(_, t)| fold(t).contains(&probe))
        .map(|(n, _)| *n)
}

/// SUB-023: the latest spawn at or before the lane's first record; with none
/// (clock skew) the earliest. Ties fall to file line, then spawn id.
pub(super) fn pick_by_lag<'s>(cands: &[&'s Spawn], started: Option<&str>) -> Option<&'s Spawn> {
    let mut v: Vec<&Spawn> = cands.to_vec();
    v.sort_by(|a, b| (a.ts.as_deref(), a.line, &a.id).cmp(&(b.ts.as_deref(), b.line, &b.id)));
    let before = v
        .iter()
        .rev()
        .find(|s| matches!((s.ts.as_deref(), started), (Some(t), Some(st)) if t <= st));
    before.or(v.first()).copied()
}

/// Every independent id join that names the same spawn (cross-check).
pub(super) fn agreeing(ix: &Index<'_>, l: &LaneIn, sp: &str) -> Vec<&'static str> {
    let id = l.id.as_str();
    let mut v = Vec::new();
    if l.meta.tool_use_id.as_deref() == Some(sp) {
        v.push("J2");
    }
    if ix
        .by_ack
        .get(id)
        .is_some_and(|c| c.iter().any(|(s, _)| *s == sp))
    {
        v.push("J3");
    }
    if ix.by_text.get(id).is_some_and(|s| *s == sp) {
        v.push("J4");
    }
    if ix.progress.get(id).is_some_and(|s| *s == sp) {
        v.push("J5");
    }
    let seed = l.stats.seed.as_deref().map(str::trim);
    if seed.is_some()
        && ix
            .spawns
            .get(sp)
            .and_then(|s| s.input.prompt.as_deref())
            .map(str::trim)
            == seed
    {
        v.push("J11");
    }
    v
}
