//! Printing: the one writer every command's printer goes through. It owns colour
//! decisions, terminal sanitising ([`sanitize`]) and JSON Lines emission. Commands
//! compute results and hand them to a printer; they never print directly.

pub(crate) mod html;
pub mod sanitize;

use std::io::{self, IsTerminal, Write};

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub(crate) enum Format {
    /// Compact human/LLM-readable text.
    #[default]
    Human,
    /// JSON Lines, one object per line (the machine form).
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub(crate) enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

/// ANSI styles csift uses; empty strings when colour is off.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    pub(crate) head: &'static str,
    pub(crate) dim: &'static str,
    pub(crate) hit: &'static str,
    pub(crate) label: &'static str,
    pub(crate) warn: &'static str,
    pub(crate) reset: &'static str,
}

pub(crate) const COLOR: Style = Style {
    head: "\x1b[1;36m",
    dim: "\x1b[2m",
    hit: "\x1b[1;31m",
    label: "\x1b[33m",
    warn: "\x1b[35m",
    reset: "\x1b[0m",
};
pub(crate) const PLAIN: Style = Style {
    head: "",
    dim: "",
    hit: "",
    label: "",
    warn: "",
    reset: "",
};

pub(crate) struct Out {
    w: Sink,
    pub(crate) style: Style,
    /// Whether stdout is a terminal: transcript text is always sanitised in human
    /// form, but a terminal also gets colour under `auto`.
    pub(crate) tty: bool,
}

impl Out {
    pub(crate) fn stdout(choice: ColorChoice) -> Out {
        let tty = io::stdout().is_terminal();
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            // no-color.org: NO_COLOR set to a non-empty value turns colour off.
            ColorChoice::Auto => tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        };
        Out {
            w: Sink::Stdout(io::BufWriter::with_capacity(64 * 1024, io::stdout())),
            style: if color { COLOR } else { PLAIN },
            tty,
        }
    }

    /// An `Out` that collects into memory, uncoloured and not a terminal: how
    /// `csift mcp` runs a command in-process and reads back its JSON Lines.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn buffer() -> Out {
        Out {
            w: Sink::Buffer(Vec::new()),
            style: PLAIN,
            tty: false,
        }
    }

    /// What a [`Out::buffer`] collected (empty for stdout).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        match self.w {
            Sink::Buffer(v) => v,
            Sink::Stdout(_) => Vec::new(),
        }
    }

    /// Write one JSON Lines record. Characters JSON may carry raw but a terminal
    /// obeys (DEL, the C1 controls such as CSI 0x9b, bidi overrides) are written
    /// as `\uXXXX` escapes: the same JSON value, safe to `cat`.
    pub(crate) fn json<T: Serialize>(&mut self, v: &T) -> io::Result<()> {
        json_line(&mut self.w, v)
    }

    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// Where an [`Out`] writes: buffered stdout, or memory.
enum Sink {
    Stdout(io::BufWriter<io::Stdout>),
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    Buffer(Vec<u8>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(buf),
            Sink::Buffer(v) => v.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush(),
            Sink::Buffer(_) => Ok(()),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.write_all(buf),
            Sink::Buffer(v) => v.write_all(buf),
        }
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.w.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.w.write_all(buf)
    }
}

/// Write one JSON Lines record to any writer, as [`Out::json`] does: printers
/// generic over `W: Write` use this, so they can be tested in-process.
pub(crate) fn json_line<W: Write, T: Serialize>(w: &mut W, v: &T) -> io::Result<()> {
    // `From` hands back serde_json's underlying io::Error (a broken pipe stays
    // a broken pipe, exit 0); only a serialisation failure becomes `Other`.
    let text = serde_json::to_string(v).map_err(io::Error::from)?;
    sanitize::write_json_escaped(w, &text)?;
    w.write_all(b"\n")
}

/// The marker that says how much of a body was cut: never truncate silently.
pub(crate) fn omitted(out: &mut Out, rest: &str) -> io::Result<()> {
    let st = out.style;
    omitted_styled(out, st, rest)
}

/// [`omitted`] to any writer, in the given style.
pub(crate) fn omitted_styled<W: Write>(w: &mut W, st: Style, rest: &str) -> io::Result<()> {
    writeln!(
        w,
        "{}[… {} lines, {} chars omitted; --no-truncate shows all]{}",
        st.dim,
        rest.lines().count(),
        rest.chars().count(),
        st.reset
    )
}

/// Write one line to stderr. A closed or broken stderr has nowhere to be
/// reported, so a failed write is ignored: `eprintln!` panics on one (a guard
/// hook exited 101 on a closed stderr pipe). The caller cleans the text.
pub(crate) fn to_stderr(line: &str) {
    let mut text = String::with_capacity(line.len() + 1);
    text.push_str(line);
    text.push('\n');
    let _ = io::stderr().lock().write_all(text.as_bytes());
}
