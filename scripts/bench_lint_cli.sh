#!/usr/bin/env bash
# lint --no-simulate on every real config of ../shared/corpora/slurm through the CLI, as a
# user runs it (process start-up included): the median of 5 runs per file, slowest first.
# The goal is under 100 ms for every file. Usage: scripts/bench_lint_cli.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
bin="$build/cli/slurm-advisor"
for f in ../shared/corpora/slurm/*; do
  times=()
  for _ in 1 2 3 4 5; do
    start=$(date +%s%N)
    "$bin" lint "$f" --no-simulate --format json >/dev/null 2>&1 || true
    times+=($(( ($(date +%s%N) - start) / 1000000 )))
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
  echo "$median ms  $(basename "$f")"
done | sort -rn | head -${TOP:-10}
