#!/usr/bin/env bash
# Load coverage of lint's default load over every real config in ../shared/corpora/slurm:
# for each config that simulates, the share of offered jobs that started; then the minimum,
# the median, how many are below 80% (and so carry LOAD001) and how many jobs were refused.
# Usage: scripts/corpus_coverage.sh [BUILD_DIR] [DAYS]   (defaults: build, 3)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build}/cli/slurm-advisor
days=${2:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for f in ../shared/corpora/slurm/*; do
  "$bin" lint "$f" --days "$days" --format json --quiet > "$out/$(basename "$f").json" 2>/dev/null || true
done
python3 - "$out" <<'PY'
import glob, json, os, statistics, sys
rows = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    try:
        d = json.load(open(path))
    except ValueError:
        continue
    load = d["summary"].get("load")
    if not load:
        continue
    flagged = any(f["code"] == "LOAD001" for f in d["findings"])
    rows.append((load["coverage"], load["refused"], flagged, os.path.basename(path)[:-5]))
cov = [r[0] for r in rows]
print(f"{len(rows)} configs simulated; coverage min {min(cov):.3f}, median {statistics.median(cov):.3f}; "
      f"{sum(c < 0.8 for c in cov)} below 80% ({sum(r[2] for r in rows)} with LOAD001); "
      f"{sum(r[1] for r in rows)} jobs refused")
for c, refused, flagged, name in sorted(rows)[:10]:
    print(f"  {c:.3f} {'LOAD001' if flagged else '       '} {name}")
PY
