#!/usr/bin/env python3
"""mkreport.py SCENARIO_DIR : print the markdown job table and per-job reason sequences used in the READMEs.
Sources: extra/jobmap.tsv (line, submit epoch, args), sacct.psv, extra/sacct_flags.psv (SchedMain/SchedBackfill,
NodeList), extra/reason_timeline.tsv (from poll.psv).  Times: epoch (+seconds after the workload start)."""
import sys, os, re, csv
d = sys.argv[1]
t0 = None; jm = {}; rejected = []
for line in open(os.path.join(d, 'extra/jobmap.tsv')):
    m = re.search(r'started (\d+)', line)
    if m: t0 = int(m.group(1)); continue
    if line.startswith('#'): continue
    p = line.rstrip('\n').split('\t')
    if p[1] == 'REJECTED':
        rejected.append(p); continue
    jm[p[1]] = p
def rel(e):
    try: return '%d (+%d)' % (int(e), int(e) - t0)
    except: return e
def psv(path):
    with open(path) as f:
        r = list(csv.reader(f, delimiter='|'))
    return {row[0]: dict(zip(r[0], row)) for row in r[1:]}
sa = psv(os.path.join(d, 'sacct.psv'))
fl = psv(os.path.join(d, 'extra/sacct_flags.psv'))
tl = {}
for row in csv.DictReader(open(os.path.join(d, 'extra/reason_timeline.tsv')), delimiter='\t'):
    tl.setdefault(row['job'], []).append(row)
print('| job | line | user/account | QOS | partition | request (sbatch args) | sleep | submit | start | end | state | started by | nodes |')
print('|---|---|---|---|---|---|---|---|---|---|---|---|---|')
for j in sorted(sa, key=int):
    s = sa[j]; f = fl.get(j, {}); m = jm.get(j, ['?'] * 6)
    by = 'main' if 'SchedMain' in f.get('Flags', '') else ('backfill' if 'SchedBackfill' in f.get('Flags', '') else '-')
    args = re.sub(r'\s+', ' ', m[5]); args = re.sub(r'-A \S+ ?|-p \S+ ?|-q \S+ ?', '', args).strip()
    print('| %s | %s | %s/%s | %s | %s | `%s` | %s | %s | %s | %s | %s | %s | %s |' % (
        j, m[0], s['User'], s['Account'], s['QOS'], s['Partition'], args, m[4], rel(s['Submit']),
        rel(s['Start']) if s['Start'] not in ('None', 'Unknown') else s['Start'], rel(s['End']), s['State'], by, f.get('NodeList', '')))
for p in rejected:
    print('| REJECTED | %s | %s | | | `%s` | %s | %s | - | - | rejected by sbatch | - | - |' % (p[0], p[3], re.sub(r'\s+', ' ', p[5]), p[4], rel(p[2])))
print()
print('Reason sequences (squeue %T/%r from the 1-Hz poll; "@E (+s)" = first poll sample showing it):')
print()
for j in sorted(tl, key=int):
    segs = []
    for r in tl[j]:
        if r['state'] == '(gone)':
            segs.append('gone @%s (%s)' % (r['first_epoch'], r['first_rel']))
        elif r['state'] == 'PENDING':
            segs.append('PENDING `%s` @%s (%s)' % (r['reason'], r['first_epoch'], r['first_rel']))
        else:
            segs.append('%s @%s (%s)' % (r['state'] + ('' if r['reason'] == 'None' else ' `%s`' % r['reason']), r['first_epoch'], r['first_rel']))
    print('- job %s: %s' % (j, ' → '.join(segs)))
