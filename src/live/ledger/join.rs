//! Joining completion carriers to launches. A section names its launch by
//! `<tool-use-id>` (exact: the launching call's id, BG-010) or, failing that, by
//! any `<task-id>` (the 9-character id, absent from 43% of subagent-lane
//! launch echoes, BG-012; the 17-character agent id; an old 7-character one).
//! Carriers are applied in time order and the latest wins (BG-019: an agent
//! notifies again after a resume). A pulse with no `<status>` changes nothing
//! but its count - a Monitor stays open through its events (BG-016) - except
//! the timeout pulse, which closes it (BG-017). An orphan reconciliation
//! closes every task it names but the ones its live sentinel excludes
//! (BG-020/021).

use std::collections::HashMap;

use super::notice::{is_timeout_event, Hit, Section};
use super::{Ended, Ledger, State};

/// Apply `hits` (each with the index of the file it came from) to the ledger.
pub(crate) fn apply(ledger: &mut Ledger, mut hits: Vec<(usize, Hit)>) {
    // Time order; a carrier with no time keeps its place after its file's last.
    let mut last: HashMap<usize, Option<jiff::Timestamp>> = HashMap::new();
    let mut keyed: Vec<(Option<jiff::Timestamp>, usize, usize, Hit)> = Vec::new();
    for (seq, (file, h)) in hits.drain(..).enumerate() {
        let t = h.time.as_deref().and_then(crate::timefmt::parse_ts);
        let prev = last.entry(file).or_insert(None);
        let key = t.or(*prev);
        *prev = key;
        keyed.push((key, file, seq, h));
    }
    keyed.sort_by_key(|k| (k.0, k.1, k.2));
    let by_use: HashMap<String, usize> = ledger
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.tool_use_id.clone(), i))
        .collect();
    let by_id: HashMap<String, usize> = ledger
        .tasks
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.task_id.clone().map(|id| (id, i)))
        .collect();
    for (_, _, _, h) in keyed {
        for s in &h.sections {
            let targets = targets(s, &by_use, &by_id);
            if targets.is_empty() {
                if !s.task_ids.is_empty() || s.tool_use_id.is_some() {
                    let ids = if s.task_ids.is_empty() {
                        s.tool_use_id.iter().cloned().collect()
                    } else {
                        s.task_ids.clone()
                    };
                    if !ledger
                        .unjoined
                        .iter()
                        .any(|(u, st)| *u == ids && *st == s.status)
                    {
                        ledger.unjoined.push((ids, s.status.clone()));
                    }
                }
                continue;
            }
            for i in targets {
                close(&mut ledger.tasks[i], s, &h);
            }
        }
    }
}

/// The tasks one section names: by tool_use id, else by every task id but
/// the ones an orphan summary's live sentinel excludes.
fn targets(
    s: &Section,
    by_use: &HashMap<String, usize>,
    by_id: &HashMap<String, usize>,
) -> Vec<usize> {
    if let Some(&i) = s.tool_use_id.as_ref().and_then(|u| by_use.get(u)) {
        return vec![i];
    }
    let mut out: Vec<usize> = s
        .task_ids
        .iter()
        .filter(|id| !s.live_ids.contains(id))
        .filter_map(|id| by_id.get(id).copied())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// One carrier section applied to one task.
fn close(t: &mut super::Task, s: &Section, h: &Hit) {
    t.notifications += 1;
    let state = match (&s.status, &s.event) {
        (Some(st), _) => Some(State::from_status(st)),
        (None, Some(ev)) if is_timeout_event(ev) => Some(State::TimedOut),
        (None, Some(_)) => {
            t.events += 1;
            None
        }
        (None, None) => None,
    };
    let Some(state) = state else { return };
    t.state = state;
    t.raw_status = match (&s.status, state) {
        (Some(st), _) => Some(st.clone()),
        (None, State::TimedOut) => s.event.clone(),
        _ => None,
    };
    t.ended_by = (state != State::Open).then(|| Ended {
        carrier: h.carrier,
        file: h.file.clone(),
        line: h.line,
        time: h.time.clone(),
        orphan_reconciliation: s.orphan,
        summary: s.summary.clone(),
    });
    if s.orphan && state != State::Open {
        let note = "Claude Code marked it stopped at a later session start for want of a \
                    completion record: a UI stop, a Monitor timeout or agent teardown leaves \
                    none, and the process may have outlived it";
        if !t.notes.iter().any(|n| n == note) {
            t.notes.push(note.to_string());
        }
    }
}
