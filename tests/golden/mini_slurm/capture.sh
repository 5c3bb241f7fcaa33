#!/usr/bin/env bash
# capture.sh OUTDIR : golden capture for slurm-advisor (run after run-workload, cluster still up)
#   1. wait until the queue is empty (no running/pending jobs)
#   2. wait for the next PriorityCalcPeriod tick (mini-slurm.sh wait-calc)
#   3. immediately, back to back: sshare -a -l -P, sacctmgr dump, sacctmgr show qos -P, sshare -a -P
#   4. re-run sshare -a -l -P and check that it is byte-identical and that no tick happened in between
#   5. sacct, slurm.conf, and a full mini-slurm snapshot into OUTDIR/extra/snap_final
set -u
D=${1:?usage: capture.sh OUTDIR}
M=/tmp/mini-slurm
export SLURM_CONF=$M/etc/slurm.conf
CLUSTER=$(sed -n 's/^ClusterName=//p' "$SLURM_CONF" | tail -1)
mkdir -p "$D/extra"
LOGF=$D/extra/capture.log
: > "$LOGF"
say() { echo "[capture $(date +%T)] $*" | tee -a "$LOGF" >&2; }

say "cluster=$CLUSTER; waiting for empty queue"
end=$(( $(date +%s) + 600 ))
while [ -n "$(squeue -h -o %i)" ]; do
    [ "$(date +%s)" -ge "$end" ] && { say "queue not empty after 600 s"; break; }
    sleep 1
done
say "queue empty: $(squeue -h | wc -l) jobs"
say "waiting for the next decay tick"
"$M/mini-slurm.sh" wait-calc || say "wait-calc FAILED"
TICK=$(stat -c %Y "$M/state/priority_last_decay_ran")
T0=$(date +%s.%N)
sshare -a -l -P > "$D/sshare_long.psv" 2> "$D/extra/sshare_long.err"
rm -f "$D/assoc.cfg"
sacctmgr -i dump "$CLUSTER" file="$D/assoc.cfg" > "$D/extra/sacctmgr_dump.out" 2>&1
sacctmgr show qos -P > "$D/qos.psv" 2> "$D/extra/qos.err"
sshare -a -P > "$D/sshare.psv" 2> "$D/extra/sshare.err"
sshare -a -l -P > "$D/extra/sshare_long_recheck.psv"
T1=$(date +%s.%N)
TICK2=$(stat -c %Y "$M/state/priority_last_decay_ran")
if cmp -s "$D/sshare_long.psv" "$D/extra/sshare_long_recheck.psv"; then same=yes; else same=NO; fi
say "tick at $TICK (after: $TICK2); capture window $T0 .. $T1; sshare_long re-check identical: $same"
say "jobs in queue during capture: $(squeue -h | wc -l)"
{
  echo "decay_tick_epoch=$TICK"
  echo "decay_tick_epoch_after_capture=$TICK2"
  echo "capture_start=$T0"
  echo "capture_end=$T1"
  echo "sshare_long_recheck_identical=$same"
} > "$D/extra/capture_times.txt"
SLURM_TIME_FORMAT=%s sacct -a -X -P --format=JobIDRaw,User,Account,Partition,QOS,Submit,Eligible,Start,End,TimelimitRaw,ElapsedRaw,AllocCPUS,NNodes,ReqCPUS,ReqNodes,ReqMem,State,Priority > "$D/sacct.psv" 2> "$D/extra/sacct.err"
cp "$SLURM_CONF" "$D/slurm.conf"
"$M/mini-slurm.sh" snapshot "$D/extra/snap_final" 2>>"$LOGF"
cp "$M/jobmap.tsv" "$D/extra/jobmap.tsv" 2>/dev/null
say "done: sshare_long rows=$(($(wc -l < "$D/sshare_long.psv") - 1)) sacct jobs=$(($(wc -l < "$D/sacct.psv") - 1))"
