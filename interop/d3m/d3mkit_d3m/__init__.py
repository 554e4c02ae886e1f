"""d3mkit's metrics inside the D3M reference runtime (d3m 2022.5.5).

Imported by d3m's ``-M d3mkit_d3m`` option (before d3m parses its arguments), this module:

1. asks d3mkit for its metric registry (``d3mkit metrics --format json``) and registers every
   metric d3m does not have with ``PerformanceMetric.register_metric`` (best/worst values,
   confidence requirement), then makes the name reachable from ``PerformanceMetric.parse``
   (registration alone does not add it to the parser's map) and from d3m's JSON schema of
   problem descriptions (whose metric enumeration would reject it);
2. puts a problem loader *in front of* d3m's own (``Problem.loaders`` is tried in order and
   d3m's D3M loader accepts every problemDoc.json, so an appended loader would never run)
   which reads ``{"metric": "other", "specifyOther": NAME}`` as the registered metric NAME;
3. computes each registered metric by running ``d3mkit score`` (the one implementation of
   d3mkit's metric math, which needs Python >= 3.10) on the truth and predictions frames d3m
   hands to the metric, written to a temporary directory, with the last problemDoc loaded.

``D3MKIT_COMMAND`` names the d3mkit command (split like a shell word list; default
``d3mkit``); ``D3MKIT_METADATA_DIR`` is passed as ``--metadata-dir`` for metrics that read
per-row metadata (the ``<name>_debug`` directory of the task root).
"""

import json
import os
import shlex
import subprocess
import tempfile
import threading
from pathlib import Path

from d3m import metrics as d3m_metrics
from d3m.metadata import base as d3m_base
from d3m.metadata import problem as d3m_problem

__all__ = ["registered", "score_with_d3mkit"]

_STATE = threading.local()
_LAST_PROBLEM = {"path": None}
registered = {}   # name -> d3mkit's metric description


def _command():
    return shlex.split(os.environ.get("D3MKIT_COMMAND", "d3mkit"))


def _run(args):
    proc = subprocess.run(_command() + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    return proc.returncode, proc.stdout, proc.stderr


def _d3mkit_metrics():
    try:
        code, out, err = _run(["metrics", "--format", "json"])
    except OSError as exc:
        raise ImportError("d3mkit_d3m: cannot run d3mkit ({}); set D3MKIT_COMMAND".format(exc))
    if code != 0:
        raise ImportError("d3mkit_d3m: 'd3mkit metrics' failed: " + err.strip().splitlines()[-1:][0]
                          if err.strip() else "d3mkit_d3m: 'd3mkit metrics' failed")
    return json.loads(out)["metrics"]


def score_with_d3mkit(name, truth, predictions):
    """The value of d3mkit metric ``name`` for d3m's ``truth`` and ``predictions`` frames."""
    problem = _LAST_PROBLEM["path"]
    if problem is None:
        raise ValueError("d3mkit_d3m: no problemDoc was loaded; d3mkit scores against one")
    with tempfile.TemporaryDirectory(prefix="d3mkit-d3m-") as tmp:
        t, p = Path(tmp) / "targets.csv", Path(tmp) / "predictions.csv"
        truth.to_csv(t, index=False)
        predictions.to_csv(p, index=False)
        args = ["score", "--problem", str(problem), "--predictions", str(p), "--targets", str(t),
                "--format", "json"]
        if os.environ.get("D3MKIT_METADATA_DIR"):
            args += ["--metadata-dir", os.environ["D3MKIT_METADATA_DIR"]]
        code, out, err = _run(args)
    try:
        report = json.loads(out)
    except ValueError:
        report = None
    if code != 0 or report is None:
        raise ValueError("d3mkit score failed: " + (err.strip() or out.strip())[:2000])
    values = [s["value"] for s in report["scores"] if s["metric"] == name]
    if len(values) != 1:
        raise ValueError("d3mkit score gave {} values for {!r}".format(len(values), name))
    value = values[0]
    return float("nan") if value is None else float(value)


def _score_class(name):
    class D3mkitMetric(d3m_metrics.Metric):
        def __init__(self, **params):
            self.params = params   # d3mkit reads its parameters from the problemDoc

        def score(self, truth, predictions):
            return score_with_d3mkit(name, truth, predictions)

    D3mkitMetric.__name__ = D3mkitMetric.__qualname__ = "D3mkit_" + name
    return D3mkitMetric


def _register(metrics):
    PM = d3m_problem.PerformanceMetric
    known = set(PM.get_map())
    names = []
    for m in metrics:
        name = m["name"]
        if name in known:
            continue
        best, worst = m["best"], m["worst"]
        PM.register_metric(name, best_value=float(best), worst_value=float(worst),
                           score_class=_score_class(name),
                           requires_score=bool(m.get("needsConfidence")))
        PM.get_map()[name] = PM[name]
        registered[name] = m
        names.append(name)
    if names:
        # d3m validates problem descriptions (and pipeline runs) against its JSON schema,
        # whose metric enumeration lists its own metrics only
        forms = d3m_base.DEFINITIONS_JSON["definitions"]["performance_metric"]["oneOf"]
        forms.append({"properties": {"metric": {"enum": names}, "params": {"type": "object"}}})


_original_parse = d3m_problem.PerformanceMetric.parse.__func__


def _parse(cls, name):
    queue = getattr(_STATE, "other", None)
    if name == "other" and queue:
        name = queue.pop(0)
    return _original_parse(cls, name)


class D3mkitProblemLoader(d3m_problem.D3MProblemLoader):
    """d3m's D3M problem loader, reading ``{"metric": "other", "specifyOther": NAME}`` as
    the registered metric NAME (an unregistered NAME is d3m's KeyError, as before)."""

    def load(self, problem_uri, **kwargs):
        path = Path(d3m_problem.utils.uri_to_path(problem_uri))
        try:
            with open(str(path), "r", encoding="utf8") as fh:
                doc = json.load(fh)
            metrics = doc["inputs"]["performanceMetrics"]
            _STATE.other = [m["specifyOther"] for m in metrics
                            if isinstance(m, dict) and m.get("metric") == "other"]
        except (OSError, ValueError, KeyError, TypeError):
            _STATE.other = []   # d3m's own loader reports the problem
        try:
            problem = super().load(problem_uri, **kwargs)
        finally:
            _STATE.other = []
        _LAST_PROBLEM["path"] = path
        return problem


def install():
    """Register d3mkit's metrics and the loader (idempotent)."""
    if getattr(install, "done", False):
        return
    _register(_d3mkit_metrics())
    d3m_problem.PerformanceMetric.parse = classmethod(_parse)
    loaders = d3m_problem.Problem.loaders
    if not any(isinstance(x, D3mkitProblemLoader) for x in loaders):
        loaders.insert(0, D3mkitProblemLoader())
    install.done = True


install()
