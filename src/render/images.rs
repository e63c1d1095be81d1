//! An image block's line in rendered text (`[image: image/png, 143 KB]`, led
//! by its `[Image #N]` handle when the record pairs them, IMG-005).

use crate::record::{Block, Record};

/// One line per image block of `r`: `[image: image/png, 143 KB]`, led by its
/// `[Image #N]` handle (IMG-005) when the record's text holds one marker per
/// image (the handles pair with the images in order; a count that differs
/// pairs none, as a marker then points at an image not in this record).
pub(crate) fn images(r: &Record<'_>) -> Vec<String> {
    let blocks: Vec<&Block<'_>> = r.blocks().iter().filter(|b| b.kind() == "image").collect();
    if blocks.is_empty() {
        return Vec::new();
    }
    let text = r.user_text().unwrap_or_default();
    let handles = image_handles(&text);
    let zip = handles.len() == blocks.len();
    blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let what = match b.image_source() {
                Some((media, bytes)) => format!("{media}, {}", image_size(bytes)),
                None => "no inline bytes".to_string(),
            };
            match zip {
                true => format!("[Image #{}: {what}]", handles[i]),
                false => format!("[image: {what}]"),
            }
        })
        .collect()
}

/// The `N` of each `[Image #N]` marker in `text`, in order (IMG-005).
fn image_handles(text: &str) -> Vec<u64> {
    const PAT: &str = "[Image #";
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(PAT) {
        rest = &rest[i + PAT.len()..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest[digits..].starts_with(']') {
            if let Ok(n) = rest[..digits].parse() {
                out.push(n);
            }
        }
    }
    out
}

/// An image's size as a person reads it: `812 B`, `143 KB`, `2.4 MB`.
fn image_size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{} KB", (b + 512) / 1024),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}
