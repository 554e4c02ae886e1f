"""The evaluation server: a challenge made from task roots, teams that submit
predictions over HTTP, scoring in worker processes, a live leaderboard. docs/server.md.

One module per concern:

* :mod:`~d3mkit.server.challenge` — the challenge directory: layout, ``challenge.json``,
  the downloadable TRAIN/TEST archives, the truth and its seeded public/private split;
* :mod:`~d3mkit.server.store` — the database (SQLite in WAL mode by default, PostgreSQL by
  URL, through SQLAlchemy Core) and its schema-version table;
* :mod:`~d3mkit.server.auth` — team tokens (hashed, compared in constant time), signed
  sessions, CSRF tokens, the per-team rate limit;
* :mod:`~d3mkit.server.scoring` — one submission scored in a worker (the public
  :func:`d3mkit.score`), and the redaction of what its issues may say;
* :mod:`~d3mkit.server.dispatch` — the background loop handing queued submissions to the
  project's executor (:mod:`d3mkit.io.executor`) and recording the results;
* :mod:`~d3mkit.server.board` — the leaderboard model (ranks from :mod:`d3mkit.evaluate.ranking`);
* :mod:`~d3mkit.server.upload` — the streaming multipart reader with its size cap;
* :mod:`~d3mkit.server.pages` — the HTML pages; :mod:`~d3mkit.server.routes` — the HTTP
  handlers, one module per area; :mod:`~d3mkit.server.app` — the ASGI application;
* :mod:`~d3mkit.server.client` — ``d3mkit submit``'s client (standard library only).

The optional extra ``[server]`` (Starlette, uvicorn, python-multipart, SQLAlchemy) is needed
by everything but the client; :func:`require` says so with one line.
"""

from __future__ import annotations

SERVER_EXTRA = 'pip install "d3mkit[server]"'


def require() -> None:
    """Raise a one-line error naming the extra when the server's libraries are missing."""
    import importlib.util
    missing = [m for m in ("starlette", "uvicorn", "python_multipart", "sqlalchemy")
               if importlib.util.find_spec(m) is None]
    if missing:
        from d3mkit.core import errors
        if hasattr(errors, "MissingDependency"):
            raise errors.MissingDependency(", ".join(missing), "server", "the evaluation server")
        raise errors.D3MKitError(errors.error(
            "dependency.missing", "", f"the evaluation server needs {', '.join(missing)}, which "
            f"is not installed: {SERVER_EXTRA}"), 3)
