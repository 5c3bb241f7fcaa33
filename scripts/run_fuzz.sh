#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for FUZZ_SECONDS
# (default 600). New crashers land in fuzz/crashers/; commit them after fixing the bug, and
# tests/fuzz_regression_test.cpp replays them in every `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-600}
build=${FUZZ_BUILD:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSA_FUZZ=ON \
  -DSA_TESTS=OFF -DSA_BENCH=OFF -DSA_WERROR=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target conf_fuzz
corpus=fuzz-corpus/conf
mkdir -p "$corpus" fuzz/crashers
# Seed with every example and real config we have.
cp -n corpora/*/*.conf "$corpus"/ 2>/dev/null || true
if [[ -d ../shared/corpora/slurm ]]; then cp -n ../shared/corpora/slurm/* "$corpus"/ 2>/dev/null || true; fi
"$build/fuzz/conf_fuzz" "$corpus" -max_total_time="$seconds" -max_len=16384 -timeout=10 \
  -artifact_prefix=fuzz/crashers/ -print_final_stats=1 2>&1 | tail -20
