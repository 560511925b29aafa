#!/usr/bin/env bash
# Builds floe's S3-compatible test server (scripts/s3-server: gofakes3 + SigV4 + atomic conditional PUT)
# from the Go module proxy and caches it under .cache/s3-server/. Idempotent: a second run with unchanged
# sources and Go version only checks a stamp. Prints the binary's absolute path as its last line.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SRC="$ROOT/scripts/s3-server"
OUT_DIR="$ROOT/.cache/s3-server"
BIN="$OUT_DIR/floe-s3-server"

if ! command -v go >/dev/null 2>&1; then
  for candidate in /usr/local/go/bin/go /usr/lib/go/bin/go; do
    [ -x "$candidate" ] && export PATH="$(dirname "$candidate"):$PATH" && break
  done
fi
if ! command -v go >/dev/null 2>&1; then
  echo "setup-s3: no Go toolchain found; install Go (>= 1.24) to build the S3 test server" >&2
  exit 1
fi

stamp="$(cat "$SRC/main.go" "$SRC/go.mod" "$SRC/go.sum" | sha256sum | cut -c1-16)-$(go env GOVERSION)"
up_to_date() { [ -x "$BIN" ] && [ "$(cat "$OUT_DIR/stamp" 2>/dev/null)" = "$stamp" ]; }
if up_to_date; then
  echo "setup-s3: up to date" >&2
  echo "$BIN"
  exit 0
fi

mkdir -p "$OUT_DIR"
# Test files may call this at the same time: one builds, the others wait and find it built.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$OUT_DIR/.lock"
  flock 9
  if up_to_date; then
    echo "$BIN"
    exit 0
  fi
fi
echo "setup-s3: building the S3 test server (first run downloads gofakes3 from the Go module proxy)…" >&2
(cd "$SRC" && GOFLAGS=-mod=readonly go build -trimpath -o "$BIN.tmp.$$" .)
mv -f "$BIN.tmp.$$" "$BIN"
echo "$stamp" > "$OUT_DIR/stamp"
echo "setup-s3: built $BIN" >&2
echo "$BIN"
