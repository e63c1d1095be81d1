//! `recover --list-backups`: every generation Claude Code's file-history store
//! holds for one path, with its verdict, in human form or JSON Lines.

use std::io::{self, Write};

use serde::Serialize;

use crate::output::{json_line, sanitize, Format, Out};
use crate::recover::store::{Blob, Verdict};

#[derive(Serialize)]
struct BackupJson<'a> {
    #[serde(rename = "type")]
    tag: &'static str,
    path: &'a str,
    session_id: &'a str,
    name: &'a str,
    version: Option<u64>,
    file: String,
    mtime: Option<String>,
    bytes: u64,
    trusted: bool,
    verdict: String,
}

/// `--list-backups`: every store file for the path, with its verdict.
pub(crate) fn backups(
    out: &mut Out,
    path: &str,
    listing: &[(Blob, Verdict)],
    format: Format,
) -> io::Result<()> {
    let st = out.style;
    if format == Format::Human {
        writeln!(
            out,
            "{}{}{}  store key {}",
            st.head,
            sanitize::one_line(path),
            st.reset,
            crate::recover::store::path_hash(path)
        )?;
    }
    for (b, v) in listing {
        let mtime = b.mtime.map(crate::timefmt::utc_exact);
        match format {
            Format::Json => json_line(
                out,
                &BackupJson {
                    tag: "backup",
                    path,
                    session_id: &b.session,
                    name: &b.name,
                    version: b.version,
                    file: b.path.to_string_lossy().into_owned(),
                    mtime,
                    bytes: b.size,
                    trusted: v.trusted(),
                    verdict: v.describe(),
                },
            )?,
            Format::Human => writeln!(
                out,
                "  @{} {:<6} {:<26} {:>9}  {}{}{}",
                crate::discovery::short(&b.session),
                b.version
                    .map_or_else(|| "v?".to_string(), |v| format!("v{v}")),
                mtime.unwrap_or_else(|| "-".into()),
                crate::cmd::human_bytes(b.size),
                if v.trusted() { "" } else { st.warn },
                v.describe(),
                st.reset
            )?,
        }
    }
    if format == Format::Human && listing.is_empty() {
        writeln!(out, "{}  no backups in the store for this path (the store keeps structured writes only, and is pruned){}", st.dim, st.reset)?;
    }
    if format == Format::Json {
        // The summary the human header and footer say: the key looked up, and
        // how many generations were found and trusted (0 is an answer too).
        #[derive(Serialize)]
        struct Summary<'a> {
            #[serde(rename = "type")]
            tag: &'static str,
            path: &'a str,
            store_key: String,
            backups: usize,
            trusted: usize,
        }
        json_line(
            out,
            &Summary {
                tag: "summary",
                path,
                store_key: crate::recover::store::path_hash(path),
                backups: listing.len(),
                trusted: listing.iter().filter(|(_, v)| v.trusted()).count(),
            },
        )?;
    }
    Ok(())
}
