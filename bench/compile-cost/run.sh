#!/usr/bin/env bash
# Compile cost of a skill: N generated three-argument `#[skill]` fns against the same N fns
# with hand-written serde + schemars input structs, a schema fn and a boxed entry point each
# (the floor). Times `cargo check` and `cargo build --release` of each crate after touching its
# source file, RUNS times each (minimum kept), and prints the ratios.
#
#   bench/compile-cost/run.sh [N]          # N defaults to 100
#   RUNS=5 bench/compile-cost/run.sh 200
#   SKILL_CORE=/tmp/base/skill-core OUT=/tmp/cc-base bench/compile-cost/run.sh
#   MODES=check bench/compile-cost/run.sh  # only `cargo check` (MODES="check release" default)
#   CC_TARGET=/tmp/cc-target ...           # share one target dir between checkouts
#   MODES=icount bench/compile-cost/run.sh  # instructions of one `cargo check` rebuild of each
#                                          # crate, counted by valgrind: exact and unaffected by
#                                          # other load on the machine (takes minutes)
#
# Everything is generated under target/compile-cost/ and never committed.
set -euo pipefail

N="${1:-100}"
RUNS="${RUNS:-3}"
MODES="${MODES:-check release}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/bench/compile-cost"
OUT="${OUT:-$ROOT/target/compile-cost}"
# SKILL_CORE=/path/to/skill-core measures another checkout (e.g. a baseline).
SKILL_CORE="${SKILL_CORE:-$ROOT/skill-core}"

mkdir -p "$OUT/skills/src" "$OUT/floor/src"
cp "$ROOT/Cargo.lock" "$OUT/Cargo.lock"
sed -e "s|@SKILL_CORE@|$SKILL_CORE|" "$HERE/template/Cargo.toml" >"$OUT/Cargo.toml"
sed -e "s|@SKILL_CORE@|$SKILL_CORE|" "$HERE/template/skills.toml" >"$OUT/skills/Cargo.toml"
cp "$HERE/template/floor.toml" "$OUT/floor/Cargo.toml"

# The skills crate: one file of N `#[skill]` fns.
{
    echo "//! Generated: $N skills."
    echo "use toolwright::prelude::*;"
    for i in $(seq 1 "$N"); do
        cat <<RS

/// Looks up the records of set $i that match a query.
#[skill(id = "lookup_$i", category = "query")]
pub async fn lookup_$i(
    /// Text to search for.
    query: String,
    /// How many records to return at most.
    limit: u32,
    /// Whether archived records count too.
    archived: Option<bool>,
) -> Result<String, SkillError> {
    Ok(format!("{query}:{limit}:{archived:?}:$i"))
}
RS
    done
} >"$OUT/skills/src/lib.rs"

# The floor: the same fns with hand-written input structs, and per fn what a hand-written
# tool needs: its schema, and a type-erased entry point that reads the arguments, runs the
# fn and serializes the output (boxed, as a tool table would hold it).
{
    echo "//! Generated: $N hand-written tools (the floor)."
    echo "use schemars::JsonSchema;"
    echo "use serde::Deserialize;"
    echo "use std::future::Future;"
    echo "use std::pin::Pin;"
    echo
    echo "/// A tool call in flight."
    echo "pub type Call = Pin<Box<dyn Future<Output = Result<String, String>> + Send>>;"
    for i in $(seq 1 "$N"); do
        cat <<RS

/// Arguments of lookup_$i.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Lookup${i}Input {
    /// Text to search for.
    pub query: String,
    /// How many records to return at most.
    pub limit: u32,
    /// Whether archived records count too.
    #[serde(default)]
    pub archived: Option<bool>,
}

/// Looks up the records of set $i that match a query.
pub async fn lookup_$i(input: Lookup${i}Input) -> Result<String, String> {
    let Lookup${i}Input { query, limit, archived } = input;
    Ok(format!("{query}:{limit}:{archived:?}:$i"))
}

/// Input schema of lookup_$i.
pub fn lookup_${i}_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Lookup${i}Input)).unwrap()
}

/// Runs one call of lookup_$i.
pub fn lookup_${i}_call(args: String) -> Call {
    Box::pin(async move {
        let input: Lookup${i}Input = serde_json::from_str(&args).map_err(|e| e.to_string())?;
        let out = lookup_$i(input).await?;
        serde_json::to_string(&out).map_err(|e| e.to_string())
    })
}
RS
    done
} >"$OUT/floor/src/lib.rs"

cd "$OUT"
export CARGO_TARGET_DIR="${CC_TARGET:-$OUT/target}"
echo "warming up (dependencies; first run builds toolwright and friends)..." >&2
case " $MODES " in *" check "* | *" icount "*) cargo check --offline -q -p cc-skills -p cc-floor ;; esac
case " $MODES " in *" release "*) cargo build --offline -q --release -p cc-skills -p cc-floor ;; esac

# time_one <package> <cargo args...>: minimum wall time in seconds over RUNS rebuilds.
time_one() {
    local pkg="$1"
    shift
    local dir best=""
    dir="$OUT/${pkg#cc-}"
    for _ in $(seq 1 "$RUNS"); do
        touch "$dir/src/lib.rs"
        local start end t
        start=$(date +%s.%N)
        cargo "$@" --offline -q -p "$pkg"
        end=$(date +%s.%N)
        t=$(echo "$end - $start" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best="$t"; fi
    done
    printf '%.2f' "$best"
}

# icount_one <package>: instructions rustc executes for one `cargo check` rebuild of the
# package after touching its source (the same incremental rebuild `time_one` times).
icount_one() {
    local pkg="$1" dir cmd
    dir="$OUT/${pkg#cc-}"
    touch "$dir/src/lib.rs"
    cmd=$(cargo check --offline -v -p "$pkg" 2>&1 |
        sed -n "s/^ *Running \`\(.*--crate-name ${pkg//-/_} .*\)\`\$/\1/p" | tail -1)
    touch "$dir/src/lib.rs"
    eval "valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null $cmd" 2>&1 |
        sed -n 's/.*I *refs: *//p' | tr -d ,
}

printf '%-28s %10s %10s %8s\n' "N=$N, min of $RUNS" floor toolwright ratio
case " $MODES " in *" check "*)
    check_floor=$(time_one cc-floor check)
    check_skills=$(time_one cc-skills check)
    printf '%-28s %9ss %9ss %7.2fx\n' "cargo check" "$check_floor" "$check_skills" "$(echo "$check_skills / $check_floor" | bc -l)"
    ;;
esac
case " $MODES " in *" release "*)
    release_floor=$(time_one cc-floor build --release)
    release_skills=$(time_one cc-skills build --release)
    printf '%-28s %9ss %9ss %7.2fx\n' "cargo build --release" "$release_floor" "$release_skills" "$(echo "$release_skills / $release_floor" | bc -l)"
    ;;
esac
case " $MODES " in *" icount "*)
    icount_floor=$(icount_one cc-floor)
    icount_skills=$(icount_one cc-skills)
    printf '%-28s %10s %10s %7.3fx\n' "check, instructions (G)" "$(echo "scale=3; $icount_floor / 10^9" | bc -l)" "$(echo "scale=3; $icount_skills / 10^9" | bc -l)" "$(echo "$icount_skills / $icount_floor" | bc -l)"
    ;;
esac
