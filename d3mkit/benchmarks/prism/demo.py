"""The ``prism`` part of ``d3mkit demo``, on the synthetic corpus in ``datasets/prism/``.

What this module owns: turning the shipped demo corpus into inputs (premise images drawn
by :mod:`.scenes`, a manifest) and running the PRISM pieces end to end:

1. Extraction from Captions on ``datasets/prism/captions.jsonl`` (threshold 0.6, and 0
   for comparison);
2. Caption Querying of the demo rationales (as premises) against the demo captions;
3. a PVLI task root built from ``datasets/prism/pvli.jsonl`` (24 hypotheses, each with an
   allow and a prevent premise, each premise drawn in ``variants`` jittered versions),
   validated, then the zero-rate, text and fusion baselines scored (fusion, a torch
   model, skipped with the reason when torch is not installed);
4. a PVLr task root from the same records and the text baseline with its retrieval
   rationale.

Everything in ``datasets/prism/`` is synthetic, written for d3mkit; the images are
schematic drawings. Minimal pairs (same hypothesis, both labels) mean a text-only model
cannot beat chance on them, while the image decides the label.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).resolve().parents[3] / "datasets" / "prism"


def data_file(name: str) -> Path:
    from d3mkit.core.errors import UsageError
    p = DATA_DIR / name
    if not p.is_file():
        raise UsageError(f"the PRISM demo corpus is not here ({p}); it ships in the d3mkit source "
                         "tree under datasets/prism/", str(p))
    return p


def write_demo_manifest(out_dir: Path, *, variants: int = 3, seed: int = 0) -> Path:
    """Draw the premise images of ``pvli.jsonl`` (``variants`` per record) into
    ``out_dir/images/`` and write ``out_dir/manifest.csv``; returns the manifest path."""
    from d3mkit.benchmarks.prism.scenes import draw_scene
    rng = np.random.default_rng(seed)
    img_dir = out_dir / "images"
    img_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    with open(data_file("pvli.jsonl"), encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    for i, rec in enumerate(records):
        for v in range(variants):
            name = f"{i:02d}_{rec['object']}_{rec['state']}_{v}.png"
            draw_scene(rec["object"], rec["state"], rng).save(img_dir / name)
            rows.append({"hypothesis": rec["hypothesis"], "image": f"images/{name}", "label": rec["label"],
                         "rationale": rec["rationale"], "strategy": rec.get("strategy", "synthetic"),
                         "source": rec.get("source", "d3mkit demo"), "lf": rec.get("lf", ""),
                         "precision": rec.get("precision", "")})
    path = out_dir / "manifest.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return path


def _one_thread(fn):
    """Run ``fn`` with torch on one CPU thread (restored afterwards): the tiny fusion
    model trains several times faster that way on a shared 2-core machine."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return fn()
    from d3mkit.baselines.common import torch_threads
    with torch_threads(1):
        return fn()


def _scores(report) -> str:
    from d3mkit.scoring.display import score_line
    return score_line(report.scores)


def run_demo(out: Path, device: str, echo, *, epochs: int = 15, variants: int = 3) -> None:
    from d3mkit.benchmarks.prism.baseline import PrismBaselineConfig, run_baseline
    from d3mkit.benchmarks.prism.cli import build_task_root
    from d3mkit.benchmarks.prism.extract import Summary, extract_records, read_captions
    from d3mkit.taskroot.model import TaskRoot
    from d3mkit.validation import validate_task_root

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    # 1. extraction from captions
    caps = list(read_captions(data_file("captions.jsonl")))
    for threshold in (0.6, 0.0):
        s = Summary()
        rows = list(extract_records(caps, threshold=threshold, summary=s))
        echo(f"   extract (threshold {threshold}): {s.captions} synthetic captions, {s.sentences} sentences, "
             f"{s.matches} matches ({', '.join(f'{k} {v}' for k, v in sorted(s.by_lf.items()))})")
        if threshold == 0.6:
            with open(out / "extracted.jsonl", "w", encoding="utf-8") as fh:
                for r in rows:
                    fh.write(json.dumps(r, ensure_ascii=False) + "\n")
            for r in rows[:2]:
                echo(f"     {r['label']:7s} [{r['lf']}] action={r['action']!r} precondition={r['precondition']!r}",
                     detail=True)
    # 2. caption querying
    from d3mkit.benchmarks import missing, optional_module
    if optional_module("d3mkit.benchmarks.prism.query") is not None:
        from d3mkit.benchmarks.prism.query import caption_query
        with open(data_file("pvli.jsonl"), encoding="utf-8") as fh:
            premises = sorted({json.loads(line)["rationale"] for line in fh if line.strip()})
        res = caption_query([(str(i), p) for i, p in enumerate(premises)], caps, top_k=10,
                            encoders=["tfidf", "tfidf-char"], length_filter=True)
        best = sorted(res, key=lambda r: r["perplexity"])[:2]
        echo(f"   caption querying (tfidf + tfidf-char, top 10, length filter): {len(res)} premises grounded")
        for r in best:
            echo(f"     {r['premise']!r} -> {r['caption']!r} (perplexity {r['perplexity']:.3f}, "
                 f"agreement {r['agreement']:.3f})", detail=True)
    # 3. PVLI
    manifest = write_demo_manifest(out / "corpus", variants=variants, seed=0)
    args = PrismBaselineConfig(device=device, epochs=epochs, seed=0)
    root = build_task_root(out, manifest, manifest.parent, "pvli", seed=0, name="prism_pvli_demo", force=True)
    issues = validate_task_root(root)
    task = TaskRoot.open(root)
    train, test = task.split_indices(0, 0)
    echo(f"   built {root} ({len(train) + len(test)} rows, synthetic images): "
         f"validate {sum(i.is_error for i in issues)} error(s)")
    no_torch = missing("torch", "baselines")
    for model in ("zero-rate", "text", "fusion"):
        if model == "fusion" and no_torch:
            echo(f"   baseline fusion: skipped, {no_torch}")
            continue
        if model == "fusion":
            rep = _one_thread(lambda: run_baseline(task, model, args))
        else:
            rep = run_baseline(task, model, args)
        echo(f"   baseline {model:9s} TRAIN {len(train)} TEST {len(test)}: {_scores(rep)}")
    # 4. PVLr
    root = build_task_root(out, manifest, manifest.parent, "pvlr", seed=0, name="prism_pvlr_demo", force=True)
    rep = run_baseline(TaskRoot.open(root), "text", args)
    echo(f"   PVLr text + retrieval rationale: {_scores(rep)}")
