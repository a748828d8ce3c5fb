#!/usr/bin/env bash
# Cold build of a skill author's first program: the README's quickstart as a crate that
# names toolwright and tokio alone (fixtures/outside), beside rmcp's smallest server (one tool
# over stdio, bench/shipped/rmcp-server). Each build starts from an empty target directory,
# debug then release, one after the other; cargo's own default profiles for both (the rmcp
# server's codegen-units setting is overridden to the default). Prints wall and CPU time and
# the number of crates each compiles.
#
#   bench/cold-build/run.sh            # RUNS=1 by default; RUNS=3 keeps each minimum
#
# Sources and registry downloads are fetched before timing; nothing is committed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RUNS="${RUNS:-1}"
OUT="${OUT:-$ROOT/target/cold-build}"
mkdir -p "$OUT"
cp "$ROOT/Cargo.lock" "$ROOT/fixtures/outside/Cargo.lock"
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16

declare -A MANIFEST=(
  [toolwright-quickstart]="$ROOT/fixtures/outside/Cargo.toml"
  [rmcp-smallest-server]="$ROOT/bench/shipped/rmcp-server/Cargo.toml"
)

printf '%-22s %-8s %8s %8s %7s\n' crate profile wall_s cpu_s crates
for name in toolwright-quickstart rmcp-smallest-server; do
  manifest="${MANIFEST[$name]}"
  cargo fetch --manifest-path "$manifest" >/dev/null 2>&1
  for profile in debug release; do
    flag=""; [ "$profile" = release ] && flag="--release"
    best_wall=""; best_cpu=""
    for _ in $(seq 1 "$RUNS"); do
      target="$OUT/$name-$profile"
      rm -rf "$target"
      /usr/bin/time -f '%e %U %S' -o "$OUT/time" \
        cargo build --offline --quiet $flag --manifest-path "$manifest" --target-dir "$target"
      read -r wall user sys <"$OUT/time"
      cpu=$(echo "$user + $sys" | bc)
      if [ -z "$best_wall" ] || (( $(echo "$wall < $best_wall" | bc) )); then
        best_wall=$wall; best_cpu=$cpu
      fi
    done
    # Crates in the build: the program and every package it depends on (normal and build edges).
    crates=$(cargo tree --offline --manifest-path "$manifest" -e normal,build --prefix none \
      | sed 's/ (\*)$//' | sort -u | wc -l)
    printf '%-22s %-8s %8s %8s %7s\n' "$name" "$profile" "$best_wall" "$best_cpu" "$crates"
  done
done
