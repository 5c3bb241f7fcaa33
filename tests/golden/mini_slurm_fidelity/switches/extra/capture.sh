#!/usr/bin/env bash
# two captures of the switches scenario, one cluster at a time (run under flock /tmp/mini-slurm.lock)
set -u
G=/work/main/tests/golden
echo "golden start $(date -u +%T)"
$G/mini_slurm_fidelity/run_scenario.sh $G/mini_slurm_fidelity/switches
echo "golden end $(date -u +%T); repeat start"
/tmp/sw_repeat/mini_slurm_fidelity/run_scenario.sh /tmp/sw_repeat/mini_slurm_fidelity/switches
echo "repeat end $(date -u +%T)"
/tmp/mini-slurm/mini-slurm.sh down
rm -f /tmp/mini-slurm/etc/topology.conf
echo "down $(date -u +%T)"
