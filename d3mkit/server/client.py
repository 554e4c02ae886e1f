"""The client of the evaluation server (``d3mkit submit``): the standard library only
(``urllib``), so it works on the core install.

What this module owns: the request a submission is (multipart ``problem`` + ``file``, the
token as ``Authorization: Bearer``, an ``Idempotency-Key``), retrying it when the
connection fails (the same key, so a retry after a lost answer never records it twice),
and waiting for its score. Errors are :class:`~d3mkit.core.errors.D3MKitError` with the
server's code and message; the command maps them to exit codes.

Redirects are never followed: urllib would repeat the request to wherever a ``Location``
points — another host included — with the ``Authorization`` header, and turn the POST into
a GET whose answer is no submission. A redirect is an error naming its target; a submission
is accepted only by a ``202`` whose body names it.
"""

from __future__ import annotations

import http.client
import json
import secrets
import time
import urllib.error
import urllib.request
import uuid

from d3mkit.core.errors import EXIT_INVALID, EXIT_USAGE, D3MKitError, error

RETRIES = 4
TIMEOUT = 60.0


class ServerError(D3MKitError):
    """The server refused the request (HTTP ``status``) or could not be reached (status 0)."""

    def __init__(self, status: int, code: str, message: str, where: str):
        self.status = status
        exit_code = EXIT_INVALID if status in (400, 409, 413, 415, 422, 429) else EXIT_USAGE
        super().__init__(error(code, "", message, where), exit_code=exit_code)


def multipart(fields: dict[str, str], file_field: str, filename: str, data: bytes,
              content_type: str = "text/csv") -> tuple[bytes, str]:
    """(body, content type header) of a multipart/form-data request.

    >>> body, ctype = multipart({"problem": "p"}, "file", "predictions.csv", b"d3mIndex,y\\n")
    >>> ctype.startswith("multipart/form-data; boundary="), b'name="problem"' in body
    (True, True)
    """
    boundary = f"d3mkit-{secrets.token_hex(16)}"
    out = []
    for name, value in fields.items():
        out.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
                   + value.encode("utf-8") + b"\r\n")
    out.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; '
               f'filename="{filename}"\r\nContent-Type: {content_type}\r\n\r\n'.encode() + data + b"\r\n")
    out.append(f"--{boundary}--\r\n".encode())
    return b"".join(out), f"multipart/form-data; boundary={boundary}"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Follow no redirect: the 3xx answer comes back as an HTTPError (see the module docstring)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def _call(req: urllib.request.Request, where: str, retries: int = RETRIES, expect=(200,)) -> dict:
    delay = 0.5
    for attempt in range(retries + 1):
        try:
            with _OPENER.open(req, timeout=TIMEOUT) as resp:
                got = json.loads(resp.read().decode("utf-8") or "{}")
                if resp.status not in expect or not isinstance(got, dict):
                    raise ServerError(resp.status, "server.http", f"unexpected answer: HTTP {resp.status} "
                                      f"(expected {' or '.join(map(str, expect))})", where)
                return got
        except ServerError:
            raise
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:
                target = exc.headers.get("location", "") if exc.headers else ""
                raise ServerError(exc.code, "server.redirect", f"the server redirects (HTTP {exc.code}) to "
                                  f"{target[:200]!r}; not followed, so the token goes nowhere else: give "
                                  f"the server's own address", where) from None
            try:
                body = json.loads(exc.read().decode("utf-8"))["error"]
                code, message = str(body["code"]), str(body["message"])
            except Exception:
                code, message = "server.http", f"HTTP {exc.code} {exc.reason}"
            if exc.code in (502, 503, 504) and attempt < retries:
                time.sleep(delay)
                delay *= 2
                continue
            raise ServerError(exc.code, code, message, where) from None
        except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
            # HTTPException: a server that died mid-answer (IncompleteRead, a bad status line)
            if attempt < retries:
                time.sleep(delay)
                delay *= 2
                continue
            reason = getattr(exc, "reason", exc)
            raise ServerError(0, "server.unreachable", f"cannot reach the server: {reason}", where) from None
        except ValueError:
            raise ServerError(0, "server.http", "the server's answer is not JSON", where) from None
    raise AssertionError("unreachable")


def submit(server: str, token: str, problem: str, predictions, *, idempotency_key: str | None = None,
           retries: int = RETRIES) -> dict:
    """POST ``predictions`` (a path) for ``problem``; returns ``{"id", "status"}``."""
    from d3mkit.io.limits import open_regular
    with open_regular(predictions, "predictions file") as fh:
        data = fh.read()
    body, ctype = multipart({"problem": problem}, "file", "predictions.csv", data)
    url = server.rstrip("/") + "/api/submissions"
    req = urllib.request.Request(url, data=body, method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": ctype, "Accept": "application/json",
        "Idempotency-Key": idempotency_key or uuid.uuid4().hex})
    got = _call(req, url, retries, expect=(202,))
    if got.get("id") in (None, "") or "status" not in got:
        raise ServerError(202, "server.http", "the server's answer names no submission", url)
    return got


def cancel(server: str, token: str, sid: str) -> dict:
    """Cancel a queued submission; returns it (with its history)."""
    url = server.rstrip("/") + f"/api/submissions/{urllib.request.quote(sid, safe='')}/cancel"
    req = urllib.request.Request(url, data=b"", method="POST", headers={
        "Authorization": f"Bearer {token}", "Accept": "application/json"})
    return _call(req, url, retries=0)


def status(server: str, token: str, sid: str) -> dict:
    url = server.rstrip("/") + f"/api/submissions/{urllib.request.quote(sid, safe='')}"
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}",
                                               "Accept": "application/json"})
    return _call(req, url)


def wait(server: str, token: str, sid: str, timeout: float = 600.0) -> dict:
    """Poll the submission until it is scored or failed (or ``timeout`` seconds pass)."""
    end = time.monotonic() + timeout
    delay = 0.2
    while True:
        got = status(server, token, sid)
        if got.get("status") not in ("received", "queued", "scoring"):
            return got
        if time.monotonic() > end:
            raise ServerError(0, "server.timeout", f"submission {sid} still queued after {timeout:g} s",
                              server)
        time.sleep(delay)
        delay = min(2.0, delay * 1.5)
