"""The path policy through the CLI (issue 10 §3): every path a document, a manifest or a
task-root layout names stays inside its root, in every command, or the command stops
with one ``path.escape`` line (exit 1) and reads, writes and copies nothing outside.

Table-driven: each attack turns a good task root (or manifest, or release) into a hostile
one whose outside target is a *valid* copy, so that without the policy the command would
succeed silently. Negative controls (symlinks that stay inside) must keep working.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

import _attack_util
from taskroot_helpers import prism_images
from d3mkit.cli import main
from d3mkit.tables import read_table

SECRET = b"SECRET-outside-the-root"


def run(argv, capsys):
    """``(exit code, stdout + stderr)`` of ``d3mkit ARGV`` (:func:`_attack_util.run`)."""
    code, out, err = _attack_util.run(argv, capsys)
    return code, out + err


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    from taskroot_helpers import wine_root
    return wine_root(tmp_path_factory.mktemp("wine"), with_predictions=True)


@pytest.fixture()
def site(wine, tmp_path):
    """``tmp/wine`` (a copy of the task root) and ``tmp/outside`` (a copy of its
    dataset and problem, the place every attack leads to)."""
    root = tmp_path / "wine"
    shutil.copytree(wine, root)
    out = tmp_path / "outside"
    shutil.copytree(wine / "wine_dataset", out / "wine_dataset")
    shutil.copytree(wine / "wine_problem", out / "wine_problem")
    shutil.copy(wine / "wine_dataset/tables/learningData.csv", out / "learningData.csv")
    shutil.copy(wine / "wine_problem/dataSplits.csv", out / "dataSplits.csv")
    (out / "secret.txt").write_bytes(SECRET)
    return root, out


D = "wine_dataset"
P = "wine_problem"
LD = f"{D}/tables/learningData.csv"
SPL = f"{P}/dataSplits.csv"


def _link(root: Path, rel: str, target, relative: bool = False) -> None:
    p = root / rel
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p)
    elif p.exists() or p.is_symlink():
        p.unlink()
    target = Path(target)
    p.symlink_to(os.path.relpath(target, p.parent) if relative else target)


def _edit(root: Path, rel: str, fn) -> None:
    p = root / rel
    doc = json.loads(p.read_text())
    fn(doc)
    p.write_text(json.dumps(doc))


def _res_path(value):
    def fn(doc):
        doc["dataResources"][0]["resPath"] = value(doc) if callable(value) else value
    return lambda root, out: _edit(root, f"{D}/datasetDoc.json", fn)


def _splits_file(value):
    def fn(doc):
        doc["inputs"]["dataSplits"]["splitsFile"] = value
    return lambda root, out: _edit(root, f"{P}/problemDoc.json", fn)


def _chain(root, out):
    """learningData -> inside hop -> another inside hop -> outside (passes inside first)."""
    (root / D / "hop2.csv").symlink_to(out / "learningData.csv")
    (root / D / "tables" / "hop1.csv").symlink_to("../hop2.csv")
    _link(root, LD, root / D / "tables" / "hop1.csv", relative=True)


def _loop(root, out):
    (root / LD).unlink()
    (root / D / "tables" / "a.csv").symlink_to("learningData.csv")
    (root / LD).symlink_to("a.csv")


def _abs_res(root, out):
    _edit(root, f"{D}/datasetDoc.json",
          lambda d: d["dataResources"][0].__setitem__("resPath", str(out / "learningData.csv")))


def _abs_splits(root, out):
    _edit(root, f"{P}/problemDoc.json",
          lambda d: d["inputs"]["dataSplits"].__setitem__("splitsFile", str(out / "dataSplits.csv")))


def _inside_taskroot(root, out):
    """resPath that leaves the dataset directory but stays in the task root."""
    shutil.copy(root / LD, root / "ld.csv")
    _edit(root, f"{D}/datasetDoc.json", lambda d: d["dataResources"][0].__setitem__("resPath", "../ld.csv"))


def _dataset_elsewhere(root, out):
    """The real dataset is gone; another directory beside the problem is a symlink out."""
    shutil.rmtree(root / D)
    (root / "other_dataset").symlink_to(out / D)


# attack -> (mutation, commands that read the attacked path and must refuse it)
ALL = ("validate", "score", "split", "views")
READS_SPLITS = ("validate", "score", "views", "split")
DATASET_ATTACKS = {
    "learningData symlink (absolute) out": (lambda r, o: _link(r, LD, o / "learningData.csv"), ALL),
    "learningData symlink (relative) out": (lambda r, o: _link(r, LD, o / "learningData.csv", True), ALL),
    "learningData symlink chain out": (_chain, ALL),
    "learningData symlink to /etc/passwd": (lambda r, o: _link(r, LD, "/etc/passwd"), ALL),
    "learningData dangling symlink out": (lambda r, o: _link(r, LD, o / "missing.csv"), ALL),
    "learningData symlink loop": (_loop, ALL),
    "tables/ symlinked out": (lambda r, o: _link(r, f"{D}/tables", o / D / "tables"), ALL),
    "tables/ relative symlink out": (lambda r, o: _link(r, f"{D}/tables", o / D / "tables", True), ALL),
    "whole dataset dir symlinked out": (lambda r, o: _link(r, D, o / D), ALL),
    "whole dataset dir relative symlink out": (lambda r, o: _link(r, D, o / D, True), ALL),
    "datasetDoc.json symlinked out": (lambda r, o: _link(r, f"{D}/datasetDoc.json", o / D / "datasetDoc.json"), ALL),
    # views opens <name>_dataset by the task-root convention and never searches by datasetID
    "dataset beside the problem is a symlink out": (_dataset_elsewhere, ("validate", "score", "split")),
    "resPath ../../outside": (_res_path("../../outside/learningData.csv"), ALL),
    "resPath tables/../../../outside": (_res_path("tables/../../../outside/learningData.csv"), ALL),
    "resPath absolute": (_abs_res, ALL),
    "resPath .. inside the task root": (_inside_taskroot, ALL),
    "resPath backslash ..": (_res_path("..\\..\\outside\\learningData.csv"), ALL),
    "resPath drive letter": (_res_path("C:/outside/learningData.csv"), ALL),
    "resPath ..": (_res_path(".."), ALL),
    "resPath with NUL": (_res_path("tables/learningData.csv\x00.txt"), ALL),
}
PROBLEM_ATTACKS = {
    "dataSplits symlink out": (lambda r, o: _link(r, SPL, o / "dataSplits.csv"), READS_SPLITS),
    "dataSplits relative symlink out": (lambda r, o: _link(r, SPL, o / "dataSplits.csv", True), READS_SPLITS),
    "dataSplits symlink to /etc/passwd": (lambda r, o: _link(r, SPL, "/etc/passwd"), READS_SPLITS),
    "splitsFile ../../outside": (_splits_file("../../outside/dataSplits.csv"), READS_SPLITS),
    "splitsFile absolute": (_abs_splits, READS_SPLITS),
    "splitsFile into the dataset dir": (_splits_file(f"../{LD}"), READS_SPLITS),
    "problem dir symlinked out": (lambda r, o: _link(r, P, o / P), ALL),
    "problemDoc.json symlinked out": (lambda r, o: _link(r, f"{P}/problemDoc.json", o / P / "problemDoc.json"), ALL),
}
ATTACKS = {**DATASET_ATTACKS, **PROBLEM_ATTACKS}


def _argv(cmd, root, tmp_path, wine):
    return {"validate": ["validate", root],
            "score": ["score", "--problem", root, "--predictions", wine.parent / "predictions.csv"],
            "split": ["split", root, "--force"],
            "views": ["views", root, "--out", tmp_path / "views"]}[cmd]


CASES = [(name, cmd) for name, (_, cmds) in ATTACKS.items() for cmd in cmds]


@pytest.mark.slow
@pytest.mark.parametrize("name,cmd", CASES, ids=[f"{c}: {n}" for n, c in CASES])
def test_every_command_refuses_paths_out_of_the_root(site, wine, tmp_path, capsys, name, cmd):
    root, out = site
    ATTACKS[name][0](root, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    code, text = run(_argv(cmd, root, tmp_path, wine), capsys)
    assert code == 1, text
    assert "path.escape" in text, text
    assert SECRET.decode() not in text and "root:x:0" not in text
    assert not (tmp_path / "views").exists()
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before   # nothing written outside


# --- symlinks that stay inside the root keep working (negative controls) ------------------
def _inside_links(root, out):
    real = root / D / "real_tables"
    (root / D / "tables").rename(real)
    (root / D / "tables").symlink_to("real_tables")


@pytest.mark.parametrize("cmd", ALL)
def test_symlinks_inside_the_root_are_fine(site, wine, tmp_path, capsys, cmd):
    root, out = site
    _inside_links(root, out)
    code, text = run(_argv(cmd, root, tmp_path, wine), capsys)
    assert code == 0, text


def test_score_reads_truth_only_through_the_root(site, wine, tmp_path, capsys):
    """The issue's example: truth through a symlink out would score (exit 0) before."""
    root, out = site
    _link(root, LD, "/etc/passwd")
    code, text = run(["score", "--problem", root / P, "--predictions", wine.parent / "predictions.csv"], capsys)
    assert code == 1 and "path.escape" in text and "learningData" in text


# --- collections: items named by cells, media files and directories ----------------------
@pytest.fixture()
def detection(tmp_path):
    from taskroot_helpers import detection_root
    rows = [{"d3mIndex": i, "image": f"img{i}.png", "bounding_box": "0,0,3,3"} for i in range(8)]
    root = detection_root(tmp_path, rows, 8, shade=30)
    out = tmp_path / "outside"
    out.mkdir()
    (out / "secret.png").write_bytes(SECRET)
    shutil.copytree(root / "det_dataset/media", out / "media")
    return root, out


def _cell(value):
    """Row 0 names ``value`` as its image, in learningData and dataSplits alike."""
    def fn(root, out):
        for rel in ("det_dataset/tables/learningData.csv", "det_problem/dataSplits.csv"):
            p = root / rel
            df = read_table(p)
            df.loc[df["d3mIndex"] == "0", "image"] = value(out) if callable(value) else value
            df.to_csv(p, index=False)
    return fn


def _media_link(target, relative=False):
    def fn(root, out):
        p = root / "det_dataset/media/img0.png"
        p.unlink()
        t = target(out)
        p.symlink_to(os.path.relpath(t, p.parent) if relative else t)
    return fn


def _media_dir(root, out):
    shutil.rmtree(root / "det_dataset/media")
    (root / "det_dataset/media").symlink_to(out / "media")


def _coll_res(root, out):
    _edit(root, "det_dataset/datasetDoc.json",
          lambda d: d["dataResources"][0].__setitem__("resPath", "../../outside/media/"))


def _sub_link(root, out):
    """a subdirectory of media/ symlinked out; a cell names an item through it."""
    (root / "det_dataset/media/sub").symlink_to(out / "media")
    _cell("sub/img0.png")(root, out)


MEDIA_ATTACKS = {
    "item ../../../outside": _cell("../../../outside/secret.png"),
    "item absolute": _cell(lambda o: str(o / "secret.png")),
    "item /etc/passwd": _cell("/etc/passwd"),
    "item media/../../../outside": _cell("x/../../../../outside/secret.png"),
    "item backslash ..": _cell("..\\..\\..\\outside\\secret.png"),
    "media file symlinked out": _media_link(lambda o: o / "secret.png"),
    "media file relative symlink out": _media_link(lambda o: o / "secret.png", True),
    "media file symlink to /etc/passwd": _media_link(lambda o: Path("/etc/passwd")),
    "media dir symlinked out": _media_dir,
    "media subdirectory symlinked out": _sub_link,
    "collection resPath ../../outside": _coll_res,
}


@pytest.mark.slow
@pytest.mark.parametrize("cmd", ["validate", "views"])
@pytest.mark.parametrize("name", list(MEDIA_ATTACKS))
def test_collections_stay_inside_the_dataset(detection, tmp_path, capsys, name, cmd):
    root, out = detection
    MEDIA_ATTACKS[name](root, out)
    argv = ["validate", root] if cmd == "validate" else ["views", root, "--out", tmp_path / "v", "--repeat", "0"]
    code, text = run(argv, capsys)
    if cmd == "views" and code == 0:
        # the attacked item is on the TRAIN or TEST side; a view never holds outside bytes
        for p in (tmp_path / "v").rglob("*"):
            assert not (p.is_file() and p.read_bytes() == SECRET), p
        pytest.fail(f"views accepted {name}")
    assert code == 1 and "path.escape" in text, text
    assert not (tmp_path / "v").exists()


# --- manifests: PRISM images must stay inside --images ------------------------------------
@pytest.fixture()
def prism(tmp_path):
    from PIL import Image
    img = tmp_path / "imgs"
    recs = prism_images(img)
    out = tmp_path / "outside"
    out.mkdir()
    Image.new("RGB", (8, 8), (1, 2, 3)).save(out / "secret.png")      # a readable image
    (out / "d").mkdir()
    Image.new("RGB", (8, 8), (1, 2, 3)).save(out / "d" / "p.png")
    return img, out, recs


def _manifest(path, recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def _hop(img, out):
    (img / "hop").symlink_to(out / "secret.png")
    (img / "link.png").symlink_to("hop")
    return "link.png"


PRISM_ATTACKS = {
    "image ../outside": lambda img, out: "../outside/secret.png",
    "image absolute": lambda img, out: str(out / "secret.png"),
    "image /etc/passwd": lambda img, out: "/etc/passwd",
    "image p0/../../outside": lambda img, out: "sub/../../outside/secret.png",
    "image symlink out": lambda img, out: (img / "link.png").symlink_to(out / "secret.png") or "link.png",
    "image relative symlink out": lambda img, out: (img / "link.png").symlink_to("../outside/secret.png") or "link.png",
    "image symlink chain out": _hop,
    "image in a subdirectory symlinked out": lambda img, out: (img / "d").symlink_to(out / "d") or "d/p.png",
    "image backslash ..": lambda img, out: "..\\outside\\secret.png",
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PRISM_ATTACKS))
def test_build_prism_refuses_images_outside_images_dir(prism, tmp_path, capsys, name):
    img, out, recs = prism
    recs[2]["image"] = PRISM_ATTACKS[name](img, out)
    m = _manifest(tmp_path / "m.jsonl", recs)
    code, text = run(["build", "prism", "--manifest", m, "--images", img, "--out", tmp_path / "o", "--quiet"], capsys)
    assert code == 1 and "line 3" in text and "leaves the image directory" in text, text
    assert not (tmp_path / "o" / "prism_pvli").exists()


@pytest.mark.slow
def test_build_prism_images_inside_the_directory_work(prism, tmp_path, capsys):
    img, out, recs = prism
    (img / "link.png").symlink_to("p0.png")        # a symlink that stays inside is fine
    recs[2]["image"] = "link.png"
    m = _manifest(tmp_path / "m.jsonl", recs)
    code, text = run(["build", "prism", "--manifest", m, "--images", img, "--out", tmp_path / "o", "--quiet"], capsys)
    assert code == 0, text


# --- VALUE release: labels and images stay inside the release directory -------------------
@pytest.fixture()
def release(tmp_path):
    import numpy as np
    from PIL import Image

    from d3mkit.benchmarks.value import games
    from d3mkit.benchmarks.value.boards import fen_to_array
    fens = games.random_game_positions(1, np.random.default_rng(2), 12)[:6]
    rel = tmp_path / "release"
    rel.mkdir()
    for i in range(6):
        Image.new("RGB", (16, 16), (i * 30, 10, 10)).save(rel / f"CV_{i:07d}.jpg")
    (rel / "labels.json").write_text(json.dumps({str(i): fen_to_array(f).tolist() for i, f in enumerate(fens)}))
    out = tmp_path / "outside"
    shutil.copytree(rel, out)
    return rel, out


RELEASE_ATTACKS = {
    "release image symlinked out": lambda rel, out: ((rel / "CV_0000002.jpg").unlink(),
                                                     (rel / "CV_0000002.jpg").symlink_to(out / "CV_0000002.jpg")),
    "release image symlink to /etc/passwd": lambda rel, out: ((rel / "CV_0000002.jpg").unlink(),
                                                              (rel / "CV_0000002.jpg").symlink_to("/etc/passwd")),
    "release labels symlinked out": lambda rel, out: ((rel / "labels.json").unlink(),
                                                      (rel / "labels.json").symlink_to(out / "labels.json")),
    "release images/ symlinked out": lambda rel, out: (
        [p.unlink() for p in rel.glob("CV_*.jpg")], (rel / "images").symlink_to(out)),
}


@pytest.mark.parametrize("name", list(RELEASE_ATTACKS))
def test_build_value_release_stays_inside_the_release(release, tmp_path, capsys, name):
    rel, out = release
    RELEASE_ATTACKS[name](rel, out)
    code, text = run(["build", "value", "--out", tmp_path / "o", "--quiet", "--n-train", "4", "--n-test", "2",
                      "--from-release", rel], capsys)
    assert code == 1 and "path.escape" in text, text
    assert not (tmp_path / "o" / "value").exists()


# --- outputs a problemDoc names: predictionsFile / scoresFile ------------------------------
@pytest.fixture(scope="module")
def prism_root(tmp_path_factory):
    from PIL import Image

    from d3mkit.benchmarks.prism.cli import build_task_root
    base = tmp_path_factory.mktemp("prism")
    recs = []
    for i in range(10):
        Image.new("RGB", (8, 8), (i * 20, 0, 0)).save(base / f"p{i}.png")
        recs.append({"hypothesis": f"a cup holds water {i}", "image": f"p{i}.png",
                     "label": "allow" if i % 2 else "prevent"})
    m = _manifest(base / "m.jsonl", recs)
    return build_task_root(base / "out", m, base, "pvli", seed=0)


@pytest.mark.parametrize("key,value", [("predictionsFile", "../../escaped.csv"),
                                       ("predictionsFile", "ABSOLUTE"),
                                       ("scoresFile", "../../escaped.csv"),
                                       ("scoresFile", "sub/../../../escaped.csv")])
def test_baseline_writes_only_inside_the_solution_dir(prism_root, tmp_path, capsys, key, value):
    root = tmp_path / "r"
    shutil.copytree(prism_root, root)
    value = str(tmp_path / "escaped.csv") if value == "ABSOLUTE" else value
    _edit(root, "prism_pvli_problem/problemDoc.json", lambda d: d["expectedOutputs"].__setitem__(key, value))
    before = sorted(p.name for p in tmp_path.iterdir())
    code, text = run(["baseline", root, "--model", "zero-rate", "--quiet"], capsys)
    assert code == 1 and "path.escape" in text and key in text, text
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def count_hostile_inputs() -> dict[str, int]:
    """Distinct hostile inputs in this file, per class (for the issue's tally)."""
    return {"path: task-root documents (x commands)": len(CASES),
            "path: collections (x validate, views)": 2 * len(MEDIA_ATTACKS),
            "path: PRISM manifest images": len(PRISM_ATTACKS),
            "path: VALUE release": len(RELEASE_ATTACKS),
            "path: predictionsFile/scoresFile": 4,
            "path: media items read by baselines": len(BASELINE_MEDIA_ATTACKS)}


# --- baselines read media items a cell names: only inside the dataset ----------------------
@pytest.fixture(scope="module")
def abstraction_root(tmp_path_factory):
    base = tmp_path_factory.mktemp("abs")
    assert main(["build", "abstraction", "--out", str(base), "--n-train", "20", "--n-test", "10",
                 "--name", "abs", "--quiet"]) == 0
    return base / "abs"


def _abs_cell(value):
    def fn(root, out):
        p = root / "abs_dataset/tables/learningData.csv"
        df = read_table(p)
        df.loc[0, "image"] = value(out) if callable(value) else value
        df.to_csv(p, index=False)
    return fn


def _abs_media_link(root, out):
    p = root / "abs_dataset/tables/learningData.csv"
    name = read_table(p).loc[0, "image"]
    (root / "abs_dataset/media" / name).unlink()
    (root / "abs_dataset/media" / name).symlink_to(out / "secret.png")


BASELINE_MEDIA_ATTACKS = {
    "cell ../../../outside": _abs_cell("../../../outside/secret.png"),
    "cell absolute": _abs_cell(lambda o: str(o / "secret.png")),
    "media file symlinked out": _abs_media_link,
}


@pytest.mark.parametrize("name", list(BASELINE_MEDIA_ATTACKS))
def test_baseline_reads_media_only_inside_the_dataset(abstraction_root, tmp_path, capsys, name):
    pytest.importorskip("torch")
    from PIL import Image
    root = tmp_path / "abs"
    shutil.copytree(abstraction_root, root)
    out = tmp_path / "outside"
    out.mkdir()
    Image.new("L", (28, 28), 7).save(out / "secret.png")       # a readable image
    BASELINE_MEDIA_ATTACKS[name](root, out)
    code, text = run(["baseline", root, "--model", "abstraction-cnn", "--epochs", "1", "--quiet"], capsys)
    assert code == 1 and "path.escape" in text, text
    assert not (root / "abs_solution").exists()


# --- evaluate: a pipelineDoc.json that links out of its submission is never read -------------
def test_evaluate_does_not_read_a_pipeline_doc_outside_the_tree(tmp_path, capsys):
    import csv
    import io

    from d3mkit.evaluate.synthetic import make_campaign
    p, s = make_campaign(tmp_path, systems=1, problems=1, rows=20, seed=2, malformed=0)
    good = (s / "system_00" / "synth_000_problem" / "predictions.csv").read_text()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "pipelineDoc.json").write_text(json.dumps({"problemID": "synth_000_problem"}))
    run_dir = s / "pipes" / "run-1"
    run_dir.mkdir(parents=True)
    (run_dir / "predictions.csv").write_text(good)
    (run_dir / "pipelineDoc.json").symlink_to(outside / "pipelineDoc.json")
    code, text = run(["evaluate", "--problems", p, "--submissions", s, "--out", tmp_path / "out", "--quiet"],
                     capsys)
    assert code == 0, text
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "failures.csv").read_text())))
    assert any(r["system"] == "pipes" and r["code"] == "submission.bad_pipeline"
               and "outside the submissions tree" in r["message"] for r in rows), rows
    scored = list(csv.DictReader(io.StringIO((tmp_path / "out" / "scores.csv").read_text())))
    assert not any(r["system"] == "pipes" for r in scored)
