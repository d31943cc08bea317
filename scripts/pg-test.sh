#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: initdb + pg_ctl in a new
# temporary folder, listening only on a Unix socket inside it, trust
# authentication, stopped and removed at the end.
#   scripts/pg-test.sh CMD ARGS...   runs CMD with TC_TEST_PG_URL set to the
#                                    server's URL, then stops the server;
#                                    exits with CMD's status
# PostgreSQL refuses to run as root, so as root the server runs as the
# unprivileged user `nobody` (runuser); the folder is handed to it.
# Needs Debian's `postgresql` package (scripts/deps.sh installs it).
set -euo pipefail

if [[ $# -eq 0 ]]; then
    echo "usage: scripts/pg-test.sh CMD [ARGS...]" >&2
    exit 2
fi

bindir=""
for d in /usr/lib/postgresql/*/bin; do
    [[ -x "$d/initdb" ]] && bindir="$d"
done
if [[ -z "$bindir" ]] && command -v initdb >/dev/null 2>&1; then
    bindir="$(dirname "$(command -v initdb)")"
fi
if [[ -z "$bindir" ]]; then
    echo "pg-test: initdb not found: install PostgreSQL (apt-get install postgresql)" >&2
    exit 1
fi

dir="$(mktemp -d /tmp/truecost-pg-XXXXXX)"
as=()
if [[ $(id -u) -eq 0 ]]; then
    chown nobody "$dir"
    as=(runuser -u nobody --)
fi
chmod 700 "$dir"

stop() {
    "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w -t 20 stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap stop EXIT

"${as[@]}" "$bindir/initdb" -D "$dir/data" -U truecost --auth=trust -E UTF8 --no-sync \
    >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
# Tests only: no TCP, no fsync (a crash loses the test database, nothing else).
"${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses= -c unix_socket_directories=$dir -c fsync=off -c max_connections=100" \
    start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }

export TC_TEST_PG_URL="postgresql://truecost@/postgres?host=$dir"
echo "pg-test: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') at $TC_TEST_PG_URL" >&2
set +e
"$@"
rc=$?
set -e
exit $rc
