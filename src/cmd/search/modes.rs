//! The output modes of `csift search`, one function each ([`super::config::Mode`]):
//! the files with hits (`-c`, `-l`), the matched lines as read (`--raw`), a
//! table of hits per key (`--count-by`), and the hits as complete exchanges.
//! Each returns (exchanges or lines printed, left out) for the summary.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;

use super::config::Resolved;
use super::file::FileResult;
use super::hit::{self, Hit};
use super::print;
use crate::cli::search::CountBy;
use crate::cmd::Problems;
use crate::discovery::Transcript;
use crate::error::Result;
use crate::output::{Format, Out};
use crate::timefmt;

/// `-c` (`count`) and `-l`: one line per file with hits, its path and, with
/// -c, its hit count.
pub(super) fn per_file(
    out: &mut Out,
    cfg: &Resolved,
    transcripts: &[Transcript],
    results: &[FileResult],
    count: bool,
) -> Result<(usize, usize)> {
    for (t, r) in transcripts.iter().zip(results) {
        if r.hits.is_empty() {
            continue;
        }
        match (cfg.format, count) {
            (Format::Json, _) => out.json(&serde_json::json!({
                "type": "count", "session_id": t.session_id, "agent_id": t.agent_id,
                "file": t.path.display().to_string(), "hits": r.hits.len(),
            }))?,
            (Format::Human, true) => writeln!(
                out,
                "{}:{}",
                crate::output::sanitize::path(&t.path),
                r.hits.len()
            )?,
            (Format::Human, false) => writeln!(out, "{}", crate::output::sanitize::path(&t.path))?,
        }
    }
    Ok((0, 0))
}

/// `--count-by KEY`: hits per key, most first (ties by key).
pub(super) fn count_by(
    out: &mut Out,
    cfg: &Resolved,
    transcripts: &[Transcript],
    results: &[FileResult],
    key: CountBy,
) -> Result<(usize, usize)> {
    let mut table: BTreeMap<Option<String>, usize> = BTreeMap::new();
    for (t, r) in transcripts.iter().zip(results) {
        for h in &r.hits {
            *table.entry(count_key(key, t, h)).or_default() += 1;
        }
    }
    let mut rows: Vec<(Option<String>, usize)> = table.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    for (k, n) in &rows {
        match cfg.format {
            // No tool, model, version or time: key null, not a placeholder.
            Format::Json => out.json(&serde_json::json!({"type": "count", "key": k, "hits": n}))?,
            Format::Human => writeln!(
                out,
                "{n:>8}  {}",
                crate::output::sanitize::one_line(k.as_deref().unwrap_or("-"))
            )?,
        }
    }
    Ok((0, 0))
}

/// A hit's row key; `None` when the hit has no such value (printed `-`).
fn count_key(key: CountBy, t: &Transcript, h: &Hit) -> Option<String> {
    let u = &h.unit;
    match key {
        CountBy::Label => Some(u.label.to_string()),
        // A lane's hits count toward the session it belongs to; -c counts per
        // file, lanes apart.
        CountBy::Session => Some(t.session_id.clone()),
        CountBy::Project => Some(t.project_name()),
        CountBy::Tool => u.tool_name.clone(),
        CountBy::Model => u.model.clone(),
        CountBy::Version => u.version.clone(),
        CountBy::Month => u
            .timestamp
            .as_deref()
            .and_then(timefmt::parse_ts)
            .map(|ts| ts.strftime("%Y-%m").to_string()),
        CountBy::Pairing | CountBy::Attachment | CountBy::Result => h.key.clone(),
        // Turns are numbered per file: a lane's are its own.
        CountBy::Turn => u.turn.map(|n| match &t.agent_id {
            Some(a) => format!("{}@{a}:{n}", t.session_id),
            None => format!("{}:{n}", t.session_id),
        }),
    }
}

/// Each hit with its exchange, in path order; an exchange two hits share is
/// printed once (with JSON, each hit is its own line). `-m N` keeps the first
/// N exchanges and says how many more there were.
pub(super) fn exchanges(
    out: &mut Out,
    cfg: &Resolved,
    results: &[FileResult],
    cut: &print::Cut,
) -> Result<(usize, usize)> {
    let (mut exchanges, mut dropped) = (0, 0);
    let mut seen: HashSet<(usize, Vec<hit::UnitKey>)> = HashSet::new();
    for (fi, r) in results.iter().enumerate() {
        // A partner that is a hit of its own is printed as one: marked,
        // with its matches (its own exchange is this one, not printed again).
        let own: HashMap<hit::UnitKey, &hit::UnitOut> =
            r.hits.iter().map(|h| (h.unit.key(), &h.unit)).collect();
        for h in &r.hits {
            let fresh = seen.insert((fi, h.exchange_key()));
            if fresh {
                exchanges += 1;
            }
            if cfg.max_count.is_some_and(|m| exchanges > m) {
                dropped += usize::from(fresh);
                continue;
            }
            match cfg.format {
                Format::Json => print::json_hit(out, h)?,
                Format::Human if fresh => print::exchange(out, h, &own, cut)?,
                Format::Human => {}
            }
        }
    }
    if dropped > 0 && cfg.format == Format::Human {
        let st = out.style;
        writeln!(
            out,
            "{}[… {dropped} more exchanges not shown; raise --max-count]{}",
            st.warn, st.reset
        )?;
    }
    Ok((exchanges, dropped))
}

/// `--raw`: every line holding a hit, as read, in path order; `-m N` keeps the
/// first N lines and says on stderr how many it left out (a trailer in the
/// output would break its JSON Lines). Returns (lines printed, left out).
pub(super) fn raw_lines(
    out: &mut Out,
    cfg: &Resolved,
    transcripts: &[Transcript],
    results: &[FileResult],
    problems: &Problems,
) -> Result<(usize, usize)> {
    let (mut shown, mut dropped, mut lossy) = (0usize, 0usize, 0usize);
    for (t, r) in transcripts.iter().zip(results) {
        for (no, bytes) in &r.raw {
            if cfg.max_count.is_some_and(|m| shown >= m) {
                dropped += 1;
                continue;
            }
            shown += 1;
            match cfg.format {
                Format::Json => {
                    let text = String::from_utf8_lossy(bytes);
                    if let std::borrow::Cow::Owned(_) = text {
                        lossy += 1;
                    }
                    out.json(&serde_json::json!({
                        "type": "raw", "session_id": t.session_id, "agent_id": t.agent_id,
                        "file": t.path.display().to_string(), "line": no, "record": text,
                    }))?
                }
                Format::Human => {
                    out.write_all(bytes)?;
                    out.write_all(b"\n")?;
                }
            }
        }
    }
    if dropped > 0 {
        problems.note(format_args!(
            "{dropped} more matched lines not printed; raise --max-count"
        ));
    }
    if lossy > 0 {
        problems.note(format_args!(
            "{lossy} printed lines hold bytes that are not UTF-8, written as U+FFFD in \"record\"; without --format json the lines are printed as read"
        ));
    }
    Ok((shown, dropped))
}
