#!/bin/sh
# Prints the N (default 10) slowest tests of a ctest run, slowest first,
# from the lines ctest printed ("12/88 Test #65: name ...   Passed   3.21 sec").
#   ctest ... | tee LOG; scripts/slowest.sh LOG [N]
log=${1:?usage: slowest.sh CTEST_OUTPUT [N]}
n=${2:-10}
[ -r "$log" ] || { echo "slowest.sh: $log: no ctest output" >&2; exit 0; }
echo "The $n slowest tests:"
sed -n 's/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .* \([0-9.]*\) sec$/\2 \1/p' "$log" |
  sort -rn | head -n "$n" | awk '{ printf "%8.2f s  %s\n", $1, $2 }'
