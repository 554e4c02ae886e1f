"""PRISM demo corpus and demo (a small configuration of it)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from d3mkit.benchmarks.prism.demo import DATA_DIR, run_demo, write_demo_manifest
from d3mkit.benchmarks.prism.extract import extract_records, read_captions
from d3mkit.benchmarks.prism.manifest import read_manifest
from d3mkit.benchmarks.prism.scenes import STATES, draw_scene


def test_demo_corpus_is_marked_synthetic_and_exercises_the_functions():
    assert "SYNTHETIC" in (DATA_DIR / "README.md").read_text()
    caps = list(read_captions(DATA_DIR / "captions.jsonl"))
    assert 30 <= len(caps) <= 60
    lfs = {r["lf"] for r in extract_records(caps, threshold=0.0)}
    assert {"so that", "in order to", "because", "unless", "but", "despite"} <= lfs
    recs = [json.loads(x) for x in (DATA_DIR / "pvli.jsonl").read_text().splitlines()]
    assert len(recs) == 48 and {r["state"] for r in recs} <= set(STATES)
    assert all(r["strategy"] == "synthetic" for r in recs)


def test_scenes_are_seeded_and_states_differ():
    a = np.asarray(draw_scene("cup", "ok", np.random.default_rng(1)), dtype=float)
    b = np.asarray(draw_scene("cup", "ok", np.random.default_rng(1)), dtype=float)
    assert np.array_equal(a, b)
    dark = np.asarray(draw_scene("cup", "dark", np.random.default_rng(1)), dtype=float)
    assert dark.mean() < a.mean() / 2
    with pytest.raises(ValueError):
        draw_scene("cup", "exploded", np.random.default_rng(0))


@pytest.mark.slow
def test_demo_manifest_builds_and_demo_runs(tmp_path):
    m = write_demo_manifest(tmp_path / "corpus", variants=1, seed=0)
    recs, issues = read_manifest(m, m.parent)
    assert not issues and len(recs) == 48
    pytest.importorskip("torch").set_num_threads(1)
    lines = []
    run_demo(tmp_path / "demo", "cpu", lambda line, detail=False: lines.append(line), epochs=1, variants=1)
    text = "\n".join(lines)
    assert "validate 0 error(s)" in text and "baseline fusion" in text and "rationaleTokenF1" in text
    assert (tmp_path / "demo" / "prism_pvli_demo" / "prism_pvli_demo_solution" / "scores.csv").is_file()
    assert (tmp_path / "demo" / "extracted.jsonl").stat().st_size > 0
