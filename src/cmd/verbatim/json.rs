//! `verbatim --format json`: one row per kept turn printed, oldest first, then
//! the summary of what was kept, what was left out and why.

use std::time::Instant;

use serde::Serialize;

use super::{pack, select, Kept, Problems};
use crate::cli::verbatim::VerbatimArgs;
use crate::output::Out;

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

/// `--format json`: one row per kept turn printed, oldest first, then the summary.
pub(super) fn json(
    out: &mut Out,
    args: &VerbatimArgs,
    kept: &Kept<'_>,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<()> {
    for (i, w) in kept.shown {
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
                summary_carried: kept
                    .choice
                    .carried
                    .get(&p.turn.n)
                    .map(|f| (f * 100.0).round() / 100.0),
                text: &p.turn.text,
            })?;
        }
    }
    // What was printed: with --slice, that slice (slices_used counts all).
    let all = kept.shown.iter().flat_map(|(_, w)| w.iter());
    let t = kept.t;
    out.json(&Summary {
        kind: "summary",
        file: t.path.display().to_string(),
        session_id: &t.session_id,
        agent_id: t.agent_id.as_deref(),
        turns: all.clone().count(),
        turns_total: kept.idx.turns(),
        chars: pack::units(kept.text),
        budget: kept.lim.budget,
        slices: args.slices,
        window: args.slices.map(|_| args.window),
        slices_used: kept.choice.windows.len(),
        compaction_summaries_spanned: all.map(|p| p.turn.summaries.len()).sum(),
        // Either spacing (REC-038).
        compaction_summaries_total: crate::scan::pair::keys_valued(
            kept.src,
            crate::scan::lit!(b"\"isCompactSummary\""),
            b"true",
        )
        .count(),
        max_compactions: args.max_compactions,
        prefer: match kept.prefer {
            select::Prefer::Newest => "newest",
            select::Prefer::LeastCarried => "least-carried",
        },
        stopped_by: select::stopped_by(kept.choice),
        turns_skipped: &kept.choice.skipped,
        left_out_before: kept.left_out_before,
        errors: problems.count(),
        elapsed_ms: started.elapsed().as_millis(),
    })?;
    Ok(())
}
