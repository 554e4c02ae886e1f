"""A task root as a Hugging Face ``datasets`` DatasetDict (``d3mkit export hf``): the one
owner of the mapping between D3M columns and HF features (docs/interop.md has the table).

One split per TRAIN and TEST rows of a repeat and fold (``train``, ``test``), written with
``DatasetDict.save_to_disk`` so ``datasets.load_from_disk`` reads it; a dataset card
``README.md`` with a YAML header (licence, pretty name, task category) and the citation and
RAI fields (the benchmark's card, as the Croissant export takes them).

Features: a categorical target is a ``ClassLabel`` (its labels, sorted), a column referring
to an image collection an ``Image`` (the file's bytes), integer ``int64``, real ``float64``,
boolean ``bool``, dateTime ``timestamp[ns, tz=UTC]``, anything else ``string``. Rows are
generated one at a time into datasets' Arrow writer (``Dataset.from_generator``) from
learningData read in blocks (:func:`d3mkit.tables.read_table_chunks`; the fold's rows picked
by :func:`d3mkit.splits.fold_members`, which holds only the indices), and the ClassLabel
names come from a first pass over the same blocks, so the memory does not grow with the
number of rows or images. Needs the ``[hf]`` extra.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from d3mkit.errors import D3MKitError, Issue, MissingDependency, UsageError

# D3M licence text -> Hugging Face licence identifier (else "other" with the text as license_name)
LICENSES = {"cc0": "cc0-1.0", "cc by 4.0": "cc-by-4.0", "cc-by-4.0": "cc-by-4.0", "mit": "mit",
            "apache-2.0": "apache-2.0", "cc by-sa 4.0": "cc-by-sa-4.0", "cc-by-sa-4.0": "cc-by-sa-4.0"}
SCALARS = {"integer": "int64", "real": "float64", "boolean": "bool"}


def _datasets():
    try:
        import datasets
    except ImportError:
        datasets = None
    if getattr(datasets, "__file__", None) is None:
        # not installed, or only a namespace package: a folder named ``datasets`` on the path
        # (this repository has one) imports as an empty package, which is not the library
        raise MissingDependency("datasets", "hf", "exporting a Hugging Face dataset")
    datasets.disable_progress_bars()
    datasets.utils.logging.set_verbosity_error()
    return datasets


def features_of(task, columns: list[str], labels: dict[str, set], datasets):
    """``(datasets.Features, {column: media collection})`` of learningData's ``columns``;
    ``labels`` are the labels of each categorical target (its ClassLabel names, sorted)."""
    ld = task.dataset.learning_data
    media = {c: r for c, r in task.dataset.media_columns(ld).items() if r.res_type == "image"}
    feats = {}
    for col in ld.columns or ():
        name, ctype = col.col_name, col.col_type
        if name not in columns:
            continue
        if name in media:
            feats[name] = datasets.Image()
        elif name in labels:
            feats[name] = datasets.ClassLabel(names=sorted(labels[name]))
        elif ctype in SCALARS:
            feats[name] = datasets.Value(SCALARS[ctype])
        elif ctype == "dateTime":
            feats[name] = datasets.Value("timestamp[ns, tz=UTC]")
        else:
            feats[name] = datasets.Value("string")
    for name in columns:                  # undeclared columns stay text
        feats.setdefault(name, datasets.Value("string"))
    return datasets.Features({c: feats[c] for c in columns}), media


def _blocks(task, members):
    """learningData's rows whose d3mIndex is one of ``members`` (a sorted string array), in
    file order, typed as :meth:`TaskRoot.frame` types them, a block at a time."""
    import numpy as np

    from d3mkit.tables import read_table_chunks
    for raw in read_table_chunks(task.dataset.resource_path(task.dataset.learning_data)):
        index = raw["d3mIndex"] if "d3mIndex" in raw.columns else raw.iloc[:, 0]
        keep = np.isin(index.astype(str).str.strip().to_numpy(dtype=str), members)
        if keep.any():
            yield task.frame(raw[keep].reset_index(drop=True))


def _labels(task, members) -> dict[str, set]:
    """The labels of each categorical target among the rows of ``members`` (one pass)."""
    cats = [c.col_name for c in task.dataset.learning_data.columns or ()
            if c.col_type == "categorical" and c.col_name in set(task.targets)]
    out: dict[str, set] = {c: set() for c in cats}
    for frame in _blocks(task, members):
        for c in cats:
            if c in frame.columns:
                out[c].update(str(v) for v in frame[c].dropna().unique())
    return out


def _rows(task, members, features, media):
    """One example per row of the fold's ``members``; images as ``{"bytes", "path"}`` read
    one at a time."""
    import pandas as pd

    from d3mkit.limits import open_regular
    for frame in _blocks(task, members):
        paths = {c: task.media_paths(c, frame) for c in media}
        columns = list(frame.columns)
        text = {c: type(features[c]).__name__ == "Value" and features[c].dtype == "string" for c in columns}
        for i in range(len(frame)):
            ex = {}
            for c in columns:
                v = frame[c].iat[i]
                if c in media:
                    with open_regular(paths[c].iat[i], "media file") as fh:
                        ex[c] = {"bytes": fh.read(), "path": str(v)}
                    continue
                if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v):
                    ex[c] = None
                elif text[c]:
                    ex[c] = ",".join(map(str, v)) if isinstance(v, tuple) else str(v)   # realVector: as written
                elif hasattr(v, "item") and not isinstance(v, pd.Timestamp):
                    ex[c] = v.item()
                else:
                    ex[c] = v if not isinstance(v, str) else str(v)
            yield ex


def dataset_card(task, features, repeat: int, fold: int, sizes: dict[str, int]) -> str:
    """README.md: a YAML header (JSON strings are YAML) and the description, citation and RAI."""
    from d3mkit.interop.croissant import about_citation, about_license, rai_fields
    about = task.dataset.about
    lic = str(about_license(task))
    hf_lic = LICENSES.get(lic.strip().lower(), "other")
    has_image = any(type(f).__name__ == "Image" for f in features.values())
    tt = task.problem.task_type or ""
    category = {("classification", False): "tabular-classification", ("regression", False): "tabular-regression",
                ("classification", True): "image-classification"}.get((tt, has_image))
    header = [f"license: {hf_lic}"]
    if hf_lic == "other":
        header.append(f"license_name: {json.dumps(lic)}")
    header.append(f"pretty_name: {json.dumps(str(about.get('datasetName') or task.name))}")
    if category:
        header.append(f"task_categories:\n- {category}")
    rai, _ = rai_fields(task, None)
    citation = about_citation(task) or about.get("source") or ""
    body = [f"# {about.get('datasetName') or task.name}", "",
            str(about.get("description") or ""), "",
            f"D3M task root `{task.name}` exported by d3mkit: splits `train` and `test` are the TRAIN and "
            f"TEST rows of dataSplits repeat {repeat}, fold {fold} "
            f"({sizes.get('train', 0)} and {sizes.get('test', 0)} rows). Task: {tt}"
            f"{'/' + task.problem.task_subtype if task.problem.task_subtype else ''}; targets: "
            f"{', '.join(task.targets)}; metrics: {', '.join(task.problem.metric_names)}.", "",
            "## Licence", "", lic, "", "## Citation", "", citation, ""]
    if rai:
        body += ["## Responsible AI", ""]
        body += [f"- **{k.removeprefix('rai:')}**: {v if isinstance(v, str) else '; '.join(v)}" for k, v in rai.items()]
        body.append("")
    return "---\n" + "\n".join(header) + "\n---\n\n" + "\n".join(body)


def export_hf(root: Path | str, out: Path | str, *, repeat: int = 0, fold: int = 0,
              force: bool = False) -> list[Issue]:
    """Write the DatasetDict of the task root at ``root`` to the new directory ``out``
    (atomically; an existing one replaced only with ``force``). A task root that does not
    validate raises :class:`D3MKitError` unless ``force``. Returns the warnings."""
    from d3mkit.atomic import StagedDir, check_output_dir, write_text
    from d3mkit.paths import outside_reason
    from d3mkit.taskroot import TaskRoot
    from d3mkit.validation import validate_task_root
    datasets = _datasets()
    task = TaskRoot.open(root)
    out = Path(out)
    if outside_reason(task.root, out) is None:
        raise UsageError("the output is inside the task root; give a directory outside it", str(out))
    check_output_dir(out)
    errors = [i for i in validate_task_root(task.root) if i.is_error]
    escapes = [i for i in errors if i.code == "path.escape"]
    if (errors and not force) or escapes:
        raise D3MKitError(escapes or errors)
    import numpy as np

    from d3mkit.splits import fold_members
    from d3mkit.validation.csvread import read_header
    members = dict(zip(("train", "test"), fold_members(task.problem_dir / task.problem.splits_file,
                                                       repeat, fold)))
    columns = read_header(task.dataset.resource_path(task.dataset.learning_data))[0]
    labels = _labels(task, np.union1d(members["train"], members["test"]))
    features, media = features_of(task, columns, labels, datasets)
    with StagedDir(out, force=force) as tmp:
        cache = tmp / ".cache"
        splits = {}
        for split in ("train", "test"):
            splits[split] = datasets.Dataset.from_generator(
                _rows, features=features, cache_dir=str(cache), keep_in_memory=False,
                gen_kwargs={"task": task, "members": members[split], "features": features, "media": media},
                split=split)
        dd = datasets.DatasetDict(splits)
        dd.save_to_disk(str(tmp / "data"))
        for p in (tmp / "data").iterdir():
            p.rename(tmp / p.name)
        (tmp / "data").rmdir()
        sizes = {k: len(v) for k, v in splits.items()}
        del dd, splits
        shutil.rmtree(cache, ignore_errors=True)
        write_text(tmp / "README.md", dataset_card(task, features, repeat, fold, sizes))
    from d3mkit.interop.croissant import invalid_root
    return [invalid_root(task.root, errors, "the dataset holds the rows as read")] if errors else []
