#!/usr/bin/env bash
# Installs Debian's Chromium for the end-to-end tests (Playwright drives it; it never downloads a browser).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "Chromium is missing: run 'sudo apt-get install chromium' (needed by the browser tests)." >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
command -v chromium
