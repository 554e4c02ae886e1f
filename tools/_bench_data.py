"""Synthetic task roots of a given row count, shared by the bench_*.py scripts.

``make_task_root(out, n, seed)`` writes ``out/bench<n>/`` through TaskRootWriter (without
its own validation, which is what the benchmarks time): learningData with d3mIndex, two
real features, an integer, a dateTime, a boolean and a categorical target of 10 string
labels; a stratified-free holdOut 0.2 dataSplits.csv; problem classification/multiClass
with accuracy and f1Macro. ``make_predictions(root, n, seed, accuracy)`` writes a
predictions.csv for the TEST rows that is right about ``accuracy`` of the time.
``best_of(fn, repeat)`` is the shortest of ``repeat`` timed calls, in seconds;
``run_measured(module, args, env)`` runs ``python -m module`` in a child process and
returns its wall and CPU seconds and its own peak memory;
``with_bytecode(env)`` the environment a measured child runs in: d3mkit's modules compiled
once (``__pycache__`` in this checkout), as an installed package's are, so that no figure
pays for compiling d3mkit's source on every run (this machine sets
``PYTHONDONTWRITEBYTECODE=1``; the peers' packages were compiled when pip installed them);
``md_table(header, rows)`` a markdown table; ``emit(text, name, save)`` prints a report
and, with ``save``, writes it to ``tools/results/<name>``; ``versions_line()`` the numpy,
pandas and pyarrow versions of this interpreter (the one the measured children run), for
the line a bench prints beside its figures.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.taskroot.writer import TaskRootWriter

def versions_line() -> str:
    """``numpy X, pandas Y, pyarrow Z`` (``pyarrow not installed``) of this interpreter:
    pandas 3 stores strings as Arrow when pyarrow is importable, so a figure means little
    without it."""
    import importlib.util
    import sys
    try:
        import pyarrow
        arrow = f"pyarrow {pyarrow.__version__}"
    except ImportError:
        arrow = "pyarrow not installed" if importlib.util.find_spec("pyarrow") is None else "pyarrow broken"
    return (f"python {sys.version.split()[0]}, numpy {np.__version__}, pandas {pd.__version__}, "
            f"{arrow}")


def md_table(header: list[str], rows) -> list[str]:
    """Lines of a markdown table (cells already formatted)."""
    return [f"| {' | '.join(header)} |", "|" + "---|" * len(header)] + \
        [f"| {' | '.join(map(str, r))} |" for r in rows]


def emit(text: str, name: str, save: bool) -> None:
    """Print a benchmark report; with ``save`` also write ``tools/results/<name>``."""
    print(text)
    if save:
        out = Path(__file__).resolve().parent / "results"
        out.mkdir(exist_ok=True)
        (out / name).write_text(text)


def timed(fn, repeat: int = 3) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of the fastest of ``repeat`` calls of ``fn()``."""
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        best = min(best, (time.perf_counter() - t, time.process_time() - c))
    return best


def best_of(fn, repeat: int = 3) -> float:
    """Seconds of the fastest of ``repeat`` calls of ``fn()``."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


_RUNNER = """
import atexit, runpy, sys
def _peak():
    try:
        with open("/proc/self/status") as fh:
            kb = next((line.split()[1] for line in fh if line.startswith("VmHWM:")), None)
    except OSError:
        kb = None
    if kb is None:   # no /proc: ru_maxrss, which may include the parent's size at the spawn
        import resource
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("PEAK_KB", kb, file=sys.stderr, flush=True)
atexit.register(_peak)
sys.argv = sys.argv[1:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


def run_measured(module: str, args: list[str], env: dict | None = None) -> dict:
    """Run ``python -m module args...`` in a child process; its wall and CPU seconds, peak
    resident memory (MB), exit code, stdout and stderr. The peak is the child's own
    ``VmHWM`` (Linux): ``ru_maxrss`` would also count the benchmark process's size at the
    spawn (Linux keeps the high-water mark across fork and exec)."""
    import os
    import subprocess
    import sys
    import tempfile
    env = with_bytecode(env)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-c", _RUNNER, module, *map(str, args)], env=env,
                             stdout=out, stderr=err, cwd=tempfile.gettempdir())
        _pid, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        out.seek(0)
        err.seek(0)
        stdout, lines = out.read().decode(), err.read().decode().splitlines()
    peak = [float(ln.split()[1]) / 1024 for ln in lines if ln.startswith("PEAK_KB ")]
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "peak_mb": peak[-1] if peak else float("nan"),
            "code": os.waitstatus_to_exitcode(status), "stdout": stdout,
            "stderr": "\n".join(ln for ln in lines if not ln.startswith("PEAK_KB "))}


_COMMAND = """
import resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
dt = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(dt, ru.ru_maxrss, rc, ru.ru_utime + ru.ru_stime)
"""


_COMPILED: set[str] = set()


def with_bytecode(env: dict | None = None) -> dict:
    """``env`` (default: this process's) without ``PYTHONDONTWRITEBYTECODE``, after compiling
    the d3mkit package of this checkout once (``python -m compileall``); a checkout named on
    the environment's ``PYTHONPATH`` (``--before``) caches its own on its first run."""
    import os
    import subprocess
    import sys
    repo = str(Path(__file__).resolve().parent.parent)
    if repo not in _COMPILED:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(repo) / "d3mkit")],
                       env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
                       check=True, stdout=subprocess.DEVNULL)
        _COMPILED.add(repo)
    return {k: v for k, v in (os.environ if env is None else env).items() if k != "PYTHONDONTWRITEBYTECODE"}


def measure_command(cmd: list[str], env: dict | None = None) -> tuple[float, float, float]:
    """(wall seconds, peak RSS MiB of the largest process, CPU seconds of all its processes)
    of running any command ``cmd`` to completion (a small Python parent times it and reads
    its children's rusage), with this checkout first on ``PYTHONPATH`` unless ``env`` is
    given (:func:`with_bytecode`), from the temporary directory (``python -m`` and ``-c`` put
    the working directory first on ``sys.path``: from a checkout, its d3mkit would shadow the
    ``PYTHONPATH`` of ``--before``); a failing command stops the benchmark. The file systems
    are synced first (``os.sync``): a previous run that wrote a large file (an import's
    learningData) would otherwise have the kernel write it back during this one."""
    import os
    import subprocess
    import sys
    import tempfile
    if env is None:
        env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    env = with_bytecode(env)
    os.sync()       # the previous run's files on the disk: its writeback does not land in this one
    out = subprocess.run([sys.executable, "-c", _COMMAND, *cmd], capture_output=True, text=True,
                         env=env, check=True, cwd=tempfile.gettempdir()).stdout.split()
    if out[2] != "0":
        raise SystemExit(f"command failed ({out[2]}): {' '.join(cmd)}")
    return float(out[0]), int(out[1]) / 1024, float(out[3])


LABELS = np.array([f"label_{i}" for i in range(10)])


def learning_data(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    days = rng.integers(0, 3650, n)
    return pd.DataFrame({
        "d3mIndex": np.arange(n, dtype=np.int64),
        "x1": rng.normal(size=n).round(6),
        "x2": rng.uniform(size=n).round(6),
        "count": rng.integers(0, 1000, n),
        "when": (np.datetime64("2015-01-01") + days.astype("timedelta64[D]")).astype(str),
        "flag": np.where(rng.random(n) < 0.5, "true", "false"),
        "label": LABELS[rng.integers(0, 10, n)],
    })


def make_task_root(out: Path, n: int, seed: int = 0) -> Path:
    df = learning_data(n, seed)
    types = ["integer", "real", "real", "integer", "dateTime", "boolean", "categorical"]
    return write_classification_root(out, f"bench{n}", df, types, ["accuracy", "f1Macro"], seed)


def write_classification_root(out: Path, name: str, df, types: list[str], metrics: list[str],
                              seed: int = 0) -> Path:
    """``out/name``: ``df`` as learningData (its first column the index, its last the
    multiClass target, colTypes ``types``) with a seeded 0.2 holdOut, written unvalidated."""
    target = df.columns[-1]
    cols = [Column(i, c, t, ("index",) if i == 0 else ("suggestedTarget",) if c == target
                   else ("attribute",)) for i, (c, t) in enumerate(zip(df.columns, types))]
    ddoc = DatasetDoc.new(f"{name}_dataset", name,
                          [Resource.table("learningData", "tables/learningData.csv", cols)])
    pdoc = ProblemDoc.new(f"{name}_problem", name, "classification", "multiClass", f"{name}_dataset",
                          [Target(0, "learningData", len(df.columns) - 1, target)],
                          [{"metric": m} for m in metrics],
                          splits={"method": "holdOut", "testSize": 0.2, "stratified": False,
                                  "numRepeats": 0, "randomSeed": seed})
    with TaskRootWriter(out, name, benchmark="bench", seed=seed, force=True, validate=False) as w:
        w.write_table("tables/learningData.csv", df)
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc)
    return w.root


def make_predictions(root: Path, path: Path, seed: int = 1, accuracy: float = 0.7) -> pd.DataFrame:
    """predictions.csv for the TEST rows of ``root`` (rows shuffled); returns the frame."""
    from d3mkit.taskroot.model import TaskRoot
    task = TaskRoot.open(root)
    _, test = task.split_indices()
    ld = task.learning_data()   # strings, as read
    labels = pd.Series(ld["label"].to_numpy(), index=ld["d3mIndex"].astype(np.int64).to_numpy())
    idx = np.asarray(test, dtype=np.int64)
    truth = labels.loc[idx].to_numpy()
    rng = np.random.default_rng(seed)
    wrong = rng.random(len(idx)) >= accuracy
    pred = truth.copy()
    pred[wrong] = LABELS[rng.integers(0, 10, int(wrong.sum()))]
    order = rng.permutation(len(idx))
    df = pd.DataFrame({"d3mIndex": idx[order], "label": pred[order]})
    df.to_csv(path, index=False)
    return df
