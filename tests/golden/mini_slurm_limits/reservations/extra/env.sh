# mini-slurm tunables for reservations (sourced by ../run_scenario.sh; $D = scenario dir)
export NNODES=4 NODE_CPUS=16 NODE_MEM=64000
export PRIO_HALFLIFE=1 PRIO_CALC=1 PRIO_MAXAGE=00:10:00
export SCHED_PARAMS=bf_interval=5,bf_resolution=60,bf_window=1440,sched_interval=5
export PARTS_CONF=$D/extra/PARTS_CONF.txt
export EXTRA_CONF=$D/extra/EXTRA_CONF.txt
# QOS_FILE / ACCOUNTS_CFG unset: mini-slurm's default QOS (normal/high/low) and account tree
# (root: physics{theory: simu1 simu2, exp: simu3}, chem: simu4 simu5, bio: simu6 simu1)
POLL_RESV=1   # also poll `scontrol show reservation -o` at 1 Hz (extra/poll_resv.txt)
