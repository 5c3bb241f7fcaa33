#!/usr/bin/env bash
# The project's own sources pass .clang-tidy. Parsing dominates: about 6 CPU-seconds per
# translation unit (81 took 493 CPU-s), so all ~190 cost some 19 CPU-minutes, too much for
# every CI run on two cores; by default this checks the translation units that changed since
# a base, and those that include a changed header (81 of them, a large branch, took 561 s
# with -j2 on a busy machine; a change to one .cpp takes seconds):
#   SA_TIDY_BASE=REV   the base (default: the merge base with main; on main itself, HEAD~1)
#   SA_TIDY_ALL=1      every translation unit
#   SA_TIDY_JOBS=N     clang-tidy processes at once (default 2)
# Skips (77) when clang-tidy is not installed (scripts/install_deps.sh installs it).
set -euo pipefail
root=$1
build=$2
skip() { echo "SKIP: $*"; exit 77; }
tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
[[ -n "$tidy" ]] || skip "clang-tidy is not installed (scripts/install_deps.sh installs it)"
[[ -f "$build/compile_commands.json" ]] || { echo "FAIL: no $build/compile_commands.json"; exit 1; }
cd "$root"
dirs=(analyzer engine rules report cli tune)
# Every translation unit of the build under those folders (generated ones live in the build tree).
mapfile -t all < <(grep -o '"file": *"[^"]*"' "$build/compile_commands.json" | sed 's/.*"\([^"]*\)"$/\1/' |
  sed "s#^$PWD/##" | grep -E "^($(IFS='|'; echo "${dirs[*]}"))/" | sort -u)
# clang 14 rejects the ANTLR runtime's headers (InterpreterData's default constructor needs
# Vocabulary's, which a const member deletes; g++ accepts it), so the translation units that
# include them cannot be parsed: these three are left out.
antlr_tus='^analyzer/(conf_reader|syntax_errors|assoc_dump_lines)\.cpp$'
mapfile -t all < <(printf '%s\n' "${all[@]}" | grep -vE "$antlr_tus")

changed_since() {
  local base=$1
  { git diff --name-only "$base" -- "${dirs[@]}"; git ls-files --others --exclude-standard -- "${dirs[@]}"; } | sort -u
}

files=()
if [[ "${SA_TIDY_ALL:-0}" == 1 ]] || ! git rev-parse --git-dir >/dev/null 2>&1; then
  files=("${all[@]}")
else
  base=${SA_TIDY_BASE:-$(git merge-base HEAD main 2>/dev/null || true)}
  if [[ -z "$base" || "$base" == "$(git rev-parse HEAD)" ]]; then base=$(git rev-parse HEAD~1 2>/dev/null || true); fi
  [[ -n "$base" ]] || skip "no base to compare with (a single commit); SA_TIDY_ALL=1 checks every file"
  declare -A pick=()
  while read -r f; do
    [[ -f "$f" ]] || continue
    case "$f" in
      *.cpp) pick[$f]=1 ;;
      *.h) while read -r user; do pick[$user]=1; done < <(grep -rlF "#include \"$f\"" "${dirs[@]}" --include='*.cpp' || true) ;;
    esac
  done < <(changed_since "$base")
  for f in "${all[@]}"; do [[ -n "${pick[$f]:-}" ]] && files+=("$f"); done
  echo "checking ${#files[@]} of ${#all[@]} translation units (changed since ${base:0:12})"
fi
((${#files[@]})) || { echo "ok: no translation unit changed"; exit 0; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$SECONDS
# -Wno-unknown-warning-option: the build's g++ flags (-Wno-restrict) are unknown to clang.
status=0
printf '%s\n' "${files[@]}" | xargs -P "${SA_TIDY_JOBS:-2}" -n 4 \
  "$tidy" -p "$build" --quiet --warnings-as-errors='*' --extra-arg=-Wno-unknown-warning-option >"$out" 2>&1 || status=$?
if ((status != 0)) || grep -qE '(warning|error):' "$out"; then
  # The diagnostics with their context, or (a crash, a bad flag) the tail of what it printed.
  if grep -qE '(warning|error):' "$out"; then
    grep -E -A3 '(warning|error):' "$out" | head -200 || true
  else
    tail -40 "$out"
  fi
  echo "FAIL: clang-tidy exited with $status; see above (.clang-tidy lists the checks)"
  exit 1
fi
echo "ok: ${#files[@]} translation units pass .clang-tidy in $((SECONDS - start)) s"
