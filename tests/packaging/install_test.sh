#!/usr/bin/env bash
# `cmake --install` (what `make install PREFIX=... DESTDIR=...` runs) puts everything under
# DESTDIR/PREFIX and nothing elsewhere.
set -euo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
DESTDIR="$work/dest" cmake --install "$build" --prefix /opt/sa >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
status=0
for f in bin/slurm-advisor share/man/man1/slurm-advisor.1 share/man/man1/slurm-advisor-check.1 \
  share/bash-completion/completions/slurm-advisor share/zsh/vendor-completions/_slurm-advisor \
  share/doc/slurm-advisor/README.md share/doc/slurm-advisor/examples/ci/gitlab-ci.yml; do
  [[ -e "$work/dest/opt/sa/$f" ]] || { echo "FAIL: not installed: /opt/sa/$f"; status=1; }
done
outside=$(find "$work/dest" -mindepth 1 -maxdepth 1 ! -name opt)
[[ -z "$outside" ]] || { echo "FAIL: installed outside the prefix: $outside"; status=1; }
"$work/dest/opt/sa/bin/slurm-advisor" --version >/dev/null || { echo "FAIL: the installed binary does not run"; status=1; }
[[ $status -eq 0 ]] && echo "ok: $(find "$work/dest" -type f | wc -l) files under DESTDIR/opt/sa"
exit $status
