#!/usr/bin/env bash
# The main job (make demo).
#
# A local inference server answers (Ollama 11434, vLLM 8000, llama.cpp
# 8080, SGLang 30000): benchmark it with the seeds' recipe (1 warm-up
# request, then 20 measured, one at a time, temperature 0), print the
# summary and what to run next.
#
# None answers: the whole method on two SIMULATED platforms whose
# frontiers cross (A: fast per user, small batches; B: slower per user,
# large batches): sweep both, judge "A is 5x more cost-efficient than B"
# at equal interactivity with the shipped workstation profiles, write the
# report (with the lock-in section of the shipped example assessment) to
# truecost-demo.html, print its path and stop the simulators.
#
#   scripts/demo.sh [BIN]
#   DEMO_DIR   where truecost-demo.html and truecost-demo.db go (default .)
#   DEMO_PORTS the ports tried for a local server (default above; "" none)
set -euo pipefail
bin=${1:-build/truecost}
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${DEMO_DIR:-.}
ports=${DEMO_PORTS-11434 8000 8080 30000}

say() { printf '\ntruecost demo: %s\n' "$*"; }

for port in $ports; do
    if curl -s -o /dev/null -m 0.5 "http://127.0.0.1:$port/"; then
        say "a server answers on 127.0.0.1:$port; benchmarking it with the seeds' recipe"
        "$bin" run "http://127.0.0.1:$port" --label demo
        say "next: 'truecost sweep http://127.0.0.1:$port -c 1,2,4,8 --label mine' measures" \
            "it at several loads, and 'truecost report mine --profile profiles/FILE.ini'" \
            "writes the report to hand to a colleague (docs/method.md defines every figure)."
        exit 0
    fi
done

tmp=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT

# One simulated platform on a free port; its URL in the named variable.
start_sim() {
    local name=$1
    shift
    "$bin" sim --listen 127.0.0.1:0 --port-file "$tmp/$name.port" "$@" >"$tmp/$name.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do [[ -s "$tmp/$name.port" ]] && break; sleep 0.05; done
    if [[ ! -s "$tmp/$name.port" ]]; then
        cat "$tmp/$name.log" >&2
        echo "truecost: demo: the simulator $name did not start" >&2
        exit 1
    fi
    printf -v "url_$name" 'http://127.0.0.1:%s' "$(cat "$tmp/$name.port")"
}

say "no local inference server answers: two SIMULATED platforms instead"
start_sim a --ttft-ms 20 --decode-tps 400 --max-batch 4
start_sim b --ttft-ms 30 --decode-tps 200 --max-batch 32 --batch-slowdown 0.01
db="$dir/truecost-demo.db"
report="$dir/truecost-demo.html"
rm -f "$db" "$db-wal" "$db-shm"
A="$repo/profiles/rtx4090-workstation.ini"
B="$repo/profiles/rx7900xtx-workstation.ini"
common=(--max-tokens 32 --db "$db" --telemetry none)

say "1/4 sweep A (fast per user, batches of 4) and B (slower per user, batches of 32)"
# shellcheck disable=SC2154 # set by start_sim
"$bin" sweep "$url_a" -c 1,2,4,8 -n 32 --label demo-a "${common[@]}"
# shellcheck disable=SC2154
"$bin" sweep "$url_b" -c 2,8,16,32 -n 64 --label demo-b "${common[@]}"

say "2/4 is A 5x more cost-efficient than B? judged at equal interactivity"
"$bin" frontier demo-a demo-b --db "$db" --profile-a "$A" --profile-b "$B" --claim 5 \
    --at 160,190,300

say "3/4 the report, with the lock-in cost and decision of the example assessment"
"$bin" report demo-a demo-b --db "$db" --profile-a "$A" --profile-b "$B" --claim 5 \
    --at 160,190,300 --assessment "$repo/examples/assessment-lora-8x24gb.ini" \
    -o "$report" >/dev/null

say "4/4 done: the report is $(cd "$(dirname "$report")" && pwd)/$(basename "$report")"
echo "  open it in a browser; the runs are in $db ('truecost runs --db $db')."
echo "  Your own platforms: README.md, 'Five minutes, two platforms'."
