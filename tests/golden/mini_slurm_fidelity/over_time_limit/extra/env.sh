# mini-slurm tunables for this scenario (sourced by ../mini_slurm_engine/run_scenario.sh; $D = scenario dir)
export NNODES=2 NODE_CPUS=16 NODE_MEM=64000
export PRIO_HALFLIFE=1 PRIO_CALC=1 PRIO_MAXAGE=00:05:00
export SCHED_PARAMS=bf_interval=5,bf_resolution=60,bf_window=1440,sched_interval=5
export PARTS_CONF=$D/extra/PARTS_CONF.txt
export EXTRA_CONF=$D/extra/EXTRA_CONF.txt
