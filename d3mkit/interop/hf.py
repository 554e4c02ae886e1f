"""A task root as a Hugging Face ``datasets`` DatasetDict (``d3mkit export hf``): the one
owner of the mapping between D3M columns and HF features (docs/interop.md has the table).

One split per TRAIN and TEST rows of a repeat and fold (``train``, ``test``), in the layout
``DatasetDict.save_to_disk`` writes (``dataset_dict.json``; per split ``data-XXXXX-of-NNNNN.arrow``,
``state.json``, ``dataset_info.json``) so ``datasets.load_from_disk`` reads it; a dataset card
``README.md`` with a YAML header (licence, pretty name, task category) and the citation and
RAI fields (the benchmark's card, as the Croissant export takes them).

Features: a categorical target is a ``ClassLabel`` (its labels, sorted), a column referring
to an image collection an ``Image`` (the file's bytes), integer ``int64``, real ``float64``,
boolean ``bool``, dateTime ``timestamp[ns, tz=UTC]`` (``timestamp[us, tz=UTC]`` when a date is
outside 1677-2262, with an ``export.wide_dates`` note), anything else (and a declared column
whose cells do not all read as its colType, or an integer column beyond int64) ``string``,
with an ``export.kept_text`` note.

Memory: nothing grows with the number of rows or images but the fold's indices (8 bytes a row,
:func:`d3mkit.taskroot.splits.read.fold_members`). learningData is read in blocks
(:func:`d3mkit.tables.read_table_chunks`, rows picked by :func:`d3mkit.taskroot.splits.read.member_mask`), a
first pass gives the ClassLabel names, and the second writes each split's Arrow file with
datasets' own ``ArrowWriter`` a slice of rows at a time (its ``writer_batch_size``: 100 rows
when there are images), the images read one at a time into the slice (docs/performance.md
says why not ``Dataset.from_generator``). Needs the ``[hf]`` extra.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.core.errors import D3MKitError, Issue, MissingDependency

# D3M licence text -> Hugging Face licence identifier (else "other" with the text as license_name)
LICENSES = {"unknown": "unknown", "cc0": "cc0-1.0", "cc0-1.0": "cc0-1.0", "cc by 4.0": "cc-by-4.0", "cc-by-4.0": "cc-by-4.0", "mit": "mit",
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


def features_of(task, columns: list[str], labels: dict[str, set], datasets, text=frozenset(),
                wide: set[str] = frozenset()):
    """``(datasets.Features, {column: media collection})`` of learningData's ``columns``;
    ``labels`` are the labels of each categorical target (its ClassLabel names, sorted);
    ``text`` the columns whose cells do not all read as their colType (``string``)."""
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
        elif name in text:
            feats[name] = datasets.Value("string")
        elif ctype in SCALARS:
            feats[name] = datasets.Value(SCALARS[ctype])
        elif ctype == "dateTime":         # a date outside 1677-2262: microseconds (years 1-9999)
            feats[name] = datasets.Value("timestamp[us, tz=UTC]" if name in wide else "timestamp[ns, tz=UTC]")
        else:
            feats[name] = datasets.Value("string")
    for name in columns:                  # undeclared columns stay text
        feats.setdefault(name, datasets.Value("string"))
    return datasets.Features({c: feats[c] for c in columns}), media


def _blocks(task, members):
    """``(raw, typed)`` blocks of learningData's rows whose d3mIndex is in ``members`` (one
    or several :func:`d3mkit.taskroot.splits.read.fold_members` arrays), in file order: the cells as read
    and as :meth:`TaskRoot.frame` types them."""
    import warnings

    from d3mkit.core.errors import CoercionWarning
    from d3mkit.taskroot.splits.read import member_mask
    from d3mkit.tables import read_table_chunks
    for raw in read_table_chunks(task.dataset.resource_path(task.dataset.learning_data)):
        index = raw["d3mIndex"] if "d3mIndex" in raw.columns else raw.iloc[:, 0]
        keep = np.zeros(len(raw), dtype=bool)
        for m in members:
            keep |= member_mask(index, m)
        if keep.any():
            raw = raw[keep].reset_index(drop=True)
            with warnings.catch_warnings():          # columns kept as text: _survey finds them, export_hf says so
                warnings.simplefilter("ignore", CoercionWarning)
                frame = task.frame(raw)
            yield raw, frame


# the pandas dtype kind a declared colType reads as when every cell of the column reads
READS_AS = {"integer": "Int64", "real": "float64", "boolean": "boolean"}


def _survey(task, members) -> tuple[dict[str, set], dict[str, str], set[str]]:
    """One pass over the fold's rows: the labels of each categorical target (its ClassLabel
    names); the columns declared integer, real, boolean or dateTime that the dataset holds as
    text, each with the reason (cells that do not read as the colType, which
    :func:`d3mkit.validation.coltypes.coerce` keeps as text; integers beyond int64, which no
    Arrow integer holds exactly); and the dateTime columns with a date outside the
    nanosecond range (1677-2262), held as ``timestamp[us, tz=UTC]``."""
    ld = task.dataset.learning_data
    targets = set(task.targets)
    cats = [c.col_name for c in ld.columns or () if c.col_type == "categorical" and c.col_name in targets]
    scalars = {c.col_name: c.col_type for c in ld.columns or () if c.col_type in (*READS_AS, "dateTime")}
    labels: dict[str, set] = {c: set() for c in cats}
    text: dict[str, str] = {}
    wide: set[str] = set()
    for _raw, frame in _blocks(task, members):
        for c in cats:
            if c in frame.columns:
                labels[c].update(str(v) for v in frame[c].dropna().unique())
        for c, ct in scalars.items():
            if c in frame.columns and c not in text:
                col = frame[c]
                dt = str(col.dtype)
                if ct == "dateTime" and dt.startswith("datetime64"):
                    if c not in wide and _beyond_ns(col):
                        wide.add(c)
                elif ct == "integer" and dt == "float64" and _beyond_int64(col):
                    text[c] = "integers beyond int64 (Arrow's widest integer): the dataset holds them as text"
                elif dt != READS_AS.get(ct):
                    text[c] = f"some cells do not read as {ct}: the dataset holds the column as text"
    return labels, text, wide - set(text)


_NS_RANGE = (pd.Timestamp.min.tz_localize("UTC"), pd.Timestamp.max.tz_localize("UTC"))


def _beyond_ns(col) -> bool:
    """Whether a date of ``col`` (UTC) is outside what nanoseconds since 1970 hold."""
    lo, hi = col.min(), col.max()
    return bool(pd.notna(lo) and (lo < _NS_RANGE[0] or hi > _NS_RANGE[1]))


def _beyond_int64(col) -> bool:
    x = col.to_numpy(dtype=float, na_value=np.nan)
    fin = np.isfinite(x)
    return bool(np.all(np.mod(x[fin], 1) == 0) and np.any(np.abs(x[fin]) >= 2.0**63))


def _arrays(raw, frame, features, media, paths, datasets) -> dict:
    """The Arrow arrays of one slice of rows: ``raw`` cells as read, ``frame`` as typed; an
    image column's files read here, one at a time (the slice bounds what is held)."""
    import pyarrow as pa

    from d3mkit.io.limits import open_regular
    out = {}
    for c, f in features.items():
        if c in media:
            items = []
            for name, path in zip(raw[c], paths[c]):
                with open_regular(path, "media file", note=False) as fh:   # the collection is noted whole
                    items.append({"bytes": fh.read(), "path": str(name)})
            out[c] = pa.array(items, type=f.pa_type)
        elif isinstance(f, datasets.ClassLabel):
            codes = {n: i for i, n in enumerate(f.names)}
            col = frame[c]
            out[c] = pa.array([None if v is None or v != v else codes[str(v)] for v in col.astype(object)],
                              type=pa.int64())
        elif f.dtype == "string":         # the cells as written (a realVector's too); empty (or only
            # whitespace, as TaskRoot.frame reads it) is missing
            out[c] = pa.array(raw[c].to_numpy(dtype=object), type=pa.string(),
                              mask=(raw[c].str.strip() == "").to_numpy())
        else:
            out[c] = pa.array(frame[c], type=f.pa_type, from_pandas=True)
    return out


# the shard size datasets' save_to_disk aims for (datasets.config.MAX_SHARD_SIZE)
SHARD_BYTES = 500 * 10**6


def _write_split(task, members, features, media, folder: Path, datasets) -> tuple[int, int, list[str]]:
    """Write one split's Arrow files into ``folder`` with datasets' ``ArrowWriter`` (the
    layout ``save_to_disk`` writes: ``data-XXXXX-of-NNNNN.arrow``), a slice of rows at a time
    (``writer_batch_size`` rows: 100 for image features, as datasets does), a new file past
    :data:`SHARD_BYTES`. Returns (rows, bytes, file names)."""
    from datasets.arrow_writer import ArrowWriter, get_arrow_writer_batch_size_from_features
    step = get_arrow_writer_batch_size_from_features(features) or datasets.config.DEFAULT_MAX_BATCH_SIZE
    folder.mkdir()
    shards: list[Path] = []
    writer, rows, nbytes, in_shard = None, 0, 0, 0
    try:
        for raw, frame in _blocks(task, [members]):
            paths = {c: task.media_paths(c, raw) for c in media}
            for lo in range(0, len(raw), step):
                sl = slice(lo, lo + step)
                batch = _arrays(raw.iloc[sl], frame.iloc[sl], features, media,
                                {c: p.iloc[sl] for c, p in paths.items()}, datasets)
                if writer is None or in_shard >= SHARD_BYTES:
                    if writer is not None:
                        writer.finalize()
                        writer.close()
                    shards.append(folder / f"shard-{len(shards)}.arrow")
                    writer, in_shard = ArrowWriter(features=features, path=str(shards[-1]), writer_batch_size=step), 0
                size = sum(a.nbytes for a in batch.values())
                writer.write_batch(batch)
                rows, nbytes, in_shard = rows + len(raw.iloc[sl]), nbytes + size, in_shard + size
        if writer is None:                        # no row: one empty file with the schema
            shards.append(folder / "shard-0.arrow")
            writer = ArrowWriter(features=features, path=str(shards[-1]), writer_batch_size=step)
        writer.finalize()
    finally:
        if writer is not None:
            writer.close()
    names = [f"data-{i:05d}-of-{len(shards):05d}.arrow" for i in range(len(shards))]
    for p, name in zip(shards, names):
        p.rename(folder / name)
    return rows, nbytes, names


def _split_metadata(folder: Path, split: str, features, rows: int, nbytes: int, files: list[str],
                    fingerprint: str, datasets) -> None:
    """``state.json`` and ``dataset_info.json`` of a split, as ``Dataset.save_to_disk`` writes
    them (tests/interop/test_hf_export.py checks the keys against datasets' own)."""
    from datasets.utils.py_utils import asdict       # datasets' own, which save_to_disk uses
    info = datasets.DatasetInfo(features=features, dataset_size=nbytes, size_in_bytes=nbytes)
    info.splits = datasets.SplitDict()
    info.splits.add(datasets.SplitInfo(name=split, num_bytes=nbytes, num_examples=rows))
    state = {"_data_files": [{"filename": f} for f in files], "_fingerprint": fingerprint,
             "_format_columns": None, "_format_kwargs": {}, "_format_type": None,
             "_output_all_columns": False, "_split": split}
    (folder / "state.json").write_text(json.dumps(state, indent=2, sort_keys=True), encoding="utf-8")
    d = asdict(info)
    (folder / "dataset_info.json").write_text(json.dumps({k: d[k] for k in sorted(d)}, indent=2), encoding="utf-8")


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
    from d3mkit.interop.exporting import start_export
    from d3mkit.io.atomic import StagedDir, write_text
    datasets = _datasets()
    task, out, errors = start_export(root, out)
    escapes = [i for i in errors if i.code == "path.escape"]
    if (errors and not force) or escapes:
        raise D3MKitError(escapes or errors)
    import hashlib

    from d3mkit.taskroot.splits.read import fold_members
    from d3mkit.tables.csvread import read_header
    members = dict(zip(("train", "test"), fold_members(task.problem_dir / task.problem.splits_file,
                                                       repeat, fold)))
    columns = read_header(task.dataset.resource_path(task.dataset.learning_data))[0]
    labels, text, wide = _survey(task, list(members.values()))
    features, media = features_of(task, columns, labels, datasets, text, wide)
    from d3mkit.io.readlog import note
    for res in media.values():       # an input as a whole (the output is outside the task root)
        note(task.dataset.resource_path(res))
    with StagedDir(out, force=force) as tmp:
        sizes = {}
        for split in ("train", "test"):
            rows, nbytes, files = _write_split(task, members[split], features, media, tmp / split, datasets)
            key = json.dumps([task.name, split, repeat, fold, rows, nbytes, repr(features)])
            _split_metadata(tmp / split, split, features, rows, nbytes, files,
                            hashlib.sha256(key.encode()).hexdigest()[:16], datasets)
            sizes[split] = rows
        (tmp / "dataset_dict.json").write_text(json.dumps({"splits": list(sizes)}), encoding="utf-8")
        write_text(tmp / "README.md", dataset_card(task, features, repeat, fold, sizes))
    from d3mkit.core.errors import warning
    from d3mkit.interop.croissant import invalid_root
    ld = str(task.dataset.resource_path(task.dataset.learning_data))
    kept = [warning("export.kept_text", "", text[c], ld, column=c) for c in sorted(text)]
    kept += [warning("export.wide_dates", "", "dates outside 1677-2262 (the nanosecond range): "
                     "the feature is timestamp[us, tz=UTC]", ld, column=c) for c in sorted(wide)]
    return kept + ([invalid_root(task.root, errors, "the dataset holds the rows as read")] if errors else [])
