"""Speed of PRISM's weak-supervision code: Extraction from Captions (captions/s) and
Caption Querying (premises/s), on synthetic captions built from the demo corpus.

Usage: PYTHONPATH=. python tools/bench_prism.py [--captions N] [--premises N] [--repeat R]

Prints a table; the figures in docs/benchmarks/prism.md came from this script (see the machine note
there). Captions are the 40 demo captions repeated with a varying numeric suffix, so the
mix of matching and non-matching sentences is the demo's (about half match at 0.6).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from _bench_data import best_of  # noqa: E402  (tools/ is on sys.path when run as a script)


def corpus(n: int) -> list[tuple[str, str]]:
    with open(ROOT / "datasets" / "prism" / "captions.jsonl", encoding="utf-8") as fh:
        base = [json.loads(line)["caption"] for line in fh if line.strip()]
    return [(str(i), f"{base[i % len(base)]} Photo {i}.") for i in range(n)]




def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--captions", type=int, default=20_000)
    ap.add_argument("--premises", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--build-variants", type=int, default=20,
                    help="premise images per demo record for the build timing (48 records each)")
    a = ap.parse_args()

    from d3mkit.benchmarks.prism.extract import Summary, extract_records
    from d3mkit.benchmarks.prism.preprocess import preprocess_caption
    from d3mkit.benchmarks.prism.query import caption_query

    caps = corpus(a.captions)
    rows = []
    t = best_of(lambda: [preprocess_caption(c) for _, c in caps], a.repeat)
    rows.append(("preprocess only", len(caps), t, "-"))
    for thr in (0.6, 0.0):
        s = Summary()
        t = best_of(lambda: list(extract_records(caps, threshold=thr, summary=Summary())), a.repeat)
        list(extract_records(caps, threshold=thr, summary=s))
        rows.append((f"extract, threshold {thr}", len(caps), t, s.matches))
    big = [("big", "The tea is hot because it was boiled. " * 2_700)]   # ~100 KB caption
    t = best_of(lambda: list(extract_records(big, threshold=0.0)), a.repeat)
    rows.append(("extract, one 100 KB caption", 1, t, "-"))

    print(f"{'what':34s} {'items':>8s} {'seconds':>9s} {'items/s':>10s} {'matches':>8s}")
    for what, n, t, m in rows:
        print(f"{what:34s} {n:8d} {t:9.3f} {n / t:10.0f} {m!s:>8s}")

    prem = [(str(i), f"the glass number {i} is shattered on the floor") for i in range(a.premises)]
    for encs in (["tfidf"], ["tfidf", "tfidf-char", "lsa"]):
        t = best_of(lambda: caption_query(prem, caps[:5000], top_k=50, encoders=encs, length_filter=True), 1)
        print(f"{'query ' + '+'.join(encs) + ', 5000 caps':34s} {len(prem):8d} {t:9.3f} "
              f"{len(prem) / t:10.0f} {'-':>8s}")


    build_bench(a.build_variants)


def build_bench(variants: int) -> None:
    """Time writing a PVLI task root (image checks + copies + validation) and the text
    baseline on it, from the demo records drawn ``variants`` times."""
    import tempfile
    from types import SimpleNamespace

    from d3mkit.benchmarks.prism.baseline import run_baseline
    from d3mkit.benchmarks.prism.cli import build_task_root
    from d3mkit.benchmarks.prism.demo import write_demo_manifest
    from d3mkit.taskroot.model import TaskRoot
    with tempfile.TemporaryDirectory() as tmp:
        m = write_demo_manifest(Path(tmp) / "corpus", variants=variants, seed=0)
        n = 48 * variants
        t0 = time.perf_counter()
        root = build_task_root(Path(tmp) / "out", m, m.parent, "pvli", seed=0)
        t = time.perf_counter() - t0
        print(f"{'build pvli (check+copy+validate)':34s} {n:8d} {t:9.3f} {n / t:10.0f} {'-':>8s}")
        t0 = time.perf_counter()
        run_baseline(TaskRoot.open(root), "text", SimpleNamespace(device="cpu", epochs=None, seed=0))
        t = time.perf_counter() - t0
        print(f"{'baseline text (train+score)':34s} {n:8d} {t:9.3f} {n / t:10.0f} {'-':>8s}")


if __name__ == "__main__":
    main()
