#!/usr/bin/env bash
# The HTML report's speed goal (issue 7): for a 1,000-node site and a 100,000-job simulation
# the report is under 5 MB and renders in under 2 s in the browser.
#
#   scripts/bench_html.sh [BUILD_DIR]     (default: build)
#
# Generates the site (1,000 nodes in four partitions, 40 accounts x 5 users) and a synthetic
# load of about 100,000 jobs, runs `lint --format html`, and renders the report three times in
# headless Chromium through build/tests/browser/sa_render. "render" is the page's own stamp:
# performance.now() at the first frame after the load event (navigation start to a laid-out,
# painted page); "wall" adds Chromium's start and exit.
set -euo pipefail
build=${1:-build}
advisor=$build/cli/slurm-advisor
render=$build/tests/browser/sa_render
for tool in "$advisor" "$render"; do
  [[ -x $tool ]] || { echo "bench_html: $tool not built (cmake --build $build)" >&2; exit 2; }
done
dir=$(mktemp -d /tmp/sa_bench_html.XXXXXX)
trap 'rm -rf "$dir"' EXIT

cat > "$dir/slurm.conf" <<'EOF'
ClusterName=bench
SlurmctldHost=ctl
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=db
AccountingStorageEnforce=associations,limits,qos
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=3500
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightJobSize=500
PriorityWeightPartition=1000
PriorityWeightQOS=2000
SchedulerParameters=bf_continue,bf_window=2880
NodeName=c[1-1000] CPUs=32 Sockets=2 CoresPerSocket=16 RealMemory=128000
PartitionName=batch Nodes=c[1-1000] Default=YES MaxTime=2-00:00:00
PartitionName=long Nodes=c[1-250] MaxTime=7-00:00:00
PartitionName=debug Nodes=c[1-20] MaxTime=01:00:00 PriorityTier=2
PartitionName=large Nodes=c[501-1000] MaxTime=1-00:00:00
EOF
{
  echo "Cluster - 'bench'"
  echo "Parent - 'root'"
  echo "User - 'root':DefaultAccount='root':Fairshare=1"
  for a in $(seq 0 39); do echo "Account - 'acct$a':Fairshare=$((1 + a % 7))"; done
  for a in $(seq 0 39); do
    echo "Parent - 'acct$a'"
    for u in $(seq 0 4); do echo "User - 'u${a}_$u':DefaultAccount='acct$a':Fairshare=$((1 + u % 3))"; done
  done
} > "$dir/sacctmgr_dump.cfg"
# 100,000 jobs over 14 days (300 an hour, cut at 100,000).
cat > "$dir/profile.txt" <<'EOF'
seed = 7
duration = 14-00:00:00
jobs_per_hour = 300                # about 100,800 over 14 days, capped:
jobs = 100000
daily_cycle = 0.4
cpus = 1:30, 4:20, 16:20, 32:15, 128:10, 512:4, 2048:1
runtime = lognormal 1800 1.2
runtime_max = 2-00:00:00
limit_factor = 1.5 3
limit_round = 900
partition = batch:70, long:10, debug:10, large:10
users = tree
EOF

echo "== lint --format html: 1,000 nodes, 100,000 jobs"
start=$(date +%s.%N)
set +e
"$advisor" lint "$dir/slurm.conf" --assoc "$dir/sacctmgr_dump.cfg" --synthetic "$dir/profile.txt" \
  --format html --output "$dir/report.html"
status=$?
set -e
end=$(date +%s.%N)
((status <= 1)) || { echo "bench_html: lint failed ($status)" >&2; exit 2; }
jobs=$(grep -o '<td>jobs</td><td class="n">[0-9,]*' "$dir/report.html" | grep -o '[0-9,]*$' || true)
size=$(stat -c %s "$dir/report.html")
awk -v s="$start" -v e="$end" -v j="${jobs:-?}" -v b="$size" \
  'BEGIN { printf "lint wall: %.1f s; jobs simulated: %s; report: %d bytes (%.2f MB; goal < 5 MB)\n", e - s, j, b, b / 1048576 }'

echo "== render in headless Chromium (3 runs; goal: render < 2000 ms)"
for i in 1 2 3; do "$render" "$dir/report.html"; done
