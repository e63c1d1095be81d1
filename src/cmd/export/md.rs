//! The Markdown page: the HTML page's structure as headings (turns, lanes one
//! level deeper), blockquotes (prompts and replies, with `&`, `<` and `>`
//! escaped so no HTML forms) and fenced blocks (calls, results, thinking, raw
//! records; each fence longer than any backtick run of its body).
//! `--highlight` lists the matching units in an index at the end: a mark inside
//! a fenced block would be text, not a mark.

use std::io::{self, Write};

use regex::Regex;

use super::sink::{when, At, Foot, Head, Hit, Hits, Kind, Sink};
use crate::output::html::{escape_md as escape, fence, pictured};

pub(crate) struct Md<W: Write> {
    w: W,
    hits: Hits,
    /// Heading depth of the current scope (main 0, each lane one more).
    depth: usize,
    turn: String,
}

impl<W: Write> Md<W> {
    pub(crate) fn new(w: W, hl: Option<Regex>) -> Self {
        Md {
            w,
            hits: Hits::new(hl),
            depth: 0,
            turn: String::new(),
        }
    }

    pub(crate) fn into_inner(self) -> W {
        self.w
    }

    fn h(&self, extra: usize) -> String {
        "#".repeat((2 + self.depth + extra).min(6))
    }

    fn note_hits(&mut self, at: &At<'_>, s: &str) {
        self.hits.find(s, &self.turn, at.line);
    }

    fn meta(&mut self, what: &str, at: &At<'_>) -> io::Result<()> {
        write!(self.w, "**{what}** · `{}` · L{}", at.label, at.line)?;
        if let Some(ts) = at.ts {
            self.w.write_all(b" \xc2\xb7 ")?;
            escape(&mut self.w, &when(ts))?;
        }
        self.w.write_all(b"\n\n")
    }

    fn quote(&mut self, body: &str) -> io::Result<()> {
        for line in body.trim_end_matches('\n').split('\n') {
            self.w.write_all(b"> ")?;
            escape(&mut self.w, line)?;
            self.w.write_all(b"\n")?;
        }
        self.w.write_all(b"\n")
    }

    fn fenced(&mut self, body: &str) -> io::Result<()> {
        let body = pictured(body);
        let f = fence(&body);
        write!(self.w, "{f}\n{}\n{f}\n\n", body.trim_end_matches('\n'))
    }
}

impl<W: Write> Sink for Md<W> {
    fn head(&mut self, h: &Head) -> io::Result<()> {
        let title = h
            .title
            .clone()
            .unwrap_or_else(|| format!("session {}", h.session));
        self.w.write_all(b"# ")?;
        escape(&mut self.w, &crate::output::sanitize::one_line(&title))?;
        self.w.write_all(b"\n\n")?;
        for (k, v) in h.rows("matches are listed at the end") {
            write!(self.w, "- **{k}**: ")?;
            escape(&mut self.w, &crate::output::sanitize::one_line(&v))?;
            self.w.write_all(b"\n")?;
        }
        self.w.write_all(b"\n")
    }

    fn turn(&mut self, n: usize, ts: Option<&str>) -> io::Result<()> {
        self.turn = format!("turn {n}");
        write!(self.w, "{} Turn {n}", self.h(0))?;
        if let Some(ts) = ts {
            self.w.write_all(b" \xc2\xb7 ")?;
            escape(&mut self.w, &when(ts))?;
        }
        self.w.write_all(b"\n\n")
    }

    fn text(&mut self, kind: Kind, at: &At<'_>, body: &str) -> io::Result<()> {
        self.note_hits(at, body);
        let what = match kind {
            Kind::Prompt => "Prompt",
            Kind::Reply => "Reply",
            Kind::Thinking => "Thinking",
            Kind::Summary => "Compaction summary",
            Kind::Harness => "Harness",
        };
        self.meta(what, at)?;
        match kind {
            Kind::Prompt | Kind::Reply => self.quote(body),
            _ => self.fenced(body),
        }
    }

    fn call(&mut self, at: &At<'_>, line: &str, input: &str) -> io::Result<()> {
        self.note_hits(at, input);
        let name = line.split(' ').next().unwrap_or("?");
        self.meta(
            &format!(
                "Tool call: {}",
                crate::output::sanitize::one_line(name).replace(['*', '`', '<', '>', '&'], "")
            ),
            at,
        )?;
        self.fenced(input)
    }

    fn result(
        &mut self,
        at: &At<'_>,
        body: &str,
        error: bool,
        note: Option<&str>,
    ) -> io::Result<()> {
        self.note_hits(at, body);
        let what = if error { "Result (error)" } else { "Result" };
        self.meta(what, at)?;
        if let Some(n) = note {
            self.w.write_all(b"*")?;
            escape(&mut self.w, n)?;
            self.w.write_all(b"*\n\n")?;
        }
        self.fenced(body)
    }

    fn call_end(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn lane(&mut self, _id: &str, title: &str, facts: &[(&str, String)]) -> io::Result<()> {
        self.depth += 1;
        write!(self.w, "{} ", self.h(0))?;
        escape(&mut self.w, title)?;
        self.w.write_all(b"\n\n")?;
        for (k, v) in facts {
            write!(self.w, "- **{k}**: ")?;
            escape(&mut self.w, &crate::output::sanitize::one_line(v))?;
            self.w.write_all(b"\n")?;
        }
        self.w.write_all(b"\n")
    }

    fn lane_end(&mut self) -> io::Result<()> {
        self.depth = self.depth.saturating_sub(1);
        self.w.write_all(b"*(end of lane)*\n\n")
    }

    fn boundary(&mut self, at: &At<'_>, text: &str) -> io::Result<()> {
        self.w.write_all(b"---\n\n")?;
        self.meta("Compaction", at)?;
        escape(&mut self.w, text)?;
        self.w.write_all(b"\n\n---\n\n")
    }

    fn image(&mut self, mime: &str, b64: &[u8], caption: &str) -> io::Result<()> {
        self.w.write_all(b"![")?;
        escape(&mut self.w, caption)?;
        write!(self.w, "](data:{mime};base64,")?;
        self.w.write_all(b64)?;
        self.w.write_all(b")\n\n")
    }

    fn raw(&mut self, title: &str, bytes: &[u8]) -> io::Result<()> {
        write!(self.w, "**Shown raw**: ")?;
        escape(&mut self.w, title)?;
        self.w.write_all(b"\n\n")?;
        self.fenced(&String::from_utf8_lossy(bytes))
    }

    fn finding(&mut self, kind: &str, msg: &str) -> io::Result<()> {
        write!(self.w, "> **{kind}** ")?;
        escape(&mut self.w, msg)?;
        self.w.write_all(b"\n\n")
    }

    fn quiet(&mut self, rows: &[String]) -> io::Result<()> {
        write!(self.w, "*{} record(s) without content:* ", rows.len())?;
        escape(&mut self.w, &rows.join("; "))?;
        self.w.write_all(b"\n\n")
    }

    fn part(&mut self, title: &str, note: &str) -> io::Result<()> {
        self.w.write_all(b"## ")?;
        escape(&mut self.w, title)?;
        self.w.write_all(b"\n\n")?;
        escape(&mut self.w, note)?;
        self.w.write_all(b"\n\n")
    }

    fn foot(&mut self, f: &Foot) -> io::Result<()> {
        write!(
            self.w,
            "---\n\n{} records, {} units shown, {} images, {} shown raw, {} lanes under their call",
            f.records, f.units, f.images, f.raw, f.lanes_placed
        )?;
        if f.lanes_unplaced > 0 {
            write!(self.w, ", {} lanes no key placed", f.lanes_unplaced)?;
        }
        for (k, n) in &f.findings {
            write!(self.w, ", {n} {k}")?;
        }
        self.w.write_all(b".\n")?;
        if self.hits.re().is_some() {
            write!(self.w, "\n## Matches ({})\n\n", self.hits.count())?;
            for Hit {
                turn,
                line,
                snippet,
                ..
            } in self.hits.take()
            {
                write!(self.w, "- {turn}, L{line}: ")?;
                escape(&mut self.w, &snippet)?;
                self.w.write_all(b"\n")?;
            }
            if self.hits.unlisted() > 0 {
                writeln!(
                    self.w,
                    "\n{} more matches not listed.",
                    self.hits.unlisted()
                )?;
            }
        }
        Ok(())
    }
}
