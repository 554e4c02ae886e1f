"""An evaluation board (the output directory of ``d3mkit evaluate``) as Croissant Tasks
solutions and results (``d3mkit export croissant BOARD --results``): the one owner of the
board -> Tasks mapping (docs/interop.md, "Croissant Tasks: results").

Read: ``scores.csv`` (one row per system, problem, metric, repeat and fold: value, bootstrap
interval, rank) and ``aggregates.csv`` (one row per system, problem and metric: the mean over
the folds, their sd, how many, rank); ``summary.json`` for the interval's confidence level.
Written, one JSON-LD ``@graph`` (the Croissant 1.1 context):

* per system x problem with at least one row in aggregates.csv, a ``cr:TaskSolution``
  ``solution/<system>/<problemID>``, ``isBasedOn`` the problem (``problem/<problemID>``, the
  ``@id`` ``export croissant --tasks`` gives the TaskProblem: the same IRI when the files sit
  in one directory), whose ``cr:implementation`` is the system (an ``sc:SoftwareApplication``
  ``system/<system>``) and whose ``cr:evaluation`` is a ``cr:EvaluationTask`` with one
  ``cr:EvaluationResult`` per metric: ``cr:metric`` the scores.csv label, ``cr:value`` the
  aggregate mean, and ``d3m:sd``, ``d3m:folds``, ``d3m:rank`` (no Tasks term);
* per (repeat, fold) the system was scored on, a sub-solution (``cr:subTask``, a
  ``cr:TaskSolution`` ``isBasedOn`` the problem's subTask ``problem/<problemID>/repeat/R/fold/F``)
  with its own EvaluationTask: ``cr:value`` a ``QuantitativeValue`` whose ``value`` is the
  fold's score and ``minValue``/``maxValue`` its bootstrap interval (when the board has one;
  ``d3m:confidence`` its level), and ``d3m:rank``.

Every number is the board's (the CSV text read as a float, written as JSON numbers); a system
with no scored row for a problem (every submission failed, or none was made) gets nothing for
it, and a fold that failed has no sub-solution: failures.csv lists those.
"""

from __future__ import annotations

import json
from pathlib import Path

from d3mkit.core.errors import D3MKitError, Issue, UsageError, error

SCORES = "scores.csv"
AGGREGATES = "aggregates.csv"


#: where d3mkit benchmark puts the outputs of d3mkit evaluate inside its board
BENCHMARK_EVALUATION = "evaluation"


def evaluate_dir(board: Path | str) -> Path:
    """The directory holding an evaluate board's files: ``board`` itself (``d3mkit
    evaluate --out``), or its ``evaluation/`` (a ``d3mkit benchmark`` board)."""
    board = Path(board)
    if not (board / SCORES).is_file() and (board / BENCHMARK_EVALUATION / SCORES).is_file():
        return board / BENCHMARK_EVALUATION
    return board


def results_out(board: Path | str) -> Path:
    """The default output: ``results_tasks.json`` in the board."""
    return Path(board) / "results_tasks.json"


def _read(board: Path, name: str, columns: list[str]):
    from d3mkit.tables import read_table
    path = board / name
    if not path.is_file():
        raise UsageError(f"no {name}: not the output directory of d3mkit evaluate", str(board), code="usage.path")
    frame = read_table(path)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise D3MKitError(error("export.board", "", f"{name} has no column(s) {', '.join(missing)} "
                                "(not a d3mkit evaluate board)", str(path), row=1))
    return frame


def _number(text: str, where: dict, path: Path) -> float | None:
    """The cell ``text`` at ``where`` (``{"row", "column"}``) as a finite number, None when empty."""
    if text == "":
        return None
    try:
        v = float(text)
    except ValueError:
        raise D3MKitError(error("export.board", "", f"{text[:40]!r} is not a number", str(path), **where)) from None
    if v != v or v in (float("inf"), float("-inf")):
        raise D3MKitError(error("export.board", "", f"{text!r} is not a finite number", str(path), **where))
    return v


def _int(text: str, where: dict, path: Path) -> int | None:
    v = _number(text, where, path)
    if v is not None and not v.is_integer():
        raise D3MKitError(error("export.board", "", f"{text!r} is not an integer", str(path), **where))
    return None if v is None else int(v)


def _result(metric: str, value, **extra) -> dict:
    r = {"@type": "cr:EvaluationResult", "cr:metric": {"@value": metric}, "cr:value": value}
    r.update({f"d3m:{k}": v for k, v in extra.items() if v is not None})
    return r


def results_document(board: Path | str) -> dict:
    """The JSON-LD of the board ``board`` (module docstring)."""
    from d3mkit.evaluate.report import AGGREGATE_COLUMNS, SCORE_COLUMNS
    from d3mkit.interop.croissant import CONTEXT
    board = evaluate_dir(board)
    scores = _read(board, SCORES, SCORE_COLUMNS)
    aggregates = _read(board, AGGREGATES, AGGREGATE_COLUMNS)
    confidence = None
    summary = board / "summary.json"
    if summary.is_file():
        from d3mkit.documents.jsonio import load_json
        params = load_json(summary)
        params = params.get("parameters") if isinstance(params, dict) else None
        c = params.get("confidence") if isinstance(params, dict) else None
        confidence = c if isinstance(c, (int, float)) and not isinstance(c, bool) else None
    spath, apath = board / SCORES, board / AGGREGATES
    folds: dict[tuple[str, str], dict[tuple[int, int], list[dict]]] = {}
    for i, row in enumerate(scores.itertuples(index=False)):
        row_no = i + 2
        value = _number(row.value, {"row": row_no, "column": "value"}, spath)
        if value is None:
            continue
        lo = _number(row.ci_low, {"row": row_no, "column": "ci_low"}, spath)
        hi = _number(row.ci_high, {"row": row_no, "column": "ci_high"}, spath)
        qv = {"@type": "QuantitativeValue", "value": value}
        if lo is not None and hi is not None:
            qv.update(minValue=lo, maxValue=hi)
        key = (_int(row.repeat, {"row": row_no, "column": "repeat"}, spath), _int(row.fold, {"row": row_no, "column": "fold"}, spath))
        folds.setdefault((row.system, row.problemID), {}).setdefault(key, []).append(
            _result(row.metric, qv, rank=_int(row.rank, {"row": row_no, "column": "rank"}, spath),
                    confidence=confidence if lo is not None and hi is not None else None))
    means: dict[tuple[str, str], list[dict]] = {}
    for i, row in enumerate(aggregates.itertuples(index=False)):
        row_no = i + 2
        mean = _number(row.mean, {"row": row_no, "column": "mean"}, apath)
        if mean is None:
            continue
        means.setdefault((row.system, row.problemID), []).append(
            _result(row.metric, mean, sd=_number(row.sd, {"row": row_no, "column": "sd"}, apath),
                    folds=_int(row.folds, {"row": row_no, "column": "folds"}, apath),
                    rank=_int(row.rank, {"row": row_no, "column": "rank"}, apath)))
    graph, systems = [], {}
    for (system, pid) in sorted(set(means) | set(folds)):
        sid = f"system/{system}"
        if sid not in systems:
            systems[sid] = {"@type": "sc:SoftwareApplication", "@id": sid, "name": system}
        problem = f"problem/{pid}"
        solution = f"solution/{system}/{pid}"
        subs = []
        for (r, f), results in sorted(folds.get((system, pid), {}).items()):
            sub = f"{solution}/repeat/{r}/fold/{f}"
            fold_problem = {"@id": f"{problem}/repeat/{r}/fold/{f}"}
            evaluation = {"@type": "cr:EvaluationTask", "@id": f"evaluation/{system}/{pid}/repeat/{r}/fold/{f}",
                          "isBasedOn": fold_problem, "cr:evaluatedSolution": {"@id": sub},
                          "cr:evaluationResults": results}
            subs.append({"@type": "cr:TaskSolution", "@id": sub, "name": f"{system} on {pid}, repeat {r}, fold {f}",
                         "isBasedOn": fold_problem, "cr:implementation": {"@id": sid},
                         "d3m:repeat": r, "d3m:fold": f, "cr:evaluation": evaluation})
        node = {"@type": "cr:TaskSolution", "@id": solution, "name": f"{system} on {pid}",
                "isBasedOn": {"@id": problem}, "cr:implementation": {"@id": sid}}
        if (system, pid) in means:
            node["cr:evaluation"] = {"@type": "cr:EvaluationTask", "@id": f"evaluation/{system}/{pid}",
                                     "name": "the mean over the scored folds",
                                     "isBasedOn": {"@id": problem}, "cr:evaluatedSolution": {"@id": solution},
                                     "cr:evaluationResults": means[(system, pid)]}
        if subs:
            node["cr:subTask"] = subs
        graph.append(node)
    return {"@context": CONTEXT, "@graph": list(systems.values()) + graph}


def export_results(board: Path | str, out: Path | str) -> list[Issue]:
    """Write the results document of the board ``board`` to ``out`` atomically; no warnings."""
    from d3mkit.io.atomic import write_text
    board = Path(board)
    if not board.is_dir():
        raise UsageError("an evaluate board is a directory (the output of d3mkit evaluate)", str(board), code="usage.path")
    doc = results_document(board)
    write_text(out, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    return []
