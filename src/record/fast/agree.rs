//! The fast reader checked against serde_json on one text, for the fuzz
//! target `fastjson` and its regressions (fuzz/checks.rs): the same record,
//! the same refusals, the same grammar verdict.

use serde::de;

use super::{record, valid};
use crate::record::{echo, Record};

/// The fast reader's record and serde_json's for `text`, as their `Debug`
/// forms, with `toolUseResult` read as `parse_line` reads it (fused) or not.
pub(super) fn both(text: &str, fused: bool) -> (Option<String>, Option<String>) {
    let run = || {
        let fast = record(text).map(|r| format!("{r:?}"));
        let serde = serde_json::from_str::<Record<'_>>(text).ok();
        (fast, serde.map(|r| format!("{r:?}")))
    };
    if fused {
        echo::fused(run)
    } else {
        run()
    }
}

/// Where the fast reader reads a record, it is serde_json's, plain and
/// fused; where serde_json refuses the text, it declines; its grammar check
/// accepts what serde_json's skip accepts, declining only past 128
/// containers. `Err` says what differed.
#[doc(hidden)]
pub fn agrees_with_serde(text: &str) -> Result<(), String> {
    for fused in [false, true] {
        let (fast, serde) = both(text, fused);
        match (fast, serde) {
            (Some(f), Some(s)) if f != s => return Err(format!("fused {fused}: {f} != {s}")),
            (Some(_), None) => return Err(format!("fused {fused}: read what serde refuses")),
            _ => {}
        }
    }
    let serde_valid = serde_json::from_str::<de::IgnoredAny>(text).is_ok();
    let deep = max_depth(text.as_bytes()) > 128;
    match (valid(text), serde_valid) {
        (true, false) => Err("valid where serde refuses".into()),
        (false, true) if !deep => Err("refused where serde accepts".into()),
        _ => Ok(()),
    }
}

/// The deepest nesting of containers in `b`, brackets inside strings not
/// counted (for [`agrees_with_serde`]).
fn max_depth(b: &[u8]) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0, false, false);
    for &c in b {
        match (in_str, esc, c) {
            (true, true, _) => esc = false,
            (true, false, b'\\') => esc = true,
            (true, false, b'"') => in_str = false,
            (true, ..) => {}
            (false, _, b'"') => in_str = true,
            (false, _, b'[' | b'{') => {
                depth += 1;
                max = max.max(depth);
            }
            (false, _, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}
