//! `csift search`: regex over labelled units, printed as complete exchanges.
//! Files are searched in parallel and reported in path order; per-file errors are
//! reported and the run goes on (exit 2 at the end, as ripgrep).

pub(crate) mod file;
pub(crate) mod hit;
pub(crate) mod matcher;
mod persisted;
pub(crate) mod prefilter;
pub(crate) mod print;
mod unit;
pub(crate) mod unmodelled;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::Write;
use std::time::Instant;

use serde::Serialize;

use crate::classify::{Label, LabelSet};
use crate::cli::search::{CountBy, SearchArgs};
use crate::error::Error;
use crate::globs::NameGlobs;
use crate::output::{Format, Out};
use crate::timefmt::{self, Window};

use super::{Exit, Problems};
use file::{Config, FileResult};
use hit::Hit;

/// The taxonomy, one label a line, then the aliases `-t` accepts, each with
/// the leaf it names; with `--format json`, one
/// `{"type":"label","label","visible","description"}` object a line, then one
/// `{"type":"alias","alias","label"}` per alias.
pub(crate) fn list_labels(out: &mut Out, json: bool) -> std::io::Result<()> {
    #[derive(Serialize)]
    struct Row {
        #[serde(rename = "type")]
        kind: &'static str,
        label: &'static str,
        visible: bool,
        description: &'static str,
    }
    #[derive(Serialize)]
    struct Alias {
        #[serde(rename = "type")]
        kind: &'static str,
        alias: &'static str,
        label: &'static str,
    }
    for l in Label::ALL {
        if json {
            out.json(&Row {
                kind: "label",
                label: l.name(),
                visible: l.visible(),
                description: l.doc(),
            })?;
            continue;
        }
        writeln!(
            out,
            "{:<34} {:<9} {}",
            l.name(),
            if l.visible() { "visible" } else { "invisible" },
            l.doc()
        )?;
    }
    if !json {
        writeln!(out, "\naliases (earlier spellings -t accepts):")?;
    }
    for &(alias, l) in Label::ALIASES {
        match json {
            true => out.json(&Alias {
                kind: "alias",
                alias,
                label: l.name(),
            })?,
            false => writeln!(out, "{alias:<44} = {}", l.name())?,
        }
    }
    Ok(())
}

/// Lines of unmodelled types said on stderr; the rest are counted.
const UNMODELLED_SHOWN: usize = 10;

#[derive(Serialize)]
struct Summary {
    #[serde(rename = "type")]
    kind: &'static str,
    hits: usize,
    exchanges: usize,
    dropped: usize,
    files: usize,
    files_with_hits: usize,
    bytes: u64,
    malformed_lines: usize,
    /// Lines where the pattern matched only in a record or block type csift
    /// does not model (each said on stderr, up to [`UNMODELLED_SHOWN`]).
    unmodelled_lines: usize,
    /// Files or targets that could not be read (said on stderr; exit 2).
    errors: usize,
    elapsed_ms: u128,
}

pub(crate) fn run(
    args: &SearchArgs,
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    if args.list_labels {
        list_labels(out, args.common.format == crate::output::Format::Json)?;
        return Ok(Exit::Found);
    }
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
    let mut pre_patterns = matcher.patterns.clone();
    if args.resolve_persisted {
        pre_patterns.push(regex::escape("<persisted-output>"));
    }
    let prefilter = if matcher.match_all || args.no_prefilter {
        None
    } else {
        prefilter::build(&pre_patterns, matcher.case_insensitive)
    };
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
    let cfg = Config {
        matcher,
        prefilter,
        labels,
        needles: crate::classify::needles::of_set(labels),
        skip_attachments: args.labels.is_empty() && !attachments,
        tool: NameGlobs::parse(&args.tool)?,
        model: NameGlobs::parse(&args.model)?,
        window: Window::parse(args.common.since.as_deref(), args.common.until.as_deref())?,
        resolve_persisted: args.resolve_persisted,
        exchanges: !args.no_exchange
            && !args.count
            && !args.files_with_matches
            && args.count_by.is_none()
            && !args.raw,
        tool_names: !args.count
            && !args.files_with_matches
            && !args.raw
            && args.count_by.is_none_or(|k| k == CountBy::Tool),
        embeds: !args.common.no_subagents,
        count_by: args.count_by,
        raw: args.raw,
    };
    let transcripts = super::select(&args.common, &targets, problems)?;
    let home = crate::discovery::home::from_env(args.common.claude_home.clone())?;
    let results: Vec<FileResult> = crate::scan::par_map(&transcripts, |t| file::search(t, &cfg));

    let mut total_hits = 0;
    let mut bytes = 0;
    let mut malformed = 0;
    let mut unmodelled = 0;
    let mut files_with_hits = 0;
    for (t, r) in transcripts.iter().zip(&results) {
        if let Some(e) = &r.error {
            problems.report(&t.path, e);
        }
        for n in &r.notes {
            problems.note(crate::output::sanitize::one_line(n));
        }
        for m in &r.malformed {
            problems.note(format_args!(
                "{}:{}: malformed line ({}): {}",
                crate::output::sanitize::path(&t.path),
                m.line,
                m.kind.name(),
                m.detail
            ));
        }
        for (no, what) in &r.unmodelled {
            unmodelled += 1;
            if unmodelled <= UNMODELLED_SHOWN {
                let target = t.target_args(&home);
                problems.note(format_args!(
                    "{}:{no}: the pattern matches only in {}, which no label holds; `csift show {} --line {no} --raw` prints the line",
                    crate::output::sanitize::path(&t.path),
                    crate::output::sanitize::one_line(what),
                    crate::output::sanitize::one_line(&target)
                ));
            }
        }
        total_hits += r.hits.len();
        files_with_hits += usize::from(!r.hits.is_empty());
        bytes += r.bytes;
        malformed += r.malformed.len();
    }

    unmatched_globs(
        problems,
        "--tool",
        "tool name",
        cfg.tool.as_ref(),
        &results,
        |r| &r.tools_seen,
    );
    unmatched_globs(
        problems,
        "--model",
        "model",
        cfg.model.as_ref(),
        &results,
        |r| &r.models_seen,
    );

    if unmodelled > UNMODELLED_SHOWN {
        problems.note(format_args!(
            "… and {} more lines where the pattern matches only a record or block type csift does not model",
            unmodelled - UNMODELLED_SHOWN
        ));
    }

    let st = out.style;
    let mut exchanges = 0;
    let mut dropped = 0;
    if args.count || args.files_with_matches {
        for (t, r) in transcripts.iter().zip(&results) {
            if r.hits.is_empty() {
                continue;
            }
            match (args.common.format, args.count) {
                (Format::Json, _) => out.json(&serde_json::json!({
                    "type": "count", "session_id": t.session_id, "agent_id": t.agent_id,
                    "file": t.path.display().to_string(), "hits": r.hits.len(),
                }))?,
                (Format::Human, true) => writeln!(
                    out,
                    "{}:{}",
                    crate::output::sanitize::path(&t.path),
                    r.hits.len()
                )?,
                (Format::Human, false) => {
                    writeln!(out, "{}", crate::output::sanitize::path(&t.path))?
                }
            }
        }
    } else if args.raw {
        (exchanges, dropped) = raw_lines(out, &transcripts, &results, args, problems)?;
    } else if let Some(key) = args.count_by {
        let mut table: BTreeMap<Option<String>, usize> = BTreeMap::new();
        for (t, r) in transcripts.iter().zip(&results) {
            for h in &r.hits {
                *table.entry(count_key(key, t, h)).or_default() += 1;
            }
        }
        let mut rows: Vec<(Option<String>, usize)> = table.into_iter().collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        for (k, n) in &rows {
            match args.common.format {
                // No tool, model, version or time: key null, not a placeholder.
                Format::Json => {
                    out.json(&serde_json::json!({"type": "count", "key": k, "hits": n}))?
                }
                Format::Human => writeln!(
                    out,
                    "{n:>8}  {}",
                    crate::output::sanitize::one_line(k.as_deref().unwrap_or("-"))
                )?,
            }
        }
    } else {
        let cut = print::Cut {
            no_truncate: args.no_truncate,
            context: args.context,
        };
        let mut seen: HashSet<(usize, Vec<hit::UnitKey>)> = HashSet::new();
        for (fi, r) in results.iter().enumerate() {
            // A partner that is a hit of its own is printed as one: marked,
            // with its matches (its own exchange is this one, not printed again).
            let own: HashMap<hit::UnitKey, &hit::UnitOut> =
                r.hits.iter().map(|h| (h.unit.key(), &h.unit)).collect();
            for h in &r.hits {
                let fresh = seen.insert((fi, h.exchange_key()));
                if fresh {
                    exchanges += 1;
                }
                if args.max_count.is_some_and(|m| exchanges > m) {
                    dropped += usize::from(fresh);
                    continue;
                }
                match args.common.format {
                    Format::Json => print::json_hit(out, h)?,
                    Format::Human if fresh => {
                        print::exchange(out, h, &own, &cut)?;
                    }
                    Format::Human => {}
                }
            }
        }
        if dropped > 0 && args.common.format == Format::Human {
            writeln!(
                out,
                "{}[… {dropped} more exchanges not shown; raise --max-count]{}",
                st.warn, st.reset
            )?;
        }
    }
    // Each failed file was reported (and counted) once, above.
    let errors = problems.count();
    if args.common.format == Format::Json {
        out.json(&Summary {
            kind: "summary",
            hits: total_hits,
            exchanges: exchanges.min(args.max_count.unwrap_or(usize::MAX)),
            dropped,
            files: transcripts.len(),
            files_with_hits,
            bytes,
            malformed_lines: malformed,
            unmodelled_lines: unmodelled,
            errors,
            elapsed_ms: started.elapsed().as_millis(),
        })?;
    }
    Ok(Exit::from(total_hits > 0, errors))
}

/// Names said when a glob matches no name in the searched lines.
const NAMES_SHOWN: usize = 30;

/// Say on stderr which glob of `flag` matched no name seen in the lines the
/// search read (candidate lines), and which names those lines hold: a glob
/// that misses is otherwise indistinguishable from a search with no match.
fn unmatched_globs(
    problems: &Problems,
    flag: &str,
    what: &str,
    globs: Option<&NameGlobs>,
    results: &[FileResult],
    seen: impl Fn(&FileResult) -> &BTreeSet<String>,
) {
    let Some(globs) = globs else { return };
    let names: BTreeSet<&str> = results
        .iter()
        .flat_map(|r| seen(r).iter().map(String::as_str))
        .collect();
    let one = crate::output::sanitize::one_line;
    for g in globs.unmatched(names.iter().copied()) {
        let there = match names.len() {
            0 => format!("no {what} is in the lines searched"),
            n => {
                let mut v: Vec<String> = names.iter().take(NAMES_SHOWN).map(|n| one(n)).collect();
                if n > NAMES_SHOWN {
                    v.push(format!("(+{} more)", n - NAMES_SHOWN));
                }
                format!("{what}s in the lines searched: {}", v.join(", "))
            }
        };
        problems.note(format_args!(
            "{flag} `{}` matches no {what} ({there})",
            one(g)
        ));
    }
}

/// A hit's row key; `None` when the hit has no such value (printed `-`).
fn count_key(key: CountBy, t: &crate::discovery::Transcript, h: &Hit) -> Option<String> {
    let u = &h.unit;
    match key {
        CountBy::Label => Some(u.label.to_string()),
        // A lane's hits count toward the session it belongs to; -c counts per
        // file, lanes apart.
        CountBy::Session => Some(t.session_id.clone()),
        CountBy::Project => Some(t.project_name()),
        CountBy::Tool => u.tool_name.clone(),
        CountBy::Model => u.model.clone(),
        CountBy::Version => u.version.clone(),
        CountBy::Month => u
            .timestamp
            .as_deref()
            .and_then(timefmt::parse_ts)
            .map(|ts| ts.strftime("%Y-%m").to_string()),
        CountBy::Pairing | CountBy::Attachment | CountBy::Result => h.key.clone(),
        // Turns are numbered per file: a lane's are its own.
        CountBy::Turn => u.turn.map(|n| match &t.agent_id {
            Some(a) => format!("{}@{a}:{n}", t.session_id),
            None => format!("{}:{n}", t.session_id),
        }),
    }
}

/// `--raw`: every line holding a hit, as read, in path order; `-m N` keeps the
/// first N lines and says on stderr how many it left out (a trailer in the
/// output would break its JSON Lines). Returns (lines printed, left out).
fn raw_lines(
    out: &mut Out,
    transcripts: &[crate::discovery::Transcript],
    results: &[FileResult],
    args: &SearchArgs,
    problems: &Problems,
) -> crate::error::Result<(usize, usize)> {
    let (mut shown, mut dropped, mut lossy) = (0usize, 0usize, 0usize);
    for (t, r) in transcripts.iter().zip(results) {
        for (no, bytes) in &r.raw {
            if args.max_count.is_some_and(|m| shown >= m) {
                dropped += 1;
                continue;
            }
            shown += 1;
            match args.common.format {
                Format::Json => {
                    let text = String::from_utf8_lossy(bytes);
                    if let std::borrow::Cow::Owned(_) = text {
                        lossy += 1;
                    }
                    out.json(&serde_json::json!({
                        "type": "raw", "session_id": t.session_id, "agent_id": t.agent_id,
                        "file": t.path.display().to_string(), "line": no, "record": text,
                    }))?
                }
                Format::Human => {
                    out.write_all(bytes)?;
                    out.write_all(b"\n")?;
                }
            }
        }
    }
    if dropped > 0 {
        problems.note(format_args!(
            "{dropped} more matched lines not printed; raise --max-count"
        ));
    }
    if lossy > 0 {
        problems.note(format_args!(
            "{lossy} printed lines hold bytes that are not UTF-8, written as U+FFFD in \"record\"; without --format json the lines are printed as read"
        ));
    }
    Ok((shown, dropped))
}
