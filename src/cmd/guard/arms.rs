//! The two hook arms over one session's state.
//!
//! Post (PostToolUse): deliver new eaten-text ids plus the Stop arm's carryover
//! to the model through exit 2 + stderr (a PostToolUse exit 2 cannot block; its
//! stderr is fed to the model mid-turn), and remember them as surfaced.
//! Stop: surfaced ids of this prompt must be covered by a `[recovered: N]`
//! footer in the last 300 characters of the final message; if not, block the
//! stop (exit 2) at most [`MAX_CONSEC`] times in a row. Everything the post arm
//! could not see (writer lag, an eaten final response) and surfaced ids of an
//! earlier prompt whose Stop never ran are collected silently for the next post
//! fire. State is saved before any block decision, so nothing is flagged twice.

use std::path::Path;

use serde_json::json;

use super::state::{dedupe, keep_last, log_event, State, Surfaced, PENDING_CAP};
use super::Failure;

/// Consecutive footer blocks before the guard gives up (ids are kept): the
/// report blocks "once", bounded by a counter that resets on any Stop fire
/// without a footer failure (the harness has its own cap of 8).
pub(crate) const MAX_CONSEC: u32 = 1;
/// The footer is looked for only in the message tail, so a footer quoted
/// mid-prose cannot clear ids.
pub(crate) const MARKER_TAIL: usize = 300;

/// What one fire knows beyond the state.
pub(crate) struct Fire<'a> {
    pub(crate) dir: &'a Path,
    pub(crate) session: &'a str,
    pub(crate) prompt_id: &'a str,
    pub(crate) hits: Vec<String>,
    pub(crate) last_message: Option<String>,
}

/// `..<last 8 of mid> HH:MM` for each `mid@HH:MM:SS`.
pub(crate) fn short_ids(ids: &[String]) -> String {
    ids.iter()
        .map(|h| {
            let (mid, ts) = h.split_once('@').unwrap_or((h, ""));
            let tail: String = {
                let c: Vec<char> = mid.chars().collect();
                c[c.len().saturating_sub(8)..].iter().collect()
            };
            let hm: String = ts.chars().take(5).collect();
            if hm.is_empty() {
                format!("..{tail}")
            } else {
                format!("..{tail} {hm}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The largest N of `[recovered: N` in the last [`MARKER_TAIL`] characters.
pub(crate) fn marker_count(text: &str) -> u64 {
    let re = crate::scan::re!(r"\[recovered:\s*(\d+)");
    let n = text.chars().count();
    let tail: String = text.chars().skip(n.saturating_sub(MARKER_TAIL)).collect();
    re.captures_iter(&tail)
        .filter_map(|c| c.get(1))
        .map(|m| m.as_str().parse::<u64>().unwrap_or(u64::MAX))
        .max()
        .unwrap_or(0)
}

/// A message for the model on stderr (a hook's exit-2 channel), cleaned; a
/// closed stderr does not change the exit status.
fn say(msg: &str) {
    crate::output::to_stderr(&crate::output::sanitize::clean(msg));
}

/// Post arm. Returns the exit code and saves `state` to `path`.
pub(crate) fn post(mut st: State, fire: Fire<'_>, path: &Path) -> Result<u8, Failure> {
    let deliver = dedupe(
        st.carryover
            .iter()
            .cloned()
            .chain(fire.hits.iter().cloned()),
    );
    let carried = std::mem::take(&mut st.carryover);
    for id in &deliver {
        if !st.surfaced.iter().any(|e| &e.id == id) {
            st.surfaced.push(Surfaced {
                id: id.clone(),
                prompt: fire.prompt_id.to_string(),
            });
        }
    }
    let evicted = keep_last(&mut st.surfaced, PENDING_CAP);
    if !evicted.is_empty() {
        let ids: Vec<&str> = evicted.iter().map(|e| e.id.as_str()).collect();
        log_event(fire.dir, fire.session, "evicted", json!({ "ids": ids }));
    }
    st.save(path)?;
    if deliver.is_empty() {
        return Ok(0);
    }
    let turn_total = st
        .surfaced
        .iter()
        .filter(|e| fire.prompt_id.is_empty() || e.prompt == fire.prompt_id)
        .count();
    log_event(
        fire.dir,
        fire.session,
        "surface",
        json!({"ids": deliver, "carried": carried, "prompt": fire.prompt_id, "offset": st.offset}),
    );
    let carried_note = if carried.is_empty() {
        String::new()
    } else {
        format!(
            " {} of these surfaced at a turn boundary and may belong to the previous turn; \
             if a text is no longer in your context, say so in one line - never reconstruct or invent.",
            carried.len()
        )
    };
    // The hook's message to the model; ids are transcript text, so cleaned.
    say(&format!(
        "[eaten-text] {} mid-turn text(s) not persisted to the transcript: {}. Weave their \
         substance into your final message where it naturally belongs, then end that message \
         with the footer '[recovered: {turn_total}]' (inline is fine).{carried_note}",
        deliver.len(),
        short_ids(&deliver)
    ));
    Ok(2)
}

/// Stop arm. Returns the exit code and saves `state` to `path`.
pub(crate) fn stop(mut st: State, fire: Fire<'_>, path: &Path) -> Result<u8, Failure> {
    let (current, stale): (Vec<Surfaced>, Vec<Surfaced>) = std::mem::take(&mut st.surfaced)
        .into_iter()
        .partition(|e| fire.prompt_id.is_empty() || e.prompt == fire.prompt_id);
    let mut carry_all = dedupe(
        std::mem::take(&mut st.carryover)
            .into_iter()
            .chain(stale.iter().map(|e| e.id.clone()))
            .chain(fire.hits.iter().cloned()),
    );
    let evicted = keep_last(&mut carry_all, PENDING_CAP);
    if !evicted.is_empty() {
        log_event(fire.dir, fire.session, "evicted", json!({ "ids": evicted }));
    }
    if !fire.hits.is_empty() || !stale.is_empty() {
        log_event(
            fire.dir,
            fire.session,
            "carryover",
            json!({"ids": carry_all, "offset": st.offset}),
        );
    }
    let ids: Vec<String> = current.iter().map(|e| e.id.clone()).collect();
    let mut failed = false;
    let mut kept = Vec::new();
    if !current.is_empty() {
        match fire.last_message.as_deref().filter(|t| !t.is_empty()) {
            None => {
                // Cannot verify: keep the ids, never block on missing data.
                log_event(
                    fire.dir,
                    fire.session,
                    "marker-unverifiable",
                    json!({ "ids": ids }),
                );
                kept = current;
            }
            Some(text) if marker_count(text) >= current.len() as u64 => {
                log_event(
                    fire.dir,
                    fire.session,
                    "marker-ok",
                    json!({"ids": ids, "prompt": fire.prompt_id}),
                );
            }
            Some(_) => {
                failed = true;
                kept = current;
            }
        }
    }
    let consec = if failed { st.consec_blocks } else { 0 };
    let block = failed && consec < MAX_CONSEC;
    st.consec_blocks = if block { consec + 1 } else { consec };
    st.carryover = carry_all;
    st.surfaced = kept;
    // Saved before deciding: the same records are never flagged twice.
    st.save(path)?;
    if !failed {
        return Ok(0);
    }
    log_event(
        fire.dir,
        fire.session,
        "footer-block",
        json!({"ids": ids, "capped": !block}),
    );
    if !block {
        return Ok(0);
    }
    say(&format!(
        "[eaten-text guard] {n} text(s) were surfaced to you mid-turn ({}) but the final message \
         lacks a covering '[recovered: N]' footer. Send a message confirming their substance is \
         woven in (weaving it now if not), ending with '[recovered: {n}]' (inline is fine). \
         Never reconstruct text you no longer have. No tool calls.",
        short_ids(&ids),
        n = ids.len()
    ));
    Ok(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footer_is_tail_scoped_and_takes_the_max() {
        assert_eq!(marker_count("done. [recovered: 2]"), 2);
        assert_eq!(marker_count("[recovered:3] and [recovered: 1]"), 3);
        assert_eq!(marker_count("no footer"), 0);
        let early = format!("[recovered: 5]{}", "x".repeat(400));
        assert_eq!(marker_count(&early), 0);
        assert_eq!(
            marker_count("[recovered: 99999999999999999999999]"),
            u64::MAX
        );
    }

    #[test]
    fn short_ids_render() {
        let ids = vec![
            "msg_01ABCDEFGHoxt4w3S9@14:03:07".to_string(),
            "x".to_string(),
        ];
        assert_eq!(short_ids(&ids), "..oxt4w3S9 14:03, ..x");
    }
}
