#!/usr/bin/env bash
# `tune --executor slurm --submit` on a REAL Slurm: starts mini-slurm (../shared/tools/mini-slurm:
# slurmctld 22.05 and 8 slurmd on loopback, as root) in a directory of its own, submits the job
# array of tests/data/tune/small.conf in 3 shards, waits for it, merges, and diffs the merged
# report (text and JSON) against a local run of the same options. Exit 77 (ctest SKIP) when
# Slurm cannot be had here: not root, the packages not installed, or the cluster does not come
# up; the reason is printed.
# Usage: tune_slurm_e2e.sh SLURM_ADVISOR SOURCE_DIR SHARED_DIR
set -uo pipefail
binary=$1 source=$2 shared=$3
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
start=$(date +%s)

[[ $(id -u) -eq 0 ]] || skip "mini-slurm runs its daemons as root"
tool=$shared/tools/mini-slurm/mini-slurm.sh
[[ -r $tool ]] || skip "no $tool"
needed=(munged mariadbd mariadb-install-db slurmdbd slurmctld slurmd sbatch squeue sacctmgr)
missing() { local b; for b in "${needed[@]}"; do command -v "$b" >/dev/null || return 0; done; return 1; }
# scripts/install_deps.sh installs them (make test runs it); a test installs nothing itself.
missing && skip "the Slurm packages are not installed (scripts/install_deps.sh installs them)"

# A private copy of the tool and its state, on ports of our own, so a mini-slurm someone runs in
# /tmp/mini-slurm is left alone. Only root's association is created: no unix users are added.
work=$(mktemp -d /tmp/sa-tune-e2e.XXXXXX) || fail "mktemp"
chmod 755 "$work"  # munged wants every directory above its socket searchable
cp "$tool" "$work/mini-slurm.sh"
export ORACLE_DIR=$work/oracle SIM_USERS=root MYSQL_PORT=33406 DBD_PORT=16919 CTLD_PORT=16917 SLURMD_PORT_BASE=17200
export NNODES=4 SCHED_PARAMS=bf_interval=1,sched_interval=1
cat >"$work/accounts.cfg" <<'EOF'
Cluster - 'sim':DefaultQOS='normal':Fairshare=1:QOS='normal'
Parent - 'root'
User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1
EOF
echo "modify qos where name=normal set priority=100" >"$work/qos.txt"
export ACCOUNTS_CFG=$work/accounts.cfg QOS_FILE=$work/qos.txt
cleanup() {
  timeout 120 "$work/mini-slurm.sh" clean >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM  # a ctest timeout still stops the daemons, through the EXIT trap
if ! timeout 120 "$work/mini-slurm.sh" up >"$work/up.log" 2>&1; then
  tail -15 "$work/up.log"
  skip "mini-slurm did not come up (log above)"
fi
export SLURM_CONF=$ORACLE_DIR/etc/slurm.conf
echo "mini-slurm up after $(($(date +%s) - start)) s"

args=(tune "$source/tests/data/tune/small.conf" --goal 'backfill_share>=5%' --goal 'starved==0' --seeds 2
  --days 1 --vary SchedulerType=sched/builtin,sched/backfill,sched/bogus --vary bf_window=30,240)
"$binary" "${args[@]}" >"$work/local.txt"
"$binary" "${args[@]}" --format json >"$work/local.json"
run="$work/array run's dir"  # a space and a quote: the script must quote them
"$binary" "${args[@]}" --executor slurm --shards 3 --out "$run" --submit >"$work/submit.txt" ||
  fail "tune --executor slurm --submit: $(cat "$work/submit.txt")"
cat "$work/submit.txt"
job=$(sed -n 's/^submitted job array \([0-9]*\) .*/\1/p' "$work/submit.txt")
[[ -n $job ]] || fail "no job id in the output above"

deadline=$(($(date +%s) + 90))
while [[ -n $(squeue -h -j "$job" -o %i 2>/dev/null) ]]; do
  [[ $(date +%s) -lt $deadline ]] || { squeue -j "$job"; fail "job array $job still queued or running after 90 s"; }
  sleep 1
done
sacct -j "$job" -X -n -P -o JobID,State,ExitCode 2>/dev/null
echo "job array $job finished after $(($(date +%s) - start)) s"

"$binary" tune --merge "$run" >"$work/merged.txt" 2>"$work/merge.err" || {
  cat "$work/merge.err" "$run"/logs/*.log
  fail "tune --merge"
}
"$binary" tune --merge "$run" --format json >"$work/merged.json" || fail "tune --merge --format json"
diff -u "$work/local.txt" "$work/merged.txt" || fail "the merged text report differs from the local one"
cmp "$work/local.json" "$work/merged.json" || fail "the merged JSON differs from the local one"
echo "ok: 3 shards on Slurm merged into the local report (text and JSON identical), $(($(date +%s) - start)) s"
