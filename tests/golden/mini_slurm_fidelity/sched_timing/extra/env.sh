# mini-slurm tunables for this scenario (sourced by ../mini_slurm_engine/run_scenario.sh; $D = scenario dir)
export NNODES=8 NODE_CPUS=16 NODE_MEM=64000
export PRIO_HALFLIFE=1 PRIO_CALC=1 PRIO_MAXAGE=00:05:00
# distinct periods so each cadence can be told apart in the log: backfill 10 s, main loop 20 s, submit-triggered
# passes at most every 3 s (batch_sched_delay=3, also the 22.05 default)
export SCHED_PARAMS=bf_interval=10,bf_resolution=60,bf_window=10,bf_max_job_user=2,sched_interval=20,batch_sched_delay=3
export PARTS_CONF=$D/extra/PARTS_CONF.txt
export EXTRA_CONF=$D/extra/EXTRA_CONF.txt
