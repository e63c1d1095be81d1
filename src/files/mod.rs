//! Touch events: which tool call touched which path, how, and with what
//! evidence. The engine under `csift files` and `csift recover` (and the
//! `agents --with-files` and `export` surfaces that will reuse it).
//!
//! One pass per transcript ([`pass`]) finds candidate lines on the tools'
//! needles (MISC-029, MISC-030), parses only those, and joins each tool_use to
//! its result by `tool_use_id` within the file (REC-075) — top-level records
//! and the subagent records nested in `agent_progress` alike. Structured tools
//! name their path (REC-079: `file_path`, NotebookEdit `notebook_path`); their
//! result echo says create vs update (REC-055/071/086), full vs partial vs
//! capped read (REC-042…051, FH-026/043), and carries the freshness signals
//! (FH-005…007). Bash commands are read lexically ([`shell`]). File-history
//! snapshots give version sightings ([`history`]): an unexplained jump is an
//! external write (FH-014…022).

pub(crate) mod calls;
pub(crate) mod echo;
pub(crate) mod evidence;
pub(crate) mod history;
pub(crate) mod join;
pub(crate) mod needles;
pub(crate) mod pass;
pub(crate) mod path;
pub(crate) mod place;
pub(crate) mod shell;
pub(crate) mod skim;

use serde::Serialize;

/// How a path was resolved (BASH-023).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Class {
    /// Absolute as written.
    Absolute,
    /// Relative, joined onto the record's `cwd` (no inference).
    CwdJoined,
    /// Relative after an in-command `cd`, joined onto the tracked directory.
    CdTracked,
    /// An expansion, or relative with no directory known: kept verbatim.
    Unresolved,
    /// A class marker (`fmt:cargo`): a command mutating files it never names.
    Marker,
}

impl Class {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Class::Absolute => "absolute",
            Class::CwdJoined => "cwd-joined",
            Class::CdTracked => "cd-tracked",
            Class::Unresolved => "unresolved",
            Class::Marker => "marker",
        }
    }
}

/// What a touch did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Kind {
    /// A Read whose echo covers the whole file.
    ReadFull,
    /// A Read of a window (offset/limit).
    ReadPartial,
    /// A whole-file Read cut by the token cap (FH-026, FH-043, FH-044).
    ReadTruncated,
    /// A Read whose result carries no echo (a subagent lane, SUB-029): coverage unknown.
    Read,
    /// A re-Read answered `file_unchanged` (REC-046): no content.
    ReadUnchanged,
    /// An image, PDF or notebook Read (REC-043, IMG-011/012).
    ReadOther,
    /// A Write whose echo says `create` (REC-055/071/086).
    Create,
    /// A Write whose echo says `update`.
    Update,
    /// A Write with no echo: create or update unknown.
    Write,
    Edit,
    MultiEdit,
    NotebookEdit,
    /// A structured call whose result is an error (REC-074): it never landed.
    Failed,
    BashRead,
    BashWrite,
    BashAppend,
    BashDelete,
    BashMoveFrom,
    BashMoveTo,
    BashCopyTo,
    BashTouch,
    /// A class-marker command (or a PowerShell call, WIN-005): files unknown.
    Opaque,
    /// A file-history version jump with no tool write in its interval (FH-015).
    ExternalWrite,
    /// A Bash result's `staleReadFileStateHint` names the file (FH-005).
    HintModified,
    /// An Edit applied to a file that had drifted on disk (FH-006, FH-035).
    StaleRecovered,
    /// An `edited_text_file` attachment: changed outside the tool stream (FH-007).
    EditedTextFile,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::ReadFull => "read_full",
            Kind::ReadPartial => "read_partial",
            Kind::ReadTruncated => "read_truncated",
            Kind::Read => "read",
            Kind::ReadUnchanged => "read_unchanged",
            Kind::ReadOther => "read_other",
            Kind::Create => "create",
            Kind::Update => "update",
            Kind::Write => "write",
            Kind::Edit => "edit",
            Kind::MultiEdit => "multi_edit",
            Kind::NotebookEdit => "notebook_edit",
            Kind::Failed => "failed",
            Kind::BashRead => "bash_read",
            Kind::BashWrite => "bash_write",
            Kind::BashAppend => "bash_append",
            Kind::BashDelete => "bash_delete",
            Kind::BashMoveFrom => "bash_move_from",
            Kind::BashMoveTo => "bash_move_to",
            Kind::BashCopyTo => "bash_copy_to",
            Kind::BashTouch => "bash_touch",
            Kind::Opaque => "opaque",
            Kind::ExternalWrite => "external_write",
            Kind::HintModified => "hint_modified",
            Kind::StaleRecovered => "stale_recovered",
            Kind::EditedTextFile => "edited_text_file",
        }
    }

    pub(crate) fn is_read(self) -> bool {
        matches!(
            self,
            Kind::ReadFull
                | Kind::ReadPartial
                | Kind::ReadTruncated
                | Kind::Read
                | Kind::ReadUnchanged
                | Kind::ReadOther
                | Kind::BashRead
        )
    }

    /// A structured write that landed (FH-037's four tools).
    pub(crate) fn is_structured_write(self) -> bool {
        matches!(
            self,
            Kind::Create
                | Kind::Update
                | Kind::Write
                | Kind::Edit
                | Kind::MultiEdit
                | Kind::NotebookEdit
        )
    }

    /// A Bash op that changes the file.
    pub(crate) fn is_bash_write(self) -> bool {
        matches!(
            self,
            Kind::BashWrite
                | Kind::BashAppend
                | Kind::BashDelete
                | Kind::BashMoveFrom
                | Kind::BashMoveTo
                | Kind::BashCopyTo
        )
    }

    /// A freshness signal or external write: the file changed outside the stream.
    pub(crate) fn is_signal(self) -> bool {
        matches!(
            self,
            Kind::ExternalWrite | Kind::HintModified | Kind::StaleRecovered | Kind::EditedTextFile
        )
    }
}

/// A string many touches share (a path, a time, an agent id), counted
/// instead of copied: a home's touches held until the end are mostly these.
pub(crate) type Shared = std::sync::Arc<str>;

/// One touch of one path.
#[derive(Debug, Clone)]
pub(crate) struct Touch {
    /// Interned per transcript ([`calls::Intake::intern`]).
    pub(crate) path: Shared,
    pub(crate) class: Class,
    pub(crate) kind: Kind,
    /// `Read`, `Write`, `Edit`, `MultiEdit`, `NotebookEdit`, `Bash`,
    /// `PowerShell`, `attachment` or `file-history`.
    pub(crate) tool: &'static str,
    /// The subagent whose work this is: the lane's, or the nested record's.
    pub(crate) agent_id: Option<Shared>,
    pub(crate) line: usize,
    /// Order among touches of one line (the ops of one command).
    pub(crate) sub: u32,
    pub(crate) turn: Option<usize>,
    pub(crate) ts: Option<Shared>,
    /// When the result landed (the tool_result record's time), for ordering.
    pub(crate) landed: Option<Shared>,
    /// Content evidence, gathered only when asked for (recover): decoded, or
    /// where in the transcript to read it again ([`place`]).
    pub(crate) evidence: Option<Box<place::Kept>>,
}

/// What the pass found in one transcript.
#[derive(Debug, Default)]
pub(crate) struct FileTouches {
    pub(crate) touches: Vec<Touch>,
    /// File-history version sightings, in line order.
    pub(crate) sightings: Vec<history::Sighting>,
    pub(crate) malformed: usize,
    pub(crate) error: Option<String>,
    /// The file as scanned, when its evidence is kept as places in it.
    pub(crate) seen: Option<crate::scan::source::Seen>,
}

pub(crate) use pass::Options;

/// Scan `transcripts` in parallel (results in input order), then add the
/// external writes their file-history sightings reveal, per session.
pub(crate) fn scan_all(
    transcripts: &[crate::discovery::Transcript],
    opts: &Options<'_>,
) -> Vec<FileTouches> {
    let mut all = crate::scan::par_map(transcripts, |t| pass::scan(t, opts));
    let sessions: Vec<&str> = transcripts.iter().map(|t| t.session_id.as_str()).collect();
    pass::external_writes(&mut all, &sessions);
    all
}
