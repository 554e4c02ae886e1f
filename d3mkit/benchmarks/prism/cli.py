"""PRISM PVLI/PVLr task roots from a manifest of records and a directory of premise images.

What this module owns: ``d3mkit build prism --manifest FILE.csv|.jsonl --images DIR
--task pvli|pvlr``, i.e. the documents (:func:`documents`) and the task root
(:func:`build_task_root`).

Task root layout:

* ``media/`` — image collection (resID ``0``): each distinct premise image once, PNG and
  JPEG copied byte for byte, any other format Pillow reads re-encoded as PNG;
* ``tables/learningData.csv`` — ``d3mIndex``, ``hypothesis`` (string attribute),
  ``image`` (string attribute, ``refersTo`` the collection), ``label`` (categorical
  suggestedTarget, allow | prevent) and, for PVLr, ``rationale`` (string, second
  suggestedTarget);
* ``<name>_debug/provenance.csv`` — manifest line, original image path, strategy, source,
  labeling function, precision (and the rationale for PVLI, where it is not an input).

Problems: PVLI is classification/binary on ``label`` with accuracy and f1 (posLabel
``allow``); PVLr has targets ``label`` and ``rationale`` with accuracy (written per
target: ``accuracy[rationale]`` is exact-match accuracy of the rationale) and the custom
metrics ``rationaleTokenF1`` and ``rationaleRougeL`` (allTargets; they score the
rationale column). Splits: holdOut, stratified on the label, ``randomSeed`` = ``--seed``;
when the manifest has a ``split`` column (train/test) that split is written instead
(holdOut, not stratified, ``testSize`` = the TEST share).

Bad records (missing image, unreadable image, empty hypothesis, unknown label, missing
rationale for PVLr) are reported with their manifest line and nothing is written; with
``--skip-invalid`` they are skipped, counted on stderr and listed in the debug manifest.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pandas as pd

from d3mkit.benchmarks.prism.manifest import Record, read_manifest
from d3mkit.docs import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.errors import D3MKitError, UsageError, error

TASKS = ("pvli", "pvlr")
IMAGE_RES = "0"
_COPY_FORMATS = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


def add_build_arguments(parser) -> None:
    parser.add_argument("--manifest", type=Path, required=True,
                        help="records: CSV or JSONL with hypothesis, image, label[, rationale, strategy, "
                             "source, lf, precision, split (train/test: a fixed split)]")
    parser.add_argument("--images", type=Path, default=None,
                        help="directory the image paths are relative to (default: the manifest's directory)")
    parser.add_argument("--task", choices=TASKS, default="pvli", help="pvli (inference) or pvlr (+ rationale)")
    parser.add_argument("--name", default=None, help="task root name (default prism_<task>)")
    parser.add_argument("--test-size", type=float, default=0.2, help="holdOut testSize (default 0.2)")
    parser.add_argument("--skip-invalid", action="store_true",
                        help="skip bad records (counted on stderr) instead of failing")


def documents(name: str, task: str, n_rows: int, seed: int, test_size: float = 0.2,
              description: str | None = None, stratified: bool = True) -> tuple[DatasetDoc, ProblemDoc]:
    """The datasetDoc and problemDoc of a PRISM task root."""
    cols = [Column(0, "d3mIndex", "integer", ("index",)),
            Column(1, "hypothesis", "string", ("attribute",),
                   extra={"colDescription": "commonsense statement (the hypothesis)"}),
            Column(2, "image", "string", ("attribute",), refers_to={"resID": IMAGE_RES, "resObject": "item"},
                   extra={"colDescription": "premise image in the media collection"}),
            Column(3, "label", "categorical", ("suggestedTarget",),
                   extra={"colDescription": "allow or prevent: does the premise allow the hypothesis"})]
    if task == "pvlr":
        cols.append(Column(4, "rationale", "string", ("suggestedTarget",),
                           extra={"colDescription": "the precondition that explains the label"}))
    desc = description or ("PRISM preconditioned visual language "
                           + ("inference (PVLI)" if task == "pvli" else "rationalization (PVLr)")
                           + f": {n_rows} hypothesis/premise-image records.")
    ddoc = DatasetDoc.new(f"{name}_dataset", name,
                          [Resource.collection(IMAGE_RES, "media/", "image", ["image/png", "image/jpeg"]),
                           Resource.table("learningData", "tables/learningData.csv", cols)],
                          description=desc, source="PRISM (d3mkit build prism)")
    splits = {"method": "holdOut", "testSize": test_size, "stratified": stratified, "numRepeats": 0,
              "randomSeed": seed}
    targets = [Target(0, "learningData", 3, "label")]
    metrics: list[dict] = [{"metric": "accuracy"}]
    if task == "pvli":
        metrics.append({"metric": "f1", "posLabel": "allow"})
        pdesc = "Given a hypothesis and a premise image, predict allow or prevent (PVLI)."
    else:
        targets.append(Target(1, "learningData", 4, "rationale"))
        metrics += [{"metric": "other", "specifyOther": "rationaleTokenF1", "applicabilityToTarget": "allTargets"},
                    {"metric": "other", "specifyOther": "rationaleRougeL", "applicabilityToTarget": "allTargets"}]
        pdesc = ("Given a hypothesis and a premise image, predict allow or prevent and a free-text "
                 "rationale (PVLr). accuracy is per target; the rationale metrics score the rationale.")
    pdoc = ProblemDoc.new(f"{name}_problem", name, "classification", "binary", f"{name}_dataset",
                          targets, metrics, description=pdesc, splits=splits)
    return ddoc, pdoc


def _media_name(ref: str, used: set[str], convert: bool) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", ref.replace("\\", "/").strip("/").replace("/", "__")).strip("._")
    stem = stem or "image"
    if convert:
        stem = stem.rsplit(".", 1)[0] + ".png"
    name, k = stem, 1
    while name.lower() in used:
        base, dot, ext = stem.rpartition(".")
        name = f"{base}_{k}.{ext}" if dot else f"{stem}_{k}"
        k += 1
    used.add(name.lower())
    return name


def build_task_root(out: Path, manifest: Path, images: Path | None, task: str = "pvli", *,
                    seed: int = 0, name: str | None = None, test_size: float = 0.2,
                    force: bool = False, skip_invalid: bool = False, echo=None,
                    progress: bool = False) -> Path:
    """Check the manifest, then write ``out/<name>/`` atomically; returns its path."""
    from d3mkit.package import TaskRootWriter
    if task not in TASKS:
        raise UsageError(f"unknown task {task!r} (pvli or pvlr)")
    if not 0.0 < test_size < 1.0:
        raise UsageError(f"--test-size must be between 0 and 1, got {test_size}")
    if images is not None and not Path(images).is_dir():
        raise UsageError("--images is not a directory", str(images))
    name = name or f"prism_{task}"
    records, issues = read_manifest(manifest, images, task=task)
    fatal = [i for i in issues if i.code == "prism.manifest.column"]
    if fatal or (issues and not skip_invalid):
        raise D3MKitError(issues)
    if issues and echo is not None:
        echo(f"skipped {len(issues)} problem(s) in {manifest} (--skip-invalid):")
        for i in issues[:20]:
            echo(f"  {i.format()}")
    if len(records) < 2:
        raise D3MKitError(error("prism.manifest", "", f"{len(records)} usable record(s); "
                                "a task root needs at least 2", str(manifest)))
    labels = {r.label for r in records}
    fixed = None
    if records[0].split:
        kinds = [r.split for r in records]
        if "TRAIN" not in kinds or "TEST" not in kinds:
            raise D3MKitError(error("prism.manifest.split", "", "the split column needs both train "
                                    "and test records", str(manifest)))
        fixed = pd.DataFrame({"d3mIndex": range(len(records)), "type": kinds, "repeat": 0, "fold": 0})
        test_size = kinds.count("TEST") / len(kinds)
    ddoc, pdoc = documents(name, task, len(records), seed, test_size, stratified=fixed is None)
    params = {"task": task, "manifest": str(manifest), "images": str(images) if images else None,
              "testSize": test_size, "records": len(records),
              "skipped": [i.format() for i in issues], "labels": sorted(labels),
              "split": "from the manifest" if fixed is not None else "holdOut, stratified"}
    with TaskRootWriter(out, name, benchmark="prism", seed=seed, parameters=params, force=force) as w:
        media: dict[Path, str] = {}
        used: set[str] = set()
        items = records
        if progress:
            from tqdm import tqdm
            items = tqdm(records, desc="premise images", unit="img", leave=False)
        for r in items:
            key = r.image.resolve()
            if key in media:
                continue
            convert = r.image.suffix.lower() not in _COPY_FORMATS or not _is_png_or_jpeg(r.image)
            fname = _media_name(r.image_ref, used, convert)
            dest = w.media_path(f"media/{fname}")
            if convert:
                from PIL import Image
                with Image.open(r.image) as im:
                    im.convert("RGBA" if im.mode in ("RGBA", "LA", "P") else "RGB").save(dest, format="PNG")
            else:
                shutil.copyfile(r.image, dest)
            media[key] = fname
        df = learning_data(records, media, task)
        w.write_table("tables/learningData.csv", df)
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc, splits=fixed)
        w.write_debug_table("provenance.csv", provenance(records, task))
    return w.root


def _is_png_or_jpeg(path: Path) -> bool:
    from PIL import Image
    with Image.open(path) as im:
        return im.format in ("PNG", "JPEG")


def learning_data(records: list[Record], media: dict[Path, str], task: str) -> pd.DataFrame:
    df = pd.DataFrame({
        "d3mIndex": range(len(records)),
        "hypothesis": [r.hypothesis for r in records],
        "image": [media[r.image.resolve()] for r in records],
        "label": [r.label for r in records],
    })
    if task == "pvlr":
        df["rationale"] = [r.rationale for r in records]
    return df


def provenance(records: list[Record], task: str) -> pd.DataFrame:
    df = pd.DataFrame({
        "d3mIndex": range(len(records)),
        "manifest_line": [r.line for r in records],
        "image_source": [r.image_ref for r in records],
        "strategy": [r.provenance.get("strategy", "") for r in records],
        "source": [r.provenance.get("source", "") for r in records],
        "lf": [r.provenance.get("lf", "") for r in records],
        "precision": [r.provenance.get("precision", "") for r in records],
    })
    if task == "pvli":
        df["rationale"] = [r.rationale for r in records]
    return df


def build(args) -> list[Path]:
    echo = None if args.quiet else (lambda m: print(m, file=sys.stderr))
    return [build_task_root(args.out, args.manifest, args.images, args.task, seed=args.seed,
                            name=args.name, test_size=args.test_size, force=args.force,
                            skip_invalid=args.skip_invalid, echo=echo,
                            progress=not args.quiet and sys.stderr.isatty())]
