//! Turning the user's TARGET arguments into the set of transcripts a command reads.
//! Forms (every command accepts all of them): nothing (every project), `@<id>` (a
//! session id, a lane's agent id, or a unique prefix of either), a `.jsonl` file,
//! a `projects/<encoded>` directory (or its bare encoded name), a session folder,
//! or a real filesystem path, encoded the way Claude Code encodes a cwd (PATH-001…005).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::encode;
use super::home::ClaudeHome;
use super::walk::{self, Walk};
use super::{Shape, Transcript};
use crate::error::{Error, Result};

/// What the targets selected, plus every problem met on the way.
#[derive(Debug, Default)]
pub struct Selection {
    pub transcripts: Vec<Transcript>,
    /// Problems with what the targets selected (or may have missed): they
    /// make the command's exit status 2.
    pub(crate) issues: Vec<super::WalkIssue>,
    /// Problems met walking the rest of the home to find an `@id`, with
    /// files that are not the selected ones nor could be: said, but they do
    /// not turn a complete answer into exit 2.
    pub(crate) asides: Vec<super::WalkIssue>,
}

/// Resolve `targets` against `home`. `lanes` = false drops subagent lanes unless a
/// lane was addressed directly by its own id or file.
pub fn resolve(home: &ClaudeHome, targets: &[String], lanes: bool) -> Result<Selection> {
    if targets.iter().any(String::is_empty) {
        // What `csift list "$SESSION"` passes when the variable is unset: not
        // every session (that is no target at all), not nothing found.
        return Err(Error::Usage(
            "an empty target names nothing (an unset shell variable?); give a session `@id`, \
             a path or a project name, or no target to read every session"
                .into(),
        ));
    }
    let projects = home.projects();
    let mut walk = Walk::default();
    let mut explicit: BTreeSet<PathBuf> = BTreeSet::new();
    let mut all: Option<Walk> = None;
    if targets.is_empty() {
        if !projects.is_dir() {
            return Err(Error::Target(format!(
                "no Claude Code transcripts: {} does not exist (pass --claude-home DIR, or a .jsonl file)",
                projects.display()
            )));
        }
        walk::walk_projects(&projects, &mut walk);
    }
    // A target that names nothing is reported and the others still run, as
    // ripgrep does with a missing path; only when none names anything is it
    // the command's error.
    let mut failed: Vec<(String, Error)> = Vec::new();
    for t in targets {
        let mut by_id_target = |id: &str, walk: &mut Walk, explicit: &mut BTreeSet<PathBuf>| {
            let everything = all.get_or_insert_with(|| {
                let mut w = Walk::default();
                walk::walk_projects(&projects, &mut w);
                w.sort();
                w
            });
            // `@main`, `@trap:MARKER`: the calling session names itself.
            let found = match id.strip_prefix("trap:") {
                Some(marker) => super::selfref::trap(everything, marker),
                None if id == "main" => super::selfref::main_id()
                    .and_then(|sid| by_id(everything, &sid, &home.flag_args())),
                None => by_id(everything, id, &home.flag_args()),
            };
            found.map(|picked| {
                if picked.len() == 1 && picked[0].is_lane() {
                    explicit.insert(picked[0].path.clone());
                }
                walk.transcripts.extend(picked);
            })
        };
        let done = if let Some(id) = t.strip_prefix('@') {
            // `@<encoded>`: a projects/ folder by its name in any shape, the one
            // form a UNC cwd's `--server-share-…` folder has besides `-- NAME`
            // (WIN-001); an id never looks encoded.
            match projects.join(id) {
                dir if looks_encoded(id) && !id.contains(['/', '\\']) && dir.is_dir() => {
                    walk::walk_project(&dir, &mut walk);
                    Ok(())
                }
                _ => by_id_target(id, &mut walk, &mut explicit),
            }
        } else {
            match resolve_path(&projects, t, &mut walk, &mut explicit) {
                // An id as headers and rows print it (`6c2214d7@afc096d`,
                // `99677899`), with no path of that name: read as `@id`. If no
                // id matches either, the path's error stands.
                Err(_) if looks_like_id(t) && fs::symlink_metadata(t).is_err() => {
                    by_id_target(t, &mut walk, &mut explicit).map_err(|e| {
                        Error::Target(format!(
                            "{t}: no file or folder of that name; as an id, {e}"
                        ))
                    })
                }
                done => done,
            }
        };
        if let Err(e) = done {
            failed.push((t.clone(), e));
        }
    }
    let failed_any = !failed.is_empty();
    if !failed.is_empty() && failed.len() == targets.len() {
        if let Some((_, e)) = failed.into_iter().next() {
            return Err(e);
        }
    } else {
        for (t, e) in failed {
            let msg = e.to_string();
            let msg = msg
                .strip_prefix(&format!("{t}: "))
                .unwrap_or(&msg)
                .to_string();
            walk.issues.push(super::WalkIssue {
                path: PathBuf::from(t),
                message: msg,
            });
        }
    }
    let mut asides = Vec::new();
    if let Some(everything) = all {
        // The whole home was walked to find @ids: a broken file elsewhere is not
        // this command's problem (it made `show @x` exit 2 over a stranger's
        // dangling link). Kept: what could be or hold a named id, and every
        // directory that could not be read (it might hold one).
        let ids: Vec<&str> = targets
            .iter()
            .filter_map(|t| {
                t.strip_prefix('@')
                    .or(looks_like_id(t).then_some(t.as_str()))
            })
            .flat_map(|t| t.split('@'))
            .map(|p| p.strip_prefix("agent-").unwrap_or(p))
            .filter(|p| !p.is_empty())
            .collect();
        let (mut kept, near): (Vec<_>, Vec<_>) = everything
            .issues
            .into_iter()
            .filter(|i| could_hold(&i.path, &ids))
            .partition(|_| failed_any);
        // Every id was found: a folder that could not be read (or was too
        // deep to walk) outside the sessions selected is said, and leaves the
        // exit status to the answer. A file that could be one of the ids, or a
        // folder inside a selected session, still counts: the answer may lack it.
        for i in near {
            let related = i.path.extension().is_some_and(|e| e == "jsonl")
                || walk
                    .transcripts
                    .iter()
                    .any(|t| i.path.starts_with(t.project_dir.join(&t.session_id)));
            match related {
                true => kept.push(i),
                false => asides.push(i),
            }
        }
        walk.issues.extend(kept);
    }
    walk.sort();
    let transcripts = walk
        .transcripts
        .into_iter()
        .filter(|t| lanes || !t.is_lane() || explicit.contains(&t.path))
        .collect();
    Ok(Selection {
        transcripts,
        issues: walk.issues,
        asides,
    })
}

/// A bare argument read as `@arg` when no path has its name: a session id or
/// prefix (hex digits and dashes, 4 or more), optionally `@` and an agent id
/// (letters, digits, `-` and `_`: `acompact-e1f845` is one), the forms search
/// headers and list rows print.
fn looks_like_id(t: &str) -> bool {
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

/// Whether a folder name is a cwd as Claude Code encodes it (PATH-001, WIN-001):
/// `-home-ana-app`, or `C--Users-x` on Windows. A real project directory that
/// sits in a folder named `projects` (`~/projects/app`) is not one, and is
/// looked up by its encoded path instead.
fn looks_encoded(name: &str) -> bool {
    let b = name.as_bytes();
    b.first() == Some(&b'-') || (b.len() >= 3 && b[0].is_ascii_alphabetic() && &b[1..3] == b"--")
}

/// `@id`: exact session or agent id first, else a unique prefix. A session selects
/// its main file and every lane; an agent id selects that lane alone.
fn by_id(all: &Walk, raw: &str, home_args: &str) -> Result<Vec<Transcript>> {
    // `agents` names an inline sidechain `inline:<uuid>`: it has no file of its
    // own, so say where it is read instead of "no id starts with".
    if let Some(at) = raw.find("inline:") {
        let session = raw[..at].trim_end_matches('@');
        let session = if session.is_empty() {
            "<session>"
        } else {
            session
        };
        return Err(Error::Target(format!(
            "@{raw}: an inline sidechain has no lane file; its records are in the session's \
             main file from the line `agents` prints: csift show @{session} --line N{home_args}"
        )));
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
    let session = |sid: &str| -> Vec<Transcript> {
        all.transcripts
            .iter()
            .filter(|t| t.session_id == sid)
            .cloned()
            .collect()
    };
    if all.transcripts.iter().any(|t| t.session_id == id) {
        return Ok(session(id));
    }
    let exact: Vec<&Transcript> = all
        .transcripts
        .iter()
        .filter(|t| t.agent_id.as_deref() == Some(id))
        .collect();
    if !exact.is_empty() {
        return one_lane(raw, exact);
    }
    let mut cands: BTreeSet<(String, &'static str)> = BTreeSet::new();
    for t in &all.transcripts {
        if t.session_id.starts_with(id) {
            cands.insert((t.session_id.clone(), "session"));
        }
        if let Some(a) = t.agent_id.as_deref().filter(|a| a.starts_with(id)) {
            cands.insert((a.to_string(), "lane"));
        }
    }
    match cands.len() {
        0 => Err(Error::Target(match spawned_without_lane(all, "", id, home_args) {
            Some(hint) => format!("@{raw}: {hint}"),
            None => format!(
                "@{raw}: no session or subagent id starts with `{id}` (try `csift list{home_args}` to see ids)"
            ),
        })),
        1 => {
            let (found, kind) = cands.into_iter().next().unwrap_or_default();
            if kind == "session" {
                return Ok(session(&found));
            }
            one_lane(
                raw,
                all.transcripts
                    .iter()
                    .filter(|t| t.agent_id.as_deref() == Some(&found))
                    .collect(),
            )
        }
        n => {
            let list: Vec<String> = cands
                .iter()
                .take(20)
                .map(|(c, k)| format!("  @{c} ({k})"))
                .collect();
            let more = if n > 20 {
                format!("\n  … and {} more", n - 20)
            } else {
                String::new()
            };
            Err(Error::Target(format!(
                "@{raw} is ambiguous: {n} ids start with `{id}`; use a longer prefix:\n{}{more}",
                list.join("\n")
            )))
        }
    }
}

/// An id no lane file carries may still name a subagent a session spawned: its
/// spawn result records the id (`toolUseResult.agentId`, BG-004, or the
/// `agentId: <id>` footer of the result text, SUB-019) while the lane file was never written or is gone
/// (`agents` shows it as `no-lane-file`). Only on this error path are the main
/// transcripts of sessions starting with `session` read, for the first such
/// mention, so the error can say where the spawn and its answer are.
fn spawned_without_lane(all: &Walk, session: &str, id: &str, home_args: &str) -> Option<String> {
    let keys = [
        format!("\"agentId\":\"{id}"),
        format!("\"agentId\": \"{id}"),
        format!("agentId: {id}"),
    ];
    for t in &all.transcripts {
        if t.is_lane() || !t.session_id.starts_with(session) {
            continue;
        }
        let Ok(buf) = crate::scan::source::Source::open(&t.path) else {
            continue;
        };
        // The first mention, and the first on a line carrying a tool result's
        // echo (the spawn result); `agent_progress` records name it first.
        let mut first: Option<(usize, usize)> = None;
        let mut result: Option<usize> = None;
        // Its records nested in agent_progress records: first, last, count.
        let mut nested: Option<(usize, usize, usize)> = None;
        for k in &keys {
            let mut last_line = usize::MAX;
            for at in memchr::memmem::find_iter(&buf, k.as_bytes()) {
                let s = crate::scan::lines::line_start(&buf, at);
                let e = memchr::memchr(b'\n', &buf[at..]).map_or(buf.len(), |n| at + n);
                if first.is_none_or(|(f, _)| at < f) {
                    first = Some((at, at + k.len() - id.len()));
                }
                let line = &buf[s..e];
                // The record's own agentId key, not a result text's footer.
                if s != last_line
                    && k.starts_with('"')
                    && crate::scan::json::field(line, b"type") == Some(&b"\"progress\""[..])
                    && memchr::memmem::find(line, b"\"agent_progress\"").is_some()
                {
                    last_line = s;
                    nested = Some(match nested {
                        None => (s, s, 1),
                        Some((a, b, n)) => (a.min(s), b.max(s), n + 1),
                    });
                }
                // Its own echo: a subagent's progress records nest results too.
                if crate::scan::json::field(line, b"type") == Some(&b"\"user\""[..])
                    && memchr::memmem::find(line, b"\"toolUseResult\"").is_some()
                {
                    result = Some(result.map_or(at, |r| r.min(at)));
                    break;
                }
            }
        }
        let Some((at, start)) = first else { continue };
        // Cut while mapped: zeros past the cut, so no line number is trusted.
        if buf.check().is_err() {
            continue;
        }
        let full: String = buf[start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
            .map(|&b| b as char)
            .collect();
        let sid = t.session_id.get(..8).unwrap_or(&t.session_id);
        let no = |at| crate::scan::lines::line_no_at(&buf, at);
        let whereabouts = match result {
            Some(r) => format!(
                "its spawn result, with what it returned, is line {n} of the session: \
                 csift show @{sid} --line {n}{home_args}",
                n = no(r)
            ),
            None => format!(
                "the session first names it on line {n}: csift show @{sid} --line {n}{home_args}",
                n = no(at)
            ),
        };
        // Where its own records are, when the parent nests them.
        let records = match nested {
            Some((a, b, n)) => format!(
                "; its {n} records are nested in the session's agent_progress records, \
                 lines {}..{}: csift search PATTERN @{sid}{home_args} finds them (read \
                 `{sid}@{full} via agent_progress`), csift show @{sid} --line {}..{}{home_args} prints them",
                no(a),
                no(b),
                no(a),
                no(b)
            ),
            None => String::new(),
        };
        return Some(format!(
            "subagent `{full}` was spawned in session {sid} but has no lane file of its own \
             (`csift agents @{sid}{home_args}` shows it as no-lane-file); {whereabouts}{records}"
        ));
    }
    None
}

/// Whether a walk problem at `path` can matter to a command naming `ids`: a
/// folder that exists but could not be read (it may hold one; a dangling or
/// looping link holds nothing), or a path with a component that starts with a
/// named id (the file, or a session folder).
pub(crate) fn could_hold(path: &Path, ids: &[&str]) -> bool {
    let name = super::file_name(path);
    if !name.ends_with(".jsonl") {
        return fs::metadata(path).is_ok();
    }
    path.components().any(|c| {
        let c = c.as_os_str().to_string_lossy();
        let c = c.strip_suffix(".jsonl").unwrap_or(&c);
        let c = c.strip_prefix("agent-").unwrap_or(c);
        ids.iter().any(|id| c.starts_with(id))
    })
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
        .take(20)
        .map(|t| {
            format!(
                "  @{}@{}",
                super::short(&t.session_id),
                t.agent_id.as_deref().unwrap_or("")
            )
        })
        .collect();
    if many.len() > 20 {
        list.push(format!("  … and {} more", many.len() - 20));
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
        [] => Err(Error::Target(match spawned_without_lane(all, s, a, home_args) {
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

fn resolve_path(
    projects: &Path,
    t: &str,
    walk: &mut Walk,
    explicit: &mut BTreeSet<PathBuf>,
) -> Result<()> {
    let path = PathBuf::from(t);
    let meta = match fs::metadata(&path) {
        Ok(m) => m,
        Err(e) => {
            // A bare encoded name, as `ls ~/.claude/projects` shows it.
            let under = projects.join(t);
            if !t.contains('/') && under.is_dir() {
                walk::walk_project(&under, walk);
                return Ok(());
            }
            return Err(Error::Target(format!(
                "{t}: {e}; not a file, directory, `@id` or project name under {}",
                projects.display()
            )));
        }
    };
    if meta.is_file() {
        let t = transcript_from_file(&path, meta.len(), meta.modified().ok());
        explicit.insert(t.path.clone());
        walk.transcripts.push(t);
        return Ok(());
    }
    let canon = fs::canonicalize(&path).map_err(|e| Error::io(&path, e))?;
    let canon_projects = fs::canonicalize(projects).unwrap_or_else(|_| projects.to_path_buf());
    let parent_name = canon.parent().map(super::file_name).unwrap_or_default();
    if super::file_name(&canon) == "projects" || canon == canon_projects {
        walk::walk_projects(&canon, walk);
    } else if canon.parent() == Some(canon_projects.as_path())
        || (parent_name == "projects" && looks_encoded(&super::file_name(&canon)))
    {
        walk::walk_project(&canon, walk);
    } else if let Some(root) = std::iter::once(canon_projects.as_path())
        .filter(|p| canon.starts_with(p))
        .chain(canon.ancestors().skip(2).filter(|a| {
            // Another home's projects/<encoded>/<session folder>: not a real
            // project directory that sits under a folder named `projects`.
            super::file_name(a) == "projects"
                && canon
                    .strip_prefix(a)
                    .ok()
                    .and_then(|r| r.components().next())
                    .is_some_and(|c| looks_encoded(&c.as_os_str().to_string_lossy()))
        }))
        .next()
    {
        // A session folder (or deeper): its project's walk, kept to this
        // folder's session; in this home's projects or another's (a copied
        // home, named without --claude-home).
        let canon_projects = root.to_path_buf();
        let rel = canon
            .strip_prefix(&canon_projects)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut comps = rel.components();
        let project = comps
            .next()
            .map(|c| canon_projects.join(c))
            .unwrap_or_default();
        let session = comps
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned());
        let mut w = Walk::default();
        walk::walk_project(&project, &mut w);
        walk.issues.extend(w.issues);
        walk.transcripts.extend(
            w.transcripts
                .into_iter()
                .filter(|t| session.as_deref().is_none_or(|s| t.session_id == s)),
        );
    } else {
        resolve_cwd(projects, &canon, t, walk)?;
    }
    Ok(())
}

/// A real directory: the project Claude Code would have recorded for it as cwd.
/// Canonical (symlinks resolved) then encoded (PATH-002); past 200 encoded
/// characters, found by prefix scan as Claude Code does (PATH-005).
fn resolve_cwd(projects: &Path, canon: &Path, shown: &str, walk: &mut Walk) -> Result<()> {
    let cwd = canon.to_string_lossy();
    let exact = projects.join(encode::encode(&cwd));
    if exact.is_dir() {
        walk::walk_project(&exact, walk);
        return Ok(());
    }
    if let Some(prefix) = encode::capped_prefix(&cwd) {
        let mut found: Vec<PathBuf> = fs::read_dir(projects)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| super::file_name(p).starts_with(&prefix) && p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        found.sort();
        if !found.is_empty() {
            for dir in found {
                walk::walk_project(&dir, walk);
            }
            return Ok(());
        }
    }
    Err(Error::Target(format!(
        "{shown}: no Claude Code sessions recorded for this directory (looked for {})",
        exact.display()
    )))
}

/// A `.jsonl` named directly: its shape and session come from where it sits.
pub(crate) fn transcript_from_file(
    path: &Path,
    size: u64,
    mtime: Option<std::time::SystemTime>,
) -> Transcript {
    let name = super::file_name(path);
    let stem = name.strip_suffix(".jsonl").unwrap_or(&name).to_string();
    let ancestors: Vec<String> = path
        .ancestors()
        .skip(1)
        .take(5)
        .map(super::file_name)
        .collect();
    let in_subagents = ancestors.iter().position(|a| a == "subagents");
    let (shape, session_id, agent_id, project_dir) = if let Some(i) = in_subagents {
        let id = stem.strip_prefix("agent-").unwrap_or(&stem).to_string();
        let session = ancestors.get(i + 1).cloned().unwrap_or_default();
        let project = path
            .ancestors()
            .nth(i + 3)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        (walk::lane_shape(path, &id), session, Some(id), project)
    } else if let Some(id) = stem.strip_prefix("agent-") {
        let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
        (
            Shape::Flat,
            walk::flat_lane_session(path),
            Some(id.to_string()),
            parent,
        )
    } else {
        let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
        (Shape::Main, stem.clone(), None, parent)
    };
    Transcript {
        path: path.to_path_buf(),
        project_dir,
        session_id,
        agent_id,
        shape,
        size,
        mtime,
    }
}
