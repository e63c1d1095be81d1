//! Which turns a reconstruction keeps. By default the newest, walking back
//! until a turn does not fit ([`pack`]). `--max-compactions N` ends the walk
//! before a turn that would take it back across more than N compaction
//! summaries: a summary is a turn member, so the walk passes through them
//! unless capped (CMP-011). `--prefer least-carried` spends the budget on the
//! turns the compaction summaries carried least of ([`carried`], CMP-009):
//! turns are taken by their carried share, least first (newest first among
//! equals, so turns after the newest summary, which none carried, lead), each
//! while it fits whole; the kept ones are then packed as the newest are. The
//! stderr lines saying what was left out, and why, are written here too.

use std::collections::HashMap;

use super::carried::Tracker;
use super::pack::{self, units, Limits, Piece, Stop, Turn};
use super::turns::{Opts, Walker};
use crate::classify::FileIndex;
use crate::cmd::Problems;

/// `--prefer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prefer {
    Newest,
    LeastCarried,
}

/// What [`choose`] kept, and why it stopped.
pub(crate) struct Choice {
    /// Windows oldest first, each window's pieces oldest first.
    pub(crate) windows: Vec<Vec<Piece>>,
    pub(crate) stop: Stop,
    /// The compaction cap ended the walk (turns older than the kept ones
    /// would have fitted otherwise, or were not tried).
    pub(crate) capped: bool,
    /// Each turn seen (kept ones included): the share of it the compaction
    /// summary covering it carried; absent where none covers it.
    pub(crate) carried: HashMap<usize, f64>,
    /// With `least-carried`: the turns with text that were not kept.
    pub(crate) skipped: Vec<usize>,
}

/// Choose and pack the turns of `buf` under `lim`.
pub(crate) fn choose(
    buf: &[u8],
    idx: &FileIndex,
    opts: &Opts,
    lim: Limits,
    max_compactions: Option<usize>,
    prefer: Prefer,
) -> Choice {
    let mut tracker = Tracker::default();
    let mut carried = HashMap::new();
    let mut crossed = 0;
    let mut capped = false;
    let walk = Walker::new(buf, idx, opts.clone())
        .take_while(|t| {
            crossed += t.summaries.len();
            let ok = max_compactions.is_none_or(|m| crossed <= m);
            capped |= !ok;
            ok
        })
        .inspect(|t| {
            if let Some(f) = tracker.see(t) {
                carried.insert(t.n, f);
            }
        });
    if prefer == Prefer::Newest {
        let (windows, stop) = pack::select_why(walk, lim);
        return Choice {
            windows,
            stop,
            capped,
            carried,
            skipped: Vec::new(),
        };
    }
    let (windows, stop, skipped) = least_carried(walk.collect(), &carried, lim);
    Choice {
        windows,
        stop,
        capped,
        carried,
        skipped,
    }
}

/// `--prefer least-carried`: the turns of `all` (newest first) taken by their
/// carried share, least first, each while it fits whole, then packed as the
/// newest are. Returns the windows, why packing stopped, and the turns with
/// text not kept. When no turn fits whole, the newest is kept cut to fit, as
/// without --prefer.
fn least_carried(
    all: Vec<Turn>,
    carried: &HashMap<usize, f64>,
    lim: Limits,
) -> (Vec<Vec<Piece>>, Stop, Vec<usize>) {
    let share = |t: &Turn| carried.get(&t.n).copied().unwrap_or(0.0);
    let mut order: Vec<usize> = (0..all.len())
        .filter(|&i| !all[i].text.is_empty())
        .collect();
    // `all` is newest first: among equal shares the newer turn leads.
    order.sort_by(|&a, &b| share(&all[a]).total_cmp(&share(&all[b])).then(a.cmp(&b)));
    let mut keep = vec![false; all.len()];
    let mut used = 0;
    for i in order {
        let n = units(&all[i].text);
        if used + n <= lim.budget {
            keep[i] = true;
            used += n;
        }
    }
    if !keep.iter().any(|k| *k) {
        let (windows, stop) = pack::select_why(all.into_iter(), lim);
        return (windows, stop, Vec::new());
    }
    let skipped: Vec<usize> = all
        .iter()
        .zip(&keep)
        .filter(|(t, k)| !**k && !t.text.is_empty())
        .map(|(t, _)| t.n)
        .collect();
    let kept = all
        .into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(t, _)| t);
    let (windows, stop) = pack::select_why(kept, lim);
    let stop = match stop {
        Stop::End if !skipped.is_empty() => Stop::Budget,
        s => s,
    };
    (windows, stop, skipped)
}

/// `stopped_by`: what left turns out, if anything did.
pub(crate) fn stopped_by(c: &Choice) -> Option<&'static str> {
    match c.stop {
        Stop::Windows => Some("windows"),
        Stop::Budget => Some("budget"),
        Stop::End if c.capped => Some("max-compactions"),
        Stop::End => None,
    }
}

/// The stderr lines that say which turns were left out, and why (so the text
/// stays within its budget and the slices still join up exactly). `before` is
/// the summary's `left_out_before`.
pub(crate) fn left_out_notes(
    problems: &Problems,
    c: &Choice,
    before: Option<usize>,
    total: usize,
    lim: &Limits,
    why: &str,
) {
    let kept = c.windows.iter().flatten().count();
    if kept == 0 && total > 0 {
        match c.capped {
            true => problems.note(format_args!(
                "verbatim: no turn of {total} kept: the newest {why}"
            )),
            false => problems.note(format_args!(
                "verbatim: no turn of {total} fits the {}-char budget, not even cut; raise --budget",
                lim.budget
            )),
        }
        return;
    }
    if !c.skipped.is_empty() {
        let shown: Vec<String> = c
            .skipped
            .iter()
            .rev()
            .take(20)
            .map(usize::to_string)
            .collect();
        let more = match c.skipped.len() {
            n if n > 20 => format!(" and {} more", n - 20),
            _ => String::new(),
        };
        problems.note(format_args!(
            "verbatim: {kept} of {total} turns kept, those the compaction summaries carried least of; turns {}{more} left out ({why})",
            shown.join(", ")
        ));
        return;
    }
    // The cap names what the turn would do; the budget and windows, that it
    // does not fit.
    let because = |n: usize| match c.capped && c.stop == Stop::End {
        true => format!("turn {n} {why}"),
        false => format!("turn {n} does not fit: {why}"),
    };
    match before {
        Some(1) => problems.note(format_args!(
            "verbatim: turns 1–{total} of {total} kept; what came before the first prompt (turn 0) left out ({})",
            match c.capped && c.stop == Stop::End {
                true => format!("it {why}"),
                false => format!("it does not fit: {why}"),
            }
        )),
        Some(n) => problems.note(format_args!(
            "verbatim: turns {n}–{total} of {total} kept; turns before {n} left out ({})",
            because(n - 1)
        )),
        None => {}
    }
}
