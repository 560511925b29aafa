#!/usr/bin/env bash
# Installs moto's server mode (a Glue-compatible AWS API server, from PyPI) for the Glue catalog tests
# (integration/catalogs/glue-catalog.test.ts), in its own venv in the build cache (scripts/cache-dir.sh),
# keyed by Python version and the pinned requirements; the clone links it as .cache/moto-venv.
# Idempotent; fails loudly when the install fails.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=cache-dir.sh
. "$ROOT/scripts/cache-dir.sh"
REQS=('moto[server,glue]==5.1.18')
PY=${PYTHON:-python3}
PY_VERSION="$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
HASH="$(printf '%s\n' "$PY_VERSION" "${REQS[@]}" | sha256sum | cut -c1-16)"
VENV="$FLOE_CACHE/moto-venv-py$PY_VERSION-$HASH"
if ! { [ -x "$VENV/bin/moto_server" ] && [ -f "$VENV/.complete" ]; }; then
  floe_cache_lock "$VENV"
  if ! { [ -x "$VENV/bin/moto_server" ] && [ -f "$VENV/.complete" ]; }; then
    [ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${REQS[@]}" \
      || { echo "[setup-moto] ERROR: pip install ${REQS[*]} failed" >&2; exit 1; }
    touch "$VENV/.complete"
  fi
fi
floe_link "$ROOT/.cache/moto-venv" "$VENV"
echo "[setup-moto] moto server: $ROOT/.cache/moto-venv/bin/moto_server"
