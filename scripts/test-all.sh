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
npx vitest run "$@"
