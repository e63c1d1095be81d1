//! Intake: the tool calls, results and attachments of one transcript's
//! records, kept as borrowed slices of the file's bytes until the join
//! ([`super::join`]) has seen every result (REC-075: a result can precede its
//! call by a line or two). Nothing large is decoded here.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::path::{is_absolute, join, normalize};
use super::shell::{self, Analysis};
use super::{Class, Kind, Shared, Touch};
use crate::record::{opt_str, Raw, Record, Str};

/// Where and when a record sits.
#[derive(Debug, Clone, Copy)]
pub(crate) struct At<'r> {
    pub(crate) line: usize,
    pub(crate) turn: Option<usize>,
    /// The subagent: the lane's, or the `agent_progress` record's.
    pub(crate) agent: Option<&'r str>,
    /// The envelope's cwd and time, for a nested record that has none.
    pub(crate) cwd: Option<&'r str>,
    pub(crate) ts: Option<&'r str>,
}

/// What a tool call targets.
#[derive(Debug)]
pub(crate) enum Target<'a> {
    /// A structured file tool (FH-037): its one path, and its input for the
    /// content fallback of a result without an echo (SUB-026, REC-080…083).
    File {
        path: Shared,
        class: Class,
        input: &'a RawValue,
    },
    Bash(Analysis),
    /// A PowerShell call: never parsed (WIN-005, WIN-010).
    PowerShell,
}

#[derive(Debug)]
pub(crate) struct Call<'a> {
    pub(crate) id: Option<String>,
    pub(crate) tool: &'static str,
    pub(crate) line: usize,
    pub(crate) turn: Option<usize>,
    pub(crate) ts: Option<Shared>,
    pub(crate) agent: Option<Shared>,
    pub(crate) target: Target<'a>,
}

/// A tool result, by the id of the call it answers.
#[derive(Debug, Default)]
pub(crate) struct Outcome<'a> {
    /// `is_error: true` on the result block (REC-074).
    pub(crate) error: bool,
    pub(crate) line: usize,
    pub(crate) ts: Option<Shared>,
    /// The result record's cwd: a stale hint's paths are relative to it (FH-005).
    pub(crate) cwd: Option<String>,
    /// The record's `toolUseResult`, undecoded (parsed records).
    pub(crate) echo: Option<&'a RawValue>,
    /// The echo's facts, when the line was skimmed instead ([`super::skim`]).
    pub(crate) facts: Option<super::echo::Facts>,
    pub(crate) turn: Option<usize>,
}

/// Everything read from one transcript, before the join.
#[derive(Debug, Default)]
pub(crate) struct Intake<'a> {
    pub(crate) calls: Vec<Call<'a>>,
    pub(crate) outcomes: HashMap<String, Outcome<'a>>,
    /// Reads a `read_truncation_notice` names (FH-044, REC-052).
    pub(crate) truncated: HashSet<String>,
    /// Touches that need no join: `edited_text_file` attachments (FH-007).
    pub(crate) direct: Vec<Touch>,
    /// The attachments' snippets, by index into `direct`, for recover.
    pub(crate) snippets: Vec<(usize, &'a RawValue)>,
    /// The first `cwd` seen: the session directory relative tracked paths use.
    pub(crate) first_cwd: Option<String>,
    pub(crate) names: Names,
}

/// The paths and agent ids of one transcript, each held once however many
/// touches name it.
#[derive(Debug, Default)]
pub(crate) struct Names(HashSet<Shared>);

impl Names {
    pub(crate) fn intern(&mut self, s: &str) -> Shared {
        if let Some(n) = self.0.get(s) {
            return n.clone();
        }
        let n = Shared::from(s);
        self.0.insert(n.clone());
        n
    }
}

#[derive(Deserialize)]
struct PathInput<'a> {
    #[serde(borrow, default, deserialize_with = "opt_str")]
    file_path: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    notebook_path: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    command: Str<'a>,
}

/// The four structured file tools and Read (FH-037, REC-079, REC-085).
fn file_tool(name: &str) -> Option<&'static str> {
    Some(match name {
        "Read" => "Read",
        "Write" => "Write",
        "Edit" => "Edit",
        "MultiEdit" => "MultiEdit",
        "NotebookEdit" => "NotebookEdit",
        _ => return None,
    })
}

/// A structured path: absolute as given, or joined onto the record's cwd.
pub(crate) fn place(p: &str, cwd: Option<&str>) -> (String, Class) {
    if is_absolute(p) {
        (normalize(p), Class::Absolute)
    } else if let Some(d) = cwd.filter(|d| is_absolute(d)) {
        (join(d, p), Class::CwdJoined)
    } else {
        (p.to_string(), Class::Unresolved)
    }
}

impl<'a> Intake<'a> {
    /// Take in one record (top-level or nested) at `at`.
    pub(crate) fn record(&mut self, r: &Record<'a>, at: At<'_>) {
        let cwd = r.cwd.as_deref().or(at.cwd);
        if self.first_cwd.is_none() {
            self.first_cwd = cwd.filter(|c| is_absolute(c)).map(str::to_string);
        }
        let ts = r.timestamp.as_deref().or(at.ts).map(Shared::from);
        if r.kind() == "attachment" {
            self.attachment(r, at, cwd, ts);
            return;
        }
        let results = r
            .blocks()
            .iter()
            .filter(|b| b.kind() == "tool_result")
            .count();
        for b in r.blocks() {
            match b.kind() {
                "tool_use" => {
                    let name = b.name.as_deref().unwrap_or("");
                    if let Some(target) = target(name, b.input, cwd, &mut self.names) {
                        self.calls.push(Call {
                            id: b.id.as_deref().map(str::to_string),
                            tool: tool_name(name),
                            line: at.line,
                            turn: at.turn,
                            ts: ts.clone(),
                            agent: at.agent.map(|a| self.names.intern(a)),
                            target,
                        });
                    }
                }
                "tool_result" => {
                    let Some(id) = b.tool_use_id.as_deref() else {
                        continue;
                    };
                    // The record's echo belongs to its one result (REC-075).
                    let echo = if results == 1 {
                        r.tool_use_result()
                    } else {
                        None
                    };
                    self.outcomes.insert(
                        id.to_string(),
                        Outcome {
                            error: b.is_error(),
                            line: at.line,
                            ts: ts.clone(),
                            cwd: cwd.map(str::to_string),
                            echo,
                            facts: None,
                            turn: at.turn,
                        },
                    );
                }
                _ => {}
            }
        }
    }

    /// Take in a carrier line read by the skim.
    pub(crate) fn carrier(&mut self, c: super::skim::Carrier<'_>, at: At<'_>) {
        let cwd = c.cwd.as_deref().or(at.cwd);
        if self.first_cwd.is_none() {
            self.first_cwd = cwd.filter(|c| is_absolute(c)).map(str::to_string);
        }
        let one = c.results.len() == 1;
        for (id, error) in c.results {
            self.outcomes.insert(
                id.into_owned(),
                Outcome {
                    error,
                    line: at.line,
                    ts: c.ts.as_deref().or(at.ts).map(Shared::from),
                    cwd: cwd.map(str::to_string),
                    echo: None,
                    facts: if one { c.facts.clone() } else { None },
                    turn: at.turn,
                },
            );
        }
    }

    fn attachment(&mut self, r: &Record<'a>, at: At<'_>, cwd: Option<&str>, ts: Option<Shared>) {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Att<'a> {
            #[serde(rename = "type", borrow, default, deserialize_with = "opt_str")]
            kind: Str<'a>,
            #[serde(borrow, default, deserialize_with = "opt_str")]
            filename: Str<'a>,
            #[serde(borrow, default, deserialize_with = "opt_str")]
            file_path: Str<'a>,
            #[serde(borrow, default)]
            snippet: Raw<'a>,
            #[serde(borrow, default)]
            content: Raw<'a>,
            #[serde(rename = "toolUseID", borrow, default, deserialize_with = "opt_str")]
            tool_use_id: Str<'a>,
        }
        let Some(raw) = r.attachment.filter(|a| a.get().starts_with('{')) else {
            return;
        };
        let Ok(a) = serde_json::from_str::<Att<'a>>(raw.get()) else {
            return;
        };
        match a.kind.as_deref() {
            Some("read_truncation_notice") => {
                if let Some(id) = a.tool_use_id {
                    self.truncated.insert(id.into_owned());
                }
            }
            Some("edited_text_file") => {
                // FH-033: `filename`/`snippet`; the `filePath`/`content`
                // spellings are never written but cost nothing to accept.
                let Some(name) = a.filename.or(a.file_path) else {
                    return;
                };
                let (path, class) = place(&name, cwd);
                if let Some(s) = a.snippet.or(a.content) {
                    self.snippets.push((self.direct.len(), s));
                }
                self.direct.push(Touch {
                    path: self.names.intern(&path),
                    class,
                    kind: Kind::EditedTextFile,
                    tool: "attachment",
                    agent_id: at.agent.map(|a| self.names.intern(a)),
                    line: at.line,
                    sub: 0,
                    turn: at.turn,
                    ts: ts.clone(),
                    landed: ts,
                    evidence: None,
                });
            }
            _ => {}
        }
    }
}

fn tool_name(name: &str) -> &'static str {
    file_tool(name).unwrap_or(if name == "Bash" { "Bash" } else { "PowerShell" })
}

/// The target of a `name` call with `input`, or `None` for a tool that
/// touches no file csift follows.
fn target<'a>(
    name: &str,
    input: Raw<'a>,
    cwd: Option<&str>,
    names: &mut Names,
) -> Option<Target<'a>> {
    let input = input?;
    if name != "Bash" && name != "PowerShell" && file_tool(name).is_none() {
        return None;
    }
    let p: PathInput<'_> = serde_json::from_str(input.get()).ok()?;
    match name {
        "Bash" => Some(Target::Bash(shell::analyze(p.command.as_deref()?, cwd))),
        "PowerShell" => p.command.map(|_| Target::PowerShell),
        _ => {
            let raw = if name == "NotebookEdit" {
                p.notebook_path.or(p.file_path)
            } else {
                p.file_path
            }?;
            if raw.is_empty() {
                return None;
            }
            let (path, class) = place(&raw, cwd);
            Some(Target::File {
                path: names.intern(&path),
                class,
                input,
            })
        }
    }
}
