//! Flags of `csift image`.

use std::path::PathBuf;

use clap::Args;

/// `--id`: the stable locator or the model-facing handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ImageId {
    /// `L<line>i<n>`: one occurrence, unique in its file (IMG-001).
    Locator { line: usize, block: usize },
    /// `N` or `#N`: the `[Image #N]` handle, reused across prompts (IMG-006).
    Handle(u32),
}

impl std::fmt::Display for ImageId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImageId::Locator { line, block } => write!(f, "L{line}i{block}"),
            ImageId::Handle(n) => write!(f, "#{n}"),
        }
    }
}

fn parse_id(s: &str) -> Result<ImageId, String> {
    let t = s.trim();
    let num = |d: &str| d.parse::<usize>().ok().filter(|&n| n > 0);
    if let Some(rest) = t.strip_prefix(['L', 'l']) {
        if let Some((line, block)) = rest.split_once(['i', 'I']) {
            if let (Some(line), Some(block)) = (num(line), num(block)) {
                return Ok(ImageId::Locator { line, block });
            }
        }
    }
    let digits = t.strip_prefix('#').unwrap_or(t);
    match digits.parse::<u32>() {
        Ok(n) => Ok(ImageId::Handle(n)),
        Err(_) => Err(format!(
            "`{s}` is neither an image id L<line>i<n> (e.g. L4351i2) nor a handle N or #N"
        )),
    }
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Examples:\n",
    "  csift image @4d56                       # every image of a session, one row each\n",
    "  csift image @4d56 --out /tmp/shots      # write each distinct image once\n",
    "  csift image @4d56 --id L4351i2 --out .  # one image by its stable id\n",
    "  csift image @4d56 --id 3                # the image the model calls [Image #3]\n",
    "  csift image --since 2d --format json | jq -r 'select(.type==\"image\") | .id'\n\n",
    "Images ride inline in the transcript as base64; nothing is read from Claude Code's\n",
    "image cache. Carriers: pasted image blocks, images in tool results (screenshots,\n",
    "image Reads, PDF pages since Claude Code 2.1.251), and an image Read's echo when no\n",
    "block carries it. An image's id L<line>i<n> is its record's line and its place among\n",
    "that record's images: stable, since a transcript is only appended to. [Image #N]\n",
    "handles are per prompt and reused, so `--id N` naming several different images is an\n",
    "error that lists them. The same image sent again (at a later prompt, or re-included\n",
    "at a compaction) is one row, with its copies. sha256 is the SHA-256 of the base64\n",
    "payload as the transcript holds it (one text per image; for a written file it is\n",
    "`base64 -w0 FILE | sha256sum`): listing decodes nothing, so it costs a search.\n\n",
    "--out DIR writes <session8>[-<agent>]-L<line>i<n>.<ext> (png, jpg, gif, webp, …; bin\n",
    "for an unknown media type), never over an existing file without --force, and never\n",
    "under the Claude home. A payload that does not decode is said then, with its id, and\n",
    "skipped (its row's error says why).\n\n",
    "JSON (--format json): per distinct image\n",
    "  {\"type\":\"image\",\"session_id\",\"agent_id\",\"file\",\"line\",\"block\",\"id\",\"handle\",\n",
    "   \"turn\",\"prompt_line\",\"carrier\",\"media_type\",\"bytes\",\"sha256\",\"uuid\",\"timestamp\",\n",
    "   \"error\",\"copies\":[{\"id\",\"line\",\"block\",\"handle\",\"turn\",\"timestamp\"}],\"written\"}\n",
    "  then {\"type\":\"summary\",\"files\",\"images\",\"distinct\",\"copies\",\"documents\",\n",
    "   \"unlisted_lines\",\"bad_payloads\",\"written\",\"errors\",\"elapsed_ms\"}.\n\n",
    "Exit status: 0 images found (or written), 1 none, 2 an error (a bad payload under\n",
    "--out, a file that exists, an ambiguous --id).",
))]
pub(crate) struct ImageArgs {
    /// What to read (see TARGETS in `csift --help`).
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// Write each distinct image once into DIR (created when missing).
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
    /// Overwrite files --out finds already there.
    #[arg(long, requires = "out")]
    pub(crate) force: bool,
    /// One image: its id L<line>i<n>, or its handle N / #N.
    #[arg(long, value_name = "ID", value_parser = parse_id)]
    pub(crate) id: Option<ImageId>,
    #[command(flatten)]
    pub(crate) common: super::Common,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_as_locators_or_handles() {
        assert_eq!(
            parse_id("L4351i2"),
            Ok(ImageId::Locator {
                line: 4351,
                block: 2
            })
        );
        assert_eq!(parse_id("#3"), Ok(ImageId::Handle(3)));
        assert_eq!(parse_id("12"), Ok(ImageId::Handle(12)));
        assert!(parse_id("L0i1").is_err());
        assert!(parse_id("L3").is_err());
        assert!(parse_id("x").is_err());
    }
}
