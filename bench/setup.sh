#!/usr/bin/env bash
# bench/setup.sh: install what bench/run.sh compares against (Debian or
# Ubuntu, as root or with sudo). bench/run.sh itself installs nothing.
#
#   hyperfine           the timer
#   bubblewrap          bwrap (bwpolicy's backend; also `make setup`)
#   firejail            row (d)
#   socat, ripgrep      needed by Anthropic's sandbox-runtime on Linux
#   nodejs, npm         to install it (Debian's nodejs is used if none is there)
#   @anthropic-ai/sandbox-runtime (npm, global)   row (e): `srt`
#   time                GNU time, for the peak RSS cross-check
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
log() { printf '[bench/setup] %s\n' "$*"; }
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else log "need root (or sudo) to run: $*"; exit 1
    fi
}

command -v apt-get >/dev/null 2>&1 || { log "apt-get not found: install hyperfine, bubblewrap, firejail, socat, ripgrep, GNU time and npm by hand"; exit 1; }

packages=(hyperfine bubblewrap firejail socat ripgrep time)
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
log "apt-get install ${packages[*]}"
as_root apt-get update -q
as_root apt-get install -y -q --no-install-recommends "${packages[@]}"

log "npm install -g @anthropic-ai/sandbox-runtime"
as_root npm install -g @anthropic-ai/sandbox-runtime

log "installed:"
hyperfine --version
bwrap --version
firejail --version | head -n1
printf 'srt %s (node %s)\n' "$(srt --version)" "$(node --version)"
