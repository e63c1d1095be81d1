//! `csift verbatim`: rebuild the recent conversation of one transcript as whole
//! turns, newest kept first and printed oldest first, within a character budget
//! or packed into hook-sized slices ([`pack`]); the turns are rendered by
//! [`turns`]. `--hook-json` wraps the text as SessionStart hook output (ELI-021).

pub(crate) mod carried;
pub(crate) mod fit;
pub(crate) mod hook;
pub(crate) mod pack;
pub(crate) mod select;
pub(crate) mod turns;

use std::io::Write;
use std::time::Instant;

use serde::Serialize;

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

#[derive(Serialize)]
struct TurnRow<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    turn: usize,
    first_line: usize,
    last_line: usize,
    chars: usize,
    cut: bool,
    /// Characters of the turn's text the cut left out (0 when whole).
    cut_chars: usize,
    slice: Option<usize>,
    compaction_summaries: &'a [usize],
    /// The share of the turn the compaction summary covering it carried
    /// (CMP-009), two decimals; null where no summary covers it.
    summary_carried: Option<f64>,
    text: &'a str,
}

#[derive(Serialize)]
struct Summary<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    file: String,
    session_id: &'a str,
    agent_id: Option<&'a str>,
    turns: usize,
    turns_total: usize,
    chars: usize,
    budget: usize,
    slices: Option<usize>,
    window: Option<usize>,
    slices_used: usize,
    compaction_summaries_spanned: usize,
    compaction_summaries_total: usize,
    max_compactions: Option<usize>,
    prefer: &'static str,
    /// What left older (or, with least-carried, other) turns out: `budget`,
    /// `windows` or `max-compactions`; null when nothing was.
    stopped_by: Option<&'static str>,
    /// With `--prefer least-carried`: the turns with text not kept.
    turns_skipped: &'a [usize],
    /// The oldest turn kept, when older content was left out (turns before
    /// it, or turn 0, what came before the first prompt); else null.
    left_out_before: Option<usize>,
    /// Files or targets that could not be read (said on stderr; exit 2).
    errors: usize,
    elapsed_ms: u128,
}

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
    let mut barrier = None;
    let targets = match (args.hook_json, args.targets.is_empty()) {
        (true, true) => match hook::payload(&args.hook_source)? {
            (raw, Some(t)) => {
                if let (true, Some(n), Some(i)) = (args.ordered, args.slices, args.slice) {
                    let wait = std::time::Duration::from_secs(args.order_wait);
                    barrier = hook::Barrier::new(&raw, i, n, wait);
                }
                vec![t]
            }
            // Another source started the session: nothing to inject.
            (_, None) => return Ok(Exit::Found),
        },
        _ if !args.hook_source.is_empty() || args.ordered => {
            return Err(Error::Usage(
                "--hook-source and --ordered read the hook payload on stdin: use them with --hook-json and no TARGET".into(),
            ))
        }
        _ => args.targets.clone(),
    };
    let t = one_transcript(super::select(&args.common, &targets, problems)?)?;
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
    // ELI-025: a slice beyond the fleet prints nothing and succeeds (JSON
    // still ends with its summary, which says no turn was printed).
    if let (Some(n), Some(i)) = (args.slices, args.slice) {
        if (i == 0 || i > n) && args.common.format != Format::Json {
            return Ok(Exit::Found);
        }
    }
    let lim = match args.slices {
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
    };
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
    let windows = &choice.windows;
    let stopped_by = select::stopped_by(&choice);
    // Why older turns were left out, for the human form's stderr line.
    let why = match (stopped_by, args.max_compactions) {
        (Some("windows"), _) => format!(
            "the {} windows of {} are full; raise --slices or --window",
            lim.windows, lim.window
        ),
        (Some("max-compactions"), Some(m)) => format!(
            "reaches back across more compaction summaries than --max-compactions {m} allows"
        ),
        _ => format!("past the {}-char budget; raise --budget", lim.budget),
    };
    let shown: Vec<(usize, &Vec<Piece>)> = windows
        .iter()
        .enumerate()
        .map(|(i, w)| (i + 1, w))
        .filter(|(i, _)| args.slice.is_none_or(|s| s == *i))
        .collect();
    let text: String = shown.iter().map(|(_, w)| pack::text(w)).collect();
    // What the walk left out at the old end: turns before the oldest kept, or
    // only turn 0 (before the first prompt) when that renders to something.
    let oldest = windows.iter().flatten().map(|p| p.turn.n).min();
    let left_out_before = oldest.filter(|&n| {
        n > 1 || (n == 1 && turns::Walker::new(&src, &idx, opts.clone()).turn_zero_renders())
    });
    // A file cut while mapped read zeros past the cut: nothing of it is trusted.
    src.check()?;

    if args.hook_json {
        // Slices print in order: after the one before has (MISC-013).
        if let Some(b) = &barrier {
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
        if let Some(b) = &barrier {
            b.done();
        }
        return Ok(Exit::from(true, problems.count()));
    }
    match args.common.format {
        Format::Human => {
            out.write_all(text.as_bytes())?;
            if args.slice.is_none() {
                select::left_out_notes(problems, &choice, left_out_before, idx.turns(), &lim, &why);
            }
        }
        Format::Json => {
            for (i, w) in &shown {
                for p in w.iter() {
                    out.json(&TurnRow {
                        kind: "turn",
                        turn: p.turn.n,
                        first_line: p.turn.first_line,
                        last_line: p.turn.last_line,
                        chars: pack::units(&p.turn.text),
                        cut: p.cut,
                        cut_chars: p.omitted,
                        slice: args.slices.map(|_| *i),
                        compaction_summaries: &p.turn.summaries,
                        summary_carried: choice
                            .carried
                            .get(&p.turn.n)
                            .map(|f| (f * 100.0).round() / 100.0),
                        text: &p.turn.text,
                    })?;
                }
            }
            // What was printed: with --slice, that slice (slices_used counts all).
            let all = shown.iter().flat_map(|(_, w)| w.iter());
            out.json(&Summary {
                kind: "summary",
                file: t.path.display().to_string(),
                session_id: &t.session_id,
                agent_id: t.agent_id.as_deref(),
                turns: all.clone().count(),
                turns_total: idx.turns(),
                chars: pack::units(&text),
                budget: lim.budget,
                slices: args.slices,
                window: args.slices.map(|_| args.window),
                slices_used: windows.len(),
                compaction_summaries_spanned: all.map(|p| p.turn.summaries.len()).sum(),
                // Either spacing (REC-038).
                compaction_summaries_total: crate::scan::pair::keys_valued(
                    &src,
                    crate::scan::lit!(b"\"isCompactSummary\""),
                    b"true",
                )
                .count(),
                max_compactions: args.max_compactions,
                prefer: match prefer {
                    select::Prefer::Newest => "newest",
                    select::Prefer::LeastCarried => "least-carried",
                },
                stopped_by,
                turns_skipped: &choice.skipped,
                left_out_before,
                errors: problems.count(),
                elapsed_ms: started.elapsed().as_millis(),
            })?;
        }
    }
    let sliced_empty = args.slice.is_some();
    Ok(Exit::from(
        !text.is_empty() || sliced_empty,
        problems.count(),
    ))
}
