#!/usr/bin/env bash
# run_scenario.sh SCENARIO_DIR : one golden run for the slurm-advisor scheduler engine
#   1. source SCENARIO_DIR/extra/env.sh (mini-slurm tunables: NNODES, PRIO_*, SCHED_PARAMS, PARTS_CONF, EXTRA_CONF)
#   2. /tmp/mini-slurm/mini-slurm.sh up --fresh            (empty DB, empty StateSaveLocation)
#   3. start a 1-Hz poller (extra/poll.psv: epoch|last_tick|squeue %i|%T|%r|%S|%Q), by PID
#   4. run-workload workload.txt from SCENARIO_DIR (JOBMAP=extra/jobmap.tsv); the workload ends with wait-idle
#   5. capture sacct.psv (epoch times), assoc.cfg, qos.psv, slurm.conf, final snapshot, slurmctld log extracts
# The cluster is left up (the next scenario's `up --fresh` or `mini-slurm.sh down` stops it).
set -u
D=$(cd "${1:?usage: run_scenario.sh SCENARIO_DIR}" && pwd)
M=/tmp/mini-slurm
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$D/extra"
LOGF=$D/extra/run.log
: > "$LOGF"
say() { echo "[run $(date +%T) $(date +%s)] $*" | tee -a "$LOGF" >&2; }

# shellcheck disable=SC1091
. "$D/extra/env.sh"
say "scenario $D"
say "env: NNODES=${NNODES:-} NODE_CPUS=${NODE_CPUS:-} PRIO_HALFLIFE=${PRIO_HALFLIFE:-} PRIO_CALC=${PRIO_CALC:-} PRIO_MAXAGE=${PRIO_MAXAGE:-} SCHED_PARAMS=${SCHED_PARAMS:-} PARTS_CONF=${PARTS_CONF:-} EXTRA_CONF=${EXTRA_CONF:-}"

t_up0=$(date +%s.%N)
(cd "$M" && ./mini-slurm.sh up --fresh) > "$D/extra/up.log" 2>&1 || { say "up FAILED"; tail -20 "$D/extra/up.log" >&2; exit 1; }
t_up1=$(date +%s.%N)
export SLURM_CONF=$M/etc/slurm.conf
say "up --fresh done ($t_up0 .. $t_up1)"
scontrol show config > "$D/extra/scontrol_config_at_start.txt" 2>&1
grep -E '^(BOOT_TIME|SchedulerType|SchedulerParameters|PriorityCalcPeriod|PriorityDecayHalfLife|PriorityMaxAge|PriorityWeight|PriorityFlags|SLURM_VERSION)' \
    "$D/extra/scontrol_config_at_start.txt" | tee -a "$LOGF" >&2

# ---- poller (1 Hz), stopped by its PID at the end
(
  while :; do
    e=$(date +%s); tk=$(stat -c %Y "$M/state/priority_last_decay_ran" 2>/dev/null || echo -)
    squeue -a -h -o '%i|%T|%r|%S|%Q' 2>/dev/null | sed "s/^/$e|$tk|/"
    sleep 1
  done
) > "$D/extra/poll.psv" 2>/dev/null &
POLLER=$!
say "poller pid $POLLER"

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
kill "$POLLER" 2>/dev/null; wait "$POLLER" 2>/dev/null

# ---- capture
CLUSTER=$(sed -n 's/^ClusterName=//p' "$SLURM_CONF" | tail -1)
SLURM_TIME_FORMAT=%s sacct -a -P -X --format=JobIDRaw,User,Account,Partition,QOS,Submit,Eligible,Start,End,TimelimitRaw,ElapsedRaw,AllocCPUS,NNodes,ReqCPUS,ReqNodes,ReqMem,State,Priority \
    > "$D/sacct.psv" 2> "$D/extra/sacct.err"
SLURM_TIME_FORMAT=%s sacct -a -P -X --format=JobIDRaw,JobName,User,Flags,NodeList,Start,Reason,ExitCode \
    > "$D/extra/sacct_flags.psv" 2>> "$D/extra/sacct.err"
rm -f "$D/assoc.cfg"
sacctmgr -i dump "$CLUSTER" file="$D/assoc.cfg" > "$D/extra/sacctmgr_dump.out" 2>&1
sacctmgr show qos -P > "$D/qos.psv" 2> "$D/extra/qos.err"
cp "$SLURM_CONF" "$D/slurm.conf"
"$HERE/snap.sh" "$D/extra/snap_final" 2>> "$LOGF"

# ---- slurmctld log extracts (timestamps are UTC ISO8601 with ms; an epoch column is prepended)
L=$M/log/slurmctld.log
to_epoch() {   # prefix each "[YYYY-mm-ddTHH:MM:SS.mmm] ..." line with its epoch (seconds.ms)
    while IFS= read -r line; do
        ts=${line:1:23}
        ep=$(date -u -d "${ts%.*}" +%s 2>/dev/null || echo "?")
        printf '%s.%s\t%s\n' "$ep" "${ts##*.}" "$line"
    done
}
grep -E 'sched: Allocate JobId=|sched/backfill: _start_job: Started JobId=' "$L" | to_epoch > "$D/extra/starts.log"
grep -E '_slurm_rpc_submit_batch_job: JobId=|sched: Allocate JobId=|_start_job: Started JobId=|_job_complete: JobId=[0-9]+ done' "$L" | to_epoch > "$D/extra/events.log"
grep -E 'sched: |sched/backfill|BACKFILL|_slurm_rpc_submit_batch_job|_job_complete: JobId=[0-9]+ done|priority for job|Job [0-9]+ priority:|Weighted|PRIO|_decay|decay' "$L" \
    > "$D/extra/slurmctld_sched.log"
# the JobDesc debug3 dump prints the first submitter environment variables: drop them
sed -E 's/(debug3:    environment=).*/\1(omitted)/' "$L" | gzip -9 > "$D/extra/slurmctld.log.gz"
say "sacct rows: $(($(wc -l < "$D/sacct.psv") - 1)); starts: $(wc -l < "$D/extra/starts.log")"
say "done"
