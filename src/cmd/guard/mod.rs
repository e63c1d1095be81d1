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

use anyhow::Context;
use serde_json::Value;

use crate::cli::guard::GuardArgs;
use crate::discovery::home;
use crate::output::Out;

use super::{Exit, Problems};
use state::State;

/// Hook payloads are small; a runaway stdin is cut here.
const MAX_PAYLOAD: u64 = 16 << 20;

pub(crate) fn run(
    args: &GuardArgs,
    out: &mut Out,
    _problems: &Problems,
    _started: Instant,
) -> anyhow::Result<Exit> {
    if args.print_settings {
        super::not_applicable("guard", &args.common)?;
        let json = args.common.format == crate::output::Format::Json;
        print_settings(out, args.state_dir.as_deref(), json)?;
        return Ok(Exit::Found);
    }
    if !args.post && !args.stop {
        eprintln!("csift guard: choose an arm: --post (PostToolUse) or --stop (Stop); see --help");
        return Ok(Exit::NotFound);
    }
    let code = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fire(args))) {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            eprintln!("csift guard: fail-open ({e:#})");
            0
        }
        Err(_) => {
            eprintln!("csift guard: fail-open (internal panic)");
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

/// The Claude home a transcript sits in: the parent of its `projects` ancestor.
fn home_of(transcript: &Path) -> Option<PathBuf> {
    transcript
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "projects"))
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}

/// One fire. `Ok(code)`; early exits (bad payload, subagent fire, no
/// transcript) are `Ok(0)` without touching state.
fn fire(args: &GuardArgs) -> anyhow::Result<u8> {
    let mut raw = Vec::new();
    std::io::stdin()
        .take(MAX_PAYLOAD)
        .read_to_end(&mut raw)
        .context("read hook payload")?;
    // An editor's byte-order mark is no reason to skip detection.
    let body = raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&raw);
    let Ok(payload) = serde_json::from_slice::<Value>(body) else {
        eprintln!("csift guard: hook payload is not JSON; nothing to do");
        return Ok(0);
    };
    if !payload.is_object() {
        eprintln!("csift guard: hook payload is not a JSON object; nothing to do");
        return Ok(0);
    }
    if truthy(payload.get("agent_id")) {
        return Ok(0); // a subagent's fire: by design, no note
    }
    let Some(transcript) = str_field(&payload, "transcript_path").map(home::expand_tilde) else {
        eprintln!("csift guard: hook payload has no transcript_path string; nothing to do");
        return Ok(0);
    };
    let meta = match std::fs::metadata(&transcript) {
        Ok(m) => m,
        Err(e) => {
            eprintln!(
                "csift guard: fail-open (transcript {}: {e})",
                crate::output::sanitize::path(&transcript)
            );
            return Ok(0);
        }
    };
    if !meta.is_file() {
        eprintln!(
            "csift guard: fail-open (transcript {} is not a file)",
            crate::output::sanitize::path(&transcript)
        );
        return Ok(0);
    }
    let session = str_field(&payload, "session_id").unwrap_or("unknown");
    let prompt_id = str_field(&payload, "prompt_id").unwrap_or("");
    let last_message = match payload.get("last_assistant_message") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(v) => Some(v.to_string()),
    };

    let dir = state::state_dir(args.state_dir.as_deref())?;
    let mut homes: Vec<PathBuf> = home_of(&transcript).into_iter().collect();
    if let Ok(h) = home::from_env(args.common.claude_home.clone()) {
        homes.push(h.root);
    }
    state::check_outside(&dir, &homes)?;
    let path = dir.join(format!("{}.json", state::file_stem(session)));
    let mut st = State::load(&path);

    let size = meta.len();
    let anchor = window::anchor(&transcript).context("read transcript head")?;
    let shown = transcript.display().to_string();
    let rebaseline =
        st.transcript != shown || st.anchor != anchor || st.offset.is_none_or(|o| o > size);
    let (offset, carry) = if rebaseline {
        // First fire, a rewritten file, or a bad offset: final turn of the tail only.
        (window::tail_start(&transcript, size)?, Vec::new())
    } else {
        (st.offset.unwrap_or(0), std::mem::take(&mut st.carry))
    };
    let scan = window::scan(&transcript, offset, carry, &st.flagged_mids, rebaseline)
        .with_context(|| format!("scan {}", transcript.display()))?;
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
    let fire = arms::Fire {
        dir: &dir,
        session,
        prompt_id,
        hits: scan.hits,
        last_message,
    };
    if args.post {
        arms::post(st, fire, &path)
    } else {
        arms::stop(st, fire, &path)
    }
}

/// The settings block to paste: indented for a person, one line with
/// `--format json` (JSON Lines, as every command's JSON).
fn print_settings(out: &mut Out, state_dir: Option<&Path>, json: bool) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("locate the running csift binary")?;
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
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    }
    Ok(())
}
