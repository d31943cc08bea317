#!/usr/bin/env bash
# The main job: benchmark a local inference server with the seeds' recipe
# (1 warm-up request, then 20 measured, one at a time, temperature 0). When
# no local server answers, start `truecost sim` -- a SIMULATED server -- on
# a free port, benchmark that, and stop it.
set -euo pipefail
bin=${1:-build/truecost}

for port in 11434 8000 8080 30000; do
    if curl -s -o /dev/null -m 0.5 "http://127.0.0.1:$port/"; then
        echo "truecost demo: a server answers on 127.0.0.1:$port; benchmarking it"
        exec "$bin" run --label demo
    fi
done

tmp=$(mktemp -d)
pid=
cleanup() {
    [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
echo "truecost demo: no local inference server answers; starting 'truecost sim' (SIMULATED)"
"$bin" sim --listen 127.0.0.1:0 --port-file "$tmp/port" --ttft-ms 40 --decode-tps 250 \
    >"$tmp/sim.log" 2>&1 &
pid=$!
for _ in $(seq 100); do [[ -s "$tmp/port" ]] && break; sleep 0.05; done
[[ -s "$tmp/port" ]] || { cat "$tmp/sim.log" >&2; echo "truecost: demo: the simulator did not start" >&2; exit 1; }
"$bin" run "http://127.0.0.1:$(cat "$tmp/port")" --label demo-simulated
echo
echo "Stored; see 'truecost runs', 'truecost show demo-simulated', 'truecost export demo-simulated'."
