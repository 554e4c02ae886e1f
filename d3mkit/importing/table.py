"""Importing a user's table as a D3M task root: the entry every table import runs.

What this module owns: choosing the reading path for a source (a caller's DataFrame, a
file in a dialect other than the plain one read whole, a plain CSV/TSV/gzip/Parquet file
through the chunked reader :mod:`d3mkit.importing.scan` when it applies, else the whole
table through :mod:`d3mkit.importing.source`) and handing the result to
:mod:`d3mkit.importing.prepare` and :mod:`d3mkit.importing.package`. The checks are
:mod:`~d3mkit.importing.checks`' (header, targets, types), :mod:`~d3mkit.importing.index`'s
and :mod:`~d3mkit.importing.mediacheck`'s; the inference rules :mod:`~d3mkit.importing.infer`'s.

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

import os
from pathlib import Path

import pandas as pd

from d3mkit.core.errors import Issue, require_path, require_type
from d3mkit.importing.checks import check_header, drop_ignored, resolve_target
from d3mkit.importing.mediacheck import media_column
from d3mkit.importing.options import Imported, ImportOptions, as_list, default_name, options
from d3mkit.importing.package import package
from d3mkit.importing.prepare import prepare_frame


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
    targets = as_list(opts.target)
    media_col = None
    if opts.media is not None:
        check_header([str(c) for c in df.columns], targets, opts, source)
        media_col = media_column(df, {"d3mIndex", opts.index, *targets}, Path(opts.media), source)
    keep = (media_col[0],) if media_col else (kwargs["media_kind"][0],) if kwargs.get("media_kind") else ()
    prep = prepare_frame(df, opts, targets, source, dict(hints or {}), issues, keep)
    if media_col is not None:
        kwargs["media_kind"] = media_col
        kwargs["media_files"] = {v: Path(opts.media) / v for v in prep.kept[media_col[0]].unique()}
    done = package(prep, opts, out, source=source, **kwargs)
    done.issues[:0] = issues
    return done



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
            prep = prepare_csv(lean.path, str(path), lean.header, opts, as_list(opts.target), issues, lean.sep,
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
