#!/usr/bin/env bash
# run_scenario.sh SCENARIO_DIR : one golden gang-scheduling / preemption run on mini-slurm (real Slurm 22.05.8).
# Adapted from ../mini_slurm_limits/run_scenario.sh (unchanged). Steps:
#   1 source SCENARIO_DIR/extra/env.sh (NNODES, NODE_CPUS, NODE_MEM, NODES_CONF, PARTS_CONF, EXTRA_CONF, QOS_FILE,
#     ACCOUNTS_CFG, SCHED_PARAMS)   2 mini-slurm.sh up --fresh (a refused config is recorded in extra/up.log and
#     extra/slurmctld_refused.log, then exit 1)   3 poll.py (1 Hz squeue + scontrol-change log)
#   4 run-workload workload.txt (cwd = SCENARIO_DIR, bin/sbatch wrapper first in PATH)   5 wait for an empty queue
#   6 captures: sacct (text + epoch, with -D duplicates = requeue history), final `scontrol show job -o`,
#     config lines, slurmctld log extracts (logx.py), timeline (timeline.py); then gzip the bulky raw files
#     (extra/poll.psv, extra/ctld_gang.log, extra/scontrol_config.txt, ...).
# The cluster is left up (the next `up --fresh` or `mini-slurm.sh down` stops it).
set -u
D=$(cd "${1:?usage: run_scenario.sh SCENARIO_DIR}" && pwd)
M=/tmp/mini-slurm
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$D/extra"
# remove outputs of a previous run (inputs kept: workload.txt, README.md, extra/env.sh, extra/*_CONF.txt,
# extra/QOS_FILE.txt, extra/ACCOUNTS_CFG.txt)
find "$D/extra" -mindepth 1 -maxdepth 1 ! -name env.sh ! -name '*_CONF.txt' ! -name QOS_FILE.txt ! -name ACCOUNTS_CFG.txt -exec rm -rf {} +
rm -f "$D"/sacct*.psv "$D/slurm.conf" "$D/config_lines.txt" "$D/timeline.tsv" "$D/poll.psv" "$D/poll_jobs.psv" "$D/ctld_start.txt"
LOGF=$D/extra/run.log
: > "$LOGF"
say() { echo "[run $(date +%T) $(date +%s)] $*" | tee -a "$LOGF" >&2; }
# shellcheck disable=SC1091
. "$D/extra/env.sh"
say "scenario $D"
say "env: NNODES=${NNODES:-} NODE_CPUS=${NODE_CPUS:-} NODE_MEM=${NODE_MEM:-} NODES_CONF=${NODES_CONF:-} PARTS_CONF=${PARTS_CONF:-} EXTRA_CONF=${EXTRA_CONF:-} QOS_FILE=${QOS_FILE:-} ACCOUNTS_CFG=${ACCOUNTS_CFG:-} SCHED_PARAMS=${SCHED_PARAMS:-}"
[ "$(md5sum < $M/mini-slurm.sh)" = "$(md5sum < /work/shared/tools/mini-slurm/mini-slurm.sh)" ] || { say "mini-slurm.sh differs from the shared copy"; exit 1; }

t_up0=$(date +%s.%N)
if ! (cd "$M" && ./mini-slurm.sh up --fresh) > "$D/extra/up.log" 2>&1; then
    say "up FAILED"; tail -20 "$D/extra/up.log" >&2
    cp "$M/etc/slurm.conf" "$D/slurm.conf" 2>/dev/null
    grep -vE 'environment=' "$M/log/slurmctld.log" 2>/dev/null | tail -60 > "$D/extra/slurmctld_refused.log"
    tail -40 "$M/log/slurmctld.out" > "$D/extra/slurmctld_refused.out" 2>/dev/null
    exit 1
fi
t_up1=$(date +%s.%N)
export SLURM_CONF=$M/etc/slurm.conf
say "up --fresh done ($t_up0 .. $t_up1)"
cp "$M/etc/slurm.conf" "$D/slurm.conf"
cp "$M/log/sacctmgr.log" "$D/extra/sacctmgr_setup.log" 2>/dev/null
scontrol show config > "$D/extra/scontrol_config.txt" 2>&1
grep -E '^(BOOT_TIME|SLURM_VERSION|Select|Preempt|SchedulerTimeSlice|SchedulerType|SchedulerParameters|TaskPlugin|DebugFlags|SlurmctldDebug|DefMem|MaxMem|JobRequeue|KillWait|OverTimeLimit|PriorityType|ProctrackType|AuthInfo)' \
    "$D/extra/scontrol_config.txt" > "$D/config_lines.txt"
cat "$D/config_lines.txt" >> "$LOGF"
scontrol show partition > "$D/extra/scontrol_partitions.txt" 2>&1
scontrol show node > "$D/extra/scontrol_nodes_start.txt" 2>&1
sacctmgr -n -P show qos format=Name,Priority,Preempt,PreemptMode,PreemptExemptTime,GraceTime,Flags > "$D/extra/qos.psv" 2>&1

# ---- poller (1 Hz), stopped by its PID at the end
python3 "$HERE/poll.py" "$D/extra" 2>> "$LOGF" &
POLLER=$!
say "poller pid $POLLER"

export SBATCH_CALL_DIR=/tmp/mini-slurm-gang-sbatch
rm -rf "$SBATCH_CALL_DIR"; mkdir -p "$SBATCH_CALL_DIR"; chmod 1777 "$SBATCH_CALL_DIR"
export PATH=$HERE/bin:$PATH
say "run-workload start"
(cd "$D" && JOBMAP=$D/extra/jobmap.tsv "$M/mini-slurm.sh" run-workload workload.txt) 2> "$D/extra/workload.log"
say "run-workload end"
end=$(( $(date +%s) + ${MAX_WAIT:-300} ))
while [ -n "$(squeue -h -o %i)" ]; do
    [ "$(date +%s)" -ge "$end" ] && { say "queue not empty after ${MAX_WAIT:-300} s"; break; }
    sleep 1
done
say "queue empty"
sleep 3
kill "$POLLER" 2>/dev/null; wait "$POLLER" 2>/dev/null

# ---- captures
for f in $(ls "$SBATCH_CALL_DIR" | sort -n); do cat "$SBATCH_CALL_DIR/$f"; done > "$D/extra/sbatch_calls.txt"
FMT=JobID,JobName,Partition,User,QOS,State,Submit,Eligible,Start,End,Elapsed,ElapsedRaw,Suspended,Timelimit,NodeList,AllocCPUS,NNodes,ReqMem,Priority,Flags,ExitCode,Comment
sacct -a -X -P --format=$FMT > "$D/sacct.psv" 2> "$D/extra/sacct.err"
SLURM_TIME_FORMAT=%s sacct -a -X -P --format=$FMT > "$D/sacct_epoch.psv" 2>> "$D/extra/sacct.err"
# -D: one row per run of a requeued job (the requeue history; 22.05 sacct has no Restarts field)
SLURM_TIME_FORMAT=%s sacct -a -X -P -D --format=$FMT > "$D/sacct_D_epoch.psv" 2>> "$D/extra/sacct.err"
scontrol -o show job > "$D/extra/scontrol_show_job_final.txt" 2>&1
python3 "$HERE/logx.py" "$M/log/slurmctld.log" "$D"
# the whole slurmctld log minus the 1-Hz poller's RPC noise and job environment dumps
grep -vE 'REQUEST_JOB_INFO|REQUEST_PARTITION_INFO|_slurm_rpc_dump|environment=' "$M/log/slurmctld.log" | gzip -9 > "$D/extra/slurmctld.log.gz"
cp "$D/extra/ctld_start.txt" "$D/ctld_start.txt"
python3 "$HERE/timeline.py" "$D" > /dev/null
# keep the folder small: the raw poll and the log extract are read back transparently by timeline.py
gzip -9f "$D/extra/poll.psv" "$D/extra/ctld_gang.log" "$D/extra/scontrol_config.txt" "$D/extra/scontrol_nodes_start.txt" "$D/extra/sacctmgr_setup.log" 2>/dev/null
say "sacct rows: $(($(wc -l < "$D/sacct.psv") - 1)); sbatch calls: $(grep -c '^=== sbatch' "$D/extra/sbatch_calls.txt"), rejected: $(grep -c '^rc=[1-9]' "$D/extra/sbatch_calls.txt")"
say "done"
