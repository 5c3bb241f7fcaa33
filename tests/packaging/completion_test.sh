#!/usr/bin/env bash
# The bash and zsh completions the build wrote: valid syntax, every command listed, and the
# bash one completing commands, options, --format values, rule codes and file names.
set -euo pipefail
binary=$1 dir=$2
dir=$(cd "$dir" && pwd)
bash_file="$dir/slurm-advisor" zsh_file="$dir/_slurm-advisor"
status=0
fail() { echo "FAIL: $*"; status=1; }
bash -n "$bash_file" || fail "bash -n $bash_file"
command -v zsh >/dev/null || { echo "FAIL: zsh is not installed (scripts/install_deps.sh installs it)"; exit 1; }
zsh -n "$zsh_file" || fail "zsh -n $zsh_file"
commands=$("$binary" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
for c in $commands; do
  grep -q "^    $c)" "$bash_file" || fail "bash completion lacks command $c"
  grep -q "^    $c)" "$zsh_file" || fail "zsh completion lacks command $c"
  grep -q "'$c:" "$zsh_file" || fail "zsh completion does not describe command $c"
done

# Complete as bash would: COMP_WORDS up to the cursor, then the reply.
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _slurm_advisor
           printf "%s\n" "${COMPREPLY[@]}"' _ "$bash_file" "$@"
}
expect() {  # expect WORD -- COMPLETION WORDS...
  local want=$1 offered; shift 2
  # Captured first: grep -q stops reading at its match, and the writer's SIGPIPE would fail the pipeline.
  offered=$(complete_words "$@")
  grep -qx -- "$want" <<<"$offered" || fail "completing '$*' does not offer $want"
}
expect lint -- slurm-advisor li
expect --fail-on -- slurm-advisor lint --fail
expect sarif -- slurm-advisor lint x.conf --format ""
expect BF001 -- slurm-advisor rules BF
expect FAIR006 -- slurm-advisor lint x.conf --disable FAIR
expect --config -- slurm-advisor check --conf
cd "$(dirname "$0")"
expect completion_test.sh -- slurm-advisor check completion_t
[[ -z "$(complete_words slurm-advisor lint --seed "")" ]] || fail "a number option completes to words"
[[ $status -eq 0 ]] && echo "ok: $(wc -w <<<"$commands") commands in both scripts; bash completes options, values, codes and files"
exit $status
