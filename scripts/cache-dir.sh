# Sourced by the setup scripts: where built servers and engines are cached, outside the clone so a fresh CI
# clone on the same machine reuses them (a brand-new machine builds them once).
#   FLOE_CACHE_DIR if set, else $XDG_CACHE_HOME/floe, else ~/.cache/floe.
# Each thing lives in its own <thing>-<version or source hash>/ directory; a finished build leaves a
# `.complete` stamp there, so an interrupted build is redone rather than trusted.
FLOE_CACHE="${FLOE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/floe}"
mkdir -p "$FLOE_CACHE"

# floe_cache_lock DIR: serialises builders of one cache entry (several test files or CI runs may start
# the same setup at once); the lock is held until the calling script exits.
floe_cache_lock() {
  mkdir -p "$1"
  if command -v flock >/dev/null 2>&1; then
    exec 8>"$1.lock"
    flock 8
  fi
}

# floe_link LINK TARGET: points LINK (inside the clone, e.g. .venv) at TARGET (in the cache), replacing
# an older link or a directory a previous version of these scripts built in place.
floe_link() {
  local link="$1" target="$2"
  if [ -L "$link" ] && [ "$(readlink "$link")" = "$target" ]; then return 0; fi
  mkdir -p "$(dirname "$link")"
  rm -rf "$link"
  ln -s "$target" "$link"
}
