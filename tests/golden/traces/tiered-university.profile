# One day of the tiered-university example load (golden trace input).
# Format: `key = value`; durations are seconds or [D-]HH:MM:SS; lists are item:weight.
seed = 2026
start = 2026-03-02T00:00:00
duration = 1-00:00:00
jobs_per_hour = 30
daily_cycle = 0.5                 # submissions peak in the afternoon
cpus = 1:10, 8:15, 48:25, 96:25, 192:15, 384:8, 768:2
gpus = 0:1
runtime = lognormal 5400 1.3      # median 1.5 h
runtime_max = 2-00:00:00
limit_factor = 1.5 4              # users ask for 1.5x to 4x what they use
limit_round = 1800
partition = standard96:60, medium:15, large96:10, long:5, standard96:test:10
qos = normal:90, 2h:10
users = tree                      # drawn from the share tree, by target share
