#!/usr/bin/env bash
# bench/bwrun_cpu.sh: the CPU time of bwrun's own threads (not bwrap's,
# not the command's) per run, for several bwrun builds and invocations,
# interleaved round by round. The wall clock of a sandboxed /bin/true is
# dominated by bwrap's mounts and varies by a millisecond or more from
# round to round; bwrun's own CPU time is what a change to bwrun moves.
# Each BWRUN must be built with the probe:
#
#   go build -tags bwrunprobe -o /tmp/probe/new/ ./cmd/bwrun
#   ROUNDS=200 bench/bwrun_cpu.sh allow=/tmp/probe/new/bwrun:$HOME/a.json \
#       deny=/tmp/probe/new/bwrun:$HOME/d.json
#
# Run it as an ordinary user, in the directory the invocations were
# compiled for; prints median, p10 and p90 in microseconds per label.
set -euo pipefail
ROUNDS=${ROUNDS:-200}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for ((r = 0; r < ROUNDS; r++)); do
    for spec in "$@"; do
        label=${spec%%=*} rest=${spec#*=}
        BWRUN_PROBE=$OUT/$label "${rest%%:*}" "${rest#*:}" -- /bin/true
    done
done
for spec in "$@"; do
    label=${spec%%=*}
    sort -n "$OUT/$label" | awk -v l="$label" '{a[NR]=$1} END {
        printf "%-12s median %6d us  p10 %6d  p90 %6d  (n=%d)\n", l, a[int((NR+1)/2)], a[int(NR/10)+1], a[int(NR*9/10)], NR }'
done
