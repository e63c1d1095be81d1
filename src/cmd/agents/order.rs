//! The rows of one session's tree in print order, with their depths: each
//! parent followed by its children sorted by spawn time (SUB-023: the parent's
//! call, never the child's first record, which lags it by a heavy-tailed
//! delay), or with `--order-by completion` by the time each returned, those
//! that did not after; then file line, id. Parent links may form a cycle on a
//! hostile disk: every walk is guarded, and no row is ever dropped.

use std::collections::{BTreeMap, HashMap, HashSet};

use jiff::Timestamp;

use super::row::{LaneRow, RunRow};
use crate::cli::agents::OrderBy;

/// Row indexes under each `parent_id` (`None`: orphans), each list sorted.
type Children = BTreeMap<Option<String>, Vec<usize>>;

/// `--order-by completion`'s key: whether the lane never returned, and when
/// it did.
type Done = (bool, Option<Timestamp>);

/// Set every row's and run's depth, then put the rows in tree order.
pub(crate) fn order_and_depth(rows: &mut Vec<LaneRow>, runs: &mut [RunRow], order: OrderBy) {
    let by_key: HashMap<String, usize> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.key().map(|k| (k.to_string(), i)))
        .collect();
    let depths: Vec<usize> = (0..rows.len()).map(|i| depth(rows, &by_key, i)).collect();
    for (r, d) in rows.iter_mut().zip(depths) {
        r.depth = d;
    }
    for run in runs.iter_mut() {
        run.depth = run
            .parent_id
            .as_deref()
            .map_or(0, |p| by_key.get(p).map_or(1, |&i| rows[i].depth + 1));
    }
    let children = children(rows, order);
    let placed = tree_order(rows, &children, &by_key);
    let mut taken: Vec<Option<LaneRow>> = rows.drain(..).map(Some).collect();
    rows.extend(placed.into_iter().filter_map(|i| taken[i].take()));
}

/// How many parent links lead up from row `start` (a parent not among the
/// rows, `main` included, counts one and ends the walk; so does a cycle).
fn depth(rows: &[LaneRow], by_key: &HashMap<String, usize>, start: usize) -> usize {
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
}

/// The rows grouped by parent, each group in `order`.
fn children(rows: &[LaneRow], order: OrderBy) -> Children {
    let mut children = Children::new();
    for (i, r) in rows.iter().enumerate() {
        children.entry(r.parent_id.clone()).or_default().push(i);
    }
    for v in children.values_mut() {
        v.sort_by_key(|&i| sort_key(&rows[i], order));
    }
    children
}

/// Siblings sort by completion (with `completion`), then spawn time (else
/// first record), then the printed id.
fn sort_key(r: &LaneRow, order: OrderBy) -> (Option<Done>, Option<String>, String) {
    let done = match order {
        OrderBy::Trigger => None,
        OrderBy::Completion => Some(completion_key(r)),
    };
    (
        done,
        r.spawn_utc.clone().or_else(|| r.started_utc.clone()),
        r.label(),
    )
}

/// Row indexes depth first from the roots: main's children, then children
/// of parents not on disk, then orphans. Rows left over sit in a parent
/// cycle: they follow, never dropped.
fn tree_order(
    rows: &[LaneRow],
    children: &Children,
    by_key: &HashMap<String, usize>,
) -> Vec<usize> {
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
    let mut order: Vec<usize> = Vec::with_capacity(rows.len());
    let mut placed: HashSet<usize> = HashSet::new();
    let mut stack: Vec<usize> = Vec::new();
    for root in groups.into_iter().flat_map(|(_, v)| v.iter().copied()) {
        stack.push(root);
        while let Some(i) = stack.pop() {
            if !placed.insert(i) {
                continue;
            }
            order.push(i);
            if let Some(kids) = rows[i]
                .key()
                .and_then(|k| children.get(&Some(k.to_string())))
            {
                stack.extend(kids.iter().rev());
            }
        }
    }
    order.extend((0..rows.len()).filter(|i| !placed.contains(i)));
    order
}

/// `--order-by completion`: a lane that returned sorts by that time, before
/// every lane that did not. Times compare as instants (a `+00:00` offset and
/// a `Z` are the same).
fn completion_key(r: &LaneRow) -> Done {
    match r
        .completed_utc
        .as_deref()
        .and_then(crate::timefmt::parse_ts)
    {
        Some(t) => (false, Some(t)),
        None => (true, None),
    }
}
