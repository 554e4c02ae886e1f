"""Packaging a user's table as a D3M task root: the core every importer runs.

What this module owns: from a table of text cells (a file read by
:mod:`d3mkit.importing.source`, a caller's DataFrame, an ARFF file's rows, an image
folder's listing) to a written, validated task root — the checks on column names, the
index, the targets, ``types`` overrides and media references (each refusal one issue with
an ``import.*`` code, nothing written), the datasetDoc and problemDoc, and the write
through :class:`d3mkit.taskroot.writer.TaskRootWriter` (atomic, validated, the same writer
``build`` uses; dataSplits by :func:`d3mkit.taskroot.splits.plan.make_splits` unless the source brings
its own). The inference rules are :mod:`d3mkit.importing.infer`'s.

Rows with a missing target value are dropped (an empty target cell cannot be trained on
or scored); their number is reported (a warning, ``import.target_missing``) and recorded in
``<name>_debug/manifest.json`` as ``droppedRows``; the rows keep the d3mIndex they had, so
the numbering still follows the file.

>>> import tempfile, pandas as pd
>>> df = pd.DataFrame({"x": [1.5, 2.0, 3.25, 4.0, 5.5, 6.0], "y": list("ababab")})
>>> root = import_table(df, target="y", out=tempfile.mkdtemp(), name="toy")
>>> from d3mkit.taskroot.model import TaskRoot
>>> t = TaskRoot.open(root); t.problem.task_type, t.problem.task_subtype
('classification', 'binary')
"""

from __future__ import annotations

import mimetypes
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
from d3mkit.core.errors import D3MKitError, EXIT_USAGE, Issue, error, require_path, require_type, warning
from d3mkit.importing import infer

MEDIA_KINDS = {
    "image": (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp"),
    "audio": (".wav", ".mp3", ".flac", ".ogg", ".m4a", ".aiff"),
    "text": (".txt", ".md", ".json", ".xml", ".html"),
    "video": (".mp4", ".avi", ".mov", ".mkv", ".webm", ".mpg", ".mpeg"),
}
#: the datasetDoc licence of an import told none (datasetSchema's about.license is free text,
#: required): exports carry it as is (docs/interop.md)
UNKNOWN_LICENSE = "unknown"
MEDIA_DIR = "media"
MEDIA_RES = "media"
_ODD = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\ufeff]")


@dataclass
class ImportOptions:
    """Everything an import may be told; the Python keywords of :func:`import_table`."""

    target: list[str]
    name: str | None = None
    task: str | None = None
    subtype: str | None = None
    index: str | None = None
    types: dict[str, str] = field(default_factory=dict)
    metrics: list[str | dict] | None = None     # names, or performanceMetrics entries with parameters
    split: str = "holdOut"
    test_size: float = 0.2
    folds: int = 5
    repeats: int = 0
    stratified: bool | None = None
    seed: int = 0
    media: Path | None = None
    force: bool = False
    description: str | None = None
    problem_description: str | None = None       # default: "Predict <targets> (<task>/<subtype>)."
    license: str | None = None                   # the datasetDoc's licence (default "unknown": never invented)
    citation: str | None = None
    source_url: str | None = None                # the datasetDoc's sourceURI
    rai: dict | None = None                      # Croissant RAI fields for the manifest's "rai"
    ignore: list[str] = field(default_factory=list)   # columns left out of the task root
    target_text: str | None = None               # --target as given: an exact column name wins over COL,COL
    na_values: list[str] | None = None           # missing-value tokens (default infer.NA_TOKENS)
    keep_text: bool = False                      # no token is a missing value: such a column stays text

    @property
    def na_tokens(self) -> frozenset[str]:
        """The cells that are missing values in an otherwise numeric or date column."""
        if self.keep_text:
            return frozenset()
        return frozenset(self.na_values) - {""} if self.na_values is not None else infer.NA_TOKENS

    def __post_init__(self):
        if self.task == "multiLabel":       # D3M's subtype named as the task: classification/multiLabel
            self.task = "classification"
            self.subtype = self.subtype or "multiLabel"


@dataclass
class Imported:
    """What an import wrote: the task root and the warnings on the way."""

    root: Path
    issues: list[Issue] = field(default_factory=list)
    decided: str = ""           # what was decided, the rule and the option that changes it (printed)


def _fail(source: str, code: str, location: str, message: str, exit_code: int = 1):
    raise D3MKitError(error(code, location, message, source), exit_code)


def _as_list(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",")] if "," in value else [value]
    return [str(v) for v in value]


def check_names(columns: list[str], source: str) -> None:
    """Column names: none empty, none repeated, none with control characters or leading/
    trailing whitespace (``import.column_name``, ``csv.duplicate_header``)."""
    seen: set[str] = set()
    for i, c in enumerate(columns):
        if c in seen:
            _fail(source, "csv.duplicate_header", f"row 1, column {c}", f"column name {c!r} appears twice")
        seen.add(c)
        if c.strip() == "":
            _fail(source, "import.column_name", "row 1", f"column {i + 1} has an empty name")
        if c != c.strip() or _ODD.search(c):
            _fail(source, "import.column_name", "row 1", f"column {i + 1} name {c!r} has control characters "
                  f"or leading/trailing whitespace")


def _index(df: pd.DataFrame, index: str | None, source: str, repeats: bool = False) -> pd.DataFrame:
    """``df`` with its ``d3mIndex`` first: the column as is, ``index`` renamed, or numbers
    0..n-1 in file order. A value on several rows is refused unless ``repeats`` (a table that
    may be in the long multiLabel form, :func:`long_form_possible`)."""
    col = index or ("d3mIndex" if "d3mIndex" in df.columns else None)
    if index is not None and index != "d3mIndex" and "d3mIndex" in df.columns:
        _fail(source, "import.index", "column d3mIndex", f"the table has a d3mIndex column and the index "
              f"{index!r} was named too; drop one")
    if col is None:
        df.insert(0, "d3mIndex", np.arange(len(df), dtype=np.int64))
        return df
    if col not in df.columns:
        _fail(source, "import.index", "row 1", f"index column {col!r} is not in the table", EXIT_USAGE)
    values = df[col].astype(str)
    bad = np.flatnonzero(~values.str.fullmatch(r"[+-]?\d+").to_numpy())
    if len(bad):
        r = int(bad[0])
        _fail(source, "import.index", f"row {r + 2}, column {col}",
              f"index value {values.iloc[r]!r} is not an integer")
    try:          # the cells matched [+-]?\d+; Python ints beyond 64 bits
        ints = pd.Series(_int64(values))
    except OverflowError:
        ints = values.map(lambda v: int(v))
    dup = np.flatnonzero(ints.duplicated().to_numpy()) if not repeats else ()
    if len(dup):
        r = int(dup[0])
        _fail(source, "import.index", f"row {r + 2}, column {col}",
              f"index value {values.iloc[r]!r} appears on more than one row (an index repeats only in D3M's "
              f"long multiLabel form, with one classification target)")
    df = df.drop(columns=[col])
    df.insert(0, "d3mIndex", ints.to_numpy())
    return df


def _int64(values: pd.Series) -> np.ndarray:
    """int64 of texts that all match ``[+-]?\\d+`` (OverflowError beyond 64 bits): pyarrow's
    cast (C++, no Python int a cell) where pyarrow is installed and reads them all (it takes
    no ``+``), else numpy's ``int()`` of each."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        pa = None
    if pa is not None:
        try:
            return np.asarray(pc.cast(pa.array(values.array), pa.int64()))
        except (pa.ArrowException, TypeError, ValueError):
            pass
    return np.asarray(values, dtype=object).astype(np.int64)


def canonical_ints(texts: pd.Series) -> bool:
    """Whether every text is an integer as ``str(int)`` writes it (no ``+``, no leading zero,
    no ``-0``): then the integers' own text is the file's."""
    return bool(texts.astype(str).str.fullmatch(r"0|-?[1-9]\d*").all())


def index_values(df: pd.DataFrame, index: str | None, source: str, repeats: bool = False) -> list[int]:
    """The d3mIndex each row of ``df`` gets (:func:`_index`), in row order; ``repeats``: a
    value may repeat (the long multiLabel form, :func:`long_form_possible`)."""
    return _index(df.copy(), index, source, repeats)["d3mIndex"].tolist()


def check_given(levels: np.ndarray, given: str, column: str, cells, row0: int, source: str) -> None:
    """Refuse a colType given for ``column`` (``types``, or a source's declaration) that one
    of its distinct non-empty cells ``levels`` contradicts, naming the first such row
    (``cells`` the column's cells, the first of them on row ``row0``)."""
    from d3mkit.validation.coltypes import bad_rows, describe
    if given not in infer.OVERRIDABLE:
        _fail(source, "import.types", f"column {column}", f"unknown colType {given!r} "
              f"(one of {', '.join(infer.OVERRIDABLE)})", EXIT_USAGE)
    if given in ("categorical", "string") or not len(levels):
        return
    bad = bad_rows(pd.Series(levels, dtype="category"), given)
    if len(bad):
        value = levels[int(bad[0])]
        row = int(np.flatnonzero(np.asarray(cells, dtype=object) == value)[0])
        _fail(source, "import.types", f"row {row0 + row}, column {column}",
              f"value {value!r} is {describe(given)}, yet the column was given colType {given!r}")


def _coltypes(evidence: dict[str, infer.Evidence], targets: list[str], given: dict[str, str],
              user_types: dict[str, str], counts: dict[str, int], task: str | None = None) -> dict[str, str]:
    """colType of every column but d3mIndex: ``given`` (checked already) or inferred; a target's
    by :func:`d3mkit.importing.infer.target_coltype` unless the user's ``types`` name it."""
    types: dict[str, str] = {}
    for c, ev in evidence.items():
        t = given.get(c) or ev.coltype()
        types[c] = t if c in user_types or c not in targets or (task == "regression" and t in infer.NUMERIC) else \
            infer.target_coltype(t, counts[c], several=len(targets) > 1)
    return types


def is_multilabel(target_types: list[str], opts: ImportOptions) -> bool:
    """Several targets that make one multiLabel target (:mod:`d3mkit.importing.multilabel`):
    more than one, and not all numeric (or the task given is classification), unless the task
    given is regression."""
    if len(target_types) < 2 or opts.task == "regression":
        return False
    return opts.task == "classification" or any(t not in infer.NUMERIC for t in target_types)


def long_form_possible(targets: list[str], opts: ImportOptions) -> bool:
    """True when a repeated index makes the table D3M's long multiLabel form (one row per
    (d3mIndex, label)): one target, and no task or subtype given that is not multiLabel."""
    return len(targets) == 1 and opts.task in (None, "classification") and opts.subtype in (None, "multiLabel")


def target_types(evidence: dict[str, infer.Evidence], targets: list[str], given: dict[str, str],
                 n_labels: dict[str, int]) -> list[str]:
    """The colTypes the ``targets`` get (:func:`_coltypes`'s rule for them)."""
    return [given.get(t) or infer.target_coltype(evidence[t].coltype(), n_labels[t], several=len(targets) > 1)
            for t in targets]


def _task(targets: list[str], types: dict[str, str], labels: dict[str, int], opts: ImportOptions,
          source: str) -> tuple[str, str]:
    if opts.task is not None and opts.task not in infer.TASKS:
        _fail(source, "import.task", "", f"task {opts.task!r} is not one d3mkit imports "
              f"({', '.join(infer.TASKS)})", EXIT_USAGE)
    if opts.task == "classification":
        for t in targets:
            if types[t] not in infer.DISCRETE:
                types[t] = "categorical"
    if opts.task == "regression":
        for t in targets:
            if types[t] not in infer.NUMERIC:
                _fail(source, "import.task", f"column {t}", f"a regression target must be integer or real; "
                      f"{t!r} is {types[t]}")
    found = infer.infer_task([types[t] for t in targets], [labels[t] for t in targets])
    if found is None:
        _fail(source, "import.targets", "", f"the targets ({', '.join(targets)}) give no task d3mkit writes")
    task, subtype = found
    if opts.subtype is not None:
        if opts.subtype == "multiLabel":
            _fail(source, "import.task", "", "a multiLabel task needs label targets: several label columns, "
                  "or one label column with a row per (index, label)", EXIT_USAGE)
        if opts.subtype not in infer.TASKS[task]:
            _fail(source, "import.task", "", f"subtype {opts.subtype!r} does not apply to {task} "
                  f"({', '.join(infer.TASKS[task])})", EXIT_USAGE)
        subtype = opts.subtype
    return task, subtype


def _metrics(task: str, subtype: str, names: list[str | dict] | None, source: str) -> list[dict]:
    """performanceMetrics entries: the task's defaults, else ``names`` (a name, or an entry
    with its parameters, e.g. ``{"metric": "f1", "posLabel": "yes"}``), each in the registry.
    A registered metric that is not one of problemSchema 3.1.1's names (``hammingLoss``) is
    written as D3M writes a custom metric, ``{"metric": "other", "specifyOther": NAME}``."""
    if not names:
        return infer.default_metrics(task, subtype)
    from d3mkit.core.registry import registry
    known = registry()
    out = []
    for m in names:
        entry = dict(m) if isinstance(m, dict) else {"metric": m}
        name = entry.get("specifyOther") if entry.get("metric") == "other" else entry.get("metric")
        if name not in known:
            _fail(source, "metric.unknown", "", f"metric {name!r} is not in the metric registry "
                  f"(d3mkit metrics lists them)", EXIT_USAGE)
        if entry.get("metric") != "other" and not known[name].standard:
            entry = {"metric": "other", "specifyOther": name, **{k: v for k, v in entry.items() if k != "metric"}}
        out.append(entry)
    return out


def _media(df: pd.DataFrame, skip: set[str], media: Path, source: str) -> tuple[str, str, list[str]]:
    """The column naming files under ``media``: ``(column, resType, formats)``; every file
    checked (inside ``media``, a regular file; images through the image reader)."""
    from d3mkit.io.images import image_issue
    from d3mkit.io.limits import file_issue
    from d3mkit.io.paths import outside_reason
    if not media.is_dir():
        _fail(str(media), "usage.path", "", "the media directory does not exist or is not a directory", EXIT_USAGE)
    found = None
    for c in df.columns:
        if c in skip:
            continue
        values = df[c][df[c] != ""]
        if len(values) and (media / str(values.iloc[0])).is_file():
            found = c
            break
    if found is None:
        _fail(source, "import.media", "", f"no column names files under the media directory {str(media)!r}")
    kinds = set()
    formats: list[str] = []
    for r, v in enumerate(df[found].tolist()):
        if v == "":
            _fail(source, "import.media", f"row {r + 2}, column {found}", "empty media file name")
        p = media / v
        why = outside_reason(media, p)
        if why:
            _fail(source, "path.escape", f"row {r + 2}, column {found}", f"media file {v!r} leaves the media "
                  f"directory: {why}")
        if not p.exists():
            _fail(source, "import.media", f"row {r + 2}, column {found}", f"media file {v!r} does not exist "
                  f"under {str(media)!r}")
        refused = file_issue(p, "media file")
        if refused is not None:
            raise D3MKitError(refused)
        ext = p.suffix.lower()
        kind = next((k for k, exts in MEDIA_KINDS.items() if ext in exts), None)
        if kind is None:
            _fail(source, "import.media", f"row {r + 2}, column {found}", f"media file {v!r}: extension "
                  f"{ext or '(none)'!r} is not an image, audio, text or video file")
        if kind == "image":
            bad = image_issue(p, location=f"row {r + 2}, column {found}")
            if bad is not None:
                raise D3MKitError(bad)
        kinds.add(kind)
        mime = mimetypes.guess_type(p.name)[0] or f"{kind}/{ext.lstrip('.')}"
        if mime not in formats:
            formats.append(mime)
    if len(kinds) > 1:
        _fail(source, "import.media", f"column {found}", f"media files of several kinds ({', '.join(sorted(kinds))}); "
              f"a collection holds one kind")
    return found, kinds.pop(), formats


@dataclass
class Prepared:
    """A table ready to be written: ``columns`` (d3mIndex first), ``n_rows``, the colType
    ``evidence`` of every other column, ``given`` colTypes (checked against the cells),
    ``kept`` (the text cells of d3mIndex, the targets and a media column, row for row),
    ``dropped`` (rows left out for an empty target) and ``write(path)`` writing
    learningData.csv."""

    columns: list[str]
    n_rows: int
    evidence: dict[str, infer.Evidence]
    given: dict[str, str]
    kept: pd.DataFrame
    write: object
    dropped: int = 0
    frame: pd.DataFrame | None = None       # the whole table of text cells, when it is held
    long_form: bool = False                 # one row per (d3mIndex, label): a multiLabel target
    media: tuple[str, str, list[str]] | None = None    # the media column (column, resType, formats)


def check_header(columns: list[str], targets: list[str], opts: ImportOptions, source: str) -> None:
    """The checks on the header alone: names, the targets, the columns ``types`` names."""
    if not targets:
        _fail(source, "import.target", "", "no target column was given", EXIT_USAGE)
    check_names(columns, source)
    for t in targets:
        if t not in columns:
            from d3mkit.core.errors import close_match
            near = close_match(t, columns)
            _fail(source, "import.target", "row 1", f"target column {t!r} is not in the table"
                  + (f" (did you mean {near!r}?)" if near else "") + f"; its columns: {_listed(columns)}",
                  EXIT_USAGE)
        if t == "d3mIndex" or t == opts.index:
            _fail(source, "import.target", f"column {t}", "the index column cannot be a target", EXIT_USAGE)
    unknown = [c for c in opts.types if c not in columns]
    if unknown:
        _fail(source, "import.types", "", f"types name column(s) not in the table: "
              f"{', '.join(repr(c) for c in unknown[:10])}", EXIT_USAGE)


def _listed(columns: list[str], most: int = 30) -> str:
    shown = ", ".join(repr(c) for c in columns[:most])
    return shown + (f" ... ({len(columns)} in all)" if len(columns) > most else "")


def resolve_target(opts: ImportOptions, columns: list[str]) -> None:
    """``--target`` as given names one column when it is exactly a column's name (``a,b`` may
    be a name), else the comma-separated columns it lists."""
    if opts.target_text is not None:
        for name in (opts.target_text, opts.target_text.strip()):    # a header trimmed of spaces: trimmed too
            if name in columns:
                opts.target = [name]
                return


def drop_ignored(df: pd.DataFrame, opts: ImportOptions, source: str) -> pd.DataFrame:
    """``df`` without the ``--ignore`` columns (each must be in the table)."""
    if not opts.ignore:
        return df
    cols = [str(c) for c in df.columns]
    for c in opts.ignore:
        if c not in cols:
            from d3mkit.core.errors import close_match
            near = close_match(c, cols)
            _fail(source, "import.ignore", "row 1", f"--ignore names {c!r}, which is not a column"
                  + (f" (did you mean {near!r}?)" if near else "") + f"; its columns: {_listed(cols)}", EXIT_USAGE)
    return df.drop(columns=list(opts.ignore))


def drop_empty_targets(df: pd.DataFrame, targets: list[str], source: str,
                       issues: list[Issue]) -> tuple[pd.DataFrame, np.ndarray | None]:
    """``df`` without the rows whose target cell (any target's) is empty, and the mask of the
    rows kept (None when none was left out); the count and the first such row are a warning
    in ``issues`` (``import.target_missing``); no row left is ``import.target_empty``."""
    missing = np.zeros(len(df), dtype=bool)
    for t in targets:
        missing |= (df[t].to_numpy() == "")
    dropped = int(missing.sum())
    if dropped == len(df):
        _fail(source, "import.target_empty", f"column {targets[0]}", "every target cell is empty")
    if not dropped:
        return df, None
    issues.append(warning("import.target_missing", f"column {', '.join(targets)}",
                          f"{dropped:,} row(s) with an empty target were left out "
                          f"(first at row {int(np.flatnonzero(missing)[0]) + 2})", source))
    return df[~missing].reset_index(drop=True), ~missing


def prepare_frame(df: pd.DataFrame, opts: ImportOptions, targets: list[str], source: str,
                  hints: dict[str, str], issues: list[Issue], keep: tuple[str, ...] = ()) -> Prepared:
    """:class:`Prepared` of a whole table of text cells: the index made, rows with an empty
    target dropped (a warning in ``issues``), every column's evidence and given colType."""
    from d3mkit.tables import write_table
    check_header([str(c) for c in df.columns], targets, opts, source)
    if len(df) == 0:
        _fail(source, "csv.no_rows", "row 1", "the table has a header but no rows")
    df = missing_tokens(df, opts, source, issues, hints)
    possible = long_form_possible(targets, opts)
    source_df, df = df, _index(df.copy(), opts.index, source, repeats=possible)
    ev = {t: infer.Evidence().add(*infer.levels_of(df[t])) for t in targets}
    long_form = False
    if possible and (opts.subtype == "multiLabel" or bool(df["d3mIndex"].duplicated().any())):
        # a repeated index is the long form of labels; real numbers on a repeated index are not labels
        long_form = opts.subtype == "multiLabel" or opts.task == "classification" or \
            (opts.types.get(targets[0]) or hints.get(targets[0]) or ev[targets[0]].coltype()) != "real"
        if not long_form:
            _index(source_df.copy(), opts.index, source)          # refuses the repeated index
        from d3mkit.importing.multilabel import check_long_form
        check_long_form(df, targets[0], source)
    labels = target_types(ev, targets, {t: g for t in targets if (g := opts.types.get(t) or hints.get(t))},
                          {t: int(df[t][df[t] != ""].nunique()) for t in targets}) if len(targets) > 1 else []
    several = is_multilabel(labels, opts)       # label columns: a row without a label is dropped later
    n_rows = len(df)
    if not several:
        df, _ = drop_empty_targets(df, targets, source, issues)
    dropped = n_rows - len(df)
    evidence, given = {}, {}
    # the long form repeats an instance's cells on each of its labels: they count once
    instances = df[~df["d3mIndex"].duplicated().to_numpy()] if long_form else df
    for c in df.columns[1:]:
        levels, n = infer.levels_of(df[c] if c in targets else instances[c])
        g = opts.types.get(c) or hints.get(c)
        if g is not None:
            check_given(levels, g, c, df[c].to_numpy(), 2, source)
            given[c] = g
        evidence[c] = infer.Evidence().add(levels, n)
    kept = df[["d3mIndex", *targets, *[k for k in keep if k not in targets]]]
    return Prepared(list(df.columns), len(df), evidence, given, kept,
                    lambda path: write_table(df, path), dropped, frame=df if several else None,
                    long_form=long_form)


def missing_tokens(df: pd.DataFrame, opts: ImportOptions, source: str, issues: list[Issue],
                   hints: dict[str, str] | None = None) -> pd.DataFrame:
    """``df`` with the missing-value tokens (``opts.na_tokens``: ``NA``, ``N/A``, ``NaN``,
    ``null``, ``?``...) of each otherwise numeric or date column made empty cells (missing
    values); each such column is an ``import.missing_values`` warning counting them. A column
    ``types`` (or the source) declares text keeps its cells."""
    tokens = opts.na_tokens
    if not tokens:
        return df
    out = None
    declared = {**(hints or {}), **opts.types}
    for c in df.columns:
        if c == "d3mIndex" or declared.get(c) in ("string", "categorical"):
            continue
        cells = df[c]
        hit = cells.isin(tokens).to_numpy()
        if not hit.any():
            continue
        ev = infer.Evidence(tokens).add(*infer.levels_of(cells))
        if ev.coltype() not in (*infer.NUMERIC, "dateTime"):
            continue
        out = df.copy() if out is None else out
        out[c] = cells.where(~hit, "")
        found = sorted(set(cells[hit]))
        issues.append(warning("import.missing_values", f"column {c}",
                              f"{int(hit.sum()):,} cell(s) {', '.join(repr(t) for t in found)} in a column of "
                              f"{ev.coltype()} values are missing values, written empty (first at row "
                              f"{int(np.flatnonzero(hit)[0]) + 2}; the keep_text option keeps them as text, na_values "
                              f"chooses the tokens)", source))
    return df if out is None else out


def package_frame(df: pd.DataFrame, opts: ImportOptions, out: Path | str, *, source: str,
                  hints: dict[str, str] | None = None, **kwargs) -> Imported:
    """Write the task root of ``df`` (text cells, header names as given); ``source`` names
    the input in every issue; the other keywords are :func:`package`'s."""
    from d3mkit.importing.dialect import fix_header, needs_fix
    issues: list[Issue] = []
    if needs_fix([str(c) for c in df.columns]):
        df, notes = fix_header(df, opts.index is not None, source)
        issues += notes
    df = drop_ignored(df, opts, source)
    resolve_target(opts, [str(c) for c in df.columns])
    targets = _as_list(opts.target)
    media_col = None
    if opts.media is not None:
        check_header([str(c) for c in df.columns], targets, opts, source)
        media_col = _media(df, {"d3mIndex", opts.index, *targets}, Path(opts.media), source)
    keep = (media_col[0],) if media_col else (kwargs["media_kind"][0],) if kwargs.get("media_kind") else ()
    prep = prepare_frame(df, opts, targets, source, dict(hints or {}), issues, keep)
    if media_col is not None:
        kwargs["media_kind"] = media_col
        kwargs["media_files"] = {v: Path(opts.media) / v for v in prep.kept[media_col[0]].unique()}
    done = package(prep, opts, out, source=source, **kwargs)
    done.issues[:0] = issues
    return done


def package(prep: Prepared, opts: ImportOptions, out: Path | str, *, source: str,
            splits: pd.DataFrame | None = None, split_doc: dict | None = None,
            descriptions: dict[str, str] | None = None, labels: dict[str, list[str]] | None = None,
            parameters: dict | None = None, media_files: dict[str, Path] | None = None,
            media_kind: tuple[str, str, list[str]] | None = None) -> Imported:
    """Write the task root of a :class:`Prepared` table. ``splits`` (dataSplits rows) and
    ``split_doc`` (the problemDoc's dataSplits section) come from a source that brings its
    own folds; ``media_files`` maps a media column's values to files to copy, with
    ``media_kind`` ``(column, resType, formats)``; ``descriptions`` are colDescriptions and
    ``labels`` declared levels of categorical columns (ARFF)."""
    from d3mkit.io.atomic import copy_file, write_with
    from d3mkit.io.beside import beside
    from d3mkit.taskroot.writer import TaskRootWriter, dataset_id, problem_id
    from d3mkit.taskroot.splits.plan import make_splits
    targets = _as_list(opts.target)
    kept = prep.kept
    counts, distinct = {}, {}       # distinct: (number of distinct non-empty cells, the first one)
    for t in targets:
        values = kept[t][kept[t] != ""]
        if (opts.types.get(t) or prep.given.get(t) or prep.evidence[t].coltype()) == "boolean":
            values = values.str.strip().str.lower().map(_TRUE.get)      # true/false however spelled
        distinct[t] = (int(values.nunique()), values.iloc[0] if len(values) else "")
        counts[t] = len((labels or {}).get(t) or ()) or distinct[t][0]
    types = _coltypes(prep.evidence, targets, prep.given, opts.types, counts, opts.task)
    notes: list[Issue] = []
    origin: dict = {}
    if is_multilabel([types[t] for t in targets], opts):     # one label column, a row per label
        prep, types, counts, origin = _as_multilabel(prep, targets, types, opts, source, notes,
                                                     list(prep.kept.columns[1:]))
        descriptions = {**(descriptions or {}), **origin["description"]}
        targets, kept = [origin["label"]], prep.kept
        task, subtype = "classification", "multiLabel"
    elif prep.long_form:                                      # already one row per (d3mIndex, label)
        origin = _long_form_target(targets[0], kept[targets[0]].iloc[0], types, counts, opts, source)
        descriptions = {**origin["description"], **(descriptions or {})}
        task, subtype = "classification", "multiLabel"
    else:
        for t in targets:
            if distinct[t][0] < 2:
                _fail(source, "import.target_constant", f"column {t}", f"target {t!r} has one value "
                      f"({distinct[t][1]!r}) on every row: nothing to learn or score")
        task, subtype = _task(targets, types, counts, opts, source)
        if task == "regression":
            _finite_targets(kept, targets, source)
    if splits is not None and prep.dropped:
        splits = splits[splits["d3mIndex"].astype(str).isin(set(kept["d3mIndex"].astype(str)))].reset_index(drop=True)
    metrics = _metrics(task, subtype, opts.metrics, source)
    if not origin:
        rules = [infer.target_rule(prep.given.get(t) or prep.evidence[t].coltype(), counts[t], types[t],
                                   declared=t in prep.given, user=t in opts.types) for t in targets]
        decided = infer.decision(targets, rules, [types[t] for t in targets], task, subtype, metrics,
                                 opts.task is not None)
    else:
        decided = f"targets {', '.join(origin['columns'])}: one label column {origin['label']!r}, " \
                  f"classification/multiLabel, metrics {', '.join(str(m.get('metric')) for m in metrics)}"
    media_col = media_kind[0] if media_kind is not None else None
    write, names = prep.write, {}
    if media_files:     # stored under neutral names: no file name in any view encodes a target
        from d3mkit.importing.media import neutral_names
        names = neutral_names(media_files)
        kept = kept.assign(**{media_col: kept[media_col].map(names)})
        write = _renaming(prep.write, media_col, names)
    name = opts.name or "imported"
    cols = [Column(0, "d3mIndex", "integer", ("index",))]
    for i, c in enumerate(prep.columns[1:], start=1):
        role = ("suggestedTarget",) if c in targets else ("attribute",)
        col_type = "string" if c == media_col else types[c]
        refers = {"resID": MEDIA_RES, "resObject": "item"} if c == media_col else None
        extra = {"colDescription": descriptions[c]} if c in (descriptions or {}) else {}
        cols.append(Column(i, c, col_type, role, refers, extra))
    resources = [Resource.table("learningData", "tables/learningData.csv", cols)]
    if media_col is not None:
        resources.insert(0, Resource.collection(MEDIA_RES, f"{MEDIA_DIR}/", media_kind[1], media_kind[2]))
    ddoc = DatasetDoc.new(dataset_id(name), name, resources, description=opts.description,
                          source=f"d3mkit import of {Path(source).name}", license=opts.license or UNKNOWN_LICENSE,
                          extra_about={k: v for k, v in (("citation", opts.citation), ("sourceURI", opts.source_url))
                                       if v} or None)
    # a label set has no one class to stratify on: multiLabel splits are drawn at random by default
    stratified = opts.stratified if opts.stratified is not None else (task == "classification"
                                                                     and subtype != "multiLabel")
    if split_doc is None:
        if opts.split not in ("holdOut", "kFold"):
            _fail(source, "import.split", "", f"split method {opts.split!r} is not holdOut or kFold", EXIT_USAGE)
        split_doc = {"method": opts.split, "stratified": bool(stratified), "numRepeats": int(opts.repeats),
                     "randomSeed": int(opts.seed)}
        if opts.split == "holdOut":
            if not 0.0 < float(opts.test_size) < 1.0:
                _fail(source, "import.split", "", f"test size must be between 0 and 1 (exclusive), "
                      f"got {opts.test_size}", EXIT_USAGE)
            split_doc["testSize"] = float(opts.test_size)
        else:
            split_doc["numFolds"] = int(opts.folds)
    target_objs = [Target(k, "learningData", prep.columns.index(t), t) for k, t in enumerate(targets)]
    pdoc = ProblemDoc.new(problem_id(name), name, task, subtype, dataset_id(name), target_objs, metrics,
                          description=opts.problem_description or f"Predict {', '.join(targets)} ({task}/{subtype}).",
                          splits=split_doc)
    params = {"source": Path(source).name, "targets": targets, "taskType": task, "taskSubType": subtype,
              "colTypes": types, "droppedRows": prep.dropped, **({"multiLabelFrom": origin["columns"],
                                                                 "multiLabelShape": origin["mode"]} if origin else {}),
              **(parameters or {})}
    with TaskRootWriter(out, name, benchmark="import", seed=int(opts.seed), parameters=params,
                        force=opts.force) as w:
        if opts.rai:
            w.manifest["rai"] = dict(opts.rai)       # what export croissant writes as rai: fields
        # learningData (file bytes and numpy: mostly outside the interpreter lock) is written in a
        # thread while the splits and the documents are made (d3mkit.io.beside); joined before commit
        with beside(write_with, w.media_path("tables/learningData.csv"), write):
            if splits is None:       # d3mkit's split code, on the index and target columns
                splits = make_splits(pdoc, kept[["d3mIndex", *targets]], ddoc)
            # every cell fed infer.Evidence or check_given; the index, target and media columns are in memory
            w.cells_checked("tables/learningData.csv", kept)
            copied = set()
            for v, src in (media_files or {}).items():
                if names[v] not in copied:     # equal bytes share one neutral name
                    copied.add(names[v])
                    copy_file(src, w.media_path(f"{MEDIA_DIR}/{names[v]}"))
            if names:
                from d3mkit.importing.media import SOURCES_TABLE, sources_table
                w.write_debug_table(SOURCES_TABLE, sources_table(names))
            w.write_dataset_doc(ddoc)
            w.write_problem_doc(pdoc, splits)
    return Imported(w.root, notes, decided)


_TRUE = {"true": "true", "t": "true", "yes": "true", "y": "true", "1": "true",
         "false": "false", "f": "false", "no": "false", "n": "false", "0": "false"}


def _finite_targets(kept: pd.DataFrame, targets: list[str], source: str) -> None:
    """A regression target cell that is infinite is refused, naming its row's d3mIndex: no
    prediction can be scored against it."""
    for t in targets:
        cells = kept[t].astype(str).str.strip().str.lower().str.lstrip("+-")
        bad = np.flatnonzero(cells.isin(["inf", "infinity"]).to_numpy())
        if len(bad):
            r = int(bad[0])
            _fail(source, "import.target_infinite", f"column {t}", f"target {t!r} is {kept[t].iloc[r]!r} on the "
                  f"row with d3mIndex {kept['d3mIndex'].iloc[r]} ({len(bad)} row(s) in all): no prediction "
                  f"can be scored against an infinite value; remove or correct those rows")


def _renaming(write, column: str, names: dict[str, str]):
    """``write`` of learningData with the media ``column``'s values replaced by ``names``:
    the table is written by ``write``, then its column renamed in place."""
    from d3mkit.tables import read_table, write_table

    def renamed(path):
        write(path)
        df = read_table(path)
        df[column] = df[column].map(names)
        write_table(df, path)
    return renamed


def _as_multilabel(prep: Prepared, targets: list[str], types: dict[str, str], opts: ImportOptions, source: str,
                   notes: list[Issue], kept_cols: list[str]):
    """``prep`` with its label columns ``targets`` made one multiLabel target
    (:func:`d3mkit.importing.multilabel.long_labels`): the new Prepared, colTypes, label count
    and what was done (for the manifest and the label column's description)."""
    from d3mkit.importing.multilabel import long_labels
    from d3mkit.tables import write_table
    if opts.subtype not in (None, "multiLabel"):
        _fail(source, "import.task", "", f"several label targets ({', '.join(targets)}) make a multiLabel "
              f"task, not {opts.subtype!r}", EXIT_USAGE)
    if prep.frame is None:
        raise RuntimeError("a multiLabel import needs the whole table (prepare_frame)")
    long, label, dropped, mode = long_labels(prep.frame, targets)
    if len(long) == 0:
        _fail(source, "import.target_empty", f"column {', '.join(targets)}", "no row has a label")
    n_labels = int(long[label].nunique())
    if n_labels < 2:
        _fail(source, "import.target_constant", f"column {', '.join(targets)}", f"every row has the one label "
              f"{long[label].iloc[0]!r} and no other: nothing to learn or score")
    if dropped:
        notes.append(warning("import.target_missing", f"column {', '.join(targets)}",
                                f"{dropped:,} row(s) with no label were left out", source))
    evidence = {c: e for c, e in prep.evidence.items() if c not in targets}
    evidence[label] = infer.Evidence().add(*infer.levels_of(long[label]))
    others = [c for c in kept_cols if c not in targets]
    new = Prepared(list(long.columns), len(long), evidence, {c: g for c, g in prep.given.items() if c not in targets},
                   long[["d3mIndex", label, *others]], lambda path: write_table(long, path),
                   prep.dropped + dropped, frame=long)
    new_types = {c: t for c, t in types.items() if c not in targets}
    new_types[label] = "categorical"
    how = "a label per column whose cell is yes" if mode == "indicators" else "the labels written in the cells"
    origin = {"label": label, "columns": targets, "mode": mode,
              "description": {label: f"multiLabel target: one row per (d3mIndex, label); from the columns "
                                     f"{', '.join(targets)} ({how})"}}
    return new, new_types, {label: n_labels}, origin


def _long_form_target(target: str, first: str, types: dict[str, str], counts: dict[str, int],
                      opts: ImportOptions, source: str) -> dict:
    """The label column of a table already in the long multiLabel form: its colType made
    categorical (unless ``types`` gives it categorical or boolean), at least two labels; what
    was done (for the manifest and the label column's description)."""
    if counts[target] < 2:
        _fail(source, "import.target_constant", f"column {target}", f"every row of the label column {target!r} "
              f"holds the one label {first!r}: nothing to learn or score")
    if opts.types.get(target) not in infer.DISCRETE:
        types[target] = "categorical"
    return {"label": target, "columns": [target], "mode": "long",
            "description": {target: "multiLabel target: one row per (d3mIndex, label)"}}


_NAMES = "a column name (str) or a list of them"
#: keyword -> (accepted types, what the TypeError says is expected); None is accepted where
#: the keyword's default is None
_KEYWORDS = {
    "name": (str, "a str"), "task": (str, "a str"), "subtype": (str, "a str"), "index": (str, "a column name (str)"),
    "split": (str, "a str"), "description": (str, "a str"), "test_size": ((int, float), "a number"),
    "license": (str, "a str"), "citation": (str, "a str"), "source_url": (str, "a str"),
    "keep_text": (bool, "a bool"),
    "folds": (int, "an int"), "repeats": (int, "an int"), "seed": (int, "an int"),
    "stratified": (bool, "a bool"), "force": (bool, "a bool"),
}
_OPTIONAL = {"name", "task", "subtype", "index", "description", "stratified", "license", "citation",
             "source_url"}   # None means "choose"


def check_keywords(target, kwargs: dict) -> None:
    """The keywords of an import have the types they must (a ``TypeError`` naming the
    keyword otherwise), before anything is read: ``target`` a str or a list of str,
    ``metrics`` a str or a list of names and performanceMetrics entries, ``types`` a dict or
    a path, ``media`` a path."""
    metric = "a metric name (str) or a list of names or performanceMetrics entries (dicts)"
    for param, value, expected, kinds in (("target", target, _NAMES, str),
                                          ("metrics", kwargs.get("metrics"), metric, (str, dict))):
        if value is None and param == "metrics":
            continue
        require_type(param, value, (str, list, tuple), expected)
        for v in ([] if isinstance(value, str) else value):
            require_type(param, v, kinds, expected)
    if kwargs.get("types") is not None:
        require_type("types", kwargs["types"], (dict, str, os.PathLike), "a dict or the path of a JSON file")
    if kwargs.get("media") is not None:
        require_path("media", kwargs["media"])
    for param, (kinds, expected) in _KEYWORDS.items():
        if param not in kwargs or (kwargs[param] is None and param in _OPTIONAL):
            continue
        require_type(param, kwargs[param], kinds, expected)


def options(target, **kwargs) -> ImportOptions:
    """:class:`ImportOptions` from the keywords of the Python API (``types`` a dict or a
    JSON file's path; ``metrics`` names or performanceMetrics entries; ``media`` a path), their
    types checked (:func:`check_keywords`)."""
    check_keywords(target, kwargs)
    types = kwargs.pop("types", None)
    if types is not None and not isinstance(types, dict):
        types = read_types(types)
    metrics = kwargs.pop("metrics", None)
    media = kwargs.pop("media", None)
    if metrics is not None and not isinstance(metrics, str):     # entries with parameters stay dicts
        metrics = [m if isinstance(m, dict) else str(m) for m in metrics]
    else:
        metrics = _as_list(metrics) or None
    ignore = kwargs.pop("ignore", None)
    ignore = _as_list(ignore) if isinstance(ignore, str) else list(ignore or [])
    return ImportOptions(target=_as_list(target), types=dict(types or {}), ignore=ignore,
                         target_text=target if isinstance(target, str) else None,
                         metrics=metrics or None, media=Path(media) if media is not None else None,
                         **kwargs)


def read_types(path: Path | str) -> dict[str, str]:
    """A ``types`` JSON file: an object mapping column names to colTypes."""
    from d3mkit.documents.jsonio import load_json
    data = load_json(path)
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        _fail(str(path), "import.types", "", "a types file must be a JSON object mapping column names to "
              "colType names, e.g. {\"zip\": \"categorical\"}")
    return data


def import_frame(source, *, target, out, **kwargs) -> Imported:
    """:func:`import_table` returning :class:`Imported` (the root and the warnings)."""
    from d3mkit.importing.source import dtype_hints, frame_as_text, lean_source, read_source
    require_path("out", out)
    if isinstance(source, pd.DataFrame):
        where = kwargs.pop("source_name", None) or "DataFrame"
        opts = options(target, **kwargs)
        return package_frame(frame_as_text(source), opts, out, source=where, hints=dtype_hints(source))
    require_type("source", source, (str, os.PathLike), "a path or a pandas DataFrame")
    from d3mkit.importing.dialect import Dialect, default_sep, needs_fix, read_dialect, sniff
    from d3mkit.importing.dialect import header_line as first_line
    dialect = Dialect(kwargs.pop("sep", None), kwargs.pop("comment", None), int(kwargs.pop("skip_rows", None) or 0))
    path = Path(source)
    if kwargs.get("name") is None:
        kwargs["name"] = default_name(path)
    opts = options(target, **kwargs)
    if not path.name.lower().endswith((".parquet", ".pq")) and path.is_file():
        # a dialect other than the plain one, a header to fix or columns to leave out: read whole
        sep = sniff(path, dialect)
        header = first_line(path, dialect, sep) or []
        if not dialect.plain(default_sep(path.name)) or sep != default_sep(path.name) or needs_fix(header) \
                or opts.ignore:
            return package_frame(read_dialect(path, str(path), dialect, sep), opts, out, source=str(path))
    with lean_source(path) as lean:
        if lean is not None:       # a CSV or TSV file (a .gz one decompressed): the chunked path when it applies
            resolve_target(opts, lean.header)
            from d3mkit.importing.scan import prepare_csv
            issues: list[Issue] = []
            from d3mkit.validation.run import warm
            prep = prepare_csv(lean.path, str(path), lean.header, opts, _as_list(opts.target), issues, lean.sep,
                               lean.hints, meanwhile=warm)
            if prep is not None:
                media = {}
                if prep.media is not None:
                    media = {"media_kind": prep.media, "media_files": {v: Path(opts.media) / v for v in
                                                                       prep.kept[prep.media[0]].unique()}}
                done = package(prep, opts, out, source=str(path), **media)
                done.issues[:0] = issues
                return done
    return package_frame(read_source(path), opts, out, source=str(path))


def default_name(path: Path) -> str:
    """A task root name from a file name: ``data.csv.gz`` -> ``data``; characters other than
    letters, digits, ``_`` and ``-`` become ``_``."""
    stem = path.name.split(".")[0] or "imported"
    return re.sub(r"[^0-9A-Za-z_-]+", "_", stem).strip("_") or "imported"


def import_table(source, *, target, out, name=None, task=None, subtype=None, index=None, types=None,
                 metrics=None, split="holdOut", test_size=0.2, folds=5, repeats=0, stratified=None,
                 seed=0, media=None, force=False, description=None, license=None, citation=None,
                 source_url=None) -> Path:
    """Package ``source`` (a CSV/TSV/gzip/Parquet path, or a DataFrame) as the task root
    ``out/<name>/`` and return its path. ``target`` is a column name or a list (or a
    comma-separated string); the other keywords are the options of ``d3mkit import table``
    (docs/import.md). Raises :class:`~d3mkit.core.errors.D3MKitError` naming the problem, with
    nothing written."""
    return import_frame(source, target=target, out=out, name=name, task=task, subtype=subtype,
                        index=index, types=types, metrics=metrics, split=split, test_size=test_size,
                        folds=folds, repeats=repeats, stratified=stratified, seed=seed, media=media,
                        force=force, description=description, license=license, citation=citation,
                        source_url=source_url).root
