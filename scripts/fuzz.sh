#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time from the seed corpus in
# fuzz/corpus/NAME (new inputs go to fuzz/corpus-run/NAME, git-ignored).
#   scripts/fuzz.sh BUILD_DIR SECONDS_PER_TARGET
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-30}
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
for bin in "$build"/fuzz/fuzz_*; do
    name=$(basename "$bin")
    name=${name#fuzz_}
    mkdir -p "$root/fuzz/corpus-run/$name"
    echo "== fuzz_$name for ${seconds}s"
    if ! "$bin" -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$root/fuzz/corpus-run/$name-" \
        "$root/fuzz/corpus-run/$name" "$root/fuzz/corpus/$name" 2>"$build/fuzz_$name.log"; then
        echo "fuzz_$name FAILED: see $build/fuzz_$name.log" >&2
        tail -30 "$build/fuzz_$name.log" >&2
        status=1
    else
        grep -E "stat::number_of_executed_units|cov:" "$build/fuzz_$name.log" | tail -2
    fi
done
exit $status
