//! `csift search`: regex over labelled units, printed as complete exchanges.
//! Files are searched in parallel and reported in path order; per-file errors are
//! reported and the run goes on (exit 2 at the end, as ripgrep).

pub(crate) mod file;
pub(crate) mod hit;
pub(crate) mod matcher;
pub(crate) mod prefilter;
pub(crate) mod print;
pub(crate) mod unmodelled;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::time::Instant;

use serde::Serialize;

use crate::classify::{Label, LabelSet};
use crate::cli::search::{CountBy, SearchArgs};
use crate::error::Error;
use crate::output::{Format, Out};
use crate::timefmt::{self, Window};

use super::{Exit, Problems};
use file::{Config, FileResult};
use hit::Hit;

/// One anchored matcher (`*` any run, `?` one char) for the globs of a
/// repeatable flag (`--tool`, `--model`): each value may list alternatives as
/// `a,b`, `a|b` or `{a,b}` (no tool or model name holds those characters), so
/// the forms an agent tries first do not silently match nothing. `None` when
/// no glob was given.
pub(crate) fn globs(given: &[String]) -> Result<Option<regex::Regex>, Error> {
    let mut alts: Vec<String> = Vec::new();
    for g in given {
        let g = g.trim();
        let g = match g.strip_prefix('{').and_then(|x| x.strip_suffix('}')) {
            Some(inner) => inner,
            None => g,
        };
        for part in split_alternatives(g).into_iter().map(str::trim) {
            if part.is_empty() {
                return Err(Error::Usage(format!(
                    "bad glob list `{g}`: an empty alternative (write e.g. Write,Edit)"
                )));
            }
            alts.push(glob_re(part));
        }
    }
    if alts.is_empty() {
        return Ok(None);
    }
    let re = format!("^(?:{})$", alts.join("|"));
    regex::Regex::new(&re)
        .map(Some)
        .map_err(|e| Error::Usage(format!("bad glob `{}`: {e}", given.join(","))))
}

/// A glob list split at `,` and `|` outside `[…]` (`claude-opus-4-[5,6]*` is
/// one glob, as a shell reads it).
fn split_alternatives(g: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut depth) = (0, false);
    for (i, c) in g.char_indices() {
        match c {
            '[' if !depth => depth = true,
            ']' if depth => depth = false,
            ',' | '|' if !depth => {
                out.push(&g[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&g[start..]);
    out
}

/// One glob as a regex: `*` any run, `?` one character, `[…]` a class
/// (`[!…]` or `[^…]` negated, ranges as `a-z`), as a shell reads them; a `[`
/// with no `]` after it is itself.
fn glob_re(part: &str) -> String {
    let chars: Vec<char> = part.chars().collect();
    let mut re = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            '[' => {
                let mut j = i + 1;
                if matches!(chars.get(j), Some('!' | '^')) {
                    j += 1;
                }
                // A `]` right after `[` (or `[!`) is a member: the end is after it.
                // Its end, past any `[:name:]` inside it.
                let mut k = j;
                let mut close = None;
                while k < chars.len() {
                    if chars[k] == '[' && chars.get(k + 1) == Some(&':') {
                        if let Some(e) = (k + 2..chars.len().saturating_sub(1))
                            .find(|&e| chars[e] == ':' && chars[e + 1] == ']')
                        {
                            k = e + 2;
                            continue;
                        }
                    }
                    if chars[k] == ']' && k > j {
                        close = Some(k);
                        break;
                    }
                    k += 1;
                }
                let Some(close) = close else {
                    re.push_str(r"\[");
                    i += 1;
                    continue;
                };
                re.push('[');
                if j > i + 1 {
                    re.push('^');
                }
                let body: String = chars[j..close].iter().collect();
                let mut k = 0;
                while k < body.len() {
                    let rest = &body[k..];
                    // A POSIX class (`[:upper:]`) as a shell reads it; the
                    // regex crate reads the same ASCII classes.
                    if let Some(name) = rest.strip_prefix("[:").and_then(|r| r.split_once(":]")) {
                        if !name.0.is_empty() && name.0.bytes().all(|b| b.is_ascii_lowercase()) {
                            re.push_str(&rest[..name.0.len() + 4]);
                            k += name.0.len() + 4;
                            continue;
                        }
                    }
                    let Some(c) = rest.chars().next() else { break };
                    if matches!(c, '\\' | '[' | ']' | '^' | '&' | '~') {
                        re.push('\\');
                    }
                    re.push(c);
                    k += c.len_utf8();
                }
                re.push(']');
                i = close;
            }
            c => re.push_str(&regex::escape(&c.to_string())),
        }
        i += 1;
    }
    re
}

/// The taxonomy, one label a line; with `--format json`, one
/// `{"type":"label","label","visible","description"}` object a line.
pub(crate) fn list_labels(out: &mut Out, json: bool) -> std::io::Result<()> {
    #[derive(Serialize)]
    struct Row {
        #[serde(rename = "type")]
        kind: &'static str,
        label: &'static str,
        visible: bool,
        description: &'static str,
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
    // messages (and says that no attachment label was named).
    if args.attachments && args.labels.is_empty() {
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
        skip_attachments: args.labels.is_empty() && !args.attachments,
        tool: globs(&args.tool)?,
        model: globs(&args.model)?,
        window: Window::parse(args.common.since.as_deref(), args.common.until.as_deref())?,
        resolve_persisted: args.resolve_persisted,
        exchanges: !args.no_exchange
            && !args.count
            && !args.files_with_matches
            && args.count_by.is_none(),
        tool_names: !args.count
            && !args.files_with_matches
            && args.count_by.is_none_or(|k| k == CountBy::Tool),
        embeds: !args.common.no_subagents,
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
    }
}

#[cfg(test)]
mod tests {
    use super::globs;

    fn hits(glob: &str, names: &[&str]) -> Vec<String> {
        let re = globs(&[glob.to_string()]).unwrap().unwrap();
        names
            .iter()
            .filter(|n| re.is_match(n))
            .map(|n| n.to_string())
            .collect()
    }

    /// `[…]` classes match as in a shell; they matched nothing before (the
    /// brackets were escaped as literals), silently.
    #[test]
    fn glob_classes_match_as_in_a_shell() {
        let tools = ["Bash", "Read", "Write", "[x]"];
        assert_eq!(hits("[BR]*", &tools), ["Bash", "Read"]);
        assert_eq!(hits("[!B]*", &tools), ["Read", "Write", "[x]"]);
        assert_eq!(hits("[^A-Q]*", &tools), ["Read", "Write", "[x]"]);
        assert_eq!(hits("[]x[]*", &tools), ["[x]"]);
        assert_eq!(hits("[x", &["[x", "x"]), ["[x"]);
        let models = [
            "claude-opus-4-5-20251101",
            "claude-opus-4-6",
            "claude-opus-4-1",
        ];
        assert_eq!(
            hits("claude-opus-4-[56]*", &models),
            ["claude-opus-4-5-20251101", "claude-opus-4-6"]
        );
        assert_eq!(hits("a&&b[&~]", &["a&&b~", "a&&b&"]), ["a&&b~", "a&&b&"]);
        // POSIX classes, and a comma inside a class, as a shell reads them.
        assert_eq!(
            hits("[[:upper:]]ash", &["Bash", "bash", "Dash"]),
            ["Bash", "Dash"]
        );
        assert_eq!(hits("[![:upper:]]ash", &["Bash", "bash"]), ["bash"]);
        assert_eq!(
            hits("claude-opus-4-[5,6]*", &models),
            ["claude-opus-4-5-20251101", "claude-opus-4-6"]
        );
        assert_eq!(hits("Read,[BW]*", &tools), ["Bash", "Read", "Write"]);
    }
}
