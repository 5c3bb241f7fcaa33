#!/usr/bin/env bash
# snap.sh DIR : one scheduler snapshot (called from a workload `cmd` line, cwd = scenario dir)
#   - the full mini-slurm snapshot (sprio -l / -l -n / -w / |-separated, sshare -a -l -P, squeue, squeue --start,
#     sacct, scontrol show job -d, sdiag, ...)
#   - squeue_reason.psv : squeue -a -h -o '%i|%u|%a|%P|%q|%T|%r|%S'   (the format asked for by the engine tests)
#   - tick.txt          : epoch now and epoch of the last PriorityCalcPeriod tick (mtime of priority_last_decay_ran)
set -u
D=${1:?usage: snap.sh DIR}
M=/tmp/mini-slurm
export SLURM_CONF=$M/etc/slurm.conf
mkdir -p "$D"
# cheap, time-critical views first (taken within ~0.1 s), then the full snapshot
{
  echo "snap_start_epoch=$(date +%s.%N)"
  echo "last_tick_epoch=$(stat -c %Y "$M/state/priority_last_decay_ran" 2>/dev/null || echo none)"
} > "$D/tick.txt"
squeue -a -h -o '%i|%u|%a|%P|%q|%T|%r|%S' > "$D/squeue_reason.psv" 2>&1
sprio -l > "$D/sprio_l_first.txt" 2>&1
"$M/mini-slurm.sh" snapshot "$D"
{
  echo "snap_end_epoch=$(date +%s.%N)"
  echo "last_tick_epoch_after=$(stat -c %Y "$M/state/priority_last_decay_ran" 2>/dev/null || echo none)"
} >> "$D/tick.txt"
