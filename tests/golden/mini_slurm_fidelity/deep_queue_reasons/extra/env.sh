# mini-slurm tunables for this scenario (sourced by ../mini_slurm_engine/run_scenario.sh; $D = scenario dir)
export NNODES=4 NODE_CPUS=16 NODE_MEM=64000
export PRIO_HALFLIFE=1 PRIO_CALC=1 PRIO_MAXAGE=00:05:00
# a deep queue the schedulers only partly see: backfill tests 5 jobs a cycle (bf_continue), plans 10 minutes
# ahead (shorter than most limits); event-triggered main passes stop after default_queue_depth=3 records and
# the full pass runs every 20 s
export SCHED_PARAMS=bf_interval=10,bf_resolution=60,bf_window=10,bf_max_job_test=5,bf_continue,default_queue_depth=3,sched_interval=20
export PARTS_CONF=$D/extra/PARTS_CONF.txt
export EXTRA_CONF=$D/extra/EXTRA_CONF.txt
