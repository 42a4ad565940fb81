#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ (json, config, manifest, http, plugin, websocket) with -sanitize=fuzzer,address
# into .build/fuzz, and runs each for a fixed time, seeded from fuzz/corpus/<target>/ (docs/fuzzing.md).
#
#   scripts/fuzz.sh --smoke                 # what CI runs: every target for 5 s, two at a time, seed 1
#   scripts/fuzz.sh --seconds 600 config    # one target for 10 minutes
#   scripts/fuzz.sh --merge --seconds 3600  # an hour each, then the new inputs that add coverage go into fuzz/corpus
#
# Options: --seconds N (default 60; --smoke: 5), --jobs J (targets at once; default: the number of cores, at
# most 2), --merge (minimize what the run found into fuzz/corpus/<target>/ to be committed), --build-only.
# Exit status: 0 when no target found anything; 1 when one crashed, hung (-timeout) or ran out of memory (its
# input is under .build/fuzz/runs/<target>/; replay it with `.build/fuzz/debug/fuzz-<target> FILE`); 64 for bad
# arguments; 2 when the build failed. The last line is a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
source scripts/swift-tmp.sh

all_targets=(json config manifest http plugin websocket)
seconds=60
jobs=$(( $(nproc) < 2 ? $(nproc) : 2 ))
merge=0
build_only=0
seed=0  # libFuzzer's -seed: 0 picks a new one each run; the smoke always uses 1, so CI replays the same inputs
targets=()
usage() { echo "usage: scripts/fuzz.sh [--smoke] [--seconds N] [--jobs J] [--merge] [--build-only] [TARGET...]" >&2; exit 64; }
while [ $# -gt 0 ]; do
    case "$1" in
        --smoke) seconds=5; seed=1 ;;
        --seconds) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || usage; seconds=$2; shift ;;
        --jobs) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || usage; jobs=$2; shift ;;
        --merge) merge=1 ;;
        --build-only) build_only=1 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        -*) usage ;;
        *)
            [[ " ${all_targets[*]} " == *" $1 "* ]] || { echo "fuzz: no target '$1' (targets: ${all_targets[*]})" >&2; exit 64; }
            targets+=("$1") ;;
    esac
    shift
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

# The fuzz products exist only with AUDIOGRAPH_FUZZ=1 (Package.swift). The Swift backtracer is off: it would
# catch the crash before libFuzzer does, and it trips AddressSanitizer.
export AUDIOGRAPH_FUZZ=1 SWIFT_BACKTRACE=enable=no
build_path="$root/.build/fuzz"
start=$SECONDS
for target in "${targets[@]}"; do
    log="$build_path/build-$target.log"
    mkdir -p "$build_path"
    if ! swift build -c debug --build-path "$build_path" -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld \
        --product "fuzz-$target" > "$log" 2>&1; then
        tail -n 40 "$log" >&2
        echo "fuzz: FAILED: fuzz-$target did not build (log: $log)"
        exit 2
    fi
    grep -q "warning:" "$log" && grep "warning:" "$log" | sort -u >&2
done
echo "fuzz: built ${#targets[@]} target(s) in $((SECONDS - start)) s"
[ "$build_only" -eq 0 ] || exit 0

# One run: new inputs go to the run's own folder (the checked-in corpus is only read), artifacts (crash-,
# timeout-, oom-) next to it; prints one line "TARGET STATUS EXECS EXECS_PER_S ARTIFACT".
run_target() {
    local target=$1 run="$build_path/runs/$1"
    rm -rf "$run"
    mkdir -p "$run/new"
    local dict=()
    [ -f "fuzz/dict/$target.dict" ] && dict=("-dict=fuzz/dict/$target.dict")
    local status=0
    "$build_path/debug/fuzz-$target" "$run/new" "fuzz/corpus/$target" "${dict[@]}" -max_total_time="$seconds" -seed="$seed" \
        -timeout=10 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 -artifact_prefix="$run/" \
        > "$run/log" 2>&1 || status=$?
    local execs persec artifact
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log" | tail -n 1)
    persec=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$run/log" | tail -n 1)
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$run/log" | tail -n 1)
    echo "$target $status ${execs:-?} ${persec:-?} ${artifact:--}" > "$run/result"
}

start=$SECONDS
pending=("${targets[@]}")
while [ ${#pending[@]} -gt 0 ]; do
    batch=("${pending[@]:0:$jobs}")
    pending=("${pending[@]:$jobs}")
    for target in "${batch[@]}"; do run_target "$target" & done
    wait
done

failed=()
for target in "${targets[@]}"; do
    read -r name status execs persec artifact < "$build_path/runs/$target/result"
    if [ "$status" -eq 0 ]; then
        echo "fuzz $name: ok, $execs inputs in $seconds s ($persec/s)"
    else
        failed+=("$name")
        echo "fuzz $name: FOUND A PROBLEM (exit $status) after $execs inputs; input: $artifact"
        grep -E -m 12 "ERROR: |Fatal error|fuzz expectation failed|SUMMARY: |deadly signal|timeout after|out-of-memory" \
            "$build_path/runs/$target/log" | sed 's/^/    /'
        echo "    log: $build_path/runs/$target/log; replay: $build_path/debug/fuzz-$name $artifact"
    fi
    if [ "$merge" -eq 1 ] && [ "$status" -eq 0 ]; then
        "$build_path/debug/fuzz-$target" -merge=1 "fuzz/corpus/$target" "$build_path/runs/$target/new" \
            > "$build_path/runs/$target/merge.log" 2>&1
        echo "fuzz $name: fuzz/corpus/$target holds $(ls "fuzz/corpus/$target" | wc -l) inputs after the merge"
    fi
done
if [ ${#failed[@]} -eq 0 ]; then
    echo "fuzz: ${#targets[@]} target(s), ${seconds} s each, nothing found ($((SECONDS - start)) s)"
else
    echo "fuzz: FAILED: ${failed[*]} found a problem (of ${#targets[@]} target(s), ${seconds} s each)"
    exit 1
fi
