#!/usr/bin/env bash
# bench/compare_bwrun.sh: bwrun of this checkout and of an older one, each
# next to bare bwrap with its own invocation's arguments, interleaved
# (benchtool interleave), as the user who runs it (run it as an ordinary
# user). Expects OLD/ and NEW/ holding bwpolicy, bwrun and benchtool
# (go build -o DIR ./cmd/... ./bench/benchtool at each commit), and
# ~/old.json, ~/new.json compiled by each bwpolicy in ~/proj.
#
#   OLD=/tmp/bench/old NEW=/tmp/bench/new ROUNDS=300 bench/compare_bwrun.sh
set -euo pipefail
OLD=${OLD:?OLD=dir of the old build} NEW=${NEW:?NEW=dir of this build}
SEC=$(mktemp -d)
trap 'rm -rf "$SEC"' EXIT
cd ~/proj
B=$NEW/benchtool
{ read -r BARE; read -r EMPTY_FDS; } < <($B bare ~/new.json $SEC/new.bin 20 9 2>/dev/null)
exec 9<$SEC/new.bin
for fd in $EMPTY_FDS; do eval "exec $fd</dev/null"; done
{ read -r OBARE; read -r OEMPTY; } < <($OLD/benchtool bare ~/old.json $SEC/old.bin 40 9 2>/dev/null)
cmp -s $SEC/new.bin $SEC/old.bin || { echo "the seccomp programs differ: fd 9 cannot serve both" >&2; exit 1; }
for fd in $OEMPTY; do eval "exec $fd</dev/null"; done
echo "load before: $(cut -d' ' -f1 /proc/loadavg)"
$B interleave ${ROUNDS:-200} \
  "(a) bare bwrap, NEW's args=$BARE -- /bin/true" \
  "(b) bwrun, NEW=$NEW/bwrun $HOME/new.json -- /bin/true" \
  "(a-) bare bwrap, OLD's args=$OBARE -- /bin/true" \
  "(b-) bwrun, OLD=$OLD/bwrun $HOME/old.json -- /bin/true"
echo "load after: $(cut -d' ' -f1 /proc/loadavg)"
