"""Session-wide checks of the test run.

Every issue code d3mkit emits while the tests run is recorded (wherever it was built: a
literal, a constant, an f-string, a value passed through helpers), and the session fails
when one is not in the catalogue (d3mkit/core/codes.py). The static scan of
tests/architecture/test_codes_catalogue.py sees the codes in the sources; this sees the codes the tests
make d3mkit emit. Issues built by the tests themselves or by doctest examples are not
d3mkit's and are not recorded."""

from __future__ import annotations

import sys
from pathlib import Path

# Compiled test modules (pytest's assertion rewriting) and d3mkit modules are cached in
# __pycache__ even where PYTHONDONTWRITEBYTECODE=1 is set: without the cache every run
# rewrites and compiles ~400 modules again (10-20 s of the fast subset's CPU, once per xdist
# worker). Set here, before pytest imports the first test module.
sys.dont_write_bytecode = False

# The tests mirror d3mkit's packages (tests/<package>/test_*.py; tests/attack, crash,
# architecture and tour hold the suites that cut across them). The helpers (tests/_*.py) sit
# here and a test module may import another's helpers, so every folder is importable by module
# name, whichever files a run collects (names are unique: pytest's prepend import mode needs it).
_HERE = Path(__file__).resolve().parent
for _d in [_HERE, *sorted(p for p in _HERE.iterdir() if p.is_dir() and p.name.isidentifier()
                       and not p.name.startswith("_") and p.name != "data")]:
    if str(_d) not in sys.path:
        sys.path.insert(0, str(_d))

import pytest

_HELPERS = {"d3mkit.core.errors", "d3mkit.core.codes", "d3mkit.validation.codes", "d3mkit.validation.common",
            "d3mkit.tables.rows"}
EMITTED: dict[str, str] = {}   # code -> the d3mkit module that first emitted it


def _emitter() -> str | None:
    """The d3mkit module an Issue is being built for (skipping the issue helpers), or None
    when a test or a doctest example builds it."""
    f = sys._getframe(2)
    while f is not None and f.f_globals.get("__name__") in _HELPERS \
            and not f.f_code.co_filename.startswith("<doctest"):
        f = f.f_back
    if f is None or f.f_code.co_filename.startswith("<doctest"):
        return None
    name = f.f_globals.get("__name__", "")
    return name if name.startswith("d3mkit") else None


def pytest_configure(config):
    # What the tests write is scratch: no flushes to the disk (d3mkit/io/atomic.py; what
    # D3MKIT_FSYNC=0 is for). The fast subset made ~8,800 fsync calls of 2-5 ms each on this
    # machine's disk, a quarter of its wall time. tests/crash/test_durability.py turns them back on
    # to check their order; D3MKIT_FSYNC=1 in the environment keeps them on for every test.
    import os
    os.environ.setdefault("D3MKIT_FSYNC", "0")
    from d3mkit.core.errors import Issue
    init = Issue.__init__

    def recording_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if self.code not in EMITTED:
            who = _emitter()
            if who is not None:
                EMITTED[self.code] = who
    Issue.__init__ = recording_init


def uncatalogued() -> dict[str, str]:
    from d3mkit.core.codes import CODES
    return {c: m for c, m in EMITTED.items() if c not in CODES and not c.startswith("schema.")}


def pytest_testnodedown(node, error):
    """Under pytest-xdist each worker records what its tests made d3mkit emit; the
    controller gathers them so that the check below sees the whole run."""
    for code, who in getattr(node, "workeroutput", {}).get("d3mkit_emitted", {}).items():
        EMITTED.setdefault(code, who)


def pytest_sessionfinish(session, exitstatus):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:              # an xdist worker: hand the codes to the controller
        workeroutput["d3mkit_emitted"] = dict(EMITTED)
        return
    bad = uncatalogued()
    if bad:
        lines = "\n".join(f"  {c} (emitted by {m})" for c, m in sorted(bad.items()))
        session.config.get_terminal_writer().line(
            f"\nissue codes emitted during the tests that are not in d3mkit/core/codes.py:\n{lines}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
