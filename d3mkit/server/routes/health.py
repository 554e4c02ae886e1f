"""``GET /healthz``: ``{"status": "ok"}`` when the database answers and, where this app runs
the dispatcher, something can score; 503 with the reason otherwise (for a load balancer or
an orchestrator's probe).
"""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.routing import Route

from d3mkit.server.routes.common import state


def healthz(request):
    st = state(request)
    try:
        st.store.version()
    except Exception:
        return JSONResponse({"status": "unavailable", "reason": "the database does not answer"}, 503)
    if st.scoring:
        h = st.dispatcher.health()
        if not h["ok"]:
            return JSONResponse({"status": "unhealthy", "reason": h["reason"],
                                 "workers_alive": h["workers_alive"]}, 503)
        return JSONResponse({"status": "ok", "workers_alive": h["workers_alive"]})
    return JSONResponse({"status": "ok"})


ROUTES = [Route("/healthz", healthz, methods=["GET"])]
