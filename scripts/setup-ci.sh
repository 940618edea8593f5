#!/usr/bin/env bash
# Installs what the tests use but do not install themselves. Run once on a CI machine, as root,
# before ./mvnw verify; a test whose tool is missing skips and says so.
#
#   chromium: ReportRenderTest renders the lab's report in headless Chromium.
set -euo pipefail

has_chromium() {
  [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1
}

if has_chromium; then
  echo "setup-ci: chromium is already installed"
elif [ "$(id -u)" -ne 0 ]; then
  echo "setup-ci: chromium is missing; run this script as root to install it with apt-get" >&2
  exit 1
elif ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-ci: chromium is missing and there is no apt-get; install it with this system's package manager" >&2
  exit 1
else
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
fi
