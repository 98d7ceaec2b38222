#!/bin/sh
# Installs loki from a GitHub release:
#
#   curl -fsSL https://github.com/loki-dev/loki/releases/latest/download/install.sh | sh
#
# What it does, in order, and nothing else:
#   1. picks the build for this machine: Linux (static, musl) or macOS, on x86_64 or aarch64;
#   2. downloads the release's SHA256SUMS and loki-<version>-<target>.tar.gz, of the latest release
#      or of LOKI_VERSION, into a private temporary directory;
#   3. refuses unless SHA256SUMS lists the archive and the archive's SHA-256 is the one listed;
#   4. checks that the binary runs here, then puts it at $LOKI_INSTALL_DIR/loki through a temporary
#      file in that directory and a rename, so an existing loki is replaced whole or not at all.
#
# Environment:
#   LOKI_VERSION       the release to install, 1.2.3 or v1.2.3 (default: the latest)
#   LOKI_INSTALL_DIR   where to put `loki` (default: $HOME/.local/bin)
#   LOKI_RELEASES_URL  where the releases are (default: https://github.com/loki-dev/loki/releases);
#                      a mirror serves <url>/latest/download/<file> and
#                      <url>/download/v<version>/<file>
#
# Exit codes: 0 installed; 1 a download or the verification failed; 2 refused before downloading
# (a platform with no build, a malformed LOKI_VERSION, no downloader or SHA-256 tool); 130/143
# interrupted. On any failure the install directory is left as it was, and on every exit the
# temporary directory is removed.

set -eu

REPO="loki-dev/loki"
RELEASES="${LOKI_RELEASES_URL:-https://github.com/$REPO/releases}"
RELEASES="${RELEASES%/}"
INSTALL_DIR="${LOKI_INSTALL_DIR:-${HOME:?HOME is not set: set LOKI_INSTALL_DIR}/.local/bin}"

tmp=""
staged=""
cleanup() {
    [ -z "$staged" ] || rm -f "$staged"
    [ -z "$tmp" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say() { printf '%s\n' "$*"; }
die() {
    code="$1"
    shift
    printf 'loki install: %s\n' "$*" >&2
    exit "$code"
}

# The Rust target triple of this machine's build, or a refusal naming what was found.
detect_target() {
    os="$(uname -s)"
    arch="$(uname -m)"
    case "$arch" in
        x86_64 | amd64) arch=x86_64 ;;
        aarch64 | arm64) arch=aarch64 ;;
        *) die 2 "no loki build for the architecture '$arch' (builds exist for x86_64 and aarch64); build from source: cargo install --locked --git https://github.com/$REPO loki-cli" ;;
    esac
    case "$os" in
        Linux) say "$arch-unknown-linux-musl" ;;
        Darwin)
            # A shell under Rosetta reports x86_64 on Apple silicon: install the native build.
            if [ "$arch" = x86_64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
                arch=aarch64
            fi
            say "$arch-apple-darwin"
            ;;
        *) die 2 "no loki build for the operating system '$os' (builds exist for Linux and macOS); build from source: cargo install --locked --git https://github.com/$REPO loki-cli" ;;
    esac
}

# download URL FILE [HINT]: fails (1) naming the URL, and the hint, when it cannot be fetched.
download() {
    if command -v curl >/dev/null 2>&1; then
        curl -fsSL --retry 3 -o "$2" "$1" || die 1 "could not download $1${3:-}; nothing installed"
    else
        wget -q -O "$2" "$1" || die 1 "could not download $1${3:-}; nothing installed"
    fi
}

# The SHA-256 of FILE, in lower-case hex.
sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sum="$(sha256sum "$1")"
    else
        sum="$(shasum -a 256 "$1")"
    fi
    printf '%s\n' "${sum%% *}" | tr 'A-F' 'a-f'
}

# Downloads SHA256SUMS and this target's archive into $tmp and checks the archive against it;
# sets archive and actual (its SHA-256).
fetch_verified() {
    if [ -n "$version" ]; then
        download "$base/SHA256SUMS" "$tmp/SHA256SUMS" " (is v$version a release of $REPO? see $RELEASES)"
    else
        download "$base/SHA256SUMS" "$tmp/SHA256SUMS" " (see $RELEASES)"
    fi

    # The archive is named by SHA256SUMS: the exact name for a given version, the one entry for this
    # target in the latest release. Entries are `<hex>  <name>` (or `<hex> *<name>`, binary mode).
    if [ -n "$version" ]; then
        archive="loki-$version-$target.tar.gz"
    else
        archive="$(awk -v t="-$target.tar.gz" '{ n = $2; sub(/^\*/, "", n) }
            substr(n, 1, 5) == "loki-" && length(n) > length(t) && substr(n, length(n) - length(t) + 1) == t { print n; exit }' "$tmp/SHA256SUMS")"
        [ -n "$archive" ] ||
            die 1 "SHA256SUMS of the latest release ($base/SHA256SUMS) lists no archive for $target; nothing installed"
    fi
    expected="$(awk -v f="$archive" '{ n = $2; sub(/^\*/, "", n) } n == f { print tolower($1); exit }' "$tmp/SHA256SUMS")"
    case "$expected" in
        "") die 1 "SHA256SUMS ($base/SHA256SUMS) has no entry for $archive: refusing to install an unverified download; nothing installed" ;;
        *[!0-9a-f]*) die 1 "SHA256SUMS ($base/SHA256SUMS) lists '$expected' for $archive, which is not a SHA-256; nothing installed" ;;
    esac
    [ "${#expected}" -eq 64 ] ||
        die 1 "SHA256SUMS ($base/SHA256SUMS) lists '$expected' for $archive, which is not a SHA-256; nothing installed"

    download "$base/$archive" "$tmp/$archive"
    actual="$(sha256_of "$tmp/$archive")"
    [ "$actual" = "$expected" ] ||
        die 1 "checksum mismatch for $archive: SHA256SUMS lists $expected, the download is $actual; nothing installed"
}

# Unpacks the archive and checks that its loki runs here; sets bin and said (its version line).
unpack() {
    mkdir "$tmp/unpacked"
    tar -xzf "$tmp/$archive" -C "$tmp/unpacked" || die 1 "$archive is not a readable .tar.gz; nothing installed"
    name="${archive%.tar.gz}"
    bin="$tmp/unpacked/$name/loki"
    [ -f "$bin" ] || die 1 "$archive has no $name/loki; nothing installed"
    chmod 755 "$bin"
    said="$("$bin" version 2>&1)" || die 1 "the downloaded loki does not run on this machine ($target): $said; nothing installed"
}

# Everything runs from here, after the whole script has been read: a download cut short by the
# network (`curl ... | sh`) defines functions and runs nothing.
main() {
    target="$(detect_target)"

    command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1 ||
        die 2 "neither curl nor wget is installed: install one and run this again"
    command -v sha256sum >/dev/null 2>&1 || command -v shasum >/dev/null 2>&1 ||
        die 2 "neither sha256sum nor shasum is installed: the download cannot be verified without one"
    command -v tar >/dev/null 2>&1 || die 2 "tar is not installed: install it and run this again"

    version="${LOKI_VERSION:-}"
    version="${version#v}"
    case "$version" in
        "" | latest) version="" base="$RELEASES/latest/download" ;;
        *[!0-9A-Za-z.+-]* | .* | *..*) die 2 "LOKI_VERSION '$LOKI_VERSION' is not a version such as 1.2.3 or v1.2.3" ;;
        *) base="$RELEASES/download/v$version" ;;
    esac

    tmp="$(mktemp -d "${TMPDIR:-/tmp}/loki-install.XXXXXXXX")"
    fetch_verified
    unpack

    mkdir -p "$INSTALL_DIR" || die 1 "cannot create the install directory $INSTALL_DIR; nothing installed"
    staged="$INSTALL_DIR/.loki.install.$$"
    cp "$bin" "$staged" || die 1 "cannot write to $INSTALL_DIR (set LOKI_INSTALL_DIR to a directory you can write); nothing installed"
    chmod 755 "$staged" || die 1 "cannot make $staged executable; nothing installed"
    mv -f "$staged" "$INSTALL_DIR/loki" || die 1 "cannot move loki into $INSTALL_DIR; nothing installed"
    staged=""

    say "installed $said to $INSTALL_DIR/loki"
    say "  from    $base/$archive"
    say "  sha256  $actual (matches SHA256SUMS)"
    say "verify its build provenance (the release workflow's signed attestation) with the GitHub CLI:"
    say "  gh attestation verify $INSTALL_DIR/loki --repo $REPO"
    case ":${PATH:-}:" in
        *":$INSTALL_DIR:"*) ;;
        *) say "$INSTALL_DIR is not on your PATH: add it, e.g. export PATH=\"$INSTALL_DIR:\$PATH\"" ;;
    esac
}

main "$@"
