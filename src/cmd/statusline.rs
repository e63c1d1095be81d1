//! `csift statusline`: Claude Code's `statusLine` command. Reads the payload
//! on stdin and prints one line: the model, this session's tokens and cost,
//! today's cost, the active 5-hour block's remaining time and burn rate, the
//! session's open background tasks (the ledger `tasks` prints,
//! [`crate::live::ledger`]), and a warning when audit would report eaten text
//! in this session. Counting is `usage`'s (the engine's [`crate::tokens`]),
//! through the census cache. `--format json` prints the same parts as one
//! object.
//!
//! It runs on every prompt, so it reads only the session's own files and the
//! files modified since a cutoff: the start of today, or earlier when the
//! active block's chain of blocks reaches further back (a message's time is
//! never after its file's modification time, so no file older than the
//! cutoff can hold a message after it). It never fails: any error, panic or
//! unreadable payload gives a minimal line, and the exit status is 0.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::SystemTime;

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;
use serde_json::Value;

use crate::cache::{self, Cache};
use crate::cli::usage::StatuslineArgs;
use crate::discovery::{home, target, Transcript};
use crate::live::ledger;
use crate::output::Format;
use crate::tokens::blocks::{self, BLOCK};
use crate::tokens::fold::{self, Folded};
use crate::tokens::ledger::Msg;
use crate::tokens::pricing::{usd, ModelPrices, Pricer};
use crate::tokens::SYNTHETIC;

use super::Exit;

/// How far back the first pass reads (or to midnight, when earlier).
const LOOKBACK: SignedDuration = SignedDuration::from_hours(12);

/// The payload is a small JSON object; read no more than this.
const MAX_PAYLOAD: u64 = 1 << 20;

pub(crate) fn run(args: &StatuslineArgs) -> Exit {
    let mut input = Vec::new();
    let _ = std::io::stdin().take(MAX_PAYLOAD).read_to_end(&mut input);
    let text = String::from_utf8_lossy(&input);
    let payload: Value =
        serde_json::from_str(text.trim_start_matches('\u{feff}')).unwrap_or(Value::Null);
    // A panic must not reach Claude Code: keep its message off the screen.
    std::panic::set_hook(Box::new(|_| {}));
    let parts = match std::panic::catch_unwind(|| measure(args, &payload)) {
        Ok(Ok(p)) => p,
        Ok(Err(e)) => Parts::minimal(&payload, e.to_string()),
        Err(_) => Parts::minimal(&payload, "internal error".into()),
    };
    let mut out = std::io::stdout().lock();
    let _ = match args.format {
        Format::Human => writeln!(out, "{}", crate::output::sanitize::one_line(&parts.line)),
        Format::Json => crate::output::json_line(&mut out, &parts),
    };
    let _ = out.flush();
    Exit::Found
}

/// What the line shows, part by part (`--format json` prints this).
#[derive(Debug, Serialize)]
struct Parts {
    #[serde(rename = "type")]
    kind: &'static str,
    line: String,
    model: String,
    session_id: Option<String>,
    session_tokens: Option<u64>,
    session_cost_usd: Option<f64>,
    today_cost_usd: Option<f64>,
    /// A model without a price left out of a cost above.
    unpriced: bool,
    block: Option<BlockParts>,
    open_tasks: Option<usize>,
    eaten_text: Option<u64>,
    /// Why the minimal line was printed.
    error: Option<String>,
}

#[derive(Debug, Serialize)]
struct BlockParts {
    remaining_min: i64,
    tokens_per_min: Option<f64>,
}

impl Parts {
    /// What is printed when nothing could be counted.
    fn minimal(p: &Value, why: String) -> Parts {
        Parts {
            kind: "statusline",
            line: minimal(p),
            model: model_name(p),
            session_id: str_at(p, &["session_id"]).map(str::to_string),
            session_tokens: None,
            session_cost_usd: None,
            today_cost_usd: None,
            unpriced: false,
            block: None,
            open_tasks: None,
            eaten_text: None,
            error: Some(why),
        }
    }
}

fn str_at<'v>(v: &'v Value, path: &[&str]) -> Option<&'v str> {
    path.iter()
        .try_fold(v, |v, k| v.get(k))
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

fn model_name(p: &Value) -> String {
    str_at(p, &["model", "display_name"])
        .or_else(|| str_at(p, &["model", "id"]))
        .or_else(|| str_at(p, &["model"]))
        .unwrap_or("Claude")
        .chars()
        .take(40)
        .collect()
}

/// What is printed when nothing could be counted.
fn minimal(p: &Value) -> String {
    let mut s = format!("{} · usage n/a", model_name(p));
    if let Some(c) = p
        .get("cost")
        .and_then(|c| c.get("total_cost_usd"))
        .and_then(Value::as_f64)
        .filter(|c| c.is_finite() && *c >= 0.0)
    {
        s.push_str(&format!(" · session ${c:.2} (Claude Code's)"));
    }
    s
}

/// `12.3M`, `45.6k`, `812`.
fn compact(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{:.1}k", n as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.1}M", n as f64 / 1e6),
        _ => format!("{:.2}B", n as f64 / 1e9),
    }
}

fn dollars(pico: u128, unpriced: bool) -> String {
    format!("${:.2}{}", usd(pico), if unpriced { "+?" } else { "" })
}

/// The session the payload names: its id, and its project folder when its
/// transcript path is known.
struct Session {
    id: String,
    project: Option<PathBuf>,
    path: Option<PathBuf>,
}

fn session(p: &Value) -> Option<Session> {
    let path = str_at(p, &["transcript_path"]).map(home::expand_tilde);
    if let Some(path) = &path {
        let t = target::transcript_from_file(path, 0, None);
        if !t.session_id.is_empty() {
            return Some(Session {
                id: t.session_id,
                project: Some(t.project_dir),
                path: Some(path.clone()),
            });
        }
    }
    let id = str_at(p, &["session_id"])?;
    Some(Session {
        id: id.to_string(),
        project: None,
        path,
    })
}

/// Open background tasks of the session (its main transcript and lanes), as
/// `tasks --open` counts them, each file read through the census cache;
/// `None` when none of its files is known.
fn open_tasks(mine: &[Transcript], cache: &Cache, now: Timestamp) -> Option<usize> {
    if mine.is_empty() {
        return None;
    }
    let (sessions, _) = crate::discovery::session::group(mine, false);
    Some(
        sessions
            .iter()
            .map(|s| ledger::build_cached(s, cache, now).open().count())
            .sum(),
    )
}

fn measure(args: &StatuslineArgs, p: &Value) -> crate::error::Result<Parts> {
    let now = Timestamp::now();
    let home = home::from_env(args.claude_home.clone())?;
    let pricer = Pricer::load(args.pricing.as_deref()).map_err(crate::error::Error::Usage)?;
    let sess = session(p);
    // An unreadable home is said by the minimal line, never shown as $0.00.
    let mut all = target::resolve(&home, &[], true)?.transcripts;
    let mine = |t: &Transcript| {
        sess.as_ref().is_some_and(|s| {
            t.session_id == s.id && s.project.as_ref().is_none_or(|d| *d == t.project_dir)
        })
    };
    // A transcript outside the home is still this session's.
    if let Some(path) = sess.as_ref().and_then(|s| s.path.as_ref()) {
        if path.is_file() && !all.iter().any(|t| t.path == *path) {
            all.push(target::transcript_from_file(path, 0, None));
        }
    }
    let cache = Cache::new(!args.no_cache, cache::state_root(), Some(&home.root));
    let midnight = now
        .to_zoned(crate::timefmt::system_zone())
        .start_of_day()
        .map(|z| z.timestamp())
        .unwrap_or(now);
    let oldest = all.iter().filter_map(|t| t.mtime).min();
    // Twelve hours back reaches a gap before the active block's chain on
    // most days: one pass.
    let mut cutoff = midnight.min(now.checked_sub(LOOKBACK).unwrap_or(now));
    let mine_files: Vec<Transcript> = all.iter().filter(|t| mine(t)).cloned().collect();
    let at = At {
        now,
        midnight,
        session: sess.as_ref().map(|s| s.id.clone()),
        tasks: open_tasks(&mine_files, &cache, now),
    };
    loop {
        // Only messages since the cutoff enter the ledger; the session's
        // files are read whole beside it.
        let reached_all = oldest.is_none_or(|o| o >= system_time(cutoff));
        let files: Vec<(u32, &Transcript, bool)> = all
            .iter()
            .enumerate()
            .filter(|(_, t)| {
                reached_all || mine(t) || t.mtime.is_none_or(|m| m >= system_time(cutoff))
            })
            .map(|(i, t)| (i as u32, t, mine(t)))
            .collect();
        let mut f = Folded::since(cutoff);
        fold::fold_into(&mut f, &files, &cache, true, &|_, _| {});
        let times = times_after(&f, cutoff);
        if let Some(anchor) = anchor(&times, cutoff).or(reached_all.then_some(0)) {
            return Ok(render(p, &f, &pricer, &times[anchor..], &at));
        }
        // The block chain reaches before the cutoff: look twice as far back
        // (at the start of time, every file is read and the loop ends).
        let back = now
            .duration_since(cutoff)
            .max(SignedDuration::from_hours(24));
        cutoff = cutoff.checked_sub(back).unwrap_or(Timestamp::MIN);
    }
}

fn system_time(t: Timestamp) -> SystemTime {
    SystemTime::from(t)
}

/// Times of the real messages at or after `cutoff`, sorted, with the costs
/// and totals the block needs.
fn times_after(f: &Folded, cutoff: Timestamp) -> Vec<(Timestamp, u64)> {
    let mut v: Vec<(Timestamp, u64)> = f
        .messages()
        .filter(|m| f.ledger.model_name(m.model) != SYNTHETIC)
        .filter_map(|m| {
            let t = m.first.filter(|t| *t >= cutoff)?;
            let v = m.vals;
            let total = v.input + v.output + v.cache_read + v.cache_creation;
            Some((t, total))
        })
        .collect();
    v.sort_by_key(|x| x.0);
    v
}

/// The first message from which the blocks are exactly known: more than 5
/// hours after the cutoff (so no unread message can chain into it) and more
/// than 5 hours after the message before it.
fn anchor(times: &[(Timestamp, u64)], cutoff: Timestamp) -> Option<usize> {
    (0..times.len()).find(|&i| {
        let t = times[i].0;
        let prev = if i == 0 { cutoff } else { times[i - 1].0 };
        t.duration_since(cutoff) > BLOCK && t.duration_since(prev) > BLOCK
    })
}

/// When the line is drawn, and what it knows beside the messages.
struct At {
    now: Timestamp,
    midnight: Timestamp,
    /// The payload's session id, when it names one.
    session: Option<String>,
    tasks: Option<usize>,
}

fn render(p: &Value, f: &Folded, pricer: &Pricer, times: &[(Timestamp, u64)], at: &At) -> Parts {
    // Each model's prices looked up once; `<synthetic>` is never counted.
    let prices: Vec<(bool, Option<ModelPrices>)> = (0..f.ledger.models())
        .map(|i| f.ledger.model_name(i))
        .map(|name| (name == SYNTHETIC, pricer.model(name)))
        .collect();
    let cost_of = |m: &Msg| match prices.get(m.model as usize) {
        Some((false, p)) => Some(p.and_then(|p| p.cost(m.first, &m.vals))),
        _ => None,
    };
    let (mut s_tok, mut s_cost, mut s_unpriced) = (0u64, 0u128, false);
    f.marked_messages(&mut |m| {
        let Some(cost) = cost_of(m) else { return };
        let v = m.vals;
        s_tok += v.input + v.output + v.cache_read + v.cache_creation;
        s_cost += cost.unwrap_or(0);
        s_unpriced |= cost.is_none();
    });
    let (mut d_cost, mut d_unpriced) = (0u128, false);
    for m in f
        .messages()
        .filter(|m| m.first.is_some_and(|t| t >= at.midnight))
    {
        let Some(cost) = cost_of(&m) else { continue };
        d_cost += cost.unwrap_or(0);
        d_unpriced |= cost.is_none();
    }
    let block = block(times, at.now);
    let mut parts = vec![model_name(p)];
    if at.session.is_some() {
        parts.push(format!(
            "session {} tok {}",
            compact(s_tok),
            dollars(s_cost, s_unpriced)
        ));
    }
    parts.push(format!("today {}", dollars(d_cost, d_unpriced)));
    parts.push(match &block {
        Some(b) => {
            let left = crate::timefmt::duration(b.remaining_min * 60);
            match b.tokens_per_min {
                Some(r) => format!("block {left} left · {}/min", compact(r.round() as u64)),
                None => format!("block {left} left"),
            }
        }
        None => "no active block".into(),
    });
    if let Some(n) = at.tasks.filter(|n| *n > 0) {
        parts.push(format!("{n} task{}", if n == 1 { "" } else { "s" }));
    }
    if f.eaten_marked > 0 {
        parts.push(format!("⚠ eaten text ×{}", f.eaten_marked));
    }
    let session = at.session.is_some();
    Parts {
        kind: "statusline",
        line: parts.join(" · "),
        model: model_name(p),
        session_id: at.session.clone(),
        session_tokens: session.then_some(s_tok),
        session_cost_usd: session.then_some(usd(s_cost)),
        today_cost_usd: Some(usd(d_cost)),
        unpriced: (session && s_unpriced) || d_unpriced,
        block,
        open_tasks: at.tasks,
        eaten_text: Some(f.eaten_marked),
        error: None,
    }
}

/// The active block's remaining time and burn rate, if a block is active.
fn block(times: &[(Timestamp, u64)], now: Timestamp) -> Option<BlockParts> {
    let at: Vec<Timestamp> = times.iter().map(|x| x.0).collect();
    let span = blocks::spans(&at).pop().filter(|s| s.active(now))?;
    let tokens: u64 = times[span.from..span.to].iter().map(|x| x.1).sum();
    let pr = blocks::progress(&span, now, tokens, None);
    Some(BlockParts {
        remaining_min: pr.remaining_min,
        tokens_per_min: pr.tokens_per_min,
    })
}

#[cfg(test)]
mod tests;
