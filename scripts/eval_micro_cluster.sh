#!/usr/bin/env bash
# Judge the engine against a published real slurmctld run (issue 21): the micro_cluster
# tutorial of ubccr-slurm-simulator/slurm_sim_tools, 500 jobs (1001-1500) run by a real
# Slurm 20.02 controller (the slurm-20.02-sim front-end build, 2021-02-11).
#
#   scripts/eval_micro_cluster.sh MIRROR_GIT_DIR BUILD_DIR
#
# MIRROR_GIT_DIR is a git directory of slurm_sim_tools (e.g. the `fetch` tool's mirror).
# Its files are NOT part of this project (licence unknown): they are extracted at run time
# into a temporary directory, never into the repository.
#
#   real run  v1.0-branch:tutorials/micro_cluster/real_slurm_run/slurm_acct.out (sacct -P)
#   config    master:reg_testing/micro_cluster/docker/etc/ (slurm.conf, topology.conf,
#             gres.conf, sacctmgr.sh, jobs500.events): the set the run was made with
#             (ClusterName=micro, GresTypes=gpu, topology/tree, cons_res as in the dump;
#             the tutorial's later etc/ uses cons_tres and other bf_* values).
#
# sacct of 20.02 has no Constraints or SubmitLine columns, so each job's sbatch options
# are joined in from jobs500.events as a SubmitLine column (the reader's docs/workloads.md).
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 MIRROR_GIT_DIR BUILD_DIR" >&2
    exit 2
fi
MIRROR=$1
BUILD=$(cd "$2" && pwd)
SA=$BUILD/cli/slurm-advisor
[[ -x $SA ]] || { echo "no $SA" >&2; exit 2; }

TMP=$(mktemp -d /tmp/micro_eval.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
[[ -n ${KEEP:-} ]] && trap - EXIT && echo "files kept in $TMP"

ref() { # first ref of the list that the mirror has
    local r
    for r in "$@"; do
        if git --git-dir="$MIRROR" rev-parse -q --verify "$r^{commit}" >/dev/null; then
            echo "$r"
            return
        fi
    done
    echo "mirror has none of: $*" >&2
    exit 2
}
V1=$(ref v1.0-branch refs/remotes/origin/v1.0-branch)
MASTER=$(ref master refs/remotes/origin/master HEAD)
git --git-dir="$MIRROR" show "$V1:tutorials/micro_cluster/real_slurm_run/slurm_acct.out" >"$TMP/real.sacct"
# When slurmctld started (run.log: slurmctld_create_time, 10 s before the first submit): the
# priority passes and fair-share decay run every PriorityCalcPeriod from there, and on this
# load the two accounts' usage is close enough that the phase of those passes reorders jobs.
START=$(git --git-dir="$MIRROR" show "$V1:tutorials/micro_cluster/real_slurm_run/run.log" |
    sed -n 's/.*slurmctld_create_time=\([0-9]*\).*/\1/p' | head -1)
for f in slurm.conf topology.conf gres.conf sacctmgr.sh jobs500.events; do
    git --git-dir="$MIRROR" show "$MASTER:reg_testing/micro_cluster/docker/etc/$f" >"$TMP/$f"
done
# The run used a front-end build (one slurmd for all nodes): FrontendName only says where
# batch scripts start, not how jobs are placed; a standard build refuses it (CONF004).
sed -i '/^FrontendName=/d' "$TMP/slurm.conf"

# sacctmgr.sh holds sacctmgr commands (add account ..., add user ...), not a `sacctmgr dump`:
# write the same tree as a minimal dump (cluster micro, accounts 0-2 Fairshare=100 under
# root, users with their DefaultAccount; the QOS table normal=0, supporters=100).
python3 - "$TMP" <<'EOF'
import re, sys
tmp = sys.argv[1]
accounts, users = [], []
for line in open(f"{tmp}/sacctmgr.sh"):
    line = line.split("#", 1)[0].strip()
    m = re.match(r"add account name=(\S+)\s+Fairshare=(\d+)", line, re.I)
    if m:
        accounts.append((m[1], m[2]))
    m = re.match(r"add user name=(\S+)\s+DefaultAccount=(\S+)(.*)", line, re.I)
    if m:
        users.append((m[1], m[2], m[3]))
with open(f"{tmp}/assoc.dump", "w") as out:
    out.write("Cluster - 'micro':Fairshare=1:QOS='normal,supporters'\n")
    out.write("Parent - 'root'\n")
    out.write("User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1\n")
    for name, fs in accounts:
        out.write(f"Account - '{name}':Description='{name}':Organization='{name}':Fairshare={fs}\n")
    for name, _ in accounts:
        members = [u for u in users if u[1] == name]
        if not members:
            continue
        out.write(f"Parent - '{name}'\n")
        for u, acct, rest in members:
            msj = re.search(r"MaxSubmitJobs=(\d+)", rest)
            lim = f":MaxSubmitJobs={msj[1]}" if msj else ""
            out.write(f"User - '{u}':DefaultAccount='{acct}':Fairshare=1{lim}\n")
with open(f"{tmp}/qos.txt", "w") as out:
    out.write("Name|Priority\nnormal|0\nsupporters|100\n")
EOF

# Join: the events line of job N gives its sbatch options (without the simulator's own
# -jid, -sim-walltime and --uid). Runtimes come from the real Start/End.
python3 - "$TMP" <<'EOF'
import sys
tmp = sys.argv[1]
opts = {}
for line in open(f"{tmp}/jobs500.events"):
    if "|" not in line:
        continue
    words = line.split("|", 1)[1].split()
    jid, keep, i = None, [], 0
    while i < len(words):
        w = words[i]
        if w == "-jid":
            jid = words[i + 1]; i += 2; continue
        if w == "-sim-walltime":
            i += 2; continue
        if w.startswith("--uid="):
            i += 1; continue
        keep.append(w); i += 1
    opts[jid] = "sbatch " + " ".join(keep)
rows = open(f"{tmp}/real.sacct").read().splitlines()
head = rows[0].split("|")
missing = 0
with open(f"{tmp}/joined.sacct", "w") as out:
    out.write("|".join(head + ["SubmitLine"]) + "\n")
    for r in rows[1:]:
        f = r.split("|")
        line = opts.get(f[0])
        if line is None:
            missing += 1
            line = ""
        out.write("|".join(f + [line]) + "\n")
print(f"joined {len(rows) - 1} sacct rows with {len(opts)} events lines ({missing} without one)")
EOF

echo "== simulate (slurm.conf of the real run, read as Slurm 20.11, the oldest the tool knows)"
"$SA" simulate "$TMP/slurm.conf" --slurm-version "${SLURM_VERSION:-20.11}" \
    --assoc "$TMP/assoc.dump" --qos "$TMP/qos.txt" --workload "$TMP/joined.sacct" \
    --trace "$TMP/trace.csv" --progress never --no-config ${START:+--start "$START"} >"$TMP/simulate.txt" 2>&1 || {
    cat "$TMP/simulate.txt"
    exit 1
}
grep -E '^(WORK|CONF|SIM)[0-9]+|error' "$TMP/simulate.txt" | sort | uniq -c | head -20 || true

echo "== compare (real sacct vs engine trace)"
"$SA" compare "$TMP/joined.sacct" "$TMP/trace.csv" --no-config | tee "$TMP/compare.txt"

echo "== placements"
python3 - "$TMP" <<'EOF'
import csv, re, sys
from datetime import datetime, timezone
tmp = sys.argv[1]

def expand(nl):
    out = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?", nl or ""):
        m = re.match(r"([^\[]+)\[([^\]]*)\]", part)
        if not m:
            if part:
                out.append(part)
            continue
        for r in m[2].split(","):
            a, _, b = r.partition("-")
            for k in range(int(a), int(b or a) + 1):
                out.append(f"{m[1]}{k:0{len(a)}d}")
    return out

feat = {}
conf = open(f"{tmp}/slurm.conf").read()
for m in re.finditer(r"^NodeName=(\S+)[^\n]*?Feature=(\S+)", conf, re.M):
    for n in expand(m[1]):
        feat[n] = set(m[2].split(","))

real, cons, submit = {}, {}, {}
for r in csv.DictReader(open(f"{tmp}/joined.sacct"), delimiter="|"):
    ts = lambda s: datetime.fromisoformat(s).replace(tzinfo=timezone.utc).timestamp()
    real[r["JobID"]] = (expand(r["NodeList"]), ts(r["Start"]), ts(r["End"]))
    submit[r["JobID"]] = ts(r["Submit"])
    m = re.search(r"--constraint=(\S+)", r["SubmitLine"])
    if m:
        cons[r["JobID"]] = m[1]

rows = list(csv.DictReader(open(f"{tmp}/trace.csv")))
cols = rows[0].keys() if rows else []
sim = {r["job_id"]: (expand(r["nodelist"]), float(r["start"]), float(r["end"])) for r in rows}

common = sorted(set(real) & set(sim), key=int)
bad_real = sum(1 for j in cons if j in real and any(cons[j] not in feat.get(n, ()) for n in real[j][0]))
bad_sim = sum(1 for j in cons if j in sim and any(cons[j] not in feat.get(n, ()) for n in sim[j][0]))
more = sum(1 for j in common if len(sim[j][0]) > len(real[j][0]))
fewer = sum(1 for j in common if len(sim[j][0]) < len(real[j][0]))
same_cnt = len(common) - more - fewer
same_set = sum(1 for j in common if set(sim[j][0]) == set(real[j][0]))
d = [abs(sim[j][1] - real[j][1]) for j in common]
print(f"jobs: real {len(real)}, engine {len(sim)}, in both {len(common)}")
print(f"constrained jobs on a node without the feature: engine {bad_sim} of {len(cons)}, real {bad_real}")
print(f"node count: engine more than real {more}, fewer {fewer}, same {same_cnt}; same node set {same_set}")
print(f"start within 10 s of real: {sum(x <= 10 for x in d)}, within 60 s: {sum(x <= 60 for x in d)} of {len(d)}")
rw = [real[j][1] - submit[j] for j in common]
sw = [sim[j][1] - submit[j] for j in common]
def p95(v):
    v = sorted(v); return v[min(len(v) - 1, int(0.95 * len(v)))] if v else 0
print(f"wait mean real {sum(rw)/len(rw):.0f} s, engine {sum(sw)/len(sw):.0f} s; p95 real {p95(rw):.0f} s, engine {p95(sw):.0f} s")
t0 = min(submit.values())
print(f"makespan real {max(v[2] for v in real.values()) - t0:.0f} s, "
      f"engine {max(v[2] for v in sim.values()) - t0:.0f} s")
with open(f"{tmp}/jobs.txt", "w") as out:
    for j in common:
        out.write(f"{j} cons={cons.get(j,'-')} real={','.join(real[j][0])}@{real[j][1]-submit[j]:.0f} "
                  f"sim={','.join(sim[j][0])}@{sim[j][1]-submit[j]:.0f}\n")
EOF
