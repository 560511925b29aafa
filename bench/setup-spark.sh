#!/usr/bin/env bash
# Installs the Spark peer of the `compact-1gb` benchmark (bench/compact-1gb.ts), which also writes its
# position-delete variant (bench/table-1gb.ts), into ~/.cache/floe/spark/:
# a Python venv with pyspark 3.5 (PyPI; it carries Spark's jars) and iceberg-spark-runtime-3.5_2.12
# (Maven Central, through `mvn dependency:copy`). Not run by CI: it is ~420 MB, for benchmarks only.
# Idempotent: prints the two paths and exits when they are already there.
#   FLOE_SPARK_HOME  where to install (default ~/.cache/floe/spark)
#   PYSPARK_VERSION  (default 3.5.7), ICEBERG_VERSION (default 1.10.1)
set -euo pipefail
HOME_DIR="${FLOE_SPARK_HOME:-$HOME/.cache/floe/spark}"
PYSPARK_VERSION="${PYSPARK_VERSION:-3.5.7}"
ICEBERG_VERSION="${ICEBERG_VERSION:-1.10.1}"
VENV="$HOME_DIR/venv-pyspark-$PYSPARK_VERSION"
JAR="$HOME_DIR/iceberg-spark-runtime-3.5_2.12-$ICEBERG_VERSION.jar"
mkdir -p "$HOME_DIR"
exec 9>"$HOME_DIR/.setup.lock"
flock 9

if ! command -v java >/dev/null 2>&1; then
  echo "setup-spark: java is missing (Spark 3.5 needs Java 8, 11 or 17 on PATH)" >&2
  exit 1
fi
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import pyspark' 2>/dev/null; then
  echo "setup-spark: creating $VENV (pyspark==$PYSPARK_VERSION) …" >&2
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "pyspark==$PYSPARK_VERSION"
fi
if [ ! -s "$JAR" ]; then
  if ! command -v mvn >/dev/null 2>&1; then
    echo "setup-spark: mvn is missing (needed to fetch iceberg-spark-runtime from Maven Central)" >&2
    exit 1
  fi
  echo "setup-spark: fetching org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:$ICEBERG_VERSION …" >&2
  mvn -q dependency:copy -Dartifact="org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:$ICEBERG_VERSION" \
    -DoutputDirectory="$HOME_DIR" -Dmdep.overWriteIfNewer=true >&2
fi
"$VENV/bin/python" -c 'import pyspark; print("pyspark", pyspark.__version__)' >&2
echo "SPARK_PYTHON=$VENV/bin/python"
echo "ICEBERG_SPARK_JAR=$JAR"
