#!/usr/bin/env python3
"""mkreport.py SCENARIO_DIR : prints the markdown tables used in the scenario READMEs (T0 = first Slurm Submit).
  1. job table from sacct_D_epoch.psv (+ extra/jobmap.tsv for the workload line / work seconds)
  2. squeue state sequence per job from timeline.tsv (1-Hz samples; '@+x' = first sample showing the state)
  3. slurmctld event list from extra/events.tsv (ms timestamps); timeslicer wake-ups listed on one line
"""
import csv, os, re, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, 'sacct_D_epoch.psv')), delimiter='|'))
t0 = min(int(r['Submit']) for r in rows if r['Submit'].isdigit())
def rel(e):
    try: return '%+d' % (int(float(e)) - t0)
    except ValueError: return e
jm = {}
for line in open(os.path.join(d, 'extra/jobmap.tsv')):
    if line.startswith('#'): continue
    p = line.rstrip('\n').split('\t')
    if p[1] != 'REJECTED': jm[p[1]] = p
print('T0 = %d (%s UTC)\n' % (t0, __import__('time').strftime('%H:%M:%S', __import__('time').gmtime(t0))))
print('| job | line | user | partition | QOS | sbatch args | work s | submit | start | end | state | Elapsed | Suspended | nodes | ReqMem | Flags |')
print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
for r in rows:
    j = r['JobID']; m = jm.get(j, ['?'] * 6)
    args = re.sub(r'\s+', ' ', m[5]).strip()
    print('| %s | %s | %s | %s | %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
        j, m[0], r['User'], r['Partition'], r['QOS'], args, m[4], rel(r['Submit']), rel(r['Start']), rel(r['End']),
        r['State'], r['ElapsedRaw'], r['Suspended'], r['NodeList'], r['ReqMem'], r['Flags']))
print('\nsqueue state sequences (1-Hz poll; `@+s` = first sample showing it, the change happened within the second before):\n')
tl = {}
for r in csv.DictReader(open(os.path.join(d, 'timeline.tsv')), delimiter='\t'):
    tl.setdefault(r['job'], []).append(r)
ab = {'PENDING': 'PD', 'RUNNING': 'R', 'SUSPENDED': 'S', 'COMPLETING': 'CG', '(gone)': 'gone'}
for j in sorted(tl, key=int):
    segs = []
    for r in tl[j]:
        st = ab.get(r['state'], r['state'])
        rs = '' if r['reason'] in ('None', '') or st == 'gone' else '(%s)' % r['reason']
        segs.append('%s%s@%s' % (st, rs, r['first_rel'].split('.')[0]))
    print('- job %s: %s' % (j, ' → '.join(segs)))
print('\nslurmctld events (ms):\n')
ticks = []
print('| t (s) | event | job | detail |\n|---|---|---|---|')
for r in csv.DictReader(open(os.path.join(d, 'extra/events.tsv')), delimiter='\t'):
    if r['event'] == 'tick':
        ticks.append('%+.3f' % (float(r['epoch']) - t0)); continue
    if r['event'] == 'cycle' or (r['event'] == 'complete' and r['detail'] == 'done'):
        continue
    print('| %+.3f | %s | %s | %s |' % (float(r['epoch']) - t0, r['event'], r['job'], r['detail']))
print('\ntimeslicer wake-ups (s after T0): ' + ', '.join(ticks))
