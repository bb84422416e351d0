#!/usr/bin/env python3
"""A minimal external policy for `fairbench check --policy exec:CMD`.

Standard library only. It speaks fairbench's JSON-lines protocol
(fairbench-policy/1, described in check/external.go): one request per line on
stdin, holding the decision's snapshot as an instance file, and one answer per
line on stdout.

The policy is a weighted static partition: every user owns the fraction
w_u / sum(w) of every GPU type; each of its jobs, in order, fills its fastest
types first within what is left of its user's slice:

    x[j][g] = min(1 - sum_h x[j][h], left_u[g] / gang_j)

It keeps sharing incentive, envy-freeness and strategy-proofness for users
with one job each (its jobs fill the slice in order, which is not the best
use of it when a user's jobs differ), and is not Pareto efficient (a slice
nobody uses stays idle). Run it as

    fairbench check --policy "exec:python3 check/examples/equal_share.py" \
        --claims sharing-incentive:one-job-per-user,envy-free:one-job-per-user,strategy-proof:one-job-per-user

With --ignore-weights it gives every user the same slice whatever its weight:
a planted bug that the checker catches (sharing incentive fails for a user
of weight 2). With --crash, --hang or --garbage it misbehaves on its third
request, to show how the checker reports a broken policy.
"""

import json
import sys


def decide(instance, ignore_weights):
    """Return the allocation (fractions) for one instance."""
    capacity = {}
    for group in instance.get("servers") or []:
        capacity[group["type"]] = capacity.get(group["type"], 0) + group["count"] * group["gpus_per_server"]
    users = {u["name"]: (1.0 if ignore_weights else float(u["weight"])) for u in instance.get("users") or []}
    # "jobs" is null when no job is active: the answer is then empty.
    jobs = instance.get("jobs") or []
    active = {job["user"] for job in jobs}
    total = sum(w for name, w in users.items() if name in active)
    left = {name: {t: w / total * n for t, n in capacity.items()} for name, w in users.items() if name in active}
    fractions = {}
    for job in jobs:
        gang = job["gang"]
        speeds = job.get("throughputs") or {}
        # Fastest types first; a type without a figure, or too small for the
        # gang, cannot run the job.
        types = sorted((t for t, v in speeds.items() if v > 0 and capacity.get(t, 0) >= gang),
                       key=lambda t: -speeds[t])
        need = 1.0
        for t in types:
            if need <= 1e-12:
                break
            x = min(need, left[job["user"]][t] / gang)
            if x <= 1e-12:
                continue
            fractions.setdefault(str(job["id"]), {})[t] = x
            left[job["user"]][t] -= x * gang
            need -= x
    return {"fractions": fractions, "capped": True}


def main():
    ignore_weights = "--ignore-weights" in sys.argv
    misbehave = next((a for a in ("--crash", "--hang", "--garbage") if a in sys.argv), None)
    seen = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        seen += 1
        if misbehave and seen == 3:
            if misbehave == "--crash":
                print("equal_share: crashing on purpose", file=sys.stderr)
                sys.exit(3)
            if misbehave == "--hang":
                while True:
                    pass
            sys.stdout.write("this is not JSON\n")
            sys.stdout.flush()
            continue
        try:
            answer = {"id": request["id"], "allocation": decide(request["instance"], ignore_weights)}
        except Exception as err:  # report, do not die: the checker counts it as the policy's error
            answer = {"id": request["id"], "error": repr(err)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
