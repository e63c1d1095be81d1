//! Unit tests of `verdict`.

use super::*;
use crate::live::calls;
use crate::live::registry::Row;

fn now() -> Timestamp {
    Timestamp::from_second(2_000_000_000).unwrap()
}

fn ago(s: i64) -> Option<Timestamp> {
    Timestamp::from_second(2_000_000_000 - s).ok()
}

fn row(status: &str) -> Row {
    Row {
        file: "/h/sessions/7.json".into(),
        pid: Some(7),
        pid_raw: None,
        session_id: "s".into(),
        status: Some(status.into()),
        waiting_for: (status == "waiting").then(|| "permission prompt".into()),
        status_updated_at_ms: Some(2_000_000_000_000 - 60_000),
        updated_at_ms: None,
        started_at_ms: None,
        proc_start: None,
        pid_domain: None,
        kind: None,
        version: None,
        cwd: None,
    }
}

fn tail_with(pending: Option<calls::Call>, stop: Option<&str>, turn: Turn) -> Tail {
    Tail {
        records: 3,
        stop_reason: stop.map(str::to_string),
        text_final: stop == Some("end_turn"),
        turn: Some(turn),
        pending: pending.into_iter().collect(),
        last: Some(crate::live::tail::At {
            time: ago(30),
            record: "assistant".into(),
            offset: 0,
            line: None,
        }),
        ..Tail::default()
    }
}

fn verdict(
    leg: Leg<'_>,
    pid: Option<&PidCheck>,
    main: &Tail,
    open_background: usize,
) -> Assessment {
    assess(&Surfaces {
        now: now(),
        registry: leg,
        pid,
        main: Some(main),
        lanes: &Lanes::default(),
        open_background,
        elicitations: &[],
    })
}

/// MISC-022: a dead process outranks a waiting row and a call in flight;
/// a waiting row outranks a busy tail; busy outranks children; an ended
/// turn with open tasks is idle-background-open.
#[test]
fn the_precedence_is_misc_022s() {
    let bash = calls::call("t", "Bash", r#"{"command":"x"}"#, ago(5), 0);
    let in_call = tail_with(Some(bash), Some("tool_use"), Turn::Replied);
    let ended = tail_with(None, Some("end_turn"), Turn::Replied);
    let dead = PidCheck::Dead { pid: 7 };
    let alive = PidCheck::Same { pid: 7 };
    let waiting = row("waiting");
    let busy = row("busy");
    let idle = row("idle");
    let v = |leg, pid, t, n| verdict(leg, pid, t, n).verdict;
    assert_eq!(
        v(Leg::Row(&waiting), Some(&dead), &in_call, 0),
        Verdict::StaleDead
    );
    assert_eq!(
        v(Leg::Row(&waiting), Some(&alive), &in_call, 0),
        Verdict::WaitingHitl
    );
    assert_eq!(
        v(Leg::Row(&busy), Some(&alive), &ended, 0),
        Verdict::Running
    );
    assert_eq!(
        v(Leg::Row(&idle), Some(&alive), &ended, 2),
        Verdict::IdleBackgroundOpen
    );
    assert_eq!(
        v(Leg::Row(&idle), Some(&alive), &ended, 0),
        Verdict::IdleEot
    );
    assert_eq!(v(Leg::NoRegistry, None, &in_call, 0), Verdict::Running);
    let bad = PidCheck::BadPid {
        raw: "\"x\"".into(),
    };
    assert_eq!(
        v(Leg::Row(&busy), Some(&bad), &in_call, 0),
        Verdict::Unknown
    );
    assert_eq!(
        v(
            Leg::Unreadable(std::path::Path::new("/x.json")),
            None,
            &ended,
            0
        ),
        Verdict::Unknown
    );
}

/// TAIL-003: a prompt with no reply yet is a reply being written while
/// fresh, and unknown once nothing vouches for it; an interrupt ends it.
/// QT-015, QT-016: the verdict never reads a turn_duration as a stop.
#[test]
fn an_owed_reply_runs_while_fresh_tail_003() {
    let fresh = tail_with(
        None,
        None,
        Turn::Owed {
            what: "a prompt",
            time: ago(20),
        },
    );
    let stale = tail_with(
        None,
        None,
        Turn::Owed {
            what: "a prompt",
            time: ago(3600),
        },
    );
    let cut = tail_with(None, Some("tool_use"), Turn::Interrupted { time: ago(50) });
    assert_eq!(
        verdict(Leg::NoRow, None, &fresh, 0).verdict,
        Verdict::Running
    );
    let a = verdict(Leg::NoRow, None, &stale, 0);
    assert_eq!(a.verdict, Verdict::Unknown);
    assert!(
        a.because.join(" ").contains("owes a reply"),
        "{:?}",
        a.because
    );
    assert_eq!(verdict(Leg::NoRow, None, &cut, 0).verdict, Verdict::IdleEot);
}

/// ELI-008: a pending ask only the sidecar records is waiting-hitl, with
/// the question; with a registry but no row for the session (no process
/// runs it, REG-001) it waits on no one.
#[test]
fn a_sidecar_ask_is_waiting_hitl_eli_008() {
    let ended = tail_with(None, Some("end_turn"), Turn::Replied);
    let asks = [crate::elicitation::Pending {
        kind: "AskUserQuestion".into(),
        key: "toolu_1".into(),
        since: ago(30),
        detail: Some("which route?".into()),
        file: "/s/e.jsonl".into(),
    }];
    let judge = |leg| {
        assess(&Surfaces {
            now: now(),
            registry: leg,
            pid: None,
            main: Some(&ended),
            lanes: &Lanes::default(),
            open_background: 0,
            elicitations: &asks,
        })
    };
    let a = judge(Leg::NoRegistry);
    assert_eq!(a.verdict, Verdict::WaitingHitl);
    let w = a.waiting_for.unwrap();
    assert_eq!(
        (w.source, w.detail.as_deref()),
        ("sidecar", Some("which route?"))
    );
    assert_eq!(judge(Leg::NoRow).verdict, Verdict::IdleEot);
}

#[test]
fn verdict_names_are_kebab_case_misc_022() {
    for v in Verdict::ALL {
        let json = serde_json::to_string(&v).unwrap();
        assert_eq!(json, format!("\"{}\"", v.name()));
    }
}
