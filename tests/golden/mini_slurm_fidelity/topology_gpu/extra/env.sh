# mini-slurm tunables for this scenario (sourced by ../mini_slurm_engine/run_scenario.sh; $D = scenario dir):
# the topology capture's (its topology.conf, this scenario's copy), with GPUs on six of the eight nodes.
. "$D/../topology/extra/env.sh"
export NODES_CONF=$D/extra/NODES_CONF.txt
# gpu GRES needs File= (a file-less GPU is dropped by slurmd): character devices nothing opens, as in
# ../gpu_shapes. mini-slurm's `clean` keeps etc/, so remove /tmp/mini-slurm/etc/gres.conf before
# capturing a scenario without GPUs.
mkdir -p /tmp/mini-slurm/fakegpu
for i in 0 1 2 3; do [ -c /tmp/mini-slurm/fakegpu/nvidia$i ] || mknod /tmp/mini-slurm/fakegpu/nvidia$i c 1 3; done
printf 'NodeName=n[1-3] Name=gpu File=/tmp/mini-slurm/fakegpu/nvidia[0-1]\nNodeName=n[6-8] Name=gpu File=/tmp/mini-slurm/fakegpu/nvidia[0-3]\n' \
  > /tmp/mini-slurm/etc/gres.conf
