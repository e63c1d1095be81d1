//! An image's bytes: its base64 payload decoded with the `base64` crate, hashed
//! (SHA-256 of the decoded bytes, so the hash is `sha256sum` of the extracted
//! file) and sized. Hashing decodes in cache-sized chunks and keeps nothing, so
//! a listing allocates no image; [`decode`] materialises the bytes only for a
//! file about to be written.

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

/// Base64 characters decoded per step: 64 KiB in, 48 KiB out, both in cache.
const STEP: usize = 64 * 1024;

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

/// `(decoded length, SHA-256)` of the payload at `raw`, or why it does not decode.
pub(crate) fn digest(raw: &[u8]) -> Result<(u64, [u8; 32]), String> {
    let b64 = text(raw)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; STEP / 4 * 3];
    let mut total = 0u64;
    // Every step but the last is a whole number of 4-character groups, so only
    // the last can carry padding.
    for (i, chunk) in b64.chunks(STEP).enumerate() {
        let n = ENGINE.decode_slice(chunk, &mut buf).map_err(|e| match i {
            0 => format!("bad base64: {e}"),
            _ => format!("bad base64 past character {}: {e}", i * STEP),
        })?;
        hasher.update(&buf[..n]);
        total += n as u64;
    }
    Ok((total, hasher.finalize().into()))
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
    fn digest_is_sha256_of_the_decoded_bytes_across_steps() {
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
        assert!(b64.len() > 2 * STEP, "spans several steps");
        let (n, d) = digest(&raw(&b64)).unwrap();
        assert_eq!(n, bytes.len() as u64);
        assert_eq!(d, <[u8; 32]>::from(Sha256::digest(&bytes)));
        assert_eq!(decode(&raw(&b64)).unwrap(), bytes);
    }

    #[test]
    fn known_vector_and_padding_either_way() {
        let (n, d) = digest(&raw("aGk=")).unwrap();
        assert_eq!(n, 2);
        assert_eq!(
            hex(&d),
            "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4"
        );
        assert_eq!(digest(&raw("aGk")).unwrap().0, 2);
        // An escaped slash still reads (JSON allows `\/`).
        assert_eq!(decode(br#""YT\/i""#).unwrap(), [0x61, 0x3f, 0xe2]);
    }

    #[test]
    fn a_bad_payload_says_why() {
        assert!(digest(&raw("aG!k")).unwrap_err().contains("bad base64"));
        assert!(digest(b"42").is_err());
    }

    #[test]
    fn extensions_come_from_a_fixed_list_img_004_img_010() {
        assert_eq!(extension("image/jpeg"), "jpg");
        assert_eq!(extension("image/jpg"), "jpg");
        assert_eq!(extension("image/png"), "png");
        assert_eq!(extension("image/../../x"), "bin");
        assert_eq!(extension(""), "bin");
    }
}
