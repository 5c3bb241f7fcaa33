#!/usr/bin/env bash
# Runs every Google Benchmark program of a Release build and prints the results.
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
for bench in "$build"/bench/*_bench; do
  echo "== $bench"
  "$bench" --benchmark_repetitions="${BENCH_REPETITIONS:-3}" --benchmark_report_aggregates_only=true
done
