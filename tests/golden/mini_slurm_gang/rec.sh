#!/usr/bin/env bash
# rec.sh NAME CMD [ARGS...] : run an admin command (scontrol/sacctmgr/...) from a workload `cmd` line and record
# epoch before/after, the command, its exit code and its stdout/stderr verbatim, appended to extra/cmds.log
# (cwd = scenario dir).  stdout alone also goes to extra/cmd_NAME.out.
set -u
name=$1; shift
export SLURM_CONF=/tmp/mini-slurm/etc/slurm.conf
mkdir -p extra
t0=$(date +%s.%N)
o=$(mktemp); e=$(mktemp)
"$@" >"$o" 2>"$e"; rc=$?
t1=$(date +%s.%N)
{
  echo "=== $name"
  echo "epoch_start=$t0"
  echo "epoch_end=$t1"
  printf 'cmd='; printf '%s ' "$@"; echo
  echo "rc=$rc"
  echo "--- stdout"; cat "$o"
  echo "--- stderr"; cat "$e"
  echo "--- end"
} >> extra/cmds.log
cp "$o" "extra/cmd_$name.out"
[ -s "$e" ] && cp "$e" "extra/cmd_$name.err"
rm -f "$o" "$e"
exit 0
