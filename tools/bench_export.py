"""Benchmark of ``d3mkit export croissant|hf`` and digest verification (issue 24's speed targets).

Prints one table (markdown) with ratios against a peer measured in the same run:

1. d3mkit's own Croissant export of a task root with 10^3 columns (document only, and the whole
   ``export_croissant`` with its validation of the root), wall and CPU seconds: target <= 0.5 s;
2. export + mlcroissant loading it, against mlcroissant loading a hand-written file of the same
   mapping (built here as plain JSON, not by d3mkit): target <= 1.5x;
3. mlcroissant's field-count curve: CPU seconds to load a hand-written file of 250 ... 4000
   fields against d3mkit's export + load of the same root, with the ratio and the growth
   exponent between one size and the next (2.0 = quadratic);
4. streaming: peak memory (each child's VmHWM) of ``validate``, ``export croissant`` and
   ``export hf`` on roots of 10^3, 10^4 and 10^5 images, and of both exports with the
   validation stubbed out (``validate_task_root`` replaced by one returning no issue, in a child
   running this file with ``--stubbed``): the exports' own memory. The slope in bytes per image
   from one size to the next says whether it grows;
5. ``validate --verify-digests``: bytes read (``/proc/self/io`` rchar) against the bytes of the
   files: each byte read once.

    python tools/bench_export.py [--quick] [--fields 250,500,1000,2000,4000] [--images 1000,10000,100000] [--save]

``--quick``: fields 250,500,1000 and images 1000,10000 (a minute or two). Needs the [croissant]
and [hf] extras. Python, numpy, pandas, pyarrow, datasets and mlcroissant versions and the load
(/proc/loadavg, before and after) are printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench_data import emit, md_table, run_measured, timed, versions_line, write_classification_root  # noqa: E402

from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target  # noqa: E402
from d3mkit.taskroot.writer import TaskRootWriter  # noqa: E402


def wide_root(out: Path, n_cols: int, n_rows: int = 200, seed: int = 0) -> Path:
    """``out/wide<n_cols>``: d3mIndex, n_cols-2 real features and a categorical target."""
    rng = np.random.default_rng(seed)
    name = f"wide{n_cols}"
    data = {"d3mIndex": np.arange(n_rows)}
    for j in range(n_cols - 2):
        data[f"f{j}"] = rng.normal(size=n_rows).round(4)
    data["y"] = np.array(["a", "b", "c"])[rng.integers(0, 3, n_rows)]
    df = pd.DataFrame(data)
    types = ["integer", *["real"] * (n_cols - 2), "categorical"]
    return write_classification_root(out, name, df, types, ["accuracy"], seed)


def image_root(out: Path, n: int) -> Path:
    """``out/img<n>``: n 8x8 PNG files (the same bytes under n names) and a label each."""
    import io

    from PIL import Image
    name = f"img{n}"
    buf = io.BytesIO()
    Image.fromarray(np.arange(64, dtype=np.uint8).reshape(8, 8)).save(buf, format="PNG")
    png = buf.getvalue()
    df = pd.DataFrame({"d3mIndex": np.arange(n), "image": [f"{i}.png" for i in range(n)],
                       "y": np.array(["a", "b"])[np.arange(n) % 2]})
    media = Resource.collection("0", "media/", "image", ["image/png"])
    cols = [Column(0, "d3mIndex", "integer", ("index",)),
            Column(1, "image", "string", ("attribute",), refers_to={"resID": "0", "resObject": "item"}),
            Column(2, "y", "categorical", ("suggestedTarget",))]
    ddoc = DatasetDoc.new(f"{name}_dataset", name,
                          [media, Resource.table("learningData", "tables/learningData.csv", cols)])
    pdoc = ProblemDoc.new(f"{name}_problem", name, "classification", "binary", f"{name}_dataset",
                          [Target(0, "learningData", 2, "y")], [{"metric": "accuracy"}],
                          splits={"method": "holdOut", "testSize": 0.2, "stratified": False,
                                  "numRepeats": 0, "randomSeed": 0})
    with TaskRootWriter(out, name, benchmark="bench", seed=0, force=True, validate=False) as w:
        for f in df["image"]:
            with open(w.media_path(f"media/{f}"), "wb") as fh:
                fh.write(png)
        w.write_table("tables/learningData.csv", df)
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc)
    return w.root


def hand_written(root: Path, base: Path) -> dict:
    """The same mapping as d3mkit's export, written out directly (the peer of row 2)."""
    ld = pd.read_csv(root / f"{root.name}_dataset" / "tables" / "learningData.csv", nrows=1)
    types = {"d3mIndex": "sc:Integer", "y": ["sc:Text", "cr:Label"]}
    rel = os.path.relpath(root / f"{root.name}_dataset" / "tables" / "learningData.csv", base)
    import hashlib
    sha = hashlib.sha256((base / rel).read_bytes()).hexdigest()
    from d3mkit.interop.croissant import CONTEXT
    fields = [{"@type": "cr:Field", "@id": f"learningData/{c}", "name": c, "dataType": types.get(c, "sc:Float"),
               "source": {"fileObject": {"@id": "file/learningData"}, "extract": {"column": c}}} for c in ld.columns]
    return {"@context": CONTEXT, "@type": "sc:Dataset", "name": "hand", "description": "hand-written",
            "conformsTo": "http://mlcommons.org/croissant/1.1", "citeAs": "x", "license": "CC0",
            "url": "https://example.org", "version": "1.0.0", "datePublished": "2026-01-01",
            "distribution": [{"@type": "cr:FileObject", "@id": "file/learningData", "name": "learningData.csv",
                              "contentUrl": rel, "encodingFormat": "text/csv", "sha256": sha}],
            "recordSet": [{"@type": "cr:RecordSet", "@id": "learningData", "name": "learningData",
                           "key": {"@id": "learningData/d3mIndex"}, "field": fields},
                          {"@type": "cr:RecordSet", "@id": "enumerations/y", "name": "enumerations/y",
                           "dataType": "sc:Enumeration", "key": {"@id": "enumerations/y/value"},
                           "field": [{"@type": "cr:Field", "@id": "enumerations/y/value", "name": "value",
                                      "dataType": "sc:Text"}],
                           "data": [{"enumerations/y/value": v} for v in "abc"]}]}


def mlc_load(path: Path, clock=time.perf_counter) -> float:
    import logging

    import mlcroissant as mlc
    logging.getLogger("absl").setLevel(logging.ERROR)
    t = clock()
    mlc.Dataset(path)
    return clock() - t


def cpu(fn) -> float:
    """CPU seconds of ``fn()`` in this process (load-independent, unlike wall time)."""
    t = time.process_time()
    fn()
    return time.process_time() - t


def rchar() -> int:
    with open("/proc/self/io") as fh:
        return next(int(ln.split()[1]) for ln in fh if ln.startswith("rchar:"))




def stubbed(what: str, root: str, out: str) -> int:
    """``export croissant|hf`` of ``root`` with the validation stubbed out (the exports' own
    memory, run in a child by :func:`main`)."""
    import d3mkit.validation
    d3mkit.validation.validate_task_root = lambda *a, **k: []
    if what == "hf":
        from d3mkit.interop.hf import export_hf
        export_hf(root, out)
    else:
        from d3mkit.interop.croissant import export_croissant
        export_croissant(root, out)
    return 0


def memory_rows(tmp: Path, sizes: list[int], rows: list) -> None:
    """Section 4 and 5: the peaks per image count, and the digests read once."""
    import shutil

    from d3mkit.taskroot.digests import verify_task_root
    here = Path(__file__).resolve().parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(here.parent), str(here)]), D3MKIT_FSYNC="0")
    peaks: dict[str, list] = {}
    for n in sizes:
        r = image_root(tmp / "img", n)
        runs = (("validate", "d3mkit", ["validate", r]),
                ("export croissant", "d3mkit", ["export", "croissant", r, "--out", tmp / "img" / f"img{n}.json"]),
                ("export hf", "d3mkit", ["export", "hf", r, "--out", tmp / "img" / f"hf{n}"]),
                ("export croissant, validation stubbed", "bench_export",
                 ["--stubbed", "croissant", r, tmp / "img" / f"stub{n}.json"]),
                ("export hf, validation stubbed", "bench_export", ["--stubbed", "hf", r, tmp / "img" / f"stubhf{n}"]))
        for what, module, cmd in runs:
            res = run_measured(module, cmd, env)
            assert res["code"] == 0, res["stderr"]
            slope = ""
            if peaks.get(what):
                n0, mb0 = peaks[what][-1]
                slope = f"; {(res['peak_mb'] - mb0) * 2**20 / (n - n0):+.0f} bytes/image from {n0:,}"
            peaks.setdefault(what, []).append((n, res["peak_mb"]))
            target = "(run by both exports)" if what == "validate" else \
                "flat memory" if "stubbed" in what else "flat (with validate's growth)"
            rows.append([f"{what}, {n:,} images", f"{res['wall']:.2f} s ({res['cpu']:.2f} CPU s)", target,
                         f"{res['peak_mb']:.1f} MB peak{slope}"])
        size = sum(p.stat().st_size for p in r.rglob("*") if p.is_file())
        before = rchar()
        t = time.perf_counter()
        issues = verify_task_root(r)[1]
        t = time.perf_counter() - t
        read = rchar() - before
        assert not issues, issues[:3]
        rows.append([f"verify digests, {n:,} images ({size / 1e6:.1f} MB of files)", f"{t:.2f} s",
                     "each byte once", f"{read / size:.2f}x the bytes read"])
        shutil.rmtree(tmp / "img")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fields 250,500,1000 and images 1000,10000")
    ap.add_argument("--fields", default=None, help="field counts of the curve (default 250,500,1000,2000,4000)")
    ap.add_argument("--images", default=None, help="image counts (default 1000,10000,100000)")
    ap.add_argument("--save", action="store_true")
    ap.add_argument("--stubbed", nargs=3, metavar=("EXPORT", "ROOT", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.stubbed:
        return stubbed(*args.stubbed)
    fields = args.fields or ("250,500,1000" if args.quick else "250,500,1000,2000,4000")
    images = args.images or ("1000,10000" if args.quick else "1000,10000,100000")
    os.environ.setdefault("D3MKIT_FSYNC", "0")
    load0 = " ".join(open("/proc/loadavg").read().split()[:3])
    from d3mkit.interop.croissant import croissant_document, export_croissant
    from d3mkit.taskroot.model import TaskRoot
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-export-") as tmp:
        tmp = Path(tmp)
        root = wide_root(tmp, 1000)
        t_doc, c_doc = timed(lambda: croissant_document(TaskRoot.open(root), tmp))
        out = tmp / "wide.croissant.json"
        t_export, c_export = timed(lambda: export_croissant(root, out))
        rows.append(["d3mkit export croissant, 10^3 columns x 200 rows: document only",
                     f"{t_doc:.3f} s ({c_doc:.3f} CPU s)", "<= 0.5 s", ""])
        rows.append(["... the whole export_croissant (validates the root first)",
                     f"{t_export:.3f} s ({c_export:.3f} CPU s)", "", ""])
        hand = tmp / "hand.croissant.json"
        hand.write_text(json.dumps(hand_written(root, tmp)))
        t_hand, c_hand = timed(lambda: mlc_load(hand), 2)
        t_ours, c_ours = timed(lambda: mlc_load(out), 2)
        rows.append(["mlcroissant loads a hand-written file of the same mapping (peer)",
                     f"{t_hand:.2f} s ({c_hand:.2f} CPU s)", "", "1.00x"])
        rows.append(["d3mkit export + mlcroissant loads it", f"{t_export + t_ours:.2f} s ({c_export + c_ours:.2f} CPU s)",
                     "<= 1.5x", f"{(c_export + c_ours) / c_hand:.2f}x CPU, {(t_export + t_ours) / t_hand:.2f}x wall"])
        prev = None
        for n in [int(x) for x in fields.split(",") if x]:
            r = wide_root(tmp / "curve", n, n_rows=20)
            o = tmp / "curve" / f"wide{n}.json"
            h = tmp / "curve" / f"hand{n}.json"
            h.write_text(json.dumps(hand_written(r, tmp / "curve")))
            c_hand = mlc_load(h, time.process_time)
            c_exp = cpu(lambda: export_croissant(r, o))
            c_ours = c_exp + mlc_load(o, time.process_time)
            growth = "" if prev is None else \
                f"; growth exponent {np.log(c_hand / prev[1]) / np.log(n / prev[0]):.2f}"
            rows.append([f"field curve, {n} fields: mlcroissant loads the hand-written file (CPU)",
                         f"{c_hand:.2f} s", "", f"{c_hand / n * 1000:.2f} ms/field{growth}"])
            rows.append([f"field curve, {n} fields: d3mkit export ({c_exp:.2f} s) + mlcroissant load (CPU)",
                         f"{c_ours:.2f} s", "<= 1.5x", f"{c_ours / c_hand:.2f}x"])
            prev = (n, c_hand)
        memory_rows(tmp, [int(x) for x in images.split(",") if x], rows)
    from importlib.metadata import version
    versions = f"{versions_line()}, datasets {version('datasets')}, mlcroissant {version('mlcroissant')}"
    load1 = " ".join(open("/proc/loadavg").read().split()[:3])
    text = "\n".join([f"# bench_export ({versions}; {os.cpu_count()} cores, load {load0} before, {load1} after)", "",
                      *md_table(["what", "time", "target", "ratio / memory"], rows)]) + "\n"
    emit(text, "bench_export.md", args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
