#!/usr/bin/env bash
# The pre-commit hook `slurm-advisor-lint` (.pre-commit-hooks.yaml): lints each file pre-commit
# passes, statically (--no-simulate: well under a second, no simulated evidence) and failing
# only on errors, i.e. what slurmctld would refuse or misread. Policy warnings are left to CI,
# where `lint` and `diff` simulate the site.
#
#   pre-commit-lint.sh [LINT OPTIONS... --] FILE...
#
# Options before a `--` go to every lint (e.g. --assoc sacctmgr_dump.cfg --severity severity.txt
# --fail-on warning); pre-commit appends the file names after the hook's `args`, so `args` that
# end in `--` set them. The binary is $SLURM_ADVISOR, else `slurm-advisor` on PATH.
# Exit status: the highest of the lints' (0 clean, 1 findings at --fail-on, 2 could not run).
set -uo pipefail

options=()
if [[ " $* " == *" -- "* ]]; then
  while [[ $1 != -- ]]; do
    options+=("$1")
    shift
  done
  shift
fi

advisor=${SLURM_ADVISOR:-slurm-advisor}
if ! command -v "$advisor" >/dev/null; then
  echo "pre-commit-lint: '$advisor' not found; install slurm-advisor on PATH or set SLURM_ADVISOR" >&2
  exit 2
fi

# lint refuses a repeated --fail-on, so the hook's default applies only when args give none.
if [[ " ${options[*]} " != *" --fail-on "* ]]; then options+=(--fail-on error); fi

status=0
for file in "$@"; do
  "$advisor" lint "$file" --no-simulate "${options[@]}"
  rc=$?
  if ((rc > status)); then status=$rc; fi
done
exit "$status"
