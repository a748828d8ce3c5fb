#!/usr/bin/env bash
# The cost of recording a review as a durable run (BENCHMARKS.md, "Durable runs"): the
# generated 22,200-clause contract reviewed by one `clausewright` binary, as users run it,
# without a record (`--no-record`), recorded in a new SQLite file, and recorded in a new
# PostgreSQL schema, rounds interleaved so the load of a shared machine falls on all alike:
# wall, user and system seconds and peak RSS (`/usr/bin/time`), the load average beside each
# run, medians per variant; then whether the three reports are the same (the skills'
# `elapsed_ms` masked) and the size of the SQLite file.
#
#   bench/shipped/durability.sh BINARY
#
# Environment: REPS (rounds, default 5), OUT (work folder, default
# /tmp/clausewright-durability), PG (PostgreSQL URL, default postgres://root@127.0.0.1:5432/test;
# empty to leave PostgreSQL out).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:?usage: durability.sh BINARY}
REPS=${REPS:-5}
OUT=${OUT:-/tmp/clausewright-durability}
PG=${PG-postgres://root@127.0.0.1:5432/test}
mkdir -p "$OUT"
python3 "$ROOT/bench/shipped/contract.py" > "$OUT/contract.md"
echo "contract: $(wc -c < "$OUT/contract.md") bytes; $(nproc) cores; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
variants="none sqlite"
[ -n "$PG" ] && variants="$variants postgres"

: > "$OUT/times"
for round in $(seq "$REPS"); do
    for variant in $variants; do
        case $variant in
            none) flags=(--no-record) ;;
            sqlite) rm -f "$OUT"/runs.db*; flags=(--store "$OUT/runs.db") ;;
            postgres) flags=(--store "$PG?schema=durability_bench_$round") ;;
        esac
        load=$(cut -d' ' -f1 /proc/loadavg)
        /usr/bin/time -f "%e %U %S %M" -o "$OUT/time" "$BIN" review "$OUT/contract.md" \
            --domain fidic --format json "${flags[@]}" --out "$OUT/$variant.json" > /dev/null 2>&1
        echo "$variant $(cat "$OUT/time") $load" | tee -a "$OUT/times"
        [ "$variant" = sqlite ] && du -b "$OUT"/runs.db* | awk '{s += $1} END {print "  sqlite store: " s / 1e6 " MB"}'
        if [ "$variant" = postgres ]; then
            psql "$PG" -q -c "DROP SCHEMA IF EXISTS durability_bench_$round CASCADE" > /dev/null 2>&1 || true
        fi
    done
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
col() { awk -v s="$1" -v c="$2" '$1 == s {print $c}' "$OUT/times"; }
echo
echo "medians of $REPS rounds: wall s (range), user s, sys s, peak RSS MB, load average (range)"
for variant in $variants; do
    walls=$(col "$variant" 2 | sort -n | tr '\n' ' ')
    loads=$(col "$variant" 6 | sort -n | tr '\n' ' ')
    echo "  $variant: $(col "$variant" 2 | median) ($(echo "$walls" | awk '{print $1 "-" $NF}')), $(col "$variant" 3 | median), $(col "$variant" 4 | median), $(col "$variant" 5 | median | awk '{printf "%.0f", $1 / 1024}'), load $(echo "$loads" | awk '{print $1 "-" $NF}')"
done
none=$(col none 2 | median)
for variant in $variants; do
    [ "$variant" = none ] && continue
    echo "  $variant / none wall: $(echo "$(col "$variant" 2 | median) $none" | awk '{printf "%.3f", $1 / $2}')"
done

masked() { sed -E 's/"elapsed_ms": [0-9.e+-]+/"elapsed_ms": 0/' "$1" | md5sum | cut -d' ' -f1; }
echo
for variant in $variants; do
    [ "$variant" = none ] && continue
    if [ "$(masked "$OUT/none.json")" = "$(masked "$OUT/$variant.json")" ]; then
        echo "report ($variant): identical to the unrecorded one (elapsed_ms masked)"
    else
        echo "report ($variant): DIFFERENT"
    fi
done
