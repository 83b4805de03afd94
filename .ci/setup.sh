#!/usr/bin/env bash
# Install everything the tests need on a fresh Debian bookworm machine, then
# build bubblewrap 0.12.0 (.ci/build-bwrap.sh). Idempotent; needs root (apt).
set -euo pipefail

PACKAGES=(
    strace zsh mksh curl time
    bubblewrap hyperfine meson ninja-build libcap-dev pkg-config xz-utils
    util-linux iproute2 python3 python3-pytest git make gcc ca-certificates procps
    python3-pip python3-setuptools
)

REPO_ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
export DEBIAN_FRONTEND=noninteractive

log() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"
    else die "must run as root (or with passwordless sudo) to run: $*"
    fi
}

command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this script expects Debian bookworm"

missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
    log "apt packages already installed: ${PACKAGES[*]}"
else
    log "apt-get update"
    as_root apt-get update -q || die "apt-get update failed"
    log "installing: ${missing[*]}"
    as_root apt-get install -y -q --no-install-recommends "${missing[@]}" \
        || die "apt-get install failed for: ${missing[*]}"
fi
# npm (sandboxtest H10_pip_npm_cache): Debian's npm package, unless a
# Node.js install that bundles npm (NodeSource's nodejs) is already here.
if ! command -v npm >/dev/null 2>&1; then
    log "installing: npm"
    as_root apt-get update -q || die "apt-get update failed"
    as_root apt-get install -y -q --no-install-recommends npm || die "apt-get install failed for: npm"
fi

# Go is not installed from apt (bookworm's is too old): expect /usr/local/go.
export PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null 2>&1 || die "go not found in PATH or /usr/local/go/bin; install Go (see go.mod) first"
log "go: $(go version)"

# staticcheck (make lint, part of make test), pinned; built from the module proxy.
STATICCHECK_VERSION=v0.8.2
if [ -x "$(go env GOPATH)/bin/staticcheck" ] && "$(go env GOPATH)/bin/staticcheck" -version 2>/dev/null | grep -q "${STATICCHECK_VERSION#v}"; then
    log "staticcheck ${STATICCHECK_VERSION} already installed"
else
    log "installing staticcheck ${STATICCHECK_VERSION}"
    go install "honnef.co/go/tools/cmd/staticcheck@${STATICCHECK_VERSION}" || die "go install staticcheck failed"
fi

log "building bubblewrap 0.12.0"
"$REPO_ROOT/.ci/build-bwrap.sh"

log "done: system $(/usr/bin/bwrap --version) at /usr/bin/bwrap, $("$REPO_ROOT/.cache/bwrap-0.12.0/bwrap" --version) at .cache/bwrap-0.12.0/bwrap"
