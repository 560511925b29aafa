#!/usr/bin/env bash
# Builds the Temporal CLI (its `temporal server start-dev` is the Temporal dev server the integration/temporal
# tier runs against) from the Go module proxy and prints its absolute path as the last line.
#
#   temporal CLI v1.5.1 (github.com/temporalio/cli, MIT). Newer releases (v1.9.x) carry `replace` directives
#   in go.mod, which `go install pkg@version` refuses, so they cannot be built this way.
#   FLOE_TEMPORAL_CLI=/path/to/temporal   use a Temporal CLI you already have; nothing is built.
#
# Never downloads a prebuilt binary (TestWorkflowEnvironment.createLocal's default would, and that fails
# offline): the tests start exactly this binary. Cached outside the clone (scripts/cache-dir.sh: $FLOE_CACHE_DIR
# or ~/.cache/floe) keyed by version, with a `.complete` stamp and a lock. Idempotent: a cached build is only
# checked. A cold build takes about 9 minutes on 2 busy cores (module downloads included).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=cache-dir.sh
. "$ROOT/scripts/cache-dir.sh"

TEMPORAL_CLI_VERSION="v1.5.1"

if [ -n "${FLOE_TEMPORAL_CLI:-}" ]; then
  if [ -x "$FLOE_TEMPORAL_CLI" ]; then
    echo "setup-temporal: using FLOE_TEMPORAL_CLI=$FLOE_TEMPORAL_CLI" >&2
    echo "$FLOE_TEMPORAL_CLI"
    exit 0
  fi
  echo "setup-temporal: FLOE_TEMPORAL_CLI=$FLOE_TEMPORAL_CLI is not an executable file" >&2
  exit 1
fi

if ! command -v go >/dev/null 2>&1; then
  for candidate in /usr/local/go/bin/go /usr/lib/go/bin/go; do
    [ -x "$candidate" ] && export PATH="$(dirname "$candidate"):$PATH" && break
  done
fi
if ! command -v go >/dev/null 2>&1; then
  echo "setup-temporal: no Go toolchain found; install Go (>= 1.23) to build the Temporal CLI, or set FLOE_TEMPORAL_CLI" >&2
  exit 1
fi
# Never let `go` fetch another toolchain: the machine's Go builds the CLI.
export GOTOOLCHAIN=local

OUT_DIR="$FLOE_CACHE/temporal-cli-$TEMPORAL_CLI_VERSION"
BIN="$OUT_DIR/temporal"

up_to_date() { [ -x "$BIN" ] && [ -f "$OUT_DIR/.complete" ]; }
if up_to_date; then
  echo "setup-temporal: temporal CLI $TEMPORAL_CLI_VERSION up to date ($BIN)" >&2
  echo "$BIN"
  exit 0
fi
# Test files may call this at the same time: one builds, the others wait and find it built.
floe_cache_lock "$OUT_DIR"
if ! up_to_date; then
  rm -f "$OUT_DIR/.complete"
  echo "setup-temporal: building the Temporal CLI $TEMPORAL_CLI_VERSION from the Go module proxy (about 9 minutes on 2 cores the first time)…" >&2
  T0=$(date +%s)
  GOBIN="$OUT_DIR/.tmp-bin" go install -trimpath "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_CLI_VERSION"
  mv -f "$OUT_DIR/.tmp-bin/temporal" "$BIN"
  rm -rf "$OUT_DIR/.tmp-bin"
  touch "$OUT_DIR/.complete"
  echo "setup-temporal: built $BIN in $(( $(date +%s) - T0 ))s" >&2
fi
echo "$BIN"
