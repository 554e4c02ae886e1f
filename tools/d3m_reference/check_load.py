"""Load task roots with the D3M reference package (d3m 2022.5.5) and print ok/failed.

Run with the reference interpreter, not with d3mkit's:

    $D3MKIT_D3M_PYTHON tools/d3m_reference/check_load.py TASK_ROOT_OR_DOC...

Each argument may be a task root (``<name>_problem/problemDoc.json`` and
``<name>_dataset/datasetDoc.json`` inside it), a problem or dataset directory, or a
problemDoc.json/datasetDoc.json file. For every problemDoc it calls
``d3m.metadata.problem.Problem.load('file://...')``; for every datasetDoc
``d3m.container.Dataset.load('file://...')``. Prints one table row per document and exits
1 when any load failed, 2 when an argument names nothing loadable. Does not import d3mkit;
``-M d3mkit_d3m`` loads the d3mkit-d3m plugin first (problems with custom metrics).
"""

import argparse
import logging
import pathlib
import sys
import traceback


def find_docs(arg):
    p = pathlib.Path(arg).resolve()
    if p.is_file():
        return [p] if p.name in ("problemDoc.json", "datasetDoc.json") else []
    if not p.is_dir():
        return []
    direct = [p / n for n in ("problemDoc.json", "datasetDoc.json") if (p / n).is_file()]
    if direct:
        return direct
    return sorted(p.glob("*/problemDoc.json")) + sorted(p.glob("*/datasetDoc.json"))


def load(doc, verbose=False):
    """Return (ok, detail) for one document."""
    from d3m import container
    from d3m.metadata import problem as d3m_problem

    uri = doc.as_uri()
    try:
        if doc.name == "problemDoc.json":
            prob = d3m_problem.Problem.load(uri)
            keywords = ",".join(k.unparse() for k in prob.get("problem", {}).get("task_keywords", []))
            metrics = ",".join(m["metric"].unparse() for m in prob.get("problem", {}).get("performance_metrics", []))
            return True, "id={} keywords={} metrics={}".format(prob["id"], keywords, metrics)
        ds = container.Dataset.load(uri)
        shapes = " ".join("{}:{}x{}".format(k, *getattr(v, "shape", (len(v), 1))[:2]) for k, v in ds.items())
        return True, "id={} {}".format(ds.metadata.query(())["id"], shapes)
    except Exception as exc:  # noqa: BLE001 - report every failure as a row
        if verbose:
            traceback.print_exc()
        line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return False, "{}: {}".format(type(exc).__name__, line)[:300]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("-v", "--verbose", action="store_true", help="print tracebacks and d3m warnings")
    ap.add_argument("-M", "--module", action="append", default=[], metavar="MODULE",
                    help="import MODULE first, as d3m's own -M does (e.g. d3mkit_d3m for custom metrics)")
    args = ap.parse_args(argv)
    import importlib
    for module in args.module:
        importlib.import_module(module)
    logging.basicConfig(level=logging.WARNING if args.verbose else logging.ERROR)

    rows, missing = [], []
    for arg in args.paths:
        docs = find_docs(arg)
        if not docs:
            missing.append(arg)
        for doc in docs:
            ok, detail = load(doc, args.verbose)
            rows.append((str(doc), "ok" if ok else "FAILED", detail))

    width = max([len(r[0]) for r in rows] + [8])
    print("{:<{w}}  {:<6}  {}".format("document", "result", "detail", w=width))
    for r in rows:
        print("{:<{w}}  {:<6}  {}".format(*r, w=width))
    for m in missing:
        print("{}: no problemDoc.json or datasetDoc.json found".format(m), file=sys.stderr)
    if missing:
        return 2
    return 0 if all(r[1] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
