#!/usr/bin/env bash
# Installs what the real-VS-Code parts need (npm start, the in-host and UI tests):
# code-server (VS Code 1.100.3 workbench + a Node extension host), Debian's Chromium
# for playwright-core, and the Debian packages code-server's native modules build
# against. Everything but the apt packages goes into .e2e/ (ignored). Idempotent: a
# second run only checks and takes well under a second.
#   usage: scripts/setup-vscode.sh        (root, or sudo for the apt step)
set -euo pipefail
PROJECT="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="${DOWNCITY_E2E_DIR:-$PROJECT/.e2e}"
CS_VERSION=4.100.3   # newest code-server whose engines.node is 20 (4.103+ need Node 22)
RG_VERSION=1.15.11   # @vscode/ripgrep pinned by code-server 4.100.3's lib/vscode shrinkwrap
APT_PKGS="chromium ripgrep libkrb5-dev fonts-liberation g++ make python3 zstd"
CS_PKG="$ROOT/code-server/node_modules/code-server"
STAMP="$ROOT/code-server/.installed-$CS_VERSION"
T0=$(date +%s)
step() { echo "setup-vscode: [$(( $(date +%s) - T0 ))s] $*"; }

node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" = 20 ] || { echo "setup-vscode: code-server $CS_VERSION needs Node 20 (have $(node -v))" >&2; exit 1; }

# ---- 1. Debian packages (one dpkg-query for all; apt only when something is missing)
installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' $APT_PKGS 2>/dev/null | awk '$2 == "ii" { print $1 }' || true)
missing=$(comm -13 <(sort <<<"$installed") <(tr ' ' '\n' <<<"$APT_PKGS" | sort) | xargs)
if [ -n "$missing" ]; then
  step "apt-get install $missing"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  # Another apt-get may be running on this machine: wait for its lock instead of failing.
  APT=(-o DPkg::Lock::Timeout=600 -qq)
  $SUDO apt-get "${APT[@]}" update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get "${APT[@]}" install -y --no-install-recommends $missing >/dev/null
fi

# ---- 2. playwright-core and the other dev tools come from the project's devDependencies
if [ ! -f "$PROJECT/node_modules/playwright-core/package.json" ]; then
  step "npm install (devDependencies: playwright-core, mocha, vsce)"
  (cd "$PROJECT" && npm install --no-audit --no-fund >/dev/null)
fi

# ---- 3. code-server from npm, into $ROOT/code-server
if [ -f "$STAMP" ] && [ -f "$CS_PKG/lib/vscode/node_modules/node-pty/build/Release/pty.node" ] \
   && [ -x "$CS_PKG/lib/vscode/node_modules/@vscode/ripgrep/bin/rg" ]; then
  step "code-server $CS_VERSION present"
else
  step "installing code-server@$CS_VERSION (native modules build with node-gyp; ~1-2 min)"
  # node-gyp must use the local Node headers, never download them from nodejs.org.
  if [ -f /usr/include/node/node_api.h ]; then export npm_config_nodedir=/usr
  else
    prefix="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
    [ -f "$prefix/include/node/node_api.h" ] || { echo "setup-vscode: no Node headers (include/node/node_api.h)" >&2; exit 1; }
    export npm_config_nodedir="$prefix"
  fi
  # Install-time temp files (and @vscode/ripgrep's download cache) stay in $ROOT.
  export TMPDIR="$ROOT/tmp"; mkdir -p "$TMPDIR"
  # @vscode/ripgrep's postinstall downloads from GitHub unless its cache holds the
  # asset: seed the cache with Debian's rg.
  case "$(node -p process.arch)" in
    x64) rg_target=x86_64-unknown-linux-musl ;; arm64) rg_target=aarch64-unknown-linux-musl ;;
    *) echo "setup-vscode: unsupported architecture $(node -p process.arch)" >&2; exit 1 ;;
  esac
  cache="$TMPDIR/vscode-ripgrep-cache-$RG_VERSION"; mkdir -p "$cache" "$ROOT/rg"
  cp /usr/bin/rg "$ROOT/rg/rg"
  tar czf "$cache/ripgrep-v13.0.0-10-$rg_target.tar.gz" -C "$ROOT/rg" rg
  rm -rf "$ROOT/code-server"; mkdir -p "$ROOT/code-server"
  echo '{"private":true}' > "$ROOT/code-server/package.json"
  # unsafe_perm: code-server's postinstall refuses to run as root without it.
  # yes: node-pty's postinstall runs `npx node-gyp` (a ~/.npmrc may say yes=false).
  # HOME/XDG: code-server's postinstall must not write into the real home.
  HOME="$ROOT/home" XDG_CONFIG_HOME="$ROOT/xdg/config" XDG_DATA_HOME="$ROOT/xdg/data" XDG_CACHE_HOME="$ROOT/xdg/cache" \
  npm_config_cache="${npm_config_cache:-$(npm config get cache)}" \
  npm_config_unsafe_perm=true npm_config_yes=true \
    npm install --prefix "$ROOT/code-server" "code-server@$CS_VERSION" --no-audit --no-fund --no-save --foreground-scripts \
    > "$ROOT/install-code-server.log" 2>&1 \
    || { tail -40 "$ROOT/install-code-server.log" >&2; echo "setup-vscode: code-server install failed; log: $ROOT/install-code-server.log" >&2; exit 1; }
  [ -f "$CS_PKG/lib/vscode/node_modules/node-pty/build/Release/pty.node" ] \
    || { echo "setup-vscode: node-pty did not build; log: $ROOT/install-code-server.log" >&2; exit 1; }
  rm -rf "$TMPDIR"
  touch "$STAMP"
fi
step "ready: code-server $CS_VERSION in $ROOT/code-server, $(/usr/bin/chromium --version 2>/dev/null | head -1)"
