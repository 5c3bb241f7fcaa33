#!/usr/bin/env bash
# run_scenario.sh SCENARIO_DIR : one golden run for the limits / reservations / node-event scenarios.
# Adapted copy of ../mini_slurm_engine/run_scenario.sh (the original is unchanged). Differences:
#   - env.sh may also export QOS_FILE / ACCOUNTS_CFG (mini-slurm tunables)
#   - right after `up --fresh`: sacctmgr show assoc -P / show qos -P / scontrol show assoc_mgr, to prove the limits loaded
#   - bin/sbatch wrapper first in PATH: every sbatch call's rc, stdout and stderr are recorded verbatim
#     (extra/sbatch_calls.txt; rejected submissions also in extra/jobmap.tsv as REJECTED)
#   - extra pollers: extra/poll_nodes.psv (1 Hz: epoch|sinfo -N -h -o '%N|%T|%E'), and if POLL_RESV=1 in env.sh
#     extra/poll_resv.txt (1 Hz: epoch|scontrol show reservation -o)
#   - end captures: sacctmgr show event (several forms), scontrol show reservation, sacct -D, log extracts for
#     limits/reservations/nodes, extra/reason_timeline.tsv (timeline.py)
# Steps: 1 source env.sh  2 up --fresh  3 pollers  4 run-workload (cwd = SCENARIO_DIR)  5 wait for empty queue
#        6 captures.  The cluster is left up (the next `up --fresh` or `mini-slurm.sh down` stops it).
set -u
D=$(cd "${1:?usage: run_scenario.sh SCENARIO_DIR}" && pwd)
M=/tmp/mini-slurm
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$D/extra"
# ---- remove the outputs of a previous run (inputs kept: workload.txt, README.md, extra/env.sh, extra/*_CONF.txt,
#      extra/QOS_FILE.txt, extra/ACCOUNTS_CFG.txt); rec.sh and the reservation poller append to their files
find "$D/extra" -mindepth 1 -maxdepth 1 ! -name env.sh ! -name '*_CONF.txt' ! -name QOS_FILE.txt ! -name ACCOUNTS_CFG.txt -exec rm -rf {} +
rm -f "$D/sacct.psv" "$D/assoc.cfg" "$D/qos.psv" "$D/slurm.conf" "$D/assoc_show.psv" "$D/qos_at_start.psv" "$D/sacctmgr_event.psv"
LOGF=$D/extra/run.log
: > "$LOGF"
say() { echo "[run $(date +%T) $(date +%s)] $*" | tee -a "$LOGF" >&2; }

POLL_RESV=0
# shellcheck disable=SC1091
. "$D/extra/env.sh"
say "scenario $D"
say "env: NNODES=${NNODES:-} NODE_CPUS=${NODE_CPUS:-} PRIO_HALFLIFE=${PRIO_HALFLIFE:-} PRIO_CALC=${PRIO_CALC:-} PRIO_MAXAGE=${PRIO_MAXAGE:-} SCHED_PARAMS=${SCHED_PARAMS:-} PARTS_CONF=${PARTS_CONF:-} EXTRA_CONF=${EXTRA_CONF:-} QOS_FILE=${QOS_FILE:-} ACCOUNTS_CFG=${ACCOUNTS_CFG:-}"

t_up0=$(date +%s.%N)
(cd "$M" && ./mini-slurm.sh up --fresh) > "$D/extra/up.log" 2>&1 || { say "up FAILED"; tail -20 "$D/extra/up.log" >&2; exit 1; }
t_up1=$(date +%s.%N)
export SLURM_CONF=$M/etc/slurm.conf
say "up --fresh done ($t_up0 .. $t_up1)"
cp "$M/log/sacctmgr.log" "$D/extra/sacctmgr_setup.log" 2>/dev/null
scontrol show config > "$D/extra/scontrol_config_at_start.txt" 2>&1
grep -E '^(BOOT_TIME|SchedulerType|SchedulerParameters|PriorityCalcPeriod|PriorityDecayHalfLife|PriorityMaxAge|PriorityWeight|PriorityFlags|SLURM_VERSION|AccountingStorageEnforce|EnforcePartLimits)' \
    "$D/extra/scontrol_config_at_start.txt" | tee -a "$LOGF" >&2
# ---- did the limits load?  (slurmdbd view and slurmctld in-memory view)
sacctmgr show assoc -P > "$D/assoc_show.psv" 2> "$D/extra/assoc_show.err"
sacctmgr show assoc tree -P format=Cluster,Account,User,Partition,Share,GrpJobs,GrpTRES,GrpSubmit,GrpTRESRunMins,GrpWall,MaxJobs,MaxTRES,MaxTRESPerNode,MaxSubmit,MaxWall,MaxTRESMins,QOS,DefaultQOS \
    > "$D/extra/assoc_tree_limits.psv" 2>&1
sacctmgr show qos -P > "$D/qos_at_start.psv" 2> "$D/extra/qos_at_start.err"
scontrol show assoc_mgr > "$D/extra/assoc_mgr_at_start.txt" 2>&1
scontrol show partition > "$D/extra/scontrol_parts_at_start.txt" 2>&1

# ---- pollers (1 Hz), stopped by their PIDs at the end
(
  while :; do
    e=$(date +%s); tk=$(stat -c %Y "$M/state/priority_last_decay_ran" 2>/dev/null || echo -)
    squeue -a -h -o '%i|%T|%r|%S|%Q' 2>/dev/null | sed "s/^/$e|$tk|/"
    sleep 1
  done
) > "$D/extra/poll.psv" 2>/dev/null &
POLLER=$!
(
  while :; do
    e=$(date +%s)
    sinfo -N -h -o '%N|%T|%E' 2>/dev/null | sed "s/^/$e|/"
    [ "$POLL_RESV" = 1 ] && scontrol show reservation -o 2>&1 | sed "s/^/$e|/" >> "$D/extra/poll_resv.txt"
    sleep 1
  done
) > "$D/extra/poll_nodes.psv" 2>/dev/null &
POLLER2=$!
say "poller pids $POLLER $POLLER2"

# ---- sbatch wrapper: record every call verbatim
export SBATCH_CALL_DIR=/tmp/mini-slurm-limits-sbatch
rm -rf "$SBATCH_CALL_DIR"; mkdir -p "$SBATCH_CALL_DIR"; chmod 1777 "$SBATCH_CALL_DIR"
export PATH=$HERE/bin:$PATH

say "run-workload start"
(cd "$D" && JOBMAP=$D/extra/jobmap.tsv "$M/mini-slurm.sh" run-workload workload.txt) 2> "$D/extra/workload.log"
say "run-workload end"
end=$(( $(date +%s) + 300 ))
while [ -n "$(squeue -h -o %i)" ]; do
    [ "$(date +%s)" -ge "$end" ] && { say "queue not empty after 300 s"; break; }
    sleep 1
done
say "queue empty"
sleep 2
kill "$POLLER" "$POLLER2" 2>/dev/null; wait "$POLLER" "$POLLER2" 2>/dev/null

# ---- capture
for f in $(ls "$SBATCH_CALL_DIR" | sort -n); do cat "$SBATCH_CALL_DIR/$f"; done > "$D/extra/sbatch_calls.txt"
CLUSTER=$(sed -n 's/^ClusterName=//p' "$SLURM_CONF" | tail -1)
SLURM_TIME_FORMAT=%s sacct -a -P -X --format=JobIDRaw,User,Account,Partition,QOS,Submit,Eligible,Start,End,TimelimitRaw,ElapsedRaw,AllocCPUS,NNodes,ReqCPUS,ReqNodes,ReqMem,State,Priority \
    > "$D/sacct.psv" 2> "$D/extra/sacct.err"
SLURM_TIME_FORMAT=%s sacct -a -P -X --format=JobIDRaw,JobName,User,Flags,NodeList,Start,Reason,ExitCode \
    > "$D/extra/sacct_flags.psv" 2>> "$D/extra/sacct.err"
SLURM_TIME_FORMAT=%s sacct -a -P -X -D --format=JobIDRaw,JobName,User,Account,QOS,Partition,Reservation,State,Reason,Timelimit,TimelimitRaw,Submit,Eligible,Start,End,NodeList,ExitCode \
    > "$D/extra/sacct_D.psv" 2>> "$D/extra/sacct.err"
rm -f "$D/assoc.cfg"
sacctmgr -i dump "$CLUSTER" file="$D/assoc.cfg" > "$D/extra/sacctmgr_dump.out" 2>&1
sacctmgr show qos -P > "$D/qos.psv" 2> "$D/extra/qos.err"
cp "$SLURM_CONF" "$D/slurm.conf"
# node / cluster events as recorded by slurmdbd
{
  echo "### sacctmgr show event -P"; sacctmgr show event -P 2>&1
  echo "### sacctmgr show event -P All_Time"; sacctmgr show event -P All_Time 2>&1
  echo "### sacctmgr show event -P Event=Node All_Time"; sacctmgr show event -P Event=Node All_Time 2>&1
  echo "### sacctmgr show event -P Event=Cluster All_Time"; sacctmgr show event -P Event=Cluster All_Time 2>&1
} > "$D/extra/sacctmgr_event_all.txt"
sacctmgr show event -P > "$D/sacctmgr_event.psv" 2>&1
"$HERE/snap.sh" "$D/extra/snap_final" 2>> "$LOGF"

# ---- slurmctld log extracts (timestamps are UTC ISO8601 with ms; an epoch column is prepended)
L=$M/log/slurmctld.log
to_epoch() {
    while IFS= read -r line; do
        ts=${line:1:23}
        ep=$(date -u -d "${ts%.*}" +%s 2>/dev/null || echo "?")
        printf '%s.%s\t%s\n' "$ep" "${ts##*.}" "$line"
    done
}
grep -E 'sched: Allocate JobId=|sched/backfill: _start_job: Started JobId=' "$L" | to_epoch > "$D/extra/starts.log"
grep -E '_slurm_rpc_submit_batch_job|sched: Allocate JobId=|_start_job: Started JobId=|_job_complete: JobId=[0-9]+ done|exceeded association|acct_policy|job_submit|Requeu|requeue|cancel|_slurm_rpc_kill_job|REQUEST_KILL' "$L" | to_epoch > "$D/extra/events.log"
grep -iE 'reservation|resv' "$L" | grep -v 'debug3:    ' | to_epoch > "$D/extra/resv.log"
grep -iE 'update_node|drain|node_did_resp|set node|down|resum|NODE_FAIL|node_not_resp|_slurm_rpc_update_node' "$L" | grep -v 'debug3:    ' | to_epoch > "$D/extra/nodes.log"
grep -iE 'limit|acct_policy|assoc|qos|deny' "$L" | grep -v 'debug3:    ' | to_epoch > "$D/extra/limits.log"
grep -E 'sched: |sched/backfill|BACKFILL|_slurm_rpc_submit_batch_job|_job_complete: JobId=[0-9]+ done' "$L" \
    > "$D/extra/slurmctld_sched.log"
sed -E 's/(debug3:    environment=).*/\1(omitted)/' "$L" | gzip -9 > "$D/extra/slurmctld.log.gz"
python3 "$HERE/timeline.py" "$D" > /dev/null
say "sacct rows: $(($(wc -l < "$D/sacct.psv") - 1)); starts: $(wc -l < "$D/extra/starts.log"); sbatch calls: $(grep -c '^=== sbatch' "$D/extra/sbatch_calls.txt"), rejected: $(grep -c '^rc=[1-9]' "$D/extra/sbatch_calls.txt")"
say "done"
