#!/usr/bin/env bash
# The anchors harness's compile workload (W4: touch the file of 100 generated three-argument
# tools, rebuild that crate alone) for the no-framework floor, rmcp, this checkout and a
# baseline commit of it, interleaved in one window so their ratios share the machine's load.
# The harness's own run.sh also builds W1-W3 (rig, FastMCP, ...) and runs each framework's
# repetitions back to back; this runs only W4, with the same cargo commands and timer.
#
#   bench/compile-cost/anchors-w4.sh                 # BASE=HEAD~1, REPS=3, release and check
#   BASE=7bdc39f REPS=2 bench/compile-cost/anchors-w4.sh
#   MODES=release bench/compile-cost/anchors-w4.sh
#   ANCHORS=/path/to/anchors bench/compile-cost/anchors-w4.sh   # default ../shared/bench/anchors
#
# Copies of the harness (one per checkout: both runtimes are the package `toolwright`, which
# one lockfile cannot hold twice) and the baseline's sources go under $WORK (default
# /tmp/anchors-w4); all four crates build into one target dir, $WORK/target, without the
# compiler cache (a cached rebuild of an unchanged file would time nothing). The first run
# builds every dependency (minutes); later runs reuse them. Each line gives the wall time (the
# harness's figure) and the CPU time of cargo and rustc (user + system), which other load on
# the machine inflates less than the wall time.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ANCHORS="${ANCHORS:-$ROOT/../shared/bench/anchors}"
WORK="${WORK:-/tmp/anchors-w4}"
BASE="${BASE:-HEAD~1}"
REPS="${REPS:-3}"
MODES="${MODES:-release check}"

[ -f "$ANCHORS/gen.py" ] || { echo "no anchors harness at $ANCHORS (set ANCHORS)" >&2; exit 1; }
base_rev=$(git -C "$ROOT" rev-parse --short "$BASE")
mkdir -p "$WORK"

# The baseline's sources, once per commit.
if [ ! -f "$WORK/base-$base_rev/Cargo.toml" ]; then
    mkdir -p "$WORK/base-$base_rev"
    git -C "$ROOT" archive "$base_rev" | tar -x -C "$WORK/base-$base_rev"
fi

# setup <copy> <project dir>: a copy of the harness whose w4/skillkit builds <project dir>.
setup() {
    local copy="$WORK/$1" project="$2"
    if [ ! -f "$copy/gen.py" ]; then
        cp -r "$ANCHORS" "$copy"
        chmod -R u+w "$copy"
    fi
    "$copy/link-project.sh" "$project" >/dev/null
    (cd "$copy" && python3 gen.py >/dev/null)
}
setup harness-base "$WORK/base-$base_rev"
setup harness-head "$ROOT"
# A package name of its own, so the two builds of the W4 crate never share output names.
sed -i 's/^name = "w4-skillkit"/name = "w4-skillhead"/' "$WORK/harness-head/w4/skillkit/Cargo.toml"

export CARGO_TARGET_DIR="$WORK/target"
unset RUSTC_WRAPPER
# <harness copy>:<w4 folder>:<package>:<label>
ENTRIES=(
    "harness-base:plain:w4-plain:floor"
    "harness-base:rmcp:w4-rmcp:rmcp"
    "harness-base:skillkit:w4-skillkit:toolwright@$base_rev"
    "harness-head:skillkit:w4-skillhead:toolwright@head"
)

echo "warming up (dependencies of each crate)..." >&2
for e in "${ENTRIES[@]}"; do
    IFS=: read -r copy _ pkg _ <<<"$e"
    (cd "$WORK/$copy" && cargo build --release -q -p "$pkg" && cargo check -q -p "$pkg")
done

echo "load before: $(uptime)"
for mode in $MODES; do
    for rep in $(seq "$REPS"); do
        for e in "${ENTRIES[@]}"; do
            IFS=: read -r copy dir pkg label <<<"$e"
            touch "$WORK/$copy/w4/$dir/src/tools.rs"
            if [ "$mode" = release ]; then args=(build --release); else args=(check); fi
            (cd "$WORK/$copy" && /usr/bin/time -f '%e %U %S' -o "$WORK/time" cargo "${args[@]}" -q -p "$pkg")
            read -r wall user sys <"$WORK/time"
            printf '%-8s rep %s  %-22s wall %6.2f s  cpu %6.2f s\n' "$mode" "$rep" "$label" \
                "$wall" "$(echo "$user + $sys" | bc -l)"
        done
    done
done
echo "load after: $(uptime)"
