# mini-slurm tunables (sourced by ../run_scenario.sh; $D = scenario dir)
export NODES_CONF=$D/extra/NODES_CONF.txt
export PARTS_CONF=$D/extra/PARTS_CONF.txt
export EXTRA_CONF=$D/extra/EXTRA_CONF.txt
# SCHED_PARAMS unset: mini-slurm default bf_interval=5,bf_resolution=60,bf_window=1440,sched_interval=5
export MAX_WAIT=420
