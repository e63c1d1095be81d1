//! Procedural sessions (bench / many-small presets) and the lane helpers shared
//! with the hand-written sample.

use std::path::Path;

use anyhow::Result;

use crate::emit::{Blk, Call, Ident, Sess, TruthRow, HAIKU};
use crate::json::{encode_cwd, render, Rng};
use crate::text::{self, Lang, PROJECTS};

/// Epoch ms of 2026-03-02T08:00:00Z, the corpus's "day one".
pub const T0: i64 = 1_772_438_400_000;

/// Spawn a synchronous subagent for `call`, run `body` inside its lane, and write
/// the parent-side tool_result. `body` returns the agent's final report.
pub fn run_agent(
    s: &mut Sess,
    call: &Call,
    agent_type: &str,
    desc: &str,
    prompt: &str,
    body: impl FnOnce(&mut Sess) -> Result<String>,
) -> Result<u64> {
    let aid = format!("a{}", s.rng.hex(16));
    let meta = render(|o| {
        o.s("agentType", agent_type)
            .s("description", desc)
            .s("toolUseId", &call.id);
    });
    let mut lane = s.lane(&aid, Some(meta))?;
    lane.model = HAIKU;
    lane.seed(prompt);
    let report = body(&mut lane)?;
    lane.say(&report);
    let tools = lane.tool_count() as i64;
    let (truth, end, _) = lane.finish()?;
    s.truth.extend(truth);
    s.tick(50, 300);
    Ok(s.task_res(call, prompt, &aid, &report, end, tools))
}

/// The compaction lane (`agent-acompact-<hex>.jsonl`) then the boundary + summary
/// in the main transcript. Returns the summary record's line.
pub fn compaction(
    s: &mut Sess,
    recap: &[&str],
    lane_summary: &str,
    main_summary: &str,
    with_lane: bool,
) -> Result<u64> {
    let dur = s.rng.range(40_000, 130_000) as i64;
    if with_lane {
        let aid = format!("acompact-{}", s.rng.hex(6));
        let mut lane = s.lane(&aid, None)?;
        lane.seed(recap.first().copied().unwrap_or("(session start)"));
        for r in recap.iter().skip(1) {
            lane.say(r);
        }
        lane.tick(500, 2_000);
        lane.prompt(
            "Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and your previous actions.\nThis summary should be thorough in capturing technical details, code patterns, and architectural decisions that would be essential for continuing development work without losing context.\n\nBefore providing your final summary, wrap your analysis in <analysis> tags.",
        );
        lane.tick(20_000, 60_000);
        lane.say(lane_summary);
        let (truth, end, _) = lane.finish()?;
        s.truth.extend(truth);
        s.now = s.now.max(end);
    }
    Ok(s.compact(main_summary, dur))
}

/// What to plant in one procedural session.
#[derive(Clone, Default)]
pub struct Plant {
    /// (csift leaf label, needle number)
    pub needles: Vec<(&'static str, u32)>,
    pub eaten: usize,
}

pub struct Spec {
    pub idx: u64,
    pub target: u64,
    pub proj: usize,
    pub small: bool,
    pub huge_lines: u32,
    /// Percent of tool results that are escape-dense 1,500-line bodies.
    pub dense_pct: u32,
    pub plant: Plant,
}

fn needle(label: &str, n: u32) -> String {
    format!("NEEDLE_{}_{n}", label.replace('.', "_"))
}

struct Gen<'a> {
    s: Sess,
    lang: Lang,
    files: &'a [&'static str],
    pending: Vec<(&'static str, u32)>,
    eaten: usize,
    huge: u32,
    dense_pct: u32,
    small: bool,
    /// A session held in Japanese or Chinese (prompts and closing summaries).
    cjk: bool,
    /// Draws for the CJK and image choices, apart from the session's stream so
    /// other sessions stay as they were.
    side: Rng,
}

impl Gen<'_> {
    fn take(&mut self, label: &str) -> Option<String> {
        let i = self.pending.iter().position(|(l, _)| *l == label)?;
        let (l, n) = self.pending.remove(i);
        Some(needle(l, n))
    }

    fn file(&mut self) -> (String, &'static str) {
        let f = *self.s.rng.pick(self.files);
        (format!("{}/{}", self.s.id.cwd, f), f)
    }

    fn maybe_think(&mut self, file: &str) -> (String, Option<String>) {
        if let Some(n) = self.take("agent.thinking") {
            let t = text::fill(&mut self.s.rng, text::THINK[0], file);
            return (format!("{t} I'll note {n} for later."), Some(n));
        }
        if self.s.rng.chance(0.45) {
            let tpl = *self.s.rng.pick(text::THINK);
            return (text::fill(&mut self.s.rng, tpl, file), None);
        }
        (String::new(), None)
    }

    fn maybe_say(&mut self, file: &str) -> (String, Option<String>) {
        if let Some(n) = self.take("agent.message") {
            return (
                format!("Let me check {file} (tracking this as {n})."),
                Some(n),
            );
        }
        if self.s.rng.chance(0.45) {
            let tpl = *self.s.rng.pick(&text::SAY[..4]);
            return (text::fill(&mut self.s.rng, tpl, file), None);
        }
        (String::new(), None)
    }

    /// Write a message and attach truth rows for planted think/text blocks.
    fn step(
        &mut self,
        think: (String, Option<String>),
        say: (String, Option<String>),
        call: &Call,
    ) {
        let lines = self.s.step(&think.0, &say.0, &[call]);
        let mut i = 0;
        if !think.0.is_empty() {
            if let Some(n) = &think.1 {
                self.s.needle_row("agent.thinking", n, lines[i]);
            }
            i += 1;
        }
        if !say.0.is_empty() {
            if let Some(n) = &say.1 {
                self.s.needle_row("agent.message", n, lines[i]);
            }
        }
    }

    fn tool_step(&mut self) -> Result<()> {
        let (abs, rel) = self.file();
        let roll = self.s.rng.range(0, 99);
        let want_bash = self.eaten > 0
            || self
                .pending
                .iter()
                .any(|(l, _)| *l == "agent.tool.use" || *l == "agent.tool.result")
            || self.huge > 0;
        if roll < 28 || want_bash {
            return self.bash_step(&abs);
        }
        let think = self.maybe_think(&abs);
        let say = self.maybe_say(&abs);
        match roll {
            28..=59 => {
                let call = self.s.call("Read", |o| {
                    o.s("file_path", &abs);
                });
                self.step(think, say, &call);
                let size = match self.s.rng.range(0, 99) {
                    0..=54 => self.s.rng.range(300, 4_000),
                    55..=79 => self.s.rng.range(4_000, 14_000),
                    _ => self.s.rng.range(18_000, 32_000),
                } as usize;
                let body = text::code(&mut self.s.rng, self.lang, size);
                self.s.read_res(&call, &abs, &body, 1);
            }
            60..=79 => {
                let f = text::fn_name(&mut self.s.rng);
                let old = format!("    let result = {f}(input)?;\n    Ok(result)");
                let new = format!("    let result = {f}(input).context(\"{f} failed\")?;\n    tracing::debug!(?result, \"{f}\");\n    Ok(result)");
                let call = self.s.call("Edit", |o| {
                    o.s("file_path", &abs)
                        .s("old_string", &old)
                        .s("new_string", &new)
                        .t("replace_all", false);
                });
                self.step(think, say, &call);
                if self.s.rng.chance(0.06) {
                    self.s.err_res(
                        &call,
                        "String to replace not found in file.\nString:     let result = ...",
                    );
                } else {
                    self.s.track_file(rel);
                    let ln = self.s.rng.range(10, 400) as usize;
                    self.s.edit_res(&call, &abs, &old, &new, ln);
                    if self.s.rng.chance(0.3) && self.s.agent.is_none() {
                        let id = call.id.clone();
                        self.s.hook_context(
                            "PostToolUse",
                            "Edit",
                            &id,
                            &["Formatter: 1 file reformatted, 0 files left unchanged."],
                        );
                    }
                }
            }
            80..=87 => {
                let pat = text::fn_name(&mut self.s.rng);
                let call = self.s.call("Grep", |o| {
                    o.s("pattern", &pat).s("output_mode", "files_with_matches");
                });
                self.step(think, say, &call);
                let n = self.s.rng.range(0, self.files.len() as u64 - 1) as usize;
                let hits: Vec<String> = self.files[..n]
                    .iter()
                    .map(|f| format!("{}/{f}", self.s.id.cwd))
                    .collect();
                let refs: Vec<&str> = hits.iter().map(String::as_str).collect();
                self.s.grep_res(&call, &refs);
            }
            88..=93 => {
                let call = self.s.call("Glob", |o| {
                    o.s("pattern", "**/*.{rs,ts,py,go,md}");
                });
                self.step(think, say, &call);
                let hits: Vec<String> = self
                    .files
                    .iter()
                    .map(|f| format!("{}/{f}", self.s.id.cwd))
                    .collect();
                let refs: Vec<&str> = hits.iter().map(String::as_str).collect();
                self.s.glob_res(&call, &refs);
            }
            _ => {
                let size = self.s.rng.range(600, 6_000) as usize;
                let body = text::code(&mut self.s.rng, self.lang, size);
                let path = format!("{}.new", abs);
                let call = self.s.call("Write", |o| {
                    o.s("file_path", &path).s("content", &body);
                });
                self.step(think, say, &call);
                self.s.write_res(&call, &path, &body);
            }
        }
        Ok(())
    }

    fn bash_step(&mut self, abs: &str) -> Result<()> {
        let cmd = match self.lang {
            Lang::Rust => "cargo test --all-targets 2>&1 | tail -n 200",
            Lang::Ts => "npm test -- --reporter=dot",
            Lang::Py => "python -m pytest -q",
            Lang::Go => "go test ./... -count=1",
        };
        let use_needle = self.take("agent.tool.use");
        let desc = match &use_needle {
            Some(n) => format!("Run the test suite ({n})"),
            None => "Run the test suite".to_string(),
        };
        let call = self.s.call("Bash", |o| {
            o.s("command", cmd).s("description", &desc);
        });
        let line = if self.eaten > 0 {
            self.eaten -= 1;
            let t1 = format!(
                "The fix in {abs} should make the failing case pass. I need to rerun the suite."
            );
            let t2 = "Actually the suite is slow; but a focused run could miss the integration test that caught this originally. Run everything.".to_string();
            let (mid, lines) = self.s.msg(vec![
                Blk::Think(t1),
                Blk::Think(t2),
                Blk::Tool(call.clone()),
            ]);
            self.s.eaten_row(&mid);
            lines[2]
        } else {
            let think = self.maybe_think(abs);
            let say = self.maybe_say(abs);
            self.step(think, say, &call);
            self.s.line
        };
        if let Some(n) = &use_needle {
            self.s.needle_row("agent.tool.use", n, line);
        }
        let res_needle = self.take("agent.tool.result");
        let size = if self.huge > 0 {
            self.huge -= 1;
            self.s.rng.range(1_500_000, 4_000_000) as usize
        } else {
            let r = self.s.rng.range(0, 99);
            let sz = match r {
                0..=74 => self.s.rng.range(200, 2_500),
                75..=89 => self.s.rng.range(2_500, 9_000),
                _ => self.s.rng.range(20_000, 30_000),
            };
            sz as usize
        };
        let fail = res_needle.is_none() && self.s.rng.chance(0.1);
        // Drawn from the side stream, and only when asked: without
        // --dense-results the session's own stream, and its bytes, are as before.
        let dense = self.dense_pct > 0 && self.side.range(0, 99) < u64::from(self.dense_pct);
        let mut out = if dense {
            text::source_body(&mut self.side, 1_500)
        } else {
            text::test_output(&mut self.s.rng, self.lang, size, fail)
        };
        if let Some(n) = &res_needle {
            out.push_str(&format!("note: fixture checksum {n}\n"));
        }
        let line = if fail {
            self.s.bash_res(&call, &out, "", 101)
        } else {
            self.s.bash_res(&call, &out, "", 0)
        };
        if let Some(n) = &res_needle {
            self.s.needle_row("agent.tool.result", n, line);
        }
        Ok(())
    }

    fn turn(&mut self) -> Result<bool> {
        let (_, rel) = self.file();
        let tpl = if self.cjk {
            *self.side.pick(text::PROMPTS_CJK)
        } else {
            *self.s.rng.pick(text::PROMPTS)
        };
        let mut p = text::fill(&mut self.s.rng, tpl, rel);
        let planted = self.take("user.message");
        if let Some(n) = &planted {
            p.push_str(&format!(" (ticket {n})"));
        }
        // About one prompt in thirty pastes a screenshot (base64 image block).
        let line = if planted.is_none() && self.side.chance(0.035) {
            let size = self.side.range(20_000, 300_000) as usize;
            let png = text::png_b64(&mut self.side, size);
            self.s.prompt_image(&p, &png)
        } else {
            self.s.prompt(&p)
        };
        if let Some(n) = &planted {
            self.s.needle_row("user.message", n, line);
        }
        let steps = if self.small {
            self.s.rng.range(1, 3)
        } else {
            self.s.rng.range(2, 9)
        };
        for _ in 0..steps {
            self.tool_step()?;
        }
        let tpl = if self.cjk {
            *self.side.pick(text::SAY_CJK)
        } else {
            *self.s.rng.pick(&text::SAY[4..])
        };
        let done = text::fill(&mut self.s.rng, tpl, rel);
        self.s.say(&done);
        self.s.end_turn();
        Ok(planted.is_some())
    }

    fn notification(&mut self) {
        let call = self.s.call("Bash", |o| {
            o.s("command", "./scripts/integration.sh")
                .s("description", "Run integration tests in background")
                .t("run_in_background", true);
        });
        self.s.step(
            "",
            "I'll start the integration tests in the background.",
            &[&call],
        );
        let task = self.s.rng.hex(9);
        let tur = render(|o| {
            o.s("stdout", "")
                .s("stderr", "")
                .t("interrupted", false)
                .t("isImage", false)
                .t("noOutputExpected", false)
                .s("backgroundTaskId", &task);
        });
        let txt = format!("Command running in background with ID: {task}. Output is being written to: /tmp/claude-501/{}/tasks/{task}.output", self.s.id.enc);
        self.s
            .result_text(&call, &txt, Some(false), Some(&tur), (50, 300));
        self.s.end_turn();
        // A "Background command" summary is the background leaf (CLS-004).
        let n = self.take("harness.notification.background");
        let summary = match &n {
            Some(n) => {
                format!("Background command \"Run integration tests\" completed (exit code 0) {n}")
            }
            None => {
                "Background command \"Run integration tests\" completed (exit code 0)".to_string()
            }
        };
        let line = self
            .s
            .task_notification(&task, &call.id, &summary, "", n.is_none());
        if let Some(n) = &n {
            self.s
                .needle_row("harness.notification.background", n, line);
        }
        self.s
            .say("The integration tests finished cleanly in the background.");
        self.s.end_turn();
    }

    fn subagent(&mut self) -> Result<()> {
        let prompt = "Survey the repository: list the main modules, how errors are propagated, and where configuration is loaded. Report file paths and one-line descriptions.";
        let call = self.s.call("Agent", |o| {
            o.s("description", "Survey repository structure")
                .s("prompt", prompt)
                .s("subagent_type", "Explore");
        });
        self.s.step(
            "",
            "I'll have an Explore agent map the codebase first.",
            &[&call],
        );
        let files = self.files;
        let lang = self.lang;
        run_agent(
            &mut self.s,
            &call,
            "Explore",
            "Survey repository structure",
            prompt,
            |l| {
                let cwd = l.id.cwd.clone();
                let g = l.call("Glob", |o| {
                    o.s("pattern", "**/*");
                });
                l.step("", "", &[&g]);
                let hits: Vec<String> = files.iter().map(|f| format!("{cwd}/{f}")).collect();
                let refs: Vec<&str> = hits.iter().map(String::as_str).collect();
                l.glob_res(&g, &refs);
                for f in files.iter().take(3) {
                    let p = format!("{cwd}/{f}");
                    let r = l.call("Read", |o| {
                        o.s("file_path", &p);
                    });
                    l.step("", "", &[&r]);
                    let size = l.rng.range(800, 5_000) as usize;
                    let body = text::code(&mut l.rng, lang, size);
                    l.read_res(&r, &p, &body, 1);
                }
                Ok(format!("## Repository survey\n\n{}\n\nErrors propagate with `?` and context strings; configuration is loaded once at startup.", files.iter().map(|f| format!("- `{f}`")).collect::<Vec<_>>().join("\n")))
            },
        )?;
        self.s
            .say("The survey matches what I expected; continuing with the change.");
        Ok(())
    }
}

/// Generate one procedural session; returns its truth rows.
pub fn session(projects: &Path, base: &Rng, spec: &Spec) -> Result<Vec<TruthRow>> {
    let mut rng = base.fork(spec.idx + 1);
    let p = &PROJECTS[spec.proj % PROJECTS.len()];
    let id = Ident {
        sid: rng.uuid(),
        cwd: p.cwd.to_string(),
        version: rng
            .pick(&["2.1.72", "2.1.81", "2.1.90", "2.1.97"])
            .to_string(),
        branch: rng.pick(p.branches).to_string(),
        slug: format!(
            "{}-{}-{}",
            rng.pick(&["quiet", "brisk", "amber", "lucid"]),
            rng.pick(&["rolling", "humming", "drifting"]),
            rng.pick(&["otter", "heron", "maple", "comet"])
        ),
        home: p.home.to_string(),
        enc: encode_cwd(p.cwd),
        hook_cmd: if rng.chance(0.95) {
            Some("~/.claude/hooks/format.sh".into())
        } else {
            None
        },
    };
    let start = T0 + spec.idx as i64 * 3_600_000 + rng.range(0, 3_000_000) as i64;
    let s = Sess::create(projects, id, rng.fork(7), start)?;
    let mut side = rng.fork(0xC1A5);
    let mut g = Gen {
        s,
        lang: p.lang,
        files: p.files,
        pending: spec.plant.needles.clone(),
        eaten: spec.plant.eaten,
        huge: spec.huge_lines,
        dense_pct: spec.dense_pct,
        small: spec.small,
        cjk: side.chance(0.1),
        side,
    };
    g.s.permission_mode("default");
    g.s.session_start(&[
        "Project conventions: run the formatter after every edit; never commit directly to main.",
    ]);
    let lanes = !spec.small || g.s.rng.chance(0.1);
    let mut compacted = false;
    let mut last_planted = false;
    let mut turns = 0;
    let want_compact = spec
        .plant
        .needles
        .iter()
        .any(|(l, _)| *l == "harness.compaction.summary");
    loop {
        let done = g.s.bytes >= spec.target && g.pending.is_empty() && g.eaten == 0 && g.huge == 0;
        if done && turns > 0 {
            break;
        }
        if g.s.bytes > spec.target.saturating_mul(8).max(64 << 20) {
            anyhow::bail!(
                "session overran 8x its size without placing its plants: {:?}",
                g.pending
            );
        }
        last_planted = g.turn()?;
        turns += 1;
        let r = g.s.rng.range(0, 99);
        if r < 4
            || (g
                .pending
                .iter()
                .any(|(l, _)| *l == "harness.notification.background")
                && turns > 1)
        {
            g.notification();
        } else if r < 9 && lanes {
            g.subagent()?;
            g.s.end_turn();
        } else if r < 11 {
            g.s.slash("model", "", "Set model to opus (claude-opus-4-5-20251101)");
        } else if r < 13 {
            g.s.prompt("keep going");
            g.s.step("", "Continuing with the remaining call sites.", &[]);
            g.s.interrupt();
        }
        // Compact once for size, and again for every compaction needle still
        // pending: two such needles can land in one session.
        let needle_waiting = want_compact
            && g.pending
                .iter()
                .any(|(l, _)| *l == "harness.compaction.summary");
        if (!compacted && g.s.bytes > spec.target / 2 && !spec.small)
            || (needle_waiting && turns > 1)
        {
            compacted = true;
            let n = g.take("harness.compaction.summary");
            let body = format!(
                "Summary:\n1. Primary Request and Intent:\n   The user asked for a series of fixes in {}.\n2. Key Technical Concepts:\n   - error context propagation\n   - test isolation\n3. Files and Code Sections:\n{}\n4. Pending Tasks:\n   - rerun the full suite after the last edit{}",
                g.s.id.cwd,
                g.files.iter().map(|f| format!("   - {f}")).collect::<Vec<_>>().join("\n"),
                n.as_ref().map(|n| format!("\n   - follow up on {n}")).unwrap_or_default()
            );
            let lane_summary = "<analysis>\nThe conversation covered several fixes and test runs.\n</analysis>\n\n<summary>\n1. Primary Request and Intent: a series of fixes.\n</summary>";
            let line = compaction(
                &mut g.s,
                &["(conversation start)", "Earlier work on the test suite."],
                lane_summary,
                &body,
                lanes,
            )?;
            if let Some(n) = &n {
                g.s.needle_row("harness.compaction.summary", n, line);
            }
        }
    }
    let title = *g.s.rng.pick(text::TITLES);
    g.s.ai_title(title);
    if !last_planted {
        g.s.last_prompt_line();
    }
    let (truth, _, _) = g.s.finish()?;
    Ok(truth)
}
