#!/usr/bin/env bash
# run_scenario.sh SCENARIO_DIR : one fidelity capture (issue 21).
#   1. ../mini_slurm_engine/run_scenario.sh SCENARIO_DIR: env.sh -> up --fresh -> 1-Hz poller -> run-workload
#      -> sacct/sacctmgr/slurm.conf/final snapshot/slurmctld log extracts (the cluster is left up)
#   2. then, on the same cluster, the wider accounting this suite needs:
#      - sacct.psv (rewritten): the engine columns + NodeList,NTasks,NCPUS,ReqTRES,AllocTRES,Reason,Flags,ExitCode.
#        Constraints and SubmitLine are NOT in it: sacct -P does not escape '|', and `-C amd|intel` would split
#        the row (22.05 sacct has no Dependency or Licenses column).
#      - extra/sacct_text.tsv: JobIDRaw,State,Reason,NodeList,Constraints,SubmitLine,WorkDir tab-separated
#      - extra/slurmctld_timing.log: main-loop and backfill cycle lines, submit RPCs, allocations, job ends
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
D=$(cd "${1:?usage: run_scenario.sh SCENARIO_DIR}" && pwd)
M=/tmp/mini-slurm
"$HERE/../mini_slurm_engine/run_scenario.sh" "$D" || exit 1
export SLURM_CONF=$M/etc/slurm.conf
COLS=JobIDRaw,JobID,User,Account,Partition,QOS,Submit,Eligible,Start,End,TimelimitRaw,ElapsedRaw,AllocCPUS,NNodes,ReqCPUS,ReqNodes,ReqMem,State,Priority
COLS=$COLS,NodeList,NTasks,NCPUS,ReqTRES,AllocTRES,Reason,Flags,ExitCode
SLURM_TIME_FORMAT=%s sacct -a -P -X --format="$COLS" > "$D/sacct.psv" 2>> "$D/extra/sacct.err"
SLURM_TIME_FORMAT=%s sacct -a -P -X --delimiter=$'\t' \
    --format=JobIDRaw,State,Reason,NodeList,Constraints,SubmitLine,WorkDir > "$D/extra/sacct_text.tsv" 2>> "$D/extra/sacct.err"
# every row of sacct.psv must split into as many fields as its header (see above)
awk -F'|' 'NR==1{n=NF} NF!=n{print FILENAME": line "NR" has "NF" fields, header "n; bad=1} END{exit bad}' "$D/sacct.psv" \
    || echo "WARNING: sacct.psv has a '|' inside a value" >&2
L=$M/log/slurmctld.log
# cycle-level lines only (the SelectType node-by-node lines are in slurmctld.log.gz)
TIMING_RE='Running job scheduler|sched: schedule|backfill: beginning|backfill: completed|BACKFILL: |_slurm_rpc_submit_batch_job|sched: Allocate|_start_job: Started|_job_complete: JobId=[0-9]+ done|release hold|[Dd]ependency|BadConstraints|[Ll]icense|New-Reason'
grep -E "$TIMING_RE" "$L" | sed -E 's/(debug3:    environment=).*/\1(omitted)/' > "$D/extra/slurmctld_timing.log"
echo "[fidelity $(date +%T)] $(($(wc -l < "$D/sacct.psv") - 1)) sacct rows, $(wc -l < "$D/extra/slurmctld_timing.log") timing lines" >&2
