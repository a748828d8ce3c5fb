#!/bin/sh
# Runs every fuzz target for SECONDS each, one after the other under `nice`, and prints the
# executions per target. Needs cargo-fuzz (`cargo install cargo-fuzz`); works on the stable
# toolchain: targets are built without a sanitizer (`-s none`, sanitizers need nightly), and
# RUSTC_BOOTSTRAP=1 lets cargo-fuzz pass its `-Z` flags to the stable compiler.
#
#   fuzz/run.sh 60          # a minute per target
#   fuzz/run.sh 60 document # one target
#
# Seeds are read from fuzz/seeds/<target> (committed); what the fuzzer finds goes to
# fuzz/corpus/<target> (not committed), crashes to fuzz/artifacts/<target>, logs to
# fuzz/logs/<target>.log. Exit status 1 when a target crashed.
set -eu

usage() {
    echo "usage: fuzz/run.sh SECONDS [TARGET...]" >&2
    exit 2
}
[ $# -ge 1 ] || usage
SECONDS_EACH=$1
shift
case $SECONDS_EACH in
'' | *[!0-9]*) usage ;;
esac

cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1
FLAGS="-s none --codegen-units 16"

if [ $# -gt 0 ]; then
    TARGETS=$*
else
    TARGETS=$(cargo fuzz list)
fi

# shellcheck disable=SC2086
nice cargo fuzz build $FLAGS >&2

mkdir -p logs
failed=0
total=0
printf '%-20s %14s %10s  %s\n' target executions exec/s result
for target in $TARGETS; do
    mkdir -p "corpus/$target" "seeds/$target" "artifacts/$target"
    log="logs/$target.log"
    # shellcheck disable=SC2086
    if nice cargo fuzz run $FLAGS "$target" "corpus/$target" "seeds/$target" -- \
        -max_total_time="$SECONDS_EACH" -print_final_stats=1 -timeout=60 \
        -rss_limit_mb=2048 -max_len=65536 >"$log" 2>&1; then
        result=ok
    else
        result="CRASH (see $log and artifacts/$target)"
        failed=1
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    printf '%-20s %14s %10s  %s\n' "$target" "${execs:-0}" "${rate:-0}" "$result"
    total=$((total + ${execs:-0}))
done
printf '%-20s %14s\n' total "$total"
exit $failed
