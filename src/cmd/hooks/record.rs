//! `csift hooks record`: the elicitation recorder as a Claude Code hook
//! (`hooks print --record` wires it). One
//! payload on stdin ([`crate::elicitation::record`] decides what it records);
//! fails open: every path exits 0, a problem is one stderr line, and stdin is
//! read for a bounded time so a hook never hangs its session.

use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::record::RecordArgs;
use crate::discovery::home;

use crate::cmd::Exit;

/// Hook payloads are small; a runaway stdin is cut here.
const MAX_PAYLOAD: u64 = 16 << 20;
/// The longest a fire waits for its payload.
const READ_LIMIT: Duration = Duration::from_secs(5);

fn say(msg: &str) {
    crate::output::to_stderr(&format!(
        "csift hooks record: {}",
        crate::output::sanitize::one_line(msg)
    ));
}

pub(crate) fn run(args: &RecordArgs) -> Exit {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut raw = Vec::new();
        let r = std::io::stdin().take(MAX_PAYLOAD).read_to_end(&mut raw);
        let _ = tx.send(r.map(|_| raw));
    });
    let payload = match rx.recv_timeout(READ_LIMIT) {
        Ok(Ok(p)) => p,
        Ok(Err(e)) => {
            say(&format!(
                "cannot read the hook payload ({e}); nothing recorded"
            ));
            return Exit::Found;
        }
        Err(_) => {
            say("no hook payload within 5 s; nothing recorded");
            return Exit::Found;
        }
    };
    let homes: Vec<PathBuf> = home::from_env(args.claude_home.clone())
        .map(|h| h.root)
        .into_iter()
        .collect();
    let fired = std::panic::catch_unwind(|| {
        crate::elicitation::record::fire(&payload, crate::cache::state_root(), &homes)
    });
    match fired {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => say(&format!("{e}; nothing recorded")),
        Err(_) => say("internal panic; nothing recorded"),
    }
    Exit::Found
}
