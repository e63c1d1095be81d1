//! `csift wait TARGET --until COND --timeout DURATION`: block until a session
//! does something. Flags → [`crate::live::watch::Spec`] → the watch engine →
//! [`print`]. Exit 0 when a condition held, 124 on the timeout (GNU
//! `timeout`'s convention, MISC-019, BG-038), 2 on an error.

pub(crate) mod print;

use crate::cli::wait::WaitArgs;
use crate::discovery::home;
use crate::error::Result;
use crate::live::watch::{self, cond::Cond, Spec};
use crate::output::{Format, Out};

use super::Exit;

impl Spec {
    pub(crate) fn new(args: &WaitArgs) -> Result<Spec> {
        // MISC-019, BG-038: a background task can be built never to return,
        // so a wait without a bound is a hang, not a wait.
        let Some(timeout) = args.timeout else {
            return Err(crate::error::Error::Usage(
                "wait needs --timeout DURATION (e.g. --timeout 10m): a background task can be \
                 built never to return (a dev server, a watcher), so a wait without a bound may \
                 never end. Pick a bound and branch on exit 124, which prints what was seen."
                    .into(),
            ));
        };
        let conds = args
            .until
            .iter()
            .map(|c| Cond::parse(c))
            .collect::<Result<Vec<_>>>()?;
        let mut home = home::from_env(args.claude_home.clone())?;
        // Notifications name absolute paths.
        if let Ok(abs) = std::path::absolute(&home.root) {
            home.root = abs;
        }
        Ok(Spec {
            home,
            targets: args.targets.clone(),
            conds,
            timeout,
            lanes: !args.no_subagents,
            wait_for_start: args.wait_for_start,
            poll: args.interval,
            force_poll: args.poll,
            state: crate::cache::state_root(),
        })
    }
}

pub(crate) fn run(args: &WaitArgs, out: &mut Out) -> Result<Exit> {
    let spec = Spec::new(args)?;
    let mut say = |line: &str| {
        crate::output::to_stderr(&crate::output::sanitize::clean(line));
    };
    let outcome = watch::run(&spec, &mut say)?;
    let st = out.style;
    match args.format {
        Format::Human => print::human(out, st, &spec, &outcome)?,
        Format::Json => print::json(out, &outcome)?,
    }
    Ok(match outcome.fired {
        Some(_) => Exit::Found,
        None => Exit::Timeout,
    })
}
