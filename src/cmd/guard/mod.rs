//! `csift guard`: the eaten-text bug report's two live arms as Claude Code hooks
//! (`--post` on PostToolUse, `--stop` on Stop), plus `--print-settings`.
//!
//! Each fire reads the hook payload from stdin, scans the transcript bytes
//! appended since the session's saved offset ([`window`]), and runs its arm
//! ([`arms`]) over the session's state ([`state`]). A guard must never wedge a
//! session: every error, panic or unreadable input exits 0 with a one-line
//! stderr note (fail open); exit 2 is used only to surface or to block.

pub(crate) mod arms;
pub(crate) mod state;
pub(crate) mod window;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::Value;

use crate::cli::guard::GuardArgs;
use crate::discovery::home;
use crate::error::{Error, Result};
use crate::output::sanitize;
use crate::output::Out;
use crate::scan::source::Opened;

use super::{Exit, Problems};
use state::State;

/// Hook payloads are small; a runaway stdin is cut here.
const MAX_PAYLOAD: u64 = 16 << 20;

/// Why a fire failed open. Every path in it is cleaned for the terminal
/// when said: a state dir may carry escape bytes.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    #[error("{what} {}: {error}", sanitize::path(path))]
    Io {
        what: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("read hook payload: {0}")]
    Payload(std::io::Error),
    #[error(
        "state dir {} is inside the Claude home {}; csift never writes there (use --state-dir)",
        sanitize::path(dir),
        sanitize::path(home)
    )]
    Inside { dir: PathBuf, home: PathBuf },
    #[error("neither XDG_STATE_HOME nor HOME is set; pass --state-dir")]
    NoStateDir,
    #[error("encode state: {0}")]
    Encode(serde_json::Error),
}

impl Failure {
    pub(crate) fn io(what: &'static str, path: &Path, error: std::io::Error) -> Failure {
        Failure::Io {
            what,
            path: path.to_path_buf(),
            error,
        }
    }
}

/// One note on stderr, `csift guard: …`, cleaned and on one line. A closed
/// stderr does not change the exit status the help promises.
fn say(msg: &str) {
    crate::output::to_stderr(&format!("csift guard: {}", sanitize::one_line(msg)));
}

pub(crate) fn run(
    args: &GuardArgs,
    out: &mut Out,
    _problems: &Problems,
    _started: Instant,
) -> Result<Exit> {
    if args.print_settings {
        super::not_applicable("guard", &args.common)?;
        let json = args.common.format == crate::output::Format::Json;
        print_settings(out, args.state_dir.as_deref(), json)?;
        return Ok(Exit::Found);
    }
    if !args.post && !args.stop {
        say("choose an arm: --post (PostToolUse) or --stop (Stop); see --help");
        return Ok(Exit::NotFound);
    }
    let code = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fire(args))) {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            say(&format!("fail-open ({e})"));
            0
        }
        Err(_) => {
            say("fail-open (internal panic)");
            0
        }
    };
    Ok(if code == 2 { Exit::Error } else { Exit::Found })
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}

/// One fire. `Ok(code)`; early exits (bad payload, subagent fire, no
/// transcript) are `Ok(0)` without touching state.
fn fire(args: &GuardArgs) -> Result<u8, Failure> {
    let mut raw = Vec::new();
    std::io::stdin()
        .take(MAX_PAYLOAD)
        .read_to_end(&mut raw)
        .map_err(Failure::Payload)?;
    let Some(p) = Payload::parse(&raw) else {
        return Ok(0);
    };
    // Opened once, without blocking, and judged by the opened file: a FIFO,
    // a device or a swapped symlink cannot hang the hook, and every read is
    // bounded by this length (a `/proc` file that reports none reads empty).
    let opened = match crate::scan::source::open_io(&p.transcript) {
        Ok(o) => o,
        Err(e) => {
            say(&format!(
                "fail-open (transcript {}: {e})",
                sanitize::path(&p.transcript)
            ));
            return Ok(0);
        }
    };
    let (dir, path) = state_file(args, &p.transcript, &p.session)?;
    let mut st = State::load(&path);
    let hits = advance(&mut st, &opened, &p.transcript)?;
    let fire = arms::Fire {
        dir: &dir,
        session: &p.session,
        prompt_id: &p.prompt_id,
        hits,
        last_message: p.last_message,
    };
    if args.post {
        arms::post(st, fire, &path)
    } else {
        arms::stop(st, fire, &path)
    }
}

/// What a fire reads from its hook payload.
#[derive(Debug)]
struct Payload {
    transcript: PathBuf,
    /// `unknown` when the payload names none.
    session: String,
    prompt_id: String,
    /// The Stop payload's `last_assistant_message`, as text.
    last_message: Option<String>,
}

impl Payload {
    /// The payload in `raw`, or `None` when there is nothing to do: not a JSON
    /// object or no transcript path (each said), or a subagent's fire (by
    /// design, no note).
    fn parse(raw: &[u8]) -> Option<Payload> {
        // An editor's byte-order mark is no reason to skip detection.
        let body = raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(raw);
        let Ok(payload) = serde_json::from_slice::<Value>(body) else {
            say("hook payload is not JSON; nothing to do");
            return None;
        };
        if !payload.is_object() {
            say("hook payload is not a JSON object; nothing to do");
            return None;
        }
        if truthy(payload.get("agent_id")) {
            return None; // a subagent's fire: by design, no note
        }
        let Some(transcript) = str_field(&payload, "transcript_path").map(home::expand_tilde)
        else {
            say("hook payload has no transcript_path string; nothing to do");
            return None;
        };
        let last_message = match payload.get("last_assistant_message") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(v) => Some(v.to_string()),
        };
        Some(Payload {
            transcript,
            session: str_field(&payload, "session_id")
                .unwrap_or("unknown")
                .to_string(),
            prompt_id: str_field(&payload, "prompt_id").unwrap_or("").to_string(),
            last_message,
        })
    }
}

/// The state dir, made ready outside every Claude home this fire can name
/// (the transcript's and the configured one), and the session's state file.
fn state_file(
    args: &GuardArgs,
    transcript: &Path,
    session: &str,
) -> Result<(PathBuf, PathBuf), Failure> {
    let mut homes: Vec<PathBuf> = crate::discovery::home::home_of(transcript)
        .into_iter()
        .collect();
    if let Ok(h) = home::from_env(args.common.claude_home.clone()) {
        homes.push(h.root);
    }
    let dir = state::prepare(&state::state_dir(args.state_dir.as_deref())?, &homes)?;
    let path = dir.join(format!("{}.json", state::file_stem(session)));
    Ok((dir, path))
}

/// Scan what the transcript gained since the saved offset (on a first fire,
/// a rewritten file or a bad offset: the final turn of the tail only) and move
/// the state past it. The new eaten responses, which are never flagged again.
fn advance(st: &mut State, opened: &Opened, transcript: &Path) -> Result<Vec<String>, Failure> {
    let (file, size) = (&opened.file, opened.len);
    let read = |e| Failure::io("read", transcript, e);
    let anchor = window::anchor(file, size).map_err(read)?;
    let shown = transcript.display().to_string();
    let rebaseline =
        st.transcript != shown || st.anchor != anchor || st.offset.is_none_or(|o| o > size);
    let (offset, carry) = if rebaseline {
        (window::tail_start(file, size).map_err(read)?, Vec::new())
    } else {
        (st.offset.unwrap_or(0), std::mem::take(&mut st.carry))
    };
    let scan = window::scan(file, size, offset, carry, &st.flagged_mids, rebaseline)
        .map_err(|e| Failure::io("scan", transcript, e))?;
    st.flagged_mids.extend(
        scan.hits
            .iter()
            .map(|h| h.split_once('@').map_or(h.as_str(), |p| p.0).to_string()),
    );
    state::keep_last(&mut st.flagged_mids, state::FLAGGED_CAP);
    st.transcript = shown;
    st.anchor = anchor;
    st.offset = Some(scan.new_offset);
    st.carry = scan.carry;
    st.fires += 1;
    Ok(scan.hits)
}

/// The settings block to paste: indented for a person, one line with
/// `--format json` (JSON Lines, as every command's JSON).
fn print_settings(out: &mut Out, state_dir: Option<&Path>, json: bool) -> Result<()> {
    let exe = std::env::current_exe().map_err(|e| Error::io("the running csift binary", e))?;
    let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
    let mut base = format!(
        "{} guard",
        crate::output::sanitize::shell_word(&exe.to_string_lossy())
    );
    if let Some(d) = state_dir {
        let d = std::path::absolute(d).unwrap_or_else(|_| d.to_path_buf());
        base.push_str(&format!(
            " --state-dir {}",
            crate::output::sanitize::shell_word(&d.to_string_lossy())
        ));
    }
    let v = serde_json::json!({
        "hooks": {
            "PostToolUse": [{"matcher": ".*", "hooks": [
                {"type": "command", "command": format!("{base} --post"), "timeout": 10}]}],
            "Stop": [{"hooks": [
                {"type": "command", "command": format!("{base} --stop"), "timeout": 10}]}]
        }
    });
    if json {
        out.json(&v)?;
    } else {
        let text = serde_json::to_string_pretty(&v).map_err(std::io::Error::from)?;
        writeln!(out, "{text}")?;
    }
    Ok(())
}
