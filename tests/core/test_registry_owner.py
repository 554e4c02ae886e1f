"""The registry owns each metric's task types (the validator asks it), every metric —
d3mkit's own too — comes through the d3mkit.metrics entry-point group, and an own entry
point that cannot load fails loudly."""

from importlib.metadata import EntryPoint

import pytest

from d3mkit.core import registry as R
from d3mkit.documents import ProblemDoc, Target
from d3mkit.validation.crossdoc import check_metrics

TASKS = ["classification", "regression", "clustering", "communityDetection", "linkPrediction",
         "vertexNomination", "graphMatching", "timeSeriesForecasting", "collaborativeFiltering",
         "objectDetection", "graphClustering", "other"]


def _problem(task, entry):
    return ProblemDoc.new("p_problem", "p", task, None, "p_dataset",
                          [Target(0, "learningData", 1, "y")], [entry]).to_dict()


def test_nmi_on_classification_validates_and_scores():
    """The review's bug: validate said normalizedMutualInformation does not fit
    classification while score scored it."""
    assert R.get_metric("normalizedMutualInformation").applies_to("classification")
    codes = [i.code for i in check_metrics(_problem("classification", {"metric": "normalizedMutualInformation"}), "p")]
    assert "metric.not_applicable" not in codes


@pytest.mark.parametrize("task", TASKS)
def test_validator_verdict_is_the_registrys(task):
    for name, metric in R.registry().items():
        entry = {"metric": name} if metric.standard else {"metric": "other", "specifyOther": name}
        issues = check_metrics(_problem(task, entry), "p")
        fits = not [i for i in issues if i.code in ("metric.not_applicable", "metric.requires_task")
                    and "binary" not in i.message]
        assert fits == metric.applies_to(task), (name, task, [i.format() for i in issues])


def test_own_entry_points_all_load_and_register():
    eps = R.entrypoints.own(R.ENTRY_POINT_GROUP)
    names = {ep.name for ep in eps}
    assert {"standard", "objectDetection", "value", "abstraction", "prism"} <= names
    sources = {m.source for m in R.registry().values()}
    for ep in eps:
        assert ep.value in sources, f"{ep.value} registered no metric"


def test_missing_own_module_fails_loudly(monkeypatch):
    monkeypatch.setattr(R.entrypoints, "own",
                        lambda group: [EntryPoint("gone", "d3mkit.benchmarks.nothere.metrics", R.ENTRY_POINT_GROUP)])
    monkeypatch.setattr(R, "_LOADED", False)
    with pytest.raises(ImportError, match="gone = d3mkit.benchmarks.nothere.metrics"):
        R.registry()
    monkeypatch.setattr(R, "_LOADED", True)


@pytest.mark.parametrize("sub", ["binary", "multiClass", "multiLabel"])
def test_binary_only_is_the_registrys(sub, monkeypatch):
    """Which metrics score only binary problems is a field of the Metric record; the
    validator asks it (also for a custom metric named through 'other')."""
    assert {n for n, m in R.registry().items() if m.binary_only} == {"f1", "precision", "recall", "rocAuc"}
    custom = R.Metric("myBinaryScore", lambda t, p: 1.0, True, 1.0, 0.0,
                      task_types=("classification",), binary_only=True)
    monkeypatch.setitem(R._REGISTRY, custom.name, custom)
    for name, metric in R.registry().items():
        if not metric.applies_to("classification"):
            continue
        entry = {"metric": name} if metric.standard else {"metric": "other", "specifyOther": name}
        doc = ProblemDoc.new("p_problem", "p", "classification", sub, "p_dataset",
                             [Target(0, "learningData", 1, "y")], [entry]).to_dict()
        warned = [i for i in check_metrics(doc, "p") if "binary problem" in i.message]
        assert bool(warned) == (metric.binary_only and sub != "binary"), (name, sub)
        if warned and name == "f1":
            assert "f1Macro or f1Micro" in warned[0].message
    assert R.get_metric("f1").describe()["binaryOnly"] is True
