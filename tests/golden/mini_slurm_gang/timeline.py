#!/usr/bin/env python3
"""timeline.py SCENARIO_DIR : derived, human-checkable timelines.  T0 = the earliest Submit in sacct_D_epoch.psv
(= Slurm's submit time of the first job); every *_rel column is seconds after T0.

  timeline.tsv        (from extra/poll.psv[.gz], 1 Hz squeue) one row per run of identical (state, reason) per job:
                      job seg state reason first_epoch last_epoch first_rel last_rel samples nodes used_first used_last
                      A change happened in (previous sample, first_epoch]; '(gone)' = first sample without the job.
  extra/events.tsv    (from extra/ctld_gang.log[.gz], ms precision) the slurmctld events:
                      epoch rel event job detail   with event in submit, start, gang_suspend, gang_resume,
                      preempt_suspend (select chose to suspend it by gang), preempt_requeue, preempt_kill,
                      grace (grace time started), requeue, complete, tick (timeslicer wake-up), cycle (tick that
                      re-ordered a partition)
"""
import csv, gzip, os, re, sys
d = sys.argv[1]
def opn(path):  # plain file, or its .gz (the harness gzips extra/poll.psv and extra/ctld_gang.log after a run)
    if os.path.exists(path):
        return open(path)
    return gzip.open(path + '.gz', 'rt')
t0 = None
for row in csv.DictReader(open(os.path.join(d, 'sacct_D_epoch.psv')), delimiter='|'):
    try:
        s = int(row['Submit'])
        t0 = s if t0 is None else min(t0, s)
    except (ValueError, KeyError):
        pass
rel = lambda e: '' if t0 is None else '%+.1f' % (float(e) - t0)
# ---- squeue segments
polls = {}
order = []
for line in opn(os.path.join(d, 'extra/poll.psv')):
    p = line.rstrip('\n').split('|')
    if len(p) < 2 or p[1] == 'ERROR':
        continue
    e = p[0]
    if e not in polls:
        polls[e] = {}; order.append(e)
    if len(p) >= 11:
        polls[e][p[1]] = p
jobs = sorted({j for e in order for j in polls[e]}, key=lambda x: int(re.sub(r'\D.*', '', x) or 0))
out = ['job\tseg\tstate\treason\tfirst_epoch\tlast_epoch\tfirst_rel\tlast_rel\tsamples\tnodes\tused_first\tused_last']
for j in jobs:
    segs = []; seen = False
    for e in order:
        v = polls[e].get(j)
        if v is None:
            if seen and (not segs or segs[-1][0] != '(gone)'):
                segs.append(['(gone)', '', e, e, 1, '', '', ''])
            elif segs and segs[-1][0] == '(gone)':
                segs[-1][3] = e; segs[-1][4] += 1
            continue
        seen = True
        st, used, rs, nodes = v[5], v[6], v[7], v[8]
        if segs and segs[-1][0] == st and segs[-1][1] == rs:
            segs[-1][3] = e; segs[-1][4] += 1; segs[-1][7] = used
        else:
            segs.append([st, rs, e, e, 1, nodes, used, used])
    for i, s in enumerate(segs, 1):
        out.append('\t'.join(map(str, [j, i, s[0], s[1], s[2], s[3], rel(s[2]), rel(s[3]), s[4], s[5], s[6], s[7]])))
open(os.path.join(d, 'timeline.tsv'), 'w').write('\n'.join(out) + '\n')
# ---- slurmctld events
pats = [
    ('submit', re.compile(r'_slurm_rpc_submit_batch_job: JobId=(\d+)')),
    ('start', re.compile(r'sched: Allocate JobId=(\d+) (.*)')),
    ('start', re.compile(r'_start_job: Started JobId=(\d+) (.*)')),
    ('gang_suspend', re.compile(r'gang: suspending JobId=(\d+)()$')),
    ('gang_resume', re.compile(r'gang: resuming JobId=(\d+)()$')),
    ('preempt_suspend', re.compile(r'preempted JobId=(\d+) suspended by gang scheduler to reclaim resources for (JobId=\d+)')),
    ('preempt_requeue', re.compile(r'preempted JobId=(\d+) has been requeued(.*)')),
    ('preempt_kill', re.compile(r'preempted JobId=(\d+) (?:has been|had to be) killed(.*)')),
    ('grace', re.compile(r'setting (\d+) sec preemption grace time for JobId=(\d+)')),
    ('requeue', re.compile(r'[Rr]equeu\w* JobId=(\d+)(.*)')),
    ('complete', re.compile(r'_job_complete: JobId=(\d+) (done|WEXITSTATUS.*|WTERMSIG.*)')),
    ('tick', re.compile(r'_timeslicer_thread: scanning partitions()()')),
    ('cycle', re.compile(r'gang: entering _cycle_job_list()()')),
]
ev = ['epoch\trel\tevent\tjob\tdetail']
p = os.path.join(d, 'extra/ctld_gang.log')
for line in opn(p) if (os.path.exists(p) or os.path.exists(p + '.gz')) else []:
    ep, raw = line.rstrip('\n').split('\t', 1)
    for name, rx in pats:
        m = rx.search(raw)
        if not m:
            continue
        if name == 'grace':
            job, det = m.group(2), 'grace=%ss' % m.group(1)
        else:
            g = m.groups() + ('',)
            job, det = g[0], (g[1] or '').strip()
        ev.append('\t'.join([ep, rel(ep), name, job, det]))
        break
open(os.path.join(d, 'extra/events.tsv'), 'w').write('\n'.join(ev) + '\n')
print('T0', t0)
print('\n'.join(out))
