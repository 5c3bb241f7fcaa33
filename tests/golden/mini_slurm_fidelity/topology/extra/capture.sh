#!/usr/bin/env bash
# two captures of the topology scenario, one cluster at a time (run under flock /tmp/mini-slurm.lock)
set -u
G=/work/wt-topo/tests/golden
rm -rf /tmp/topo_repeat && mkdir -p /tmp/topo_repeat
cp -r $G/mini_slurm_engine /tmp/topo_repeat/ && mkdir -p /tmp/topo_repeat/mini_slurm_fidelity
cp $G/mini_slurm_fidelity/run_scenario.sh /tmp/topo_repeat/mini_slurm_fidelity/
mkdir -p /tmp/topo_repeat/mini_slurm_fidelity/topology/extra
cp $G/mini_slurm_fidelity/topology/{workload.txt,topology.conf} /tmp/topo_repeat/mini_slurm_fidelity/topology/
cp $G/mini_slurm_fidelity/topology/extra/{env.sh,EXTRA_CONF.txt,PARTS_CONF.txt} /tmp/topo_repeat/mini_slurm_fidelity/topology/extra/
echo "golden start $(date -u +%T)"
$G/mini_slurm_fidelity/run_scenario.sh $G/mini_slurm_fidelity/topology
echo "golden end $(date -u +%T); repeat start"
/tmp/topo_repeat/mini_slurm_fidelity/run_scenario.sh /tmp/topo_repeat/mini_slurm_fidelity/topology
echo "repeat end $(date -u +%T)"
/tmp/mini-slurm/mini-slurm.sh down
rm -f /tmp/mini-slurm/etc/topology.conf
echo "down $(date -u +%T)"
