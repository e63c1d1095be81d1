//! The end of `csift agents`' output: what was shown, counted over every
//! session's kept lanes, as the human footer or the JSON summary line (as
//! the other commands end theirs).

use std::io::{self, Write};
use std::time::Instant;

use super::row::LaneKind;
use super::session::Tree;
use crate::output::{json_line, Style};

/// What the footer and the JSON summary count over the lanes shown.
struct Tally {
    all: usize,
    shown: usize,
    sessions: usize,
    orphans: usize,
    laneless: usize,
    teammates: bool,
}

fn tally(trees: &[Tree], keeps: &[Vec<bool>]) -> Tally {
    let lanes = trees
        .iter()
        .zip(keeps)
        .flat_map(|(t, k)| t.lanes.iter().zip(k).filter(|(_, k)| **k).map(|(r, _)| r));
    Tally {
        all: trees.iter().map(|t| t.lanes.len()).sum::<usize>(),
        shown: lanes.clone().count(),
        sessions: keeps.iter().filter(|k| k.iter().any(|k| *k)).count(),
        orphans: lanes.clone().filter(|r| r.parent_id.is_none()).count(),
        laneless: lanes.clone().filter(|r| r.path.is_none()).count(),
        teammates: lanes.clone().any(|r| r.kind == LaneKind::Teammate),
    }
}

/// The JSON summary line, as the other commands end theirs.
pub(crate) fn json_summary<W: Write>(
    w: &mut W,
    trees: &[Tree],
    keeps: &[Vec<bool>],
    errors: usize,
    started: Instant,
) -> io::Result<()> {
    #[derive(serde::Serialize)]
    struct Summary {
        #[serde(rename = "type")]
        kind: &'static str,
        sessions: usize,
        lanes: usize,
        shown: usize,
        dropped: usize,
        orphans: usize,
        lane_less_spawns: usize,
        errors: usize,
        elapsed_ms: u128,
    }
    let t = tally(trees, keeps);
    json_line(
        w,
        &Summary {
            kind: "summary",
            sessions: t.sessions,
            lanes: t.all,
            shown: t.shown,
            dropped: t.all - t.shown,
            orphans: t.orphans,
            lane_less_spawns: t.laneless,
            errors,
            elapsed_ms: started.elapsed().as_millis(),
        },
    )
}

/// The counts of what was shown (the lanes `keeps` kept), and how many lanes
/// the filters left out.
pub(crate) fn footer<W: Write>(
    w: &mut W,
    st: Style,
    trees: &[Tree],
    keeps: &[Vec<bool>],
    started: Instant,
) -> io::Result<()> {
    let Tally {
        all,
        shown,
        sessions,
        orphans,
        laneless,
        teammates,
    } = tally(trees, keeps);
    if teammates {
        writeln!(
            w,
            "{}teammates: {}{}",
            st.dim,
            super::row::TEAMMATE_HINT,
            st.reset
        )?;
    }
    let left_out = match all - shown {
        0 => String::new(),
        n => format!(" ({n} left out by --kind/--depth/--since/--until)"),
    };
    writeln!(
        w,
        "{}{shown} lanes shown in {sessions} sessions{left_out} · {orphans} orphans · {laneless} spawns without a lane file · {} ms{}",
        st.dim,
        started.elapsed().as_millis(),
        st.reset
    )
}
