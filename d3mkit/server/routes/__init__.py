"""The server's HTTP handlers, one module per area, each a list ``ROUTES`` of Starlette routes
whose handlers are module-level functions (importable and testable one by one):

* :mod:`.submissions` — the submissions API (``/api/submissions...``);
* :mod:`.boards` — the leaderboard: its JSON, its HTML fragment, the page, the problems, the
  downloads and the page's CSS and script;
* :mod:`.teams` — logging in and out and a team's own page, its upload and cancel forms;
* :mod:`.organisers` — what the organisers see (the queue) and the final results;
* :mod:`.health` — ``/healthz``.

A handler takes everything from its request: the server's state is
:class:`~d3mkit.server.routes.common.ServerState`, held by the app (``app.state.server``,
set by :func:`d3mkit.server.app.make_app`); there are no module-level variables.
"""
