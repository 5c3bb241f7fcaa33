#!/usr/bin/env bash
# at.sh N : (workload `cmd` helper, cwd = scenario dir) sleep until N seconds after the workload start
# (the integer epoch in the header of extra/jobmap.tsv), so that following `cmd` lines run at a known offset.
t0=$(sed -n 's/.*started \([0-9][0-9]*\).*/\1/p' extra/jobmap.tsv | head -1)
now=$(date +%s.%N)
w=$(awk -v a="$t0" -v n="$1" -v b="$now" 'BEGIN{w=a+n-b; printf "%.3f", (w>0?w:0)}')
sleep "$w"
