//! The caseless word finder against the case-insensitive regex.
//! The invariants live in fuzz/checks.rs, shared with tests/fuzz_regressions.rs.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::caseless(data));
