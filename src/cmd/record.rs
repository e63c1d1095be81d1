//! `csift hooks record`: the elicitation recorder as a Claude Code hook. One
//! payload on stdin ([`crate::elicitation::record`] decides what it records);
//! fails open: every path exits 0, a problem is one stderr line, and stdin is
//! read for a bounded time so a hook never hangs its session.

use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::record::RecordArgs;
use crate::discovery::home;

use super::Exit;

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

/// The settings.json block that wires the recorder, for this binary.
fn settings() -> serde_json::Value {
    use crate::elicitation::record::{COMMAND, HOOKS, TIMEOUT_SECS};
    let exe = std::env::current_exe()
        .map(|e| std::fs::canonicalize(&e).unwrap_or(e))
        .map(|e| crate::output::sanitize::shell_word(&e.to_string_lossy()).into_owned())
        .unwrap_or_else(|_| "csift".into());
    let mut hooks = serde_json::Map::new();
    for (event, matcher) in HOOKS {
        let mut group = serde_json::json!({"hooks": [{"type": "command",
            "command": format!("{exe} {COMMAND}"), "timeout": TIMEOUT_SECS}]});
        if let Some(m) = matcher {
            group["matcher"] = m.into();
        }
        hooks.insert(event.to_string(), serde_json::Value::Array(vec![group]));
    }
    serde_json::json!({ "hooks": hooks })
}

pub(crate) fn run(args: &RecordArgs) -> Exit {
    if args.print_settings {
        let text = serde_json::to_string_pretty(&settings()).unwrap_or_default();
        let mut out = std::io::stdout().lock();
        return match std::io::Write::write_all(&mut out, format!("{text}\n").as_bytes()) {
            Ok(()) => Exit::Found,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Exit::Found,
            Err(_) => Exit::Error,
        };
    }
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
