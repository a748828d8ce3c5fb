#!/usr/bin/env bash
# The review of the generated 22,200-clause contract by two `clausewright` binaries, as users
# run it, rounds interleaved so that the load of a shared machine falls on both alike
# (BENCHMARKS.md, "Profile of the review"): wall, user and system seconds and peak RSS of
# each run (`/usr/bin/time`), with the classifier (default) and with `--rules-only`, the
# load average beside each run, medians per binary and mode; then whether both binaries
# wrote the same JSON report (the skills' `elapsed_ms` masked, the one field that changes
# from run to run).
#
#   bench/shipped/review_ab.sh BEFORE AFTER
#
# Environment: REPS (rounds, default 5), OUT (work folder, default /tmp/clausewright-review-ab).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEFORE=${1:?usage: review_ab.sh BEFORE AFTER}
AFTER=${2:?usage: review_ab.sh BEFORE AFTER}
REPS=${REPS:-5}
OUT=${OUT:-/tmp/clausewright-review-ab}
mkdir -p "$OUT"
python3 "$ROOT/bench/shipped/contract.py" > "$OUT/contract.md"
echo "contract: $(wc -c < "$OUT/contract.md") bytes; $(nproc) cores; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"

: > "$OUT/times"
for round in $(seq "$REPS"); do
    for side in before after; do
        bin=$BEFORE
        [ "$side" = after ] && bin=$AFTER
        for mode in default rules-only; do
            flags=()
            [ "$mode" = rules-only ] && flags=(--rules-only)
            load=$(cut -d' ' -f1 /proc/loadavg)
            /usr/bin/time -f "%e %U %S %M" -o "$OUT/time" "$bin" review "$OUT/contract.md" \
                --domain fidic --format json "${flags[@]}" --out "$OUT/$side-$mode.json" > /dev/null 2>&1
            echo "$side $mode $(cat "$OUT/time") $load" | tee -a "$OUT/times"
        done
    done
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
col() { awk -v s="$1" -v m="$2" -v c="$3" '$1 == s && $2 == m {print $c}' "$OUT/times"; }
echo
echo "medians of $REPS rounds: wall s (range), user s, sys s, peak RSS MB, load average (range)"
for mode in default rules-only; do
    for side in before after; do
        walls=$(col $side $mode 3 | sort -n | tr '\n' ' ')
        loads=$(col $side $mode 7 | sort -n | tr '\n' ' ')
        echo "  $side $mode: $(col $side $mode 3 | median) ($(echo "$walls" | awk '{print $1 "-" $NF}')), $(col $side $mode 4 | median), $(col $side $mode 5 | median), $(col $side $mode 6 | median | awk '{printf "%.0f", $1 / 1024}'), load $(echo "$loads" | awk '{print $1 "-" $NF}')"
    done
done

masked() { sed -E 's/"elapsed_ms": [0-9.e+-]+/"elapsed_ms": 0/' "$1" | md5sum | cut -d' ' -f1; }
echo
for mode in default rules-only; do
    if [ "$(masked "$OUT/before-$mode.json")" = "$(masked "$OUT/after-$mode.json")" ]; then
        echo "reports ($mode): identical (elapsed_ms masked)"
    else
        echo "reports ($mode): DIFFERENT"
    fi
done
