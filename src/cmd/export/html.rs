//! The HTML page: one file with its CSS and a small script inline, a
//! Content-Security-Policy that allows nothing else (no fetch, no other
//! script: the two inline blocks are allowed by their hashes), collapsing by
//! `<details>` so it reads without JavaScript, and every transcript byte
//! escaped ([`crate::output::html::escape`]). `--highlight` wraps matches in
//! `<mark id="hN">` and lists them in a jump index at the end.

use std::io::{self, Write};

use base64::Engine as _;
use regex::Regex;
use sha2::{Digest, Sha256};

use super::sink::{anchor, when, At, Foot, Head, Hit, Hits, Kind, Sink};
use crate::output::html::{escape, escaped};

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// A result or input longer than this many lines (or 2,000 bytes) starts closed.
const OPEN_LINES: usize = 12;

pub(crate) struct Html<W: Write> {
    w: W,
    hits: Hits,
    /// Per open scope (main, then each lane inside it): its anchor prefix and
    /// whether a turn section is open; the current turn's anchor.
    scopes: Vec<(String, bool)>,
    turn: String,
}

fn csp_hash(s: &str) -> String {
    let d = Sha256::digest(s.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(d)
    )
}

impl<W: Write> Html<W> {
    pub(crate) fn new(w: W, hl: Option<Regex>) -> Self {
        Html {
            w,
            hits: Hits::new(hl),
            scopes: vec![(String::new(), false)],
            turn: String::new(),
        }
    }

    pub(crate) fn into_inner(self) -> W {
        self.w
    }

    /// Body text, escaped, with highlight marks.
    fn body(&mut self, s: &str) -> io::Result<()> {
        // The page's marks need no record line: each is its own anchor.
        let mut last = 0;
        for (m, n) in self.hits.find(s, &self.turn, 0) {
            escape(&mut self.w, &s[last..m.start])?;
            write!(self.w, "<mark id=\"h{n}\">")?;
            escape(&mut self.w, &s[m.clone()])?;
            self.w.write_all(b"</mark>")?;
            last = m.end;
        }
        escape(&mut self.w, &s[last..])
    }

    fn hit(&self, s: &str) -> bool {
        self.hits.any(s)
    }

    fn meta(&mut self, at: &At<'_>) -> io::Result<()> {
        write!(
            self.w,
            "<span class=\"meta\">{} · L{}",
            escaped(at.label),
            at.line
        )?;
        if let Some(ts) = at.ts {
            write!(self.w, " · <time>{}</time>", escaped(&when(ts)))?;
        }
        self.w.write_all(b"</span>")
    }

    fn open(&self, s: &str) -> &'static str {
        let short = s.len() <= 2000 && s.lines().count() <= OPEN_LINES;
        if short || self.hit(s) {
            " open"
        } else {
            ""
        }
    }

    fn close_turn(&mut self) -> io::Result<()> {
        if let Some(top) = self.scopes.last_mut() {
            if std::mem::take(&mut top.1) {
                self.w.write_all(b"</section>\n")?;
            }
        }
        Ok(())
    }

    fn facts(&mut self, rows: &[(&str, String)]) -> io::Result<()> {
        self.w.write_all(b"<dl class=\"facts\">")?;
        for (k, v) in rows {
            write!(self.w, "<dt>{}</dt><dd>{}</dd>", escaped(k), escaped(v))?;
        }
        self.w.write_all(b"</dl>\n")
    }
}

impl<W: Write> Sink for Html<W> {
    fn head(&mut self, h: &Head) -> io::Result<()> {
        let title = h
            .title
            .clone()
            .unwrap_or_else(|| format!("session {}", h.session));
        let csp = format!(
            "default-src 'none'; img-src data:; style-src {}; script-src {}; base-uri 'none'; form-action 'none'",
            csp_hash(CSS),
            csp_hash(JS)
        );
        write!(
            self.w,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta name=\"generator\" content=\"csift {}\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<header>\n<h1>{}</h1>\n",
            env!("CARGO_PKG_VERSION"),
            escaped(&title),
            escaped(&title)
        )?;
        self.facts(&h.rows("every match is marked; the jump index is at the end"))?;
        self.w.write_all(
            b"<div id=\"tools\" hidden><button id=\"expand\" type=\"button\">Expand all</button> <button id=\"collapse\" type=\"button\">Collapse all</button></div>\n</header>\n<main>\n",
        )
    }

    fn turn(&mut self, n: usize, ts: Option<&str>) -> io::Result<()> {
        self.close_turn()?;
        let prefix = self.scopes.last().map(|s| s.0.clone()).unwrap_or_default();
        self.turn = format!("{prefix}t{n}");
        let id = self.turn.clone();
        write!(
            self.w,
            "<section class=\"turn\" id=\"{id}\">\n<h2><a href=\"#{id}\">Turn {n}</a>"
        )?;
        if let Some(ts) = ts {
            write!(self.w, " <time>{}</time>", escaped(&when(ts)))?;
        }
        self.w.write_all(b"</h2>\n")?;
        if let Some(top) = self.scopes.last_mut() {
            top.1 = true;
        }
        Ok(())
    }

    fn text(&mut self, kind: Kind, at: &At<'_>, body: &str) -> io::Result<()> {
        let (class, fold) = match kind {
            Kind::Prompt => ("prompt", false),
            Kind::Reply => ("reply", false),
            Kind::Thinking => ("thinking", true),
            Kind::Summary => ("summary", true),
            Kind::Harness => ("harness", true),
        };
        if fold {
            let open = if self.hit(body) { " open" } else { "" };
            write!(self.w, "<details class=\"u {class}\"{open}><summary>")?;
            self.meta(at)?;
            write!(
                self.w,
                " <span class=\"size\">{} chars</span></summary>\n<div class=\"body\">",
                body.chars().count()
            )?;
            self.body(body)?;
            return self.w.write_all(b"</div></details>\n");
        }
        write!(self.w, "<div class=\"u {class}\">")?;
        self.meta(at)?;
        self.w.write_all(b"\n<div class=\"body\">")?;
        self.body(body)?;
        self.w.write_all(b"</div></div>\n")
    }

    fn call(&mut self, at: &At<'_>, line: &str, input: &str) -> io::Result<()> {
        self.w
            .write_all(b"<div class=\"call\"><details class=\"input\"")?;
        self.w.write_all(self.open(input).as_bytes())?;
        self.w.write_all(b"><summary>")?;
        self.meta(at)?;
        self.w.write_all(b" <code>")?;
        self.body(line)?;
        self.w.write_all(b"</code></summary>\n<pre>")?;
        self.body(input)?;
        self.w.write_all(b"</pre></details>\n")
    }

    fn result(
        &mut self,
        at: &At<'_>,
        body: &str,
        error: bool,
        note: Option<&str>,
    ) -> io::Result<()> {
        let class = if error { "result error" } else { "result" };
        let open = self.open(body);
        write!(self.w, "<details class=\"{class}\"{open}><summary>")?;
        self.meta(at)?;
        if error {
            self.w.write_all(b" <strong class=\"err\">error</strong>")?;
        }
        if let Some(n) = note {
            write!(self.w, " <span class=\"note\">{}</span>", escaped(n))?;
        }
        write!(
            self.w,
            " <span class=\"size\">{} lines</span></summary>\n<pre>",
            body.lines().count()
        )?;
        self.body(body)?;
        self.w.write_all(b"</pre></details>\n")
    }

    fn call_end(&mut self) -> io::Result<()> {
        self.w.write_all(b"</div>\n")
    }

    fn lane(&mut self, id: &str, title: &str, facts: &[(&str, String)]) -> io::Result<()> {
        let a = format!("a{}-", anchor(id));
        writeln!(
            self.w,
            "<details class=\"lane\" id=\"{}lane\"><summary>{}</summary>",
            a,
            escaped(title)
        )?;
        self.facts(facts)?;
        self.scopes.push((a, false));
        Ok(())
    }

    fn lane_end(&mut self) -> io::Result<()> {
        self.close_turn()?;
        self.scopes.pop();
        self.w.write_all(b"</details>\n")
    }

    fn boundary(&mut self, at: &At<'_>, text: &str) -> io::Result<()> {
        self.w
            .write_all(b"<div class=\"boundary\" role=\"separator\">")?;
        self.meta(at)?;
        writeln!(self.w, " {}</div>", escaped(text))
    }

    fn image(&mut self, mime: &str, b64: &[u8], caption: &str) -> io::Result<()> {
        write!(
            self.w,
            "<figure class=\"image\"><img alt=\"{}\" src=\"data:{};base64,",
            escaped(caption),
            escaped(mime)
        )?;
        // Checked by the caller: only base64 alphabet bytes reach here.
        self.w.write_all(b64)?;
        writeln!(
            self.w,
            "\"><figcaption>{}</figcaption></figure>",
            escaped(caption)
        )
    }

    fn raw(&mut self, title: &str, bytes: &[u8]) -> io::Result<()> {
        write!(
            self.w,
            "<details class=\"raw\" open><summary>{}</summary>\n<pre>",
            escaped(title)
        )?;
        self.body(&String::from_utf8_lossy(bytes))?;
        self.w.write_all(b"</pre></details>\n")
    }

    fn finding(&mut self, kind: &str, msg: &str) -> io::Result<()> {
        writeln!(
            self.w,
            "<div class=\"finding\" role=\"note\"><strong>{}</strong> {}</div>",
            escaped(kind),
            escaped(msg)
        )
    }

    fn quiet(&mut self, rows: &[String]) -> io::Result<()> {
        let s = if rows.len() == 1 { "" } else { "s" };
        write!(
            self.w,
            "<details class=\"quiet\"><summary>{} record{s} without content</summary><ul>",
            rows.len()
        )?;
        for r in rows {
            write!(self.w, "<li>{}</li>", escaped(r))?;
        }
        self.w.write_all(b"</ul></details>\n")
    }

    fn part(&mut self, title: &str, note: &str) -> io::Result<()> {
        self.close_turn()?;
        writeln!(
            self.w,
            "<section class=\"part\"><h2>{}</h2><p>{}</p></section>",
            escaped(title),
            escaped(note)
        )
    }

    fn foot(&mut self, f: &Foot) -> io::Result<()> {
        self.close_turn()?;
        self.w.write_all(b"</main>\n<footer>\n")?;
        let mut rows = vec![
            ("records", f.records.to_string()),
            ("units shown", f.units.to_string()),
            ("images", f.images.to_string()),
            ("shown raw", f.raw.to_string()),
            ("lanes under their call", f.lanes_placed.to_string()),
        ];
        if f.lanes_unplaced > 0 {
            rows.push(("lanes no key placed", f.lanes_unplaced.to_string()));
        }
        for (k, n) in &f.findings {
            rows.push((k, n.to_string()));
        }
        if f.problems > 0 {
            rows.push(("read errors", f.problems.to_string()));
        }
        self.facts(&rows)?;
        if self.hits.re().is_some() {
            write!(
                self.w,
                "<nav id=\"hits\"><h2>{} matches</h2><ol>",
                self.hits.count()
            )?;
            for Hit {
                n, turn, snippet, ..
            } in self.hits.take()
            {
                write!(
                    self.w,
                    "<li><a href=\"#h{n}\">{}</a> <code>{}</code></li>",
                    if turn.is_empty() {
                        "before turn 0".to_string()
                    } else {
                        escaped(&turn)
                    },
                    escaped(&snippet)
                )?;
            }
            self.w.write_all(b"</ol>")?;
            if self.hits.unlisted() > 0 {
                write!(
                    self.w,
                    "<p>{} more matches are marked in the page but not listed here.</p>",
                    self.hits.unlisted()
                )?;
            }
            self.w.write_all(b"</nav>\n")?;
        }
        writeln!(self.w, "</footer>\n<script>{JS}</script>\n</body>\n</html>")
    }
}
