//! The header's facts, read without a parse of the whole file: the envelope
//! fields from the first records (cwd, branch, version, first time), the last
//! version and time from the tail, the title from the last `customTitle` or
//! `aiTitle`, and the models from every `"model"` key (one memmem pass). A
//! lane's own facts (its kind, the call that spawned it, its meta) likewise.

use memchr::memmem;

use super::sink::Head;
use crate::discovery::Transcript;
use crate::scan::{json, lit, pair, Lines};

/// Records read from each end for the envelope fields.
const ENDS: usize = 64;

fn owned(v: Option<&[u8]>) -> Option<String> {
    v.and_then(|b| std::str::from_utf8(b).ok())
        .map(str::to_string)
}

/// The first of `key`'s plain string values among the first (or last) records.
fn envelope(buf: &[u8], key: &memmem::Finder<'_>, last: bool) -> Option<String> {
    if last {
        let mut end = buf.len();
        for _ in 0..ENDS {
            let start = crate::scan::lines::line_start(buf, end.saturating_sub(1));
            let line = &buf[start..end];
            if let Some(v) = owned(pair::first_plain_str(line, key)) {
                return Some(v);
            }
            if start == 0 {
                break;
            }
            end = start;
        }
        return None;
    }
    Lines::new(buf)
        .take(ENDS)
        .find_map(|l| owned(pair::first_plain_str(l.bytes, key)))
}

/// The value of the last `key` (quoted) in the file that is a string.
fn last_string(buf: &[u8], key: &[u8]) -> Option<String> {
    let mut end = buf.len();
    while let Some(at) = memmem::rfind(&buf[..end], key) {
        if let Some(v) = pair::value_at(buf, at, key) {
            let tail = &buf[v..];
            if tail.first() == Some(&b'"') {
                if let Ok(e) = json::string_end(tail, 1) {
                    if let Some(s) = json::string(&tail[..e]) {
                        return Some(s.into_owned());
                    }
                }
            }
        }
        end = at;
    }
    None
}

/// Distinct `"model"` values, in first-seen order (the synthetic one left out).
fn models(buf: &[u8]) -> Vec<String> {
    let key = lit!(b"\"model\"");
    let mut out: Vec<String> = Vec::new();
    for at in key.find_iter(buf) {
        let Some(v) = pair::value_at(buf, at, key.needle()) else {
            continue;
        };
        let body = &buf[v..];
        let Some(rest) = body.strip_prefix(b"\"") else {
            continue;
        };
        let Some(end) = memchr::memchr2(b'"', b'\\', rest).filter(|&e| e < 200) else {
            continue;
        };
        let Ok(m) = std::str::from_utf8(&rest[..end]) else {
            continue;
        };
        if !m.is_empty() && m != "<synthetic>" && !out.iter().any(|x| x == m) {
            out.push(m.to_string());
        }
    }
    out
}

/// The header of the page of `t` (bytes `buf`, `turns` turns).
pub(crate) fn head(t: &Transcript, buf: &[u8], turns: usize, lanes: usize) -> Head {
    let title = last_string(buf, b"\"customTitle\"").or_else(|| last_string(buf, b"\"aiTitle\""));
    let ts = lit!(b"\"timestamp\"");
    let ver = lit!(b"\"version\"");
    Head {
        title,
        session: t.session_id.clone(),
        agent: t.agent_id.clone(),
        file: t.path.display().to_string(),
        bytes: buf.len() as u64,
        cwd: envelope(buf, lit!(b"\"cwd\""), false),
        branch: envelope(buf, lit!(b"\"gitBranch\""), false),
        versions: (envelope(buf, ver, false), envelope(buf, ver, true)),
        models: models(buf),
        span: (envelope(buf, ts, false), envelope(buf, ts, true)),
        turns,
        lanes,
        highlight: None,
        labels: None,
    }
}

#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Meta {
    #[serde(default)]
    agent_type: Option<String>,
    #[serde(default)]
    description: Option<String>,
}

/// A lane's title and facts.
pub(crate) fn lane(
    t: &Transcript,
    buf: &[u8],
    spawn: Option<&str>,
) -> (String, Vec<(&'static str, String)>) {
    let meta = std::fs::read(t.path.with_extension("meta.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Meta>(&b).ok())
        .unwrap_or_default();
    let agent = t.agent_id.as_deref().unwrap_or("?");
    let kind = meta
        .agent_type
        .clone()
        .unwrap_or_else(|| t.shape.name().to_string());
    let mut title = format!("subagent {agent} ({kind})");
    if let Some(d) = &meta.description {
        title.push_str(": ");
        title.push_str(d);
    }
    let mut facts = vec![
        ("agent", agent.to_string()),
        ("lane", t.shape.name().to_string()),
    ];
    if let Some(s) = spawn {
        facts.push(("spawned by call", s.to_string()));
    }
    let ts = lit!(b"\"timestamp\"");
    if let (Some(a), Some(b)) = (envelope(buf, ts, false), envelope(buf, ts, true)) {
        facts.push((
            "span",
            format!("{} → {}", super::sink::when(&a), super::sink::when(&b)),
        ));
    }
    let models = models(buf);
    if !models.is_empty() {
        facts.push(("models", models.join(", ")));
    }
    facts.push((
        "file",
        format!(
            "{} ({})",
            t.path.display(),
            crate::cmd::human_bytes(buf.len() as u64)
        ),
    ));
    (title, facts)
}
