#!/usr/bin/env bash
# mk_comparison.sh GOLDEN_SCENARIO_DIR REPEAT_DIR : both runs side by side, per job:
#   start/end in seconds after the workload start (jobmap.tsv header), sacct Priority, Flags (scheduler), NodeList
# then the squeue Reasons each job showed (extra/poll.psv, in order, repeats collapsed) in both runs.
set -u
G=${1:?usage: mk_comparison.sh GOLDEN_DIR REPEAT_DIR}; R=${2:?}
rows() {  # DIR SACCT JOBMAP
  local t0; t0=$(sed -n 's/^# run-workload .* started \([0-9]*\)$/\1/p' "$3")
  awk -F'|' -v t0="$t0" 'NR==1{for(i=1;i<=NF;i++)c[$i]=i; next}
    { s=$c["Start"]; e=$c["End"]; fl=$c["Flags"]; sub(/,StartRecieved/,"",fl); sub(/StartRecieved/,"-",fl)
      printf "%s start=%s end=%s prio=%s %s %s %s\n", $c["JobIDRaw"], (s ~ /^[0-9]+$/ ? "+" s-t0 : s),
             (e ~ /^[0-9]+$/ ? "+" e-t0 : e), $c["Priority"], $c["State"], fl, $c["NodeList"] }' "$2"
}
reasons() {  # POLL -> "job: reason reason ..."
  awk -F'|' '{ if (last[$3] != $5) { r[$3] = r[$3] " " $5; last[$3] = $5 } } END { for (j in r) print j ":" r[j] }' "$1" | sort -n
}
name=$(basename "$G")
echo "== $name   (golden | repeat)"
paste -d'\t' <(rows "$G" "$G/sacct.psv" "$G/extra/jobmap.tsv") <(rows "$R" "$R/sacct.psv" "$R/jobmap.tsv") | column -t -s $'\t'
echo "-- squeue Reasons over time (poll.psv, 1 Hz), golden | repeat"
paste -d'\t' <(reasons "$G/extra/poll.psv") <(reasons "$R/poll.psv") | column -t -s $'\t'
