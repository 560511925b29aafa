#!/usr/bin/env bash
# Debian's chromium for the dashboard's browser test (integration/service/dashboard.test.ts drives it with
# playwright-core). Installs it with apt-get when missing (root only); prints CHROMIUM=<path>.
# Exit code 2 with a `SKIP:` line on stderr when it cannot be had.
set -euo pipefail

skip() { echo "SKIP: $*" >&2; exit 2; }

find_chromium() {
  local c
  for c in /usr/bin/chromium /usr/bin/chromium-browser; do
    [[ -x "$c" ]] && { echo "$c"; return 0; }
  done
  return 1
}

if ! bin=$(find_chromium); then
  [[ $(id -u) -eq 0 ]] || skip "chromium is not installed and installing it needs root (apt-get install chromium)"
  command -v apt-get >/dev/null || skip "chromium is not installed and apt-get is unavailable"
  echo "installing chromium (apt-get)…" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core; } >&2 || skip "apt-get install chromium failed"
  bin=$(find_chromium) || skip "chromium installed but not found in /usr/bin"
fi
echo "CHROMIUM=$bin"
