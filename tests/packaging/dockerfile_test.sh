#!/usr/bin/env bash
# A hadolint-style check of examples/docker/Dockerfile (hadolint is not packaged in Debian):
# the rules that matter for an image an admin builds from it. Instructions are read with their
# backslash continuations joined.
set -euo pipefail

check() {
file=$1
status=0
fail() { echo "FAIL: $file: $*"; status=1; }
instructions=$(sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' "$file" | grep -Ev '^\s*(#|$)')

# DL3006/DL3007: a base image with an explicit version tag (a point release or a digest), never latest.
from_lines=$(grep -E '^FROM ' <<<"$instructions" || true)
[[ -n "$from_lines" ]] || fail "no FROM"
while read -r _ image _; do
  [[ "$image" =~ @sha256:[0-9a-f]{64}$ || "$image" =~ :[0-9]+\.[0-9]+[A-Za-z0-9._-]*$ ]] ||
    fail "base image '$image' is not pinned to a version tag (e.g. debian:12.11-slim) or a digest"
done <<<"$from_lines"
grep -qiw latest <<<"$instructions" && fail "'latest' is used"

# DL3008-family: apt-get (not apt) with -y and --no-install-recommends, updated and cleaned in the same RUN.
while IFS= read -r run; do
  if grep -Eq '(^|[;&|] *|RUN +)apt +' <<<"$run"; then fail "use apt-get, not apt (DL3027): $run"; fi
  grep -q 'apt-get install' <<<"$run" || continue
  grep -q -- '--no-install-recommends' <<<"$run" || fail "apt-get install without --no-install-recommends (DL3015)"
  grep -Eq -- 'apt-get install (.* )?(-y|--yes|-qq? -y)' <<<"$run" || fail "apt-get install without -y (DL3014)"
  grep -q 'apt-get update' <<<"$run" || fail "apt-get install without apt-get update in the same RUN (DL3009)"
  grep -q 'rm -rf /var/lib/apt/lists/\*' <<<"$run" || fail "apt lists not removed in the same RUN (DL3009)"
  grep -q 'apt-get upgrade\|dist-upgrade' <<<"$run" && fail "apt-get upgrade in an image (DL3005)"
done < <(grep -E '^RUN ' <<<"$instructions")

# DL3002: the last USER is not root.
last_user=$(grep -E '^USER ' <<<"$instructions" | tail -1 | awk '{print $2}' || true)
[[ -n "$last_user" ]] || fail "no USER: the image would run as root"
[[ "$last_user" != root && "$last_user" != 0 && "${last_user%%:*}" != 0 ]] || fail "the last USER is root"

# DL3020: COPY for local files, not ADD. DL3025: JSON form for ENTRYPOINT and CMD.
grep -Eq '^ADD ' <<<"$instructions" && fail "ADD used; COPY local files (DL3020)"
while IFS= read -r line; do
  [[ -z "$line" || "$line" =~ ^(ENTRYPOINT|CMD)\ \[ ]] || fail "not in JSON form (DL3025): $line"
done < <(grep -E '^(ENTRYPOINT|CMD) ' <<<"$instructions" || true)
# DL4006: a pipe in RUN needs SHELL with pipefail.
if grep -Eq '^RUN .* \| ' <<<"$instructions"; then
  grep -q '^SHELL .*pipefail' <<<"$instructions" || fail "a pipe in RUN without SHELL [\"/bin/bash\", \"-o\", \"pipefail\", \"-c\"] (DL4006)"
fi
# DL3000: WORKDIR absolute.
while read -r _ dir; do [[ "$dir" == /* ]] || fail "WORKDIR '$dir' is not absolute (DL3000)"; done \
  < <(grep -E '^WORKDIR ' <<<"$instructions" || true)
return $status
}

dockerfile=$1 doc=$2
check "$dockerfile" || exit 1
grep -q "(../examples/docker/Dockerfile)" "$doc" || { echo "FAIL: $doc does not link the Dockerfile"; exit 1; }
# The checker itself: each defect written into a copy must be caught.
copy=$(mktemp)
trap 'rm -f "$copy"' EXIT
for defect in 's/:12[.0-9]*-slim/:12/' 's/:12[.0-9]*-slim/:latest/' 's/ --no-install-recommends//' \
  's# rm -rf /var/lib/apt/lists/\*##' 's/^USER .*/USER root/' '/^USER/d' 's/apt-get install -y/apt-get install/' \
  's/^COPY/ADD/' 's/^ENTRYPOINT .*/ENTRYPOINT slurm-advisor/' 's/apt-get update/true/'; do
  sed "$defect" "$dockerfile" >"$copy"
  if cmp -s "$copy" "$dockerfile"; then echo "FAIL: the defect '$defect' changes nothing in the Dockerfile"; exit 1; fi
  if check "$copy" >/dev/null; then echo "FAIL: the checker misses the defect '$defect'"; exit 1; fi
done
echo "ok: $dockerfile passes the checks, and the checker catches 10 defects"
