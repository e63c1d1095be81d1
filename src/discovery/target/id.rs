//! Targets that are ids: `@<session>`, `@<agent>`, a unique prefix of either,
//! `@<session>@<agent>` (the form search and show print a lane unit under),
//! `@main` and `@trap:MARKER` (the calling session), and a bare id with no path
//! of its name. Matched against the walk of the whole home; a miss or an
//! ambiguous prefix is an error that lists the candidates or says where to look.

use std::collections::BTreeSet;

use super::spawned;
use crate::discovery::walk::Walk;
use crate::discovery::{selfref, short, Transcript};
use crate::error::{Error, Result};

/// How many candidates an ambiguity error lists before a count of the rest.
const LISTED: usize = 20;

/// A bare argument read as `@arg` when no path has its name: a session id or
/// prefix (hex digits and dashes, 4 or more), optionally `@` and an agent id
/// (letters, digits, `-` and `_`: `acompact-e1f845` is one), the forms search
/// headers and list rows print.
pub(super) fn looks_like_id(t: &str) -> bool {
    let (s, a) = match t.split_once('@') {
        Some((s, a)) => (s, Some(a)),
        None => (t, None),
    };
    let session = s.len() >= 4
        && s.bytes().next().is_some_and(|b| b.is_ascii_hexdigit())
        && s.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
    let agent = a.is_none_or(|a| {
        !a.is_empty()
            && a.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    });
    session && agent
}

/// What `@id` names in the whole home `all`; `@main` and `@trap:MARKER` are
/// the calling session naming itself.
pub(super) fn named(all: &Walk, id: &str, home_args: &str) -> Result<Vec<Transcript>> {
    match id.strip_prefix("trap:") {
        Some(marker) => selfref::trap(all, marker),
        None if id == "main" => selfref::main_id().and_then(|sid| by_id(all, &sid, home_args)),
        None => by_id(all, id, home_args),
    }
}

/// What an id prefix matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Lane,
    Session,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Lane => "lane",
            Kind::Session => "session",
        }
    }
}

/// `@id`: exact session or agent id first, else a unique prefix. A session selects
/// its main file and every lane; an agent id selects that lane alone.
fn by_id(all: &Walk, raw: &str, home_args: &str) -> Result<Vec<Transcript>> {
    if let Some(at) = raw.find("inline:") {
        return Err(inline_sidechain(raw, at, home_args));
    }
    if let Some((s, a)) = raw.split_once('@') {
        return by_lane(all, raw, s, a, home_args);
    }
    let id = raw.strip_prefix("agent-").unwrap_or(raw);
    if id.is_empty() {
        return Err(Error::Target(
            "`@` needs an id after it, e.g. @3f2a or @a1b2c3".into(),
        ));
    }
    if all.transcripts.iter().any(|t| t.session_id == id) {
        return Ok(session(all, id));
    }
    let exact = lanes_with(all, id);
    if !exact.is_empty() {
        return one_lane(raw, exact);
    }
    let cands = prefixed(all, id);
    match (cands.len(), cands.first()) {
        (1, Some((found, Kind::Session))) => Ok(session(all, found)),
        (1, Some((found, Kind::Lane))) => one_lane(raw, lanes_with(all, found)),
        (0 | 1, _) => Err(Error::Target(match spawned::without_lane(all, "", id, home_args) {
            Some(hint) => format!("@{raw}: {hint}"),
            None => format!(
                "@{raw}: no session or subagent id starts with `{id}` (try `csift list{home_args}` to see ids)"
            ),
        })),
        _ => Err(ambiguous(raw, id, &cands)),
    }
}

/// `agents` names an inline sidechain `inline:<uuid>`: it has no file of its
/// own, so say where it is read instead of "no id starts with".
fn inline_sidechain(raw: &str, at: usize, home_args: &str) -> Error {
    let session = raw[..at].trim_end_matches('@');
    let session = if session.is_empty() {
        "<session>"
    } else {
        session
    };
    Error::Target(format!(
        "@{raw}: an inline sidechain has no lane file; its records are in the session's \
         main file from the line `agents` prints: csift show @{session} --line N{home_args}"
    ))
}

/// Every transcript of session `sid`: its main file and its lanes.
fn session(all: &Walk, sid: &str) -> Vec<Transcript> {
    all.transcripts
        .iter()
        .filter(|t| t.session_id == sid)
        .cloned()
        .collect()
}

/// The lanes whose agent id is exactly `id` (one per session that has it).
fn lanes_with<'w>(all: &'w Walk, id: &str) -> Vec<&'w Transcript> {
    all.transcripts
        .iter()
        .filter(|t| t.agent_id.as_deref() == Some(id))
        .collect()
}

/// Every session and agent id starting with `id`, sorted.
fn prefixed(all: &Walk, id: &str) -> BTreeSet<(String, Kind)> {
    let mut cands = BTreeSet::new();
    for t in &all.transcripts {
        if t.session_id.starts_with(id) {
            cands.insert((t.session_id.clone(), Kind::Session));
        }
        if let Some(a) = t.agent_id.as_deref().filter(|a| a.starts_with(id)) {
            cands.insert((a.to_string(), Kind::Lane));
        }
    }
    cands
}

/// `@raw is ambiguous`: the first candidates and a count of the rest.
fn ambiguous(raw: &str, id: &str, cands: &BTreeSet<(String, Kind)>) -> Error {
    let n = cands.len();
    let list: Vec<String> = cands
        .iter()
        .take(LISTED)
        .map(|(c, k)| format!("  @{c} ({})", k.name()))
        .collect();
    let more = if n > LISTED {
        format!("\n  … and {} more", n - LISTED)
    } else {
        String::new()
    };
    Error::Target(format!(
        "@{raw} is ambiguous: {n} ids start with `{id}`; use a longer prefix:\n{}{more}",
        list.join("\n")
    ))
}

/// The lane an agent id names, or an error listing each session's lane when
/// the id is in several (a copied or forked home reuses agent ids): never a
/// silent pick of one.
fn one_lane(raw: &str, lanes: Vec<&Transcript>) -> Result<Vec<Transcript>> {
    match lanes.as_slice() {
        [one] => Ok(vec![(*one).clone()]),
        many => Err(Error::Target(format!(
            "@{raw} is ambiguous: {} sessions have a lane with this agent id; name one as \
             @<session>@<agent>:\n{}",
            many.len(),
            lane_list(many)
        ))),
    }
}

/// Candidate lanes as `@<session>@<agent>` lines, the first 20 and a count of
/// the rest.
fn lane_list(many: &[&Transcript]) -> String {
    let mut list: Vec<String> = many
        .iter()
        .take(LISTED)
        .map(|t| {
            format!(
                "  @{}@{}",
                short(&t.session_id),
                t.agent_id.as_deref().unwrap_or("")
            )
        })
        .collect();
    if many.len() > LISTED {
        list.push(format!("  … and {} more", many.len() - LISTED));
    }
    list.join("\n")
}

/// `@<session>@<agent>`, the form search and show print a lane unit under: the
/// lanes of sessions starting with `s` whose agent id starts with `a`; one lane,
/// or an error naming the candidates.
fn by_lane(all: &Walk, raw: &str, s: &str, a: &str, home_args: &str) -> Result<Vec<Transcript>> {
    let a = a.strip_prefix("agent-").unwrap_or(a);
    if s.is_empty() || a.is_empty() {
        return Err(Error::Target(format!(
            "@{raw}: a lane is @<session>@<agent>, both non-empty, e.g. @3f2a@a1b2"
        )));
    }
    let hits: Vec<&Transcript> = all
        .transcripts
        .iter()
        .filter(|t| t.session_id.starts_with(s))
        .filter(|t| t.agent_id.as_deref().is_some_and(|x| x.starts_with(a)))
        .collect();
    match hits.as_slice() {
        [] => Err(Error::Target(match spawned::without_lane(all, s, a, home_args) {
            Some(hint) => format!("@{raw}: {hint}"),
            None => format!(
                "@{raw}: no lane of a session starting with `{s}` has an agent id starting with `{a}` (try `csift list @{s}{home_args}`)"
            ),
        })),
        [one] => Ok(vec![(*one).clone()]),
        many => Err(Error::Target(format!(
            "@{raw} is ambiguous: {} lanes match; use longer prefixes:\n{}",
            many.len(),
            lane_list(many)
        ))),
    }
}
