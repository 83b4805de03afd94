#!/usr/bin/env bash
# bench/run.sh: what a sandboxed command costs with bwpolicy, next to bare
# bwrap and the field, measured side by side in one hyperfine run, plus
# bwrun's size and peak RSS, a check of 10,000 settings files (one job,
# one per core) and the Go benchmarks (compile growth, policy, runtime,
# check of 1,000 files). See BENCHMARKS.md.
#
#   bench/run.sh [--runs N] [--warmup N] [--count N] [--out DIR] [--no-go] [--only-go]
#
#   --runs N     hyperfine runs per command (default 200); the
#                decomposition of bwrun's cost runs 300 interleaved rounds
#   --warmup N   hyperfine warm-up runs per command (default 20)
#   --count N    go test -count for the Go benchmarks (default 5; medians)
#   --out DIR    where results go (default bench/out; bench/.gitignore has it)
#   --no-go      the side-by-side run only; --only-go: the Go benchmarks only
#   --no-scan    without the post-command scan's rows (bench/scan_cost.py:
#                generated trees of 22,600, 270,000 and 1,000,000 entries,
#                several minutes and ~1.3 million inodes under --out)
#
# Environment: BWPOLICY_BWRAP (the bwrap to use), BENCH_PROFILE (profile
# compiled, default: network, the default profile), BENCH_MAX_LOAD
# (default 1.0) and BENCH_WAIT_MIN (default 20): before each measurement
# the script waits, a minute at a time, until the 1-minute load average is
# below BENCH_MAX_LOAD, for at most BENCH_WAIT_MIN minutes (then it
# measures anyway and says so in the results), BENCH_CHECK_FILES
# (default 10000): the settings files the check row checks.
#
# It installs nothing: bench/setup.sh installs hyperfine, firejail,
# socat, ripgrep and Anthropic's sandbox-runtime (srt). A missing
# firejail or srt leaves its row out, with the reason.
set -euo pipefail

RUNS=200 WARMUP=20 COUNT=5 OUT="" GO=1 FIELD=1 DECOMP_ROUNDS=300 SCAN=1
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        --warmup) WARMUP=$2; shift 2 ;;
        --count) COUNT=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --no-go) GO=0; shift ;;
        --only-go) FIELD=0; SCAN=0; shift ;;
        --no-scan) SCAN=0; shift ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) echo "bench/run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$REPO/bench/out}
mkdir -p "$OUT"
OUT=$(cd -- "$OUT" && pwd)
BIN=$OUT/bin
PROFILE=${BENCH_PROFILE:-network}
RESULTS=$OUT/results.md
export PATH="$PATH:/usr/local/go/bin"

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] error: %s\n' "$*" >&2; exit 1; }
case "$OUT" in *[[:space:]\'\"\\]*) die "--out $OUT: a path without spaces or quotes, please (command lines are split at spaces)" ;; esac

# --- what is there -----------------------------------------------------------
missing=()
command -v go >/dev/null 2>&1 || die "go not found (see go.mod for the version)"
if [ "$FIELD" = 1 ]; then
    command -v hyperfine >/dev/null 2>&1 || die "hyperfine not found: run bench/setup.sh (or apt-get install hyperfine)"
fi
BWRAP=${BWPOLICY_BWRAP:-$(command -v bwrap || true)}
[ -n "$BWRAP" ] && [ -x "$BWRAP" ] || die "bwrap not found: run bench/setup.sh (or apt-get install bubblewrap)"
export BWPOLICY_BWRAP=$BWRAP
FIREJAIL=$(command -v firejail || true)
SRT=$(command -v srt || true)
srt_why=""
if [ -z "$FIREJAIL" ]; then
    missing+=("firejail: not installed (bench/setup.sh, or apt-get install firejail)")
fi
if [ -z "$SRT" ]; then
    srt_why="not installed (bench/setup.sh, or npm install -g @anthropic-ai/sandbox-runtime)"
else
    for dep in socat rg; do
        command -v "$dep" >/dev/null 2>&1 || srt_why="needs $dep, which is not installed (bench/setup.sh)"
    done
fi

load1() { cut -d' ' -f1 /proc/loadavg; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
# quiet: wait for the 1-minute load average to drop below BENCH_MAX_LOAD.
quiet() {
    local max=${BENCH_MAX_LOAD:-1.0} limit=${BENCH_WAIT_MIN:-20} waited=0
    while awk -v l="$(load1)" -v m="$max" 'BEGIN { exit !(l >= m) }'; do
        if [ "$waited" -ge "$limit" ]; then
            log "load average $(loadavg) still ≥ $max after $limit min: measuring anyway"
            BUSY="yes (load ≥ $max after waiting $limit min)"
            return
        fi
        log "load average $(loadavg) ≥ $max: waiting 60 s ($waited/$limit min)"
        sleep 60
        waited=$((waited + 1))
    done
}
BUSY=no

# --- build and compile ---------------------------------------------------------
log "building into $BIN (go build -trimpath -ldflags='-s -w')"
(cd "$REPO" && go build -trimpath -ldflags='-s -w' -o "$BIN/" ./cmd/bwpolicy ./cmd/bwrun ./bench/benchtool ./bench/gofork)

machine() {
    echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') × $(nproc) (online), $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM"
    echo "- Kernel: $(uname -sr); $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
    echo "- Virtual machine: $(grep -qw hypervisor /proc/cpuinfo && echo yes || echo no)"
    echo "- User: $(id -un) (uid $(id -u))"
    echo "- bwrap: $BWRAP ($("$BWRAP" --version))"
    echo "- hyperfine: $(command -v hyperfine >/dev/null && hyperfine --version || echo none)"
    if [ -n "$FIREJAIL" ]; then echo "- firejail: $("$FIREJAIL" --version | head -n1)"; else echo "- firejail: none"; fi
    if [ -n "$SRT" ]; then echo "- srt: $("$SRT" --version) (@anthropic-ai/sandbox-runtime, node $(node --version))"; else echo "- srt: none"; fi
    echo "- Go: $(go version | cut -d' ' -f3-)"
    echo "- bwpolicy: $(cd "$REPO" && git describe --always --dirty 2>/dev/null || echo unknown)"
}
MACHINE=$(machine)
ORIG_HOME=$HOME

# A fixed home with credentials of both kinds (directories become a
# tmpfs, files a --ro-bind-data of an empty stream), so that the
# compiled sandbox does not depend on the machine's own home.
HOMEDIR=$OUT/home
rm -rf "$HOMEDIR"
mkdir -p "$HOMEDIR"/{.ssh,.aws,.gnupg,.hermes,proj}
printf 'x\n' >"$HOMEDIR/.npmrc"
printf 'x\n' >"$HOMEDIR/.netrc"
export HOME=$HOMEDIR
unset HERMES_HOME SSH_AUTH_SOCK GPG_AGENT_INFO DBUS_SESSION_BUS_ADDRESS
cd "$HOMEDIR/proj"

# Run the others once before compiling: whatever they create in the home
# (a first-run file) is then part of the state bwpolicy compiles under,
# instead of making the invocation stale in the middle of the run.
if [ "$FIELD" = 1 ] && [ -n "$SRT" ] && [ -z "$srt_why" ]; then
    "$SRT" -c true >"$OUT/srt-probe.txt" 2>&1 || srt_why="srt -c true failed here: $(head -c 300 "$OUT/srt-probe.txt")"
fi
if [ "$FIELD" = 1 ] && [ -n "$FIREJAIL" ]; then
    "$FIREJAIL" --quiet /bin/true >"$OUT/firejail-probe.txt" 2>&1 || die "firejail --quiet /bin/true failed: $(head -c 300 "$OUT/firejail-probe.txt")"
fi

printf 'profile: %s\n' "$PROFILE" >"$OUT/settings.yaml"
printf 'profile: %s\nmemory_mb: 0\ncpu_seconds: 0\nmax_procs: 0\n' "$PROFILE" >"$OUT/nolimits.yaml"
"$BIN/bwpolicy" compile --config "$OUT/settings.yaml" -o "$OUT/inv.json" 2>"$OUT/compile.stderr" \
    || die "bwpolicy compile failed: $(cat "$OUT/compile.stderr")"
"$BIN/bwpolicy" compile --config "$OUT/nolimits.yaml" -o "$OUT/inv-nolimits.json" 2>>"$OUT/compile.stderr" \
    || die "bwpolicy compile failed: $(cat "$OUT/compile.stderr")"

# (a): the compiled arguments minus the runtime's pipes; each empty
# stream at its own fd from 20 up (/dev/null; bwrap closes each after
# reading it) and the seccomp program at fd 9, which this shell opens and
# hyperfine passes on; --prepare rewinds fd 9 before each run (bwrap
# reads the program from the descriptor's offset).
{ read -r BARE; read -r EMPTY_FDS; } < <("$BIN/benchtool" bare "$OUT/inv.json" "$OUT/seccomp.bin" 20 9 2>"$OUT/bare.txt") || true
BARE0=$("$BIN/benchtool" bare "$OUT/inv-nolimits.json" "$OUT/seccomp0.bin" 20 9 2>/dev/null | head -n1)
[ -n "$BARE" ] || die "benchtool bare failed: $(cat "$OUT/bare.txt")"
[ "$BARE" = "$BARE0" ] || die "the invocations with and without limits differ beyond the runtime's pipes:
$BARE
$BARE0"
cmp -s "$OUT/seccomp.bin" "$OUT/seccomp0.bin" || die "the seccomp programs differ"
# Hermes' own backend for the same mounts: prlimit around bwrap (no
# seccomp, no runtime) and prlimit --nproc inside, the empty streams at
# the same descriptors as (a).
HERMES_CHAIN=$("$BIN/benchtool" hermes "$OUT/inv.json" 20) || die "benchtool hermes failed"


{
    echo "# bench/run.sh results ($(date -u '+%Y-%m-%d %H:%M UTC'))"
    echo
    echo "$MACHINE"
    echo "- Profile compiled: $PROFILE (HOME=$HOMEDIR, a fixed home with .ssh .aws .gnupg .hermes .npmrc .netrc)"
    echo
} >"$RESULTS"

# --- (a)–(g) side by side -------------------------------------------------------
if [ "$FIELD" = 1 ]; then
    cmds=(
        -n "(a) bwrap, compiled args" "$BARE -- /bin/true"
        -n "(b) bwrun" "$BIN/bwrun $OUT/inv.json -- /bin/true"
        -n "(b0) bwrun, no limits" "$BIN/bwrun $OUT/inv-nolimits.json -- /bin/true"
        -n "(c) bwpolicy run" "$BIN/bwpolicy run --config $OUT/settings.yaml -- /bin/true"
    )
    [ -n "$FIREJAIL" ] && cmds+=(-n "(d) firejail --quiet" "$FIREJAIL --quiet /bin/true")
    [ -n "$SRT" ] && [ -z "$srt_why" ] && cmds+=(-n "(e) srt -c true" "$SRT -c true")
    cmds+=(
        -n "(f) no sandbox" "/bin/true"
        -n "(g) bwpolicy compile (cold)" "$BIN/bwpolicy compile --config $OUT/settings.yaml"
    )
    quiet
    before=$(loadavg)
    log "hyperfine: ${RUNS} runs, ${WARMUP} warm-up, load average $before"
    exec 9<"$OUT/seccomp.bin"
    for fd in $EMPTY_FDS; do eval "exec $fd</dev/null"; done
    hyperfine -N --warmup "$WARMUP" --runs "$RUNS" --style basic \
        --prepare "$BIN/benchtool rewind 9" \
        --export-json "$OUT/field.json" "${cmds[@]}" >"$OUT/hyperfine.txt"
    after=$(loadavg)

    # Where bwrun's time goes: the same bwrap behind a Go program that
    # only execs it, and one that forks it and waits (the floor of any Go
    # front end), run round-robin so that drift hits every row alike.
    quiet
    dbefore=$(loadavg)
    log "decomposition: $DECOMP_ROUNDS interleaved rounds, load average $dbefore"
    "$BIN/benchtool" interleave "$DECOMP_ROUNDS" \
        "(a) bwrap, compiled args=$BARE -- /bin/true" \
        "Go exec → bwrap=$BIN/gofork exec $BARE -- /bin/true" \
        "Go fork+wait → bwrap=$BIN/gofork fork $BARE -- /bin/true" \
        "(b) bwrun=$BIN/bwrun $OUT/inv.json -- /bin/true" \
        "(b0) bwrun, no limits=$BIN/bwrun $OUT/inv-nolimits.json -- /bin/true" \
        "(h) Hermes' chain: prlimit → bwrap → prlimit=$HERMES_CHAIN /bin/true" >"$OUT/decomposition.md"
    dafter=$(loadavg)
    exec 9<&-
    for fd in $EMPTY_FDS; do eval "exec $fd<&-"; done

    rss=$("$BIN/benchtool" rss 20 "$BIN/bwrun" "$OUT/inv.json" -- /bin/true)
    rss_time=""
    if [ -x /usr/bin/time ]; then
        rss_time=$( { /usr/bin/time -f '%M' "$BIN/bwrun" "$OUT/inv.json" -- /bin/true; } 2>&1 | tail -n1)
    fi
    size=$(stat -c %s "$BIN/bwrun")
    {
        echo "## Per command: a sandboxed /bin/true"
        echo
        echo "hyperfine -N --warmup $WARMUP --runs $RUNS; load average (1, 5, 15 min) before: $before, after: $after; busy: $BUSY"
        echo
        "$BIN/benchtool" table "$OUT/field.json"
        echo
        [ ${#missing[@]} -gt 0 ] && printf -- '- not measured: %s\n' "${missing[@]}"
        [ -n "$srt_why" ] && echo "- not measured: srt: $srt_why"
        echo "- (a) is \`$BARE -- /bin/true\` run with 9<seccomp.bin and $(for fd in $EMPTY_FDS; do printf '%s</dev/null ' "$fd"; done)open; $(cat "$OUT/bare.txt")"
        echo
        echo "### Decomposition (benchtool interleave, $DECOMP_ROUNDS rounds, shuffled order; load average before: $dbefore, after: $dafter)"
        echo
        cat "$OUT/decomposition.md"
        echo
        echo "## bwrun"
        echo
        echo "- size (go build -trimpath -ldflags='-s -w'): $size bytes ($(awk -v s="$size" 'BEGIN { printf "%.2f MiB", s / 1048576 }'))"
        echo "- peak RSS of \`bwrun inv.json -- /bin/true\` (ru_maxrss, 20 runs): median ${rss% *} KiB, largest ${rss#* } KiB${rss_time:+; /usr/bin/time -f %M: $rss_time KiB}"
        echo
    } >>"$RESULTS"
fi

# --- check of many settings files ---------------------------------------------------
# One bwpolicy check over BENCH_CHECK_FILES (default 10,000) generated
# settings files (five shapes, two in five with errors, JSON out), with
# one job and with one per core: wall and CPU time per run, CPU per file.
if [ "$FIELD" = 1 ]; then
    NFILES=${BENCH_CHECK_FILES:-10000}
    CHECKDIR=$OUT/check-files
    rm -rf "$CHECKDIR" && mkdir -p "$CHECKDIR"
    for ((i = 0; i < NFILES; i++)); do
        printf -v name 's%05d.yaml' "$i"
        case $((i % 5)) in
            0) printf 'profile: workspace\nmemory_mb: %d\ncpu_seconds: 60\n' $((256 + i)) ;;
            1) printf 'profile: restricted\nbinds:\n  - src: /usr/share\n  - src: /etc\n    dest: /tmp/etc\n' ;;
            2) printf 'terminal:\n  home_mode: auto\nplugins:\n  entries:\n    bubblewrap:\n      settings:\n        profile: network\n        max_procs: %d\n' $((i % 200)) ;;
            3) printf 'profile: workspace\nmemory_mb: %d\n' $((4096 + i)) ;;
            4) printf 'profile: workspace\nbinds:\n  - src: relative/path\n' ;;
        esac >"$CHECKDIR/$name"
    done
    CORES=$(nproc)
    quiet
    cbefore=$(loadavg)
    log "check of $NFILES files: hyperfine, 10 runs each, load average $cbefore"
    hyperfine -N --warmup 1 --runs 10 --style basic -i \
        --export-json "$OUT/check.json" \
        -n "check, $NFILES files, --jobs 1" "$BIN/bwpolicy check --format json --jobs 1 $CHECKDIR" \
        -n "check, $NFILES files, --jobs $CORES ($CORES cores)" "$BIN/bwpolicy check --format json $CHECKDIR" >"$OUT/check.txt"
    cafter=$(loadavg)
    {
        echo "## bwpolicy check of $NFILES settings files on $CORES cores"
        echo
        echo "hyperfine -N --warmup 1 --runs 10 (exit 1 expected: two files in five have errors); load average before: $cbefore, after: $cafter; busy: $BUSY"
        echo
        echo "| command | files | cores | wall (median) | CPU (user+sys, mean) | CPU per file |"
        echo "|---|---|---|---|---|---|"
        python3 -c 'import json, sys
n = int(sys.argv[2]); cores = sys.argv[3]
for r in json.load(open(sys.argv[1]))["results"]:
    cpu = r["user"] + r["system"]
    print("| %s | %d | %s | %.2f s | %.2f s | %.3f ms |" % (r["command"], n, cores, r["median"], cpu, cpu / n * 1000))' "$OUT/check.json" "$NFILES" "$CORES"
        echo
    } >>"$RESULTS"
fi

# --- the post-command scan and the ledger (H9, issue 26) --------------------------
if [ "$SCAN" = 1 ]; then
    quiet
    before=$(loadavg)
    log "post-command scan rows (bench/scan_cost.py), load average $before"
    SCANOUT=$OUT/scan
    mkdir -p "$SCANOUT"
    # The script and the plugin's package beside it (it takes Hermes'
    # argv from integrations/hermes/bench.py), where bwtest can read them.
    mkdir -p "$SCANOUT/bench"
    cp "$REPO/bench/scan_cost.py" "$SCANOUT/bench/"
    rm -rf "$SCANOUT/integrations" && cp -r "$REPO/integrations" "$SCANOUT/"
    scan_cmd=(env "HOME=$SCANOUT" "PATH=/usr/bin:/bin" "BWPOLICY_BWRAP=$BWRAP" python3 "$SCANOUT/bench/scan_cost.py" "$BIN" "$SCANOUT")
    if [ "$(id -u)" = 0 ]; then
        # Unprivileged, as a user runs it: bwtest (the sandbox tests' user).
        id bwtest >/dev/null 2>&1 || useradd -m bwtest
        chown -R bwtest "$SCANOUT"
        chmod -R a+rX "$SCANOUT/bench" "$SCANOUT/integrations" && chmod a+rx "$OUT" "$BIN" "$BIN"/* # every directory above --out must let bwtest through
        scan_cmd=(runuser -u bwtest -- "${scan_cmd[@]}")
    fi
    "${scan_cmd[@]}" >"$OUT/scan.md" 2>&1 || { cat "$OUT/scan.md" >&2; die "bench/scan_cost.py failed"; }
    {
        echo "## The post-command scan and the ledger (H9)"
        echo
        echo "load average before: $before, after: $(loadavg); run as $([ "$(id -u)" = 0 ] && echo bwtest || id -un)"
        echo
        cat "$OUT/scan.md"
        echo
    } >>"$RESULTS"
fi

# --- Go benchmarks ---------------------------------------------------------------
if [ "$GO" = 1 ]; then
    quiet
    before=$(loadavg)
    log "go test -bench (count $COUNT), load average $before"
    (
        cd "$REPO"
        export HOME=$ORIG_HOME # go writes its telemetry under $HOME/.config
        go test -run '^$' -bench 'BenchmarkCompile$|BenchmarkPolicy$' -count "$COUNT" ./compiler
        go test -run '^$' -bench . -count "$COUNT" ./bench
        go test -run '^$' -bench . -count "$COUNT" ./runtime ./runtime/scan
        go test -run '^$' -bench 'BenchmarkCheckThousandFiles' -benchtime 1x -count "$COUNT" ./cmd/bwpolicy
    ) >"$OUT/go.txt" 2>&1 || { cat "$OUT/go.txt" >&2; die "go test -bench failed"; }
    after=$(loadavg)
    {
        echo "## Go benchmarks (medians of -count $COUNT)"
        echo
        echo "load average before: $before, after: $after; busy: $BUSY"
        echo
        "$BIN/benchtool" gobench "$OUT/go.txt"
        echo
    } >>"$RESULTS"
fi

cat "$RESULTS"
log "written: $RESULTS (raw: $OUT/field.json, $OUT/hyperfine.txt, $OUT/go.txt)"
