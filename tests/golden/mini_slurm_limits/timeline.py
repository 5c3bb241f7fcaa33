#!/usr/bin/env python3
"""timeline.py SCENARIO_DIR : derive each job's sequence of (squeue state, reason) from extra/poll.psv.

poll.psv lines: epoch|last_tick|jobid|state|reason|start|priority  (1 Hz squeue -a -h -o '%i|%T|%r|%S|%Q').
Writes extra/reason_timeline.tsv, one row per segment of consecutive identical (state, reason):
  job  seg  state  reason  first_epoch  last_epoch  first_rel  last_rel  samples  start_field_first  start_field_last
first_rel/last_rel are seconds after the workload start (header of extra/jobmap.tsv).  A segment begins at the
first 1-Hz sample that showed it, so the true change happened in (previous sample, first_epoch].
A final row with state '(gone)' gives the first poll epoch at which the job was no longer listed.
"""
import sys, os, re, collections
d = sys.argv[1]
t0 = None
with open(os.path.join(d, 'extra/jobmap.tsv')) as f:
    for line in f:
        m = re.search(r'started (\d+)', line)
        if m:
            t0 = int(m.group(1)); break
polls = collections.OrderedDict()   # epoch -> {job: (state, reason, start)}
with open(os.path.join(d, 'extra/poll.psv')) as f:
    for line in f:
        p = line.rstrip('\n').split('|')
        if len(p) < 7:
            continue
        e = int(p[0]); job = p[2]
        polls.setdefault(e, {})[job] = (p[3], p[4], p[5])
epochs = sorted(polls)
jobs = sorted({j for e in epochs for j in polls[e]}, key=lambda x: int(re.sub(r'\D.*', '', x) or 0))
out = ['job\tseg\tstate\treason\tfirst_epoch\tlast_epoch\tfirst_rel\tlast_rel\tsamples\tstart_field_first\tstart_field_last']
rel = lambda e: '' if t0 is None else '%+d' % (e - t0)
for j in jobs:
    segs = []
    seen = False
    for e in epochs:
        v = polls[e].get(j)
        if v is None:
            if seen and (not segs or segs[-1][0] != '(gone)'):
                segs.append(['(gone)', '', e, e, 1, '', ''])
            elif segs and segs[-1][0] == '(gone)':
                segs[-1][3] = e; segs[-1][4] += 1
            continue
        seen = True
        st, rs, sf = v
        if segs and segs[-1][0] == st and segs[-1][1] == rs:
            segs[-1][3] = e; segs[-1][4] += 1; segs[-1][6] = sf
        else:
            segs.append([st, rs, e, e, 1, sf, sf])
    for i, s in enumerate(segs, 1):
        out.append('\t'.join(map(str, [j, i, s[0], s[1], s[2], s[3], rel(s[2]), rel(s[3]), s[4], s[5], s[6]])))
with open(os.path.join(d, 'extra/reason_timeline.tsv'), 'w') as f:
    f.write('\n'.join(out) + '\n')
print('\n'.join(out))
