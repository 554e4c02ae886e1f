"""Problem <-> dataset checks (problemDoc against the datasetDoc it names).

Targets (resID a table of the dataset; colIndex and colName the same column; targetIndex
0..n-1 once each; numClusters only for clustering), taskType/taskSubType consistency and
metric applicability (custom ``other`` metrics resolved through the metric registry).
Locations are JSON paths into the problemDoc.
"""

from __future__ import annotations

from d3mkit.core.errors import Issue
from d3mkit.core.registry import registry
from d3mkit.validation.codes import make
from d3mkit.validation.common import as_dict, as_int, as_list, as_str
from d3mkit.validation.files import DatasetContext, is_table, declared_columns
from d3mkit.documents.versions import task_of

SUBTYPES = {
    "binary": ("classification", "vertexNomination", "vertexClassification", "semiSupervisedClassification"),
    "multiClass": ("classification", "vertexNomination", "vertexClassification", "semiSupervisedClassification"),
    "multiLabel": ("classification", "vertexClassification", "semiSupervisedClassification"),
    "univariate": ("regression", "semiSupervisedRegression", "timeSeriesForecasting"),
    "multivariate": ("regression", "semiSupervisedRegression", "timeSeriesForecasting"),
    "overlapping": ("clustering", "communityDetection"),
    "nonOverlapping": ("clustering", "communityDetection"),
}

def _registered(name: str):
    """The registry's Metric called ``name``, or None (a broken plugin is not our crash)."""
    try:
        return registry().get(name)
    except ImportError:
        raise
    except Exception:
        return None


def check_targets(problem: dict, datasets: dict[int, DatasetContext | None], p: str) -> list[Issue]:
    out: list[Issue] = []
    task, _ = task_of(problem.get("about"))
    all_idx: list[tuple[str, int]] = []
    for i, entry in enumerate(as_list(as_dict(problem.get("inputs")).get("data"))):
        ctx = datasets.get(i)
        for j, t in enumerate(as_list(as_dict(entry).get("targets"))):
            if not isinstance(t, dict):
                continue
            loc = f"inputs.data[{i}].targets[{j}]"
            ti = as_int(t.get("targetIndex"))
            if ti is not None:
                all_idx.append((loc, ti))
            if "numClusters" in t and task != "clustering":
                out.append(make("target.num_clusters", f"{loc}.numClusters",
                                f"numClusters applies to clustering only, not taskType {task!r}", p))
            if ctx is None or ctx.data is None:
                continue
            rid = t.get("resID")
            found = ctx.resource(rid)
            if found is None:
                out.append(make("target.resource_missing", f"{loc}.resID",
                                f"dataset {ctx.dataset_id!r} has no resource with resID {rid!r}", p))
                continue
            res = found[1]
            if not is_table(res):
                out.append(make("target.not_table", f"{loc}.resID",
                                f"resource {rid!r} is a {res.get('resType')!r}{' collection' if res.get('isCollection') else ''}, not a table", p))
                continue
            cols = declared_columns(res)
            ci, cn = as_int(t.get("colIndex")), as_str(t.get("colName"))
            by_index = next((c for c in cols if c["colIndex"] == ci), None)
            by_name = next((c for c in cols if c["colName"] == cn), None)
            if ci is None or cn is None:
                continue   # the schema reports the missing or mistyped field
            header = ctx.csv_header(rid) if ctx.minimal_metadata else None
            if header is not None and by_index is None and by_name is None:
                # 4.0.0 minimal metadata: an undeclared column is the CSV's column at colIndex
                if not (0 <= ci < len(header)) or header[ci] != cn:
                    where = (f"the file's column {ci} is {header[ci]!r}" if 0 <= ci < len(header)
                             else f"the file has {len(header)} columns")
                    out.append(make("target.column_missing", f"{loc}.colName",
                                    f"resource {rid!r} declares no column {cn!r} at colIndex {ci}, and {where}", p))
            elif by_index is None and by_name is None:
                out.append(make("target.column_missing", f"{loc}.colName",
                                f"resource {rid!r} has neither a column at colIndex {ci} nor one named {cn!r}", p))
            elif by_index is None:
                out.append(make("target.column_mismatch", f"{loc}.colIndex",
                                f"colName {cn!r} is colIndex {by_name['colIndex']} in the dataset, "
                                f"but colIndex is {ci} (no such column)", p))
            elif by_name is None or by_index is not by_name:
                where = f"colIndex {by_name['colIndex']}" if by_name else "not a column of the resource"
                out.append(make("target.column_mismatch", f"{loc}.colName",
                                f"colIndex {ci} is column {by_index['colName']!r}, but colName is {cn!r} ({where})", p))
    seen: dict[int, str] = {}
    for loc, ti in all_idx:
        if ti in seen:
            out.append(make("target.index_duplicate", f"{loc}.targetIndex",
                            f"targetIndex {ti} is also used by {seen[ti]}", p))
        else:
            seen[ti] = loc
    if seen and sorted(seen) != list(range(len(seen))):
        bad = [(loc, ti) for ti, loc in seen.items() if not 0 <= ti < len(seen)]
        for loc, ti in bad or [(next(iter(seen.values())), min(seen))]:
            out.append(make("target.index_range", f"{loc}.targetIndex",
                            f"targetIndex values must be 0..{len(seen) - 1}; found {sorted(seen)}", p))
    return out


def check_task(problem: dict, p: str) -> list[Issue]:
    task, sub = task_of(problem.get("about"))
    where = "about.taskSubType" if "taskSubType" in as_dict(problem.get("about")) else "about.taskKeywords"
    if task is None or sub is None or sub not in SUBTYPES or sub == "none":
        return []
    if task not in SUBTYPES[sub]:
        return [make("task.subtype", where,
                     f"taskSubType {sub!r} applies to {' or '.join(SUBTYPES[sub])}, not taskType {task!r}", p)]
    return []


def check_metrics(problem: dict, p: str) -> list[Issue]:
    out: list[Issue] = []
    task, sub = task_of(problem.get("about"))
    for k, m in enumerate(as_list(as_dict(problem.get("inputs")).get("performanceMetrics"))):
        m = as_dict(m)
        name = as_str(m.get("metric"))
        loc = f"inputs.performanceMetrics[{k}]"
        if name is None:
            continue
        if name == "other":
            custom = as_str(m.get("specifyOther"))
            if custom is None:
                continue   # the schema requires specifyOther with other
            metric = _registered(custom)
            if metric is None:
                out.append(make("metric.unregistered", f"{loc}.specifyOther",
                                f"custom metric {custom!r} is not registered; d3mkit cannot score it "
                                f"(see `d3mkit metrics`)", p))
                continue
            tasks, name = tuple(metric.task_types), custom
            loc = f"{loc}.specifyOther"
        elif (metric := _registered(name)) is not None and metric.standard:
            tasks = tuple(metric.task_types)     # the registry owns which tasks a metric fits
            loc = f"{loc}.metric"
        else:
            continue   # not a 3.1.1 metric: the schema reports it
        if task is None:
            continue
        if "objectDetection" in tasks and task != "objectDetection":
            out.append(make("metric.requires_task", loc,
                            f"{name} needs taskType objectDetection, not {task!r}", p))
        elif tasks and task not in tasks:
            out.append(make("metric.not_applicable", loc,
                            f"{name} is a metric for {'/'.join(tasks)}, not for taskType {task!r}", p))
        elif metric.binary_only and sub in ("multiClass", "multiLabel"):
            # the registry owns which metrics score binary problems only
            instead = [v for v in (f"{name}Macro", f"{name}Micro") if _registered(v) is not None]
            out.append(make("metric.not_applicable", loc,
                            f"{name} scores a binary problem; for {sub} use {' or '.join(instead)}"
                            if instead else f"{name} scores a binary problem, not a {sub} one", p))
    return out


def check_problem_dataset(problem: dict, datasets: dict[int, DatasetContext | None], p: str) -> list[Issue]:
    """All cross-document issues of ``problem`` (a parsed problemDoc) at path ``p``."""
    return check_targets(problem, datasets, p) + check_task(problem, p) + check_metrics(problem, p)
