#!/bin/sh
# Claude Code SessionStart hook (matcher "compact"): after a compaction, inject
# slice $1 of the recent conversation, rebuilt by `csift verbatim` from whole
# turns of the transcript named in the hook payload (read on stdin).
#
# Register it once per slice, i = 1..N (see settings.json beside this file).
# Each slice is at most 9000 UTF-16 units, under Claude Code's 10000-character
# additionalContext threshold (MISC-012, ELI-025); a slice beyond the ones the
# conversation fills prints nothing and exits 0.
#
# Environment: CSIFT = the csift binary (default: csift on PATH),
#              CSIFT_SLICES = N, the number of registered slices (default 4).
set -eu
exec "${CSIFT:-csift}" verbatim --hook-json \
    --slices "${CSIFT_SLICES:-4}" --slice "${1:?usage: verbatim-slice.sh SLICE (1..N)}" \
    --window 9000
