#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each of FUZZ_TARGETS for
# FUZZ_SECONDS (default 600). New crashers land in fuzz/crashers/<target>/; commit them
# after fixing the bug, and tests/fuzz_regression_test.cpp replays them in every `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-600}
build=${FUZZ_BUILD:-build-fuzz}
targets=${FUZZ_TARGETS:-conf_fuzz dump_fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSA_FUZZ=ON \
  -DSA_TESTS=OFF -DSA_BENCH=OFF -DSA_WERROR=OFF >/dev/null
for target in $targets; do
  cmake --build "$build" -j "$(nproc)" --target "$target"
  corpus=fuzz-corpus/$target
  mkdir -p "$corpus" "fuzz/crashers/$target"
  # Seed with every example and real input we have.
  case $target in
    conf_fuzz) seeds=(corpora/*/*.conf ../shared/corpora/slurm/*) ;;
    dump_fuzz) seeds=(tests/data/fairshare/*/*.cfg tests/data/fairshare/*/*.psv ../shared/corpora/sacctmgr/*) ;;
  esac
  for seed in "${seeds[@]}"; do [[ -f $seed ]] && cp -n "$seed" "$corpus/" 2>/dev/null || true; done
  echo "== $target for ${seconds}s"
  "$build/fuzz/$target" "$corpus" -max_total_time="$seconds" -max_len=16384 -timeout=10 \
    -artifact_prefix="fuzz/crashers/$target/" -print_final_stats=1 2>&1 | tail -8
done
