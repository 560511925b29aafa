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
echo "== setup: S3 test servers (MinIO, the default, and versitygw, the second implementation; a cold MinIO build takes ~10-18 min on 2 cores, then cached)"
# an external server (S3_TEST_ENDPOINT) needs no local build
[ -n "${S3_TEST_ENDPOINT:-}" ] || bash scripts/setup-s3.sh --all >/dev/null
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
results=.cache/vitest-results.json
# The S3 integration files again on versitygw, the second S3 implementation (whole-suite runs only, and not
# against an external server): what floe relies on must hold on both.
if [ $# -eq 0 ] && [ -z "${S3_TEST_ENDPOINT:-}" ] && [ "${FLOE_S3_SECOND_SERVER:-1}" != "0" ]; then
  mapfile -t s3_files < <(grep -rlE "acquireS3|S3_TEST_ENDPOINT" integration --include='*.test.ts' | sort)
  echo "== integration tier, S3 files again on versitygw (${#s3_files[@]} files; FLOE_S3_SECOND_SERVER=0 skips)"
  FLOE_S3_BINARY=versitygw npx vitest run --project integration --reporter=default --reporter=json \
    --outputFile.json=.cache/vitest-results-versitygw.json "${s3_files[@]}" || status=1
  results="$results .cache/vitest-results-versitygw.json"
elif [ $# -eq 0 ] && [ -z "${S3_TEST_ENDPOINT:-}" ]; then
  echo "!! FLOE_S3_SECOND_SERVER=0: the S3 integration files did NOT run on versitygw (the second S3 implementation)"
fi
# one plain closing line for CI: "tests: N passed, N failed, N skipped" (both passes added up)
node -e '
  let passed = 0, failed = 0, skipped = 0;
  for (const f of process.argv.slice(1)) {
    const r = JSON.parse(require("fs").readFileSync(f, "utf8"));
    passed += r.numPassedTests; failed += r.numFailedTests; skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  }
  console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
' $results || true
exit $status
