//! The line framer + record parser + file index + classifier over arbitrary bytes.
//! The invariants live in fuzz/checks.rs, shared with tests/fuzz_regressions.rs.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::records(data));
