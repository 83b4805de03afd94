#!/usr/bin/env bash
# Build bubblewrap 0.12.0 from Debian trixie's source package into
# .cache/bwrap-0.12.0/bwrap, the newer bwrap the sandbox tests run a second time
# with (BWPOLICY_BWRAP). Idempotent: an existing binary
# that reports 0.12.0 is reused. Needs root (apt); Debian bookworm assumed.
set -euo pipefail

BWRAP_VERSION=0.12.0
TARBALL="bubblewrap_${BWRAP_VERSION}.orig.tar.xz"
SOURCES_FILE=/etc/apt/sources.list.d/bwpolicy-trixie-src.sources
BUILD_DEPS=(meson ninja-build libcap-dev pkg-config xz-utils)

REPO_ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
CACHE_DIR="$REPO_ROOT/.cache"
DEST_DIR="$CACHE_DIR/bwrap-$BWRAP_VERSION"
DEST_BIN="$DEST_DIR/bwrap"

export DEBIAN_FRONTEND=noninteractive

log() { printf '[build-bwrap] %s\n' "$*"; }
die() { printf '[build-bwrap] ERROR: %s\n' "$*" >&2; exit 1; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"
    else die "must run as root (or with passwordless sudo) to run: $*"
    fi
}

is_wanted_binary() {
    [ -x "$DEST_BIN" ] && [ "$("$DEST_BIN" --version 2>/dev/null)" = "bubblewrap $BWRAP_VERSION" ]
}

# Let unprivileged users (e.g. the test user) execute the binary.
fix_perms() {
    chmod 0755 "$CACHE_DIR" "$DEST_DIR"
    chmod 0755 "$DEST_BIN"
    local d="$DEST_DIR"
    while [ "$d" != / ]; do
        d=$(dirname -- "$d")
        if [ "$(( 0$(stat -c %a "$d") & 01 ))" -eq 0 ]; then
            log "WARNING: $d is not searchable by other users; unprivileged users cannot run $DEST_BIN"
        fi
    done
}

mkdir -p "$DEST_DIR"

# Serialise concurrent runs (e.g. two make invocations).
exec 9>"$CACHE_DIR/.build-bwrap.lock"
flock 9

if is_wanted_binary; then
    fix_perms
    log "reusing $DEST_BIN ($("$DEST_BIN" --version))"
    exit 0
fi
if [ -e "$DEST_BIN" ]; then
    log "existing $DEST_BIN is not bubblewrap $BWRAP_VERSION ('$("$DEST_BIN" --version 2>&1 || true)'); rebuilding"
fi

start=$(date +%s)

# --- build dependencies (from bookworm) -------------------------------------
missing=()
for p in "${BUILD_DEPS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ! -e /usr/share/keyrings/debian-archive-trixie-stable.gpg ]; then
    missing+=(debian-archive-keyring)   # older keyring lacks the trixie keys
fi
if [ "${#missing[@]}" -gt 0 ]; then
    log "installing build dependencies: ${missing[*]}"
    as_root apt-get update -q || die "apt-get update failed"
    as_root apt-get install -y -q --no-install-recommends "${missing[@]}" \
        || die "could not install: ${missing[*]}"
fi

# --- trixie deb-src entries, on the same mirror host as bookworm -------------
# Prints the first URI used for suite $1 in the enabled apt sources
# (deb822 *.sources and one-line *.list files).
find_mirror() {
    local suite=$1 f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        [ "$f" = "$SOURCES_FILE" ] && continue
        case "$f" in
        *.sources)
            awk -v want="$suite" '
                function flush() { if (uri != "" && hit && !off) { print uri; found = 1; exit } uri = ""; hit = 0; off = 0 }
                /^[[:space:]]*$/ { flush(); next }
                /^[[:space:]]*#/ { next }
                tolower($1) == "uris:" { uri = $2 }
                tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == want) hit = 1 }
                tolower($1) == "enabled:" && tolower($2) == "no" { off = 1 }
                END { if (!found) flush() }' "$f"
            ;;
        *)
            awk -v want="$suite" '
                $1 == "deb" || $1 == "deb-src" {
                    i = 2
                    if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                    if ($(i + 1) == want) { print $i; exit }
                }' "$f"
            ;;
        esac
    done | head -n1
}

main_uri=$(find_mirror bookworm)
sec_uri=$(find_mirror bookworm-security)
if [ -z "$main_uri" ]; then
    main_uri=http://deb.debian.org/debian
    log "WARNING: no bookworm entry found in apt sources; using $main_uri"
fi
if [ -z "$sec_uri" ]; then
    case "$main_uri" in
    */debian | */debian/) sec_uri="${main_uri%/}-security" ;;
    *) sec_uri=http://deb.debian.org/debian-security ;;
    esac
    log "WARNING: no bookworm-security entry found in apt sources; using $sec_uri"
fi
main_uri=${main_uri%/}
sec_uri=${sec_uri%/}
log "mirrors: $main_uri (trixie), $sec_uri (trixie-security)"

sources_content="# Added by bwpolicy .ci/build-bwrap.sh: SOURCE packages only (no trixie binaries).
Types: deb-src
URIs: $main_uri
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: $sec_uri
Suites: trixie-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"

if [ "$(cat "$SOURCES_FILE" 2>/dev/null)" != "$sources_content" ]; then
    log "writing $SOURCES_FILE"
    printf '%s\n' "$sources_content" | as_root tee "$SOURCES_FILE" >/dev/null
fi
log "apt-get update"
as_root apt-get update -q || die "apt-get update failed (check $SOURCES_FILE and network access to $main_uri)"

# --- download the source ----------------------------------------------------
showsrc=$(apt-cache showsrc bubblewrap 2>/dev/null) \
    || die "apt-cache showsrc bubblewrap found nothing; are the deb-src entries in $SOURCES_FILE working?"
src_version=$(printf '%s\n' "$showsrc" | awk '/^Version:/ {print $2}' \
    | grep -E "^${BWRAP_VERSION//./\\.}-" | sort -V | tail -n1 || true)
[ -n "$src_version" ] || die "no bubblewrap $BWRAP_VERSION source in trixie; available: $(printf '%s\n' "$showsrc" | awk '/^Version:/ {print $2}' | sort -uV | tr '\n' ' ')"

# Expected SHA-256 of the orig tarball, from that version's Sources stanza.
want_sha=$(printf '%s\n' "$showsrc" | awk -v v="$src_version" -v t="$TARBALL" '
    /^Package:/ { inv = 0 }
    /^Version:/ { inv = ($2 == v) }
    /^Checksums-Sha256:/ { insha = 1; next }
    /^[^ ]/ { insha = 0 }
    inv && insha && $3 == t { print $1; exit }')

WORK=$(mktemp -d /tmp/bwpolicy-bwrap.XXXXXX)
trap 'rm -rf -- "$WORK"' EXIT
chmod 0755 "$WORK"
# apt-get source downloads as user _apt; let it write here (avoids a warning).
if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$WORK"; fi
cd "$WORK"
log "apt-get source --download-only bubblewrap=$src_version (in $WORK)"
if ! as_root apt-get source -q --download-only "bubblewrap=$src_version"; then
    if [ -f "$TARBALL" ]; then
        log "NOTE: apt-get source exited non-zero, but $TARBALL arrived; building from it"
    else
        die "apt-get source failed and $TARBALL did not arrive"
    fi
fi
[ -f "$TARBALL" ] || die "$TARBALL not found after apt-get source (got: $(ls -A | tr '\n' ' '))"
if [ -n "$want_sha" ]; then
    got_sha=$(sha256sum "$TARBALL" | awk '{print $1}')
    [ "$got_sha" = "$want_sha" ] || die "$TARBALL checksum mismatch: got $got_sha, want $want_sha"
    log "$TARBALL sha256 OK ($got_sha)"
else
    log "WARNING: no SHA-256 for $TARBALL in the Sources index; relying on apt's own check"
fi

# --- build ------------------------------------------------------------------
tar -xf "$TARBALL"
srcdir="$WORK/bubblewrap-$BWRAP_VERSION"
[ -d "$srcdir" ] || die "unexpected tarball layout: $(ls -A | tr '\n' ' ')"
cd "$srcdir"
log "meson setup + ninja"
meson setup build -Dselinux=disabled -Dman=disabled -Dtests=false >"$WORK/meson.log" 2>&1 \
    || { cat "$WORK/meson.log" >&2; die "meson setup failed"; }
ninja -C build >"$WORK/ninja.log" 2>&1 \
    || { cat "$WORK/ninja.log" >&2; die "ninja build failed"; }
[ -x build/bwrap ] || die "build finished but build/bwrap is missing"

got=$(build/bwrap --version) || die "built bwrap does not run"
[ "$got" = "bubblewrap $BWRAP_VERSION" ] || die "built binary reports '$got', expected 'bubblewrap $BWRAP_VERSION'"

install -m 0755 build/bwrap "$DEST_DIR/.bwrap.new"
mv -f "$DEST_DIR/.bwrap.new" "$DEST_BIN"
fix_perms

# Smoke test (warning only: a kernel without user namespaces affects the
# system bwrap the same way, and the tests will report it).
if "$DEST_BIN" --unshare-all --ro-bind / / --dev /dev --proc /proc true; then
    log "smoke test OK"
else
    log "WARNING: '$DEST_BIN --unshare-all --ro-bind / / --dev /dev --proc /proc true' failed on this machine"
fi

log "built $DEST_BIN ($("$DEST_BIN" --version), source $src_version) in $(( $(date +%s) - start ))s"
