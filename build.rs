//! Build script: the git commit `csift --version` prints beside the version.
//! Outside a git checkout (a crates.io tarball) the commit is "unknown".
//! Cargo re-runs this only when HEAD or the branch it names moves, so an
//! ordinary edit does not rebuild for it.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=CSIFT_COMMIT={commit}");
    println!("cargo:rerun-if-changed=build.rs");
    // HEAD lives in the worktree's git dir; the branch ref and packed-refs in
    // the common one. Only paths that exist are watched (a missing one would
    // re-run this script on every build).
    let dirs = [
        git(&["rev-parse", "--absolute-git-dir"]),
        git(&["rev-parse", "--path-format=absolute", "--git-common-dir"]),
    ];
    let head_ref = git(&["symbolic-ref", "-q", "HEAD"]);
    for dir in dirs.iter().flatten() {
        let mut watch = vec![
            Path::new(dir).join("HEAD"),
            Path::new(dir).join("packed-refs"),
        ];
        if let Some(r) = &head_ref {
            watch.push(Path::new(dir).join(r));
        }
        for p in watch.into_iter().filter(|p| p.exists()) {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
}
