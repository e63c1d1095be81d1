//! Which files a walk turns into [`Transcript`]s, and the two-step selection
//! of the sessions active since an instant that it serves: `status` with no
//! target asks for the few sessions written lately out of thousands, and
//! building, merging and sorting a transcript for every file of the home was
//! a third of its time (measured on a 5,044-file home: the walk 23.9 ms,
//! 15.3 ms when it kept only the recent files). The first step walks the
//! whole home, every entry looked at and stat'ed as before, but keeps only
//! the files that can make a session active; the second walks again only
//! the active sessions' own names, for the rest of their files.

use std::ffi::OsStr;
use std::fs::Metadata;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use super::names;
use super::walk::{self, Walk};
use super::{Transcript, WalkIssue};
use crate::scan::hash::{FxMap, FxSet};

/// Which files a walk keeps.
#[derive(Debug, Clone, Default)]
pub(crate) enum Pick {
    /// Every transcript file.
    #[default]
    All,
    /// Each file that could make its session active: written at or after
    /// `since`, or of a session in `named` (a lane by its folder's session, a
    /// main file by its name, PATH-012), or an old flat `agent-*.jsonl` lane, whose
    /// session is in its records, not its name, so it is always kept.
    Since {
        since: SystemTime,
        named: Arc<FxSet<String>>,
    },
    /// In a project directory, only the entries of these sessions (`<id>` and
    /// `<id>.jsonl`), looked at before any stat; everything inside them.
    Sessions(Arc<FxSet<String>>),
}

impl Pick {
    /// Whether an entry named `name` is looked at at all (`top`: listed in a
    /// project directory, not in a lane folder).
    pub(crate) fn names(&self, top: bool, name: &OsStr) -> bool {
        match self {
            Pick::Sessions(ids) if top => ids.contains(names::stem(&name.to_string_lossy())),
            _ => true,
        }
    }

    /// Whether the transcript file `name` becomes a transcript: `session` is
    /// its lane folder's session, `None` in a project directory.
    pub(crate) fn keeps(&self, name: &OsStr, session: Option<&str>, meta: &Metadata) -> bool {
        let Pick::Since { since, named } = self else {
            return true;
        };
        if meta.modified().is_ok_and(|t| t >= *since) {
            return true;
        }
        match session {
            Some(s) => named.contains(s),
            None => names::named_session(&name.to_string_lossy()).is_none_or(|s| named.contains(s)),
        }
    }
}

/// Every file of each session that has at least one file `active` says yes
/// to, from the walk of `projects`, sorted by path, and the walk's problems.
/// `since` and `named` must pass every file `active` would: each file
/// written at or after `since`, every file of a session in `named` (a
/// superset is fine; only what `active` passes decides).
pub(crate) fn active_sessions(
    projects: &std::path::Path,
    since: SystemTime,
    named: FxSet<String>,
    active: impl Fn(&Transcript) -> bool,
) -> Walk {
    let mut walk = Walk {
        pick: Pick::Since {
            since,
            named: Arc::new(named),
        },
        ..Walk::default()
    };
    walk::walk_projects(projects, &mut walk);
    // The active sessions, by project directory.
    let mut by_project: FxMap<PathBuf, FxSet<String>> = FxMap::default();
    for t in walk.transcripts.iter().filter(|t| active(t)) {
        by_project
            .entry(t.project_dir.clone())
            .or_default()
            .insert(t.session_id.clone());
    }
    let projects: Vec<(&PathBuf, Arc<FxSet<String>>)> = by_project
        .iter()
        .map(|(dir, ids)| (dir, Arc::new(ids.clone())))
        .collect();
    let rest = crate::scan::par_map(&projects, |(dir, ids)| {
        let mut w = Walk {
            pick: Pick::Sessions(Arc::clone(ids)),
            ..Walk::default()
        };
        walk::walk_project(dir, &mut w);
        w
    });
    let mut transcripts = std::mem::take(&mut walk.transcripts);
    for w in rest {
        transcripts.extend(w.transcripts);
        // The first step looked at every entry: only a problem it did not
        // meet (the file changed between the two) is new.
        for i in w.issues {
            if !walk.issues.iter().any(|k| same(k, &i)) {
                walk.issues.push(i);
            }
        }
    }
    transcripts.retain(|t| {
        by_project
            .get(&t.project_dir)
            .is_some_and(|ids| ids.contains(&t.session_id))
    });
    walk.transcripts = transcripts;
    walk.sort();
    walk
}

fn same(a: &WalkIssue, b: &WalkIssue) -> bool {
    a.path == b.path && a.message == b.message
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::Path;
    use std::time::Duration;

    const DAY: Duration = Duration::from_secs(86_400);

    /// Writes `rel` under `root` naming `session` in its record, last
    /// written `ago` before now.
    fn file(root: &Path, rel: &str, session: &str, ago: Duration) {
        let f = root.join(rel);
        fs::create_dir_all(f.parent().unwrap()).unwrap();
        fs::write(
            &f,
            format!("{{\"type\":\"user\",\"sessionId\":\"{session}\"}}\n"),
        )
        .unwrap();
        let t = SystemTime::now() - ago;
        fs::File::options()
            .write(true)
            .open(&f)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }

    /// The two-step selection finds exactly what filtering the whole walk
    /// finds: every file of a session with one file in the window (a main
    /// file left behind by a recent lane, old lanes of a recent main file,
    /// flat lanes by the session in their records), registered sessions
    /// whatever their age, one session id in two projects judged apart, and
    /// each problem of the walk said once. The shapes: a main file named by
    /// its session (PATH-012), lanes under the session's folder, workflow
    /// lanes one level down (SUB-001), a flat lane's session in its records.
    #[test]
    fn active_sessions_match_the_filtered_whole_walk() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path();
        let old = 3 * DAY;
        let new = Duration::from_secs(60);
        for (rel, session, ago) in [
            ("-a/s1.jsonl", "s1", old),
            ("-a/s1/subagents/agent-l1.jsonl", "s1", new),
            ("-a/s1/subagents/workflows/r/agent-l2.jsonl", "s1", old),
            ("-a/s2.jsonl", "s2", new),
            ("-a/s2/subagents/agent-l3.jsonl", "s2", old),
            ("-a/s3.jsonl", "s3", old),
            ("-a/s3/subagents/agent-l4.jsonl", "s3", old),
            ("-a/s4.jsonl", "s4", old),
            ("-a/agent-x.jsonl", "s1", old),
            ("-a/agent-y.jsonl", "s3", old),
            ("-a/agent-z.jsonl", "s5", new),
            ("-b/s3.jsonl", "s3", new),
            ("-b/s6/subagents/agent-l5.jsonl", "s6", old),
        ] {
            file(p, rel, session, ago);
        }
        std::os::unix::fs::symlink(p.join("gone"), p.join("-a/dangling.jsonl")).unwrap();
        fs::create_dir_all(p.join("-b/dir.jsonl")).unwrap();

        let since = SystemTime::now() - DAY;
        let registered = |s: &str| s == "s4";
        let active =
            |t: &Transcript| registered(&t.session_id) || t.mtime.is_some_and(|m| m >= since);
        let mut whole = Walk::default();
        walk::walk_projects(p, &mut whole);
        whole.sort();
        let keys: FxSet<(PathBuf, String)> = whole
            .transcripts
            .iter()
            .filter(|t| active(t))
            .map(|t| (t.project_dir.clone(), t.session_id.clone()))
            .collect();
        let want: Vec<&Path> = whole
            .transcripts
            .iter()
            .filter(|t| keys.contains(&(t.project_dir.clone(), t.session_id.clone())))
            .map(|t| t.path.as_path())
            .collect();

        let named: FxSet<String> = ["s4".to_string()].into_iter().collect();
        let got = active_sessions(p, since - Duration::from_secs(2), named, active);
        let got_paths: Vec<&Path> = got.transcripts.iter().map(|t| t.path.as_path()).collect();
        assert_eq!(got_paths, want);
        let rel = |w: &[&Path]| -> Vec<String> {
            w.iter()
                .map(|x| x.strip_prefix(p).unwrap().display().to_string())
                .collect()
        };
        // What that is, spelled out (by path: `/` sorts below `.`): s3 only in
        // -b, s5 by its flat lane, s6 not.
        assert_eq!(
            rel(&got_paths),
            [
                "-a/agent-x.jsonl",
                "-a/agent-z.jsonl",
                "-a/s1/subagents/agent-l1.jsonl",
                "-a/s1/subagents/workflows/r/agent-l2.jsonl",
                "-a/s1.jsonl",
                "-a/s2/subagents/agent-l3.jsonl",
                "-a/s2.jsonl",
                "-a/s4.jsonl",
                "-b/s3.jsonl",
            ]
        );
        let issues = |w: &Walk| -> Vec<(PathBuf, String)> {
            w.issues
                .iter()
                .map(|i| (i.path.clone(), i.message.clone()))
                .collect()
        };
        assert_eq!(issues(&got), issues(&whole));
        assert_eq!(got.issues.len(), 2, "{:?}", got.issues);
    }

    /// A session's own names pass the project-level filter before any stat;
    /// a lane folder's entries all pass.
    #[test]
    fn sessions_pick_names_at_the_top_only() {
        let ids: FxSet<String> = ["s1".to_string()].into_iter().collect();
        let pick = Pick::Sessions(Arc::new(ids));
        assert!(pick.names(true, OsStr::new("s1.jsonl")));
        assert!(pick.names(true, OsStr::new("s1")));
        assert!(!pick.names(true, OsStr::new("s10.jsonl")));
        assert!(!pick.names(true, OsStr::new("agent-x.jsonl")));
        assert!(pick.names(false, OsStr::new("agent-x.jsonl")));
    }
}
