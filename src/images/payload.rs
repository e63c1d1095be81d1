//! An image's payload: identified without decoding, decoded only to be written.
//!
//! Listing must cost no more than a search over the same bytes, so an image is
//! identified by the SHA-256 of its base64 payload as the transcript holds it
//! (Node writes canonical base64, one text per content) and sized from the
//! payload's length; only `--out` decodes, with the `base64` crate, and a payload
//! that does not decode is said then. Measured on a 300 MB transcript holding
//! 1,000 images: decoding and hashing the bytes cost 1.6x the CPU of hashing the
//! text (BENCHMARKS.md).

use std::borrow::Cow;

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine as _;
use sha2::{Digest, Sha256};

/// Standard alphabet; padding as written or missing (Node writes it, but a
/// payload cut by another tool should still read).
const ENGINE: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The payload's base64 text: the JSON string at `raw` (quotes included),
/// unescaped only when it holds an escape (it never does as Claude Code writes it).
fn text(raw: &[u8]) -> Result<Cow<'_, [u8]>, String> {
    let inner = raw
        .strip_prefix(b"\"")
        .and_then(|r| r.strip_suffix(b"\""))
        .ok_or("the payload is not a JSON string")?;
    if memchr::memchr(b'\\', inner).is_none() {
        return Ok(Cow::Borrowed(inner));
    }
    crate::scan::json::string(raw)
        .map(|s| Cow::Owned(s.into_owned().into_bytes()))
        .ok_or_else(|| "the payload is not a valid JSON string".to_string())
}

/// `(decoded length, SHA-256 of the base64 text)` of the payload at `raw`, or
/// why it is not a payload. The length is exact for canonical base64.
pub(crate) fn digest(raw: &[u8]) -> Result<(u64, [u8; 32]), String> {
    let b64 = text(raw)?;
    let body = b64
        .strip_suffix(b"==")
        .or_else(|| b64.strip_suffix(b"="))
        .unwrap_or(&b64);
    let len = (body.len() / 4 * 3 + (body.len() % 4).saturating_sub(1)) as u64;
    Ok((len, Sha256::digest(&b64).into()))
}

/// The payload's bytes, for writing.
pub(crate) fn decode(raw: &[u8]) -> Result<Vec<u8>, String> {
    let b64 = text(raw)?;
    ENGINE.decode(&*b64).map_err(|e| format!("bad base64: {e}"))
}

/// Lowercase hex of a digest.
pub(crate) fn hex(d: &[u8; 32]) -> String {
    use std::fmt::Write as _;
    d.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The file extension for a media type: from a fixed list, never from the
/// transcript's text (IMG-004); both jpeg spellings write `.jpg` (IMG-010).
pub(crate) fn extension(media_type: &str) -> &'static str {
    match media_type {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "image/bmp" => "bmp",
        "image/tiff" => "tiff",
        "image/heic" => "heic",
        "image/avif" => "avif",
        _ => "bin",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Vec<u8> {
        format!("\"{s}\"").into_bytes()
    }

    #[test]
    fn digest_hashes_the_text_and_sizes_the_bytes() {
        for n in 0..40usize {
            let bytes: Vec<u8> = (0..n as u32).map(|i| (i * 7 % 251) as u8).collect();
            let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
            let (len, d) = digest(&raw(&b64)).unwrap();
            assert_eq!(len, n as u64, "{b64}");
            assert_eq!(d, <[u8; 32]>::from(Sha256::digest(b64.as_bytes())));
            assert_eq!(decode(&raw(&b64)).unwrap(), bytes);
        }
        // `printf %s aGk= | sha256sum`: the hash of the payload as written.
        assert_eq!(
            hex(&digest(&raw("aGk=")).unwrap().1),
            "96e3186af2815065fbc894de1bdadda7830527fffdba6bdd709789cf0ee79a6a"
        );
    }

    #[test]
    fn decoding_takes_padding_either_way_and_escapes() {
        assert_eq!(decode(&raw("aGk=")).unwrap(), b"hi");
        assert_eq!(decode(&raw("aGk")).unwrap(), b"hi");
        // An escaped slash still reads (JSON allows `\/`).
        assert_eq!(decode(br#""YT\/i""#).unwrap(), [0x61, 0x3f, 0xe2]);
    }

    #[test]
    fn a_bad_payload_says_why() {
        assert!(decode(&raw("aG!k")).unwrap_err().contains("bad base64"));
        assert!(digest(b"42").is_err());
    }

    #[test]
    fn extensions_come_from_a_fixed_list_img_004_img_010() {
        // IMG-004, IMG-010
        assert_eq!(extension("image/jpeg"), "jpg");
        assert_eq!(extension("image/jpg"), "jpg");
        assert_eq!(extension("image/png"), "png");
        assert_eq!(extension("image/../../x"), "bin");
        assert_eq!(extension(""), "bin");
    }
}
