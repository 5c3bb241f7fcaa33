#!/usr/bin/env python3
"""make_capped_sacct.py N OUT [CAPPED]: a `sacct -P` dump of N pending jobs for ../shared's
perf-site (1,000 nodes x 64 CPUs, partition batch, users user1..user200 in accounts g0..g9).

Half the jobs take a few CPUs on one node, which leaves nodes partly used; the other half
ask for 2 to 16 nodes' worth of CPUs less up to 40, and a share CAPPED of those (default 1)
caps its node count in SubmitLine (-N 4, or -N 4-8), which is what reaches select/cons_tres's
choose_nodes retry (engine/policy/choose_nodes.h). Seeded: the same arguments give the same
file. Each job runs a share of its limit drawn uniformly (at least a minute), given as ElapsedRaw
as a saved load gives the run time of a job that has not run yet (docs/workloads.md)."""
import random
import sys


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    capped = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    rng = random.Random(7)
    cols = ("JobIDRaw|User|Account|Partition|QOS|Submit|Eligible|Start|End|TimelimitRaw|ElapsedRaw|AllocCPUS|"
            "NNodes|ReqCPUS|ReqNodes|ReqMem|State|Priority|NodeList|NTasks|NCPUS|ReqTRES|AllocTRES|Reason|Flags|"
            "ExitCode|SubmitLine")
    t = 1700000000
    with open(out, "w") as f:
        f.write(cols + "\n")
        for i in range(1, n + 1):
            t += rng.randint(0, 40)
            u = rng.randint(1, 200)
            if rng.random() < 0.5:
                nodes, cpus = 1, rng.randint(1, 63)
                line = "sbatch -n %d" % cpus
            else:
                nodes = rng.choice([2, 2, 4, 4, 8, 16])
                cpus = nodes * 64 - rng.randint(0, 40)
                c = rng.random()
                if c >= capped:
                    line = "sbatch -n %d" % cpus
                elif c < 0.7 * capped:
                    line = "sbatch -N %d -n %d" % (nodes, cpus)
                else:
                    line = "sbatch -N %d-%d -n %d" % (nodes, nodes * 2, cpus)
            limit = rng.choice([60, 120, 240, 720])
            run = max(60, int(limit * 60 * rng.random()))
            row = [i, "user%d" % u, "g%d" % ((u - 1) // 20), "batch", "normal", t, t, "Unknown", "Unknown", limit,
                   run, 0, nodes, cpus, nodes, "%dM" % (cpus * 1000), "PENDING", 0, "None assigned", "", cpus,
                   "billing=%d,cpu=%d,node=%d" % (cpus, cpus, nodes), "", "None", "", "0:0", line]
            f.write("|".join(map(str, row)) + "\n")


if __name__ == "__main__":
    main()
