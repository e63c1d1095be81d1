//! csift — ripgrep for Claude Code session transcripts.
//!
//! The library is layered the way ripgrep's is: [`discovery`] finds transcripts,
//! [`scan`] frames their lines, [`record`] parses a line lazily, [`classify`] gives
//! each unit its label and turn, the modules under [`cmd`] compute a command's
//! results, and [`output`] prints them. `main.rs` only calls [`run_main`].

pub mod address;
pub mod bash;
pub(crate) mod cache;
pub mod classify;
pub(crate) mod cli;
pub mod cmd;
pub mod discovery;
pub(crate) mod elicitation;
pub(crate) mod error;
pub(crate) mod exchange;
pub(crate) mod files;
pub(crate) mod globs;
pub(crate) mod images;
pub(crate) mod lanes;
pub(crate) mod live;
pub mod loss;
pub(crate) mod outpath;
pub mod output;
pub(crate) mod plan;
pub mod record;
pub(crate) mod recover;
pub(crate) mod render;
pub mod scan;
pub(crate) mod timefmt;
pub(crate) mod tokens;

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;

use cli::{Cli, Command};
use cmd::{Exit, Problems};
use output::Out;

/// Parse the command line, run, and map the outcome to ripgrep's exit status.
/// This is the binary edge: the one place an error is printed, by the exit
/// status its type maps to ([`error::Error::exit_code`]).
pub fn run_main() -> ExitCode {
    let args = cli::argv::protect_project_names(std::env::args_os().collect());
    // --print-settings is run by a person, not a hook: its mistakes exit 2.
    let guard =
        args.get(1).is_some_and(|a| a == "guard") && !args.iter().any(|a| a == "--print-settings");
    // The recorder is a hook too: it never blocks a session, bad arguments included.
    let record =
        args.get(1).is_some_and(|a| a == "hooks") && args.get(2).is_some_and(|a| a == "record");
    // The status line never fails: Claude Code shows its stdout on every prompt.
    let statusline = args.get(1).is_some_and(|a| a == "statusline");
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        // `guard` runs as a Claude Code hook, where exit 2 blocks the session:
        // its help promises 0 on every error, a usage error included.
        Err(e) if guard && e.use_stderr() => {
            let _ = e.print();
            output::to_stderr("csift guard: not run (exit 0 so the session goes on)");
            return ExitCode::SUCCESS;
        }
        Err(e) if record && e.use_stderr() => {
            let _ = e.print();
            output::to_stderr("csift hooks record: not run (exit 0 so the session goes on)");
            return ExitCode::SUCCESS;
        }
        Err(e) if statusline && e.use_stderr() => {
            println!("csift statusline: bad arguments (csift statusline --help)");
            return ExitCode::SUCCESS;
        }
        Err(e) => e.exit(),
    };
    match run(cli) {
        Ok(exit) => ExitCode::from(exit.code()),
        Err(e) => {
            let code = e.exit_code();
            if code != 0 {
                // Errors echo targets, patterns and file names: clean them for the terminal.
                output::to_stderr(&format!(
                    "csift: {}",
                    output::sanitize::clean(&e.to_string())
                ));
            }
            ExitCode::from(code)
        }
    }
}

/// Run one parsed command line against stdout.
pub(crate) fn run(cli: Cli) -> error::Result<Exit> {
    let started = Instant::now();
    let problems = Problems::default();
    if let Command::Mcp(args) = &cli.command {
        // The one command with an async runtime: tokio starts here and
        // nowhere else (`csift list` never pays for it).
        #[cfg(feature = "mcp")]
        return cmd::mcp::serve(args);
        #[cfg(not(feature = "mcp"))]
        {
            let _ = args;
            return Err(error::Error::Usage(
                "this csift was built without the `mcp` feature".into(),
            ));
        }
    }
    let mut out = Out::stdout(cli.command.color());
    let exit = execute(cli.command, &mut out, &problems, started)?;
    // Flushed here, so a broken pipe surfaces as an output error.
    out.flush()?;
    Ok(exit)
}

/// Run one parsed command against any [`Out`]: stdout for the binary, a
/// buffer for `csift mcp`, which runs the same code in-process.
pub(crate) fn execute(
    command: Command,
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> error::Result<Exit> {
    match command {
        Command::List(args) => cmd::list::run(&args, out, problems, started),
        Command::Search(args) => cmd::search::run(&args, out, problems, started),
        Command::Show(args) => cmd::show::run(&args, out, problems, started),
        Command::Verbatim(args) => cmd::verbatim::run(&args, out, problems, started),
        Command::Stats(args) => cmd::stats::run(&args, out, problems, started),
        Command::Usage(args) => cmd::usage::run(&args, out, problems),
        Command::Statusline(args) => Ok(cmd::statusline::run(&args)),
        Command::Agents(args) => cmd::agents::run(&args, out, problems, started),
        Command::Files(args) => cmd::files::run(&args, out, problems, started),
        Command::Recover(args) => cmd::recover::run(&args, out, problems, started),
        Command::Audit(args) => cmd::audit::run(&args, out, problems, started),
        Command::Guard(args) => cmd::guard::run(&args, out, problems, started),
        Command::Plan(args) => cmd::plan::run(&args, out, problems, started),
        Command::Image(args) => cmd::image::run(&args, out, problems, started),
        Command::Export(args) => cmd::export::run(&args, problems, started),
        Command::Status(args) => cmd::status::run(&args, out, problems, started),
        Command::Tasks(args) => cmd::tasks::run(&args, out, problems, started),
        Command::Wait(args) => cmd::wait::run(&args, out),
        Command::Whoami(args) => cmd::whoami::run(&args, out, problems),
        Command::Hooks(args) => cmd::hooks::run(&args, out),
        Command::Completions(args) => cmd::completions::run_completions(&args, out),
        Command::Man(_) => cmd::completions::run_man(out),
        Command::Mcp(_) => Err(error::Error::Usage(
            "csift mcp serves on stdio; it cannot run inside another command".into(),
        )),
    }
}
