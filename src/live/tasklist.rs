//! The session task list Claude Code's task tools keep: one JSON file per task
//! under `<home>/tasks/<owner>/`, where the owner folder is the full session id
//! or `session-<first 8 characters>` (REG-007, MISC-005, BG-034) - both forms
//! are read and merged. A file is `{id, subject, description, status, blocks,
//! blockedBy}`, `activeForm`, `owner` and `metadata` optional (REG-008); ids are
//! strings (a number is tolerated); `status` is an open set. Anything not
//! `completed` (or `deleted`, which the update tool accepts) is an open row with
//! its verbatim status; completed ones are counted. Read point-in-time, never
//! written; `<home>/tasks/` holds no background task (BG-035).

use std::path::{Path, PathBuf};

use serde::Serialize;

/// One open task-list entry.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Item {
    pub(crate) id: String,
    pub(crate) subject: Option<String>,
    pub(crate) status: String,
    pub(crate) active_form: Option<String>,
    pub(crate) owner: Option<String>,
    pub(crate) blocked_by: Vec<String>,
    pub(crate) blocks: Vec<String>,
    pub(crate) file: PathBuf,
}

/// A session's task list.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct TaskList {
    /// The owner folders found (none: the session never used the task tools).
    pub(crate) dirs: Vec<PathBuf>,
    pub(crate) open: Vec<Item>,
    pub(crate) completed: usize,
    pub(crate) deleted: usize,
    /// Files that are not a task (unparseable or no id), each with why.
    #[serde(skip)]
    pub(crate) skipped: Vec<(PathBuf, String)>,
}

/// Read `<home>/tasks` for `session_id`. `None` when `<home>/tasks` does not exist.
pub(crate) fn read(home: &Path, session_id: &str) -> Option<TaskList> {
    let root = home.join("tasks");
    if !root.is_dir() {
        return None;
    }
    let mut list = TaskList::default();
    let mut dirs = vec![root.join(session_id)];
    if let Some(prefix) = session_id.get(..8) {
        dirs.push(root.join(format!("session-{prefix}")));
    }
    for dir in dirs.into_iter().filter(|d| d.is_dir()) {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            list.skipped
                .push((dir.clone(), "cannot list the task folder".into()));
            continue;
        };
        let mut files: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for f in files {
            read_one(&f, &mut list);
        }
        list.dirs.push(dir);
    }
    // in_progress first, then by numeric id (REG-008).
    list.open.sort_by(|a, b| {
        (
            a.status != "in_progress",
            a.id.parse::<u64>().unwrap_or(u64::MAX),
            &a.id,
        )
            .cmp(&(
                b.status != "in_progress",
                b.id.parse::<u64>().unwrap_or(u64::MAX),
                &b.id,
            ))
    });
    Some(list)
}

fn read_one(f: &Path, list: &mut TaskList) {
    let v: serde_json::Value = match std::fs::read(f)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
    {
        Some(v) => v,
        None => {
            list.skipped
                .push((f.to_path_buf(), "not a readable JSON task file".into()));
            return;
        }
    };
    let s = |k: &str| {
        v.get(k)
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
    };
    let id = match v.get("id") {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Number(n)) => n.to_string(),
        _ => {
            list.skipped.push((
                f.to_path_buf(),
                "a JSON object with no id: not a task".into(),
            ));
            return;
        }
    };
    let status = s("status").unwrap_or_else(|| "(none)".into());
    match status.as_str() {
        "completed" => list.completed += 1,
        "deleted" => list.deleted += 1,
        _ => {
            let ids = |k: &str| -> Vec<String> {
                v.get(k)
                    .and_then(serde_json::Value::as_array)
                    .map(|a| {
                        a.iter()
                            .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            list.open.push(Item {
                id,
                subject: s("subject"),
                status,
                active_form: s("activeForm"),
                owner: s("owner"),
                blocked_by: ids("blockedBy"),
                blocks: ids("blocks"),
                file: f.to_path_buf(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// REG-007, REG-008, MISC-005, BG-034: both folder forms merged; open rows
    /// verbatim, in progress first; completed counted; a number id tolerated.
    #[test]
    fn both_folder_forms_merge_reg_007_008() {
        let d = tempfile::tempdir().unwrap();
        let sid = "4d5611e5-241a-462a-8d15-5122611a9569";
        let a = d.path().join("tasks").join(sid);
        let b = d.path().join("tasks").join("session-4d5611e5");
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(a.join("1.json"), r#"{"id":"1","subject":"one","description":"","status":"completed","blocks":[],"blockedBy":[]}"#).unwrap();
        std::fs::write(b.join("2.json"), r#"{"id":"2","subject":"two","description":"","status":"pending","blocks":[],"blockedBy":["3"]}"#).unwrap();
        std::fs::write(b.join("3.json"), r#"{"id":3,"subject":"three","description":"","status":"in_progress","activeForm":"Doing three","blocks":["2"],"blockedBy":[]}"#).unwrap();
        std::fs::write(b.join("x.json"), "{not json").unwrap();
        let l = read(d.path(), sid).unwrap();
        assert_eq!(l.dirs.len(), 2);
        assert_eq!(l.completed, 1);
        let ids: Vec<&str> = l.open.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["3", "2"]);
        assert_eq!(l.open[1].blocked_by, ["3"]);
        assert_eq!(l.skipped.len(), 1);
        assert!(read(tempfile::tempdir().unwrap().path(), sid).is_none());
    }
}
