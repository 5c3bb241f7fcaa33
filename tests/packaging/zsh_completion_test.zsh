#!/usr/bin/env zsh
# The zsh completion at work: an interactive zsh in a pseudo-terminal (zsh/zpty) loads it
# through compinit and completes a command, an option, --format values, rule codes and a file
# name. `slurm-advisor` there is a function that prints its arguments, so a completed line is
# run and read back whole. A case waits up to ten seconds for what it expects.
emulate -L zsh
completion_dir=${1:A}
work=$(mktemp -d)
trap 'rm -rf $work' EXIT
touch $work/site.conf
zmodload zsh/zpty
zpty shell zsh -f -i
zpty -w shell "PS1='> '; cd $work; fpath=($completion_dir \$fpath); autoload -U compinit; compinit -u -D"
zpty -w shell 'slurm-advisor() { print -r -- "ARGS:$*:END" }'
typeset -i cases=0
# wait_for PATTERN: read the terminal until PATTERN shows, for ten seconds at most.
wait_for() {
  local screen chunk
  local -i deadline=$(( SECONDS + 10 ))
  while (( SECONDS < deadline )); do
    while zpty -r -t shell chunk; do screen+=$chunk; done
    [[ $screen == *"$1"* ]] && return 0
    sleep 0.05
  done
  return 1
}
# completes TYPED WANT: TYPED, a tab and Enter run the line; its arguments must be WANT.
completes() {
  zpty -w -n shell "$1"$'\t\n'
  wait_for "ARGS:$2:END" || { print "FAIL: '$1' did not complete to '$2'"; exit 1 }
  (( cases++ ))
}
# lists TYPED WANT: TYPED and a tab list the choices, WANT among them.
lists() {
  zpty -w -n shell "$1"$'\t'
  wait_for "$2" || { print "FAIL: '$1' did not list '$2'"; exit 1 }
  zpty -w -n shell $'\n'  # run it: the function prints its arguments
  wait_for ":END"
  (( cases++ ))
}
completes 'slurm-advisor li' 'lint'
completes 'slurm-advisor lint --fail-o' 'lint --fail-on'
completes 'slurm-advisor check si' 'check site.conf'
lists 'slurm-advisor lint x.conf --format ' 'sarif'
lists 'slurm-advisor rules TIER00' 'TIER002'
zpty -d shell
print "ok: zsh completes $cases cases (a command, an option, --format values, rule codes, a file name)"
