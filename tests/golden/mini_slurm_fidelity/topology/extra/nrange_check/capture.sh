#!/usr/bin/env bash
B=/tmp/topo_nrange
echo "start $(date -u +%T)"
$B/mini_slurm_fidelity/run_scenario.sh $B/mini_slurm_fidelity/nrange
/tmp/mini-slurm/mini-slurm.sh down
rm -f /tmp/mini-slurm/etc/topology.conf
echo "down $(date -u +%T)"
