//! Printing the ledger: per session a header, one block per background task
//! (kind, state, ids, launch, command, how it ended, output file) and the open
//! task-list entries; or JSON Lines (`background_task`, `task`, `task_list`,
//! then a `summary`). Generic over the writer; human text is sanitised.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::Instant;

use serde::Serialize;

use super::SessionTasks;
use crate::live::ledger::{State, Task};
use crate::live::tasklist::Item;
use crate::output::sanitize::{clean, one_line};
use crate::output::{json_line, Style};

#[derive(Serialize)]
struct TaskOut<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    task: &'a Task,
}

#[derive(Serialize)]
struct ItemOut<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    session_id: &'a str,
    #[serde(flatten)]
    item: &'a Item,
}

#[derive(Serialize)]
struct ListOut<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    session_id: &'a str,
    dirs: Vec<String>,
    open: usize,
    completed: usize,
    deleted: usize,
}

/// One session's JSON lines.
pub(crate) fn json<W: Write>(w: &mut W, s: &SessionTasks, _open_only: bool) -> io::Result<()> {
    for &i in &s.shown {
        json_line(
            w,
            &TaskOut {
                kind: "background_task",
                task: &s.ledger.tasks[i],
            },
        )?;
    }
    if let Some(l) = &s.task_list {
        for item in &l.open {
            json_line(
                w,
                &ItemOut {
                    kind: "task",
                    session_id: &s.files.session_id,
                    item,
                },
            )?;
        }
        json_line(
            w,
            &ListOut {
                kind: "task_list",
                session_id: &s.files.session_id,
                dirs: l
                    .dirs
                    .iter()
                    .map(|d| d.to_string_lossy().into_owned())
                    .collect(),
                open: l.open.len(),
                completed: l.completed,
                deleted: l.deleted,
            },
        )?;
    }
    Ok(())
}

fn short(s: &str, width: usize) -> String {
    let flat = one_line(s);
    let n = flat.chars().count();
    if n <= width {
        return flat;
    }
    let cut: String = flat.chars().take(width).collect();
    format!("{cut}… (+{} chars)", n - width)
}

/// One session's human block.
pub(crate) fn human<W: Write>(
    w: &mut W,
    st: Style,
    s: &SessionTasks,
    open_only: bool,
) -> io::Result<()> {
    let open = s.ledger.open().count();
    writeln!(
        w,
        "{}@{}{}  {}{}{}  background: {} ({} open)",
        st.head,
        clean(&s.files.session_id),
        st.reset,
        st.dim,
        clean(&crate::discovery::file_name(&s.files.project_dir)),
        st.reset,
        s.ledger.tasks.len(),
        open
    )?;
    for &i in &s.shown {
        task(w, st, &s.ledger.tasks[i])?;
    }
    if let Some(l) = &s.task_list {
        if !l.open.is_empty() || !open_only {
            writeln!(
                w,
                "  task list: {} open, {} completed{}",
                l.open.len(),
                l.completed,
                if l.deleted > 0 {
                    format!(", {} deleted", l.deleted)
                } else {
                    String::new()
                }
            )?;
        }
        for item in &l.open {
            let blocked = if item.blocked_by.is_empty() {
                String::new()
            } else {
                format!("  (blocked by {})", clean(&item.blocked_by.join(", ")))
            };
            writeln!(
                w,
                "    #{} {}  {}{}",
                clean(&item.id),
                clean(&item.status),
                short(item.subject.as_deref().unwrap_or(""), 100),
                blocked
            )?;
        }
    }
    Ok(())
}

fn task<W: Write>(w: &mut W, st: Style, t: &Task) -> io::Result<()> {
    let color = if t.state == State::Open {
        st.warn
    } else {
        st.label
    };
    let lane = t
        .agent_id
        .as_deref()
        .map(|a| format!(" lane @{}", clean(a)))
        .unwrap_or_default();
    let turn = t.turn.map(|n| format!(" turn {n}")).unwrap_or_default();
    let launched = t
        .launched_at
        .map(crate::timefmt::local)
        .unwrap_or_else(|| "(no time)".into());
    writeln!(
        w,
        "  {color}{:<9}{} {:<8} {}  {}  {launched}{turn} L{}{lane}",
        t.state.name(),
        st.reset,
        t.kind.name(),
        clean(t.task_id.as_deref().unwrap_or("(no id)")),
        clean(&t.tool_use_id),
        t.line,
    )?;
    what_line(w, t)?;
    let tail = ended_parts(t);
    if !tail.is_empty() {
        writeln!(w, "      {}{}{}", st.dim, tail.join(" · "), st.reset)?;
    }
    for n in &t.notes {
        writeln!(w, "      {}note: {}{}", st.dim, clean(n), st.reset)?;
    }
    Ok(())
}

/// The command (or description), how it got into the background, persistence.
fn what_line<W: Write>(w: &mut W, t: &Task) -> io::Result<()> {
    let what = t
        .command
        .as_deref()
        .or(t.description.as_deref())
        .map(|c| short(c, 160))
        .unwrap_or_else(|| "(no command on record)".into());
    let how = match t.trigger {
        Some(crate::live::ledger::Trigger::Explicit) | None => String::new(),
        Some(tr) => format!(
            "  [{}]",
            serde_json::to_value(tr)
                .ok()
                .and_then(|v| v.as_str().map(|s| format!("moved to the background: {s}")))
                .unwrap_or_default()
        ),
    };
    let persistent = if t.persistent == Some(true) {
        "  [persistent]"
    } else {
        ""
    };
    writeln!(w, "      {what}{how}{persistent}")?;
    Ok(())
}

/// How it ended, its carriers and events, its output file.
fn ended_parts(t: &Task) -> Vec<String> {
    let mut tail = Vec::new();
    if let Some(e) = &t.ended_by {
        let raw = t
            .raw_status
            .as_deref()
            .map(|r| format!(" {}", clean(r)))
            .unwrap_or_default();
        tail.push(format!(
            "ended{raw}: {} L{}{}",
            serde_json::to_value(e.carrier)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            e.line,
            if e.orphan_reconciliation {
                " (orphan reconciliation)"
            } else {
                ""
            }
        ));
    } else if let Some(r) = t.raw_status.as_deref() {
        tail.push(clean(r).into_owned());
    }
    if t.notifications > 0 {
        tail.push(format!("{} carrier(s)", t.notifications));
    }
    if t.events > 0 {
        tail.push(format!("{} event(s)", t.events));
    }
    if let Some(o) = &t.output_file {
        let size = match (t.output_bytes, t.output_gone) {
            (Some(b), _) => {
                let age = t
                    .output_age_secs
                    .map(|a| format!(", written {} ago", crate::timefmt::duration(a)))
                    .unwrap_or_default();
                format!(" ({}{age})", crate::cmd::human_bytes(b))
            }
            (None, true) => " (gone)".into(),
            _ => String::new(),
        };
        tail.push(format!("output {}{size}", clean(o)));
    }
    tail
}

/// The run's summary.
#[derive(Serialize)]
pub(crate) struct Summary {
    #[serde(rename = "type")]
    kind: &'static str,
    sessions: usize,
    background: usize,
    shown: usize,
    states: BTreeMap<&'static str, usize>,
    kinds: BTreeMap<&'static str, usize>,
    task_list_open: usize,
    task_list_completed: usize,
    unjoined_notifications: Vec<Unjoined>,
    notes: Vec<String>,
    errors: usize,
    elapsed_ms: u128,
}

#[derive(Serialize)]
struct Unjoined {
    session_id: String,
    ids: Vec<String>,
    status: Option<String>,
}

impl Summary {
    pub(crate) fn of(
        all: &[SessionTasks],
        notes: Vec<String>,
        errors: usize,
        started: Instant,
    ) -> Summary {
        let mut states = BTreeMap::new();
        let mut kinds = BTreeMap::new();
        let mut unjoined = Vec::new();
        for s in all {
            for t in &s.ledger.tasks {
                *states.entry(t.state.name()).or_insert(0) += 1;
                *kinds.entry(t.kind.name()).or_insert(0) += 1;
            }
            for (ids, status) in &s.ledger.unjoined {
                unjoined.push(Unjoined {
                    session_id: s.files.session_id.clone(),
                    ids: ids.clone(),
                    status: status.clone(),
                });
            }
        }
        Summary {
            kind: "summary",
            sessions: all.iter().filter(|s| !s.ledger.tasks.is_empty()).count(),
            background: all.iter().map(|s| s.ledger.tasks.len()).sum(),
            shown: all.iter().map(|s| s.shown.len()).sum(),
            states,
            kinds,
            task_list_open: all
                .iter()
                .filter_map(|s| s.task_list.as_ref())
                .map(|l| l.open.len())
                .sum(),
            task_list_completed: all
                .iter()
                .filter_map(|s| s.task_list.as_ref())
                .map(|l| l.completed)
                .sum(),
            unjoined_notifications: unjoined,
            notes,
            errors,
            elapsed_ms: started.elapsed().as_millis(),
        }
    }
}

/// The human footer.
pub(crate) fn footer<W: Write>(w: &mut W, st: Style, s: &Summary) -> io::Result<()> {
    let states: Vec<String> = State::ALL
        .iter()
        .filter_map(|k| s.states.get(k.name()).map(|n| format!("{n} {}", k.name())))
        .collect();
    let unjoined = match s.unjoined_notifications.len() {
        0 => String::new(),
        n => format!(" · {n} notification(s) name no launch in scope"),
    };
    writeln!(
        w,
        "{}{} background task(s) in {} session(s){}, {} shown · task lists: {} open, {} completed{unjoined} · {} ms{}",
        st.dim,
        s.background,
        s.sessions,
        if states.is_empty() { String::new() } else { format!(" ({})", states.join(", ")) },
        s.shown,
        s.task_list_open,
        s.task_list_completed,
        s.elapsed_ms,
        st.reset
    )?;
    Ok(())
}
