//! One transcript file being written: the record envelope, the parentUuid chain,
//! the clock, and every record shape the generator knows how to emit.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::json::{esc, human_size, iso_ms, obj, render, Arr, Obj, Rng};

pub const MODEL: &str = "claude-opus-4-5-20251101";
pub const HAIKU: &str = "claude-haiku-4-5-20251001";

/// Static per-session identity shared by the main transcript and its lanes.
#[derive(Clone)]
pub struct Ident {
    pub sid: String,
    pub cwd: String,
    pub version: String,
    pub branch: String,
    pub slug: String,
    /// The fake `$HOME` the cwd lives under (used for persisted-output paths).
    pub home: String,
    pub enc: String,
    /// PostToolUse hook command, if this project configures hooks.
    pub hook_cmd: Option<String>,
}

/// One answered AskUserQuestion: (question, header, options as (label, description), chosen label).
pub type Answer<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], &'a str);

/// A planted truth row, rendered as one JSON line.
pub type TruthRow = String;

/// A tool call about to be (or already) written.
#[derive(Clone)]
pub struct Call {
    pub id: String,
    pub name: String,
    pub input: String,
}

pub enum Blk {
    Think(String),
    Text(String),
    Tool(Call),
}

pub struct Sess {
    out: BufWriter<File>,
    pub path: PathBuf,
    /// `<projects>/<enc>/<sid>` sidecar directory.
    pub side: PathBuf,
    pub id: Ident,
    pub line: u64,
    pub bytes: u64,
    pub agent: Option<String>,
    pub parent: Option<String>,
    pub now: i64,
    pub rng: Rng,
    pub model: &'static str,
    pub truth: Vec<TruthRow>,
    tool_rec: HashMap<String, String>,
    turn_start: i64,
    turn_msgs: i64,
    ctx_tokens: i64,
    pub last_prompt: Option<(String, String)>,
    scratch: String,
    backups: Vec<(String, i64)>,
}

impl Sess {
    pub fn create(projects: &Path, id: Ident, rng: Rng, start_ms: i64) -> Result<Sess> {
        let dir = projects.join(&id.enc);
        fs::create_dir_all(&dir).with_context(|| format!("mkdir {}", dir.display()))?;
        let path = dir.join(format!("{}.jsonl", id.sid));
        let side = dir.join(&id.sid);
        Self::open(path, side, id, None, rng, start_ms)
    }

    fn open(
        path: PathBuf,
        side: PathBuf,
        id: Ident,
        agent: Option<String>,
        rng: Rng,
        now: i64,
    ) -> Result<Sess> {
        let f = File::create(&path).with_context(|| format!("create {}", path.display()))?;
        Ok(Sess {
            out: BufWriter::with_capacity(1 << 20, f),
            path,
            side,
            id,
            line: 0,
            bytes: 0,
            agent,
            parent: None,
            now,
            rng,
            model: MODEL,
            truth: Vec::new(),
            tool_rec: HashMap::new(),
            turn_start: now,
            turn_msgs: 0,
            ctx_tokens: 18_000,
            last_prompt: None,
            scratch: String::with_capacity(1 << 16),
            backups: Vec::new(),
        })
    }

    /// Open a subagent lane `subagents/agent-<agent_id>.jsonl` (plus meta.json if given).
    pub fn lane(&mut self, agent_id: &str, meta: Option<String>) -> Result<Sess> {
        let dir = self.side.join("subagents");
        fs::create_dir_all(&dir)?;
        if let Some(m) = meta {
            fs::write(dir.join(format!("agent-{agent_id}.meta.json")), m)?;
        }
        let label = self.rng.next();
        let rng = self.rng.fork(label);
        let mut l = Self::open(
            dir.join(format!("agent-{agent_id}.jsonl")),
            self.side.clone(),
            self.id.clone(),
            Some(agent_id.to_string()),
            rng,
            self.now + self.rng.range(120, 700) as i64,
        )?;
        l.ctx_tokens = 9_000;
        Ok(l)
    }

    /// Flush; lanes hand their truth rows and end time back to the parent.
    pub fn finish(mut self) -> Result<(Vec<TruthRow>, i64, u64)> {
        self.out.flush()?;
        Ok((self.truth, self.now, self.bytes))
    }

    pub fn tool_count(&self) -> usize {
        self.tool_rec.len()
    }

    pub fn abs_path(&self) -> String {
        let p = fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone());
        p.to_string_lossy().into_owned()
    }

    pub fn tick(&mut self, lo: u64, hi: u64) {
        self.now += self.rng.range(lo, hi) as i64;
    }

    fn write_line(&mut self, s: &str) -> u64 {
        // Errors surface at flush time in `finish`; a failed write here is sticky.
        let _ = self.out.write_all(s.as_bytes());
        let _ = self.out.write_all(b"\n");
        self.line += 1;
        self.bytes += s.len() as u64 + 1;
        self.line
    }

    pub fn needle_row(&mut self, label: &str, needle: &str, line: u64) {
        let file = self.abs_path();
        self.truth.push(render(|o| {
            o.s("kind", "needle")
                .s("needle", needle)
                .s("label", label)
                .s("file", &file)
                .n("line", line as i64);
        }));
    }

    pub fn eaten_row(&mut self, message_id: &str) {
        let file = self.abs_path();
        let side = self.agent.is_some();
        self.truth.push(render(|o| {
            o.s("kind", "eaten_text")
                .s("file", &file)
                .s("message_id", message_id)
                .t("sidechain", side);
        }));
    }

    /// Write one chained record. `parent`: `None` = chain to the previous record.
    fn rec(
        &mut self,
        ty: &str,
        parent: Option<Option<String>>,
        body: impl FnOnce(&mut Obj),
        tail: impl FnOnce(&mut Obj),
    ) -> (String, u64) {
        let uuid = self.rng.uuid();
        let parent = parent.unwrap_or_else(|| self.parent.clone());
        let ts = iso_ms(self.now);
        let mut b = std::mem::take(&mut self.scratch);
        b.clear();
        let id = &self.id;
        let agent = self.agent.as_deref();
        obj(&mut b, |o| {
            o.os("parentUuid", parent.as_deref());
            o.t("isSidechain", agent.is_some());
            if let Some(a) = agent {
                o.s("agentId", a);
            }
            body(o);
            o.s("type", ty).s("uuid", &uuid).s("timestamp", &ts);
            tail(o);
            o.s("userType", "external")
                .s("entrypoint", "cli")
                .s("cwd", &id.cwd)
                .s("sessionId", &id.sid)
                .s("version", &id.version)
                .s("gitBranch", &id.branch)
                .s("slug", &id.slug);
        });
        let line = self.write_line(&b);
        self.scratch = b;
        self.parent = Some(uuid.clone());
        (uuid, line)
    }

    // ---------------------------------------------------------------- harness lines

    pub fn attach(&mut self, payload: impl FnOnce(&mut Obj)) -> u64 {
        self.tick(2, 40);
        self.rec(
            "attachment",
            None,
            |o| {
                o.o("attachment", payload);
            },
            |_| {},
        )
        .1
    }

    pub fn hook(&mut self, event: &str, matcher: &str, tool_use_id: &str, cmd: &str, stdout: &str) {
        let name = if matcher.is_empty() {
            event.to_string()
        } else {
            format!("{event}:{matcher}")
        };
        let dur = self.rng.range(8, 900) as i64;
        self.attach(|o| {
            o.s("type", "hook_success")
                .s("hookName", &name)
                .s("toolUseID", tool_use_id)
                .s("hookEvent", event)
                .s("content", stdout)
                .s("stdout", stdout)
                .s("stderr", "")
                .n("exitCode", 0)
                .s("command", cmd)
                .n("durationMs", dur);
        });
    }

    pub fn hook_context(
        &mut self,
        event: &str,
        matcher: &str,
        tool_use_id: &str,
        parts: &[&str],
    ) -> u64 {
        let name = if matcher.is_empty() {
            event.to_string()
        } else {
            format!("{event}:{matcher}")
        };
        self.attach(|o| {
            o.s("type", "hook_additional_context")
                .strs("content", parts)
                .s("hookName", &name)
                .s("toolUseID", tool_use_id)
                .s("hookEvent", event);
        })
    }

    /// SessionStart hooks plus the per-session tool/skill listings.
    pub fn session_start(&mut self, context: &[&str]) {
        let hid = self.rng.uuid();
        self.hook(
            "SessionStart",
            "startup",
            &hid,
            "~/.claude/hooks/session-start.sh",
            "",
        );
        if !context.is_empty() {
            self.hook_context("SessionStart", "startup", &hid, context);
        }
    }

    fn first_turn_listings(&mut self) {
        self.attach(|o| {
            o.s("type", "deferred_tools_delta")
                .strs(
                    "addedNames",
                    &[
                        "NotebookEdit",
                        "WebFetch",
                        "WebSearch",
                        "TaskOutput",
                        "TaskStop",
                        "ExitPlanMode",
                    ],
                )
                .strs("removedNames", &[]);
        });
        self.attach(|o| {
            o.s("type", "skill_listing")
                .s(
                    "content",
                    "- simplify: Review changed code for reuse, quality, and efficiency, then fix any issues found.\n- review: Review a pull request\n- security-review: Complete a security review of the pending changes on the current branch",
                )
                .n("skillCount", 3)
                .t("isInitial", true);
        });
    }

    pub fn meta_line(&mut self, key: &str, ty: &str, val: &str) {
        let sid = self.id.sid.clone();
        let s = render(|o| {
            o.s("type", ty).s(key, val).s("sessionId", &sid);
        });
        self.write_line(&s);
    }

    pub fn permission_mode(&mut self, mode: &str) {
        self.meta_line("permissionMode", "permission-mode", mode);
    }

    pub fn ai_title(&mut self, title: &str) {
        self.meta_line("aiTitle", "ai-title", title);
    }

    pub fn last_prompt_line(&mut self) {
        let Some((text, _)) = self.last_prompt.clone() else {
            return;
        };
        let leaf = self.parent.clone().unwrap_or_default();
        let mut t = text.replace('\n', " ").trim().to_string();
        if t.chars().count() > 200 {
            t = t.chars().take(200).collect::<String>().trim().to_string() + "\u{2026}";
        }
        let sid = self.id.sid.clone();
        let s = render(|o| {
            o.s("type", "last-prompt")
                .s("lastPrompt", &t)
                .s("leafUuid", &leaf)
                .s("sessionId", &sid);
        });
        self.write_line(&s);
    }

    pub fn queue_op(&mut self, op: &str, content: Option<&str>) {
        let ts = iso_ms(self.now);
        let sid = self.id.sid.clone();
        let s = render(|o| {
            o.s("type", "queue-operation")
                .s("operation", op)
                .s("timestamp", &ts)
                .s("sessionId", &sid);
            if let Some(c) = content {
                o.s("content", c);
            }
        });
        self.write_line(&s);
    }

    fn snapshot(&mut self, message_id: &str) {
        let ts = iso_ms(self.now);
        let backups = self.backups.clone();
        let s = render(|o| {
            o.s("type", "file-history-snapshot")
                .s("messageId", message_id)
                .o("snapshot", |o| {
                    o.s("messageId", message_id)
                        .o("trackedFileBackups", |o| {
                            for (i, (p, v)) in backups.iter().enumerate() {
                                o.o(p, |o| {
                                    o.s(
                                        "backupFileName",
                                        &format!("{:016x}@v{v}", 0x5eed_0000_u64 + i as u64),
                                    )
                                    .n("version", *v)
                                    .s("backupTime", &ts);
                                });
                            }
                        })
                        .s("timestamp", &ts);
                })
                .t("isSnapshotUpdate", false);
        });
        self.write_line(&s);
    }

    pub fn track_file(&mut self, rel: &str) {
        if let Some(e) = self.backups.iter_mut().find(|(p, _)| p == rel) {
            e.1 += 1;
        } else {
            self.backups.push((rel.to_string(), 1));
        }
    }

    // ---------------------------------------------------------------- human side

    /// A genuine human prompt (string content). Returns its line.
    pub fn prompt(&mut self, text: &str) -> u64 {
        self.prompt_with(text, None)
    }

    /// A genuine human prompt with a pasted screenshot: block content, the
    /// base64 image first, then the text. Returns its line.
    pub fn prompt_image(&mut self, text: &str, image_b64: &str) -> u64 {
        self.prompt_with(text, Some(image_b64))
    }

    fn prompt_with(&mut self, text: &str, image_b64: Option<&str>) -> u64 {
        self.tick(20_000, 240_000);
        let first = self.line_is_first_turn();
        let prompt_id = self.rng.uuid();
        // The snapshot names the uuid the prompt record is about to get.
        let pre_uuid = self.rng.clone().uuid();
        if self.agent.is_none() {
            self.snapshot(&pre_uuid);
        }
        let (uuid, line) = self.rec(
            "user",
            None,
            |o| {
                o.s("promptId", &prompt_id).o("message", |o| {
                    o.s("role", "user");
                    match image_b64 {
                        None => {
                            o.s("content", text);
                        }
                        Some(data) => {
                            o.a("content", |a| image_then_text(a, data, text));
                        }
                    }
                });
            },
            |o| {
                o.s("permissionMode", "default");
            },
        );
        self.last_prompt = Some((text.to_string(), uuid));
        self.turn_start = self.now;
        self.turn_msgs = 1;
        if self.agent.is_none() {
            if first {
                self.first_turn_listings();
            }
            if self.id.hook_cmd.is_some() {
                let hid = self.rng.uuid();
                self.hook(
                    "UserPromptSubmit",
                    "",
                    &hid,
                    "~/.claude/hooks/prompt-log.sh",
                    "",
                );
            }
        }
        line
    }

    fn line_is_first_turn(&self) -> bool {
        self.last_prompt.is_none()
    }

    /// The seed record of a subagent lane: the spawn prompt.
    pub fn seed(&mut self, text: &str) -> u64 {
        let (uuid, line) = self.rec(
            "user",
            Some(None),
            |o| {
                o.o("message", |o| {
                    o.s("role", "user").s("content", text);
                });
            },
            |_| {},
        );
        self.last_prompt = Some((text.to_string(), uuid));
        line
    }

    /// A user record with block-array content, e.g. text + image.
    pub fn prompt_blocks(&mut self, text: &str, image_b64: &str) -> u64 {
        self.tick(20_000, 120_000);
        let prompt_id = self.rng.uuid();
        let pre_uuid = self.rng.clone().uuid();
        self.snapshot(&pre_uuid);
        let (uuid, line) = self.rec(
            "user",
            None,
            |o| {
                o.s("promptId", &prompt_id).o("message", |o| {
                    o.s("role", "user")
                        .a("content", |a| image_then_text(a, image_b64, text));
                });
            },
            |o| {
                o.s("permissionMode", "default");
            },
        );
        self.last_prompt = Some((text.to_string(), uuid));
        self.turn_start = self.now;
        self.turn_msgs = 1;
        line
    }

    pub fn interrupt(&mut self) -> u64 {
        self.interrupt_with("[Request interrupted by user]")
    }

    /// A tool the user rejected: the error carrier, then the interrupt marker.
    pub fn reject(&mut self, call: &Call) -> u64 {
        let msg = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
        let tur = render_str(&format!("Error: {msg}"));
        self.result_text(call, msg, Some(true), Some(&tur), (2_000, 6_000));
        self.interrupt_with("[Request interrupted by user for tool use]")
    }

    pub fn interrupt_with(&mut self, marker: &str) -> u64 {
        self.tick(500, 4_000);
        self.rec(
            "user",
            None,
            |o| {
                o.o("message", |o| {
                    o.s("role", "user").a("content", |a| {
                        a.o(|o| {
                            o.s("type", "text").s("text", marker);
                        });
                    });
                });
            },
            |_| {},
        )
        .1
    }

    /// A slash command: the wrapper record and its `<local-command-stdout>`.
    pub fn slash(&mut self, name: &str, args: &str, stdout: &str) {
        self.tick(5_000, 60_000);
        let wrapper = format!(
            "<command-name>/{name}</command-name>\n            <command-message>{name}</command-message>\n            <command-args>{args}</command-args>"
        );
        let out = format!("<local-command-stdout>{stdout}</local-command-stdout>");
        for (i, text) in [wrapper, out].iter().enumerate() {
            self.tick(10, 300);
            self.rec(
                "user",
                None,
                |o| {
                    o.o("message", |o| {
                        o.s("role", "user").s("content", text);
                    });
                },
                |o| {
                    if i == 0 {
                        o.t("isMeta", false);
                    }
                },
            );
        }
    }

    /// A background-task completion notice delivered as a user string record.
    pub fn task_notification(
        &mut self,
        task_id: &str,
        tool_use_id: &str,
        summary: &str,
        extra: &str,
        queue: bool,
    ) -> u64 {
        self.tick(3_000, 90_000);
        let out_file = format!(
            "/tmp/claude-501/{}/{}/tasks/{task_id}.output",
            self.id.enc, self.id.sid
        );
        let text = format!(
            "<task-notification>\n<task-id>{task_id}</task-id>\n<tool-use-id>{tool_use_id}</tool-use-id>\n<output-file>{out_file}</output-file>\n<status>completed</status>\n<summary>{summary}</summary>{extra}\n</task-notification>\nRead the output file to retrieve the result: {out_file}"
        );
        if queue {
            self.queue_op("enqueue", Some(&text));
            self.queue_op("remove", None);
        }
        self.rec(
            "user",
            None,
            |o| {
                o.o("message", |o| {
                    o.s("role", "user").s("content", &text);
                });
            },
            |o| {
                o.o("origin", |o| {
                    o.s("kind", "task-notification");
                })
                .s("promptSource", "system");
            },
        )
        .1
    }

    // ---------------------------------------------------------------- assistant side

    pub fn call(&mut self, name: &str, input: impl FnOnce(&mut Obj)) -> Call {
        Call {
            id: format!("toolu_01{}", self.rng.b62(22)),
            name: name.to_string(),
            input: render(input),
        }
    }

    fn signature(&mut self, thinking_len: usize) -> String {
        let n = 280 + (thinking_len / 3).min(1800);
        let n = n - n % 4;
        format!("E{}", self.rng.b64(n - 1))
    }

    /// One API message written one line per content block, sharing id and usage.
    /// Returns `(message id, line of each block)`.
    pub fn msg(&mut self, blocks: Vec<Blk>) -> (String, Vec<u64>) {
        self.tick(1_500, 9_000);
        let mid = format!("msg_01{}", self.rng.b62(22));
        let req = format!("req_011C{}", self.rng.b62(20));
        let has_tool = blocks.iter().any(|b| matches!(b, Blk::Tool(_)));
        let stop = if has_tool { "tool_use" } else { "end_turn" };
        let out_tok: i64 = blocks
            .iter()
            .map(|b| match b {
                Blk::Think(t) | Blk::Text(t) => t.len() as i64 / 4 + 4,
                Blk::Tool(c) => c.input.len() as i64 / 4 + 20,
            })
            .sum();
        let created = self.rng.range(200, 4_000) as i64;
        let read = self.ctx_tokens;
        self.ctx_tokens += created + out_tok;
        let usage = render(|o| {
            o.n("input_tokens", self.rng.range(1, 9) as i64)
                .n("cache_creation_input_tokens", created)
                .n("cache_read_input_tokens", read)
                .o("cache_creation", |o| {
                    o.n("ephemeral_5m_input_tokens", 0)
                        .n("ephemeral_1h_input_tokens", created);
                })
                .n("output_tokens", out_tok)
                .s("service_tier", "standard")
                .s("inference_geo", "not_available");
        });
        let model = self.model;
        let mut lines = Vec::with_capacity(blocks.len());
        for (i, b) in blocks.iter().enumerate() {
            if i > 0 {
                let d = match b {
                    Blk::Think(_) => (300, 3_000),
                    Blk::Text(t) => (200, 600 + t.len() as u64 * 4),
                    Blk::Tool(c) => (150, 400 + c.input.len() as u64 * 3),
                };
                self.tick(d.0, d.1.min(60_000));
            }
            let sig = match b {
                Blk::Think(t) => Some(self.signature(t.len())),
                _ => None,
            };
            let (uuid, line) = self.rec(
                "assistant",
                None,
                |o| {
                    o.o("message", |o| {
                        o.s("model", model)
                            .s("id", &mid)
                            .s("type", "message")
                            .s("role", "assistant")
                            .a("content", |a| {
                                a.o(|o| match b {
                                    Blk::Think(t) => {
                                        o.s("type", "thinking")
                                            .s("thinking", t)
                                            .s("signature", sig.as_deref().unwrap_or(""));
                                    }
                                    Blk::Text(t) => {
                                        o.s("type", "text").s("text", t);
                                    }
                                    Blk::Tool(c) => {
                                        o.s("type", "tool_use")
                                            .s("id", &c.id)
                                            .s("name", &c.name)
                                            .raw("input", &c.input)
                                            .o("caller", |o| {
                                                o.s("type", "direct");
                                            });
                                    }
                                });
                            })
                            .s("stop_reason", stop)
                            .null("stop_sequence")
                            .raw("usage", &usage);
                    })
                    .s("requestId", &req);
                },
                |_| {},
            );
            if let Blk::Tool(c) = b {
                self.tool_rec.insert(c.id.clone(), uuid);
            }
            lines.push(line);
        }
        self.turn_msgs += 1;
        (mid, lines)
    }

    pub fn say(&mut self, text: &str) -> u64 {
        self.msg(vec![Blk::Text(text.to_string())]).1[0]
    }

    /// Think, say, then call tools (any part may be empty).
    pub fn step(&mut self, think: &str, text: &str, calls: &[&Call]) -> Vec<u64> {
        let mut v = Vec::new();
        if !think.is_empty() {
            v.push(Blk::Think(think.to_string()));
        }
        if !text.is_empty() {
            v.push(Blk::Text(text.to_string()));
        }
        for c in calls {
            v.push(Blk::Tool((*c).clone()));
        }
        self.msg(v).1
    }

    /// The user-side carrier of one tool_result, with hooks around it.
    /// `content` is pre-rendered JSON (a string or block array).
    pub fn result_raw(
        &mut self,
        call: &Call,
        content_json: &str,
        is_error: Option<bool>,
        tur: Option<&str>,
        run_ms: (u64, u64),
    ) -> u64 {
        let hooks = self.id.hook_cmd.clone().filter(|_| self.agent.is_none());
        if hooks.is_some() {
            self.hook(
                "PreToolUse",
                &call.name,
                &call.id,
                "~/.claude/hooks/guard.sh",
                "",
            );
            if self.rng.chance(0.5) {
                self.hook(
                    "PreToolUse",
                    &call.name,
                    &call.id,
                    "~/.claude/hooks/log-tool.sh",
                    "",
                );
            }
        }
        self.tick(run_ms.0, run_ms.1);
        let src = self.tool_rec.get(&call.id).cloned();
        let parent = src.clone().or_else(|| self.parent.clone());
        let (_, line) = self.rec(
            "user",
            Some(parent),
            |o| {
                o.o("message", |o| {
                    o.s("role", "user").a("content", |a| {
                        a.o(|o| {
                            o.s("tool_use_id", &call.id)
                                .s("type", "tool_result")
                                .raw("content", content_json);
                            if let Some(e) = is_error {
                                o.t("is_error", e);
                            }
                        });
                    });
                });
            },
            |o| {
                if let Some(t) = tur {
                    o.raw("toolUseResult", t);
                }
                if let Some(s) = &src {
                    o.s("sourceToolAssistantUUID", s);
                }
            },
        );
        if let Some(cmd) = hooks {
            let ev = if is_error == Some(true) {
                "PostToolUseFailure"
            } else {
                "PostToolUse"
            };
            self.hook(ev, &call.name, &call.id, "~/.claude/hooks/log-tool.sh", "");
            if matches!(call.name.as_str(), "Edit" | "Write") && is_error != Some(true) {
                self.hook(ev, &call.name, &call.id, &cmd, "");
            } else {
                self.hook(ev, &call.name, &call.id, "~/.claude/hooks/audit.sh", "");
            }
            match self.rng.range(0, 99) {
                0..=5 => {
                    self.attach(|o| {
                        o.s("type", "task_reminder")
                            .a("content", |_| {})
                            .n("itemCount", 0);
                    });
                }
                6..=9 => {
                    let used = self.ctx_tokens;
                    self.attach(|o| {
                        o.s("type", "total_tokens_reminder")
                            .n("used", used)
                            .n("total", 200_000)
                            .n("remaining", (200_000 - used).max(0));
                    });
                }
                _ => {}
            }
        }
        self.turn_msgs += 1;
        line
    }

    pub fn result_text(
        &mut self,
        call: &Call,
        text: &str,
        is_error: Option<bool>,
        tur: Option<&str>,
        run_ms: (u64, u64),
    ) -> u64 {
        let mut c = String::with_capacity(text.len() + 16);
        esc(&mut c, text);
        self.result_raw(call, &c, is_error, tur, run_ms)
    }

    pub fn bash_res(&mut self, call: &Call, stdout: &str, stderr: &str, code: i32) -> u64 {
        if code != 0 {
            let mut t = format!("Exit code {code}\n{stdout}");
            if !stderr.is_empty() {
                t.push('\n');
                t.push_str(stderr);
            }
            let tur = render_str(&format!("Error: {t}"));
            return self.result_text(call, &t, Some(true), Some(&tur), (800, 40_000));
        }
        let tur = render(|o| {
            o.s("stdout", stdout)
                .s("stderr", stderr)
                .t("interrupted", false)
                .t("isImage", false)
                .t("noOutputExpected", false);
        });
        let shown = if stderr.is_empty() {
            stdout.to_string()
        } else {
            format!("{stdout}\n{stderr}")
        };
        self.result_text(call, &shown, Some(false), Some(&tur), (300, 30_000))
    }

    /// A Bash result too large to inline: persisted to `tool-results/<id>.txt`.
    pub fn bash_persisted(&mut self, call: &Call, full: &str) -> Result<u64> {
        let dir = self.side.join("tool-results");
        fs::create_dir_all(&dir)?;
        fs::write(dir.join(format!("{}.txt", call.id)), full)?;
        let shown_path = format!(
            "{}/.claude/projects/{}/{}/tool-results/{}.txt",
            self.id.home, self.id.enc, self.id.sid, call.id
        );
        let mut cut = full.len().min(2048);
        while !full.is_char_boundary(cut) {
            cut -= 1;
        }
        let preview = &full[..cut];
        let text = format!(
            "<persisted-output>\nOutput too large ({}). Full output saved to: {shown_path}\n\nPreview (first {}):\n{preview}\n...\n</persisted-output>",
            human_size(full.len()),
            human_size(2048)
        );
        let tur = render(|o| {
            o.s("stdout", preview)
                .s("stderr", "")
                .t("interrupted", false)
                .t("isImage", false)
                .t("noOutputExpected", false)
                .s("persistedOutputPath", &shown_path)
                .n("persistedOutputSize", full.len() as i64);
        });
        Ok(self.result_text(call, &text, Some(false), Some(&tur), (5_000, 60_000)))
    }

    pub fn read_res(&mut self, call: &Call, path: &str, content: &str, start: usize) -> u64 {
        let total = content.split('\n').count();
        let mut gut = String::with_capacity(content.len() + total * 8);
        for (i, l) in content.split('\n').enumerate() {
            if i > 0 {
                gut.push('\n');
            }
            gut.push_str(&format!("{:>6}\u{2192}{l}", start + i));
        }
        let tur = render(|o| {
            o.s("type", "text").o("file", |o| {
                o.s("filePath", path)
                    .s("content", content)
                    .n("numLines", total as i64)
                    .n("startLine", start as i64)
                    .n("totalLines", (start - 1 + total) as i64);
            });
        });
        if self.agent.is_some() {
            // Subagent lanes keep only the model-facing render.
            return self.result_text(call, &gut, None, None, (20, 300));
        }
        self.result_text(call, &gut, None, Some(&tur), (20, 300))
    }

    pub fn edit_res(
        &mut self,
        call: &Call,
        path: &str,
        old: &str,
        new: &str,
        start_line: usize,
    ) -> u64 {
        let olds: Vec<&str> = old.split('\n').collect();
        let news: Vec<&str> = new.split('\n').collect();
        let tur = render(|o| {
            o.s("filePath", path)
                .s("oldString", old)
                .s("newString", new)
                .null("originalFile")
                .a("structuredPatch", |a| {
                    a.o(|o| {
                        o.n("oldStart", start_line as i64)
                            .n("oldLines", olds.len() as i64)
                            .n("newStart", start_line as i64)
                            .n("newLines", news.len() as i64)
                            .a("lines", |a| {
                                for l in &olds {
                                    a.s(&format!("-{l}"));
                                }
                                for l in &news {
                                    a.s(&format!("+{l}"));
                                }
                            });
                    });
                })
                .t("userModified", false)
                .t("replaceAll", false);
        });
        let text = format!("The file {path} has been updated successfully.");
        self.result_text(call, &text, None, Some(&tur), (30, 400))
    }

    pub fn write_res(&mut self, call: &Call, path: &str, content: &str) -> u64 {
        let tur = render(|o| {
            o.s("type", "create")
                .s("filePath", path)
                .s("content", content)
                .a("structuredPatch", |_| {})
                .null("originalFile");
        });
        let text = format!("File created successfully at: {path}");
        self.result_text(call, &text, None, Some(&tur), (30, 400))
    }

    pub fn err_res(&mut self, call: &Call, text: &str) -> u64 {
        let body = format!("<tool_use_error>{text}</tool_use_error>");
        let tur = render_str(&format!("Error: {text}"));
        self.result_text(call, &body, Some(true), Some(&tur), (20, 300))
    }

    pub fn grep_res(&mut self, call: &Call, files: &[&str]) -> u64 {
        let text = if files.is_empty() {
            "No files found".to_string()
        } else {
            format!("Found {} files\n{}", files.len(), files.join("\n"))
        };
        let tur = render(|o| {
            o.s("mode", "files_with_matches")
                .strs("filenames", files)
                .n("numFiles", files.len() as i64);
        });
        self.result_text(call, &text, None, Some(&tur), (40, 900))
    }

    pub fn glob_res(&mut self, call: &Call, files: &[&str]) -> u64 {
        let tur = render(|o| {
            o.strs("filenames", files)
                .n("durationMs", self.rng.range(5, 400) as i64)
                .n("numFiles", files.len() as i64)
                .t("truncated", false);
        });
        self.result_text(call, &files.join("\n"), None, Some(&tur), (10, 500))
    }

    /// AskUserQuestion answered: `qa` = (question, header, options, chosen).
    pub fn ask_res(&mut self, call: &Call, qa: &[Answer]) -> u64 {
        let mut text = String::from("User has answered your questions: ");
        for (q, _, _, a) in qa {
            text.push_str(&format!("\"{q}\"=\"{a}\". "));
        }
        text.push_str("You can now continue with the user's answers in mind.");
        let tur = render(|o| {
            o.a("questions", |a| {
                for (q, h, opts, _) in qa {
                    a.o(|o| {
                        o.s("question", q).s("header", h).a("options", |a| {
                            for (l, d) in opts.iter() {
                                a.o(|o| {
                                    o.s("label", l).s("description", d);
                                });
                            }
                        });
                        o.t("multiSelect", false);
                    });
                }
            })
            .o("answers", |o| {
                for (q, _, _, a) in qa {
                    o.s(q, a);
                }
            });
        });
        self.result_text(call, &text, None, Some(&tur), (8_000, 90_000))
    }

    /// The parent-side return of a synchronous subagent.
    pub fn task_res(
        &mut self,
        call: &Call,
        prompt: &str,
        agent_id: &str,
        final_text: &str,
        lane_end: i64,
        tool_count: i64,
    ) -> u64 {
        let start = self.now;
        if lane_end > self.now {
            self.now = lane_end;
        }
        let dur = (self.now - start).max(1_000);
        let total = self.rng.range(20_000, 90_000) as i64;
        let footer = format!(
            "agentId: {agent_id} (use SendMessage with to: '{agent_id}' to continue this agent)"
        );
        let content = render_arr(&[final_text, &footer]);
        let tur = render(|o| {
            o.s("status", "completed")
                .s("prompt", prompt)
                .s("agentId", agent_id)
                .raw("content", &render_arr(&[final_text]))
                .n("totalDurationMs", dur)
                .n("totalTokens", total)
                .n("totalToolUseCount", tool_count)
                .o("usage", |o| {
                    o.n("input_tokens", 3)
                        .n("cache_creation_input_tokens", 1_204)
                        .n("cache_read_input_tokens", total - 1_900)
                        .o("cache_creation", |o| {
                            o.n("ephemeral_5m_input_tokens", 0)
                                .n("ephemeral_1h_input_tokens", 1_204);
                        })
                        .n("output_tokens", 693)
                        .s("service_tier", "standard");
                });
        });
        self.result_raw(call, &content, None, Some(&tur), (100, 400))
    }

    // ---------------------------------------------------------------- turn end, compaction

    pub fn end_turn(&mut self) {
        if self.agent.is_some() {
            return;
        }
        self.tick(30, 400);
        if self.id.hook_cmd.is_some() {
            let tid = self.rng.uuid();
            self.rec(
                "system",
                None,
                |o| {
                    o.s("subtype", "stop_hook_summary")
                        .n("hookCount", 1)
                        .a("hookInfos", |a| {
                            a.o(|o| {
                                o.s("command", "~/.claude/hooks/notify-done.sh");
                            });
                        })
                        .a("hookErrors", |_| {})
                        .t("preventedContinuation", false)
                        .s("stopReason", "")
                        .t("hasOutput", false)
                        .s("level", "suggestion");
                },
                |o| {
                    o.s("toolUseID", &tid);
                },
            );
        }
        let dur = self.now - self.turn_start;
        let msgs = self.turn_msgs;
        self.rec(
            "system",
            None,
            |o| {
                o.s("subtype", "turn_duration")
                    .n("durationMs", dur)
                    .n("messageCount", msgs);
            },
            |o| {
                o.t("isMeta", false);
            },
        );
    }

    /// compact_boundary + isCompactSummary record. Returns the summary's line.
    pub fn compact(&mut self, summary_body: &str, duration_ms: i64) -> u64 {
        let logical = self.parent.clone();
        let pre = self.ctx_tokens.max(150_000);
        let post = self.rng.range(14_000, 26_000) as i64;
        self.now += duration_ms;
        self.rec(
            "system",
            Some(None),
            |o| {
                o.os("logicalParentUuid", logical.as_deref())
                    .s("subtype", "compact_boundary")
                    .s("content", "Conversation compacted")
                    .t("isMeta", false);
            },
            |o| {
                o.s("level", "info").o("compactMetadata", |o| {
                    o.s("trigger", "auto")
                        .n("preTokens", pre)
                        .n("postTokens", post)
                        .n("durationMs", duration_ms)
                        .n("cumulativeDroppedTokens", pre - post);
                });
            },
        );
        self.ctx_tokens = post;
        self.tick(1, 3);
        let text = format!(
            "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n{summary_body}\n\nPlease continue the conversation from where we left off without asking the user any further questions. Continue with the last task that you were asked to work on."
        );
        self.rec(
            "user",
            None,
            |o| {
                o.o("message", |o| {
                    o.s("role", "user").s("content", &text);
                });
            },
            |o| {
                o.t("isVisibleInTranscriptOnly", true)
                    .t("isCompactSummary", true);
            },
        )
        .1
    }
}

fn render_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 8);
    esc(&mut o, s);
    o
}

/// `[{"type":"text","text":...},...]`
pub fn render_arr(texts: &[&str]) -> String {
    let mut s = String::from("[");
    for (i, t) in texts.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        obj(&mut s, |o| {
            o.s("type", "text").s("text", t);
        });
    }
    s.push(']');
    s
}

/// A pasted screenshot's content blocks: the base64 PNG, then the prompt text.
fn image_then_text(a: &mut Arr, image_b64: &str, text: &str) {
    a.o(|o| {
        o.s("type", "image").o("source", |o| {
            o.s("type", "base64")
                .s("media_type", "image/png")
                .s("data", image_b64);
        });
    });
    a.o(|o| {
        o.s("type", "text").s("text", text);
    });
}
