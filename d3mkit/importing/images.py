"""Packaging an ImageFolder directory as an image-classification task root
(``d3mkit import images``).

What this module owns: the ImageFolder layout — the convention of torchvision's
``ImageFolder`` and the Hugging Face ``imagefolder`` loader: ``DIR/<class>/<image file>`` —
read into learningData (``d3mIndex``, ``image``, ``label`` = ``<class>``; the rows in an
order drawn from the seed) and a media collection of the images, copied into
``<name>_dataset/media/`` under neutral names (:mod:`d3mkit.importing.media`: the class
folder and the file name would tell the label in the blind TEST view). The task is classification (binary with two classes, else
multiClass); splits, metrics and the write are :mod:`d3mkit.importing.table`'s.

What is not an image — a regular file beside the class folders (a README), a folder inside a
class folder, a file whose extension is not an image's — is skipped, listed and counted in
one ``import.skipped`` warning (``strict``: refused). What is refused, every problem in one
run, before anything is written (``import.images`` unless said): a class folder with no
image, a file the image reader refuses (``image.unreadable``,
``image.too_large``: :mod:`d3mkit.io.images`, every image decoded once, within the byte and
pixel caps), a symlink that leaves DIR (``path.escape``; one that stays inside is followed),
and fewer than two classes. Entries whose names start with ``.`` are skipped (``.DS_Store``).
"""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.core.errors import D3MKitError, EXIT_USAGE, error, require_path
from d3mkit.importing.mediacheck import MEDIA_KINDS
from d3mkit.importing.options import Imported, default_name, options
from d3mkit.importing.table import package_frame

IMAGE_COLUMN = "image"
LABEL_COLUMN = "label"


def fail(path, code: str, message: str, exit_code: int = 1):
    raise D3MKitError(error(code, "", message, str(path)), exit_code)


def _entries(d: Path, root: Path, problems: list):
    from d3mkit.io.paths import outside_reason
    for e in sorted(os.scandir(d), key=lambda e: e.name):
        if e.name.startswith("."):
            continue
        p = Path(e.path)
        if e.is_symlink():
            why = outside_reason(root, p)
            if why:
                problems.append(error("path.escape", "", f"a symlink that leaves the image folder {str(root)!r}: "
                                      f"{why}; not followed", str(p)))
                continue
        yield p


def scan(root: Path | str, strict: bool = False) -> tuple[pd.DataFrame, dict[str, Path], list[str], list]:
    """``(learningData rows as text, {image value: file}, MIME types, warnings)`` of an
    ImageFolder. What is not an image (a README beside the class folders, a file of another
    extension, a folder inside a class folder) is skipped and listed in one
    ``import.skipped`` warning, or refused with ``strict``; every problem of the folder is
    reported in one run (one :class:`D3MKitError` with all of them)."""
    from d3mkit.io.images import image_issue
    root = Path(root)
    if not root.is_dir():
        fail(root, "usage.path", "not a directory (an image folder has one sub-folder per class)", EXIT_USAGE)
    rows: list[tuple[str, str]] = []
    files: dict[str, Path] = {}
    formats: list[str] = []
    problems: list = []
    skipped: list[tuple[Path, str]] = []
    classes = 0
    for cls in _entries(root, root, problems):
        if not cls.is_dir():
            skipped.append((cls, "a file beside the class folders"))
            continue
        classes += 1
        found = 0
        for f in _entries(cls, root, problems):
            if f.is_dir():
                skipped.append((f, "a folder inside a class folder (the layout is DIR/CLASS/IMAGE)"))
                continue
            ext = f.suffix.lower()
            if ext not in MEDIA_KINDS["image"]:
                skipped.append((f, f"not an image file (extension {ext or '(none)'!r})"))
                continue
            bad = image_issue(f)
            if bad is not None:
                problems.append(bad)
                continue
            value = f"{cls.name}/{f.name}"
            rows.append((value, cls.name))
            files[value] = f
            mime = mimetypes.guess_type(f.name)[0] or f"image/{ext.lstrip('.')}"
            if mime not in formats:
                formats.append(mime)
            found += 1
        if not found:
            problems.append(error("import.images", "", "a class folder with no image: every class needs at "
                                  "least one", str(cls)))
    notes = []
    if skipped and strict:
        problems += [error("import.images", "", f"{why} (the strict option refuses what is not an image)", str(f))
                     for f, why in skipped]
    elif skipped:
        from d3mkit.core.errors import warning
        shown = "; ".join(f"{f.relative_to(root)} ({why})" for f, why in skipped[:5])
        notes.append(warning("import.skipped", "", f"{len(skipped)} entr{'y' if len(skipped) == 1 else 'ies'} "
                             f"that {'is' if len(skipped) == 1 else 'are'} not an image in a class folder "
                             f"skipped: {shown}{' ...' if len(skipped) > 5 else ''} (the strict option refuses them)",
                             str(root)))
    if classes < 2:
        problems.append(error("import.images", "", f"{classes} class folder(s); classification needs at least two",
                              str(root)))
    if problems:
        raise D3MKitError(problems)
    df = pd.DataFrame(rows, columns=[IMAGE_COLUMN, LABEL_COLUMN], dtype=object)
    return df, files, formats, notes


def import_images_result(source, *, out, **kwargs) -> Imported:
    """:func:`import_images` returning :class:`~d3mkit.importing.table.Imported`."""
    require_path("source", source)
    require_path("out", out)
    root = Path(source)
    df, files, formats, notes = scan(root, bool(kwargs.pop("strict", False)))
    # rows in a seeded random order: in class-folder order, a TEST row's d3mIndex would sit
    # among TRAIN rows of its own class and tell its label
    order = np.random.default_rng(int(kwargs.get("seed") or 0)).permutation(len(df))
    df = df.iloc[order].reset_index(drop=True)
    if kwargs.get("name") is None:
        kwargs["name"] = default_name(root.resolve())
    kwargs.setdefault("task", "classification")
    opts = options(LABEL_COLUMN, **kwargs)
    done = package_frame(df, opts, out, source=str(root), media_files=files,
                         media_kind=(IMAGE_COLUMN, "image", formats),
                         parameters={"layout": "ImageFolder", "classes": int(df[LABEL_COLUMN].nunique())})
    done.issues[:0] = notes
    return done


def import_images(source, *, out, name=None, metrics=None, split="holdOut", test_size=0.2, folds=5, repeats=0,
                  stratified=None, seed=0, force=False, description=None, license=None, citation=None,
                  source_url=None, strict=False) -> Path:
    """Package the ImageFolder directory ``source`` as the image-classification task root
    ``out/<name>/`` and return its path (keywords as :func:`d3mkit.import_table`). Raises
    :class:`~d3mkit.core.errors.D3MKitError` with nothing written."""
    return import_images_result(source, out=out, name=name, metrics=metrics, split=split, test_size=test_size,
                                folds=folds, repeats=repeats, stratified=stratified, seed=seed, force=force,
                                description=description, license=license, citation=citation,
                                source_url=source_url, strict=strict).root
