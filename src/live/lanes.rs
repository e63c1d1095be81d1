//! A session's child lanes, judged by their own tails. A child transcript grows
//! only from the child's own message flow (completions land in the main file,
//! TAIL-007), so on a lane - unlike the main lane - recency is a real signal:
//!
//! - `in-flight`: an unreturned call within its plausible life ([`super::calls`]);
//! - `generating`: the tail is at most [`CHILD_RECENT_SECS`] old and the last
//!   assistant record is not an `end_turn` (TAIL-004/005: recency is the
//!   load-bearing conjunct, `stop_reason` alone would call 73% of dead lanes live);
//! - `stalled`: an unreturned call past its plausible life, or with no bound and
//!   a tail older than the window - not returned is not proof of running;
//! - `settled`: anything else.
//!
//! A lane not written for [`LANE_FRESH_SECS`] (by file time) is settled without a
//! read: its records are all older than that, so it can be neither generating
//! nor inside any bounded call. Workflow journals (`journal.jsonl`, written at
//! each spawn and return, TAIL-008) give agents in flight per run: `started`
//! minus `result` minus `failed` (SUB-008), counted only while the journal is
//! fresh - 613 of 621 unbalanced corpus entries sat in runs dead for days.

use std::path::PathBuf;
use std::time::SystemTime;

use jiff::Timestamp;
use serde::Serialize;

use super::calls::Wait;
use super::tail::{self, Tail};
use crate::discovery::Transcript;

/// TAIL-004: tail-record age under which a lane with no `end_turn` is generating.
pub(crate) const CHILD_RECENT_SECS: i64 = 300;
/// A lane (or journal) not written for this long is not read.
pub(crate) const LANE_FRESH_SECS: i64 = 3600;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum LaneState {
    InFlight,
    Generating,
    Stalled,
    Settled,
}

impl LaneState {
    pub(crate) fn name(self) -> &'static str {
        match self {
            LaneState::InFlight => "in-flight",
            LaneState::Generating => "generating",
            LaneState::Stalled => "stalled",
            LaneState::Settled => "settled",
        }
    }

    pub(crate) fn is_live(self) -> bool {
        matches!(self, LaneState::InFlight | LaneState::Generating)
    }
}

/// One lane's judgement.
#[derive(Debug, Clone)]
pub(crate) struct Lane {
    pub(crate) transcript: Transcript,
    pub(crate) state: LaneState,
    pub(crate) since: Option<Timestamp>,
    pub(crate) because: Vec<String>,
    /// `None` when the lane was settled by its file time without a read.
    pub(crate) tail: Option<Tail>,
}

/// One workflow run's journal count.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Run {
    pub(crate) run: String,
    pub(crate) journal: PathBuf,
    pub(crate) started: usize,
    pub(crate) returned: usize,
    pub(crate) failed: usize,
    /// `started - returned - failed`, counted as live only when `fresh`.
    pub(crate) in_flight: usize,
    pub(crate) fresh: bool,
}

/// Every lane of a session, judged.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lanes {
    /// Lanes read (written within the hour, or all with `read_all`).
    pub(crate) read: Vec<Lane>,
    /// Lanes settled by file time, unread.
    pub(crate) unread: usize,
    pub(crate) runs: Vec<Run>,
    /// Files that could not be read: (path, error).
    pub(crate) problems: Vec<(PathBuf, String)>,
}

impl Lanes {
    pub(crate) fn live(&self) -> impl Iterator<Item = &Lane> {
        self.read.iter().filter(|l| l.state.is_live())
    }

    /// Workflow agents in flight by fresh journals.
    pub(crate) fn journal_in_flight(&self) -> usize {
        self.runs
            .iter()
            .filter(|r| r.fresh)
            .map(|r| r.in_flight)
            .sum()
    }

    pub(crate) fn total(&self) -> usize {
        self.read.len() + self.unread
    }
}

/// Seconds since a file was last written, at `now`.
pub(crate) fn idle_secs(mtime: Option<SystemTime>, now: Timestamp) -> Option<i64> {
    let t = Timestamp::try_from(mtime?).ok()?;
    Some((now.as_second() - t.as_second()).max(0))
}

/// Judge `lanes` and count `journals` at `now`. `read_all` reads every lane's
/// tail whatever its file time.
pub(crate) fn assess(
    lanes: &[Transcript],
    journals: &[Transcript],
    now: Timestamp,
    read_all: bool,
) -> Lanes {
    let mut out = Lanes::default();
    let fresh = |t: &Transcript| idle_secs(t.mtime, now).is_none_or(|s| s <= LANE_FRESH_SECS);
    let to_read: Vec<&Transcript> = lanes.iter().filter(|t| read_all || fresh(t)).collect();
    out.unread = lanes.len() - to_read.len();
    let results = crate::scan::par_map(&to_read, |t| (tail::read(&t.path, false), *t));
    for (res, t) in results {
        match res {
            Ok(tail) => out.read.push(judge(t.clone(), tail, now)),
            Err(e) => out.problems.push((t.path.clone(), e.to_string())),
        }
    }
    for j in journals {
        match count_journal(&j.path) {
            Ok((started, returned, failed)) => {
                let run = match &j.shape {
                    crate::discovery::Shape::Workflow { run } => run.clone(),
                    _ => String::new(),
                };
                let live_lane = out.read.iter().any(|l| {
                    l.state.is_live()
                        && matches!(&l.transcript.shape, crate::discovery::Shape::Workflow { run: r } if *r == run)
                });
                out.runs.push(Run {
                    in_flight: started.saturating_sub(returned + failed),
                    fresh: fresh(j) || live_lane,
                    run,
                    journal: j.path.clone(),
                    started,
                    returned,
                    failed,
                });
            }
            Err(e) => out.problems.push((j.path.clone(), e.to_string())),
        }
    }
    out
}

/// A lane's state from its tail at `now`.
pub(crate) fn judge(transcript: Transcript, tail: Tail, now: Timestamp) -> Lane {
    let age = tail
        .time()
        .map(|t| (now.as_second() - t.as_second()).max(0));
    let ago = |a: Option<i64>| a.map_or("of unknown age".into(), crate::timefmt::duration);
    let old = super::evidence::old;
    let mut because = Vec::new();
    let (state, since) = if let Some(c) = tail.newest_pending() {
        let recent = age.is_some_and(|a| a <= CHILD_RECENT_SECS);
        let state = match c.wait {
            Wait::Bounded if c.past_bound(now) => LaneState::Stalled,
            Wait::Bounded => LaneState::InFlight,
            // A spawn waits on its own lane; a question or an open tool, on
            // something csift cannot see: alive only while the lane is recent.
            Wait::Spawn | Wait::Human | Wait::Open if recent => LaneState::InFlight,
            _ => LaneState::Stalled,
        };
        let mut e = c.describe(now);
        if let Some(b) = c.bound_secs.filter(|_| state == LaneState::Stalled) {
            e.push_str(&format!(
                ", past its plausible life ({}): not returned is not proof of running",
                crate::timefmt::duration(b)
            ));
        } else if state == LaneState::Stalled {
            e.push_str(&format!(
                "; tail {}, no bound known: not returned is not proof of running",
                old(age)
            ));
        }
        because.push(e);
        (state, c.time)
    } else if age.is_some_and(|a| a <= CHILD_RECENT_SECS)
        && tail.stop_reason.as_deref() != Some("end_turn")
    {
        because.push(format!("generating (tail {}, no end_turn)", ago(age)));
        (LaneState::Generating, tail.time())
    } else {
        because.push(match tail.stop_reason.as_deref() {
            Some("end_turn") => format!("tail {}, last stop_reason end_turn", old(age)),
            Some(r) => format!("tail {}, last stop_reason {r}", old(age)),
            None if tail.records == 0 => "no records at the tail".to_string(),
            None => format!("tail {}", old(age)),
        });
        (LaneState::Settled, tail.time())
    };
    Lane {
        transcript,
        state,
        since,
        because,
        tail: Some(tail),
    }
}

/// `started`, `result` and `failed` events of a workflow journal (SUB-008: the
/// event set is open; other types are not counted).
fn count_journal(path: &std::path::Path) -> std::io::Result<(usize, usize, usize)> {
    #[derive(serde::Deserialize)]
    struct Ev<'a> {
        #[serde(rename = "type", borrow, default)]
        kind: Option<std::borrow::Cow<'a, str>>,
    }
    let src = crate::scan::Source::open(path).map_err(std::io::Error::other)?;
    let (mut s, mut r, mut f) = (0, 0, 0);
    for line in crate::scan::Lines::new(&src) {
        match serde_json::from_slice::<Ev<'_>>(line.bytes)
            .ok()
            .and_then(|e| e.kind)
            .as_deref()
        {
            Some("started") => s += 1,
            Some("result") => r += 1,
            Some("failed") => f += 1,
            _ => {}
        }
    }
    Ok((s, r, f))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lane_file(dir: &std::path::Path, lines: &[String]) -> Transcript {
        let p = dir.join("agent-a1.jsonl");
        std::fs::write(&p, lines.join("\n") + "\n").unwrap();
        Transcript {
            path: p,
            project_dir: dir.to_path_buf(),
            session_id: "s".into(),
            agent_id: Some("a1".into()),
            shape: crate::discovery::Shape::Subagent,
            size: 0,
            mtime: Some(SystemTime::now()),
        }
    }

    fn at(now: Timestamp, ago: i64) -> String {
        crate::timefmt::utc_exact(Timestamp::from_second(now.as_second() - ago).unwrap())
    }

    /// TAIL-002, TAIL-004, TAIL-005, TAIL-007: recency AND no end_turn is
    /// generating (a lane's stop_reason is null mid-message); a bounded call in
    /// its life is in flight, past it stalled; a stale tail is settled.
    #[test]
    fn lane_states_tail_004_005() {
        let d = tempfile::tempdir().unwrap();
        let now = Timestamp::now();
        let bash = |ago: i64| {
            format!(
                r#"{{"type":"assistant","timestamp":"{}","message":{{"id":"m","stop_reason":"tool_use","content":[{{"type":"tool_use","id":"t1","name":"Bash","input":{{"command":"x","timeout":60000}}}}]}}}}"#,
                at(now, ago)
            )
        };
        let think = |ago: i64, stop: &str| {
            format!(
                r#"{{"type":"assistant","timestamp":"{}","message":{{"id":"m","stop_reason":{stop},"content":[{{"type":"text","text":"x"}}]}}}}"#,
                at(now, ago)
            )
        };
        let judge_of = |lines: Vec<String>| {
            let t = lane_file(d.path(), &lines);
            let tail = tail::read(&t.path, false).unwrap();
            judge(t, tail, now).state
        };
        assert_eq!(judge_of(vec![bash(10)]), LaneState::InFlight);
        assert_eq!(judge_of(vec![bash(600)]), LaneState::Stalled);
        assert_eq!(judge_of(vec![think(20, "null")]), LaneState::Generating);
        assert_eq!(
            judge_of(vec![think(20, "\"end_turn\"")]),
            LaneState::Settled
        );
        assert_eq!(judge_of(vec![think(900, "null")]), LaneState::Settled);
    }

    /// A tail with no timestamp says so in words that read: never "of unknown
    /// age old" (the evidence rows are printed as they are).
    #[test]
    fn an_untimed_tail_reads_as_of_unknown_age() {
        let d = tempfile::tempdir().unwrap();
        let now = Timestamp::now();
        let untimed = [
            r#"{"type":"assistant","message":{"id":"m","stop_reason":"end_turn","content":[{"type":"text","text":"x"}]}}"#,
            r#"{"type":"assistant","message":{"id":"m","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"x"}}]}}"#,
        ];
        for (line, want) in untimed.iter().zip([
            "tail of unknown age, last stop_reason end_turn",
            "unreturned Bash call of unknown age",
        ]) {
            let t = lane_file(d.path(), &[line.to_string()]);
            let tail = tail::read(&t.path, false).unwrap();
            let because = judge(t, tail, now).because.join(" | ");
            assert!(because.contains(want), "{because}");
            assert!(!because.contains("age old"), "{because}");
        }
        assert_eq!(super::super::evidence::old(Some(40)), "40s old");
    }

    /// TAIL-008, SUB-008: started - result - failed per fresh journal; an old
    /// journal's imbalance is not counted.
    #[test]
    fn journals_count_in_flight_only_while_fresh_tail_008() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("journal.jsonl");
        std::fs::write(
            &p,
            r#"{"type":"started","key":"k1","agentId":"a1"}
{"type":"started","key":"k2","agentId":"a2"}
{"type":"started","key":"k3","agentId":"a3"}
{"type":"result","key":"k1","agentId":"a1","result":"ok"}
{"type":"failed","key":"k2","agentId":"a2"}
"#,
        )
        .unwrap();
        let mut j = Transcript {
            path: p,
            project_dir: d.path().to_path_buf(),
            session_id: "s".into(),
            agent_id: Some("journal".into()),
            shape: crate::discovery::Shape::Workflow { run: "wf_1".into() },
            size: 0,
            mtime: Some(SystemTime::now()),
        };
        let now = Timestamp::now();
        let l = assess(&[], std::slice::from_ref(&j), now, false);
        assert_eq!(l.journal_in_flight(), 1);
        assert_eq!(
            (l.runs[0].started, l.runs[0].returned, l.runs[0].failed),
            (3, 1, 1)
        );
        j.mtime = Some(SystemTime::now() - std::time::Duration::from_secs(86_400));
        let l = assess(&[], &[j], now, false);
        assert_eq!(l.journal_in_flight(), 0, "a day-old journal is not live");
        assert_eq!(l.runs[0].in_flight, 1);
    }
}
