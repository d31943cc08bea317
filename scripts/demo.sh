#!/usr/bin/env bash
# The demo: start the SIMULATED inference server on a free port and show it
# answering in each of its protocols. (The next step of truecost turns this
# into a measured benchmark run.)
set -euo pipefail
bin=${1:-build/truecost}
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT

"$bin" sim --listen 127.0.0.1:0 --port-file "$tmp/port" --decode-tps 20 &
pid=$!
for _ in $(seq 100); do [[ -s "$tmp/port" ]] && break; sleep 0.05; done
[[ -s "$tmp/port" ]] || { echo "truecost: demo: the simulator did not start" >&2; exit 1; }
url="http://127.0.0.1:$(cat "$tmp/port")"

show() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; echo; }
echo
echo "=== SIMULATED: every answer below comes from 'truecost sim', not a real model ==="
show curl -sS "$url/api/version"
show curl -sS "$url/api/tags"
show curl -sSN "$url/api/generate" -d '{"model":"sim-llama-8b","prompt":"Why is the sky blue?","options":{"num_predict":5}}'
show curl -sSN "$url/v1/chat/completions" -d '{"model":"sim-llama-8b","messages":[{"role":"user","content":"Hi"}],"max_tokens":3,"stream":true,"stream_options":{"include_usage":true}}'
show curl -sS "$url/completion" -d '{"prompt":"Hello","n_predict":4}'
echo "=== SIMULATED: token gaps are 50 ms (--decode-tps 20) ==="
