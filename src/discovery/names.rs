//! What a transcript's place and name say about it, and, for the old flat
//! lane layout, its first records: the session a project file belongs to
//! (PATH-012), a lane's shape (SUB-001, SUB-002), a flat lane's session.
//! The walk, its pick and the path targets all name files by these rules.

use std::path::Path;

use super::Shape;

/// An entry's name less a `.jsonl` suffix.
pub(crate) fn stem(name: &str) -> &str {
    name.strip_suffix(".jsonl").unwrap_or(name)
}

/// The session a project directory's transcript belongs to by its name (a
/// main file's basename is its session id, PATH-012), or `None` for an old
/// flat `agent-*.jsonl` lane, whose session is in its records.
pub(crate) fn named_session(name: &str) -> Option<&str> {
    let stem = stem(name);
    (!stem.starts_with("agent-")).then_some(stem)
}

/// Shape of a file found under `<session>/subagents/` (SUB-001, SUB-002).
pub(crate) fn lane_shape(path: &Path, id: &str) -> Shape {
    let parent = path.parent().map(super::file_name).unwrap_or_default();
    let grand = path
        .parent()
        .and_then(Path::parent)
        .map(super::file_name)
        .unwrap_or_default();
    if parent == "subagents" {
        if id.starts_with("acompact") {
            Shape::Compact
        } else {
            Shape::Subagent
        }
    } else if grand == "workflows" {
        Shape::Workflow { run: parent }
    } else {
        Shape::OtherLane
    }
}

/// The owning session of an old flat `agent-<hex>.jsonl` lane: the `sessionId` of
/// its first records (the file name carries only the agent id).
pub(crate) fn flat_lane_session(path: &Path) -> String {
    session_id_in(&crate::scan::source::head(path, 64 * 1024))
        .unwrap_or_else(|| "unknown".to_string())
}

/// The first `"sessionId"` string value in a byte slice (either spacing,
/// REC-038).
pub(crate) fn session_id_in(bytes: &[u8]) -> Option<String> {
    let v = crate::scan::pair::first_plain_str(bytes, crate::scan::lit!(b"\"sessionId\""))?;
    std::str::from_utf8(v).ok().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// REC-038: an old flat lane re-spaced by a JSON dump still names its session.
    #[test]
    fn session_id_in_reads_either_spacing_rec_038() {
        let head = br#"{"text":"\"sessionId\":\"fake\"","sessionId": "s-1","x":1}"#;
        assert_eq!(session_id_in(head).as_deref(), Some("s-1"));
        assert_eq!(
            session_id_in(br#"{"sessionId":"s-2"}"#).as_deref(),
            Some("s-2")
        );
        assert_eq!(session_id_in(br#"{"sessionId":null}"#), None);
    }
}
