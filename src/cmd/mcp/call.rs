//! One tool call: its JSON arguments become the command line of the CLI
//! command (parsed by the same clap definition), the command runs in-process
//! into a buffer with `--format json`, and its JSON Lines come back as
//! objects, windowed by `offset` and the `max_chars` budget with a note of
//! what was cut. Nothing here prints: problems are captured and answered.

use std::ffi::OsString;
use std::path::Path;
use std::time::Instant;

use clap::Parser;
use serde_json::{json, Map, Value};

use super::tools::{self, Kind, Spec, MAX_CHARS, OFFSET};
use crate::cli::Cli;
use crate::cmd::Problems;
use crate::output::Out;

/// A call that could not run as asked: the message answers it (isError).
#[derive(Debug)]
pub(crate) struct CallError(pub(crate) String);

/// A call's answer: the structured content and its text rendering.
pub(crate) struct Answer {
    pub(crate) structured: Value,
    pub(crate) text: String,
}

/// The window of a call: from `offset`, at most `max_chars` characters.
struct Window {
    offset: usize,
    max_chars: usize,
}

/// Run one tool: `args` as the tool's schema describes them.
pub(crate) fn run(
    spec: &Spec,
    cmd: &clap::Command,
    args: &Map<String, Value>,
    home: &Path,
    budget: usize,
) -> Result<Answer, CallError> {
    let (argv, window) = argv(spec, cmd, args, home, budget)?;
    let shown = show_argv(&argv);
    let cli = Cli::try_parse_from(&argv).map_err(|e| CallError(e.render().to_string()))?;
    let problems = Problems::capturing();
    let mut out = Out::buffer();
    let exit = crate::execute(cli.command, &mut out, &problems, Instant::now());
    let mut notes = problems.said();
    let exit = match exit {
        Ok(exit) => exit,
        Err(e) => {
            notes.push(crate::output::sanitize::clean(&e.to_string()).into_owned());
            return Err(CallError(notes.join("\n")));
        }
    };
    let bytes = out.into_bytes();
    let objects = parse_lines(&bytes);
    Ok(answer(spec, shown, exit.code(), objects, notes, &window))
}

/// The command line of a call (argv[0] is `csift`), and its window.
fn argv(
    spec: &Spec,
    cmd: &clap::Command,
    args: &Map<String, Value>,
    home: &Path,
    budget: usize,
) -> Result<(Vec<OsString>, Window), CallError> {
    let params = tools::params(spec, cmd);
    let mut window = Window {
        offset: 0,
        max_chars: budget,
    };
    let mut flags: Vec<OsString> = vec!["csift".into(), spec.command.into()];
    let mut positionals: Vec<(usize, Vec<String>)> = Vec::new();
    for (name, value) in args {
        if name == MAX_CHARS || name == OFFSET {
            let n = value
                .as_u64()
                .ok_or_else(|| CallError(format!("`{name}` must be a non-negative integer")))?;
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            if name == MAX_CHARS {
                window.max_chars = n.max(1);
            } else {
                window.offset = n;
            }
            continue;
        }
        let Some((_, arg)) = params.iter().find(|(p, _)| p == name) else {
            let known: Vec<&str> = params.iter().map(|(p, _)| p.as_str()).collect();
            return Err(CallError(format!(
                "`{}` takes no argument `{name}`; it takes: {}, {MAX_CHARS}, {OFFSET}",
                spec.name,
                known.join(", ")
            )));
        };
        let values = values_of(name, arg, value)?;
        if arg.is_positional() {
            positionals.push((arg.get_index().unwrap_or(usize::MAX), values));
        } else if tools::kind(arg) == Kind::Bool {
            if values.first().is_some_and(|v| v == "true") {
                flags.push(format!("--{}", arg.get_long().unwrap_or(name)).into());
            }
        } else {
            let long = arg.get_long().unwrap_or(name);
            // `--flag=value`: a value that starts with a dash stays a value.
            flags.extend(
                values
                    .iter()
                    .map(|v| OsString::from(format!("--{long}={v}"))),
            );
        }
    }
    flags.extend(["--format", "json", "--color", "never"].map(OsString::from));
    flags.push("--claude-home".into());
    flags.push(home.as_os_str().to_owned());
    positionals.sort_by_key(|(i, _)| *i);
    flags.push("--".into());
    flags.extend(
        positionals
            .into_iter()
            .flat_map(|(_, v)| v)
            .map(OsString::from),
    );
    Ok((flags, window))
}

/// A property's JSON value as the strings clap reads.
fn values_of(name: &str, arg: &clap::Arg, value: &Value) -> Result<Vec<String>, CallError> {
    let one = |v: &Value| -> Result<String, CallError> {
        match (tools::kind(arg), v) {
            (Kind::Bool, Value::Bool(b)) => Ok(b.to_string()),
            (Kind::Integer, Value::Number(n)) if n.is_u64() => Ok(n.to_string()),
            (Kind::String, Value::String(s)) => Ok(s.clone()),
            (k, _) => Err(CallError(format!(
                "`{name}` must be {}, not {v}",
                match k {
                    Kind::Bool => "a boolean",
                    Kind::Integer => "a non-negative integer",
                    Kind::String => "a string",
                }
            ))),
        }
    };
    match value {
        Value::Array(items) if tools::is_list(arg) => items.iter().map(one).collect(),
        _ if tools::is_list(arg) => Err(CallError(format!("`{name}` must be an array"))),
        v => Ok(vec![one(v)?]),
    }
}

/// The command line a person would type for the same objects (the server's
/// `--color never` left out).
fn show_argv(argv: &[OsString]) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut skip = false;
    for a in argv {
        let s = a.to_string_lossy();
        if std::mem::take(&mut skip) {
            continue;
        }
        if s == "--color" {
            skip = true;
            continue;
        }
        words.push(crate::output::sanitize::shell_word(&s).into_owned());
    }
    if words.last().is_some_and(|w| w == "--") {
        words.pop();
    }
    words.join(" ")
}

/// Each JSON Lines object with its line as printed (the text block answers
/// the CLI's own bytes; a JSON object's keys come back in another order). A
/// line that is not JSON is kept as `{"text": line}`.
fn parse_lines(bytes: &[u8]) -> Vec<(Value, String)> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let text = String::from_utf8_lossy(l).into_owned();
            let v = serde_json::from_slice(l).unwrap_or_else(|_| json!({"text": text}));
            (v, text)
        })
        .collect()
}

fn is_summary(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("summary")
}

/// The objects of one window, their lines, and what was left out.
struct Windowed {
    kept: Vec<Value>,
    text: String,
    returned: usize,
    skipped: usize,
    /// The offset of the first object cut, the objects and characters cut.
    cut: Option<(usize, usize, usize)>,
    /// The first object alone was over the budget (answered whole).
    over: bool,
}

/// Keep summary objects (the totals a command closes with) always, and the
/// others from `offset` while their lines fit `max_chars`; the first one of
/// the window always, however long.
fn window(objects: Vec<(Value, String)>, w: &Window) -> Windowed {
    let mut used: usize = objects
        .iter()
        .filter(|(o, _)| is_summary(o))
        .map(|(_, l)| l.chars().count() + 1)
        .sum();
    let mut win = Windowed {
        kept: Vec::new(),
        text: String::new(),
        returned: 0,
        skipped: 0,
        cut: None,
        over: false,
    };
    let mut rank = 0usize;
    for (o, l) in objects {
        let n = l.chars().count() + 1;
        if !is_summary(&o) {
            rank += 1;
            if rank <= w.offset {
                win.skipped += 1;
                continue;
            }
            if win.cut.is_some() || (win.returned > 0 && used + n > w.max_chars) {
                let c = win.cut.get_or_insert((rank - 1, 0, 0));
                c.1 += 1;
                c.2 += n;
                continue;
            }
            win.over |= used + n > w.max_chars;
            used += n;
            win.returned += 1;
        }
        win.text.push_str(&l);
        win.text.push('\n');
        win.kept.push(o);
    }
    win
}

/// The answer: the window's objects and lines, what was cut and how to get
/// it, and the notes.
fn answer(
    spec: &Spec,
    command: String,
    exit: u8,
    objects: Vec<(Value, String)>,
    mut notes: Vec<String>,
    w: &Window,
) -> Answer {
    let total = objects.len();
    let win = window(objects, w);
    let mut text = win.text;
    let cut = win.cut.map(|(next, n, chars)| {
        let how = format!(
            "call {} again with the same arguments and offset={next} (or max_chars above {}), \
or narrow it: {}",
            spec.name, w.max_chars, spec.narrow
        );
        text.push_str(&format!(
            "[csift mcp: {n} more objects ({chars} chars) cut at max_chars={}; {how}]\n",
            w.max_chars
        ));
        json!({"objects": n, "chars": chars, "next_offset": next, "how": how})
    });
    if win.over {
        notes.push(format!(
            "the object at offset {} is longer than max_chars={} and is answered whole",
            win.skipped, w.max_chars
        ));
    }
    if exit == 1 {
        notes.push("nothing found (exit 1)".into());
    }
    if win.skipped > 0 {
        notes.push(format!(
            "offset={}: the first {} objects are left out",
            w.offset, win.skipped
        ));
    }
    for n in &notes {
        text.push_str(&format!("[csift: {n}]\n"));
    }
    let structured = json!({
        "command": command,
        "exit": exit,
        "objects": win.kept,
        "total": total,
        "offset": w.offset,
        "returned": win.returned,
        "cut": cut,
        "notes": notes,
    });
    Answer { structured, text }
}
