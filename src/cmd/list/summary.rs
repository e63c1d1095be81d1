//! What one `csift list` row says about its transcript ([`Summary`]), as
//! [`facts`](super::facts) computes it and [`print`](super::print) shows it:
//! the plain data both sides share, with no reading or printing of its own.

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
    pub(crate) versions: Names,
    pub(crate) models: Names,
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

/// A few names, each once, in order (a row's versions and models): a set
/// as a sorted list. A `BTreeSet`'s first node alone takes ~280 bytes, two a
/// row, which a warm listing of 5,000 rows allocated, faulted in and read
/// back cold to print.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Names(Vec<String>);

impl Names {
    /// Add `name` in order; false when it is already here.
    pub(crate) fn insert(&mut self, name: String) -> bool {
        match self.0.binary_search(&name) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, name);
                true
            }
        }
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        self.0.binary_search_by(|n| n.as_str().cmp(name)).is_ok()
    }

    /// In order, each once.
    pub(crate) fn iter(&self) -> std::slice::Iter<'_, String> {
        self.0.iter()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Extend<String> for Names {
    fn extend<I: IntoIterator<Item = String>>(&mut self, names: I) {
        for n in names {
            self.insert(n);
        }
    }
}

impl FromIterator<String> for Names {
    fn from_iter<I: IntoIterator<Item = String>>(names: I) -> Names {
        let mut all = Names::default();
        all.extend(names);
        all
    }
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

#[cfg(test)]
mod tests {
    use super::Names;

    /// Names keep the order and the single copies a `BTreeSet` kept.
    #[test]
    fn names_are_a_sorted_set() {
        let mut n: Names = ["2.1.0", "1.0.17", "2.1.0", "10.0"]
            .map(String::from)
            .into_iter()
            .collect();
        assert!(!n.insert("1.0.17".into()));
        assert!(n.insert("0.9".into()));
        let all: Vec<&str> = n.iter().map(String::as_str).collect();
        assert_eq!(all, ["0.9", "1.0.17", "10.0", "2.1.0"]);
        assert!(n.contains("10.0") && !n.contains("10"));
        assert!(!n.is_empty() && Names::default().is_empty());
    }
}
