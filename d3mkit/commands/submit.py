"""``d3mkit submit --server URL --token T --problem P FILE [--wait]``: send a predictions
file to an evaluation server (:mod:`d3mkit.server.client`, standard library only)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def add_parser(sub) -> None:
    p = sub.add_parser("submit", help="submit a predictions.csv to an evaluation server",
                       epilog="example:\n  d3mkit submit --server http://127.0.0.1:8000 --token TOKEN "
                              "--problem PROBLEM_ID predictions.csv --wait")
    p.add_argument("--server", required=True, help="the server's URL, e.g. http://127.0.0.1:8000")
    p.add_argument("--token", default=None,
                   help="the team token (default: the environment variable D3MKIT_TOKEN)")
    p.add_argument("--problem", required=True, help="the problemID")
    p.add_argument("file", type=Path, metavar="FILE", help="predictions.csv")
    p.add_argument("--wait", action="store_true", help="wait for the score and print it")
    p.add_argument("--timeout", type=float, default=600.0,
                   help="seconds --wait waits at most (default 600)")
    from d3mkit.commands.options import add_format
    add_format(p, "the submission's id, status and scores")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from d3mkit.core.errors import UsageError
    from d3mkit.server import client
    token = args.token or os.environ.get("D3MKIT_TOKEN")
    if not token:
        raise UsageError("give the team token with --token or D3MKIT_TOKEN")
    if not args.server.startswith(("http://", "https://")):
        raise UsageError(f"--server must be an http:// or https:// URL, got {args.server!r}")
    got = client.submit(args.server, token, args.problem, args.file)
    if args.wait:
        got = client.wait(args.server, token, got["id"], timeout=args.timeout)
    if args.format == "json":
        import json

        from d3mkit.commands.show import write
        write(json.dumps(got, sort_keys=True) + "\n")
    else:
        from d3mkit.commands.show import print_scores
        print(f"submission {got['id']}: {got['status']}")
        if got.get("scores"):
            print_scores([(s["metric"], None, "-" if s["value"] is None else s["value"])
                          for s in got["scores"]])
        for i in got.get("issues", []):
            where = f"{i['location']}: " if i.get("location") else ""
            print(f"{args.file}: {where}{i['severity']} [{i['code']}] {i['message']}", file=sys.stderr)
    return 1 if got.get("status") == "failed" else 0
