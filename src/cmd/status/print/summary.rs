//! The run's summary: how many sessions each verdict holds, the registry's
//! state, and the footer line that says it.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::Instant;

use serde::Serialize;

use crate::live::registry::Registry;
use crate::live::session::SessionStatus;
use crate::live::verdict::Verdict;
use crate::output::sanitize::path;
use crate::output::Style;

/// The run's summary.
#[derive(Serialize)]
pub(crate) struct Summary {
    #[serde(rename = "type")]
    kind: &'static str,
    sessions: usize,
    shown: usize,
    verdicts: BTreeMap<&'static str, usize>,
    window: String,
    registry: RegistrySummary,
    notes: Vec<String>,
    errors: usize,
    elapsed_ms: u128,
}

#[derive(Serialize)]
struct RegistrySummary {
    present: bool,
    dir: String,
    skipped: usize,
}

impl Summary {
    pub(crate) fn of(
        judged: &[SessionStatus],
        window: &str,
        registry: &Registry,
        notes: Vec<String>,
        errors: usize,
        started: Instant,
    ) -> Summary {
        let mut verdicts = BTreeMap::new();
        for s in judged {
            *verdicts.entry(s.assessment.verdict.name()).or_insert(0) += 1;
        }
        Summary {
            kind: "summary",
            sessions: judged.len(),
            shown: judged.len(),
            verdicts,
            window: window.to_string(),
            registry: RegistrySummary {
                present: registry.present,
                dir: path(&registry.dir),
                skipped: registry.skipped.len(),
            },
            notes,
            errors,
            elapsed_ms: started.elapsed().as_millis(),
        }
    }
}

/// The human footer: counts by verdict and the window.
pub(crate) fn footer<W: Write>(w: &mut W, st: Style, s: &Summary) -> io::Result<()> {
    let by: Vec<String> = Verdict::ALL
        .iter()
        .filter_map(|v| {
            s.verdicts
                .get(v.name())
                .map(|n| format!("{n} {}", v.name()))
        })
        .collect();
    let what = if s.sessions == 0 {
        format!(
            "no session active ({}); --all shows every session",
            s.window
        )
    } else {
        format!(
            "{} session(s) ({}): {}",
            s.sessions,
            s.window,
            by.join(", ")
        )
    };
    writeln!(w, "{}{what} · {} ms{}", st.dim, s.elapsed_ms, st.reset)
}
