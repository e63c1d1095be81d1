//! The one integration-test binary: every suite is a module here, so the
//! library links once, not once per suite (as ripgrep and fd do).
//! Shared harnesses: [`common`] (homes, the binary), [`robust`] (the
//! robustness suites' runner), [`checks`] (the fuzz targets' invariants).

#[path = "../fuzz/checks.rs"]
mod checks;
mod common;
mod robust;

mod agents;
mod audit;
mod bounds;
mod census_cache;
mod changing;
mod completions;
mod content;
mod docs;
mod embedded;
mod errors;
mod export;
mod files;
mod fuzz_regressions;
mod guard;
mod hooks;
mod hooks_install;
mod hostile;
mod image;
mod labels;
mod list;
mod list_cache;
mod mcp;
mod pipe;
mod plan;
mod printed;
mod readonly;
mod recover;
mod replay;
mod respaced;
mod search;
mod search_forms;
mod search_input;
mod show;
mod skill;
mod stats;
mod status;
mod statusline;
mod tasks;
mod terminal;
mod unmodelled;
mod usage;
mod verbatim;
mod verbatim_select;
mod wait;
mod windows;
