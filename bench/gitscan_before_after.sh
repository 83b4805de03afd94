#!/bin/sh
# gitscan_before_after.sh BEFORE.test AFTER.test [ROUNDS]
#
# Runs BenchmarkScanGit from two runtime/scan test binaries alternately
# (ROUNDS rounds, default 5), so that the load of a shared machine falls
# on both alike. Build them with `go test -c -o X.test ./runtime/scan` in a
# checkout of each commit (git archive COMMIT | tar -x -C DIR). Prints
# one line per run, prefixed "before" or "after".
set -eu
before=$1 after=$2 rounds=${3:-5}
i=0
while [ "$i" -lt "$rounds" ]; do
	for v in before after; do
		eval bin=\$$v
		"$bin" -test.run XXX -test.bench 'BenchmarkScanGit$' -test.benchtime 1s 2>&1 | grep '^Bench' | sed "s/^/$v /"
	done
	i=$((i + 1))
done
