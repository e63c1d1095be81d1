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
# --hook-source compact checks the payload's `source` again: SessionStart also
# fires on startup, resume, clear and fork, and the matcher is the only other
# guard, so the script injects nothing but after a compaction whatever it is
# registered under.
#
# --ordered keeps the slices in order: Claude Code runs the hooks of one event
# at the same time and joins their output in the order they finish, so each
# slice is rebuilt at once but prints only after the one before it has (a
# barrier of done-flags in csift's state directory). A slice whose predecessor
# never prints waits CSIFT_BARRIER_WAIT seconds (default 20), then prints.
#
# Environment: CSIFT = the csift binary (default: csift on PATH),
#              CSIFT_SLICES = N, the number of registered slices (default 4),
#              CSIFT_BARRIER_WAIT = seconds a slice waits for the one before it.
set -eu
exec "${CSIFT:-csift}" verbatim --hook-json --hook-source compact \
    --ordered --order-wait "${CSIFT_BARRIER_WAIT:-20}" \
    --slices "${CSIFT_SLICES:-4}" --slice "${1:?usage: verbatim-slice.sh SLICE (1..N)}" \
    --window 9000
