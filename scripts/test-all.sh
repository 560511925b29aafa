#!/usr/bin/env bash
# The whole test suite: installs what the tests need (native Parquet codec, S3 test server, reference engines),
# type-checks, then runs the unit tier and the integration tier (real S3 server + Java Iceberg/Paimon,
# PyIceberg, DuckDB).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci --no-audit --no-fund
echo "== build cache: ${FLOE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/floe} (built servers and engines, reused across clones)"
echo "== setup: native Parquet codec (Rust addon; a cold build takes ~2-3 min on 2 cores, then cached)"
# The suite runs on the native codec unless FLOE_PARQUET_CODEC says otherwise: with FLOE_PARQUET_CODEC=native
# a missing or broken addon makes the tests fail loudly instead of silently testing the parquet-wasm fallback.
export FLOE_PARQUET_CODEC="${FLOE_PARQUET_CODEC:-native}"
if [ "$FLOE_PARQUET_CODEC" = "native" ]; then
  FLOE_REQUIRE_NATIVE=1 node scripts/build-native.mjs
else
  node scripts/build-native.mjs
  echo "   FLOE_PARQUET_CODEC=$FLOE_PARQUET_CODEC: the tests run on that codec"
fi
echo "== setup: S3 test server"
# an external server (S3_TEST_ENDPOINT) needs no local build
[ -n "${S3_TEST_ENDPOINT:-}" ] || bash scripts/setup-s3.sh >/dev/null
echo "== setup: reference engines"
bash scripts/setup-oracles.sh
echo "== setup: moto server (Glue Data Catalog API tests)"
bash scripts/setup-moto.sh >/dev/null
echo "== setup: redis-server (BullMQ tests)"
bash scripts/setup-redis.sh >/dev/null
echo "== setup: Temporal CLI dev server (Temporal tests; a cold build takes ~8-16 min on 2 cores, then cached)"
if [ "${FLOE_SKIP_TEMPORAL:-}" = "1" ]; then echo "   SKIPPED: FLOE_SKIP_TEMPORAL=1 — the Temporal tier will not run"; else bash scripts/setup-temporal.sh >/dev/null; fi
echo "== setup: chromium (dashboard browser test)"
bash scripts/setup-chromium.sh >/dev/null || echo "   (no chromium: the dashboard browser test will fail and say why)"
echo "== type check"
npx tsc -p tsconfig.check.json --noEmit
echo "== lint (eslint incl. the layering rule, prettier --check)"
npm run --silent lint
echo "== unit + integration tests"
mkdir -p .cache
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json=.cache/vitest-results.json "$@" || status=$?
# one plain closing line for CI: "tests: N passed, N failed, N skipped"
node -e '
  const r = JSON.parse(require("fs").readFileSync(".cache/vitest-results.json", "utf8"));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
' || true
exit $status
