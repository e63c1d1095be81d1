//! Printing `files`: a row per path, a row per touch, or JSON Lines. Paths
//! come from transcripts and are cleaned for the terminal; JSON keeps them
//! exact (escaped where a terminal would obey them).

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use super::Event;
use crate::cli::files::By;
use crate::files::{Class, Kind};
use crate::output::{json_line, sanitize, Out, Style};
use crate::timefmt;

pub(crate) struct Stats {
    pub(crate) transcripts: usize,
    pub(crate) malformed: usize,
    pub(crate) errors: usize,
    pub(crate) elapsed_ms: u128,
}

#[derive(Serialize)]
struct EventJson<'a> {
    #[serde(rename = "type")]
    kind_tag: &'static str,
    path: &'a str,
    session_id: &'a str,
    agent_id: Option<&'a str>,
    file: String,
    line: usize,
    turn: Option<usize>,
    timestamp: Option<&'a str>,
    tool: &'static str,
    kind: &'static str,
    class: &'static str,
}

#[derive(Serialize)]
struct SummaryJson<'a> {
    #[serde(rename = "type")]
    kind_tag: &'static str,
    paths: usize,
    events: usize,
    kinds: BTreeMap<&'a str, usize>,
    classes: BTreeMap<&'a str, usize>,
    transcripts: usize,
    malformed_lines: usize,
    errors: usize,
    elapsed_ms: u128,
}

/// Events grouped by path (markers last), each group in time order.
fn grouped<'e, 'a>(events: &'e [Event<'a>]) -> Vec<(&'a str, Vec<&'e Event<'a>>)> {
    let mut map: BTreeMap<(bool, &'a str), Vec<&'e Event<'a>>> = BTreeMap::new();
    for e in events {
        map.entry((e.t.class == Class::Marker, &*e.t.path))
            .or_default()
            .push(e);
    }
    map.into_iter()
        .map(|((_, p), mut v)| {
            v.sort_by(|a, b| order(a, b));
            (p, v)
        })
        .collect()
}

fn order(a: &Event<'_>, b: &Event<'_>) -> std::cmp::Ordering {
    (a.order_ts, &a.tr.session_id, &a.tr.path, a.t.line, a.t.sub).cmp(&(
        b.order_ts,
        &b.tr.session_id,
        &b.tr.path,
        b.t.line,
        b.t.sub,
    ))
}

fn timeline_order<'e, 'a>(events: &'e [Event<'a>]) -> Vec<&'e Event<'a>> {
    let mut v: Vec<&Event<'a>> = events.iter().collect();
    v.sort_by(|a, b| order(a, b));
    v
}

pub(crate) fn json<W: Write>(
    w: &mut W,
    events: &[Event<'_>],
    by: By,
    stats: &Stats,
) -> io::Result<()> {
    let ordered: Vec<&Event<'_>> = match by {
        By::File => grouped(events).into_iter().flat_map(|(_, v)| v).collect(),
        By::Timeline => timeline_order(events),
    };
    for e in &ordered {
        json_line(
            w,
            &EventJson {
                kind_tag: "event",
                path: &e.t.path,
                session_id: &e.tr.session_id,
                agent_id: e.t.agent_id.as_deref(),
                file: e.tr.path.to_string_lossy().into_owned(),
                line: e.t.line,
                turn: e.t.turn,
                timestamp: e.t.ts.as_deref(),
                tool: e.t.tool,
                kind: e.t.kind.name(),
                class: e.t.class.name(),
            },
        )?;
    }
    let mut kinds = BTreeMap::new();
    let mut classes = BTreeMap::new();
    for e in events {
        *kinds.entry(e.t.kind.name()).or_insert(0) += 1;
        *classes.entry(e.t.class.name()).or_insert(0) += 1;
    }
    let paths = grouped(events).len();
    json_line(
        w,
        &SummaryJson {
            kind_tag: "summary",
            paths,
            events: events.len(),
            kinds,
            classes,
            transcripts: stats.transcripts,
            malformed_lines: stats.malformed,
            errors: stats.errors,
            elapsed_ms: stats.elapsed_ms,
        },
    )
}

/// The compact account of a path's touches: `create · edit×5 · read×3 (1 partial)`.
pub(crate) fn summary(events: &[&Event<'_>]) -> String {
    let mut counts: BTreeMap<Kind, usize> = BTreeMap::new();
    let mut inferred = 0;
    for e in events {
        *counts.entry(e.t.kind).or_insert(0) += 1;
        if matches!(e.t.class, Class::CdTracked | Class::Unresolved) {
            inferred += 1;
        }
    }
    let reads: usize = counts
        .iter()
        .filter(|(k, _)| k.is_read() && **k != Kind::BashRead)
        .map(|(_, n)| n)
        .sum();
    let mut parts = Vec::new();
    for (k, n) in &counts {
        if k.is_read() && *k != Kind::BashRead {
            continue;
        }
        parts.push(times(k.name(), *n));
    }
    if reads > 0 {
        let detail: Vec<String> = [
            (Kind::ReadFull, "full"),
            (Kind::ReadPartial, "partial"),
            (Kind::ReadTruncated, "truncated"),
            (Kind::ReadUnchanged, "unchanged"),
            (Kind::ReadOther, "other"),
            (Kind::Read, "no echo"),
        ]
        .iter()
        .filter_map(|(k, name)| counts.get(k).map(|n| format!("{n} {name}")))
        .collect();
        let r = times("read", reads);
        parts.push(
            if detail.len() > 1 || !counts.contains_key(&Kind::ReadFull) {
                format!("{r} ({})", detail.join(", "))
            } else {
                r
            },
        );
    }
    let mut s = parts.join(" · ");
    if inferred > 0 {
        s.push_str(&format!(
            " [{inferred} inferred path{}]",
            if inferred == 1 { "" } else { "s" }
        ));
    }
    s
}

fn times(name: &str, n: usize) -> String {
    if n == 1 {
        name.to_string()
    } else {
        format!("{name}×{n}")
    }
}

fn when(ts: Option<&str>, full: bool) -> String {
    match ts.and_then(timefmt::parse_ts) {
        Some(t) if full => t
            .to_zoned(crate::timefmt::system_zone())
            .strftime("%Y-%m-%d %H:%M:%S")
            .to_string(),
        Some(t) => timefmt::local(t),
        None => "-".to_string(),
    }
}

/// `@session8`, `@session8@agent8`.
fn at(e: &Event<'_>) -> String {
    let s = crate::discovery::short(&e.tr.session_id);
    match e.t.agent_id.as_deref() {
        Some(a) => format!("@{s}@{}", crate::discovery::short(a)),
        None => format!("@{s}"),
    }
}

pub(crate) fn by_file(out: &mut Out, events: &[Event<'_>], stats: &Stats) -> io::Result<()> {
    let st = out.style;
    let groups = grouped(events);
    for (path, evs) in &groups {
        let last = evs
            .last()
            .map(|e| when(e.order_ts, false))
            .unwrap_or_default();
        let mut sessions: Vec<&str> = evs.iter().map(|e| e.tr.session_id.as_str()).collect();
        sessions.dedup();
        sessions.sort_unstable();
        sessions.dedup();
        let where_ = match (sessions.len(), evs.last()) {
            (1, Some(e)) => at(e),
            (n, _) => format!("{n} sessions"),
        };
        writeln!(
            out,
            "{}{}{}  {}  {}last {last} {where_}{}",
            st.head,
            sanitize::one_line(path),
            st.reset,
            summary(evs),
            st.dim,
            st.reset
        )?;
    }
    footer(out, events, groups.len(), stats)
}

pub(crate) fn timeline(out: &mut Out, events: &[Event<'_>], stats: &Stats) -> io::Result<()> {
    let st = out.style;
    for e in timeline_order(events) {
        let turn = e.t.turn.map_or_else(|| "-".to_string(), |t| t.to_string());
        let class = match e.t.class {
            Class::Absolute | Class::Marker => String::new(),
            c => format!("  {}({}){}", st.dim, c.name(), st.reset),
        };
        writeln!(
            out,
            "{}{} {} L{} t{turn}{}  {:<12} {}{:<15}{} {}{}",
            st.dim,
            when(e.order_ts, true),
            at(e),
            e.t.line,
            st.reset,
            e.t.tool,
            kind_style(st, e.t.kind),
            e.t.kind.name(),
            st.reset,
            sanitize::one_line(&e.t.path),
            class
        )?;
    }
    let paths = grouped(events).len();
    footer(out, events, paths, stats)
}

fn kind_style(st: Style, k: Kind) -> &'static str {
    if k.is_signal() || k == Kind::Failed {
        st.warn
    } else if k.is_structured_write() || k.is_bash_write() {
        st.label
    } else {
        ""
    }
}

fn footer(out: &mut Out, events: &[Event<'_>], paths: usize, stats: &Stats) -> io::Result<()> {
    let st = out.style;
    let count = |f: &dyn Fn(Kind) -> bool| events.iter().filter(|e| f(e.t.kind)).count();
    let writes = count(&|k| k.is_structured_write());
    let reads = count(&|k| k.is_read());
    let bash = count(&|k| k.is_bash_write());
    let signals = count(&|k| k.is_signal());
    let failed = count(&|k| k == Kind::Failed);
    let opaque = count(&|k| k == Kind::Opaque);
    let unresolved = events
        .iter()
        .filter(|e| e.t.class == Class::Unresolved)
        .count();
    let malformed = match stats.malformed {
        0 => String::new(),
        n => format!(" · {n} malformed lines"),
    };
    writeln!(
        out,
        "{}{paths} paths · {} touches: {writes} structured writes, {bash} bash writes, {reads} reads, {signals} outside-stream signals, {failed} failed, {opaque} opaque commands · {unresolved} unresolved · {} transcripts{malformed} · {} ms{}",
        st.dim,
        events.len(),
        stats.transcripts,
        stats.elapsed_ms,
        st.reset
    )
}
