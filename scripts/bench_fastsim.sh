#!/usr/bin/env bash
# Times `slurm-advisor simulate` against HPE FastSim on the same SWF, in one run, on the deep
# queue issue 20 measures (1,000 nodes x 64 CPUs, bf_max_job_test=500: ../shared's perf-site).
# Builds nothing: give it a Release build directory.
#
#   scripts/bench_fastsim.sh BUILD_DIR [JOBS:DAYS[:LOAD%]]...
#
# Each case generates its SWF with make_swf.py (seed 7; its offered load is about 95% of the
# machine); LOAD% other than 95 compresses the arrival times by 95/LOAD. Default cases:
# 2000:1 10000:5 100000:30 10000:5:150. FastSim runs only up to FASTSIM_MAX_JOBS jobs (default
# 10000; it takes about 250 s at 10,000): above that its columns print "-". FASTSIM_DIR
# overrides where FastSim's runner is (default ../shared/tools/fastsim beside the repository).
# Columns: queue depth as the engine's backfill saw it (mean records per cycle) and the most
# jobs pending at once (from the trace), wall seconds of each simulator, FastSim / ours,
# our jobs per second, and our peak RSS (/usr/bin/time -v) per job; then the CPU seconds
# (user + system) of each and their ratio, which a machine shared with other work changes
# less than wall time.
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR [JOBS:DAYS[:LOAD%]]...}" && pwd)
shift
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(2000:1 10000:5 100000:30 10000:5:150)
root=$(cd "$(dirname "$0")/.." && pwd)
fastsim=${FASTSIM_DIR:-$root/../shared/tools/fastsim}
max_fs=${FASTSIM_MAX_JOBS:-10000}
sa=$build/cli/slurm-advisor
[ -x "$sa" ] || { echo "no $sa: build first" >&2; exit 1; }
[ -f "$fastsim/make_swf.py" ] || { echo "no FastSim runner in $fastsim (set FASTSIM_DIR)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# seconds, max RSS (KB), user and system CPU seconds of a command, from GNU time
timed() {
  local out=$1
  shift
  /usr/bin/time -f "%e %M %U %S" -o "$out" "$@"
}

printf "%-8s %-6s %-11s %-10s %-9s %-10s %-7s %-9s %-9s %-8s %-9s %-10s %-7s\n" \
  jobs load% queue_mean queue_max ours_s fastsim_s ratio jobs/s rss_MB KB/job ours_cpu fs_cpu cpu_ratio
for c in "${cases[@]}"; do
  IFS=: read -r jobs days load <<<"$c"
  load=${load:-95}
  swf=$tmp/t$jobs-$load.swf
  python3 "$fastsim/make_swf.py" "$swf.raw" "$jobs" 1000 64 "$days" 7
  # Compress the arrivals for a higher offered load (integer seconds, order kept).
  awk -v f="$(echo "95 / $load" | bc -l)" '/^;/ {print; next} {$2 = int($2 * f); print}' "$swf.raw" >"$swf"
  # Whole runs, far past the step limit that bounds untrusted input (docs/limits.md).
  timed "$tmp/ours.time" "$sa" simulate "$fastsim/perf-site/slurm.conf" --assoc "$fastsim/perf-site/assoc.cfg" \
    --workload "$swf" --format json --progress never --trace "$tmp/trace.csv" --limit sim-steps=1000000000000000 \
    >"$tmp/ours.json"
  read -r ours_s rss_kb ours_u ours_sys <"$tmp/ours.time"
  ours_cpu=$(echo "$ours_u + $ours_sys" | bc -l)
  fs_s=-
  ratio=-
  fs_cpu=-
  cpu_ratio=-
  if [ "$jobs" -le "$max_fs" ]; then
    python3 "$fastsim/swf2fastsim.py" "$swf" "$tmp/fs" "$fastsim/perf-site/slurm.conf" >/dev/null
    PYTHONHASHSEED=0 timed "$tmp/fs.time" /usr/bin/python3 "$fastsim/fastsim_run.py" "$tmp/fs/config.yaml" \
      "$tmp/fs/result.csv" >/dev/null 2>"$tmp/fs.err"
    read -r fs_s _ fs_u fs_sys <"$tmp/fs.time"
    ratio=$(echo "scale=1; $fs_s / $ours_s" | bc -l)
    fs_cpu=$(echo "$fs_u + $fs_sys" | bc -l)
    cpu_ratio=$(echo "scale=1; $fs_cpu / $ours_cpu" | bc -l)
  fi
  python3 - "$tmp/ours.json" "$tmp/trace.csv" "$jobs" "$load" "$ours_s" "$fs_s" "$ratio" "$rss_kb" \
    "$ours_cpu" "$fs_cpu" "$cpu_ratio" <<'EOF'
import csv, json, sys
res, trace, jobs, load, ours, fs, ratio, rss, ours_cpu, fs_cpu, cpu_ratio = sys.argv[1:]
mean = json.load(open(res))["counters"]["bf_mean_queue_depth"]
# Most jobs pending at once: +1 at submit, -1 at start (or at the end of the run).
ev = []
for r in csv.DictReader(open(trace)):
    s = int(r["submit"])
    st = int(r["start"]) if r.get("start") not in (None, "", "-1") else None
    ev.append((s, 1))
    if st is not None:
        ev.append((st, -1))
ev.sort()
depth = peak = 0
for _, d in ev:
    depth += d
    peak = max(peak, depth)
jobs = int(jobs)
print(f"{jobs:<8} {load:<6} {mean:<11.1f} {peak:<10} {float(ours):<9.2f} {fs:<10} {ratio:<7} "
      f"{jobs / max(float(ours), 0.01):<9.0f} {int(rss) / 1024:<9.1f} {int(rss) / jobs:<8.2f} "
      f"{float(ours_cpu):<9.2f} {fs_cpu:<10} {cpu_ratio:<7}")
EOF
done
