//! What one `csift list` row says about its transcript ([`Summary`]), as
//! [`facts`](super::facts) computes it and [`print`](super::print) shows it:
//! the plain data both sides share, with no reading or printing of its own.

use std::collections::BTreeSet;

use jiff::Timestamp;

use crate::record::MalformedKind;

/// Where a row's title came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum TitleSource {
    CustomTitle,
    AiTitle,
    Summary,
    FirstPrompt,
    /// A session opened by a slash command with no typed args (TURN-007).
    FirstCommand,
}

/// How much of a transcript a row was computed from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ReadMode {
    /// Every line: exact turns, models, titles and malformed lines.
    #[default]
    Whole,
    /// A head and a tail window: no turn count; models, titles and malformed
    /// lines only from the windows.
    HeadTail,
}

/// A malformed line found while reading: glued records or a torn final line.
/// Full validation is `stats`/`audit`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bad {
    /// 1-based line number; `None` in a tail window, whose line numbers are
    /// unknown without counting every line before it.
    pub(crate) line: Option<usize>,
    /// Byte offset of the line's start.
    pub(crate) offset: u64,
    pub(crate) kind: MalformedKind,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Summary {
    pub(crate) cwd: Option<String>,
    pub(crate) git_branch: Option<String>,
    pub(crate) versions: BTreeSet<String>,
    pub(crate) models: BTreeSet<String>,
    pub(crate) started: Option<Timestamp>,
    pub(crate) last_activity: Option<Timestamp>,
    /// Genuine-user turns; `None` when the file was not read whole.
    pub(crate) turns: Option<usize>,
    /// Lanes inline in a 1.0.x main file (`isSidechain:true` chains,
    /// [`crate::classify::sidechain`]); `None` when the file was not read whole.
    pub(crate) inline_lanes: Option<usize>,
    pub(crate) read: ReadMode,
    /// The file's length as it was read (at open), which the row shows: the
    /// tree walk's may be another version's (MISC-017).
    pub(crate) bytes: u64,
    pub(crate) custom_title: Option<String>,
    pub(crate) ai_title: Option<String>,
    /// The newest `summary` whose leaf is a record of this transcript.
    pub(crate) summary: Option<String>,
    /// Every `summary` line read, in file order: (title, leafUuid). Claude
    /// Code writes a resumed session's summaries of OTHER sessions at its top
    /// (7 of the 9 public transcripts with one name no record of their own), so
    /// one titles the row only once its leaf is found here ([`facts`](super::facts)).
    pub(crate) summaries: Vec<(String, String)>,
    pub(crate) first_prompt: Option<String>,
    /// `/name` of the first slash command, for sessions with no typed prompt.
    pub(crate) first_command: Option<String>,
    /// Glued records (a structural `}{"`) and a torn final line, in file order.
    pub(crate) malformed: Vec<Bad>,
    /// The uuid of the compact_boundary that is the first timestamped record:
    /// the session was minted by copying another at that compaction
    /// ([`clones`](super::clones), CMP-012). Main transcripts only.
    pub(crate) clone_boundary: Option<String>,
    /// Sessions this file's `continued-in` records name (MISC-028), among the
    /// lines read.
    pub(crate) continued_in: Vec<String>,
}

impl Summary {
    pub(crate) fn title(&self) -> Option<(&str, TitleSource)> {
        // Last-wins within a type (REC-002); an explicit rename outranks the AI title.
        self.custom_title
            .as_deref()
            .map(|t| (t, TitleSource::CustomTitle))
            .or(self.ai_title.as_deref().map(|t| (t, TitleSource::AiTitle)))
            .or(self.summary.as_deref().map(|t| (t, TitleSource::Summary)))
            .or(self
                .first_prompt
                .as_deref()
                .map(|t| (t, TitleSource::FirstPrompt)))
            .or(self
                .first_command
                .as_deref()
                .map(|t| (t, TitleSource::FirstCommand)))
    }
}
