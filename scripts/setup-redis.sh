#!/usr/bin/env bash
# Installs Debian's redis-server when it is missing (the BullMQ tests start their own on 127.0.0.1; see
# integration/bullmq/redis.ts). Nothing is started here, and an apt-installed service is not used.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1; then
  echo "redis-server: $(redis-server --version)"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-redis: redis-server is missing and apt-get is not available; install Redis >= 6.2 so that redis-server is on PATH" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server
# the package may start a system service on 6379; the tests never use it
echo "redis-server: $(redis-server --version)"
