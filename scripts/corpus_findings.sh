#!/usr/bin/env bash
# Findings per severity over every real config in ../shared/corpora/slurm, linted with the
# default load of DAYS days: rule findings and input diagnostics apart, the most repeated
# (code, config) counts, and how many configs repeat one code more than four times.
# Usage: scripts/corpus_findings.sh [BUILD_DIR] [DAYS]   (defaults: build, 1)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build}/cli/slurm-advisor
days=${2:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for f in ../shared/corpora/slurm/*; do
  "$bin" lint "$f" --days "$days" --format json --quiet > "$out/$(basename "$f").json" 2>/dev/null || true
done
"$bin" rules --format json > "$out/rules.txt"
python3 - "$out" <<'PY'
import collections, glob, json, os, sys
rules = {r["code"] for r in json.load(open(os.path.join(sys.argv[1], "rules.txt")))["rules"]}
sev = {"rule": collections.Counter(), "input": collections.Counter()}
over4 = 0
configs = 0
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    try:
        d = json.load(open(path))
    except ValueError:
        continue
    configs += 1
    per_code = collections.Counter(f["code"] for f in d["findings"])
    over4 += any(n > 4 for n in per_code.values())
    for f in d["findings"]:
        sev["rule" if f["code"] in rules else "input"][f["severity"]] += 1
for kind in ("rule", "input"):
    c = sev[kind]
    print(f"{kind} findings: {sum(c.values())} ({c['error']} error, {c['warning']} warning, {c['info']} info)")
print(f"{configs} configs; {over4} repeat one code more than 4 times")
PY
