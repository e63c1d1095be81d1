//! Claude Code's project-directory encoding of a cwd (PATH-001…005, PATH-013).
//! Forward only: the encoding is lossy, so csift never decodes a directory name
//! back into a path (the cwd shown anywhere comes from the records).

use unicode_normalization::UnicodeNormalization;

/// Longest encoded name Claude Code stores whole (`MAX_SANITIZED_LENGTH`, PATH-004).
pub const MAX_ENCODED: usize = 200;

/// Full encoding, before the 200-character cap: NFC, then every UTF-16 code unit
/// outside `[A-Za-z0-9]` becomes one `-`, with no collapsing (PATH-001). An astral
/// character is two code units and so becomes `--` (PATH-013).
pub fn encode_full(cwd: &str) -> String {
    let nfc: String = cwd.nfc().collect();
    let mut out = String::with_capacity(nfc.len());
    for unit in nfc.encode_utf16() {
        match u8::try_from(unit) {
            Ok(b) if b.is_ascii_alphanumeric() => out.push(char::from(b)),
            _ => out.push('-'),
        }
    }
    out
}

/// The directory name Claude Code writes for `cwd`: the full encoding when it is at
/// most 200 characters, else `<first 200>-<hash>` where the hash is the 31-multiplier
/// int32 string hash of the cwd, absolute-valued, in base 36 (PATH-005). Both halves
/// read the canonical, NFC form Claude Code encodes (PATH-002): an NFD spelling
/// hashed as given named a directory Claude Code never writes.
pub fn encode(cwd: &str) -> String {
    let full = encode_full(cwd);
    if full.len() <= MAX_ENCODED {
        return full;
    }
    let nfc: String = cwd.nfc().collect();
    format!("{}-{}", &full[..MAX_ENCODED], hash36(&nfc))
}

/// The prefix a capped directory starts with; Claude Code itself prefix-scans for it
/// rather than recomputing the hash (PATH-005), and so does csift.
pub fn capped_prefix(cwd: &str) -> Option<String> {
    let full = encode_full(cwd);
    (full.len() > MAX_ENCODED).then(|| format!("{}-", &full[..MAX_ENCODED]))
}

/// JavaScript's `(h << 5) - h + charCodeAt(i) | 0` over UTF-16 code units, then
/// `Math.abs(h).toString(36)` (PATH-005). `Math.abs(-2^31)` is 2^31 in JS, so the
/// absolute value is taken in i64.
pub fn hash36(s: &str) -> String {
    let mut h: i32 = 0;
    for unit in s.encode_utf16() {
        h = h
            .wrapping_shl(5)
            .wrapping_sub(h)
            .wrapping_add(i32::from(unit));
    }
    let mut n = i64::from(h).unsigned_abs();
    if n == 0 {
        return "0".into();
    }
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut buf = Vec::new();
    while n > 0 {
        buf.push(digits[(n % 36) as usize]);
        n /= 36;
    }
    buf.reverse();
    String::from_utf8_lossy(&buf).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_examples_path_001() {
        assert_eq!(
            encode("/Users/testuser/Projects/widget_app_prototype"),
            "-Users-testuser-Projects-widget-app-prototype"
        );
        assert_eq!(
            encode("/Users/testuser/Projects/Acme/widget_factory-worktrees/main"),
            "-Users-testuser-Projects-Acme-widget-factory-worktrees-main"
        );
        assert_eq!(encode("/home/u/.claude/x"), "-home-u--claude-x");
    }

    #[test]
    fn windows_drive_letter_leads_path_003() {
        assert_eq!(encode(r"C:\Users\x"), "C--Users-x");
    }

    #[test]
    fn astral_char_is_two_dashes_path_013() {
        assert_eq!(encode("/a/😀b"), "-a---b");
        // A BMP non-ASCII character is one code unit, one dash.
        assert_eq!(encode("/a/é"), "-a--");
    }

    #[test]
    fn nfd_input_is_normalised_path_001() {
        assert_eq!(encode("/e\u{301}"), encode("/\u{e9}"));
    }

    #[test]
    fn long_path_is_capped_with_hash_path_004_path_005() {
        let cwd = format!("/{}", "abcdefghij/".repeat(22));
        let enc = encode(&cwd);
        let prefix = capped_prefix(&cwd).unwrap();
        assert!(enc.starts_with(&prefix));
        assert_eq!(prefix.len(), 201);
        let suffix = &enc[201..];
        assert!(!suffix.is_empty() && suffix.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_eq!(suffix, hash36(&cwd));
        assert!(capped_prefix("/short").is_none());
    }

    /// PATH-004, PATH-005, PATH-002: long real-shaped paths against the names
    /// Claude Code 2.1.258 computes, not against `hash36`. Each `dir` was printed
    /// by node running the binary's own sanitizer, verbatim from the claims:
    /// `zq(t){let e=0;for(let r=0;r<t.length;r++)e=(e<<5)-e+t.charCodeAt(r)|0;return e}`,
    /// `be(e){return Math.abs(zq(e)).toString(36)}`, `k(e){return
    /// e.replace(/[^a-zA-Z0-9]/g,"-")}`, `KA(e){let n=k(e);if(n.length<=IL)return n;
    /// return `${n.slice(0,IL)}-${be(e)}`}`, IL=200, over the NFC form of the path
    /// (PATH-002: Claude Code encodes the canonical cwd). Negative hashes, a
    /// Windows path, BMP accents and an astral character are among them; the NFD
    /// spelling must land on the NFC one's directory.
    #[test]
    fn long_paths_are_named_as_claude_code_names_them_path_004_path_005() {
        let cases = [
            (
                "/Users/mara/code/ledgerline/services/billing-reconciliation/workers/nightly-settlement/src/adapters/payment-providers/stripe/webhooks/handlers/dispute-lifecycle/integration-tests/fixtures/2026-q3/regression-cases",
                "-Users-mara-code-ledgerline-services-billing-reconciliation-workers-nightly-settlement-src-adapters-payment-providers-stripe-webhooks-handlers-dispute-lifecycle-integration-tests-fixtures-2026-q3-regr-53urgz",
            ),
            (
                "/home/ops/src/relay-gateway/deploy/kubernetes/overlays/production/eu-west-1/clusters/blue-green/canary/manifests/generated/helm-values/rendered/charts/relay-gateway-ingress/templates/tests/snapshots/v2",
                "-home-ops-src-relay-gateway-deploy-kubernetes-overlays-production-eu-west-1-clusters-blue-green-canary-manifests-generated-helm-values-rendered-charts-relay-gateway-ingress-templates-tests-snapshots-v-tf1bz0",
            ),
            (
                "/Users/priya/D\u{e9}veloppement/orchard-api/\u{e9}quipe-plateforme/documentation/architecture/d\u{e9}cisions/2026/mod\u{e8}les-de-donn\u{e9}es/migration-vers-postgres/annexes/sch\u{e9}mas/\u{1f4be}-sauvegardes/r\u{e9}visions/brouillons/finales",
                "-Users-priya-D-veloppement-orchard-api--quipe-plateforme-documentation-architecture-d-cisions-2026-mod-les-de-donn-es-migration-vers-postgres-annexes-sch-mas----sauvegardes-r-visions-brouillons-finale-auhuse",
            ),
            (
                "/Users/priya/De\u{301}veloppement/orchard-api/e\u{301}quipe-plateforme/documentation/architecture/de\u{301}cisions/2026/mode\u{300}les-de-donne\u{301}es/migration-vers-postgres/annexes/sche\u{301}mas/\u{1f4be}-sauvegardes/re\u{301}visions/brouillons/finales",
                "-Users-priya-D-veloppement-orchard-api--quipe-plateforme-documentation-architecture-d-cisions-2026-mod-les-de-donn-es-migration-vers-postgres-annexes-sch-mas----sauvegardes-r-visions-brouillons-finale-auhuse",
            ),
            (
                r"C:\Users\ana\source\repos\enterprise-platform\src\Services\Orders\Orders.Api\Controllers\V2\Internal\Reconciliation\Handlers\Commands\Validators\Rules\CrossBorder\Taxation\Fixtures\Q3\Snapshots\Approved",
                "C--Users-ana-source-repos-enterprise-platform-src-Services-Orders-Orders-Api-Controllers-V2-Internal-Reconciliation-Handlers-Commands-Validators-Rules-CrossBorder-Taxation-Fixtures-Q3-Snapshots-Approv-osouu6",
            ),
        ];
        for (cwd, dir) in cases {
            assert_eq!(encode(cwd), dir, "{cwd}");
            assert_eq!(capped_prefix(cwd).as_deref(), Some(&dir[..201]), "{cwd}");
        }
    }

    #[test]
    fn hash_matches_javascript() {
        // Values computed with node: Math.abs(h).toString(36) of the Java-style hash.
        assert_eq!(hash36(""), "0");
        assert_eq!(hash36("a"), "2p");
        assert_eq!(hash36("hello"), "1n1e4y");
    }
}
