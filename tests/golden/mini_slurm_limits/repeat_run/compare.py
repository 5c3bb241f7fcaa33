#!/usr/bin/env python3
"""compare.py SCENARIO : compare ../SCENARIO (first run) with ./SCENARIO (repeat) job by job (keyed on workload line).
Per job: start and end in seconds after the workload start, starting scheduler (sacct Flags), NodeList, state, and the
sequence of PENDING reasons from extra/reason_timeline.tsv (consecutive duplicates and 'None' dropped)."""
import sys, os, re, csv
here = os.path.dirname(os.path.abspath(__file__))
def load(d):
    t0 = None; line_of = {}; rej = []
    for l in open(os.path.join(d, 'extra/jobmap.tsv')):
        m = re.search(r'started (\d+)', l)
        if m: t0 = int(m.group(1)); continue
        if l.startswith('#'): continue
        p = l.rstrip('\n').split('\t')
        if p[1] == 'REJECTED': rej.append(p[0]); continue
        line_of[p[1]] = p[0]
    def psv(p):
        r = list(csv.reader(open(p), delimiter='|')); return {x[0]: dict(zip(r[0], x)) for x in r[1:]}
    sa = psv(os.path.join(d, 'sacct.psv')); fl = psv(os.path.join(d, 'extra/sacct_flags.psv'))
    rs = {}
    for row in csv.DictReader(open(os.path.join(d, 'extra/reason_timeline.tsv')), delimiter='\t'):
        if row['state'] == 'PENDING' and row['reason'] != 'None':
            l = rs.setdefault(row['job'], [])
            if not l or l[-1] != row['reason']: l.append(row['reason'])
    out = {}
    for j, s in sa.items():
        rel = lambda e: (int(e) - t0) if e.isdigit() else e
        f = fl.get(j, {}).get('Flags', '')
        by = 'main' if 'SchedMain' in f else ('backfill' if 'SchedBackfill' in f else '-')
        out[line_of.get(j, '?')] = dict(job=j, start=rel(s['Start']), end=rel(s['End']), by=by,
            nodes=fl.get(j, {}).get('NodeList', ''), state=s['State'].split(' ')[0], reasons=rs.get(j, []))
    return out, rej
sc = sys.argv[1]
a, ra = load(os.path.join(here, '..', sc)); b, rb = load(os.path.join(here, sc))
print('# %s: first run (../%s) vs repeat (./%s); times = s after workload start' % (sc, sc, sc))
print('# rejected lines: first %s, repeat %s' % (ra, rb))
print('line\tjob(1st/rep)\tstart(1st/rep)\tend(1st/rep)\tby(1st/rep)\tnodes(1st/rep)\tstate(1st/rep)\treasons_equal\treasons_1st | reasons_rep\tdiffs')
nd = 0
for ln in sorted(set(a) | set(b), key=lambda x: int(x) if x.isdigit() else 0):
    x = a.get(ln); y = b.get(ln)
    if not x or not y:
        print('%s\tmissing in %s' % (ln, 'repeat' if not y else 'first')); nd += 1; continue
    diffs = []
    for k in ('start', 'end'):
        if isinstance(x[k], int) and isinstance(y[k], int):
            if abs(x[k] - y[k]) > 1: diffs.append('%s %+d' % (k, y[k] - x[k]))
        elif x[k] != y[k]: diffs.append(k)
    for k in ('by', 'nodes', 'state', 'job'):
        if x[k] != y[k]: diffs.append(k)
    if x['reasons'] != y['reasons']: diffs.append('reasons')
    nd += bool(diffs)
    print('\t'.join(map(str, [ln, '%s/%s' % (x['job'], y['job']), '%s/%s' % (x['start'], y['start']), '%s/%s' % (x['end'], y['end']),
        '%s/%s' % (x['by'], y['by']), '%s/%s' % (x['nodes'], y['nodes']), '%s/%s' % (x['state'], y['state']),
        x['reasons'] == y['reasons'], '%s | %s' % (','.join(x['reasons']), ','.join(y['reasons'])), '; '.join(diffs) or '-'])))
print('# lines with differences beyond +-1 s, or in scheduler/nodes/state/reasons: %d' % nd)
