"""Who is asking: team tokens, browser sessions and CSRF tokens.

What this module owns:

* **Tokens** (:func:`new_token`): ``d3m.<key id>.<secret>``, 32 random bytes of secret.
  Only its SHA-256 is stored (a token is high-entropy, so a fast hash is enough, as for API
  keys); :func:`check_token` looks the team up by the key id (not secret) and compares the
  hashes with :func:`hmac.compare_digest` (constant time).
* **Sessions** (the web pages): after a login with the token, a cookie holding
  ``<key id>.<expiry>.<HMAC>`` signed with the challenge's ``secret.key``; ``HttpOnly``,
  ``SameSite=Strict``.
* **CSRF** (every form post): the double-submit pattern — a random ``d3mkit_csrf`` cookie,
  and in each form a field holding its HMAC under the secret; a post whose field does not
  match its cookie is refused (and so is one whose ``Origin`` names another site).

The rate limits are the database's (:meth:`d3mkit.server.store.Store.rate_check`,
:meth:`~d3mkit.server.store.Store.login_attempt`), so every server process shares them.

>>> token, key_id, digest = new_token()
>>> token.startswith("d3m." + key_id + "."), check_hash(token, digest), check_hash(token + "x", digest)
(True, True, False)
>>> s = b"k" * 32
>>> team_of_session(sign_session(s, "abc", ttl=60), s)
'abc'
>>> signed = sign_session(s, "abc", ttl=60)
>>> team_of_session(signed[:-1] + ("1" if signed[-1] == "0" else "0"), s) is None   # tampered
True
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

PREFIX = "d3m"
SESSION_COOKIE = "d3mkit_session"
CSRF_COOKIE = "d3mkit_csrf"
SESSION_TTL = 12 * 3600


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def new_token() -> tuple[str, str, str]:
    """(token shown once, key id, stored hash)."""
    key_id = secrets.token_hex(6)
    token = f"{PREFIX}.{key_id}.{secrets.token_urlsafe(32)}"
    return token, key_id, _hash(token)


def key_id_of(token: str) -> str | None:
    """The key id a token names, or None for anything not shaped like a token."""
    parts = token.split(".")
    if len(parts) != 3 or parts[0] != PREFIX or not parts[1] or len(token) > 200:
        return None
    return parts[1]


def check_hash(token: str, stored_hash: str) -> bool:
    return _same(_hash(token), stored_hash)


def check_token(store, token: str | None):
    """The :class:`~d3mkit.server.store.Team` a bearer token belongs to, or None."""
    if not token:
        return None
    key_id = key_id_of(token)
    team = store.team(key_id) if key_id else None
    if team is None:
        check_hash(token, "0" * 64)          # the same work whether the key id exists or not
        return None
    return team if check_hash(token, team.token_hash) else None


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer ...`` header."""
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def _mac(secret: bytes, text: str) -> str:
    return hmac.new(secret, text.encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest()


def _same(given: str, expected: str) -> bool:
    """Constant-time equality of a client's text and an expected ASCII text:
    :func:`hmac.compare_digest` refuses a non-ASCII str, so both are compared as bytes (a
    non-ASCII cookie or form field is simply not equal, never an error)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"),
                               expected.encode("utf-8", "surrogateescape"))


def sign_session(secret: bytes, key_id: str, ttl: int = SESSION_TTL) -> str:
    body = f"{key_id}.{int(time.time()) + ttl}"
    return f"{body}.{_mac(secret, 'session:' + body)}"


def team_of_session(cookie: str | None, secret: bytes) -> str | None:
    """The key id of a valid, unexpired session cookie, else None."""
    if not cookie or cookie.count(".") != 2:
        return None
    key_id, expiry, mac = cookie.split(".")
    if not _same(mac, _mac(secret, f"session:{key_id}.{expiry}")):
        return None
    if not expiry.isdigit() or int(expiry) < time.time():
        return None
    return key_id


def new_csrf_cookie() -> str:
    return secrets.token_urlsafe(24)


def csrf_field(secret: bytes, cookie: str) -> str:
    """The hidden form field that goes with a CSRF cookie."""
    return _mac(secret, "csrf:" + cookie)


def csrf_ok(secret: bytes, cookie: str | None, field: str | None) -> bool:
    if not cookie or not field:
        return False
    return _same(str(field), csrf_field(secret, cookie))


MAX_TEAM_NAME = 100


def add_team(store, name: str, role: str = "team") -> str:
    """Register team ``name`` (or, with ``role="organiser"``, an organiser); return its
    token (shown once; only its hash is stored)."""
    from d3mkit.core.errors import D3MKitError, clean_text, error
    if not name.strip() or len(name) > MAX_TEAM_NAME or clean_text(name, cut=False) != name:
        raise D3MKitError(error("team.name", "", f"a team name is 1-{MAX_TEAM_NAME} printable "
                                f"characters, got {clean_text(name)[:120]!r}"))
    token, key_id, digest = new_token()
    store.add_team(key_id, name.strip(), digest, role)
    return token
