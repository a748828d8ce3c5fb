#!/usr/bin/env bash
# The `clausewright` binary measured as users run it, in one run (BENCHMARKS.md, "The shipped
# binary"): the review of a generated 22,200-clause contract, batches of MCP `tools/call`
# over `serve --stdio` and `serve --http`, each with the binary's default call time limit
# and with the limit off (TOOLWRIGHT_CALL_TIMEOUT_MS=off), against the library's own review
# and a minimal rmcp server (round trips, and the stdio servers' CPU per call); threads
# created, counted with strace.
#
#   bench/shipped/run.sh [OTHER_BINARY ...]
#
# Every OTHER_BINARY (e.g. a build of an older commit, or with another allocator) is
# measured beside target/release/clausewright, rounds interleaved so that load on a shared
# machine falls on all of them alike. Needs python3 and strace. Environment: REPS (rounds,
# default 5), CALLS (MCP calls a batch, default 3000), OUT (work folder, default
# /tmp/toolwright-shipped), NO_BUILD=1 to measure what is built, PARTS (default
# "review threads mcp") to run some of the parts.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
REPS=${REPS:-5}
CALLS=${CALLS:-3000}
OUT=${OUT:-/tmp/toolwright-shipped}
RMCP_TARGET=${RMCP_TARGET:-$OUT/rmcp-target}
mkdir -p "$OUT"

if [ "${NO_BUILD:-0}" != 1 ]; then
    cargo build --release --bin clausewright --example library_review --example mcp_batch
    CARGO_TARGET_DIR="$RMCP_TARGET" cargo build --release \
        --manifest-path bench/shipped/rmcp-server/Cargo.toml
fi
CLAUSEWRIGHT=$ROOT/target/release/clausewright
LIBRARY=$ROOT/target/release/examples/library_review
CLIENT=$ROOT/target/release/examples/mcp_batch
RMCP=$RMCP_TARGET/release/rmcp-stdio-server
BINARIES=("$CLAUSEWRIGHT" "$@")

python3 bench/shipped/contract.py > "$OUT/contract.md"
python3 bench/shipped/contract.py --articles 1 --subs 1 --paragraphs 1 > "$OUT/small.md"
echo "contract: $(wc -c < "$OUT/contract.md") bytes; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# name, then the command; adds "name wall user sys" (seconds) to $OUT/times when the
# command succeeds (a binary without `TOOLWRIGHT_CALL_TIMEOUT_MS=off` is left out of that row).
timed() {
    local name=$1
    shift
    if /usr/bin/time -f "$name %e %U %S" -o "$OUT/time" "$@" > /dev/null 2>&1; then
        cat "$OUT/time" >> "$OUT/times"
    fi
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
# Column $2 of the rows of file $1 named $3 (names hold brackets: no regular expressions).
column() { awk -v name="$3" -v col="$2" '$1 == name {print $col}' "$1"; }
PARTS=${PARTS:-review threads mcp}
part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# --- review -------------------------------------------------------------------------
if part review; then
: > "$OUT/times"
for round in $(seq "$REPS"); do
    i=0
    for bin in "${BINARIES[@]}"; do
        timed "review[$i]-limit" "$bin" review "$OUT/contract.md" --domain fidic --format json --out "$OUT/report.json"
        TOOLWRIGHT_CALL_TIMEOUT_MS=off timed "review[$i]-off" "$bin" review "$OUT/contract.md" --domain fidic --format json --out "$OUT/report.json"
        i=$((i + 1))
    done
    timed library "$LIBRARY" "$OUT/contract.md" "$OUT/report-library.json"
done
echo
echo "review of the 22,200-clause contract, $REPS rounds: median wall / user / sys (s)"
for name in $(cut -d' ' -f1 "$OUT/times" | sort -u); do
    wall=$(column "$OUT/times" 2 "$name" | median)
    user=$(column "$OUT/times" 3 "$name" | median)
    sys=$(column "$OUT/times" 4 "$name" | median)
    echo "  $name  $wall  $user  $sys   (rounds: $(column "$OUT/times" 2 "$name" | tr '\n' ' '))"
done
fi
i=0
for bin in "${BINARIES[@]}"; do echo "  [$i] = $bin"; i=$((i + 1)); done

# --- threads ------------------------------------------------------------------------
threads() {
    strace -f -c -e trace=clone,clone3 -o "$OUT/strace" "$@" > /dev/null 2>&1 || true
    awk '$NF == "clone" || $NF == "clone3" {n += $4} END {print n + 0}' "$OUT/strace"
}
if part threads; then
echo
echo "threads created (clone + clone3 calls, strace -f -c):"
i=0
for bin in "${BINARIES[@]}"; do
    echo "  review[$i] with the limit: $(threads "$bin" review "$OUT/contract.md" --domain fidic --format json --out "$OUT/report.json")"
    i=$((i + 1))
done
echo "  library review: $(threads "$LIBRARY" "$OUT/contract.md" "$OUT/report-library.json")"
fi

# --- MCP ----------------------------------------------------------------------------
part mcp || exit 0
# The binary's most trivial tool: with no criteria loaded it answers that none applies to
# the clause (a few hundred bytes); rmcp's server counts the words of three.
TOOL=load_review_criteria
ARGS='{"clause_id": "1.1.1"}'
echo
echo "MCP tools/call of $TOOL, $CALLS calls a batch after 200 to warm up, $REPS rounds: median of the per-round mean (us)"
: > "$OUT/mcp"
: > "$OUT/mcp-cpu"
# CPU (user + system, µs) of a stdio server's whole run (start included) per timed call.
server_cpu() {
    awk -v name="$1" -v calls="$CALLS" '{printf "%s %.1f\n", name, ($1 + $2) * 1e6 / calls}' "$OUT/server-time" >> "$OUT/mcp-cpu"
}
port=18765
# `serve --http` requires a token on /mcp; the client sends the same one.
export TOOLWRIGHT_TOKEN="bench-token-$(date +%s)-0123456789"
for round in $(seq "$REPS"); do
    i=0
    for bin in "${BINARIES[@]}"; do
        for limit in default off; do
            env=()
            [ "$limit" = off ] && env=(TOOLWRIGHT_CALL_TIMEOUT_MS=off)
            line=$(env "${env[@]}" "$CLIENT" stdio "$CALLS" "$TOOL" "$ARGS" -- /usr/bin/time -f "%U %S" -o "$OUT/server-time" "$bin" serve --stdio --contract "$OUT/small.md" 2> /dev/null || echo "failed")
            [ "$line" != failed ] && echo "stdio[$i]-$limit $(echo "$line" | awk '{print $7}')" >> "$OUT/mcp" && server_cpu "stdio[$i]-$limit"
            port=$((port + 1))
            env "${env[@]}" "$bin" serve --http "127.0.0.1:$port" --no-console --contract "$OUT/small.md" > /dev/null 2>&1 &
            server=$!
            for _ in $(seq 100); do
                (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null && break
                sleep 0.05
            done
            line=$("$CLIENT" http "$CALLS" "$TOOL" "$ARGS" "http://127.0.0.1:$port/mcp" 2> /dev/null || echo "failed")
            kill "$server" 2> /dev/null || true
            wait "$server" 2> /dev/null || true
            [ "$line" != failed ] && echo "http[$i]-$limit $(echo "$line" | awk '{print $7}')" >> "$OUT/mcp"
        done
        i=$((i + 1))
    done
    line=$("$CLIENT" stdio "$CALLS" count_words '{"text": "one two three"}' -- /usr/bin/time -f "%U %S" -o "$OUT/server-time" "$RMCP" 2> /dev/null || echo "failed")
    [ "$line" != failed ] && echo "rmcp-stdio $(echo "$line" | awk '{print $7}')" >> "$OUT/mcp" && server_cpu rmcp-stdio
done
for name in $(cut -d' ' -f1 "$OUT/mcp" | sort -u); do
    echo "  $name  $(column "$OUT/mcp" 2 "$name" | median)   (rounds: $(column "$OUT/mcp" 2 "$name" | tr '\n' ' '))"
done
echo
echo "stdio servers' CPU (user + system, start included) per timed call, median (us):"
for name in $(cut -d' ' -f1 "$OUT/mcp-cpu" | sort -u); do
    echo "  $name  $(column "$OUT/mcp-cpu" 2 "$name" | median)   (rounds: $(column "$OUT/mcp-cpu" 2 "$name" | tr '\n' ' '))"
done
echo
echo "threads created by a server over $CALLS stdio calls:"
i=0
for bin in "${BINARIES[@]}"; do
    echo "  stdio[$i] with the limit: $(threads "$CLIENT" stdio "$CALLS" "$TOOL" "$ARGS" -- "$bin" serve --stdio --contract "$OUT/small.md")"
    i=$((i + 1))
done
echo "  (the count includes the client's one process start)"
