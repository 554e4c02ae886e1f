"""Compare ``d3mkit import table`` of two checkouts on generated tables, byte for byte.

A change to the import's read/infer/write path must not change what it writes. This tool
generates ``--cases`` small tables of mixed columns (integers, reals with and without
integral values, booleans in several spellings, ISO dates, labels, free text, empty cells,
quoted cells with commas and newlines, numbers beyond 64 bits), written as CSV, TSV or gzip,
with a ``d3mIndex`` first, last or absent, an ``--index`` column, empty target cells, one or
several targets, ``--types`` overrides and holdOut/kFold splits, and imports each one with
this checkout and with ``--old`` (another checkout's directory), each in its own process and
with small chunks (``--chunk``) so that a table spans several. Every written file is
compared by sha256; a refused table is compared by its message. Prints the cases that
differ (none: exit 0).

    python tools/compare_import.py --old ../other-checkout [--cases 320] [--chunk 37] [--seed 0]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent

#: run inside each checkout's process: import every case, print {case: files or message}
_RUN = r"""
import hashlib, json, os, re, sys, traceback
from pathlib import Path
import d3mkit.importing.scan as scan
chunk = int(sys.argv[2])
scan.CHUNK_ROWS = chunk
scan.REWRITE_ROWS = max(1, chunk // 3)
if getattr(scan._chunks, "__defaults__", None) and len(scan._chunks.__defaults__) == 5:
    d = list(scan._chunks.__defaults__)      # a checkout whose _chunks took rows=CHUNK_ROWS
    d[-1] = chunk
    scan._chunks.__defaults__ = tuple(d)
from d3mkit.core.errors import D3MKitError
from d3mkit.importing.table import import_frame
cases = json.load(open(sys.argv[1]))
out = {}
for name, case in cases.items():
    dest = Path(case["out"])
    try:
        done = import_frame(case["path"], target=case["target"], out=dest, name="t", **case["options"])
        files = {}
        for p in sorted(done.root.rglob("*")):
            if p.is_file():
                files[str(p.relative_to(done.root))] = hashlib.sha256(p.read_bytes()).hexdigest()
        out[name] = {"files": files, "issues": [str(i) for i in done.issues]}
    except D3MKitError as exc:      # a temporary file's name is not the message's content
        out[name] = {"error": re.sub(r"/[^ :]*d3mkit-import-[^/]*/", "TMP/", str(exc))}
    except Exception:
        out[name] = {"crash": traceback.format_exc(limit=3)}
print(json.dumps(out))
"""


def _column(rng, kind: str, n: int) -> list[str]:
    if kind == "int":
        return [str(v) for v in rng.integers(-50, 50, n)]
    if kind == "bigint":
        return [str(2 ** 64 + int(v)) for v in rng.integers(0, 9, n)]
    if kind == "real":
        return [repr(float(v)) for v in rng.normal(size=n).round(3)]
    if kind == "integral-real":
        return [f"{int(v)}.0" for v in rng.integers(0, 9, n)]
    if kind == "bool":
        spell = [["true", "false"], ["True", "FALSE"], ["yes", "no"], ["t", "f"]][int(rng.integers(0, 4))]
        return [spell[int(v)] for v in rng.integers(0, 2, n)]
    if kind == "date":
        return [str(np.datetime64("2015-01-01") + int(v)) for v in rng.integers(0, 900, n)]
    if kind == "label":
        return [f"c{int(v)}" for v in rng.integers(0, 4, n)]
    if kind == "binary01":
        return [str(int(v)) for v in rng.integers(0, 2, n)]
    if kind == "quoted":
        return [["a, b", 'say "x"', "line\nbreak", "plain"][int(v)] for v in rng.integers(0, 4, n)]
    return [f"w{int(v)}_{i}" for i, v in enumerate(rng.integers(0, 9, n))]      # free text


KINDS = ["int", "real", "integral-real", "bool", "date", "label", "text", "binary01", "bigint", "quoted"]


def make_case(rng, k: int, tmp: Path) -> dict:
    n = int(rng.integers(20, 160))
    width = int(rng.integers(2, 7))
    kinds = list(rng.choice(KINDS[:8] if rng.random() < 0.6 else KINDS, width))
    cols = {f"c{j}_{kind}": _column(rng, kind, n) for j, kind in enumerate(kinds)}
    for name, cells in cols.items():                   # some empty cells
        if rng.random() < 0.3:
            for r in rng.integers(0, n, max(1, n // 10)):
                cells[int(r)] = ""
    target_kind = str(rng.choice(["label", "int", "real", "binary01", "bool"]))
    cols["y"] = _column(rng, target_kind, n)
    options: dict = {}
    if rng.random() < 0.25:
        for r in rng.integers(0, n, max(1, n // 12)):
            cols["y"][int(r)] = ""
    if rng.random() < 0.15:
        cols["y2"] = _column(rng, "real", n)
        target = ["y", "y2"] if target_kind in ("int", "real") else ["y"]
    else:
        target = ["y"]
    where = rng.random()
    if where < 0.2:
        cols = {"d3mIndex": [str(i) for i in range(n)], **cols}
    elif where < 0.35:
        cols["d3mIndex"] = [str(i * 3 + 1) for i in rng.permutation(n)]
    elif where < 0.5:
        cols = {"rid": [str(i * 7 - 20) for i in range(n)], **cols}
        options["index"] = "rid"
    if rng.random() < 0.15:
        plain = [c for c in cols if c not in ("d3mIndex", "rid", "y", "y2")]
        if plain:
            options["types"] = {plain[0]: "categorical" if rng.random() < 0.5 else "string"}
    if rng.random() < 0.3:
        options.update(split="kFold", folds=int(rng.integers(2, 5)))
    if rng.random() < 0.2:
        options["stratified"] = False
    form = str(rng.choice(["csv", "csv", "tsv", "gz"]))
    sep = "\t" if form == "tsv" else ","

    def cell(v: str) -> str:
        if any(ch in v for ch in (sep, '"', "\n")):
            return '"' + v.replace('"', '""') + '"'
        return v
    names = list(cols)
    lines = [sep.join(names)] + [sep.join(cell(cols[c][r]) for c in names) for r in range(n)]
    bad = rng.random()          # some bad input: the same message from both
    if bad < 0.03:
        lines[int(rng.integers(1, n))] += sep + "extra"                     # a ragged row
    elif bad < 0.06 and "d3mIndex" in cols:
        lines[2] = sep.join([lines[1].split(sep)[0], *lines[2].split(sep)[1:]])   # a duplicate index
    elif bad < 0.08:
        cols["y"] = ["same"] * n                                           # a constant target
        lines = [sep.join(names)] + [sep.join(cell(cols[c][r]) for c in names) for r in range(n)]
    text = "\n".join(lines) + "\n"
    if 0.08 <= bad < 0.10:
        text = text.replace("\n", "\n\udcff", 1)                         # a byte that is not UTF-8
    path = tmp / f"case{k}.{'tsv' if form == 'tsv' else 'csv'}{'.gz' if form == 'gz' else ''}"
    if form == "gz":
        path.write_bytes(gzip.compress(text.encode("utf-8", "surrogateescape")))
    else:
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return {"path": str(path), "target": target, "options": options}


def run(checkout: Path, cases: dict, chunk: int, tmp: Path, tag: str) -> dict:
    spec = tmp / f"cases-{tag}.json"
    spec.write_text(json.dumps({k: {**v, "out": str(tmp / tag / k)} for k, v in cases.items()}))
    env = dict(os.environ, PYTHONPATH=str(checkout))
    out = subprocess.run([sys.executable, "-c", _RUN, str(spec), str(chunk)], capture_output=True, text=True,
                         env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="the other checkout's directory (holding d3mkit/)")
    ap.add_argument("--cases", type=int, default=320)
    ap.add_argument("--chunk", type=int, default=37, help="rows per chunk of the chunked reader")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory(prefix="compare-import-") as tmp:
        tmp = Path(tmp)
        cases = {f"case{k}": make_case(rng, k, tmp) for k in range(args.cases)}
        old = run(Path(args.old).resolve(), cases, args.chunk, tmp, "old")
        new = run(HERE, cases, args.chunk, tmp, "new")
    differ = [k for k in cases if old[k] != new[k]]
    kinds = {"written": 0, "refused": 0, "crashed": 0}
    for k in cases:
        kinds["written" if "files" in new[k] else "refused" if "error" in new[k] else "crashed"] += 1
    print(f"{len(cases)} cases ({', '.join(f'{v} {k}' for k, v in kinds.items())}); "
          f"{len(differ)} differ from {args.old}")
    for k in differ[:20]:
        print(f"  {k}: {cases[k]['path']} {cases[k]['options']}\n    old: {json.dumps(old[k])[:400]}\n"
              f"    new: {json.dumps(new[k])[:400]}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
