#!/usr/bin/env bash
# What the tests need of a machine beyond a JDK 25 (which ./mvnw finds itself): a C compiler, for the
# lab's C programs, Chromium, for the report's render test, the openssl command, whose s_client is
# the TLS peer of the loop's interoperability test, and OpenSSL 3's libraries, for the native module's
# TLS engine. Installs what is missing with apt-get
# where this runs as root on Debian or Ubuntu, and fails if that fails; elsewhere it says what to
# install and leaves it: the tests that need it are skipped, each saying what is missing.
#   scripts/setup-ci.sh           install what is missing
#   scripts/setup-ci.sh --check   only say what is missing
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }

missing=()
have cc || missing+=(gcc)
have chromium || have chromium-browser || have google-chrome || missing+=(chromium)
have openssl || missing+=(openssl)
{ have ldconfig && ldconfig -p | grep -q 'libssl\.so\.3 ' && ldconfig -p | grep -q 'libcrypto\.so\.3 '; } \
    || missing+=(libssl3)

if ((${#missing[@]} == 0)); then
    echo "setup-ci: nothing to install (cc, chromium, openssl and libssl3 present)"
    exit 0
fi
if [[ "${1:-}" == "--check" ]]; then
    echo "setup-ci: missing: ${missing[*]}"
    exit 0
fi
if [[ "$(id -u)" != 0 ]] || ! have apt-get; then
    echo "setup-ci: missing ${missing[*]}; install them (as root: apt-get install ${missing[*]}), or the tests that need them are skipped" >&2
    exit 0
fi
echo "setup-ci: apt-get install ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends "${missing[@]}" \
    || { apt-get update && apt-get install -y --no-install-recommends "${missing[@]}"; }
