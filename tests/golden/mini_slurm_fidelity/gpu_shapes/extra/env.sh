# mini-slurm tunables for this scenario (sourced by ../mini_slurm_engine/run_scenario.sh; $D = scenario dir)
export NNODES=2 NODE_CPUS=16 NODE_MEM=64000
export PRIO_HALFLIFE=1 PRIO_CALC=1 PRIO_MAXAGE=00:05:00
export SCHED_PARAMS=bf_interval=5,bf_resolution=60,bf_window=1440,sched_interval=5
export NODES_CONF=$D/extra/NODES_CONF.txt
export PARTS_CONF=$D/extra/PARTS_CONF.txt
export EXTRA_CONF=$D/extra/EXTRA_CONF.txt
# GPUs: gpu GRES needs File= (a file-less GPU is dropped by slurmd); character devices that
# nothing opens (no device cgroup here). mini-slurm's `clean` keeps etc/, so remove
# /tmp/mini-slurm/etc/gres.conf before capturing a scenario without GPUs.
mkdir -p /tmp/mini-slurm/fakegpu
for i in 0 1 2 3; do [ -c /tmp/mini-slurm/fakegpu/nvidia$i ] || mknod /tmp/mini-slurm/fakegpu/nvidia$i c 1 3; done
printf 'NodeName=n[1-2] Name=gpu File=/tmp/mini-slurm/fakegpu/nvidia[0-3]\n' > /tmp/mini-slurm/etc/gres.conf
