# mini-slurm tunables for this scenario (sourced by ../mini_slurm_engine/run_scenario.sh; $D = scenario dir):
# the topology capture's, which it sources. $D stays this scenario's directory, so this scenario's own
# PARTS_CONF.txt, EXTRA_CONF.txt and topology.conf are the ones used.
. "$D/../topology/extra/env.sh"
