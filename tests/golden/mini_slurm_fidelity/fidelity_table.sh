#!/usr/bin/env bash
# fidelity_table.sh BINARY [GOLDEN_DIR...] : replay each mini-slurm capture's sacct.psv through
# `slurm-advisor simulate` with the capture's own slurm.conf, association tree and QOS table (as
# tests/engine_golden_test.cpp loads them: extra/ACCOUNTS_CFG.txt when the scenario loaded its own,
# else assoc.cfg; qos.psv, or the gang captures' header-less extra/qos.psv with a header added),
# then `slurm-advisor compare` the real run with the trace; one markdown row per capture.
# The reservations capture also gets its scontrol_show_reservation_active.txt (--reservations);
# captures with extra/sacct_text.tsv also give their Constraints and SubmitLine (-w, -x,
# --constraint, dependencies, licences, job shapes); nothing else is given (no node events).
set -u
BIN=${1:?usage: fidelity_table.sh BINARY [GOLDEN_DIR...]}; shift
HERE=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- "$HERE"/../mini_slurm*/*/
OUT=${TMPDIR:-/tmp}/sa_fidelity_table; mkdir -p "$OUT"
echo "| scenario | jobs compared | starts within 10 s | mean wait real / sim (s) | p95 wait real / sim (s) | worst group: mean error | backfill share real / sim | node counts (same / more / fewer) |"
echo "|---|---|---|---|---|---|---|---|"
for d in "$@"; do
  d=$(cd "$d" && pwd); [ -f "$d/sacct.psv" ] || continue
  name=$(basename "$(dirname "$d")")/$(basename "$d")
  acct=$d/assoc.cfg; [ -f "$d/extra/ACCOUNTS_CFG.txt" ] && acct=$d/extra/ACCOUNTS_CFG.txt
  load=$d/sacct.psv
  if [ -f "$d/extra/sacct_text.tsv" ]; then
    # The capture keeps Constraints and SubmitLine apart (a '|' in them breaks sacct.psv):
    # joined here into the tab-separated form `sacct --delimiter` writes, which simulate reads.
    load=$OUT/${name//\//_}.joined.tsv
    awk -F'\t' 'NR == FNR { if (FNR > 1) { c[$1] = $5; s[$1] = $6 } next }
      FNR == 1 { gsub(/\|/, "\t"); print $0 "\tConstraints\tSubmitLine"; next }
      { id = $0; sub(/\|.*/, "", id); gsub(/\|/, "\t"); print $0 "\t" c[id] "\t" s[id] }' \
      "$d/extra/sacct_text.tsv" "$d/sacct.psv" > "$load"
  fi
  args=("$d/slurm.conf" --slurm-version 22.05 --workload "$load")
  [ -f "$acct" ] && args+=(--assoc "$acct")
  if [ -f "$d/qos.psv" ]; then args+=(--qos "$d/qos.psv")
  elif [ -f "$d/extra/qos.psv" ]; then
    q=$OUT/${name//\//_}.qos.psv
    { echo "Name|Priority|Preempt|PreemptMode|PreemptExemptTime|GraceTime|Flags"; cat "$d/extra/qos.psv"; } > "$q"
    args+=(--qos "$q")
  fi
  [ -f "$d/scontrol_show_reservation_active.txt" ] && args+=(--reservations "$d/scontrol_show_reservation_active.txt")
  trace=$OUT/${name//\//_}.csv
  "$BIN" simulate "${args[@]}" --trace "$trace" > /dev/null 2> "$OUT/${name//\//_}.sim.err"
  "$BIN" compare "$d/sacct.psv" "$trace" --format json > "$OUT/${name//\//_}.json" 2> "$OUT/${name//\//_}.cmp.err" \
    || { echo "| $name | compare failed (see $OUT/${name//\//_}.cmp.err) |"; continue; }
  jq -r --arg n "$name" '
    def pct: if . == null then "-" else (. * 1000 | round / 10 | tostring) + "%" end;
    def err(e; p): (if e >= 0 then "+" else "" end) + (e | tostring) + " s" + (if p == null then "" else " (" + (if p >= 0 then "+" else "" end) + ((p * 10 | round) / 10 | tostring) + "%)" end);
    .groups[0] as $a | .worst_group as $w |
    "| \($n) | \(.started_both) of \(.jobs_in_both) | \(.within_10s) | \($a.mean_wait_real) / \($a.mean_wait_sim) | \($a.p95_wait_real) / \($a.p95_wait_sim) | " +
    (if $w == null then "-" else "\($w.kind) \($w.key): \(err($w.mean_error_s; $w.mean_error_pct))" end) +
    " | \(.backfill_share.real | pct) / \(.backfill_share.sim | pct) | \(.placement.same_nodes) / \(.placement.more_nodes) / \(.placement.fewer_nodes) |"' \
    "$OUT/${name//\//_}.json"
done
