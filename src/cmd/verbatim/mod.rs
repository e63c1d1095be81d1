//! `csift verbatim`: rebuild the recent conversation of one transcript as whole
//! turns, newest kept first and printed oldest first, within a character budget
//! or packed into hook-sized slices ([`pack`]); the turns are rendered by
//! [`turns`]. `--hook-json` wraps the text as SessionStart hook output (ELI-021).

pub(crate) mod carried;
pub(crate) mod fit;
pub(crate) mod hook;
mod json;
pub(crate) mod pack;
pub(crate) mod select;
pub(crate) mod turns;

use std::io::Write;
use std::time::Instant;

use crate::classify::FileIndex;
use crate::cli::verbatim::{PreferArg, Tools, VerbatimArgs};
use crate::discovery::Transcript;
use crate::error::Error;
use crate::output::{Format, Out};
use crate::scan::Source;

use super::{Exit, Problems};
use pack::{Limits, Piece};

/// Smallest window accepted: room for a cut marker and some text.
const MIN_WINDOW: usize = 400;
pub(crate) const DEFAULT_BUDGET: usize = 40_000;

/// Whether target `x` names lane `t` itself (its agent id or a prefix of it,
/// `@session@agent`, or its file), not only its session.
fn names_lane(x: &str, t: &Transcript) -> bool {
    let agent = t.agent_id.as_deref().unwrap_or("");
    let id = x.strip_prefix('@').unwrap_or(x);
    let id = id.rsplit('@').next().unwrap_or(id);
    let id = id.strip_prefix("agent-").unwrap_or(id);
    (x.contains('@') && x.trim_start_matches('@').contains('@'))
        || (!id.is_empty() && agent.starts_with(id) && !t.session_id.starts_with(id))
        || std::path::Path::new(x) == t.path
        || std::fs::canonicalize(x)
            .is_ok_and(|x| std::fs::canonicalize(&t.path).is_ok_and(|p| p == x))
}

fn one_transcript(ts: Vec<Transcript>) -> Result<Transcript, Error> {
    let mut ts = super::show::owning(ts)?;
    match ts.len() {
        1 => Ok(ts.remove(0)),
        _ => Err(Error::Target(
            "verbatim reads one transcript and the target selected none".into(),
        )),
    }
}

pub(crate) fn run(
    args: &VerbatimArgs,
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    check(args)?;
    // Another source started the session: nothing to inject.
    let Some((targets, barrier)) = targets(args)? else {
        return Ok(Exit::Found);
    };
    let (t, home) = transcript(args, &targets, problems)?;
    // ELI-025: a slice beyond the fleet prints nothing and succeeds (JSON
    // still ends with its summary, which says no turn was printed).
    if let (Some(n), Some(i)) = (args.slices, args.slice) {
        if (i == 0 || i > n) && args.common.format != Format::Json {
            return Ok(Exit::Found);
        }
    }
    let lim = limits(args);
    let src = Source::open(&t.path)?;
    let idx = FileIndex::build(&src, t.is_lane());
    let opts = turns::Opts {
        thinking: args.thinking,
        full_tools: args.tools == Tools::Full,
        lane: t.is_lane(),
        show: format!(
            "csift show {}",
            crate::output::sanitize::one_line(&t.target_args(&home))
        ),
    };
    let prefer = match args.prefer {
        PreferArg::Newest => select::Prefer::Newest,
        PreferArg::LeastCarried => select::Prefer::LeastCarried,
    };
    let choice = select::choose(&src, &idx, &opts, lim, args.max_compactions, prefer);
    let shown: Vec<(usize, &Vec<Piece>)> = choice
        .windows
        .iter()
        .enumerate()
        .map(|(i, w)| (i + 1, w))
        .filter(|(i, _)| args.slice.is_none_or(|s| s == *i))
        .collect();
    let text: String = shown.iter().map(|(_, w)| pack::text(w)).collect();
    let left_out_before = left_out_before(&choice, &src, &idx, &opts);
    // A file cut while mapped read zeros past the cut: nothing of it is trusted.
    src.check()?;
    if args.hook_json {
        return hook_output(out, args, barrier.as_ref(), &text, problems);
    }
    let kept = Kept {
        t: &t,
        src: &src,
        idx: &idx,
        lim,
        prefer,
        choice: &choice,
        shown: &shown,
        text: &text,
        left_out_before,
    };
    match args.common.format {
        Format::Human => {
            out.write_all(text.as_bytes())?;
            if args.slice.is_none() {
                let why = why(&kept, args);
                let total = idx.turns();
                select::left_out_notes(problems, &choice, left_out_before, total, &lim, &why);
            }
        }
        Format::Json => json::json(out, args, &kept, problems, started)?,
    }
    let sliced_empty = args.slice.is_some();
    Ok(Exit::from(
        !text.is_empty() || sliced_empty,
        problems.count(),
    ))
}

/// The checks clap's own attributes do not make, in the order they are said.
fn check(args: &VerbatimArgs) -> crate::error::Result<()> {
    if args.common.since.is_some() || args.common.until.is_some() {
        return Err(Error::Usage(
            "verbatim keeps whole turns from the end; --since/--until do not apply".into(),
        ));
    }
    if args.slices == Some(0) {
        return Err(Error::Usage("--slices must be at least 1".into()));
    }
    if args.slice == Some(0) {
        return Err(Error::Usage(
            "--slice counts from 1 (1 = the oldest slice)".into(),
        ));
    }
    if args.window < MIN_WINDOW {
        return Err(Error::Usage(format!(
            "--window must be at least {MIN_WINDOW}"
        )));
    }
    if args.hook_json && args.slices.is_some() && args.slice.is_none() {
        return Err(Error::Usage(
            "--hook-json with --slices needs --slice i".into(),
        ));
    }
    Ok(())
}

/// The targets, and the barrier an --ordered slice waits at: with --hook-json
/// and no TARGET, the transcript the hook payload on stdin names; `None`
/// when the payload's source is not one --hook-source asks for.
fn targets(
    args: &VerbatimArgs,
) -> crate::error::Result<Option<(Vec<String>, Option<hook::Barrier>)>> {
    if !(args.hook_json && args.targets.is_empty()) {
        if !args.hook_source.is_empty() || args.ordered {
            return Err(Error::Usage(
                "--hook-source and --ordered read the hook payload on stdin: use them with --hook-json and no TARGET".into(),
            ));
        }
        return Ok(Some((args.targets.clone(), None)));
    }
    let (raw, Some(t)) = hook::payload(&args.hook_source)? else {
        return Ok(None);
    };
    let mut barrier = None;
    if let (true, Some(n), Some(i)) = (args.ordered, args.slices, args.slice) {
        let wait = std::time::Duration::from_secs(args.order_wait);
        barrier = hook::Barrier::new(&raw, i, n, wait);
    }
    Ok(Some((vec![t], barrier)))
}

/// The one transcript `targets` select, and the home it is under; a lane
/// selected only through its session is refused.
fn transcript(
    args: &VerbatimArgs,
    targets: &[String],
    problems: &Problems,
) -> crate::error::Result<(Transcript, crate::discovery::home::ClaudeHome)> {
    let t = one_transcript(super::select(&args.common, targets, problems)?)?;
    let home = crate::discovery::home::from_env(args.common.claude_home.clone())?;
    if t.is_lane() && !targets.iter().any(|x| names_lane(x, &t)) {
        // `@session` whose main file is missing selects its one lane: rebuilt
        // as the session, a compacted agent would take a subagent's
        // conversation for its own.
        return Err(Error::Target(format!(
            "session {} has no main transcript here, only its lane {}; verbatim rebuilds one conversation, so name the lane to rebuild it: csift verbatim {}",
            crate::output::sanitize::one_line(&t.session_id),
            crate::output::sanitize::one_line(&t.at()),
            crate::output::sanitize::one_line(&t.target_args(&home)),
        )));
    }
    Ok((t, home))
}

/// The budget and windows: N windows of W with --slices (budget N×W unless
/// given), else one window as large as the budget.
fn limits(args: &VerbatimArgs) -> Limits {
    match args.slices {
        Some(n) => Limits {
            windows: n,
            window: args.window,
            budget: args.budget.unwrap_or(n.saturating_mul(args.window)),
        },
        None => {
            let b = args.budget.unwrap_or(DEFAULT_BUDGET);
            Limits {
                windows: 1,
                window: b,
                budget: b,
            }
        }
    }
}

/// What the walk left out at the old end: turns before the oldest kept, or
/// only turn 0 (before the first prompt) when that renders to something.
fn left_out_before(
    choice: &select::Choice,
    src: &[u8],
    idx: &FileIndex,
    opts: &turns::Opts,
) -> Option<usize> {
    let oldest = choice.windows.iter().flatten().map(|p| p.turn.n).min();
    oldest.filter(|&n| {
        n > 1 || (n == 1 && turns::Walker::new(src, idx, opts.clone()).turn_zero_renders())
    })
}

/// What one run kept, as the printers read it.
struct Kept<'a> {
    t: &'a Transcript,
    src: &'a [u8],
    idx: &'a FileIndex,
    lim: Limits,
    prefer: select::Prefer,
    choice: &'a select::Choice,
    /// The windows printed (all, or the one --slice names), numbered from 1.
    shown: &'a [(usize, &'a Vec<Piece>)],
    text: &'a str,
    left_out_before: Option<usize>,
}

/// Why older turns were left out, for the human form's stderr line.
fn why(kept: &Kept<'_>, args: &VerbatimArgs) -> String {
    let lim = &kept.lim;
    match (select::stopped_by(kept.choice), args.max_compactions) {
        (Some("windows"), _) => format!(
            "the {} windows of {} are full; raise --slices or --window",
            lim.windows, lim.window
        ),
        (Some("max-compactions"), Some(m)) => format!(
            "reaches back across more compaction summaries than --max-compactions {m} allows"
        ),
        _ => format!("past the {}-char budget; raise --budget", lim.budget),
    }
}

/// `--hook-json`: the text as SessionStart hook output (nothing when empty),
/// printed after slice i-1 has with --ordered (MISC-013).
fn hook_output(
    out: &mut Out,
    args: &VerbatimArgs,
    barrier: Option<&hook::Barrier>,
    text: &str,
    problems: &Problems,
) -> crate::error::Result<Exit> {
    // Slices print in order: after the one before has (MISC-013).
    if let Some(b) = barrier {
        if !b.wait() {
            problems.note(format_args!(
                "verbatim: slice {} did not print within {} s; printing slice {} anyway",
                args.slice.unwrap_or(1).saturating_sub(1),
                args.order_wait,
                args.slice.unwrap_or(1)
            ));
        }
    }
    if !text.is_empty() {
        out.json(&serde_json::json!({
            "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}
        }))?;
    }
    out.flush()?;
    if let Some(b) = barrier {
        b.done();
    }
    Ok(Exit::from(true, problems.count()))
}
