#!/usr/bin/env bash
# Installs the reference engines ("oracles") that floe's interop tests compare against:
#   - a Python venv: PyIceberg (+pyarrow, SQL catalog, pyiceberg-core), DuckDB with its iceberg/avro
#     extensions from PyPI wheels (extensions.duckdb.org is not reachable here), pypaimon;
#   - integration/oracles/java: the Iceberg + Paimon Java oracle (floe-oracle.jar + lib/), on the releases
#     pom.xml names (Iceberg 1.12, Paimon 1.4) or, for the previous-release matrix entry, on
#     FLOE_ORACLE_ICEBERG=1.10.1 / FLOE_ORACLE_PAIMON=1.3.1 (each combination its own cache entry).
# Both are built into the build cache outside the clone (scripts/cache-dir.sh: $FLOE_CACHE_DIR or
# ~/.cache/floe), keyed by what they are built from — the venv by Python version + requirements, the jar by
# a hash of pom.xml and the sources — so a fresh clone on the same machine reuses them and a new machine
# builds them once. The clone keeps its old paths as symlinks: .venv → the venv,
# .cache/oracles/java-target → the jar's directory (what integration/ and FLOE_ORACLE_PYTHON users expect).
# Idempotent: a cache entry with its `.complete` stamp is only checked. Fails loudly (non-zero exit) when a
# required part cannot be installed or built.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=cache-dir.sh
. "$ROOT/scripts/cache-dir.sh"
JAVA_DIR="$ROOT/integration/oracles/java"
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
PY_VERSION="$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
PY_HASH="$(printf '%s\n' "$("$PY" -c 'import sys; print(sys.version)')" "${PY_REQS[@]}" | sha256sum | cut -c1-16)"
VENV="$FLOE_CACHE/oracle-venv-py$PY_VERSION-$PY_HASH"
if [ -x "$VENV/bin/python" ] && [ -f "$VENV/.complete" ]; then
  say "python venv up to date ($VENV)"
else
  floe_cache_lock "$VENV"
  if ! { [ -x "$VENV/bin/python" ] && [ -f "$VENV/.complete" ]; }; then
    if [ ! -x "$VENV/bin/python" ]; then
      say "creating venv at $VENV"
      "$PY" -m venv "$VENV" || die "python -m venv failed"
    fi
    say "installing: ${PY_REQS[*]}"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${PY_REQS[@]}" \
      || die "pip install failed"
    printf '%s\n' "${PY_REQS[@]}" > "$VENV/.floe-oracles-reqs"
    touch "$VENV/.complete"
  fi
fi
floe_link "$ROOT/.venv" "$VENV"
"$VENV/bin/python" -c 'import pyiceberg, pyarrow, duckdb, pypaimon' \
  || die "python oracle packages do not import"
if "$VENV/bin/python" -B "$ROOT/integration/oracles/py/duckdb_read.py" --check >/dev/null 2>"$ROOT/.cache/duckdb-check.err"; then
  say "duckdb iceberg extension loads (from PyPI wheel)"
else
  say "WARNING: duckdb iceberg extension UNAVAILABLE: $(cat "$ROOT/.cache/duckdb-check.err")"
  say "WARNING: DuckDB oracle tests will be skipped"
fi

# ---------------------------------------------------------------- Java oracle
# Version overrides for the matrix: Iceberg's REST server classes come from its test jar, which the release
# itself publishes up to 1.11 (pom.xml explains), so an override uses its own release's test jar.
MVN_VERSIONS=()
if [ -n "${FLOE_ORACLE_ICEBERG:-}" ]; then
  MVN_VERSIONS+=("-Diceberg.version=$FLOE_ORACLE_ICEBERG"
    "-Diceberg.rest-fixture.version=${FLOE_ORACLE_ICEBERG_REST_FIXTURE:-$FLOE_ORACLE_ICEBERG}")
  # parquet-column must match the Parquet release that iceberg-parquet was built on
  case "$FLOE_ORACLE_ICEBERG" in 1.10.*) FLOE_ORACLE_PARQUET=${FLOE_ORACLE_PARQUET:-1.16.0} ;; esac
fi
[ -z "${FLOE_ORACLE_PARQUET:-}" ] || MVN_VERSIONS+=("-Dparquet.version=$FLOE_ORACLE_PARQUET")
[ -z "${FLOE_ORACLE_PAIMON:-}" ] || MVN_VERSIONS+=("-Dpaimon.version=$FLOE_ORACLE_PAIMON")
SRC_HASH=$( (cd "$JAVA_DIR" && find pom.xml src -type f -print0 | sort -z | xargs -0 sha256sum; printf '%s\n' "${MVN_VERSIONS[@]}") \
  | sha256sum | cut -c1-16)
JAVA_OUT="$FLOE_CACHE/java-oracle-jdk$JAVA_MAJOR-$SRC_HASH"
JAR="$JAVA_OUT/floe-oracle.jar"
java_ok() { [ -f "$JAR" ] && [ -d "$JAVA_OUT/lib" ] && [ -f "$JAVA_OUT/.complete" ]; }
if java_ok; then
  say "java oracle up to date ($JAR)"
else
  floe_cache_lock "$JAVA_OUT"
  if ! java_ok; then
    say "building java oracle into $JAVA_OUT (first run downloads Maven dependencies; may take minutes)"
    rm -rf "$JAVA_OUT/lib" "$JAVA_OUT/.complete"
    (cd "$JAVA_DIR" && mvn -q -B -Dstyle.color=never package -Dmaven.test.skip=true "-Dfloe.oracle.target=$JAVA_OUT" \
      ${MVN_VERSIONS[@]+"${MVN_VERSIONS[@]}"}) \
      || die "maven build of $JAVA_DIR failed"
    [ -f "$JAR" ] || die "maven finished but $JAR is missing"
    echo "$SRC_HASH" > "$JAVA_OUT/.src-hash"
    touch "$JAVA_OUT/.complete"
    say "built $JAR ($(ls "$JAVA_OUT/lib" | wc -l) dependency jars)"
  fi
fi
floe_link "$ROOT/.cache/oracles/java-target" "$JAVA_OUT"
say "java oracle: $(java -jar "$JAR" versions)"
say "python oracles: $("$VENV/bin/python" -c 'import importlib.metadata as m; print(", ".join(p + " " + m.version(p) for p in ("pyiceberg", "pypaimon", "duckdb", "pyarrow")))')"

say "done in $(( $(date +%s) - T0 ))s"
