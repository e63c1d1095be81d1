//! The tool table of `csift mcp` and each tool's JSON Schema, built from the
//! clap definition of the command it runs: a tool takes the command's flags
//! (`max_count` for `--max-count`, positionals by their id), with the same
//! defaults, so the schema cannot drift from the CLI. Adding a tool is one
//! [`SPECS`] entry; a spec whose command this build lacks is left out.

use clap::builder::ValueParser;
use clap::{Arg, ArgAction, CommandFactory};
use serde_json::{json, Map, Value};

use crate::cli::Cli;

/// One tool: the subcommand it runs and what its answer's cut note suggests.
pub(crate) struct Spec {
    pub(crate) name: &'static str,
    pub(crate) command: &'static str,
    pub(crate) description: &'static str,
    /// Flags of the command a tool does not take (output that is not JSON
    /// Lines, stdin, writing files).
    pub(crate) omit: &'static [&'static str],
    /// Besides `offset`: how to narrow an answer that was cut.
    pub(crate) narrow: &'static str,
}

/// Flags no tool takes: the server fixes the form, colour and home.
const ALWAYS_OMIT: &[&str] = &["format", "color", "claude_home", "help", "version"];

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "list_sessions",
        command: "list",
        description:
            "List Claude Code sessions, newest first: id, start and last activity, turns, \
lanes, size, models, branch, cwd, title. Targets narrow to a project or session.",
        omit: &[],
        narrow: "a target (a project folder, @session), since/until, or max_count",
    },
    Spec {
        name: "search",
        command: "search",
        description:
            "Regex-search labelled transcript content (what the user typed, agent messages, \
tool calls and results …) and answer each hit as a complete exchange. `label` picks what to search \
(user, agent.tool.use, …; list_labels lists them); targets narrow to sessions.",
        omit: &[],
        narrow: "a target (@session), label, tool, since/until, max_count, or count/count_by \
for counts first; the show tool prints one hit whole by its session and line",
    },
    Spec {
        name: "show",
        command: "show",
        description:
            "Print records exactly, by line, uuid or turn (rendered units), e.g. the line a \
search hit names. Needs a target (@session-or-agent-id) unless uuid is given.",
        omit: &["raw"],
        narrow: "fewer lines or turns, or a label",
    },
    Spec {
        name: "verbatim",
        command: "verbatim",
        description:
            "Rebuild the recent conversation of one session as whole turns within a budget \
(the text to re-read after a compaction).",
        omit: &["hook_json"],
        narrow: "a smaller budget, or slices/slice",
    },
    Spec {
        name: "stats",
        command: "stats",
        description:
            "An exact census per transcript (or grouped with `by`): records, labels, tokens \
(deduplicated), tools, models, unknown shapes.",
        omit: &[],
        narrow: "a target, `by` to group rows, or max_count",
    },
    Spec {
        name: "agents",
        command: "agents",
        description:
            "The subagent tree of one session: lanes, kinds, states and what each returned.",
        omit: &[],
        narrow: "kind, depth, or a smaller width",
    },
    Spec {
        name: "audit",
        command: "audit",
        description:
            "Detect what Claude Code lost from its transcripts: eaten text, missing files, \
malformed lines, unanswered calls, duplicate uuids.",
        omit: &[],
        narrow: "a target, kind, or since/until",
    },
    Spec {
        name: "status",
        command: "status",
        description: "Is a session working, waiting for a human, idle or dead? A verdict per \
session with its evidence.",
        omit: &[],
        narrow: "a target (@session)",
    },
    Spec {
        name: "tasks",
        command: "tasks",
        description:
            "Background tasks (shells, agents) and task lists of sessions, with their states.",
        omit: &[],
        narrow: "a target (@session), open, or kind",
    },
    Spec {
        name: "files",
        command: "files",
        description:
            "The files sessions read, wrote and edited, with the transcript lines that did it.",
        omit: &[],
        narrow: "a target (@session) or a path regex",
    },
    Spec {
        name: "recover",
        command: "recover",
        description:
            "Rebuild a file's content as a session last wrote or read it, from the transcript.",
        omit: &["out", "force", "all"],
        narrow: "a target (@session) or one path",
    },
];

/// MCP-only arguments every tool takes besides its command's flags.
pub(crate) const MAX_CHARS: &str = "max_chars";
pub(crate) const OFFSET: &str = "offset";

/// The tools this build serves: each spec whose command exists.
pub(crate) fn available() -> Vec<(&'static Spec, clap::Command)> {
    let root = Cli::command();
    SPECS
        .iter()
        .filter_map(|s| root.find_subcommand(s.command).map(|c| (s, c.clone())))
        .collect()
}

/// A flag a tool takes: its property name and the clap argument.
pub(crate) fn params<'a>(spec: &Spec, cmd: &'a clap::Command) -> Vec<(String, &'a Arg)> {
    cmd.get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter(|a| {
            let id = a.get_id().as_str();
            !ALWAYS_OMIT.contains(&id) && !spec.omit.contains(&id)
        })
        .map(|a| (prop_name(a), a))
        .collect()
}

/// `max_count` for `--max-count`; a positional by its id (`targets`).
fn prop_name(a: &Arg) -> String {
    match a.get_long() {
        Some(l) if !a.is_positional() => l.replace('-', "_"),
        _ => a.get_id().as_str().to_string(),
    }
}

/// What JSON a flag's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Bool,
    Integer,
    String,
}

pub(crate) fn kind(a: &Arg) -> Kind {
    if matches!(a.get_action(), ArgAction::SetTrue | ArgAction::SetFalse) {
        return Kind::Bool;
    }
    if matches!(a.get_action(), ArgAction::Count) {
        return Kind::Integer;
    }
    let t = a.get_value_parser().type_id();
    let ints: [ValueParser; 7] = [
        clap::value_parser!(usize).into(),
        clap::value_parser!(u64).into(),
        clap::value_parser!(u32).into(),
        clap::value_parser!(u16).into(),
        clap::value_parser!(u8).into(),
        clap::value_parser!(i64).into(),
        clap::value_parser!(i32).into(),
    ];
    if ints.iter().any(|p| p.type_id() == t) {
        Kind::Integer
    } else {
        Kind::String
    }
}

/// Whether a flag takes a list (repeatable, or a positional list).
pub(crate) fn is_list(a: &Arg) -> bool {
    matches!(a.get_action(), ArgAction::Append)
}

/// The JSON Schema of one tool's arguments.
pub(crate) fn input_schema(spec: &Spec, cmd: &clap::Command, budget: usize) -> Map<String, Value> {
    let mut props = Map::new();
    let mut required = Vec::new();
    for (name, a) in params(spec, cmd) {
        let mut p = scalar_schema(a);
        if is_list(a) {
            p = json!({"type": "array", "items": p});
        }
        let help = a
            .get_long_help()
            .or(a.get_help())
            .map(|h| h.to_string())
            .unwrap_or_default();
        let flag = a
            .get_long()
            .map_or_else(|| format!("<{}>", a.get_id()), |l| format!("--{l}"));
        p["description"] = json!(format!("{help} (CLI: {flag})").trim().to_string());
        if let Some(d) = default_value(a) {
            p["default"] = d;
        }
        if a.is_required_set() {
            required.push(name.clone());
        }
        props.insert(name, p);
    }
    props.insert(
        MAX_CHARS.into(),
        json!({"type": "integer", "minimum": 1, "default": budget,
        "description": "Result budget in characters: objects past it are cut, and the answer \
says how many and the offset that gets the rest."}),
    );
    props.insert(
        OFFSET.into(),
        json!({"type": "integer", "minimum": 0, "default": 0,
        "description": "Skip this many result objects (summary objects always stay): the \
offset a cut answer names gets the next window."}),
    );
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    schema
}

fn scalar_schema(a: &Arg) -> Value {
    match kind(a) {
        Kind::Bool => json!({"type": "boolean"}),
        Kind::Integer => json!({"type": "integer", "minimum": 0}),
        Kind::String => {
            let values: Vec<String> = a
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_string())
                .collect();
            if values.is_empty() {
                json!({"type": "string"})
            } else {
                json!({"type": "string", "enum": values})
            }
        }
    }
}

fn default_value(a: &Arg) -> Option<Value> {
    if kind(a) == Kind::Bool {
        return Some(json!(false));
    }
    let d = a.get_default_values().first()?.to_str()?.to_string();
    Some(match kind(a) {
        Kind::Integer => d.parse::<u64>().map_or(json!(d), |n| json!(n)),
        _ => json!(d),
    })
}

/// The shape of every tool's structured answer.
pub(crate) fn output_schema() -> Map<String, Value> {
    let v = json!({
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The csift command line that prints the same objects."},
            "exit": {"type": "integer", "description": "The command's exit status: 0 found, 1 nothing found, 2 a problem (see notes)."},
            "objects": {"type": "array", "items": {"type": "object"}, "description": "The command's --format json objects (JSON Lines), in order."},
            "total": {"type": "integer", "description": "Objects the command printed."},
            "offset": {"type": "integer"},
            "returned": {"type": "integer"},
            "cut": {"type": ["object", "null"], "description": "What the budget cut and how to get it; null when nothing was."},
            "notes": {"type": "array", "items": {"type": "string"}, "description": "What the command said on stderr."}
        },
        "required": ["command", "exit", "objects", "total", "offset", "returned", "cut", "notes"]
    });
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}
