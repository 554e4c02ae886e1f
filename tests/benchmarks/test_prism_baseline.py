"""PRISM baselines on tiny task roots made here: each sees what it should see."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image

from d3mkit.benchmarks.prism.baseline import predictions, run_baseline
from d3mkit.benchmarks.prism.cli import build_task_root
from d3mkit.taskroot.model import TaskRoot

ARGS = SimpleNamespace(device="cpu", epochs=None, seed=0)


def _task(tmp_path, *, image_decides: bool, task="pvli", n=40):
    """image_decides: the same hypotheses appear with both labels and only the image
    (red = prevent, green = allow) tells them apart; otherwise a word in the hypothesis does."""
    (tmp_path / "img").mkdir()
    rng = np.random.default_rng(0)
    recs = []
    for i in range(n):
        allow = i % 2 == 0
        base = (40, 200, 40) if allow else (200, 40, 40)
        arr = np.clip(np.array(base) + rng.integers(-30, 30, size=(20, 20, 3)), 0, 255).astype(np.uint8)
        Image.fromarray(arr).save(tmp_path / "img" / f"{i}.png")
        hyp = f"object {i // 2} can be used" if image_decides else \
            f"the {'sunny' if allow else 'broken'} thing {i} works"
        recs.append({"hypothesis": hyp, "image": f"img/{i}.png", "label": "allow" if allow else "prevent",
                     "rationale": "it is green" if allow else "it is red"})
    m = tmp_path / "m.jsonl"
    m.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return TaskRoot.open(build_task_root(tmp_path / "out", m, tmp_path, task, seed=0, test_size=0.25))


def test_zero_rate_and_random(tmp_path):
    t = _task(tmp_path, image_decides=False)
    p = predictions(t, "zero-rate", ARGS)
    assert p["label"].nunique() == 1
    r1, r2 = predictions(t, "random", ARGS), predictions(t, "random", ARGS)
    assert r1.equals(r2)                                   # seeded
    rep = run_baseline(t, "zero-rate", ARGS)
    assert rep.value("accuracy") == 0.5                    # stratified split of a balanced set
    assert (t.solution_dir / "predictions.csv").is_file() and (t.solution_dir / "scores.csv").is_file()


@pytest.mark.slow
def test_text_baseline_reads_the_hypothesis(tmp_path):
    t = _task(tmp_path, image_decides=False)
    rep = run_baseline(t, "text", ARGS)
    assert rep.value("accuracy") == 1.0 and rep.value("f1") == 1.0


@pytest.mark.slow
def test_fusion_baseline_reads_the_image(tmp_path):
    """... through the datasetDoc's media column (renamed here, its directory moved)."""
    from taskroot_helpers import rename_media
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    t = _task(tmp_path, image_decides=True)
    rename_media(t.root, "image", "premise", t.dataset.media_columns()["image"].res_id, "premises")
    t = TaskRoot.open(t.root)
    text = run_baseline(t, "text", ARGS).value("accuracy")
    fusion = run_baseline(t, "fusion", SimpleNamespace(device="cpu", epochs=25, seed=0)).value("accuracy")
    assert fusion >= 0.9 and fusion > text


@pytest.mark.slow
def test_pvlr_retrieval_rationale(tmp_path):
    t = _task(tmp_path, image_decides=False, task="pvlr")
    rep = run_baseline(t, "text", ARGS)
    assert rep.value("accuracy", "label") == 1.0
    # nearest training hypothesis shares the sunny/broken word, hence the right rationale
    assert rep.value("rationaleTokenF1") == 1.0 and rep.value("rationaleRougeL") == 1.0
    rep = run_baseline(t, "zero-rate", ARGS)
    assert rep.value("rationaleTokenF1") < 1.0


@pytest.mark.slow
def test_cli_baseline_defaults_to_text_for_prism(tmp_path, capsys):
    from d3mkit.cli import main
    t = _task(tmp_path, image_decides=False)
    assert main(["baseline", str(t.root)]) == 0
    out = capsys.readouterr().out
    assert "\naccuracy  1\n" in out and (t.solution_dir / "baseline.json").read_text().count('"text"') == 1
    assert main(["baseline", str(t.root), "--model", "random", "--seed", "3"]) == 0
