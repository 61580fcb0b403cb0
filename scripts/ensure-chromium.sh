#!/usr/bin/env bash
# The browser tests drive Debian's Chromium (nothing downloads a browser at install time).
# Installs it from Debian's packages when it is missing, so `npm test` works on a fresh machine.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
echo "npm test: installing Debian's chromium for the browser tests"
SUDO=()
[ "$(id -u)" -eq 0 ] || SUDO=(sudo)
"${SUDO[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends chromium >/dev/null
