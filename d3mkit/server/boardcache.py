"""The boards, built once per change and kept: what every view of the leaderboard reads.

What this module owns: :class:`BoardCache`. A view asks the database two small things —
the ``board_version`` (:meth:`Store.board_version`, grown in the same transaction that
records a score, a failure, a cancellation, statistics or finalize) and the counts per
state — and gets the boards (:class:`~d3mkit.server.board.Board`), their JSON and their
HTML built for that version, by whichever request came first after the change (one at a
time: the others wait for it instead of building too). Every server process keeps its own
copy, and they agree because the version is the database's. The ETag of a view is the
version and the counts, so a live page polling with ``If-None-Match`` gets 304 until
something it shows changes.
"""

from __future__ import annotations

import json
import threading


class BoardCache:
    """The boards of ``challenge`` over ``store``, by version (see the module docstring)."""

    def __init__(self, challenge, store):
        self.challenge, self.store = challenge, store
        self._lock = threading.RLock()     # a JSON or HTML build asks for the board inside
        self._version = None
        self._built: dict = {}
        self.builds = 0                    # how many times the boards were built (tests)

    def state(self) -> tuple[str, dict, bool]:
        """``(version, counts, finalized)`` now; the version names the phase whose rules
        the board follows (its entry rule changes with the phase)."""
        from d3mkit.server.store import now
        phase = self.challenge.phase_now(now()) if self.challenge.phases else None
        version, counts, finalized = self.store.board_state()
        return f"{version}{'.' + phase.name if phase else ''}", counts, finalized

    def hidden(self, finalized: bool):
        """The phase whose board is hidden now (from teams, until its end), else None."""
        from d3mkit.server.store import now
        if finalized or not self.challenge.phases:
            return None
        at = now()
        phase = self.challenge.phase_now(at)
        return phase if phase is not None and phase.board == "hidden" and at < phase.end else None

    @staticmethod
    def etag(version, counts: dict) -> str:
        c = ",".join(f"{k}{counts[k]}" for k in sorted(counts))
        return f'"b{version}-{c}"'

    def _get(self, version, key, make):
        with self._lock:
            if self._version != version:
                self._version, self._built = version, {}
            if key not in self._built:
                self._built[key] = make()
            return self._built[key]

    def board(self, version, part: str):
        from d3mkit.server.board import build_board

        def make():
            self.builds += 1
            return build_board(self.challenge, self.store, part)
        return self._get(version, ("board", part), make)

    def json(self, version, part: str) -> bytes:
        """The body of ``GET /api/leaderboard?board=part``, with each problem's significance
        tiers (``tiers``: team -> "best", "tied" — its paired test against the best entry is
        not significant after Holm's correction — or "worse"; teams whose statistics are not
        computed yet are absent)."""
        def make():
            from d3mkit.server.board import ALPHA, problem_statistics
            board = self.board(version, part)
            out = board.to_dict()
            stats = self.problem_statistics(part)
            for p, d in zip(board.problems, out["problems"]):
                _ci, ties, _c = problem_statistics(p, stats.get(p.problem_id), self.challenge.precision)
                best = [r["team"] for r in p.rows if r["rank"] == 1]
                d["tiers"] = {**{t: "best" for t in best}, **ties} if ties or best else {}
            return json.dumps({"challenge": self.challenge.name, "finalized": self.store.finalized(),
                               "version": version, "alpha": ALPHA, **out}).encode()
        return self._get(version, ("json", part), make)

    def sections(self, version, finalized: bool) -> str:
        """The boards' HTML (the campaign renderer's sections) for the page and its fragment."""
        def make():
            from d3mkit.server import pages
            from d3mkit.server.board import leaderboard_model
            failures = self.store.failures_by_team()
            names = self.store.teams()
            failed = {names.get(k, k): n for k, n in failures.items()}
            parts = ["public", "private"] if finalized else ["public"]
            models = [leaderboard_model(self.challenge, self.board(version, part), failures=failed,
                                        statistics=self.problem_statistics(part)) for part in parts]
            return pages.board_sections(models, {part: self.board(version, part).baselines for part in parts})
        return self._get(version, ("sections", finalized), make)

    def problem_statistics(self, part: str) -> dict:
        prefix = f"stats:{part}:"
        return {name[len(prefix):]: json.loads(v) for name, v in self.store.states(prefix).items()}
