#!/bin/sh
# Claude Code SessionStart hook (matcher "compact"): after a compaction, inject
# slice $1 of the recent conversation, rebuilt by `csift verbatim` from whole
# turns of the transcript named in the hook payload (read on stdin).
#
# Register it once per slice, i = 1..N (see settings.json beside this file).
# Each slice is at most 9000 UTF-16 units, under Claude Code's 10000-character
# additionalContext threshold; a slice beyond the ones the conversation fills
# prints nothing and exits 0.
#
# The payload's `source` is checked again here (csift --hook-source compact):
# SessionStart also fires on startup, resume, clear and fork, and the matcher
# is the only other guard, so this script registered under another matcher
# still injects nothing but after a compaction.
#
# Claude Code runs the hooks of one event at the same time and joins their
# output in the order they finish, not the order they are registered. So the
# slices are rebuilt in parallel, then printed in order through a barrier:
# slice i prints only once slice i-1 has printed and left a done-flag, in a
# folder named after this event's payload (every hook of one event reads the
# same payload). A flag is taken only if it is recent, so a flag left by an
# earlier compaction of the same session never releases a later one; a slice
# whose predecessor never finishes prints after CSIFT_BARRIER_WAIT seconds
# (default 20) rather than not at all.
#
# Environment: CSIFT = the csift binary (default: csift on PATH),
#              CSIFT_SLICES = N, the number of registered slices (default 4),
#              CSIFT_BARRIER_WAIT = seconds a slice waits for the one before it.
set -eu
slice="${1:?usage: verbatim-slice.sh SLICE (1..N)}"
n="${CSIFT_SLICES:-4}"
wait_max="${CSIFT_BARRIER_WAIT:-20}"
payload=$(cat)
out=$(printf '%s' "$payload" | "${CSIFT:-csift}" verbatim --hook-json --hook-source compact \
    --slices "$n" --slice "$slice" --window 9000)

# A slice past the registered fleet has no place in the order.
if [ "$slice" -gt "$n" ]; then
    [ -z "$out" ] || printf '%s\n' "$out"
    exit 0
fi

key=$(printf '%s' "$payload" | cksum | cut -d' ' -f1)
dir="${TMPDIR:-/tmp}/csift-verbatim-slices-$(id -u)/$key"
mkdir -p "$dir"

# Whether flag $1 was written in the last $wait_max seconds (it holds the time).
fresh() {
    [ -f "$1" ] || return 1
    written=$(cat "$1" 2>/dev/null || echo 0)
    [ $(( $(date +%s) - ${written:-0} )) -le "$wait_max" ]
}

if [ "$slice" -gt 1 ]; then
    prev="$dir/$((slice - 1))"
    waited=0
    while ! fresh "$prev"; do
        [ "$waited" -lt $((wait_max * 10)) ] || break
        sleep 0.1 2>/dev/null || sleep 1
        waited=$((waited + 1))
    done
    # The flag is written just before the previous hook exits: let it finish.
    sleep 0.2 2>/dev/null || sleep 1
fi

[ -z "$out" ] || printf '%s\n' "$out"
# The flag, then exit. A flag that cannot be written (the last slice gave up
# waiting and cleared the folder) only leaves the next slice to its timeout.
{ mkdir -p "$dir" && date +%s > "$dir/$slice.tmp" && mv "$dir/$slice.tmp" "$dir/$slice"; } 2>/dev/null || true
if [ "$slice" -eq "$n" ]; then
    rm -rf "$dir"
fi
