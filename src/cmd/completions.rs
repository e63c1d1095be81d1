//! `csift completions SHELL` and `csift man`: both generated from the one clap
//! definition ([`crate::cli::Cli`]), so they never drift from the flags.

use std::io::Write;

use clap::CommandFactory;

use crate::cli::extra::CompletionsArgs;
use crate::cli::Cli;
use crate::error::Result;
use crate::output::Out;

use super::Exit;

pub(crate) fn run_completions(args: &CompletionsArgs, out: &mut Out) -> Result<Exit> {
    let mut cmd = Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "csift", out);
    Ok(Exit::Found)
}

/// One page: the root (synopsis, description, the subcommand list, exit
/// status), then a section per subcommand with its own synopsis and options.
pub(crate) fn run_man(out: &mut Out) -> Result<Exit> {
    let cmd = Cli::command();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    // The subcommands, each with its section below (clap_mangen's own list
    // points at csift-<name>(1) pages, which this one page replaces).
    writeln!(out, ".SH SUBCOMMANDS")?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        writeln!(
            out,
            ".TP\n\\fBcsift {}\\fR\n{}",
            sub.get_name(),
            roff_text(&about)
        )?;
    }
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name();
        writeln!(out, ".SH \"CSIFT {}\"", name.to_uppercase())?;
        if let Some(about) = sub.get_long_about().or(sub.get_about()) {
            writeln!(out, "{}", roff_text(&about.to_string()))?;
        }
        let sub = sub.clone().bin_name(format!("csift {name}"));
        let page = clap_mangen::Man::new(sub);
        page.render_options_section(out)?;
        if let Some(after) = page_after_help(&cmd, name) {
            writeln!(out, ".PP\n.nf\n{}\n.fi", roff_text(&after))?;
        }
    }
    man.render_extra_section(out)?;
    man.render_version_section(out)?;
    Ok(Exit::Found)
}

/// A subcommand's examples and notes (its `after_help`), as the page's text.
fn page_after_help(root: &clap::Command, name: &str) -> Option<String> {
    let sub = root.find_subcommand(name)?;
    sub.get_after_long_help()
        .or(sub.get_after_help())
        .map(|s| s.to_string())
}

/// Escape text for roff: a leading `.` or `'` would be read as a request,
/// and a backslash starts an escape.
fn roff_text(s: &str) -> String {
    s.lines()
        .map(|l| {
            let l = l.replace('\\', "\\e");
            if l.starts_with('.') || l.starts_with('\'') {
                format!("\\&{l}")
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
