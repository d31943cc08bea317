#!/usr/bin/env bash
# Makes tests/golden/runs.db, the fixed store the golden test reads: three
# runs and a group against truecost sim, one with the fake NVML sampled, one
# with a fault. Run once with a built tree; the result is checked in so the
# golden outputs never depend on timing. Usage: make-fixture.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
bin=$build/truecost
here=$(cd "$(dirname "$0")" && pwd)
db=$here/runs.db
rm -f "$db" "$db-wal" "$db-shm"
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin" sim --port-file "$work/port" --decode-tps 200 --fault http500:0.2 --seed 7 >/dev/null 2>&1 &
for _ in $(seq 100); do [[ -s $work/port ]] && break; sleep 0.1; done
url=http://127.0.0.1:$(cat "$work/port")
nvml=(--telemetry nvml --nvml-lib "$build/tests/fake/libfake_nvml.so" --sample-ms 20)
"$bin" run "$url" --db "$db" -n 12 --label nv --no-progress --max-error-rate 1 "${nvml[@]}" >/dev/null
"$bin" run "$url" --db "$db" -n 12 -c 3 --label amd --no-progress --max-error-rate 1 --max-tokens 64 >/dev/null
"$bin" run "$url" --db "$db" -n 6 --repeat 3 --label grp --no-progress --max-error-rate 1 >/dev/null
sqlite3 "$db" 'PRAGMA wal_checkpoint(TRUNCATE); VACUUM;'
echo "wrote $db"
