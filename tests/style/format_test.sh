#!/usr/bin/env bash
# Every C++ source follows .clang-format: clang-format would change nothing. A failure lists
# the files; `clang-format -i FILE` fixes one.
set -euo pipefail
root=$1
command -v clang-format >/dev/null || { echo "FAIL: clang-format is not installed (scripts/install_deps.sh installs it)"; exit 1; }
cd "$root"
mapfile -t files < <(find analyzer engine rules report cli tests bench fuzz -name '*.cpp' -o -name '*.h' | sort)
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  echo "FAIL: ${#bad[@]} file(s) differ from .clang-format:"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "ok: ${#files[@]} files follow .clang-format"
