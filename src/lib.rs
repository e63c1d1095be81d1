//! csift — ripgrep for Claude Code session transcripts.
//!
//! The library is layered the way ripgrep's is: [`discovery`] finds transcripts,
//! [`scan`] frames their lines, [`record`] parses a line lazily, [`classify`] gives
//! each unit its label and turn, the modules under [`cmd`] compute a command's
//! results, and [`output`] prints them. `main.rs` only calls [`run_main`].

pub mod address;
pub mod bash;
pub mod classify;
pub(crate) mod cli;
pub mod cmd;
pub mod discovery;
pub(crate) mod error;
pub(crate) mod exchange;
pub(crate) mod globs;
pub(crate) mod images;
pub(crate) mod lanes;
pub mod loss;
pub mod output;
pub(crate) mod outpath;
pub(crate) mod plan;
pub mod record;
pub(crate) mod render;
pub mod scan;
pub(crate) mod timefmt;

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;

use cli::{Cli, Command};
use cmd::{Exit, Problems};
use output::Out;

/// Parse the command line, run, and map the outcome to ripgrep's exit status.
pub fn run_main() -> ExitCode {
    let args = cli::argv::protect_project_names(std::env::args_os().collect());
    // --print-settings is run by a person, not a hook: its mistakes exit 2.
    let guard =
        args.get(1).is_some_and(|a| a == "guard") && !args.iter().any(|a| a == "--print-settings");
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        // `guard` runs as a Claude Code hook, where exit 2 blocks the session:
        // its help promises 0 on every error, a usage error included.
        Err(e) if guard && e.use_stderr() => {
            let _ = e.print();
            eprintln!("csift guard: not run (exit 0 so the session goes on)");
            return ExitCode::SUCCESS;
        }
        Err(e) => e.exit(),
    };
    match run(cli) {
        Ok(exit) => ExitCode::from(exit.code()),
        Err(e) if output::is_broken_pipe(&e) => ExitCode::from(0),
        Err(e) => {
            // Errors echo targets, patterns and file names: clean them for the terminal.
            eprintln!("csift: {}", output::sanitize::clean(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

/// Run one parsed command line.
pub(crate) fn run(cli: Cli) -> anyhow::Result<Exit> {
    let started = Instant::now();
    let problems = Problems::default();
    match cli.command {
        Command::List(args) => dispatch(args.common.color, |out| {
            cmd::list::run(&args, out, &problems, started)
        }),
        Command::Search(args) => {
            let mut out = Out::stdout(args.common.color);
            let exit = cmd::search::run(&args, &mut out, &problems, started)?;
            out.flush()?;
            Ok(exit)
        }
        Command::Show(args) => dispatch(args.common.color, |out| {
            cmd::show::run(&args, out, &problems, started)
        }),
        Command::Verbatim(args) => dispatch(args.common.color, |out| {
            cmd::verbatim::run(&args, out, &problems, started)
        }),
        Command::Stats(args) => dispatch(args.common.color, |out| {
            cmd::stats::run(&args, out, &problems, started)
        }),
        Command::Agents(args) => dispatch(args.common.color, |out| {
            cmd::agents::run(&args, out, &problems, started)
        }),
        Command::Audit(args) => dispatch(args.common.color, |out| {
            cmd::audit::run(&args, out, &problems, started)
        }),
        Command::Guard(args) => dispatch(args.common.color, |out| {
            cmd::guard::run(&args, out, &problems, started)
        }),
        Command::Plan(args) => dispatch(args.common.color, |out| {
            cmd::plan::run(&args, out, &problems, started)
        }),
        Command::Image(args) => dispatch(args.common.color, |out| {
            cmd::image::run(&args, out, &problems, started)
        }),
        Command::Export(args) => {
            let exit = cmd::export::run(&args, &problems, started)?;
            Ok(exit)
        }
        Command::Whoami(args) => {
            let mut out = Out::stdout(args.common.color);
            let exit = cmd::whoami::run(&args, &mut out)?;
            out.flush()?;
            Ok(exit)
        }
    }
}

/// Run a command against stdout and flush it, so a broken pipe surfaces here.
fn dispatch(
    color: output::ColorChoice,
    f: impl FnOnce(&mut Out) -> anyhow::Result<Exit>,
) -> anyhow::Result<Exit> {
    let mut out = Out::stdout(color);
    let exit = f(&mut out)?;
    out.flush()?;
    Ok(exit)
}
