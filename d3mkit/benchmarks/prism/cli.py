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
metrics ``rationaleTokenF1``, ``rationaleRougeL`` (ROUGE-L on SQuAD-normalized tokens) and
``rationaleRougeLStandard`` (standard ROUGE-L) (allTargets; they score the
rationale column). Splits: holdOut, stratified on the label, ``randomSeed`` = ``--seed``;
when the manifest has a ``split`` column (train/test) that split is written instead
(holdOut, not stratified, ``testSize`` = the TEST share).

Bad records (missing image, unreadable image, empty hypothesis, unknown label, missing
rationale for PVLr) are reported with their manifest line and nothing is written; with
``--skip-invalid`` they are skipped, counted on stderr and listed in the debug manifest.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

from d3mkit.benchmarks.prism.manifest import PVLI_SPLITS, Record, read_manifest
from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.io.atomic import copy_file
from d3mkit.core.errors import D3MKitError, InvalidArgument, UsageError, error
from d3mkit.io.images import read_image

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
    parser.add_argument("--pvli-sizes", default=None, metavar="N_TUNING,N_NOISY",
                        help="the paper's PVLI layout drawn from the manifest: N_TUNING tuning and N_NOISY "
                             "noisy-test records sampled (seeded) from the records without a split, the "
                             "clean-test records as the clean test; writes <name>_noisy_test and "
                             "<name>_clean_test (the paper: 16000,6000 and 261 verified records)")
    from d3mkit.io.executor import add_executor_arguments
    add_executor_arguments(parser, "image checks and copies (same bytes whatever the count)")


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
                    {"metric": "other", "specifyOther": "rationaleRougeL", "applicabilityToTarget": "allTargets"},
                    {"metric": "other", "specifyOther": "rationaleRougeLStandard",
                     "applicabilityToTarget": "allTargets"}]
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


def _load(manifest: Path, images: Path | None, task: str, skip_invalid: bool, echo,
          allow_unmarked: bool = False, executor=None) -> tuple[list[Record], list[str]]:
    if task not in TASKS:
        raise UsageError(f"unknown task {task!r} (pvli or pvlr)")
    if images is not None and not Path(images).is_dir():
        raise InvalidArgument("images", "is not a directory", str(images), code="usage.path")
    records, issues = read_manifest(manifest, images, task=task, allow_unmarked=allow_unmarked,
                                    executor=executor)
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
    return records, [i.format() for i in issues]


def build_task_root(out: Path, manifest: Path, images: Path | None, task: str = "pvli", *,
                    seed: int = 0, name: str | None = None, test_size: float = 0.2,
                    force: bool = False, skip_invalid: bool = False, echo=None,
                    progress: bool = False, executor=None) -> Path:
    """Check the manifest, then write ``out/<name>/`` atomically; returns its path. A
    manifest in the PVLI layout (tuning / noisy-test / clean-test) needs
    :func:`build_task_roots`. The per-image work (checking, copying, converting) runs on
    ``executor`` (:mod:`d3mkit.io.executor`; default this process), same bytes either way."""
    if not 0.0 < test_size < 1.0:
        raise InvalidArgument("test_size", f"must be between 0 and 1, got {test_size}")
    records, skipped = _load(manifest, images, task, skip_invalid, echo, executor=executor)
    if any(r.split in PVLI_SPLITS for r in records):
        raise UsageError(f"{manifest}: the manifest is in the PVLI layout (tuning, noisy-test, clean-test); "
                         "it makes one task root per test set (d3mkit build prism does)", str(manifest))
    return _write_root(out, manifest, images, task, records, seed=seed, name=name or f"prism_{task}",
                       test_size=test_size, force=force, progress=progress, skipped=skipped,
                       executor=executor)


def pvli_layout(records: list[Record], sizes: tuple[int, int] | None, seed: int,
                manifest: Path) -> dict[str, list[Record]]:
    """``{"tuning", "noisy_test", "clean_test"}`` record lists of the paper's PVLI layout:
    from the manifest's split column, or with ``sizes = (n_tuning, n_noisy)`` drawn at
    random (``default_rng(seed)``) from the unmarked (weak-supervision) records as the
    paper samples 16K tuning and 6K noisy-test records; ``clean-test`` records (human
    verified) are the clean test either way. Each list keeps manifest order."""
    import numpy as np
    clean = [r for r in records if r.split == "CLEAN_TEST"]
    if sizes is None:
        parts = {"tuning": [r for r in records if r.split == "TUNING"],
                 "noisy_test": [r for r in records if r.split == "NOISY_TEST"], "clean_test": clean}
    else:
        pool = [r for r in records if r.split == ""]
        n_t, n_n = sizes
        if n_t < 1 or n_n < 0 or n_t + n_n > len(pool):
            raise InvalidArgument("pvli_sizes", f"{{pvli_sizes={n_t},{n_n}}}: the manifest has {len(pool)} "
                                  "record(s) without a split (the weak-supervision pool); need at least 1 "
                                  "tuning record and tuning + noisy-test <= the pool", str(manifest))
        pick = np.random.default_rng(seed).permutation(len(pool))
        parts = {"tuning": [pool[i] for i in sorted(pick[:n_t])],
                 "noisy_test": [pool[i] for i in sorted(pick[n_t:n_t + n_n])], "clean_test": clean}
    if not parts["tuning"] or not (parts["noisy_test"] or parts["clean_test"]):
        raise D3MKitError(error("prism.manifest.split", "", "the PVLI layout needs tuning records and a "
                                "noisy-test or clean-test set", str(manifest)))
    return parts


def build_task_roots(out: Path, manifest: Path, images: Path | None, task: str = "pvli", *,
                     seed: int = 0, name: str | None = None, test_size: float = 0.2,
                     force: bool = False, skip_invalid: bool = False, echo=None, progress: bool = False,
                     pvli_sizes: tuple[int, int] | None = None, executor=None) -> list[Path]:
    """The task roots of a manifest: one (train/test split or a seeded holdOut), or in the
    paper's PVLI layout (:func:`pvli_layout`) ``<name>_noisy_test`` and
    ``<name>_clean_test``, each with the tuning records as TRAIN and its test set as TEST.
    The per-image work runs on ``executor`` (as :func:`build_task_root`)."""
    if not 0.0 < test_size < 1.0:
        raise InvalidArgument("test_size", f"must be between 0 and 1, got {test_size}")
    records, skipped = _load(manifest, images, task, skip_invalid, echo, allow_unmarked=pvli_sizes is not None,
                             executor=executor)
    name = name or f"prism_{task}"
    if pvli_sizes is None and not any(r.split in PVLI_SPLITS for r in records):
        return [_write_root(out, manifest, images, task, records, seed=seed, name=name,
                            test_size=test_size, force=force, progress=progress, skipped=skipped,
                            executor=executor)]
    parts = pvli_layout(records, pvli_sizes, seed, manifest)
    roots = []
    for test in ("noisy_test", "clean_test"):
        if not parts[test]:
            continue
        recs = parts["tuning"] + parts[test]
        kinds = ["TRAIN"] * len(parts["tuning"]) + ["TEST"] * len(parts[test])
        layout = {"layout": "PVLI (paper section 4)", "test": test.replace("_", " "),
                  "tuning": len(parts["tuning"]), "noisyTest": len(parts["noisy_test"]),
                  "cleanTest": len(parts["clean_test"]),
                  "drawn": "from the manifest's split column" if pvli_sizes is None else
                           f"--pvli-sizes {pvli_sizes[0]},{pvli_sizes[1]} from the unmarked records, seed {seed}"}
        roots.append(_write_root(out, manifest, images, task, recs, seed=seed, name=f"{name}_{test}",
                                 test_size=test_size, force=force, progress=progress, kinds=kinds,
                                 layout=layout, skipped=skipped, executor=executor))
    return roots


def _write_root(out: Path, manifest: Path, images: Path | None, task: str, records: list[Record], *,
                seed: int, name: str, test_size: float, force: bool, progress: bool,
                kinds: list[str] | None = None, layout: dict | None = None,
                skipped: list[str] = (), executor=None) -> Path:
    from d3mkit.io.executor import Executor
    from d3mkit.taskroot.writer import TaskRootWriter
    ex = executor or Executor()
    labels = {r.label for r in records}
    fixed = None
    if kinds is None and records[0].split:
        kinds = [r.split for r in records]
    if kinds is not None:
        if "TRAIN" not in kinds or "TEST" not in kinds:
            raise D3MKitError(error("prism.manifest.split", "", "the split column needs both train "
                                    "and test records", str(manifest)))
        fixed = pd.DataFrame({"d3mIndex": range(len(records)), "type": kinds, "repeat": 0, "fold": 0})
        test_size = kinds.count("TEST") / len(kinds)
    desc = None
    if layout is not None:
        desc = (f"PRISM preconditioned visual language {'inference (PVLI)' if task == 'pvli' else 'rationalization'}"
                f", the paper's layout: {layout['tuning']} tuning records (TRAIN) and the "
                f"{layout['test']} set (TEST).")
    ddoc, pdoc = documents(name, task, len(records), seed, test_size, description=desc,
                           stratified=fixed is None)
    params = {"task": task, "manifest": str(manifest), "images": str(images) if images else None,
              "testSize": test_size, "records": len(records), "skipped": list(skipped),
              "labels": sorted(labels),
              "split": "from the manifest" if fixed is not None else "holdOut, stratified"}
    if layout is not None:
        params["split"] = layout
    with TaskRootWriter(out, name, benchmark="prism", seed=seed, parameters=params, force=force) as w:
        firsts: dict[Path, Record] = {}            # each distinct image once, in record order
        for r in records:
            firsts.setdefault(r.image.resolve(), r)
        copyable = [r.image for r in firsts.values() if r.image.suffix.lower() in _COPY_FORMATS]
        is_png_or_jpeg = dict(zip(copyable, ex.map(_is_png_or_jpeg, copyable)))
        media: dict[Path, str] = {}
        used: set[str] = set()
        jobs = []
        for key, r in firsts.items():              # names in record order: the same whatever runs the jobs
            convert = not is_png_or_jpeg.get(r.image, False)
            fname = _media_name(r.image_ref, used, convert)
            jobs.append((str(r.image), str(w.media_path(f"media/{fname}")), convert))
            media[key] = fname
        ex.map(_place_image, jobs, progress=progress, desc="premise images", unit="img")
        df = learning_data(records, media, task)
        w.write_table("tables/learningData.csv", df)
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc, splits=fixed)
        w.write_debug_table("provenance.csv", provenance(records, task))
    return w.root


def _place_image(job) -> None:
    """Copy one premise image into the task root (PNG and JPEG byte for byte) or convert it
    to PNG; ``job = (source, destination, convert)``. A module-level function: it runs on
    executor workers."""
    src, dest, convert = job
    if convert:        # read through the one owner of untrusted images (caps, one-line errors)
        im = read_image(src)
        im.convert("RGBA" if im.mode in ("RGBA", "LA", "P") else "RGB").save(dest, format="PNG")
    else:
        copy_file(src, dest, what="image")     # umask mode, regular file only


def _is_png_or_jpeg(path: Path) -> bool:
    return read_image(path).format in ("PNG", "JPEG")


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


def _sizes(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        a, b = (int(x) for x in text.split(","))
    except ValueError:
        raise InvalidArgument("pvli_sizes", f"takes N_TUNING,N_NOISY_TEST (e.g. 16000,6000), got {text!r}") from None
    return a, b


def build(args) -> list[Path]:
    from d3mkit.io.executor import from_args
    echo = None if args.quiet else (lambda m: print(m, file=sys.stderr))
    sizes = _sizes(getattr(args, "pvli_sizes", None))
    with from_args(args) as ex:   # --workers N | --scheduler ADDRESS
        return build_task_roots(args.out, args.manifest, args.images, args.task, seed=args.seed,
                                name=args.name, test_size=args.test_size, force=args.force,
                                skip_invalid=args.skip_invalid, echo=echo,
                                progress=not args.quiet and sys.stderr.isatty(),
                                pvli_sizes=sizes, executor=ex)
