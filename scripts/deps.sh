#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages truecost needs to build and test, and
# nothing when they are all present. Uses sudo when not root.
#   scripts/deps.sh          build + test dependencies
#   scripts/deps.sh --fuzz   also clang and libFuzzer's runtime
set -euo pipefail

packages=(cmake make gcc pkg-config curl
          libevent-dev libjansson-dev libcmocka-dev libcurl4-openssl-dev
          libsqlite3-dev libinih-dev libpq-dev
          postgresql # the store's tests run on a throwaway server (scripts/pg-test.sh)
          libplplot-dev # the report's charts (PLplot's svg device)
          chromium # tests/integration/report.test.mjs opens the report in it (puppeteer-core)
          sqlite3 # tests turn a database back into an older truecost's
          prometheus # the agent's tests: promtool check metrics, a real scraping server
          python3-torch # train's real-training test: a small model trained on the CPU
                        # (about 150 packages and 570 MiB installed on Debian 12)
          man-db groff-base) # the install test renders the man page with man -l
[[ "${1:-}" == "--fuzz" ]] && packages+=(clang libclang-rt-14-dev)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js may come from Debian (nodejs + npm) or from another source that
# bundles npm: only the commands matter.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi

echo "truecost: installing missing packages: ${missing[*]}" >&2
if ! command -v apt-get >/dev/null 2>&1; then
    echo "truecost: apt-get not found; install these packages by hand: ${missing[*]}" >&2
    exit 1
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "truecost: not root and no sudo; as root run: apt-get install ${missing[*]}" >&2
        exit 1
    fi
    sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
