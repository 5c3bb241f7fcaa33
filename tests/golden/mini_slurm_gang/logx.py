#!/usr/bin/env python3
"""logx.py SLURMCTLD_LOG SCENARIO_DIR : trimmed slurmctld log extracts (an epoch column with ms is prepended;
the log's ISO-8601 timestamps are UTC on this VM).
  extra/ctld_gang.log   every line about gang scheduling / preemption / suspend / resume / requeue / grace /
                        job start, completion, signal and kill (the lines a simulator must reproduce)
  extra/ctld_start.txt  the slurmctld start line, the gang init lines and the timeslicer loop start (phase)
"""
import re, sys, os, calendar, time
log, d = sys.argv[1], sys.argv[2]
ts = re.compile(r'^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{3})\] (.*)$')
keep = re.compile(r'gang|GANG|[Pp]reempt|PREEMPT|[Ss]uspend|SUSPEND|[Rr]esum|[Rr]equeue|REQUEUE|[Gg]race|exempt|'
                  r'sched: Allocate JobId|_start_job: Started JobId|_job_complete: JobId|_slurm_rpc_submit_batch_job|'
                  r'job_signal|_slurm_rpc_kill_job|killed|time limit|_job_timed_out|TimeSlice|timeslice|'
                  r'slurmctld version|Running as primary|sched: _slurm_rpc_allocate|ESLURM|cancel')
drop = re.compile(r'debug3:    |environment=|Processing RPC: REQUEST_JOB_INFO|Processing RPC: REQUEST_PARTITION_INFO|'
                  r'_slurm_rpc_dump_jobs|REQUEST_JOB_INFO|power_save|_slurm_rpc_dump|job_str_signal|'
                  r'acct_policy|accounting_storage')
start_pat = re.compile(r'slurmctld version|Running as primary|gs_init|starting timeslicer loop|_load_phys_res_cnt|'
                       r'SchedulerTimeSlice|sched_time_slice')
os.makedirs(os.path.join(d, 'extra'), exist_ok=True)
g = open(os.path.join(d, 'extra/ctld_gang.log'), 'w')
s = open(os.path.join(d, 'extra/ctld_start.txt'), 'w')
for line in open(log, errors='replace'):
    line = line.rstrip('\n')
    m = ts.match(line)
    if not m:
        continue
    ep = calendar.timegm(time.strptime(m.group(1), '%Y-%m-%dT%H:%M:%S'))
    stamp = '%d.%s' % (ep, m.group(2))
    body = m.group(3)
    if start_pat.search(body):
        s.write('%s\t%s\n' % (stamp, line))
    if keep.search(body) and not drop.search(body):
        g.write('%s\t%s\n' % (stamp, line))
