//! One transcript's part of the ledger: its launches and the carriers it holds.
//! Only lines a byte prefilter flags are parsed; the needles are bare value
//! substrings, so a re-spaced line (`"a": "b"`, REC-038) is found as well.
//!
//! A launch is keyed by its `tool_use` id. Most are seen at the call itself; a
//! foreground shell moved to the background (BASH-027/029), an async agent
//! acknowledged without the flag on record, or a workflow (CLS-009) is first
//! seen at its result, and its call is then found by searching back for its id.

use std::path::Path;

use super::echo::{after, shell_trigger, tool_fits, Echo, Input};
use super::notice::{self, Carried, Hit};
use super::sieve::Sieve;
use super::{Kind, State, Task, Trigger};
use crate::discovery::Transcript;
use crate::record::{line_records, Block, Record};
use crate::scan::lines::HitLines;
use crate::scan::{Line, Source};

/// The prefilter's alternation, a literal so [`needles`] and the ledger's
/// sieve (`super::sieve`) build from one spelling.
macro_rules! needle_pattern {
    () => {
        r#"run_in_background|Command running in background|moved to the background|backgrounded by user|backgroundTaskId|async_launched|Async agent launched|Workflow launched in background|task-notification|agent-notification|stopped by the user|"Monitor"|Monitor started|retrieval_status|Successfully stopped task|Successfully killed"#
    };
}
pub(crate) use needle_pattern;

/// The prefilter: every line that can hold a launch, an acknowledgement or a
/// carrier holds one of these words (none is a regex metacharacter).
pub(crate) fn needles() -> &'static regex::bytes::Regex {
    crate::scan::re!(bytes needle_pattern!())
}

/// What one file adds to the ledger.
#[derive(Debug, Default)]
pub(crate) struct FileScan {
    pub(crate) tasks: Vec<Task>,
    pub(crate) carriers: Vec<Hit>,
    pub(crate) notes: Vec<String>,
}

/// Where a launch first seen at its result finds its call.
enum Back<'a> {
    /// The whole file: the call line, searched back for by id.
    Buf(&'a [u8]),
    /// A sieve: only the call's tool is known (its line is not kept).
    Sieve(&'a Sieve),
}

struct Ctx<'a> {
    back: Back<'a>,
    path: &'a Path,
    session: &'a str,
    lane: Option<String>,
}

/// Scan one transcript: launches always, carriers when `is_main`.
pub(crate) fn scan_file(
    t: &Transcript,
    session: &str,
    is_main: bool,
    turns: bool,
) -> crate::error::Result<FileScan> {
    let src = Source::open(&t.path)?;
    let ctx = Ctx {
        back: Back::Buf(&src),
        path: &t.path,
        session,
        lane: t.agent_id.clone(),
    };
    let mut out = scan_lines(
        &ctx,
        HitLines::new(&src, needles()).map(|(l, _)| l),
        is_main,
    );
    if turns && !out.tasks.is_empty() {
        let idx = crate::classify::FileIndex::build(&src, t.is_lane());
        for task in &mut out.tasks {
            task.turn = idx.turn(task.line);
        }
    }
    Ok(out)
}

/// Scan one transcript's sieve (the census cache's, [`Sieve`]): the same
/// lines, so the same tasks and states as [`scan_file`]; a launch first seen
/// at its result has its tool but not its call's command, time or line.
pub(crate) fn scan_sieve(t: &Transcript, session: &str, is_main: bool, sieve: &Sieve) -> FileScan {
    let ctx = Ctx {
        back: Back::Sieve(sieve),
        path: &t.path,
        session,
        lane: t.agent_id.clone(),
    };
    scan_lines(&ctx, sieve.lines(), is_main)
}

fn scan_lines<'a>(ctx: &Ctx<'_>, lines: impl Iterator<Item = Line<'a>>, is_main: bool) -> FileScan {
    let mut out = FileScan::default();
    for line in lines {
        for (sub, rec) in line_records(&line) {
            match rec.kind() {
                "assistant" => launches(ctx, &rec, &sub, &mut out),
                "user" => results(ctx, &rec, &sub, &mut out),
                _ => {}
            }
            if is_main {
                match notice::carried(ctx.path, &rec, sub.no) {
                    Some(Carried::Hit(h)) => out.carriers.push(h),
                    Some(Carried::Note(n)) => out.notes.push(n),
                    None => {}
                }
            }
        }
    }
    out
}

fn new_task(ctx: &Ctx<'_>, tool_use_id: &str, kind: Kind, tool: &str) -> Task {
    Task {
        session_id: ctx.session.to_string(),
        agent_id: ctx.lane.clone(),
        task_id: None,
        tool_use_id: tool_use_id.to_string(),
        kind,
        tool: tool.to_string(),
        trigger: None,
        state: State::Open,
        raw_status: None,
        launched: None,
        file: ctx.path.to_path_buf(),
        line: 0,
        turn: None,
        command: None,
        description: None,
        persistent: None,
        ended_by: None,
        notifications: 0,
        events: 0,
        output_file: None,
        output_bytes: None,
        output_age_secs: None,
        output_gone: false,
        notes: vec!["no result on disk for its launching call: it may never have started".into()],
        launched_at: None,
        offset: 0,
    }
}

/// Fill a task's launch fields from its `tool_use` block.
fn from_use(task: &mut Task, b: &Block<'_>, rec: &Record<'_>, line: &Line<'_>) {
    let input: Input = serde_json::from_str(b.input_json()).unwrap_or_default();
    task.launched = rec.timestamp.as_deref().map(str::to_string);
    task.launched_at = task.launched.as_deref().and_then(crate::timefmt::parse_ts);
    task.line = line.no;
    task.offset = line.offset;
    task.command = input
        .command
        .or_else(|| input.ws.and_then(|w| w.url))
        .or(task.command.take());
    task.description = input.description.or(task.description.take());
    if task.kind == Kind::Monitor {
        task.persistent = input.persistent;
    }
}

/// Launches seen at the call: BG-001 (a shell's flag), BG-006 (a Monitor arm),
/// and an Agent/Task spawn with the flag (its ack decides, below).
fn launches(ctx: &Ctx<'_>, rec: &Record<'_>, line: &Line<'_>, out: &mut FileScan) {
    for b in rec.blocks().iter().filter(|b| b.kind() == "tool_use") {
        let (Some(id), Some(name)) = (b.id.as_deref(), b.name.as_deref()) else {
            continue;
        };
        let flagged = || {
            serde_json::from_str::<Input>(b.input_json())
                .ok()
                .and_then(|i| i.run_in_background)
                == Some(true)
        };
        let kind = match name {
            "Bash" | "PowerShell" if flagged() => Kind::Shell,
            "Monitor" => Kind::Monitor,
            "Agent" | "Task" if flagged() => Kind::Agent,
            _ => continue,
        };
        if out.tasks.iter().any(|t| t.tool_use_id == id) {
            continue;
        }
        let mut task = new_task(ctx, id, kind, name);
        if kind == Kind::Shell {
            task.trigger = Some(Trigger::Explicit);
        }
        from_use(&mut task, b, rec, line);
        out.tasks.push(task);
    }
}

/// Results: a launch's acknowledgement (its id and output file), a launch first
/// seen at its result, and the TaskOutput/TaskStop carriers.
fn results(ctx: &Ctx<'_>, rec: &Record<'_>, line: &Line<'_>, out: &mut FileScan) {
    let echo: Echo = rec
        .tool_use_result()
        .filter(|r| r.get().starts_with('{'))
        .and_then(|r| serde_json::from_str(r.get()).ok())
        .unwrap_or_default();
    for b in rec.blocks().iter().filter(|b| b.kind() == "tool_result") {
        let Some(id) = b.tool_use_id.as_deref() else {
            continue;
        };
        let head = b
            .content
            .map(|raw| crate::record::content::raw_text_head(raw, 2048).into_owned())
            .unwrap_or_default();
        let async_ack = echo.status.as_ref().and_then(serde_json::Value::as_str)
            == Some("async_launched")
            || head.trim_start().starts_with("Async agent launched")
            || head
                .trim_start()
                .starts_with("Workflow launched in background");
        let at = match out.tasks.iter().position(|t| t.tool_use_id == id) {
            Some(i) => Some(i),
            None => {
                let kind = if head.trim_start().starts_with("Workflow launched")
                    || echo.workflow_name.is_some()
                {
                    Some(Kind::Workflow)
                } else if async_ack {
                    Some(Kind::Agent)
                } else if head.trim_start().starts_with("Monitor started") {
                    Some(Kind::Monitor)
                } else {
                    shell_trigger(&head, &echo).map(|_| Kind::Shell)
                };
                kind.map(|k| found_at_result(ctx, id, k, line))
                    .filter(|t| tool_fits(t.kind, &t.tool))
                    .map(|t| {
                        out.tasks.push(t);
                        out.tasks.len() - 1
                    })
            }
        };
        if let Some(i) = at {
            if !acknowledge(&mut out.tasks[i], b, &head, &echo, async_ack) {
                out.tasks.remove(i);
            }
        }
        if !b.is_error() {
            out.carriers
                .extend(notice::retrieval(ctx.path, rec, line.no, &echo, &head));
        }
    }
}

/// A task first seen at its result: its call is searched back for by id.
fn found_at_result(ctx: &Ctx<'_>, id: &str, kind: Kind, result: &Line<'_>) -> Task {
    let mut task = new_task(ctx, id, kind, "");
    task.line = result.no;
    task.offset = result.offset;
    let buf = match ctx.back {
        Back::Buf(buf) => buf,
        Back::Sieve(sieve) => {
            task.tool = sieve.tool_of(id).unwrap_or("").to_string();
            return task;
        }
    };
    if let Some((use_line, rec_line)) = find_use(buf, result, id) {
        for (sub, rec) in line_records(&use_line) {
            if let Some(b) = rec
                .blocks()
                .iter()
                .find(|b| b.kind() == "tool_use" && b.id.as_deref() == Some(id))
            {
                task.tool = b.name.as_deref().unwrap_or("").to_string();
                from_use(
                    &mut task,
                    b,
                    &rec,
                    &Line {
                        no: rec_line,
                        ..sub
                    },
                );
            }
        }
    }
    task
}

/// The line holding the `tool_use` of `id` before `result`, with its number.
fn find_use<'a>(buf: &'a [u8], result: &Line<'a>, id: &str) -> Option<(Line<'a>, usize)> {
    let finder = memchr::memmem::FinderRev::new(id.as_bytes());
    let mut end = result.offset;
    let mut no = result.no;
    while let Some(at) = finder.rfind(&buf[..end]) {
        let start = memchr::memrchr(b'\n', &buf[..at]).map_or(0, |i| i + 1);
        let stop = memchr::memchr(b'\n', &buf[at..]).map_or(buf.len(), |i| at + i);
        no = no.saturating_sub(memchr::memchr_iter(b'\n', &buf[start..end]).count());
        let line = Line {
            no,
            offset: start,
            bytes: &buf[start..stop],
            terminated: stop < buf.len(),
        };
        let is_use = line_records(&line).iter().any(|(_, r)| {
            r.kind() == "assistant"
                && r.blocks()
                    .iter()
                    .any(|b| b.kind() == "tool_use" && b.id.as_deref() == Some(id))
        });
        if is_use {
            return Some((line, no));
        }
        end = start;
    }
    None
}

/// Read a launch's result into its task. `false` when the result shows the
/// call never went to the background (a spawn that returned in the turn).
fn acknowledge(task: &mut Task, b: &Block<'_>, head: &str, echo: &Echo, async_ack: bool) -> bool {
    task.notes
        .retain(|n| !n.starts_with("no result on disk for its launching call"));
    if b.is_error() {
        task.state = State::Failed;
        task.raw_status = Some("launch error".into());
        task.notes.push(format!(
            "its launching call was answered with an error: {}",
            crate::output::sanitize::one_line(head.chars().take(160).collect::<String>().as_str())
        ));
        return true;
    }
    match task.kind {
        Kind::Agent | Kind::Workflow if !async_ack => return false,
        Kind::Shell if task.trigger.is_none() || task.trigger == Some(Trigger::Unmarked) => {
            task.trigger = shell_trigger(head, echo).or(task.trigger);
        }
        _ => {}
    }
    task.task_id = task
        .task_id
        .take()
        .or_else(|| after(head, "with ID: "))
        .or_else(|| after(head, "(ID: "))
        .or_else(|| after(head, "(task "))
        .or_else(|| after(head, "Task ID: "))
        .or_else(|| echo.background_task_id.clone())
        .or_else(|| echo.task_id.clone())
        .or_else(|| echo.agent_id.clone());
    task.output_file = task
        .output_file
        .take()
        .or_else(|| echo.output_file.clone())
        .or_else(|| after(head, "written to: "));
    if task.description.is_none() {
        task.description = echo.description.clone().or(echo.workflow_name.clone());
    }
    if task.tool.is_empty() {
        task.tool = match task.kind {
            Kind::Shell => "Bash",
            Kind::Monitor => "Monitor",
            Kind::Agent => "Agent",
            Kind::Workflow => "Workflow",
        }
        .into();
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The prefilter's literal alternation compiles.
    #[test]
    fn the_needles_compile() {
        assert!(needles().is_match(b"{\"run_in_background\": true}"));
        assert!(!needles().is_match(b"{\"type\":\"user\"}"));
    }
}
