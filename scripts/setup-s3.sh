#!/usr/bin/env bash
# Builds the S3 test server the integration tier runs against when S3_TEST_ENDPOINT is not set, and prints
# its absolute path as the last line.
#
#   default                     MinIO (github.com/minio/minio, AGPL-3.0, run as a separate test process only,
#                               never linked or shipped), a pinned pseudo-version built from the Go module proxy
#   FLOE_S3_BINARY=versitygw    versitygw v1.8.0 (github.com/versity/versitygw, Apache-2.0, a production S3
#                               gateway; run with its posix backend), built from the Go module proxy
#   FLOE_S3_BINARY=floe-s3-server  (or --gofakes3) scripts/s3-server: gofakes3 + SigV4 + atomic conditional PUT
#   --all                       builds MinIO and versitygw (what scripts/test-all.sh runs the tier on)
#
# The build is cached outside the clone (scripts/cache-dir.sh: $FLOE_CACHE_DIR or ~/.cache/floe), keyed by
# version (versitygw) or a hash of the sources (floe-s3-server). Idempotent: a cached build is only checked.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=cache-dir.sh
. "$ROOT/scripts/cache-dir.sh"

VERSITYGW_VERSION="v1.8.0"
# The newest pseudo-version the proxy served (2026-02-12); builds with Go >= 1.24 in ~5-10 min on 2 cores.
MINIO_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"
WHICH="${FLOE_S3_BINARY:-minio}"
[ "${1:-}" = "--gofakes3" ] && WHICH="floe-s3-server"
if [ "${1:-}" = "--all" ]; then
  FLOE_S3_BINARY=minio bash "$0"
  FLOE_S3_BINARY=versitygw bash "$0"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  for candidate in /usr/local/go/bin/go /usr/lib/go/bin/go; do
    [ -x "$candidate" ] && export PATH="$(dirname "$candidate"):$PATH" && break
  done
fi
if ! command -v go >/dev/null 2>&1; then
  echo "setup-s3: no Go toolchain found; install Go (>= 1.24) to build the S3 test server" >&2
  exit 1
fi
# Never let `go` fetch another toolchain: the machine's Go builds both servers.
export GOTOOLCHAIN=local

case "$WHICH" in
  minio)
    OUT_DIR="$FLOE_CACHE/minio-$MINIO_VERSION"
    BIN="$OUT_DIR/minio"
    build() {
      echo "setup-s3: building MinIO $MINIO_VERSION from the Go module proxy (5-10 minutes on 2 cores the first time)…" >&2
      GOBIN="$OUT_DIR/.tmp-bin" go install -trimpath -ldflags=-s "github.com/minio/minio@$MINIO_VERSION"
      mv -f "$OUT_DIR/.tmp-bin/minio" "$BIN"
      rm -rf "$OUT_DIR/.tmp-bin"
    }
    ;;
  versitygw)
    OUT_DIR="$FLOE_CACHE/versitygw-$VERSITYGW_VERSION"
    BIN="$OUT_DIR/versitygw"
    build() {
      echo "setup-s3: building versitygw $VERSITYGW_VERSION from the Go module proxy (a few minutes on 2 cores the first time)…" >&2
      GOBIN="$OUT_DIR/.tmp-bin" go install -trimpath "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
      mv -f "$OUT_DIR/.tmp-bin/versitygw" "$BIN"
      rm -rf "$OUT_DIR/.tmp-bin"
    }
    ;;
  floe-s3-server)
    SRC="$ROOT/scripts/s3-server"
    hash="$(cat "$SRC/main.go" "$SRC/go.mod" "$SRC/go.sum" | sha256sum | cut -c1-16)"
    OUT_DIR="$FLOE_CACHE/floe-s3-server-$hash"
    BIN="$OUT_DIR/floe-s3-server"
    build() {
      echo "setup-s3: building floe-s3-server (first run downloads gofakes3 from the Go module proxy)…" >&2
      (cd "$SRC" && GOFLAGS=-mod=readonly go build -trimpath -o "$BIN.tmp.$$" .)
      mv -f "$BIN.tmp.$$" "$BIN"
    }
    ;;
  *)
    echo "setup-s3: FLOE_S3_BINARY must be minio, versitygw or floe-s3-server, not '$WHICH'" >&2
    exit 1
    ;;
esac

up_to_date() { [ -x "$BIN" ] && [ -f "$OUT_DIR/.complete" ]; }
if up_to_date; then
  echo "setup-s3: $WHICH up to date ($BIN)" >&2
  echo "$BIN"
  exit 0
fi
# Test files may call this at the same time: one builds, the others wait and find it built.
floe_cache_lock "$OUT_DIR"
if ! up_to_date; then
  rm -f "$OUT_DIR/.complete"
  T0=$(date +%s)
  build
  touch "$OUT_DIR/.complete"
  echo "setup-s3: built $BIN in $(( $(date +%s) - T0 ))s" >&2
fi
echo "$BIN"
