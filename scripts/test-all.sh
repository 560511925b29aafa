#!/usr/bin/env bash
# The whole test suite: type check, unit tests, then the integration tier (real S3 server + reference engines).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json --noEmit
npx vitest run
