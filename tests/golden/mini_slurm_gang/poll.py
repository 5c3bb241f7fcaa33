#!/usr/bin/env python3
"""poll.py OUTDIR : 1-Hz poller, started/stopped (SIGTERM, by PID) by run_scenario.sh.

Each cycle (aligned to wall-clock second + 0.5 s, so a sample sits between Slurm's whole-second events):
  OUTDIR/poll.psv      every line of  squeue -a -h -o '%i|%P|%u|%q|%T|%M|%r|%N|%S|%p'
                       prefixed with the epoch (ms) at which squeue was started:
                       epoch|jobid|partition|user|qos|state|time_used|reason|nodelist|start|priority(float)
  OUTDIR/poll_jobs.psv a line only when one of these `scontrol -o show job` fields CHANGED for a job:
                       epoch|JobId|JobState|Reason|Restarts|BeginTime|StartTime|EndTime|SuspendTime|SecsPreSuspend|
                       PreemptEligibleTime|PreemptTime|NodeList|Requeue
  OUTDIR/alloc.psv     a line when a job's per-node CPU allocation (from `scontrol -d -o show job`) appears or changes:
                       epoch|JobId|Nodes=..:CPU_IDs=..:Mem=..;...
"""
import os, re, signal, subprocess, sys, time
out = sys.argv[1]
stop = False
def _stop(*_):
    global stop; stop = True
signal.signal(signal.SIGTERM, _stop)
F = ['JobId', 'JobState', 'Reason', 'Restarts', 'BeginTime', 'StartTime', 'EndTime', 'SuspendTime',
     'SecsPreSuspend', 'PreemptEligibleTime', 'PreemptTime', 'NodeList', 'Requeue']
kv = re.compile(r'(?:^| )([A-Za-z]+)=(\S*)')
prev = {}
f1 = open(os.path.join(out, 'poll.psv'), 'a')
f2 = open(os.path.join(out, 'poll_jobs.psv'), 'a')
f3 = open(os.path.join(out, 'alloc.psv'), 'a')
alloc_rx = re.compile(r' Nodes=(\S+) CPU_IDs=(\S+) Mem=(\S+)')
prev_alloc = {}
if f2.tell() == 0:
    f2.write('epoch|' + '|'.join(F) + '\n')
while not stop:
    t = time.time()
    ep = '%.3f' % t
    try:
        sq = subprocess.run(['squeue', '-a', '-h', '-o', '%i|%P|%u|%q|%T|%M|%r|%N|%S|%p'],
                            capture_output=True, text=True, timeout=20).stdout
        for l in sq.splitlines():
            f1.write(ep + '|' + l + '\n')
        if not sq.strip():
            f1.write(ep + '|(none)\n')   # empty queue (lets timeline.py see the last job go)
        f1.flush()
        t2 = time.time()
        sc = subprocess.run(['scontrol', '-d', '-o', 'show', 'job'], capture_output=True, text=True, timeout=20).stdout
        for l in sc.splitlines():
            d = {}
            for k, v in kv.findall(l):
                d.setdefault(k, v)
            if 'JobId' not in d:
                continue
            row = '|'.join(d.get(k, '') for k in F)
            if prev.get(d['JobId']) != row:
                prev[d['JobId']] = row
                f2.write('%.3f|%s\n' % (t2, row))
            al = ';'.join('Nodes=%s:CPU_IDs=%s:Mem=%s' % a for a in alloc_rx.findall(l))
            if al and prev_alloc.get(d['JobId']) != al:
                prev_alloc[d['JobId']] = al
                f3.write('%.3f|%s|%s\n' % (t2, d['JobId'], al))
        f2.flush(); f3.flush()
    except Exception as e:  # keep polling
        f1.write('%s|ERROR|%s\n' % (ep, e))
    now = time.time()
    nxt = int(now) + 1.5 if now - int(now) >= 0.5 else int(now) + 0.5
    while not stop and time.time() < nxt:
        time.sleep(min(0.1, max(0, nxt - time.time())))
