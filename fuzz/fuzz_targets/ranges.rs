//! The `show --line/--turn` range parsers and their resolution.
//! The invariants live in fuzz/checks.rs, shared with tests/fuzz_regressions.rs.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::ranges(data));
