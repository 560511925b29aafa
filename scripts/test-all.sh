#!/usr/bin/env bash
# The whole test suite: installs what the tests need (S3 test server, reference engines), type-checks,
# then runs the unit tier and the integration tier (real S3 server + Java Iceberg/Paimon, PyIceberg, DuckDB).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci --no-audit --no-fund
echo "== setup: S3 test server"
bash scripts/setup-s3.sh >/dev/null
echo "== setup: reference engines"
bash scripts/setup-oracles.sh
echo "== type check"
npx tsc -p tsconfig.check.json --noEmit
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
