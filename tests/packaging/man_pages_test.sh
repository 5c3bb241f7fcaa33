#!/usr/bin/env bash
# The man pages the build wrote: one per command `slurm-advisor --help` lists, plus
# slurm-advisor(1), and groff renders each without a single warning.
set -euo pipefail
binary=$1 man_dir=$2
command -v groff >/dev/null || { echo "FAIL: groff is not installed (scripts/install_deps.sh installs groff-base)"; exit 1; }
status=0
commands=$("$binary" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
[[ -n "$commands" ]] || { echo "FAIL: no commands in slurm-advisor --help"; exit 1; }
for page in slurm-advisor $(printf 'slurm-advisor-%s ' $commands); do
  file="$man_dir/$page.1"
  if [[ ! -s "$file" ]]; then echo "FAIL: no man page $file"; status=1; continue; fi
  warnings=$(groff -man -ww -z "$file" 2>&1 || true)
  if [[ -n "$warnings" ]]; then echo "FAIL: groff warns on $page.1:"; echo "$warnings"; status=1; fi
  # The page documents the options the command takes, from the same definition.
  grep -q '^\.SH OPTIONS' "$file" || { echo "FAIL: $page.1 has no OPTIONS section"; status=1; }
done
grep -q 'fail\\-on' "$man_dir/slurm-advisor-lint.1" || { echo "FAIL: lint's page lacks --fail-on"; status=1; }
grep -q '\.slurm\\-advisor.toml' "$man_dir/slurm-advisor.1" || { echo "FAIL: slurm-advisor.1 lacks FILES"; status=1; }
[[ $status -eq 0 ]] && echo "ok: $(wc -w <<<"$commands") command pages and slurm-advisor.1 render without warnings"
exit $status
