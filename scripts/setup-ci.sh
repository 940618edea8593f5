#!/usr/bin/env bash
# What the tests need of a machine beyond a JDK 25 (which ./mvnw finds itself): a C compiler, for the
# lab's C programs, Chromium, for the report's render test, the openssl command, whose s_client is
# the TLS peer of the loop's interoperability test, OpenSSL 3's libraries, for the native module's
# TLS engine, ip and tc (iproute2), for the lab's network namespaces, and an IPv6 loopback, for the
# connects over IPv6. Installs what is missing with apt-get, and turns IPv6 on for lo where a sysctl
# turned it off, where this runs as root on Debian or Ubuntu, and fails if that fails; elsewhere it
# says what to install or set and leaves it: the tests that need it are skipped, each saying what is
# missing (or fail, where .ci/run requires it).
#   scripts/setup-ci.sh           install and set up what is missing
#   scripts/setup-ci.sh --check   only say what is missing
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }
# ::1 on lo, as /proc/net/if_inet6 lists it: the address in 32 hex digits, then the interface.
ipv6_loopback() { [[ -r /proc/net/if_inet6 ]] && grep -qE '^0{31}1 .* lo$' /proc/net/if_inet6; }

missing=()
have cc || missing+=(gcc)
have chromium || have chromium-browser || have google-chrome || missing+=(chromium)
have openssl || missing+=(openssl)
{ have ldconfig && ldconfig -p | grep -q 'libssl\.so\.3 ' && ldconfig -p | grep -q 'libcrypto\.so\.3 '; } \
    || missing+=(libssl3)
{ have ip && have tc; } || missing+=(iproute2)

check=false
[[ "${1:-}" == "--check" ]] && check=true

if ipv6_loopback; then
    :
elif [[ ! -e /proc/sys/net/ipv6/conf/lo/disable_ipv6 ]]; then
    echo "setup-ci: no IPv6 loopback, and this kernel has no IPv6 to turn on (booted with ipv6.disable=1?)" >&2
elif $check || [[ "$(id -u)" != 0 ]]; then
    echo "setup-ci: no IPv6 loopback; as root: sysctl -w net.ipv6.conf.lo.disable_ipv6=0" >&2
else
    echo "setup-ci: sysctl -w net.ipv6.conf.lo.disable_ipv6=0, for an IPv6 loopback"
    sysctl -w net.ipv6.conf.lo.disable_ipv6=0 >/dev/null
    ipv6_loopback || ! have ip || ip -6 addr add ::1/128 dev lo
    ipv6_loopback || { echo "setup-ci: ::1 is still not on lo" >&2; exit 1; }
fi

if ((${#missing[@]} == 0)); then
    echo "setup-ci: nothing to install (cc, chromium, openssl, libssl3 and iproute2 present)"
    exit 0
fi
if $check; then
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
