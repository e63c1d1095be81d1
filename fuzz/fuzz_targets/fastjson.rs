//! The record parse's fast reader against serde_json.
//! The invariants live in fuzz/checks.rs, shared with tests/fuzz_regressions.rs.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::fastjson(data));
