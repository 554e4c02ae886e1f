"""``d3mkit serve CHALLENGE [--db URL] [--host H] [--port P] [--workers N | --scheduler A]``:
run the evaluation server (uvicorn) of a challenge (:mod:`d3mkit.server`; docs/server.md)."""

from __future__ import annotations

import sys
from pathlib import Path


def add_parser(sub) -> None:
    from d3mkit.io.executor import add_executor_arguments
    p = sub.add_parser("serve", help="run the evaluation server of a challenge",
                       description="Teams submit predictions over HTTP; workers score them; the "
                                   "leaderboard updates live (docs/server.md).",
                       epilog="example:\n  d3mkit serve challenge --port 8000")
    p.add_argument("challenge", type=Path, metavar="CHALLENGE")
    p.add_argument("--db", metavar="URL", default=None,
                   help="database URL (default: CHALLENGE/challenge.sqlite)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    add_executor_arguments(p, "scoring")
    p.add_argument("--lease", type=float, default=60.0, metavar="SECONDS",
                   help="how long a claimed submission stays this server's without a heartbeat; "
                        "after that any server takes it over (default 60)")
    p.add_argument("--log-level", default="warning",
                   choices=["critical", "error", "warning", "info", "debug"],
                   help="uvicorn's log level (default warning)")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from d3mkit.core.errors import UsageError
    from d3mkit.io.executor import check_options, from_args
    from d3mkit.server import require
    require()
    check_options(args.workers, args.scheduler)
    if not 0 < args.port < 65536:
        raise UsageError(f"the port must be 1-65535, got {args.port}")
    if not args.lease >= 1:
        raise UsageError(f"--lease must be at least 1 second, got {args.lease:g}")
    import logging

    import uvicorn

    from d3mkit.server.app import make_app
    from d3mkit.server.challenge import clean_uploads, open_challenge
    from d3mkit.server.dispatch import Dispatcher
    from d3mkit.server.store import Store
    challenge = open_challenge(args.challenge)
    store = Store.open(args.db or challenge.default_db_url())
    clean_uploads(challenge)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    dispatcher = Dispatcher(challenge, store, lambda: from_args(args), lease=args.lease)
    dispatcher.warm_up()        # the worker processes exist before the server's threads
    app = make_app(challenge, store, dispatcher)
    print(f"serving {challenge.name} on http://{args.host}:{args.port} "
          f"(scoring: {dispatcher.executor.describe()})", file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn.Config(app, host=args.host, port=args.port, log_level=args.log_level,
                                  timeout_graceful_shutdown=5, server_header=False)).run()
    return 0
