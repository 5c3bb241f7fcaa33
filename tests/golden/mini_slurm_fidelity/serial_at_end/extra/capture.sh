#!/usr/bin/env bash
# two captures of the serial_at_end scenario, one cluster at a time (run under flock /tmp/mini-slurm.lock);
# the repeat runs from a copy with the same relative layout, its key files go to ../repeat_run/serial_at_end/
set -u
G=$(cd "$(dirname "$0")/../../.." && pwd)
S=serial_at_end
R=/tmp/serial_repeat
rm -rf $R && mkdir -p $R/mini_slurm_fidelity/$S/extra
cp -r "$G/mini_slurm_engine" $R/
cp "$G/mini_slurm_fidelity/run_scenario.sh" $R/mini_slurm_fidelity/
cp "$G/mini_slurm_fidelity/$S/workload.txt" $R/mini_slurm_fidelity/$S/
cp "$G/mini_slurm_fidelity/$S"/extra/{env.sh,EXTRA_CONF.txt,PARTS_CONF.txt,NODES_CONF.txt} $R/mini_slurm_fidelity/$S/extra/
echo "golden start $(date -u +%T)"
"$G/mini_slurm_fidelity/run_scenario.sh" "$G/mini_slurm_fidelity/$S"
echo "golden end $(date -u +%T); repeat start"
$R/mini_slurm_fidelity/run_scenario.sh $R/mini_slurm_fidelity/$S
echo "repeat end $(date -u +%T)"
/tmp/mini-slurm/mini-slurm.sh down
echo "down $(date -u +%T)"
O="$G/mini_slurm_fidelity/repeat_run/$S"
mkdir -p "$O"
cp $R/mini_slurm_fidelity/$S/sacct.psv "$O/"
cp $R/mini_slurm_fidelity/$S/extra/{events.log,jobmap.tsv,poll.psv,run.log,sacct_flags.psv,sacct_text.tsv,slurmctld_timing.log,starts.log} "$O/"
