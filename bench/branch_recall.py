"""A fresh-service recall on one large session, timed in a child process (issue 13 item 1).

    python bench/branch_recall.py --session FILE --index PATH [--tree DIR] [--leaf ID] [--repeat N]

Each measurement is its own child process (``--tree`` is the source tree it imports, so a
baseline tree can be measured in the same run): the host facts are given (``provider``
``anthropic``, so no parse of the session), then one ``HistoryService`` answers one recall per
scope, as a one-shot ``history search`` does.  Prints the recall's seconds, of which the
catch-up's and the current session's branch (``active_branch.keep_branch`` and
``active_branch``; ``ScopeResolver._current_source`` and ``_prepare_stored_branch`` in an older tree), the child's wall time and its peak RSS (Linux ``VmHWM``).
Figures, never assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

_CHILD = r"""
import json, os, sys, time
start = time.perf_counter()
from reference.pi.leaf import DEFAULT_LEAF
from reference.recall.host import HistoryOpening, open_history
from reference.recall import scope as scope_module
session, index, scope, query, leaf = sys.argv[1:6]
spent = {"catch_up_s": 0.0, "branch_s": 0.0}

def timed(owner, name, key):
    if not hasattr(owner, name):
        return
    real = getattr(owner, name)
    def wrapper(*args, **kwargs):
        began = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            spent[key] += time.perf_counter() - began
    setattr(owner, name, wrapper)

timed(scope_module, "catch_up", "catch_up_s")
timed(scope_module, "_prepare_stored_branch", "branch_s")  # a baseline tree's names
timed(scope_module.ScopeResolver, "_current_source", "branch_s")
timed(scope_module, "keep_branch", "branch_s")  # this tree's: active_branch.keep_branch, active_branch
timed(scope_module, "active_branch", "branch_s")
imported = time.perf_counter()
service = open_history(HistoryOpening(home=os.environ["HOME"], cwd=os.getcwd(), env={}, argv=[], session_file=session,
                                      provider="anthropic", leaf=DEFAULT_LEAF if leaf == "-" else leaf,
                                      index_path=index))
result = service.recall({"query": query, "scope": scope}).as_json()
done = time.perf_counter()
with open("/proc/self/status", encoding="ascii") as status:
    rss = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
print(json.dumps({"recall_s": done - imported, "process_s": done - start, "rss": rss, **spent,
                  "status": result["status"], "hits": [h["entryId"] for h in result["hits"]],
                  "relations": [h.get("relation") for h in result["hits"]]}))
"""


def measure(tree: str, session: str, index: str, scope: str, query: str, leaf: str) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=tree)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _CHILD, session, index, scope, query, leaf],
                         env=env, capture_output=True, text=True, check=True)
    figures: dict[str, object] = json.loads(out.stdout)
    figures["wall_s"] = time.perf_counter() - start
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--session", required=True)
    parser.add_argument("--index", required=True)
    parser.add_argument("--tree", default=os.getcwd())
    parser.add_argument("--leaf", default="-")
    parser.add_argument("--query", default="tapir error")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--scopes", default="current-branch,current-session")
    args = parser.parse_args()
    for scope in args.scopes.split(","):
        for run in range(args.repeat):
            figures = measure(args.tree, args.session, args.index, scope, args.query, args.leaf)
            print(json.dumps({"scope": scope, "run": run, "leaf": args.leaf, **figures}), flush=True)


if __name__ == "__main__":
    main()
