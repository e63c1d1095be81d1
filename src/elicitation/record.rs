//! The recorder: one hook payload in, at most one marker line out. Claude Code
//! hands a hook ONE JSON object on stdin (ELI-019): `hook_event_name`,
//! `tool_name`, `tool_input`, `tool_use_id`, `session_id`, `transcript_path`;
//! the MCP events carry `elicitation_id` (optional) and `mcp_server_name`
//! (required) instead (ELI-011). Five events cover the three blocking kinds
//! (ELI-015):
//!
//! - `PreToolUse` of AskUserQuestion/ExitPlanMode: `pending`;
//! - `PostToolUse`/`PostToolUseFailure` of them: `resolved`;
//! - `Elicitation`: an MCP ask `pending`; `ElicitationResult`: `resolved`.
//!
//! Any other payload writes nothing. The line goes to csift's state directory,
//! never under the Claude home, in one `O_APPEND` write (concurrent hooks run at
//! once, MISC-013, and a short append is never interleaved).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Marker, KIND_MCP};

/// The hook registrations the recorder needs, for a settings block (`hooks
/// print --record` builds its entries from these): (event, matcher). The tool
/// events' matcher names the two asking tools in the strict matcher grammar
/// (letters, digits, `_`, `|`); the MCP events take none, so every server's
/// asks are recorded (ELI-023: their matcher selects the server).
pub(crate) const HOOKS: [(&str, Option<&str>); 5] = [
    ("PreToolUse", Some(ASK_MATCHER)),
    ("PostToolUse", Some(ASK_MATCHER)),
    ("PostToolUseFailure", Some(ASK_MATCHER)),
    ("Elicitation", None),
    ("ElicitationResult", None),
];
const ASK_MATCHER: &str = "AskUserQuestion|ExitPlanMode";
/// The command line after the binary's path: `<csift> hooks record`.
pub(crate) const COMMAND: &str = "hooks record";
/// Seconds Claude Code should give a fire (the recorder reads for at most 5).
pub(crate) const TIMEOUT_SECS: u32 = 10;

/// What a payload asks the recorder to write.
pub(crate) fn marker(payload: &Value, now: jiff::Timestamp) -> Option<Marker> {
    let s = |k: &str| {
        payload
            .get(k)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
    };
    let event = s("hook_event_name")?;
    let tool = s("tool_name");
    let ask = matches!(tool, Some("AskUserQuestion" | "ExitPlanMode"));
    let (kind, phase) = match event {
        "PreToolUse" if ask => (tool?.to_string(), "pending"),
        "PostToolUse" | "PostToolUseFailure" if ask => (tool?.to_string(), "resolved"),
        "Elicitation" => (KIND_MCP.to_string(), "pending"),
        "ElicitationResult" => (KIND_MCP.to_string(), "resolved"),
        _ => return None,
    };
    // ELI-011: the unique ids first; a server name is the only key an MCP
    // event is sure to carry.
    let key = s("tool_use_id")
        .or_else(|| s("elicitation_id"))
        .or_else(|| s("mcp_server_name"))
        .unwrap_or("unknown");
    let session = s("session_id")
        .map(str::to_string)
        .or_else(|| {
            let p = Path::new(s("transcript_path")?);
            Some(p.file_stem()?.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "unknown".into());
    Some(Marker {
        kind_tag: "csift-elicitation".into(),
        kind,
        phase: phase.into(),
        key: key.to_string(),
        event: event.to_string(),
        session_id: session,
        timestamp: crate::timefmt::utc_exact(now),
        tool_input: payload
            .get("tool_input")
            .filter(|_| phase == "pending")
            .cloned(),
        mcp_server_name: s("mcp_server_name").map(str::to_string),
        message: s("message").map(str::to_string),
        action: s("action").map(str::to_string),
    })
}

/// Why a fire wrote nothing (the hook still exits 0).
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    #[error("the hook payload is not a JSON object")]
    NotJson,
    #[error("neither XDG_STATE_HOME nor HOME is set; pass --state-dir")]
    NoStateDir,
    #[error("state dir {} is inside the Claude home {}; csift never writes there", crate::output::sanitize::path(.0), crate::output::sanitize::path(.1))]
    Inside(PathBuf, PathBuf),
    #[error("{}: {error}", crate::output::sanitize::path(path))]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// Record one payload. `state` is csift's state root (`--state-dir` or the
/// default); `homes` are the Claude homes it must stay out of. Returns the
/// sidecar written, or `None` for a payload that records nothing.
pub(crate) fn fire(
    payload: &[u8],
    state: Option<PathBuf>,
    homes: &[PathBuf],
) -> Result<Option<PathBuf>, Failure> {
    let body = payload.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(payload);
    let v: Value = serde_json::from_slice(body).map_err(|_| Failure::NotJson)?;
    if !v.is_object() {
        return Err(Failure::NotJson);
    }
    let Some(m) = marker(&v, jiff::Timestamp::now()) else {
        return Ok(None);
    };
    let state = state.ok_or(Failure::NoStateDir)?;
    let mut homes = homes.to_vec();
    if let Some(h) = v
        .get("transcript_path")
        .and_then(Value::as_str)
        .and_then(|t| crate::discovery::home::home_of(Path::new(t)))
    {
        homes.push(h);
    }
    let path = super::state_path(&state, &m.session_id);
    let dir = path.parent().unwrap_or(&state).to_path_buf();
    outside(&dir, &homes)?;
    std::fs::create_dir_all(&dir).map_err(|e| Failure::Io {
        path: dir.clone(),
        error: e,
    })?;
    // Checked again once it exists: a symlink swapped in is caught here.
    outside(&dir, &homes)?;
    let mut line = serde_json::to_vec(&m).map_err(|e| Failure::Io {
        path: path.clone(),
        error: e.into(),
    })?;
    line.push(b'\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| Failure::Io {
            path: path.clone(),
            error: e,
        })?;
    f.write_all(&line).map_err(|e| Failure::Io {
        path: path.clone(),
        error: e,
    })?;
    Ok(Some(path))
}

fn outside(dir: &Path, homes: &[PathBuf]) -> Result<(), Failure> {
    let d = crate::outpath::resolve(dir);
    for h in homes {
        let h = crate::outpath::resolve(h);
        if d.starts_with(&h) {
            return Err(Failure::Inside(d, h));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn now() -> jiff::Timestamp {
        jiff::Timestamp::from_second(2_000_000_000).unwrap()
    }

    /// ELI-015, ELI-019: the five events and their phases; other tools and
    /// events record nothing.
    #[test]
    fn five_events_make_markers_eli_015_019() {
        let pre = json!({"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_use_id":"toolu_1","session_id":"s1","tool_input":{"questions":[{"question":"ship it?"}]}});
        let m = marker(&pre, now()).unwrap();
        assert_eq!(
            (m.kind.as_str(), m.phase.as_str(), m.key.as_str()),
            ("AskUserQuestion", "pending", "toolu_1")
        );
        assert_eq!(m.detail().as_deref(), Some("ship it?"));
        let post = json!({"hook_event_name":"PostToolUseFailure","tool_name":"ExitPlanMode","tool_use_id":"toolu_2","session_id":"s1"});
        assert_eq!(marker(&post, now()).unwrap().phase, "resolved");
        let bash = json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t","session_id":"s1"});
        assert!(marker(&bash, now()).is_none());
        let stop = json!({"hook_event_name":"Stop","session_id":"s1"});
        assert!(marker(&stop, now()).is_none());
    }

    /// ELI-011: an MCP ask is keyed by its elicitation_id when given, else by
    /// the (required) server name.
    #[test]
    fn mcp_keys_prefer_the_id_eli_011() {
        let with_id = json!({"hook_event_name":"Elicitation","mcp_server_name":"db","elicitation_id":"e-7","message":"password?","session_id":"s"});
        let m = marker(&with_id, now()).unwrap();
        assert_eq!((m.kind.as_str(), m.key.as_str()), (KIND_MCP, "e-7"));
        assert_eq!(m.detail().as_deref(), Some("password?"));
        let bare = json!({"hook_event_name":"ElicitationResult","mcp_server_name":"db","action":"accept","session_id":"s"});
        let m = marker(&bare, now()).unwrap();
        assert_eq!((m.phase.as_str(), m.key.as_str()), ("resolved", "db"));
    }

    /// ELI-023: the tool events' matcher passes the strict grammar
    /// (`^[a-zA-Z0-9_|]+$`, split on `|`) and names exactly the asking tools;
    /// the MCP events have none. ELI-015: the five events.
    #[test]
    fn registrations_use_the_matcher_grammar_eli_023() {
        let events: Vec<&str> = HOOKS.iter().map(|(e, _)| *e).collect();
        assert_eq!(
            events,
            [
                "PreToolUse",
                "PostToolUse",
                "PostToolUseFailure",
                "Elicitation",
                "ElicitationResult"
            ]
        );
        for (event, m) in HOOKS {
            match m {
                Some(m) => {
                    assert!(
                        m.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'|'),
                        "{event}"
                    );
                    let tools: Vec<&str> = m.split('|').collect();
                    assert_eq!(tools, ["AskUserQuestion", "ExitPlanMode"]);
                }
                None => assert!(event.starts_with("Elicitation")),
            }
        }
    }

    /// The sidecar never goes under the Claude home a transcript sits in.
    #[test]
    fn refuses_a_state_dir_inside_the_claude_home() {
        let d = tempfile::tempdir().unwrap();
        let home = d.path().join("claude");
        let payload = json!({"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_use_id":"t","session_id":"s",
            "transcript_path": home.join("projects/p/s.jsonl")});
        let bytes = serde_json::to_vec(&payload).unwrap();
        let r = fire(&bytes, Some(home.join("state")), &[]);
        assert!(matches!(r, Err(Failure::Inside(..))), "{r:?}");
        let ok = fire(&bytes, Some(d.path().join("state")), &[])
            .unwrap()
            .unwrap();
        assert!(ok.ends_with("elicitations/s.jsonl"));
        assert!(!home.exists());
    }
}
