"""What the organisers see: the queue (``/api/queue``), and the final results
(``/api/results.csv``: every entry's per-fold, per-metric values), shown to everyone once
the challenge is finalized and to the organisers before.
"""

from __future__ import annotations

import csv
import io

from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from d3mkit.server.board import results_rows
from d3mkit.server.routes.common import err, guarded, is_organiser, state, viewer


def get_results(request):
    """results.csv: every entry's per-fold, per-metric values, once finalized."""
    st = state(request)
    if not st.store.finalized() and not is_organiser(request):
        return err(403, "server.not_final", "the results are published once the challenge is finalized")
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(results_rows(st.challenge, st.store))
    return Response(buf.getvalue(), media_type="text/csv",
                    headers={"content-disposition": 'attachment; filename="results.csv"'})


def get_queue(request):
    who = viewer(request)
    if who is None or not who.organiser:
        return err(403, "server.organiser", "the queue is shown to the challenge's organisers")
    return JSONResponse(state(request).store.status_report())


ROUTES = [
    Route("/api/queue", get_queue, methods=["GET"]),
    Route("/api/results.csv", guarded(get_results), methods=["GET"]),
]
