//! `csift whoami`: the calling Claude Code session, from `CLAUDE_CODE_SESSION_ID`
//! and nothing else (MISC-009, SUB-021). The variable names the TOP-LEVEL session
//! in every lane, so from a subagent it is the parent's id; csift says so when the
//! session has subagents (with none on disk the caller is the session). With the
//! variable absent csift refuses to guess: most-recent-mtime is a false-positive
//! trap when several sessions are live. `whoami @trap:MARKER` names the caller
//! by a marker in its own Bash call instead ([`crate::discovery::selfref`]):
//! a subagent's own lane, with its depth below the session ([`crate::lanes`]).

use std::io::Write;

use serde::Serialize;

use crate::cli::WhoamiArgs;
use crate::discovery::{home, target};
use crate::error::{Error, Result};
use crate::output::{Format, Out};

use super::Problems;

pub(crate) const ENV: &str = "CLAUDE_CODE_SESSION_ID";

#[derive(Serialize)]
struct Json<'a> {
    /// Every JSON line csift prints says what it is.
    #[serde(rename = "type")]
    kind: &'static str,
    session_id: &'a str,
    /// The calling lane, with @trap:MARKER; null otherwise.
    agent_id: Option<&'a str>,
    files: Vec<String>,
    source: &'static str,
    /// Lane fields are unknowable from the environment alone (MISC-009),
    /// except where no lane exists: a session with no lane file on disk has
    /// no subagent that could be calling (TAIL-003: a running subagent's lane
    /// file is on disk from its first record), so the caller is the session.
    is_subagent: Option<bool>,
    parent_session_id: Option<&'a str>,
    /// Spawns between the caller and its session: 0 for the session itself;
    /// null when a subagent may be calling (the variable names the session
    /// in every lane, SUB-021) or the transcript is not found.
    depth: Option<usize>,
}

pub(crate) fn run(args: &WhoamiArgs, out: &mut Out, problems: &Problems) -> Result<super::Exit> {
    super::not_applicable("whoami", &args.common)?;
    match args.target.as_deref() {
        None | Some("@main") => from_env(args, out, problems),
        Some(t) if t.starts_with("@trap:") => trapped(args, t, out),
        Some(t) => Err(Error::Usage(format!(
            "whoami names the caller: from CLAUDE_CODE_SESSION_ID, or by @trap:MARKER; `{}` is neither (to read another session, `csift list {}`)",
            crate::output::sanitize::one_line(t),
            crate::output::sanitize::one_line(t)
        ))),
    }
}

/// `whoami`: the session [`ENV`] names, with its transcript files.
fn from_env(args: &WhoamiArgs, out: &mut Out, problems: &Problems) -> Result<super::Exit> {
    let id = std::env::var(ENV).unwrap_or_default();
    if id.trim().is_empty() {
        return Err(Error::Usage(format!(
            "cannot identify the calling session: {ENV} is not set (old Claude Code build, or not \
             running inside Claude Code). csift does not guess from file times, since many sessions \
             may be live at once. Pass an explicit target instead, e.g. `csift show @<session-id>`"
        )));
    }
    let id = id.trim();
    let home = home::from_env(args.common.claude_home.clone())?;
    let (files, lanes) = session_files(&home, id);
    let shown = crate::output::sanitize::clean(id);
    lane_note(problems, lanes, files.is_empty());
    // Known to be the session itself only where no lane could be calling.
    let the_session = !lanes && !files.is_empty();
    match args.common.format {
        Format::Json => out.json(&Json {
            kind: "session",
            session_id: id,
            agent_id: None,
            files: files.clone(),
            source: "env",
            is_subagent: the_session.then_some(false),
            parent_session_id: None,
            depth: the_session.then_some(0),
        })?,
        Format::Human if args.path => {
            for f in &files {
                path_line(out, f)?;
            }
        }
        Format::Human => writeln!(out, "{shown}")?,
    }
    if files.len() > 1 {
        problems.note(format_args!(
            "{shown}: {} transcripts carry this session id (a copy under another project \
             folder?); all are printed",
            files.len()
        ));
    }
    if files.is_empty() {
        problems.note(format_args!(
            "{shown}: no transcript named {shown}.jsonl under {}",
            crate::output::sanitize::path(&home.projects())
        ));
        // The id itself is known; only a path was asked for and there is none.
        return Ok(if args.path {
            super::Exit::NotFound
        } else {
            super::Exit::Found
        });
    }
    Ok(super::Exit::Found)
}

/// The main transcript files of session `id`, and whether it has lanes. The
/// variable is the session's own id, never a prefix: `@4d56` would pick
/// whichever session starts so.
fn session_files(home: &home::ClaudeHome, id: &str) -> (Vec<String>, bool) {
    let Ok(sel) = target::resolve(home, &[format!("@{id}")], true) else {
        return (Vec::new(), false);
    };
    let ours = || sel.transcripts.iter().filter(|t| t.session_id == id);
    let files: Vec<String> = ours()
        .filter(|t| !t.is_lane())
        .map(|t| t.path.display().to_string())
        .collect();
    (files, ours().any(|t| t.is_lane()))
}

/// A `--path` line: exact for `$(csift whoami --path)`; a terminal gets it
/// cleaned (a project folder's name is as untrusted as transcript text).
fn path_line(out: &mut Out, f: &str) -> std::io::Result<()> {
    match out.tty {
        true => writeln!(out, "{}", crate::output::sanitize::one_line(f)),
        false => writeln!(out, "{f}"),
    }
}

/// The caveat that the variable names the top-level session. Only a session
/// with lanes can have a subagent calling: a running subagent's lane file is
/// on disk from its first record (TAIL-003), so with none the caller is the
/// session itself and the note is noise. A session whose transcript is not
/// found keeps the note: nothing is known of it.
fn lane_note(problems: &Problems, lanes: bool, not_found: bool) {
    if !(lanes || not_found) {
        return;
    }
    let why = match lanes {
        true => "this session has subagents, and from one of them",
        false => "from a subagent",
    };
    problems.note(format_args!(
        "note: resolved via ${ENV}, which names the TOP-LEVEL session in every lane; \
         {why} this is the parent's id, not the lane's"
    ));
}

/// `whoami @trap:MARKER`: the transcript whose Bash call launched this run
/// (SUB-022: a subagent's lane is written as each block ends, so a first try
/// finds it). A lane answers its agent id, its session as the parent and its
/// depth (SUB-006 meta `spawnDepth`, else the chain of spawning calls); the
/// main file answers depth 0.
fn trapped(args: &WhoamiArgs, t: &str, out: &mut Out) -> Result<super::Exit> {
    let home = home::from_env(args.common.claude_home.clone())?;
    let sel = target::resolve(&home, &[t.to_string()], true)?;
    let [caller] = sel.transcripts.as_slice() else {
        let files: Vec<String> = sel
            .transcripts
            .iter()
            .map(|t| crate::output::sanitize::path(&t.path))
            .collect();
        return Err(Error::Target(format!(
            "{}: {} transcripts hold that call, so the marker names no one caller: {}; use a fresh marker",
            crate::output::sanitize::one_line(t),
            files.len(),
            files.join(", ")
        )));
    };
    let depth = match (&caller.agent_id, caller.is_lane()) {
        (Some(agent), true) => lane_depth(caller, agent),
        _ => Some(0),
    };
    let lane = caller.is_lane();
    let agent = caller.agent_id.as_deref().filter(|_| lane);
    let file = caller.path.display().to_string();
    match args.common.format {
        Format::Json => out.json(&Json {
            kind: "session",
            session_id: &caller.session_id,
            agent_id: agent,
            files: vec![file],
            source: "trap",
            is_subagent: Some(lane),
            parent_session_id: lane.then_some(caller.session_id.as_str()),
            depth,
        })?,
        Format::Human if args.path => path_line(out, &file)?,
        // As the env form prints the id, and a target reads it:
        // `<session>@<agent>` for a lane.
        Format::Human => {
            let at = caller.at();
            let id = at.strip_prefix('@').unwrap_or(&at);
            writeln!(out, "{}", crate::output::sanitize::one_line(id))?
        }
    }
    Ok(super::Exit::Found)
}

/// The depth of lane `agent` of `caller`'s session, from its session's files.
fn lane_depth(caller: &crate::discovery::Transcript, agent: &str) -> Option<usize> {
    let (sessions, _) = crate::discovery::session::group(std::slice::from_ref(caller), true);
    let s = sessions.into_iter().next()?;
    let ts: Vec<crate::discovery::Transcript> = s.main.into_iter().chain(s.lanes).collect();
    let srcs: Vec<Option<crate::scan::Source>> = ts
        .iter()
        .map(|t| crate::scan::Source::open(&t.path).ok())
        .collect();
    let files: Vec<(&crate::discovery::Transcript, &[u8])> = ts
        .iter()
        .zip(&srcs)
        .filter_map(|(t, s)| s.as_ref().map(|s| (t, &s[..])))
        .collect();
    crate::lanes::depth(&files, agent)
}
