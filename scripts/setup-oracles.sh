#!/usr/bin/env bash
# Installs the reference engines ("oracles") that floe's interop tests compare against:
#   - .venv/ (repo root, git-ignored): PyIceberg (+pyarrow, SQL catalog, pyiceberg-core), DuckDB with its
#     iceberg/avro extensions from PyPI wheels (extensions.duckdb.org is not reachable here), pypaimon.
#   - integration/oracles/java: Iceberg + Paimon Java oracle, built to .cache/oracles/java-target/.
# Idempotent: each part is skipped when its stamp (requirements / source hash) is unchanged.
# Fails loudly (non-zero exit) when a required part cannot be installed or built.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
JAVA_DIR="$ROOT/integration/oracles/java"
JAVA_OUT="$ROOT/.cache/oracles/java-target"
T0=$(date +%s)

say() { printf '[setup-oracles] %s\n' "$*"; }
die() { printf '[setup-oracles] ERROR: %s\n' "$*" >&2; exit 1; }

# Versions resolve together (pypaimon needs pyarrow <20; DuckDB extension wheels match the DuckDB version).
PY_REQS=(
  'pyiceberg[pyarrow,sql-sqlite,pyiceberg-core]==0.12.0'
  'pyarrow==19.0.1'
  'duckdb==1.5.5'
  'duckdb-extension-iceberg==1.5.5'
  'duckdb-extension-avro==1.5.5'
  'pypaimon==2.1.0'
)

mkdir -p "$ROOT/.cache"

# ---------------------------------------------------------------- tools
command -v java >/dev/null || die "java not found (Java 17+ required)"
JAVA_MAJOR=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
[ "${JAVA_MAJOR:-0}" -ge 17 ] || die "Java 17+ required, found '${JAVA_MAJOR:-?}'"
command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
PY=${PYTHON:-python3}
command -v "$PY" >/dev/null || die "python3 not found"

# ---------------------------------------------------------------- Python venv
PY_STAMP="$VENV/.floe-oracles-reqs"
WANT_STAMP="$(printf '%s\n' "${PY_REQS[@]}")"
if [ -x "$VENV/bin/python" ] && [ -f "$PY_STAMP" ] && [ "$(cat "$PY_STAMP")" = "$WANT_STAMP" ]; then
  say "python venv up to date ($VENV)"
else
  if [ ! -x "$VENV/bin/python" ]; then
    say "creating venv at $VENV"
    "$PY" -m venv "$VENV" || die "python -m venv failed"
  fi
  say "installing: ${PY_REQS[*]}"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${PY_REQS[@]}" \
    || die "pip install failed"
  printf '%s\n' "${PY_REQS[@]}" > "$PY_STAMP"
fi
"$VENV/bin/python" -c 'import pyiceberg, pyarrow, duckdb, pypaimon' \
  || die "python oracle packages do not import"
if "$VENV/bin/python" -B "$ROOT/integration/oracles/py/duckdb_read.py" --check >/dev/null 2>"$ROOT/.cache/duckdb-check.err"; then
  say "duckdb iceberg extension loads (from PyPI wheel)"
else
  say "WARNING: duckdb iceberg extension UNAVAILABLE: $(cat "$ROOT/.cache/duckdb-check.err")"
  say "WARNING: DuckDB oracle tests will be skipped"
fi

# ---------------------------------------------------------------- Java oracle
mkdir -p "$JAVA_OUT"
SRC_HASH=$(cd "$JAVA_DIR" && find pom.xml src -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
JAR="$JAVA_OUT/floe-oracle.jar"
if [ -f "$JAR" ] && [ -d "$JAVA_OUT/lib" ] && [ "$(cat "$JAVA_OUT/.src-hash" 2>/dev/null)" = "$SRC_HASH" ]; then
  say "java oracle up to date ($JAR)"
else
  say "building java oracle (first run downloads Maven dependencies; may take minutes)"
  rm -rf "$JAVA_OUT/lib"
  (cd "$JAVA_DIR" && mvn -q -B -Dstyle.color=never package -Dmaven.test.skip=true) || die "maven build of $JAVA_DIR failed"
  [ -f "$JAR" ] || die "maven finished but $JAR is missing"
  echo "$SRC_HASH" > "$JAVA_OUT/.src-hash"
  say "built $JAR ($(ls "$JAVA_OUT/lib" | wc -l) dependency jars)"
fi

say "done in $(( $(date +%s) - T0 ))s"
