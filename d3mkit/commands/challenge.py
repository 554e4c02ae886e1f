"""``d3mkit challenge create|team add|finalize``: the organiser's commands of the evaluation
server (:mod:`d3mkit.server`; docs/server.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from d3mkit.commands import seed_value


def _db_argument(p) -> None:
    p.add_argument("--db", metavar="URL", default=None,
                   help="database URL (default: CHALLENGE/challenge.sqlite; PostgreSQL: "
                        "postgresql+psycopg://USER@HOST/DB)")


def add_parser(sub) -> None:
    from d3mkit.commands.options import add_format
    p = sub.add_parser("challenge", help="make and run a challenge for the evaluation server",
                       description="Organiser commands of the evaluation server (docs/server.md).",
                       epilog="examples:\n  d3mkit challenge create --problems out --out challenge\n"
                              "  d3mkit challenge team add challenge alpha")
    cmds = p.add_subparsers(dest="challenge_command", metavar="COMMAND", parser_class=type(p))
    cmds.required = True

    c = cmds.add_parser("create", help="make a challenge from task roots",
                        epilog="example:\n  d3mkit challenge create --problems out --out challenge --daily-quota 3")
    c.add_argument("--problems", type=Path, required=True, help="directory holding the task roots")
    c.add_argument("--out", type=Path, required=True, help="the challenge directory to write")
    c.add_argument("--public-fraction", type=float, default=0.5,
                   help="share of each problem's TEST rows on the public board (default 0.5)")
    c.add_argument("--daily-quota", type=int, default=5, metavar="N",
                   help="submissions per team per UTC day (default 5)")
    c.add_argument("--max-size-mb", type=float, default=20.0, metavar="M",
                   help="largest predictions file accepted, in MiB (default 20)")
    c.add_argument("--rate", type=int, default=30, metavar="N",
                   help="submission requests per team per minute (default 30)")
    c.add_argument("--precision", type=int, default=4, metavar="D",
                   help="digits after the point shown for a score (default 4)")
    c.add_argument("--seed", type=seed_value, default=None,
                   help="seed of the public/private split (default: random; recorded)")
    c.add_argument("--name", default=None, help="the challenge's title (default: the directory name)")
    c.add_argument("--force", action="store_true", help="replace an existing challenge directory")
    c.add_argument("--count-failed", choices=["yes", "no"], default="no",
                   help="whether a team's failed files (errors in its predictions) count against its "
                        "daily quota (default no: a failed file gets no score, so it tells the team "
                        "nothing about the hidden rows; the rate limit still stops floods). The "
                        "platform's failures never count")
    c.add_argument("--phase", action="append", default=[], metavar="SPEC",
                   help="a submission phase (repeat for several): name=N,start=T,end=T[,problems=a;b]"
                        "[,daily=N][,total=N][,board=public|hidden][,counts=best|last]; times UTC "
                        "(ISO 8601). The end of the last phase finalizes the challenge")
    c.add_argument("--phases", type=Path, default=None, metavar="FILE",
                   help="the phases as a JSON or YAML file (a list of objects with the keys of "
                        "--phase; daily_quota, total_quota spelled out); see docs/server.md")
    c.add_argument("--private", action="store_true",
                   help="a private challenge: every page and API answer except the login needs a "
                        "team token or session (organiser tokens: 'challenge organiser add')")
    _db_argument(c)
    add_format(c, "the challenge directory (each problem's rows on stderr)")
    c.set_defaults(func=_create)

    t = cmds.add_parser("team", help="teams: add", epilog="example:\n  d3mkit challenge team add challenge alpha")
    tcmds = t.add_subparsers(dest="team_command", metavar="COMMAND", parser_class=type(p))
    tcmds.required = True
    a = tcmds.add_parser("add", help="add a team and print its token (once)",
                         epilog="example:\n  d3mkit challenge team add challenge alpha --format json")
    a.add_argument("challenge", type=Path, metavar="CHALLENGE")
    a.add_argument("name", metavar="NAME")
    a.add_argument("--baseline", action="store_true",
                   help="a baseline entry (the organisers' reference): it submits like a team, and "
                        "the boards show it apart, unranked")
    _db_argument(a)
    add_format(a, "the token")
    a.set_defaults(func=_team_add, role="team")

    o = cmds.add_parser("organiser", help="organisers: add",
                        epilog="example:\n  d3mkit challenge organiser add challenge ana")
    ocmds = o.add_subparsers(dest="organiser_command", metavar="COMMAND", parser_class=type(p))
    ocmds.required = True
    oa = ocmds.add_parser("add", help="add an organiser and print its token (once): it sees every "
                                      "board and the queue, and submits nothing",
                          epilog="example:\n  d3mkit challenge organiser add challenge ana")
    oa.add_argument("challenge", type=Path, metavar="CHALLENGE")
    oa.add_argument("name", metavar="NAME")
    _db_argument(oa)
    add_format(oa, "the token")
    oa.set_defaults(func=_team_add, role="organiser")

    st = cmds.add_parser("status", help="the queue, the leases, the oldest waiting submission, the servers",
                         epilog="example:\n  d3mkit challenge status challenge --format json")
    st.add_argument("challenge", type=Path, metavar="CHALLENGE")
    _db_argument(st)
    add_format(st, "the status")
    st.set_defaults(func=_status)

    f = cmds.add_parser("finalize", help="close submissions and reveal the private leaderboard",
                        epilog="example:\n  d3mkit challenge finalize challenge --workers 2")
    f.add_argument("challenge", type=Path, metavar="CHALLENGE")
    _db_argument(f)
    from d3mkit.io.executor import add_executor_arguments
    add_executor_arguments(f, "private scoring")
    add_format(f, "nothing (the counts on stderr)")
    f.set_defaults(func=_finalize)


def _open(args):
    from d3mkit.server import require
    require()
    from d3mkit.server.challenge import open_challenge
    from d3mkit.server.store import Store
    challenge = open_challenge(args.challenge)
    return challenge, Store.open(args.db or challenge.default_db_url())


def _create(args) -> int:
    from d3mkit.server import require
    require()
    from d3mkit.server.challenge import create_challenge
    from d3mkit.server.store import Store
    ch = create_challenge(args.problems, args.out, public_fraction=args.public_fraction,
                          daily_quota=args.daily_quota, max_mb=args.max_size_mb, rate_per_minute=args.rate,
                          precision=args.precision, seed=args.seed, name=args.name, force=args.force,
                          count_failed=args.count_failed == "yes", private=args.private,
                          phases=_phases(args))
    store = Store.open(args.db or ch.default_db_url())
    store.close()
    from d3mkit.server.challenge import part_warnings
    for w in part_warnings(ch):
        print(f"d3mkit: warning: {w}", file=sys.stderr)
    for pid, e in sorted(ch.problems.items()):
        print(f"{pid}: {e.public_units} public and {e.units - e.public_units} private of {e.units} "
              f"TEST units ({e.unit}); primary metric {e.metrics[0][0] if e.metrics else '-'}",
              file=sys.stderr)
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json({"challenge": str(ch.root), "problems": [
            {"problemID": pid, "unit": e.unit, "units": e.units, "public": e.public_units,
             "private": e.units - e.public_units, "primary_metric": e.metrics[0][0] if e.metrics else None}
            for pid, e in sorted(ch.problems.items())]})
    else:
        print(ch.root)
    return 0


def _phases(args) -> list:
    from d3mkit.server.phases import load_file, parse_spec
    phases = [parse_spec(spec) for spec in args.phase]
    if args.phases is not None:
        phases += load_file(args.phases)
    return phases


def _team_add(args) -> int:
    from d3mkit.server.auth import add_team
    _challenge, store = _open(args)
    try:
        token = add_team(store, args.name, "baseline" if getattr(args, "baseline", False) else args.role)
    finally:
        store.close()
    what = "organiser" if args.role == "organiser" else "team"
    print(f"{what} {args.name!r} added; its token (shown only now, store it safely):", file=sys.stderr)
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json({"team": args.name, "token": token})
    else:
        print(token)
    return 0


def _finalize(args) -> int:
    from d3mkit.io.executor import check_options, from_args
    from d3mkit.server.dispatch import finalize
    check_options(args.workers, args.scheduler)
    challenge, store = _open(args)
    try:
        done = finalize(challenge, store, lambda: from_args(args))
    finally:
        store.close()
    c = done["counts"]
    print(f"finalized: {done['queued_scored']} queued submission(s) scored now, "
          f"{done['private_scored']} scored on the private rows; {c.get('scored', 0)} scored, "
          f"{c.get('failed', 0)} failed in all", file=sys.stderr)
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json({"challenge": str(args.challenge), "queued_scored": done["queued_scored"],
                    "private_scored": done["private_scored"], "counts": dict(c)})
    return 0


def _status(args) -> int:
    _challenge, store = _open(args)
    try:
        report = store.status_report()
    finally:
        store.close()
    if args.format == "json":
        from d3mkit.commands.show import print_json
        print_json(report)
        return 0
    c = report["counts"]
    print("submissions: " + ", ".join(f"{k} {c.get(k, 0)}" for k in
                                      ("queued", "scoring", "scored", "failed", "cancelled")))
    o = report["oldest_waiting"]
    print("oldest waiting: " + ("none" if o is None else f"{o['id']} since {o['since']} ({o['seconds']:g} s)"))
    print(f"leases: {len(report['leases'])} held, {report['expired_leases']} expired")
    for lease in report["leases"]:
        print(f"  {lease['id']}  {lease['owner']}  until {lease['until']}  "
              f"platform failures {lease['platform_failures']}")
    print(f"servers alive: {len(report['servers'])}")
    for s in report["servers"]:
        print(f"  {s['name']}  seen {s['seen']}  workers alive {s.get('workers_alive')}  "
              f"{'ok' if s.get('ok') else 'UNHEALTHY: ' + str(s.get('reason'))}  {s.get('executor') or ''}")
    return 0
