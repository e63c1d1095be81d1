//! `csift search` resolved from its flags once: the patterns and targets, what
//! each file's search needs ([`Config`]), and the one output mode the flags
//! ask for ([`Mode`]). Every flag is read and checked here; `run` and the
//! printers read only the result.

use crate::classify::{Label, LabelSet};
use crate::cli::search::{CountBy, SearchArgs};
use crate::error::{Error, Result};
use crate::globs::NameGlobs;
use crate::output::Format;
use crate::timefmt::Window;

use super::file::Config;
use super::{confirm, matcher, prefilter, print};
use crate::cmd::Problems;

/// What the hits become on stdout: one mode per run.
pub(super) enum Mode {
    /// `-c` (`count`: `path:hits`) or `-l` (the path): one line per file with hits.
    PerFile { count: bool },
    /// `--raw`: each line holding a hit, as read.
    Raw,
    /// `--count-by KEY`: hits per key, most first.
    CountBy(CountBy),
    /// Each hit with the exchange it completes (alone with --no-exchange).
    Exchanges(print::Cut),
}

/// A search run, resolved.
pub(super) struct Resolved {
    /// Targets: the positional ones, and with `-e` the PATTERN positional too.
    pub(super) targets: Vec<String>,
    pub(super) file: Config,
    pub(super) mode: Mode,
    pub(super) format: Format,
    /// `-m`: exchanges (or, with --raw, lines) printed at most.
    pub(super) max_count: Option<usize>,
}

impl Resolved {
    /// Resolve `args`; a note about flags that do nothing together goes to
    /// `problems`. Errors are the run's usage errors (a bad pattern, label,
    /// glob or time).
    pub(super) fn from_args(args: &SearchArgs, problems: &Problems) -> Result<Resolved> {
        let mut patterns = args.regexp.clone();
        let mut targets = args.targets.clone();
        match (&args.pattern, patterns.is_empty()) {
            (Some(p), true) => patterns.push(p.clone()),
            // With -e, the positional is a target.
            (Some(p), false) => targets.insert(0, p.clone()),
            (None, _) => {}
        }
        let opts = matcher::Options {
            fixed: args.fixed_strings,
            word: args.word,
            ignore_case: args.ignore_case,
            case_sensitive: args.case_sensitive,
            multiline: args.multiline,
        };
        let matcher = matcher::Matcher::new(&patterns, &opts)?;
        let prefilter = prefilter_of(&matcher, args);
        // A persisted output's text is not on the line: its lines are read whole.
        let confirm = (prefilter.is_some() && !args.resolve_persisted)
            .then(|| confirm::build(&matcher.patterns, matcher.case_insensitive))
            .flatten();
        let (labels, attachments) = labels(args, problems)?;
        let per_file = args.count || args.files_with_matches;
        let file = Config {
            matcher,
            prefilter,
            confirm,
            labels,
            needles: crate::classify::needles::of_set(labels),
            skip_attachments: args.labels.is_empty() && !attachments,
            tool: NameGlobs::parse(&args.tool)?,
            model: NameGlobs::parse(&args.model)?,
            window: Window::parse(args.common.since.as_deref(), args.common.until.as_deref())?,
            resolve_persisted: args.resolve_persisted,
            exchanges: !args.no_exchange && !per_file && args.count_by.is_none() && !args.raw,
            tool_names: !per_file && !args.raw && args.count_by.is_none_or(|k| k == CountBy::Tool),
            embeds: !args.common.no_subagents,
            count_by: args.count_by,
            raw: args.raw,
        };
        Ok(Resolved {
            targets,
            file,
            mode: mode(args),
            format: args.common.format,
            max_count: args.max_count,
        })
    }
}

/// The byte prefilter for the patterns (and, with --resolve-persisted, the
/// pointer a persisted output's preview holds); none when the pattern matches
/// everything or with --no-prefilter.
fn prefilter_of(matcher: &matcher::Matcher, args: &SearchArgs) -> Option<prefilter::Prefilter> {
    if matcher.match_all || args.no_prefilter {
        return None;
    }
    let mut pre_patterns = matcher.patterns.clone();
    if args.resolve_persisted {
        pre_patterns.push(regex::escape("<persisted-output>"));
    }
    prefilter::build(&pre_patterns, matcher.case_insensitive)
}

/// The labels searched, and whether attachment records are asked for.
fn labels(args: &SearchArgs, problems: &Problems) -> Result<(LabelSet, bool)> {
    let mut labels = if args.labels.is_empty() {
        LabelSet::visible()
    } else {
        LabelSet::parse(&args.labels).map_err(Error::Usage)?
    };
    // --attachments lifts the default skip of attachment records; with -t the
    // labels alone decide, so `-t user.message --attachments` stays user
    // messages (and says that no attachment label was named). Counting by
    // attachment type asks for them too.
    let attachments = args.attachments || args.count_by == Some(CountBy::Attachment);
    if attachments && args.labels.is_empty() {
        labels = labels
            .with(Label::HarnessMetaHook)
            .with(Label::HarnessMetaAttachment);
    } else if args.attachments
        && !labels.contains(Label::HarnessMetaHook)
        && !labels.contains(Label::HarnessMetaAttachment)
    {
        problems.note(
            "--attachments: -t names no attachment label \
             (harness.meta.hook, harness.meta.attachment), so no attachment is searched",
        );
    }
    Ok((labels, attachments))
}

/// The output mode; -c and -l first, then --raw, then --count-by.
fn mode(args: &SearchArgs) -> Mode {
    if args.count || args.files_with_matches {
        Mode::PerFile { count: args.count }
    } else if args.raw {
        Mode::Raw
    } else if let Some(key) = args.count_by {
        Mode::CountBy(key)
    } else {
        Mode::Exchanges(print::Cut {
            no_truncate: args.no_truncate,
            context: args.context,
        })
    }
}
