#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each of FUZZ_TARGETS for
# FUZZ_SECONDS (default 600), one process on one core, without per-input leak checks (they
# cost most of the time on small inputs); a short leak pass (FUZZ_LEAK_SECONDS, default 30)
# follows over the corpus each run grew. New crashers land in fuzz/crashers/<target>/; commit
# them after fixing the bug, and tests/fuzz_regression_test.cpp replays them in `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-600}
leak_seconds=${FUZZ_LEAK_SECONDS:-30}
build=${FUZZ_BUILD:-build-fuzz}
all="conf_fuzz dump_fuzz sshare_fuzz sacct_fuzz swf_fuzz profile_fuzz resv_fuzz events_fuzz lint_fuzz topology_fuzz"
targets=${FUZZ_TARGETS:-$all}
shared=../shared/corpora
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSA_FUZZ=ON \
  -DSA_TESTS=OFF -DSA_BENCH=OFF -DSA_WERROR=OFF >/dev/null

# The first 4 KB of each seed: traces are megabytes, and the runs use inputs up to 4 KB.
seed() { for f in "$@"; do [[ -f $f ]] && head -c 4096 "$f" >"$corpus/seed_$(basename "$f")" || true; done; }

for target in $targets; do
  cmake --build "$build" -j 2 --target "$target"
  corpus=fuzz-corpus/$target
  mkdir -p "$corpus" "fuzz/crashers/$target"
  case $target in
    conf_fuzz) seed corpora/*/*.conf corpora/*/proposed/*.conf $shared/slurm/* ;;
    lint_fuzz) seed corpora/*/slurm.conf tests/data/hostile/slurm.conf ;;
    dump_fuzz) seed corpora/*/sacctmgr_dump.cfg tests/data/fairshare/*/*.cfg $shared/sacctmgr/* ;;
    sshare_fuzz) seed corpora/*/sshare_usage.psv corpora/*/qos.psv tests/data/fairshare/*/*.psv ;;
    sacct_fuzz) seed $shared/workloads/*sacct* tests/golden/mini_slurm_limits/*/sacct.psv ;;
    swf_fuzz) seed $shared/workloads/*.swf ;;
    profile_fuzz) seed corpora/*/profile.txt ;;
    resv_fuzz) seed tests/golden/mini_slurm_limits/reservations/scontrol_show_reservation_*.txt ;;
    events_fuzz) seed tests/golden/mini_slurm_limits/*/sacctmgr_event.psv ;;
    topology_fuzz) seed tests/golden/mini_slurm_fidelity/*/topology.conf corpora/*/topology.conf $shared/slurm/*topology.conf ;;
  esac
  # lint_fuzz runs the whole pipeline on small inputs (2 KB; its harness skips larger ones);
  # the readers' targets take up to 4 KB.
  max_len=4096
  [[ $target == lint_fuzz ]] && max_len=2048
  echo "== $target for ${seconds}s"
  # No leak check and no allocation stack traces per input: together they cost more than the
  # code under test (-detect_leaks=0 also stops libFuzzer re-running each new input to look for
  # leaks). Inputs up to max_len: real configs fit in 4 KB, and small inputs run fast.
  # Entropic scheduling stays on, but a feature counts as rare only until it has been hit 16
  # times (libFuzzer's default is 255): libFuzzer scans its list of rare features once per
  # feature per run, and with the 40,000 to 70,000 features of conf_fuzz and lint_fuzz that
  # list held thousands of entries; the scan was 21 % of conf_fuzz and 58 % of lint_fuzz. Over
  # 60 s from one corpus snapshot the coverage reached was the same (conf_fuzz 7,681 edges with
  # 16, 7,637 with 255; lint_fuzz 13,556 and 13,594).
  # UBSan stops at its first report so that libFuzzer keeps the input as a crasher.
  log=$(mktemp)
  /usr/bin/time -f "cpu_seconds %U %S" -o "$log.time" env ASAN_OPTIONS=detect_leaks=0:malloc_context_size=0 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$build/fuzz/$target" "$corpus" -max_total_time="$seconds" -max_len="$max_len" -detect_leaks=0 \
    -entropic_feature_frequency_threshold=16 \
    -timeout=10 -rss_limit_mb=2048 -artifact_prefix="fuzz/crashers/$target/" -print_final_stats=1 >"$log" 2>&1 || true
  grep -E "INITED|DONE|stat::|Test unit written|ERROR|SUMMARY" "$log" || true
  # libFuzzer's exec/s is per wall second; on a shared machine the rate per CPU second is the
  # one that says what a core does.
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  read -r _ user sys <"$log.time" || true
  awk -v r="${runs:-0}" -v u="${user:-0}" -v s="${sys:-0}" \
    'BEGIN { if (u + s > 0) printf "execs per CPU second: %.0f (%d runs in %.1f CPU s)\n", r / (u + s), r, u + s }'
  rm -f "$log" "$log.time"
  echo "== $target leak pass (${leak_seconds}s)"
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$build/fuzz/$target" "$corpus" -max_total_time="$leak_seconds" -max_len="$max_len" -timeout=10 \
    -artifact_prefix="fuzz/crashers/$target/" -print_final_stats=1 2>&1 |
    grep -E "DONE|stat::average|Test unit written|ERROR|SUMMARY|leak" || true
done
