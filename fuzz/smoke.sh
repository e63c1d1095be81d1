#!/usr/bin/env bash
# Fuzz smoke run for CI, and the way to run the fuzz targets longer by hand.
#
#   fuzz/smoke.sh                      # every target, FUZZ_SECS (default 25) seconds each
#   FUZZ_SECS=600 fuzz/smoke.sh records  # one target, ten minutes
#
# Toolchain, in order: `cargo +nightly fuzz` (libFuzzer + AddressSanitizer); else
# `RUSTC_BOOTSTRAP=1 cargo fuzz … -s none` on the stable toolchain (libFuzzer, no
# sanitizer: the fuzzed functions take in-memory buffers, and the one unsafe
# load (scan::find's SIMD) is bounds-checked by the `caseless` target's
# comparison with the regex; panics, hangs and overflows are what is looked
# for; debug assertions are on either way). If neither can build, the script says
# why and exits 0 on a developer machine, but 1 under CI=true: a CI that asked
# for a fuzz smoke run must not pass without one. A crash exits 1 and leaves the
# input under fuzz/artifacts/<target>/; turn it into a regression test
# by copying it into fuzz/regressions/<target>/ (tests/fuzz_regressions.rs
# replays those through the same checks, fuzz/checks.rs) before fixing.
set -euo pipefail

cd "$(dirname "$0")"
ROOT=$(cd .. && pwd)
SECS=${FUZZ_SECS:-25}
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(records narration target ranges caseless danger fastjson)

skip() {
    echo "fuzz/smoke.sh: cannot fuzz: $1" >&2
    if [ "${CI:-}" = "true" ]; then
        echo "fuzz/smoke.sh: CI=true, so this is a failure" >&2
        exit 1
    fi
    echo "fuzz/smoke.sh: skipped (not under CI=true)" >&2
    exit 0
}

command -v cargo >/dev/null || skip "cargo not found"
cargo fuzz --version >/dev/null 2>&1 || skip "cargo-fuzz not installed (cargo install cargo-fuzz)"

FUZZ=()
SAN=""
if cargo +nightly fuzz build >build.log 2>&1; then
    FUZZ=(cargo +nightly fuzz)
    MODE="nightly, AddressSanitizer"
elif RUSTC_BOOTSTRAP=1 cargo fuzz build -s none >>build.log 2>&1; then
    FUZZ=(env RUSTC_BOOTSTRAP=1 cargo fuzz)
    SAN="-s none"
    MODE="stable with RUSTC_BOOTSTRAP=1, no sanitizer"
else
    tail -n 20 build.log >&2
    skip "neither nightly nor RUSTC_BOOTSTRAP=1 stable can build the targets (see fuzz/build.log)"
fi
echo "fuzz/smoke.sh: $MODE, ${SECS}s per target"

# Seeds: the saved regressions (fuzz/regressions/<target>/), plus for `records`
# real-shaped transcripts from the bundled sample home cut at line boundaries
# into inputs of at most 4 KiB, plus for `narration` the sample's signatures.
seed() {
    local t=$1 dir=corpus/$1
    mkdir -p "$dir"
    [ -n "$(ls -A "$dir" 2>/dev/null)" ] && return 0
    cp regressions/"$t"/* "$dir"/ 2>/dev/null || true
    case $t in
    records)
        local n=0
        while IFS= read -r -d '' f; do
            split -C 4000 -d -a 4 "$f" "$dir/s$n-"
            n=$((n + 1))
        done < <(find "$ROOT/sample/claude-home/projects" -name '*.jsonl' -print0)
        # A few hundred seeds are plenty to start from.
        ls "$dir" | sort | awk 'NR > 400' | sed "s|^|$dir/|" | xargs -r rm -f
        ;;
    fastjson)
        # One line per seed: the first 300 lines under 8 KB of the sample home.
        find "$ROOT/sample/claude-home/projects" -name '*.jsonl' -print0 | xargs -0 cat 2>/dev/null |
            awk 'length($0) < 8000' | head -n 300 | split -l 1 -d -a 3 - "$dir/line-" || true
        ;;
    narration)
        grep -rhoE '"signature":"[A-Za-z0-9+/=]{8,}"' "$ROOT/sample/claude-home/projects" 2>/dev/null |
            head -n 50 | sed -E 's/"signature":"(.*)"/\1/' | split -l 1 -d -a 3 - "$dir/sig-" || true
        ;;
    esac
}

failed=0
for t in "${TARGETS[@]}"; do
    seed "$t"
    mkdir -p "artifacts/$t" logs
    dict=()
    [ -f "dict/$t.dict" ] && dict=("-dict=dict/$t.dict")
    echo "== $t"
    # shellcheck disable=SC2086
    if ! "${FUZZ[@]}" run $SAN "$t" "$PWD/corpus/$t" -- \
        -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
        -print_final_stats=1 ${dict[@]+"${dict[@]}"} 2>"logs/$t.log"; then
        failed=1
        grep -v -E '^(#[0-9]+|\s+NEW_FUNC|\s+\[[0-9, ]+\]$)' "logs/$t.log" | tail -n 40 >&2
        echo "fuzz/smoke.sh: $t FAILED; the crashing input is in fuzz/artifacts/$t/" >&2
    else
        grep -E '^#[0-9]+.*DONE' "logs/$t.log" | tail -n 1 || true
    fi
done
exit $failed
