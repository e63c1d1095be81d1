//! Teammates (SUB-012…015, SUB-017, SUB-020): name and team, messages counted in
//! both directions with control signals told apart from prose (CLS-011), and
//! whether the teammate was shut down. A teammate's work returns as
//! `<teammate-message>` records, never through its spawn's tool_result (SUB-015).

use std::collections::BTreeMap;

use super::facts::{FileFacts, Spawn};
use super::row::{Teammate, TEAMMATE_HINT};
use super::sidecar::Meta;

/// The teammate block of lane `id`. Messages the lane itself records are not
/// counted as traffic to or from it (its own copy of what it sent or got).
pub(crate) fn row(files: &[FileFacts], id: &str, meta: &Meta, spawn: Option<&Spawn>) -> Teammate {
    let name = meta
        .name
        .clone()
        .or_else(|| spawn.and_then(|s| s.input.name.clone()));
    let team = meta
        .team_name
        .clone()
        .or_else(|| spawn.and_then(|s| s.input.team_name.clone()));
    let mut t = Teammate {
        name: name.clone(),
        team_name: team,
        control_hint: TEAMMATE_HINT,
        ..Teammate::default()
    };
    let Some(name) = name else { return t };
    let mut sig_in: BTreeMap<String, usize> = BTreeMap::new();
    let mut sig_out: BTreeMap<String, usize> = BTreeMap::new();
    for f in files.iter().filter(|f| f.lane != id) {
        for s in f.sends.iter().filter(|s| s.to == name) {
            t.messages_in += 1;
            if let Some(k) = &s.signal {
                *sig_in.entry(k.clone()).or_default() += 1;
            }
        }
        for (_, sender, sig) in f
            .teammate_msgs
            .iter()
            .filter(|(_, sender, _)| *sender == name)
        {
            let _ = sender;
            t.messages_out += 1;
            if let Some(k) = sig {
                *sig_out.entry(k.clone()).or_default() += 1;
            }
        }
    }
    t.terminated =
        sig_out.contains_key("teammate_terminated") || sig_out.contains_key("shutdown_approved");
    t.signals_in = sig_in.into_iter().collect();
    t.signals_out = sig_out.into_iter().collect();
    t
}
