"""AutoML systems (issue 35): the registry, constant / random-forest / command: systems on
small roots of every supported task type, the limits, resume, the isolation of a system
from the truth, and ``d3mkit baseline`` on imported roots."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pandas as pd
import pytest

from d3mkit.cli import main
from d3mkit.systems.plugins import Options, get
from d3mkit.systems.runner import run_system
from systems_helpers import KINDS, make_root

pytest.importorskip("psutil", reason='d3mkit run needs psutil (pip install "d3mkit[systems]")')


@pytest.fixture(scope="module")
def roots(tmp_path_factory):
    d = tmp_path_factory.mktemp("roots")
    return {k: make_root(d, k) for k in KINDS}


def _score(root: Path, preds: Path) -> dict:
    from d3mkit.api import score
    return {(s.metric, s.target): s.value for s in score(root, preds).scores}


def _preds(out: Path, label: str, root: Path, r: int = 0, f: int = 0) -> Path:
    from d3mkit.taskroot.model import TaskRoot
    pid = TaskRoot.open(root).problem.problem_id
    return out / label / pid / f"repeat_{r}" / f"fold_{f}"


def test_builtins_are_found_without_installed_metadata(monkeypatch):
    from d3mkit.core import entrypoints
    from d3mkit.systems import plugins
    monkeypatch.setattr(entrypoints, "own", lambda group: [])
    monkeypatch.setattr(entrypoints, "third_party", lambda group: [])
    assert {"constant", "random-forest", "flaml", "autogluon", "h2o", "tpot"} <= set(plugins.names())


def test_systems_lists_name_ready_version_tasks(capsys):
    assert main(["systems", "--format", "json"]) == 0
    listed = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    for name in ("constant", "random-forest"):
        assert listed[name]["ready"] is True and listed[name]["version"].startswith("scikit-learn")
        assert "classification/multiLabel" in listed[name]["tasks"]
    assert set(listed["autogluon"]) >= {"name", "ready", "version", "tasks"}
    assert main(["systems"]) == 0
    assert "random-forest" in capsys.readouterr().out


@pytest.mark.slow
def test_unknown_system_is_a_usage_error(roots, tmp_path, capsys):
    assert main(["run", "random-forrest", str(roots["binary"]), "--out", str(tmp_path / "o")]) == 2
    assert "did you mean 'random-forest'" in capsys.readouterr().err


def _rf_beats_constant(got: dict) -> None:
    for key, rf in got["random-forest"].items():
        const = got["constant"][key]
        if key[0] == "rootMeanSquaredError":
            assert rf < const, (key, rf, const)
        else:
            assert rf >= const, (key, rf, const)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_every_task_type_through_the_views(kind, roots):
    """constant and random-forest called as the child calls them, on the TRAIN/TEST views of
    a sandbox, in this process (fast); their predictions scored against the task root."""
    from d3mkit.api import score
    from d3mkit.systems.child import fit_predict
    from d3mkit.systems.handover import sandbox
    got = {}
    with sandbox(roots[kind]) as box:
        for name in ("constant", "random-forest"):
            frame, fit_s, predict_s = fit_predict(get(name), box.paths["train"], box.paths["test"],
                                                  box.paths["problem"], Options(seed=0))
            assert fit_s >= 0 and predict_s >= 0
            got[name] = {(s.metric, s.target): s.value for s in score(roots[kind], frame).scores}
    _rf_beats_constant(got)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_random_forest_beats_constant_on_every_task_type(kind, roots, tmp_path):
    root = roots[kind]
    got = {}
    for name in ("constant", "random-forest"):
        res = run_system(get(name), root, tmp_path, Options(seed=0, time_limit=60))
        assert [r.status for r in res] == ["ok"]
        fold = _preds(tmp_path, name, root)
        doc = json.loads((fold / "pipeline.json").read_text())
        assert {"system", "version", "seed", "time_limit", "fit_seconds", "predict_seconds", "peak_memory_mb",
                "status"} <= set(doc) and doc["status"] == "ok" and doc["peak_memory_mb"] > 0
        got[name] = _score(root, fold / "predictions.csv")
    _rf_beats_constant(got)


@pytest.mark.slow
def test_constant_predicts_the_majority_and_the_mean(roots, tmp_path):
    from d3mkit.taskroot.model import TaskRoot
    for kind, col in (("multiClass", "kind"), ("univariate", "y1")):
        root = roots[kind]
        run_system(get("constant"), root, tmp_path, Options())
        preds = pd.read_csv(_preds(tmp_path, "constant", root) / "predictions.csv")
        train, _ = TaskRoot.open(root).train_test()
        expected = train[col].astype(str).value_counts().idxmax() if kind == "multiClass" else train[col].mean()
        assert preds[col].nunique() == 1
        if kind == "multiClass":
            assert preds[col].iloc[0] == expected
        else:
            assert preds[col].iloc[0] == pytest.approx(expected)


FIT_SCRIPT = """
import csv, json, os, sys
from collections import Counter
train, test, problem, out = sys.argv[1:5]
target = json.load(open(os.path.join(problem, "problemDoc.json")))["inputs"]["data"][0]["targets"][0]["colName"]
rows = list(csv.DictReader(open(os.path.join(train, "tables", "learningData.csv"))))
label = Counter(r[target] for r in rows).most_common(1)[0][0]
with open(out, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["d3mIndex", target])
    for r in csv.DictReader(open(os.path.join(test, "tables", "learningData.csv"))):
        w.writerow([r["d3mIndex"], label])
"""


@pytest.mark.slow
def test_command_system_on_binary_and_multiclass(roots, tmp_path):
    script = tmp_path / "fit.py"
    script.write_text(FIT_SCRIPT)
    system = get(f"command:{sys.executable} {script} {{train}} {{test}} {{problem}} {{out}}")
    for kind in ("binary", "multiClass"):
        res = run_system(system, roots[kind], tmp_path / "runs", Options(time_limit=30))
        assert [r.status for r in res] == ["ok"], res[0].error
        preds = _preds(tmp_path / "runs", "command", roots[kind]) / "predictions.csv"
        assert _score(roots[kind], preds)[("accuracy", None)] > 0


def test_command_template_errors(capsys, roots, tmp_path):
    from d3mkit.core.errors import D3MKitError
    with pytest.raises(D3MKitError, match="unknown placeholder"):
        get("command:prog {train} {secret} {out}")
    with pytest.raises(D3MKitError, match="names no {out}"):
        get("command:prog {train}")


NOSY = r"""
import json, os, sys
seen, found = [], []
start = [a for a in sys.argv[1:] if os.path.exists(a)] + [os.getcwd()]
start += [v for v in os.environ.values() if os.path.isabs(v) and os.path.exists(v)]
for s in start:
    for base in [s] + [os.path.dirname(s)] * os.path.isfile(s):
        for d, dirs, files in os.walk(base):
            seen.append(d)
            for f in files:
                p = os.path.join(d, f)
                seen.append(p)
                if f.endswith(".csv"):
                    import csv
                    rows = list(csv.DictReader(open(p, encoding="utf-8", errors="replace")))
                    found.append([p, [[r.get("d3mIndex"), r.get("label")] for r in rows if r.get("label")]])
                elif os.path.islink(p):
                    seen.append(os.path.realpath(p))
out = sys.argv[4]
test_rows = [l.split(",")[0] for l in open(os.path.join(sys.argv[2], "tables", "learningData.csv")).read().splitlines()[1:]]
open(out, "w").write("d3mIndex,label\n" + "".join(f"{i},pos\n" for i in test_rows))
print("NOSY" + json.dumps({"seen": seen, "csv": found, "env": dict(os.environ), "argv": sys.argv,
                           "cwd": os.getcwd()}, separators=(",", ":")))
"""


def test_a_nosy_system_finds_no_truth(roots, tmp_path):
    """A system that walks every path it is handed (arguments, working directory, every
    absolute path in its environment) and reads every CSV there finds neither the task root,
    nor a SCORE view, nor the TEST rows' targets."""
    from d3mkit.taskroot.model import TaskRoot
    root = roots["binary"]
    task = TaskRoot.open(root)
    _, test = task.split_indices(0, 0)
    truth = {row["d3mIndex"]: row["label"] for _, row in task.learning_data().iterrows()}
    script = tmp_path / "nosy.py"
    script.write_text(NOSY)
    out = tmp_path / "runs"
    res = run_system(get(f"command:{sys.executable} {script} {{train}} {{test}} {{problem}} {{out}}"),
                     root, out, Options(time_limit=60))
    assert res[0].status == "ok", res[0].error
    log = (_preds(out, "command", root) / "log.txt").read_text()
    report = json.loads(log[log.index("NOSY") + 4:].strip().splitlines()[0])
    words = [*report["seen"], *report["argv"], report["cwd"], *report["env"].values()]
    for w in words:
        assert str(Path(root).resolve()) not in w and str(out.resolve()) not in w and "SCORE" not in w
        assert not w.endswith("targets.csv")
    assert not [k for k in report["env"] if k.startswith("D3MKIT") or k in ("PWD", "OLDPWD", "PYTHONPATH")]
    # every (d3mIndex, label) pair it read: none is a TEST row with its target
    for path, pairs in report["csv"]:
        leaked = [p for p in pairs if p[0] in test]
        assert not leaked, (path, leaked[:3])
    assert any(p.endswith("learningData.csv") for p, _ in report["csv"])   # it did look
    assert all(not Path(p).exists() for p, _ in report["csv"])             # the sandbox is gone
    assert len(truth) > len(test)


@pytest.mark.slow
def test_limits_timeout_memout_failed_and_the_run_goes_on(tmp_path):
    import psutil
    root = make_root(tmp_path / "k", "binary", folds=3)
    sleeper = tmp_path / "sleep.py"
    sleeper.write_text("import subprocess, sys, time\n"
                       "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                       "print('GRANDCHILD', p.pid, flush=True)\ntime.sleep(60)\n")
    res = run_system(get(f"command:{sys.executable} {sleeper} {{out}}"), root, tmp_path / "r",
                     Options(time_limit=1), folds="first")
    assert res[0].status == "timeout" and res[0].wall_seconds < 1 + 1.1 + 2
    log = (_preds(tmp_path / "r", "command", root) / "log.txt").read_text()
    grandchild = int(log.split("GRANDCHILD")[1].split()[0])
    assert not psutil.pid_exists(grandchild) or psutil.Process(grandchild).status() == psutil.STATUS_ZOMBIE
    hog = tmp_path / "hog.py"
    hog.write_text("import time\nx = bytearray(400 << 20)\nfor i in range(0, len(x), 4096): x[i] = 1\ntime.sleep(30)\n")
    res = run_system(get(f"command:{sys.executable} {hog} {{out}}"), root, tmp_path / "m",
                     Options(time_limit=20, memory_limit=150), folds="first")
    assert res[0].status == "memout" and res[0].peak_memory_mb > 150
    res = run_system(get(f"command:{sys.executable} -c 'raise SystemExit(3)' {{out}}"), root, tmp_path / "f",
                     Options(time_limit=20))
    assert [r.status for r in res] == ["failed"] * 3 and "exit 3" in res[0].error
    fold = _preds(tmp_path / "f", "command", root, 0, 2)
    assert json.loads((fold / "pipeline.json").read_text())["status"] == "failed"
    assert not (fold / "predictions.csv").exists()


@pytest.mark.slow
def test_resume_keeps_finished_folds_and_a_rerun_needs_a_flag(tmp_path, capsys):
    import shutil
    root = make_root(tmp_path / "k", "univariate", folds=3)
    out = tmp_path / "runs"
    first = run_system(get("constant"), root, out, Options())
    assert [r.status for r in first] == ["ok"] * 3
    shutil.rmtree(_preds(out, "constant", root, 0, 1))
    assert main(["run", "constant", str(root), "--out", str(out)]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main(["run", "constant", str(root), "--out", str(out), "--resume", "--format", "json"]) == 0
    folds = json.loads(capsys.readouterr().out)["folds"]
    assert [f["reused"] for f in folds] == [True, False, True]
    assert (_preds(out, "constant", root, 0, 1) / "predictions.csv").is_file()


@pytest.mark.slow
def test_run_output_is_what_evaluate_reads(roots, tmp_path, capsys):
    runs, problems = tmp_path / "runs", tmp_path / "problems"
    problems.mkdir()
    import shutil
    shutil.copytree(roots["multiClass"], problems / roots["multiClass"].name)
    for name in ("constant", "random-forest"):
        assert main(["run", name, str(problems / roots["multiClass"].name), "--out", str(runs), "--quiet"]) == 0
    assert main(["evaluate", "--problems", str(problems), "--submissions", str(runs), "--out",
                 str(tmp_path / "board"), "--bootstrap", "0", "--workers", "1", "--quiet"]) == 0
    scores = pd.read_csv(tmp_path / "board" / "scores.csv")
    assert set(scores["system"]) == {"constant", "random-forest"}


def test_refused_task_type_is_said(tmp_path):
    from d3mkit.core.errors import D3MKitError
    from d3mkit.taskroot.model import TaskRoot
    root = make_root(tmp_path, "multiLabel")
    for name in ("flaml", "h2o", "tpot", "autogluon"):   # refused before any readiness check
        with pytest.raises(D3MKitError, match=f"{name} handles .* not classification/multiLabel"):
            run_system(get(name), root, tmp_path / "o", Options())
    assert TaskRoot.open(root)


@pytest.mark.parametrize("kind", ["binary", pytest.param("multiLabel", marks=pytest.mark.slow),
                                  pytest.param("multivariate", marks=pytest.mark.slow)])
def test_baseline_on_imported_roots(kind, roots, tmp_path, capsys):
    import shutil
    root = tmp_path / roots[kind].name
    shutil.copytree(roots[kind], root)
    assert main(["baseline", str(root), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "random-forest" and out["scores"]
    assert main(["baseline", str(root), "--model", "constant"]) == 0
    assert main(["baseline", str(root), "--model", "logistic-regression"]) == 2
    err = capsys.readouterr().err
    assert "made by 'd3mkit import'" in err and "random-forest, constant" in err


def _ready_or_skip(name: str):
    """The system, or a skip saying why it cannot run here (what to install)."""
    system = get(name)
    why = system.why_not_ready()
    if why:
        pytest.skip(f"{name} cannot run here ({why})")
    return system


FAKE_AUTOGLUON = '''
import json, sys
import pandas as pd


class TabularPredictor:
    """Stands for AutoGluon: says what it was handed, predicts the most frequent class."""

    def __init__(self, label, problem_type=None, eval_metric=None, path=None, verbosity=0):
        self.seen = {"label": label, "problem_type": problem_type, "eval_metric": eval_metric}

    def fit(self, data, time_limit=None, num_cpus=None, num_gpus=None):
        self.seen.update(time_limit=time_limit, num_cpus=num_cpus, columns=list(data.columns),
                         dtypes={c: str(t) for c, t in data.dtypes.items()})
        self.value = data[self.seen["label"]].mode().iloc[0]
        return self

    def predict(self, data):
        print("FAKEAG" + json.dumps(self.seen))
        return pd.Series([self.value] * len(data))
'''


@pytest.mark.slow
def test_autogluon_handover_with_a_fake_interpreter(roots, tmp_path, monkeypatch):
    """The autogluon adapter's file handover, through a stand-in interpreter whose
    ``autogluon.tabular`` records what it is given (AutoGluon itself: the slow test below)."""
    from d3mkit.systems import autogluon
    monkeypatch.setenv("D3MKIT_CACHE_DIR", str(tmp_path / "cache"))
    venv = autogluon.venv_dir()
    (venv / "bin").mkdir(parents=True)
    fake = tmp_path / "fake" / "autogluon"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "tabular.py").write_text(FAKE_AUTOGLUON)
    py = venv / "bin" / "python"
    py.write_text(f'#!/bin/sh\n[ "$1" = "-I" ] && shift\nPYTHONPATH="{fake.parent}" exec "{sys.executable}" -P "$@"\n')
    py.chmod(0o755)
    system = get("autogluon")
    assert "d3mkit systems install autogluon" in system.why_not_ready()
    (venv / autogluon.STAMP).write_text(json.dumps({"version": "fake"}))
    assert system.why_not_ready() is None
    root = roots["binary"]
    res = run_system(system, root, tmp_path / "runs", Options(time_limit=50, cores=2))
    assert res[0].status == "ok", res[0].error
    fold = _preds(tmp_path / "runs", "autogluon", root)
    log = (fold / "log.txt").read_text()
    seen = json.loads(log[log.index("FAKEAG") + 6:].splitlines()[0])
    assert seen["problem_type"] == "binary" and seen["eval_metric"] == "accuracy"
    assert seen["time_limit"] == pytest.approx(40.0) and seen["num_cpus"] == 2
    assert "d3mIndex" not in seen["columns"] and seen["dtypes"]["colour"] == "category"
    assert seen["dtypes"]["x"] == "float64" and seen["dtypes"]["when"].startswith("datetime64")
    assert _score(root, fold / "predictions.csv")[("accuracy", None)] > 0.3
    assert json.loads((fold / "pipeline.json").read_text())["version"] == "fake"


@pytest.mark.slow
def test_autogluon_itself(roots, tmp_path):
    system = _ready_or_skip("autogluon")
    res = run_system(system, roots["multiClass"], tmp_path, Options(time_limit=60))
    assert res[0].status == "ok", res[0].error
    assert _score(roots["multiClass"], _preds(tmp_path, "autogluon", roots["multiClass"]) / "predictions.csv")


@pytest.mark.slow
def test_flaml_with_a_ten_second_budget(roots, tmp_path):
    system = _ready_or_skip("flaml")
    for kind in ("binary", "univariate"):
        res = run_system(system, roots[kind], tmp_path, Options(time_limit=10, seed=0))
        assert res[0].status in ("ok", "timeout")
        if res[0].status == "ok":    # a loaded machine may need the grace and more
            assert _score(roots[kind], _preds(tmp_path, "flaml", roots[kind]) / "predictions.csv")


@pytest.mark.slow
def test_benchmark_runs_every_system_on_every_root_then_evaluates(roots, tmp_path, capsys):
    import shutil
    problems = tmp_path / "problems"
    for kind in ("binary", "multiLabel"):
        shutil.copytree(roots[kind], problems / roots[kind].name)
    script = tmp_path / "fit.py"
    script.write_text(FIT_SCRIPT)
    argv = ["benchmark", "--systems", f"constant,mine=command:{sys.executable} {script} {{train}} {{test}} "
            f"{{problem}} {{out}},flaml", "--problems", str(problems), "--out", str(tmp_path / "board"),
            "--time-limit", "10", "--bootstrap", "0", "--workers", "1", "--format", "json"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    runs = pd.read_csv(tmp_path / "board" / "runs.csv")
    assert set(runs["system"]) == {"constant", "mine", "flaml"}
    assert (runs.loc[runs["system"] == "flaml", "status"] == "refused").any()     # flaml: no multiLabel
    scores = pd.read_csv(tmp_path / "board" / "evaluation" / "scores.csv")
    assert {"constant", "mine"} <= set(scores["system"])
    assert (tmp_path / "board" / "evaluation" / "leaderboard.html").is_file()
    systems = pd.read_csv(tmp_path / "board" / "systems.csv").set_index("system")
    assert systems.loc["constant", "ok"] == 2
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["reused"] == sum(v for k, v in first["folds"].items() if k != "refused")


@pytest.mark.slow
def test_folds_forked_by_the_warm_zygote_equal_fresh_children(tmp_path):
    """A Python system's folds after the first are forked by a warm process
    (d3mkit.systems.zygote): the same predictions as a child started afresh."""
    root = make_root(tmp_path / "k", "multiClass", folds=3)
    warm = run_system(get("random-forest"), root, tmp_path / "warm", Options(seed=3, time_limit=60))
    assert [r.status for r in warm] == ["ok"] * 3
    from d3mkit.systems.runner import run_fold
    from d3mkit.taskroot.model import TaskRoot
    task = TaskRoot.open(root)
    cold = run_fold(get("random-forest"), task, 0, 2, Options(seed=3, time_limit=60), tmp_path / "cold", "rf")
    assert cold.status == "ok"
    assert (tmp_path / "cold" / "predictions.csv").read_bytes() == \
        (_preds(tmp_path / "warm", "random-forest", root, 0, 2) / "predictions.csv").read_bytes()


@pytest.mark.slow
def test_baseline_on_a_d3m_seed_root(tmp_path, capsys):
    """A published D3M seed root (no d3mkit manifest, no benchmark): random-forest by default."""
    import shutil
    base = os.environ.get("D3MKIT_REALWORLD")
    if not base or not (Path(base) / "roots" / "uu4_SPECT").is_dir():
        pytest.skip("D3MKIT_REALWORLD (the shared realworld corpus with roots/uu4_SPECT) is not set")
    root = tmp_path / "uu4_SPECT"
    shutil.copytree(Path(base) / "roots" / "uu4_SPECT", root)
    assert main(["baseline", str(root), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "random-forest" and out["scores"][0]["metric"] == "f1"


@pytest.mark.slow
def test_benchmark_on_a_dask_cluster(roots, tmp_path, capsys):
    distributed = pytest.importorskip("distributed", reason='needs dask (pip install "d3mkit[dask]")')
    import shutil
    problems = tmp_path / "problems"
    shutil.copytree(roots["univariate"], problems / roots["univariate"].name)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        assert main(["benchmark", "--systems", "constant", "--problems", str(problems), "--out",
                     str(tmp_path / "board"), "--bootstrap", "0", "--scheduler", cluster.scheduler_address,
                     "--format", "json"]) == 0
        assert "run_chunk" in cluster.scheduler.task_prefixes       # the cluster ran the unit
    assert json.loads(capsys.readouterr().out)["folds"] == {"ok": 1}
    assert not pd.read_csv(tmp_path / "board" / "evaluation" / "scores.csv").empty


def test_tpot_handover_types_the_views_for_tpot(roots):
    """tpot_main's side of the handover (it runs in TPOT's environment; here with d3mkit's
    pandas): numbers and datetimes as floats, categories as text cells TPOT one-hot encodes,
    text left out, the positive class coded 1."""
    import importlib
    from d3mkit.systems.handover import sandbox
    main_ = importlib.import_module("d3mkit.systems.venv_exec.tpot_main")
    views = importlib.import_module("d3mkit_views")     # tpot_main put its directory on sys.path
    with sandbox(roots["binary"]) as box:
        p = views.problem_of(box.paths["problem"])
        df, cols = views.load(box.paths["train"])
    X, kinds = views.features(df, cols, {p["target"]})
    assert p["target"] == "label" and p["task"] == "classification" and p["subtype"] == "binary"
    assert kinds == {"x": "number", "size": "number", "colour": "category", "flag": "category",
                     "when": "datetime", "note": "text"}
    frame, cats = main_.tpot_frame(X, kinds)
    assert list(frame.columns) == ["x", "size", "colour", "flag", "when"] and cats == ["colour", "flag"]
    assert frame["when"].dtype == float and frame["x"].isna().sum() == X["x"].isna().sum()
    assert main_.classes_of(df["label"], "neg") == ["pos", "neg"]
    assert main_.METRICS[p["metric"]] == "accuracy"


def test_h2o_types_metrics_and_heap():
    from d3mkit.systems import h2o_system
    X = pd.DataFrame({"n": [1.0, None], "c": ["a", None], "d": pd.to_datetime(["1970-01-02", None]),
                      "t": ["some words here and there", "x"]})
    frame, types = h2o_system.frame(X, {"n": "real", "c": "categorical", "d": "dateTime", "t": "text"})
    assert types == {"n": "numeric", "c": "enum", "d": "numeric"} and frame["d"].iloc[0] == 86400.0
    assert h2o_system.heap_mb(1000) == 550 and h2o_system.heap_mb(None) is None


def _venv_system_or_skip(name: str):
    """The system when its own environment is made (``d3mkit systems install NAME``), else a
    skip with the reason: the suite never makes one (no network at run time, and TPOT's takes
    2.5 minutes and 1.3 GB)."""
    system = get(name)
    why = system.why_not_ready()
    if why:
        pytest.skip(f"{name}'s environment is not made here ({why})")
    return system


@pytest.mark.slow
def test_tpot_itself(roots, tmp_path):
    """TPOT 1.x in its own environment (where ``d3mkit systems install tpot`` made it), 30 s
    budget, scored (one task type: the suite's budget; regression ran by hand, docs/systems.md)."""
    system = _venv_system_or_skip("tpot")
    for kind, metric in (("multiClass", "accuracy"),):
        res = run_system(system, roots[kind], tmp_path, Options(time_limit=30, seed=0))
        assert res[0].status == "ok", res[0].error
        fold = _preds(tmp_path, "tpot", roots[kind])
        assert "scorer" in (fold / "log.txt").read_text()
        assert [v for (m, _), v in _score(roots[kind], fold / "predictions.csv").items() if m == metric]


@pytest.mark.slow
def test_h2o_itself(roots, tmp_path):
    """H2O AutoML (its JVM started per fold) with a 15 s budget and a 1,500 MB cap, scored
    (one task type: the suite's budget; regression ran by hand, docs/systems.md)."""
    system = _ready_or_skip("h2o")
    for kind in ("binary",):
        res = run_system(system, roots[kind], tmp_path, Options(time_limit=15, seed=0, memory_limit=1500))
        assert res[0].status == "ok", res[0].error
        assert _score(roots[kind], _preds(tmp_path, "h2o", roots[kind]) / "predictions.csv")


def test_an_allocation_past_the_hard_cap_is_memout(tmp_path):
    """One allocation far past the memory limit fails at once at the kernel's hard cap
    (RLIMIT_DATA), before the 0.1 s sampling could see it: status memout, said so."""
    import resource  # noqa: F401 - Linux/macOS only
    from d3mkit.systems.limits import hard_cap_mb, run_limited
    if not sys.platform.startswith("linux"):
        pytest.skip("RLIMIT_DATA counts private writable memory on Linux only")
    script = "x = bytearray(%d << 20)\nprint('allocated')\n" % (hard_cap_mb(200) + 512)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG")}
    out = run_limited([sys.executable, "-I", "-c", script], cwd=tmp_path, env=env, log=tmp_path / "log",
                      time_limit=20, memory_mb=200)
    assert out.status == "memout" and "MemoryError" in out.log and "allocated" not in out.log
    assert out.peak_memory_mb < 200 and out.wall_seconds < 5
    small = run_limited([sys.executable, "-I", "-c", "x = bytearray(100 << 20)\nprint('allocated')"], cwd=tmp_path,
                        env=env, log=tmp_path / "log2", time_limit=20, memory_mb=200)
    assert small.status == "ok" and "allocated" in small.log     # under both caps: runs


@pytest.mark.slow
def test_a_forked_python_system_has_the_hard_cap_too(tmp_path):
    """The zygote's forked child sets the hard cap on itself before it runs the system."""
    import time
    import psutil
    from d3mkit.systems.limits import hard_cap_mb
    from d3mkit.systems.runner import warm_zygote
    (tmp_path / "box").mkdir()
    seen = None
    with warm_zygote(1) as z:
        pid = z.start(["__nosuch__", "a", "b", "c", "d", "{}"], str(tmp_path / "box"), dict(z.env),
                      str(tmp_path / "log"), 300)
        end = time.monotonic() + 5
        while time.monotonic() < end:
            try:
                seen = psutil.Process(pid).rlimit(psutil.RLIMIT_DATA)[0]
            except psutil.NoSuchProcess:
                break
            if seen != psutil.RLIM_INFINITY:
                break
        assert z.wait(30) != 0          # no such system: it fails, after the cap was looked at
    assert seen == hard_cap_mb(300) << 20
