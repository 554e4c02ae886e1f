"""Rewrite a task root's media naming (tests): a media column and its collection's
directory get other names, so a reader that hard-codes either one fails."""

from __future__ import annotations

import json
import shutil
from pathlib import Path


def rename_media(root: Path, column: str, new_column: str, collection: str, new_dir: str) -> None:
    """Rename ``column`` in every table of the dataset (datasetDoc and CSV header) and move
    the collection ``collection`` (resID) to ``new_dir`` (a path inside the dataset)."""
    ddir = next(Path(root).glob("*_dataset"))
    doc_path = ddir / "datasetDoc.json"
    doc = json.loads(doc_path.read_text())
    for res in doc["dataResources"]:
        if res["resID"] == collection:
            old = ddir / res["resPath"]
            (ddir / new_dir).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(old), str(ddir / new_dir))
            res["resPath"] = new_dir.rstrip("/") + "/"
        for col in res.get("columns") or ():
            if col["colName"] == column:
                col["colName"] = new_column
                table = ddir / res["resPath"]
                head, rest = table.read_text().split("\n", 1)
                table.write_text(",".join(new_column if h == column else h for h in head.split(","))
                                 + "\n" + rest)
    doc_path.write_text(json.dumps(doc, indent=2))
