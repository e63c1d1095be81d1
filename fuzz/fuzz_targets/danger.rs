//! The dangerous-rm classifier over arbitrary command text (BASH-015…017).
//! The invariants live in fuzz/checks.rs, shared with tests/fuzz_regressions.rs.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::danger(data));
