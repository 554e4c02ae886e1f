"""A warm process that forks the children of Python systems: the bridge's start-up cost paid
once per ``d3mkit run``, not once per fold.

What this module owns: :class:`Zygote` (the caller's handle) and :func:`serve` (the process,
``python -m d3mkit.systems.zygote``). The zygote is started with the sandbox's kind of
environment (:meth:`d3mkit.systems.handover.Sandbox.env`: the allow-list, the thread caps,
d3mkit's ``PYTHONPATH``; no ``D3MKIT_*``), in an empty directory of its own, imports numpy,
pandas, scikit-learn and :mod:`d3mkit.systems.data` once, then for each request (one JSON
line on its stdin: the child's arguments, its working directory, environment and log file)
forks a child that starts a session of its own, moves into the sandbox, replaces its
environment, sets its hard memory cap, sends its output to the log and runs :func:`d3mkit.systems.child.main`. The
zygote answers ``{"pid"}`` at once and ``{"pid", "code", "maxrss_mb"}`` when the child exits
(it is the child's parent, so it reaps it, and reads its peak resident memory then). The
caller watches and kills the child's process tree exactly as it does a child it started
itself (:mod:`d3mkit.systems.limits`).

The zygote computes nothing before it forks, so no BLAS or OpenMP thread pool exists to be
broken by ``fork``. It holds no path of a task root: it is only ever sent sandbox paths.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
from pathlib import Path

WARM = ("numpy", "pandas", "sklearn.ensemble", "sklearn.compose", "sklearn.impute", "sklearn.preprocessing",
        "sklearn.pipeline", "sklearn.feature_extraction.text", "d3mkit.systems.data", "d3mkit.systems.features",
        "d3mkit.systems.plugins", "d3mkit.validation.coltypes")


class Zygote:
    """The caller's handle: :meth:`start` a child, :meth:`wait` for its exit code."""

    def __init__(self, env: dict[str, str]):
        self.home = tempfile.mkdtemp(prefix="d3mkit-zygote-")
        self.proc = subprocess.Popen([sys.executable, "-m", "d3mkit.systems.zygote"], cwd=self.home, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, bufsize=1)
        self.env = env
        self._ready = False     # its imports go on while the caller writes the first fold's views
        self.last_maxrss_mb = 0.0   # the peak resident memory of the last child that exited

    def wait_ready(self) -> None:
        """Block until the zygote has done its imports (once)."""
        if not self._ready:
            if not self.proc.stdout.readline():
                raise OSError("the zygote process ended before it was ready")
            self._ready = True

    def alive(self) -> bool:
        return self.proc.poll() is None

    def start(self, argv: list[str], cwd: str, env: dict[str, str], log: str, memory_mb: float | None = None) -> int:
        """Fork a child running ``child.main(argv)``, its hard memory cap set for
        ``memory_mb`` (:func:`d3mkit.systems.limits.cap_process`); return its pid."""
        self.wait_ready()
        self.proc.stdin.write(json.dumps({"argv": argv, "cwd": cwd, "env": env, "log": log,
                                          "memory_mb": memory_mb}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise OSError("the zygote process ended")
        return int(json.loads(line)["pid"])

    def wait(self, timeout: float) -> int | None:
        """The child's exit code (negative: killed by that signal) when it has exited within
        ``timeout`` seconds, else None."""
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        if not line:
            raise OSError("the zygote process ended")
        done = json.loads(line)
        self.last_maxrss_mb = float(done.get("maxrss_mb") or 0.0)
        return int(done["code"])

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        import shutil
        shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _child(request: dict) -> None:
    """In the forked child: a session of its own, its hard memory cap, the sandbox, its
    environment, its log."""
    import time
    from d3mkit.systems.limits import cap_process
    os.setsid()
    cap_process(None, request.get("memory_mb"))
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    fd = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    os.close(devnull)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    from d3mkit.systems import child
    child.STARTED = time.time()
    code = 1
    try:
        code = child.main(request["argv"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:   # noqa: BLE001 - the traceback goes to the log, as in a fresh child
        import traceback
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def serve() -> int:
    from importlib import import_module
    for m in WARM:
        try:
            import_module(m)
        except ImportError:
            pass
    import gc
    gc.freeze()     # the children's collections leave the warm objects (and their pages) alone
    sys.stdout.write(json.dumps({"ready": True}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:
                _child(request)
            finally:
                os._exit(1)
        sys.stdout.write(json.dumps({"pid": pid}) + "\n")
        sys.stdout.flush()
        _, status, usage = os.wait4(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        # its peak resident memory (KB on Linux), which a child quicker than a sample has too
        sys.stdout.write(json.dumps({"pid": pid, "code": code, "maxrss_mb": usage.ru_maxrss / 1024}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(serve())
