# mini-slurm tunables for this scenario (sourced by ../run_scenario.sh; $D = scenario dir)
export NNODES=6 NODE_CPUS=16 NODE_MEM=64000
export PRIO_HALFLIFE=1 PRIO_CALC=1 PRIO_MAXAGE=00:10:00
export SCHED_PARAMS=sched_interval=5
export PARTS_CONF=$D/extra/PARTS_CONF.txt
export EXTRA_CONF=$D/extra/EXTRA_CONF.txt
