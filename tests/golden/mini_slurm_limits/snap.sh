#!/usr/bin/env bash
# snap.sh DIR : one snapshot (called from a workload `cmd` line, cwd = scenario dir)
#   copied from ../mini_slurm_engine/snap.sh and extended for the limits scenarios:
#   - squeue_reason.psv : squeue -a -h -o '%i|%u|%a|%P|%q|%T|%r|%S'   (taken first, within ~0.1 s of snap start)
#   - tick.txt          : epoch now and epoch of the last PriorityCalcPeriod tick
#   - the full mini-slurm snapshot (sprio, sshare, squeue, squeue --start, sacct, scontrol show job/node/part, sdiag, ...)
#   - NEW: scontrol_res.txt (`scontrol show reservation`), scontrol_res_o.txt (`-o`), sinfo_R.txt (`sinfo -R`),
#          sinfo_node_states.psv, assoc_mgr.txt (`scontrol show assoc_mgr`: slurmctld's in-memory limits AND usage),
#          sacctmgr_event.psv (`sacctmgr show event -P`)
set -u
D=${1:?usage: snap.sh DIR}
M=/tmp/mini-slurm
export SLURM_CONF=$M/etc/slurm.conf
mkdir -p "$D"
{
  echo "snap_start_epoch=$(date +%s.%N)"
  echo "last_tick_epoch=$(stat -c %Y "$M/state/priority_last_decay_ran" 2>/dev/null || echo none)"
} > "$D/tick.txt"
squeue -a -h -o '%i|%u|%a|%P|%q|%T|%r|%S' > "$D/squeue_reason.psv" 2>&1
sinfo -N -h -o '%N|%T|%E|%H|%u' > "$D/sinfo_node_states.psv" 2>&1
scontrol show reservation > "$D/scontrol_res.txt" 2>&1
scontrol show reservation -o > "$D/scontrol_res_o.txt" 2>&1
sprio -l > "$D/sprio_l_first.txt" 2>&1
sinfo -R > "$D/sinfo_R.txt" 2>&1
scontrol show assoc_mgr > "$D/assoc_mgr.txt" 2>&1
sacctmgr show event -P > "$D/sacctmgr_event.psv" 2>&1
"$M/mini-slurm.sh" snapshot "$D"
{
  echo "snap_end_epoch=$(date +%s.%N)"
  echo "last_tick_epoch_after=$(stat -c %Y "$M/state/priority_last_decay_ran" 2>/dev/null || echo none)"
} >> "$D/tick.txt"
