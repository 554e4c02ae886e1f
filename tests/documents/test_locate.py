"""One search rule for a problem's dataset (d3mkit.documents.locate), used by validate, split,
score and the library alike."""

import shutil
from pathlib import Path

import pytest

from d3mkit.benchmarks.tabular import build_task_root
from d3mkit.cli import main
from d3mkit.documents import ProblemDoc
from d3mkit.documents.locate import DatasetFinder, dataset_of, find_problem_doc, locate_task_root
from d3mkit.core.errors import D3MKitError, UsageError
from d3mkit.validation.run import validate_paths


@pytest.fixture()
def apart(tmp_path):
    """A wine problem whose dataset lives three levels down in another tree."""
    root = build_task_root(tmp_path / "built", "wine")
    problem = tmp_path / "problems" / "wine_problem"
    problem.parent.mkdir()
    shutil.move(str(root / "wine_problem"), problem)
    deep = tmp_path / "store" / "a" / "b" / "c"
    deep.mkdir(parents=True)
    shutil.move(str(root / "wine_dataset"), deep / "wine_dataset")
    return problem, tmp_path / "store"


def test_every_caller_finds_the_dataset_deep_in_a_search_dir(apart, capsys):
    problem, store = apart
    want = (store / "a" / "b" / "c" / "wine_dataset" / "datasetDoc.json")
    assert DatasetFinder([store]).find("wine_dataset", problem / "problemDoc.json") == want
    assert dataset_of(ProblemDoc.load(problem / "problemDoc.json"), [store]).path == want
    assert validate_paths([problem], [store]).to_dict()["valid"]
    assert main(["split", str(problem), "--datasets", str(store)]) == 0
    assert "up to date" in capsys.readouterr().out


def test_not_found_names_the_places(apart):
    problem, _ = apart
    with pytest.raises(D3MKitError) as e:
        dataset_of(ProblemDoc.load(problem / "problemDoc.json"))
    assert e.value.issues[0].code == "problem.dataset_missing"
    assert str(problem.parent) in e.value.issues[0].message


def test_bare_problemdoc_path_searches_its_task_root(tmp_path, monkeypatch, capsys):
    root = build_task_root(tmp_path, "iris")
    monkeypatch.chdir(root / "iris_problem")
    assert DatasetFinder().find("iris_dataset", Path("problemDoc.json")) is not None
    pred = tmp_path / "p.csv"
    test_ids = [l.split(",")[0] for l in (root / "iris_problem" / "dataSplits.csv").read_text().splitlines()
                if ",TEST," in l]
    pred.write_text("d3mIndex,species\n" + "".join(f"{i},setosa\n" for i in test_ids))
    assert main(["score", "--problem", "problemDoc.json", "--predictions", str(pred)]) == 0
    assert "accuracy" in capsys.readouterr().out


def test_problem_doc_and_task_root_forms(tmp_path):
    root = build_task_root(tmp_path, "wine")
    doc = root / "wine_problem" / "problemDoc.json"
    for form in (root, root / "wine_problem", doc, root / "wine_dataset"):
        assert find_problem_doc(form) == doc
        assert locate_task_root(form) == (root, "wine")
    with pytest.raises(UsageError):
        locate_task_root(tmp_path / "nope")
